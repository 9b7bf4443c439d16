"""Bots: `normal` against `easy`, two of each at the table, and the time of a bot decision.

    python bench/bots.py [HANDS] [VARIANT ...]     (default 4,000 hands per variant, both variants)

Matches of 8 hands from deterministic seeds (engine.selfplay.seeds_from); the seats of the two
`normal` bots rotate through the six ways of placing two of four, one arrangement per match.
For each level: average score per seat-hand, and the win rate (hands won / seat-hands), each with a
95% confidence interval (normal approximation; the score CI from the per-hand difference
normal - easy, so the table's luck cancels). Every decision of each level is timed
around the bot call, wall clock (time.perf_counter) and the process's CPU time (time.process_time,
which leaves out the time other processes of a shared machine take): median, p99 and max in ms.
"""

from __future__ import annotations

import itertools
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.actions import pending_seats  # noqa: E402
from engine.bot import bot_action  # noqa: E402
from engine.selfplay import seeds_from  # noqa: E402
from engine.table import initial_state, step  # noqa: E402

HANDS_PER_MATCH = 8
ARRANGEMENTS = [
    tuple("normal" if s in pair else "easy" for s in range(4)) for pair in itertools.combinations(range(4), 2)
]


def play(variant: str, levels: tuple[str, ...], seeds, timings: dict) -> list[dict]:
    """One match; returns its hand_ended events."""
    state = initial_state()
    ended = []
    events, state = step(state, {"action": "start_match", "variant": variant, "options": {"hands": HANDS_PER_MATCH}})
    while state.phase != "match_over":
        if state.needs_new_hand:
            events, state = step(state, {"action": "start_hand", "seed": next(seeds)})
        else:
            seat = pending_seats(state)[0]
            started, cpu = time.perf_counter(), time.process_time()
            command = bot_action(state, seat, levels[seat])
            timings[levels[seat]].append(time.perf_counter() - started)
            timings[levels[seat] + "_cpu"].append(time.process_time() - cpu)
            events, state = step(state, dict(command, seat=seat))
        ended += [e for e in events if e["type"] == "hand_ended"]
    return ended


def _spread(times: list[float]) -> str:
    t = sorted(times)
    p99 = t[min(len(t) - 1, int(0.99 * len(t)))]
    return f"median {1000 * statistics.median(t):.2f} p99 {1000 * p99:.2f} max {1000 * t[-1]:.1f} ({len(t)} decisions)"


def _mean_ci(values: list[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return mean, half


def _rate_ci(wins: int, n: int) -> tuple[float, float]:
    p = wins / n
    return p, 1.96 * math.sqrt(p * (1 - p) / n)


def run(variant: str, hands: int) -> None:
    seeds = seeds_from(f"bench-bots/{variant}")
    timings: dict[str, list[float]] = {"easy": [], "normal": [], "easy_cpu": [], "normal_cpu": []}
    per_level: dict[str, list[int]] = {"easy": [], "normal": []}
    wins = {"easy": 0, "normal": 0}
    diffs: list[float] = []
    played = 0
    started = time.perf_counter()
    match = 0
    while played < hands:
        levels = ARRANGEMENTS[match % len(ARRANGEMENTS)]
        match += 1
        for ended in play(variant, levels, seeds, timings):
            deltas = ended["settlement"]["deltas"]
            for seat, level in enumerate(levels):
                per_level[level].append(deltas[seat])
            if ended["winner"] is not None:
                wins[levels[ended["winner"]]] += 1
            n = [deltas[s] for s in range(4) if levels[s] == "normal"]
            e = [deltas[s] for s in range(4) if levels[s] == "easy"]
            diffs.append(statistics.fmean(n) - statistics.fmean(e))
            played += 1
    elapsed = time.perf_counter() - started
    print(f"{variant}: {played} hands ({match} matches of {HANDS_PER_MATCH}), {elapsed:.0f} s")
    for level in ("normal", "easy"):
        mean, half = _mean_ci(per_level[level])
        rate, rhalf = _rate_ci(wins[level], len(per_level[level]))
        print(f"  {level:6s} score/hand {mean:+7.2f} ± {half:5.2f}   win rate {100 * rate:5.1f}% ± {100 * rhalf:4.1f}")
        print(
            f"         decision ms, wall clock: {_spread(timings[level])}; CPU time: {_spread(timings[level + '_cpu'])}"
        )
    mean, half = _mean_ci(diffs)
    draws = played - wins["normal"] - wins["easy"]
    print(f"  normal - easy per hand (mean of a level's two seats): {mean:+.2f} ± {half:.2f}; draws {draws}")


def main() -> None:
    hands = int(sys.argv[1]) if len(sys.argv) > 1 else 4000
    variants = sys.argv[2:] or ["koudiandian", "hanshan"]
    for variant in variants:
        run(variant, hands)


if __name__ == "__main__":
    main()
