"""Fold and decide speed with recorded decisions (rules version 2) against the version-1 fallback, same run.

Version-2 events carry what the rules decided (`decision`), so folding them runs no rule; version-1
events (no `decision`) make evolve compute the decisions again. Both logs are whole bot matches from
the same seeds. Prints medians of repeated runs, in events per second, and the ratio v2 / v1.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
from engine.selfplay import seeds_from  # noqa: E402

REPEATS = 7
MATCHES = 3  # per variant, 8 hands each


def _play(variant: str, options: dict[str, Any], label: str, version: int) -> list[dict[str, Any]]:
    state = engine.initial_state()
    seeds = seeds_from(label)
    log, state = engine.step(
        state, {"action": "start_match", "variant": variant, "options": options, "rules_version": version}
    )
    while state.phase != "match_over":
        if state.needs_new_hand:
            command: dict[str, Any] = {"action": "start_hand", "seed": next(seeds)}
        else:
            seat = engine.pending_seats(state)[0]
            command = dict(engine.bot_action(state, seat), seat=seat)
        events, state = engine.step(state, command)
        log.extend(events)
    return json.loads(json.dumps(log))


def _medians(fns: dict[int, Callable[[], int]]) -> dict[int, float]:
    """Median rate of each fn, the fns run alternately (a shared machine's load hits both alike)."""
    rates: dict[int, list[float]] = {key: [] for key in fns}
    for _ in range(REPEATS):
        for key, fn in fns.items():
            started = time.perf_counter()
            n = fn()
            rates[key].append(n / (time.perf_counter() - started))
    return {key: statistics.median(values) for key, values in rates.items()}


def main() -> None:
    setups = [("koudiandian", {"hands": 8, "wilds": True}), ("hanshan", {"hands": 8})]
    for variant, options in setups:
        labels = [f"bench-fold/{variant}/{i}" for i in range(MATCHES)]
        logs = {v: [_play(variant, options, label, v) for label in labels] for v in (1, 2)}
        events = {v: sum(len(log) for log in logs[v]) for v in (1, 2)}
        fold = _medians({v: lambda v=v, logs=logs: sum(engine.fold(log).version for log in logs[v]) for v in (1, 2)})
        play = _medians(
            {
                v: lambda v=v, variant=variant, options=options, labels=labels: sum(
                    len(_play(variant, options, label, v)) for label in labels
                )
                for v in (1, 2)
            }
        )
        size = {v: sum(len(json.dumps(log)) for log in logs[v]) for v in (1, 2)}
        print(f"{variant}: {MATCHES} matches, {events[2]} events")
        print(
            f"  fold   v2 (recorded decisions) {fold[2]:>9.0f} ev/s   v1 (rules rerun) {fold[1]:>9.0f} ev/s   "
            f"ratio {fold[2] / fold[1]:.2f}"
        )
        print(f"  decide v2 {play[2]:>9.0f} ev/s   v1 {play[1]:>9.0f} ev/s   ratio {play[2] / play[1]:.2f}")
        print(f"  log size (JSON) v2 {size[2]} bytes   v1 {size[1]} bytes   ratio {size[2] / size[1]:.2f}")


if __name__ == "__main__":
    main()
