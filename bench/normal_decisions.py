"""The `normal` bot's decisions and their time: a record that a speed-up changes no decision, and an
A/B of its decision time against another checkout.

    python bench/normal_decisions.py [--matches N] [--hands N] [--rules kdd haozi hanshan]   # digests + times
    python bench/normal_decisions.py --against /path/to/other/checkout [--rounds R] [--rules ...]   # A/B

All-`normal` matches from fixed seeds (engine.selfplay.seeds_from, label
`normal-decisions/<rule set>/<match>`) in each rule set (扣点点, 扣点点 with 耗子, 含山). Every
decision of every seat is recorded as its command (JSON, keys sorted); the digest of a rule set is the
SHA-256 of those lines in play order, so two checkouts that print the same digests decided alike.
Each decision is timed around its call in process CPU time (time.process_time, which leaves out what
other processes of a shared machine take) and wall clock (time.perf_counter).

With --against, each round runs this script once in this checkout and once in the other (a fresh
process each, alternating which goes first), over the same seeds; it prints per side the median and
p99 of all decisions of all rounds, the ratio, the load average, and whether the digests of every
round of both agree.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parent.parent

RULE_SETS: dict[str, tuple[str, dict[str, Any]]] = {
    "kdd": ("koudiandian", {}),
    "haozi": ("koudiandian", {"wilds": True}),
    "hanshan": ("hanshan", {}),
}


def play(rule_set: str, match: int, hands: int, cpu: list[float], wall: list[float]) -> list[str]:
    """One all-normal match; every decision as a JSON line (seat included)."""
    from engine.actions import pending_seats
    from engine.bot import bot_action
    from engine.selfplay import seeds_from
    from engine.table import initial_state, step

    variant, options = RULE_SETS[rule_set]
    seeds = seeds_from(f"normal-decisions/{rule_set}/{match}")
    state = initial_state()
    _, state = step(state, {"action": "start_match", "variant": variant, "options": {**options, "hands": hands}})
    lines: list[str] = []
    while state.phase != "match_over":
        if state.needs_new_hand:
            _, state = step(state, {"action": "start_hand", "seed": next(seeds)})
            continue
        seat = pending_seats(state)[0]
        started, cpu_started = time.perf_counter(), time.process_time()
        command = dict(bot_action(state, seat, "normal"), seat=seat)
        cpu.append(time.process_time() - cpu_started)
        wall.append(time.perf_counter() - started)
        lines.append(json.dumps(command, sort_keys=True, ensure_ascii=False))
        _, state = step(state, command)
    return lines


def digests(
    matches: int, hands: int, cpu: list[float], wall: list[float], rules: Optional[list[str]] = None
) -> dict[str, tuple[int, str]]:
    """rule set -> (decisions, SHA-256 of the decision lines of `matches` matches of `hands` hands);
    `rules` the rule sets to play (default all)."""
    out = {}
    for rule_set in rules or list(RULE_SETS):
        lines = [line for m in range(matches) for line in play(rule_set, m, hands, cpu, wall)]
        out[rule_set] = (len(lines), hashlib.sha256("\n".join(lines).encode()).hexdigest())
    return out


def p99(times: list[float]) -> float:
    t = sorted(times)
    return t[min(len(t) - 1, int(0.99 * len(t)))]


def spread(times: list[float]) -> str:
    return f"median {1000 * statistics.median(times):.2f} ms, p99 {1000 * p99(times):.2f} ms ({len(times)} decisions)"


def worker(root: Path, matches: int, hands: int, rules: Optional[list[str]] = None) -> dict[str, Any]:
    """Run in `root` (a checkout): its engine decides."""
    sys.path.insert(0, str(root))
    cpu: list[float] = []
    wall: list[float] = []
    found = digests(matches, hands, cpu, wall, rules)
    return {"digests": found, "cpu": cpu, "wall": wall}


def ab(other: Path, rounds: int, matches: int, hands: int, rules: list[str]) -> None:
    sides = {"this": ROOT, "other": other.resolve()}
    times: dict[str, dict[str, list[float]]] = {s: {"cpu": [], "wall": []} for s in sides}
    found: dict[str, Any] = {}
    print(f"A/B: this = {ROOT}, other = {sides['other']}; {rounds} rounds of {matches} x {hands} hands of {rules}")
    print(f"load average {os.getloadavg()[0]:.2f} at start")
    for r in range(rounds):
        order = ["other", "this"] if r % 2 == 0 else ["this", "other"]
        for side in order:
            root = sides[side]
            run = [sys.executable, __file__, "--worker", str(root), "--matches", str(matches), "--hands", str(hands)]
            run += ["--rules", *rules]
            env = dict(os.environ, PYTHONPATH=str(root))
            out = json.loads(subprocess.run(run, env=env, cwd=root, check=True, capture_output=True, text=True).stdout)
            times[side]["cpu"] += out["cpu"]
            times[side]["wall"] += out["wall"]
            found.setdefault(side, []).append(out["digests"])
            print(f"round {r + 1} {side:5s}: CPU {spread(out['cpu'])}; load {os.getloadavg()[0]:.2f}", flush=True)
    for clock in ("cpu", "wall"):
        for side in sides:
            print(f"{side:5s} {clock:4s}: {spread(times[side][clock])}")
        this, other_t = times["this"][clock], times["other"][clock]
        print(
            f"this/other {clock}: median x{statistics.median(this) / statistics.median(other_t):.2f}, "
            f"p99 x{p99(this) / p99(other_t):.2f}"
        )
    same = all(d == found["other"][0] for side in sides for d in found[side])  # every round, both sides
    print(f"digests of every round {'IDENTICAL' if same else 'DIFFER'}: this {found['this'][0]}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--matches", type=int, default=4, help="matches per rule set (default 4)")
    parser.add_argument("--hands", type=int, default=8, help="hands per match (default 8)")
    parser.add_argument("--against", type=Path, help="another checkout to compare with (A/B)")
    parser.add_argument("--rounds", type=int, default=4, help="A/B rounds (default 4)")
    parser.add_argument(
        "--rules", nargs="+", choices=list(RULE_SETS), default=list(RULE_SETS), help="rule sets (default all)"
    )
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.matches, args.hands, args.rules)))
        return
    if args.against:
        ab(args.against, args.rounds, args.matches, args.hands, args.rules)
        return
    print(f"load average {os.getloadavg()[0]:.2f} at start")
    result = worker(ROOT, args.matches, args.hands, args.rules)
    for rule_set, (n, digest) in result["digests"].items():
        print(f"{rule_set:8s} {n:5d} decisions  {digest}")
    print(f"decision time CPU : {spread(result['cpu'])}")
    print(f"decision time wall: {spread(result['wall'])}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
