"""Bot strength and speed: every level against the greedy baseline (bench/greedy.py) and against each
other, in each rule set (扣点点, 扣点点 with 耗子, 含山); and the time of a bot decision.

    python bench/bots.py [--hands N] [--rules kdd haozi hanshan] [--pairs normal:greedy strong:normal ...]
                         [--seating both|one-a|one-b] [--deals LABEL]

For a pair A:B and a rule set, two seatings are played, N hands each (default 1,000):
"one A, three B" and "one B, three A" (`--seating one-a` or `one-b` plays only that one, so the two
can run in two processes at once on the same deals). Matches of 8 hands from fixed seeds (engine.selfplay.seeds_from,
label `bench-bots/<rule set>/<match>`: both seatings and every pair play the same deals); the lone seat
moves one place per match (seats 0, 1, 2, 3, 0, ...). Per hand the figure is the lone seat's score
minus the mean of the other three seats' scores, given as A - B (the second seating's sign flipped),
with a 95% confidence interval (1.96 standard errors of the per-hand figures; hands are treated as
independent). Every decision of each player is timed around its call, wall clock
(time.perf_counter) and the process's CPU time (time.process_time, which leaves out the time other
processes of a shared machine take): median and p99 in ms, printed with the load average.

With --duplicate each seating is also played with its lone seat taken by the others' player ("one B,
three B" beside "one A, three B"; "one A, three A" beside "one B, three A"), on the same deals and
seats, and the figure is given again hand by hand against that control (the duplicate format of card
and tile games): the same quantity (the control's expected figure is 0: a hand's figures over its four
seats sum to 0 and the lone seat rotates), with the deals' luck for the lone seat taken out, so a
narrower interval for twice the play.

--deals LABEL plays other fixed deals (label `LABEL/<rule set>/<match>`; the default is `bench-bots`):
a run whose size was set before it, on deals no earlier run has shown, gives a 95% interval that no
look at those deals has chosen.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.greedy import greedy_action  # noqa: E402
from engine.actions import pending_seats  # noqa: E402
from engine.bot import LEVELS, bot_action  # noqa: E402
from engine.selfplay import seeds_from  # noqa: E402
from engine.state import MatchState  # noqa: E402
from engine.table import initial_state, step  # noqa: E402

HANDS_PER_MATCH = 8
RULE_SETS: dict[str, tuple[str, dict[str, Any]]] = {
    "kdd": ("koudiandian", {}),
    "haozi": ("koudiandian", {"wilds": True}),
    "hanshan": ("hanshan", {}),
}
TITLES = {"kdd": "扣点点", "haozi": "扣点点 耗子", "hanshan": "含山"}
DEFAULT_PAIRS = ["easy:greedy", "normal:greedy", "strong:greedy", "normal:easy", "strong:normal"]

Chooser = Callable[[MatchState, int], dict[str, Any]]


def chooser(player: str) -> Chooser:
    if player == "greedy":
        return greedy_action
    return lambda state, seat: bot_action(state, seat, player)


DEALS = "bench-bots"  # the label of the default deals


def play(
    rule_set: str, players: tuple[str, ...], match: int, timings: dict[str, list[float]], deals: str = DEALS
) -> list[list[int]]:
    """One match of HANDS_PER_MATCH hands from the deals `deals/<rule set>/<match>`; the deltas of each hand."""
    variant, options = RULE_SETS[rule_set]
    seeds = seeds_from(f"{deals}/{rule_set}/{match}")
    choose = [chooser(p) for p in players]
    state = initial_state()
    out = []
    events, state = step(
        state, {"action": "start_match", "variant": variant, "options": {**options, "hands": HANDS_PER_MATCH}}
    )
    while state.phase != "match_over":
        if state.needs_new_hand:
            events, state = step(state, {"action": "start_hand", "seed": next(seeds)})
        else:
            seat = pending_seats(state)[0]
            started, cpu = time.perf_counter(), time.process_time()
            command = choose[seat](state, seat)
            timings.setdefault(players[seat], []).append(time.perf_counter() - started)
            timings.setdefault(players[seat] + " CPU", []).append(time.process_time() - cpu)
            events, state = step(state, dict(command, seat=seat))
        out += [e["settlement"]["deltas"] for e in events if e["type"] == "hand_ended"]
    return out


def seating(
    rule_set: str, lone: str, others: str, hands: int, timings: dict[str, list[float]], deals: str = DEALS
) -> list[float]:
    """Per hand: the lone player's score minus the mean of the three others'."""
    diffs: list[float] = []
    match = 0
    while len(diffs) < hands:
        seat = match % 4
        players = tuple(lone if s == seat else others for s in range(4))
        for deltas in play(rule_set, players, match, timings, deals):
            rest = [deltas[s] for s in range(4) if s != seat]
            diffs.append(deltas[seat] - statistics.fmean(rest))
        match += 1
    return diffs[:hands]


def mean_ci(values: list[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return mean, half


def figure(raw: list[float], control: Optional[list[float]] = None) -> str:
    """A seating's per-hand figure with its 95% interval; with its control, also hand by hand against it."""
    mean, half = mean_ci(raw)
    out = f"{mean:+6.2f} ± {half:4.2f}"
    if control is None:
        return out
    paired = [r - c for r, c in zip(raw, control)]
    mean, half = mean_ci(paired)
    differ = sum(1 for d in paired if abs(d) > 1e-9)
    return out + f" (duplicate {mean:+6.2f} ± {half:4.2f}, {differ} hands differ)"


