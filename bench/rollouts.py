"""Two bots' decisions judged by rollouts, where they differ: a quick screen of a change to a bot before
the long measure of bench/bots.py.

    python bench/rollouts.py [--rules kdd haozi hanshan] [--play strong] [--against normal] [--others normal]
                             [--matches 100] [--rollouts 16]

A player is a level (easy, normal, strong), greedy (bench/greedy.py), or `strong` with its budget set
(engine.bot_strong.Budget): `strong/samples=0` decides without the sampled danger, `strong/ahead=0`
without the look one draw ahead.

One seat plays `--play` among three `--others` (matches of 8 hands from fixed seeds, label
`bench-rollouts/<rule set>/<match>`: other deals than bench/bots.py's, so a change screened here is
then measured on deals it was not chosen on; the seat moves one place per match). At each of its
decisions the `--against` player is asked too; where the two choose differently, each choice is played
to the end of the hand R times, all four seats `normal` after it, the wall's undrawn tiles reshuffled
for each rollout (the same R shuffles for both choices: common random numbers), and the seat's figure
(its score minus the mean of the other three's, as bench/bots.py counts it) is averaged per choice.
The concealed hands stay as dealt: a rollout judges the choice against the hands the table really
holds, from a decision made on the seat's view alone.

Printed: the decisions that differ, the mean advantage of `--play`'s choice per differing decision
and per hand (the sum over the hands played, divided by them), each with a 95% interval over the
decisions. Per hand it is the first-order effect of the differing decisions with `normal` play after
each; bench/bots.py measures the whole effect (later decisions differ too), at about ten times the
play for the same interval.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bots import HANDS_PER_MATCH, RULE_SETS, TITLES, Chooser, chooser  # noqa: E402
from engine.actions import pending_seats  # noqa: E402
from engine.bot import bot_action  # noqa: E402
from engine.bot_strong import Budget, strong_action  # noqa: E402
from engine.selfplay import seeds_from  # noqa: E402
from engine.state import MatchState  # noqa: E402
from engine.table import initial_state, step  # noqa: E402
from engine.views import view  # noqa: E402

LABEL = "bench-rollouts"


@dataclass(frozen=True)
class Differing:
    """A decision where the two players choose differently: the state before it, whose it is, both choices."""

    state: MatchState
    seat: int
    number: int  # the decision's place among the seat's decisions: seeds its rollouts' shuffles
    chosen: dict[str, Any]
    other: dict[str, Any]


def rollout(state: MatchState, seat: int, command: dict[str, Any], shuffle: str) -> float:
    """The seat's figure at the end of the hand after `command`, the undrawn wall reshuffled by `shuffle`
    and every seat `normal` after it. `state` is left as it was (the rollout plays on a copy)."""
    played = state.clone()
    hand = played.in_hand
    undrawn = hand.wall[hand.head : hand.tail]
    random.Random(shuffle).shuffle(undrawn)
    hand.wall = hand.wall[: hand.head] + undrawn + hand.wall[hand.tail :]  # a new list: copies share the old one
    events, played = step(played, dict(command, seat=seat))
    while True:
        for e in events:
            if e["type"] == "hand_ended":
                deltas = e["settlement"]["deltas"]
                return deltas[seat] - statistics.fmean(deltas[s] for s in range(4) if s != seat)
        turn = pending_seats(played)[0]
        events, played = step(played, dict(bot_action(played, turn, "normal"), seat=turn))


def differing(rule_set: str, play: str, against: str, others: str, matches: int) -> tuple[list[Differing], int, int]:
    """Play the matches with one `play` seat; the decisions where `against` would choose otherwise, the
    hands played and the seat's decisions."""
    variant, options = RULE_SETS[rule_set]
    mine, theirs, rest = player(play), player(against), player(others)
    found: list[Differing] = []
    hands = decisions = 0
    for match in range(matches):
        lone = match % 4
        seeds = seeds_from(f"{LABEL}/{rule_set}/{match}")
        state = initial_state()
        _, state = step(
            state, {"action": "start_match", "variant": variant, "options": {**options, "hands": HANDS_PER_MATCH}}
        )
        while state.phase != "match_over":
            if state.needs_new_hand:
                _, state = step(state, {"action": "start_hand", "seed": next(seeds)})
                hands += 1
                continue
            seat = pending_seats(state)[0]
            command = _decide(mine if seat == lone else rest, state, seat)
            if seat == lone:
                decisions += 1
                other = _decide(theirs, state, seat)
                if _key(other) != _key(command):
                    found.append(Differing(state, seat, decisions, command, other))
            _, state = step(state, dict(command, seat=seat))
    return found, hands, decisions


def player(spec: str) -> Chooser:
    """A level, greedy, or `strong` with its budget set: `strong/samples=0/ahead=4` (engine.bot_strong.Budget)."""
    level, *settings = spec.split("/")
    if not settings:
        return chooser(level)
    if level != "strong":
        raise ValueError(f"only strong has settings: {spec!r}")
    budget = Budget(**{k: int(v) for k, v in (s.split("=", 1) for s in settings)})
    return lambda state, seat: strong_action(view(state, seat), budget)


def _decide(choose: Chooser, state: MatchState, seat: int) -> dict[str, Any]:
    return dict(choose(state, seat))


def _key(command: dict[str, Any]) -> str:
    return json.dumps(command, sort_keys=True)


def advantage(d: Differing, rollouts: int, rule_set: str) -> float:
    """The mean figure of the chosen move less the other's, over the same `rollouts` shuffles."""
    total = 0.0
    for r in range(rollouts):
        shuffle = f"{LABEL}/{rule_set}/{d.number}/{r}"
        total += rollout(d.state, d.seat, d.chosen, shuffle) - rollout(d.state, d.seat, d.other, shuffle)
    return total / rollouts


def mean_ci(values: list[float]) -> tuple[float, float]:
    if not values:
        return 0.0, 0.0
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return mean, half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rules", nargs="+", default=list(RULE_SETS), choices=list(RULE_SETS))
    parser.add_argument(
        "--play", default="strong", help="the player judged: a level, greedy, or strong with a budget (strong/ahead=0)"
    )
    parser.add_argument("--against", default="normal", help="the player it is judged against")
    parser.add_argument("--others", default="normal", help="the three other seats")
    parser.add_argument("--matches", type=int, default=100, help="matches of 8 hands (default 100)")
    parser.add_argument("--rollouts", type=int, default=16, help="rollouts per choice (default 16)")
    args = parser.parse_args()
    print(f"{args.play} against {args.against}, among three {args.others}; load average {os.getloadavg()[0]:.2f}")
    for rule_set in args.rules:
        started = time.perf_counter()
        found, hands, decisions = differing(rule_set, args.play, args.against, args.others, args.matches)
        gains = [advantage(d, args.rollouts, rule_set) for d in found]
        mean, half = mean_ci(gains)
        per_hand = len(gains) / hands if hands else 0.0
        print(
            f"{TITLES[rule_set]:10s} {len(found)} of {decisions} decisions differ over {hands} hands; "
            f"{args.play}'s choice {mean:+.2f} ± {half:.2f} a differing decision, "
            f"{mean * per_hand:+.3f} ± {half * per_hand:.3f} a hand  ({time.perf_counter() - started:.0f} s)",
            flush=True,
        )
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
