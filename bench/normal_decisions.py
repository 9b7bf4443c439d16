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

With --lines (alone or with --against: one round), each decision's work is also counted as the Python
line events it runs (sys.settrace; about ten times slower): a measure the machine's load does not
change, though it leaves out work done in C (builtins, memo lookups). It prints their median and p99
per rule set, and with --against the ratios.
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
from typing import Any, Optional, Sequence

ROOT = Path(__file__).resolve().parent.parent

RULE_SETS: dict[str, tuple[str, dict[str, Any]]] = {
    "kdd": ("koudiandian", {}),
    "haozi": ("koudiandian", {"wilds": True}),
    "hanshan": ("hanshan", {}),
}


def play(
    rule_set: str, match: int, hands: int, cpu: list[float], wall: list[float], events: Optional[list[int]] = None
) -> list[str]:
    """One all-normal match; every decision as a JSON line (seat included); with `events`, each
    decision's Python line events are counted into it."""
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
        if events is None:
            command = dict(bot_action(state, seat, "normal"), seat=seat)
        else:
            counted, tracer = _line_counter()
            sys.settrace(tracer)
            try:
                command = dict(bot_action(state, seat, "normal"), seat=seat)
            finally:
                sys.settrace(None)
            events.append(counted[0])
        cpu.append(time.process_time() - cpu_started)
        wall.append(time.perf_counter() - started)
        lines.append(json.dumps(command, sort_keys=True, ensure_ascii=False))
        _, state = step(state, command)
    return lines


def _line_counter() -> tuple[list[int], Any]:
    """([count], a sys.settrace function counting the line events of every frame into it)."""
    counted = [0]

    def count(frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            counted[0] += 1
        return count

    return counted, lambda frame, event, arg: count


def digests(
    matches: int,
    hands: int,
    cpu: list[float],
    wall: list[float],
    rules: Optional[list[str]] = None,
    counted: Optional[dict[str, list[int]]] = None,
) -> dict[str, tuple[int, str]]:
    """rule set -> (decisions, SHA-256 of the decision lines of `matches` matches of `hands` hands);
    `rules` the rule sets to play (default all); with `counted`, rule set -> line events per decision."""
    out = {}
    for rule_set in rules or list(RULE_SETS):
        per = None if counted is None else counted.setdefault(rule_set, [])
        lines = [line for m in range(matches) for line in play(rule_set, m, hands, cpu, wall, per)]
        out[rule_set] = (len(lines), hashlib.sha256("\n".join(lines).encode()).hexdigest())
    return out


def p99(times: Sequence[float]) -> float:
    t = sorted(times)
    return t[min(len(t) - 1, int(0.99 * len(t)))]


def spread(times: list[float]) -> str:
    return f"median {1000 * statistics.median(times):.2f} ms, p99 {1000 * p99(times):.2f} ms ({len(times)} decisions)"


def worker(
    root: Path, matches: int, hands: int, rules: Optional[list[str]] = None, count_lines: bool = False
) -> dict[str, Any]:
    """Run in `root` (a checkout): its engine decides."""
    sys.path.insert(0, str(root))
    cpu: list[float] = []
    wall: list[float] = []
    counted: Optional[dict[str, list[int]]] = {} if count_lines else None
    found = digests(matches, hands, cpu, wall, rules, counted)
    return {"digests": found, "cpu": cpu, "wall": wall, "lines": counted}


def line_spread(counts: list[int]) -> str:
    return f"line events median {statistics.median(counts):.0f}, p99 {p99(counts):.0f} ({len(counts)} decisions)"


def ab(other: Path, rounds: int, matches: int, hands: int, rules: list[str], count_lines: bool = False) -> None:
    sides = {"this": ROOT, "other": other.resolve()}
    times: dict[str, dict[str, list[float]]] = {s: {"cpu": [], "wall": []} for s in sides}
    found: dict[str, Any] = {}
    counted: dict[str, dict[str, list[int]]] = {}
    print(f"A/B: this = {ROOT}, other = {sides['other']}; {rounds} rounds of {matches} x {hands} hands of {rules}")
    print(f"load average {os.getloadavg()[0]:.2f} at start")
    for r in range(rounds):
        order = ["other", "this"] if r % 2 == 0 else ["this", "other"]
        for side in order:
            root = sides[side]
            run = [sys.executable, __file__, "--worker", str(root), "--matches", str(matches), "--hands", str(hands)]
            run += ["--rules", *rules] + (["--lines"] if count_lines else [])
            env = dict(os.environ, PYTHONPATH=str(root))
            out = json.loads(subprocess.run(run, env=env, cwd=root, check=True, capture_output=True, text=True).stdout)
            times[side]["cpu"] += out["cpu"]
            times[side]["wall"] += out["wall"]
            found.setdefault(side, []).append(out["digests"])
            counted.setdefault(side, {}).update(out["lines"] or {})
            print(f"round {r + 1} {side:5s}: CPU {spread(out['cpu'])}; load {os.getloadavg()[0]:.2f}", flush=True)
    for clock in ("cpu", "wall"):
        for side in sides:
            print(f"{side:5s} {clock:4s}: {spread(times[side][clock])}")
        this, other_t = times["this"][clock], times["other"][clock]
        print(
            f"this/other {clock}: median x{statistics.median(this) / statistics.median(other_t):.2f}, "
            f"p99 x{p99(this) / p99(other_t):.2f}"
        )
    for rule_set in rules if count_lines else []:
        this_l, other_l = counted["this"][rule_set], counted["other"][rule_set]
        print(f"{rule_set:8s} this : {line_spread(this_l)}; other: {line_spread(other_l)}")
        print(
            f"{rule_set:8s} this/other line events: median x{statistics.median(this_l) / statistics.median(other_l):.2f}, "
            f"p99 x{p99(this_l) / p99(other_l):.2f}"
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
    parser.add_argument("--lines", action="store_true", help="also count each decision's Python line events")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.matches, args.hands, args.rules, args.lines)))
        return
    if args.against:
        ab(args.against, 1 if args.lines else args.rounds, args.matches, args.hands, args.rules, args.lines)
        return
    print(f"load average {os.getloadavg()[0]:.2f} at start")
    result = worker(ROOT, args.matches, args.hands, args.rules, args.lines)
    for rule_set, (n, digest) in result["digests"].items():
        print(f"{rule_set:8s} {n:5d} decisions  {digest}")
        if args.lines:
            print(f"{rule_set:8s} {line_spread(result['lines'][rule_set])}")
    print(f"decision time CPU : {spread(result['cpu'])}")
    print(f"decision time wall: {spread(result['wall'])}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