def spread(times: list[float]) -> str:
    t = sorted(times)
    p99 = t[min(len(t) - 1, int(0.99 * len(t)))]
    return f"median {1000 * statistics.median(t):.2f} ms, p99 {1000 * p99:.2f} ms ({len(t)} decisions)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--hands", type=int, default=1000, help="hands per seating (default 1000)")
    parser.add_argument("--rules", nargs="+", default=list(RULE_SETS), choices=list(RULE_SETS))
    parser.add_argument("--pairs", nargs="+", default=DEFAULT_PAIRS, help="A:B pairs (levels or greedy)")
    parser.add_argument("--seating", choices=["both", "one-a", "one-b"], default="both", help="the seatings to play")
    parser.add_argument("--duplicate", action="store_true", help="also play each seating's control (see above)")
    parser.add_argument("--deals", default=DEALS, help=f"the label of the fixed deals (default {DEALS}; see above)")
    args = parser.parse_args()
    for pair in args.pairs:
        a, b = pair.split(":")
        for p in (a, b):
            if p != "greedy" and p not in LEVELS:
                parser.error(f"unknown player {p!r}: {', '.join(LEVELS)} or greedy")
    print(f"{args.hands} hands per seating, deals {args.deals}; load average {os.getloadavg()[0]:.2f} at start")
    timings: dict[str, list[float]] = {}
    for rule_set in args.rules:
        for pair in args.pairs:
            a, b = pair.split(":")
            started = time.perf_counter()
            figures = []
            if args.seating != "one-b":
                raw = seating(rule_set, a, b, args.hands, timings, args.deals)
                control = seating(rule_set, b, b, args.hands, {}, args.deals) if args.duplicate else None
                figures.append(f"one {a} vs three {b} {figure(raw, control)}")
            if args.seating != "one-a":
                raw = [-d for d in seating(rule_set, b, a, args.hands, timings, args.deals)]
                control = [-d for d in seating(rule_set, a, a, args.hands, {}, args.deals)] if args.duplicate else None
                figures.append(f"one {b} vs three {a} {figure(raw, control)}")
            print(
                f"{TITLES[rule_set]:10s} {a} - {b} per hand: {'; '.join(figures)}  ({time.perf_counter() - started:.0f} s)",
                flush=True,
            )
    for player, times in sorted(timings.items()):
        print(f"decision time {player:10s}: {spread(times)}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
