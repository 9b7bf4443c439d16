"""Self-play speed: hands per second per core with `easy` and `normal` bots at every seat, per rule
set (扣点点, 扣点点 with 耗子, 含山); A/B against another checkout; instruction counts under callgrind.

    python bench/selfplay.py [--levels easy normal] [--rules kdd haozi hanshan]
    python bench/selfplay.py --against /path/to/other/checkout [--rounds R]
    python bench/selfplay.py --against /path/to/other/checkout --callgrind

Each (level, rule set) plays one warm-up match (label `selfplay-warm/...`: it fills the analysis memo
tables) and then one timed match from fixed seeds (engine.selfplay.seeds_from, label
`selfplay/<level>/<rule set>`), timed in process CPU time (time.process_time: one core, leaving out
what other processes of a shared machine take, though not their effect on caches). It prints
hands/s and the SHA-256 of the timed match's events (JSON, keys sorted): two checkouts that print the
same digests played the same hands byte for byte. Run alone, it first times the anchor,
`minimal_loop` (2,000 hands of deal, draw, `mahjong`'s Agari and a random discard, no rules), and
prints each figure's ratio to it.

With --against, each round runs this script once in this checkout ("B") and once in the other ("A"),
a fresh process each, alternating which goes first; it prints every round's figures with the load
average, then per (level, rule set) the median hands/s of A and of B and the ratio B/A, and whether
every digest agrees.

With --callgrind (valgrind's callgrind tool must be installed), each side runs once under
`valgrind --tool=callgrind` with the timed match, and once with the warm-up alone; the difference of
the two instruction totals is the timed match's count (start-up, imports and warm-up left out). This
figure does not depend on the machine's load. Use short matches (--hands, --normal-hands): callgrind
runs about fifty times slower.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

RULE_SETS: dict[str, tuple[str, dict[str, Any]]] = {
    "kdd": ("koudiandian", {}),
    "haozi": ("koudiandian", {"wilds": True}),
    "hanshan": ("hanshan", {}),
}
LEVELS = ("easy", "normal")


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f}"


def play(level: str, rule_set: str, label: str, hands: int) -> tuple[int, float, str]:
    """One match of `hands` hands with `level` bots at every seat: (hands played, CPU s, events digest)."""
    from engine.bot import bot_action
    from engine.selfplay import play_match, seeds_from

    variant, options = RULE_SETS[rule_set]
    started = time.process_time()
    state, log = play_match(
        variant,
        {**options, "hands": hands},
        seeds_from(f"{label}/{level}/{rule_set}"),
        lambda s, seat: bot_action(s, seat, level),
    )
    cpu = time.process_time() - started
    digest = hashlib.sha256("\n".join(json.dumps(e, sort_keys=True) for e in log).encode()).hexdigest()
    return state.hands_played, cpu, digest


def minimal_loop(hands: int, seed: str = "selfplay-anchor") -> tuple[int, float]:
    """The anchor: the least a self-play loop can do per hand, in the same interpreter: shuffle 136
    tiles, deal 13 to each of four seats, then each turn draw, ask `mahjong`'s Agari (a maintained
    Riichi win check on 34 counts) whether the hand is complete, and discard a random kind held,
    until a win or 14 tiles are left. No rules, claims, scoring or events. (hands, CPU s)"""
    import random

    from mahjong.agari import Agari

    agari, rng = Agari(), random.Random(seed)
    started = time.process_time()
    for _ in range(hands):
        wall = list(range(136))
        rng.shuffle(wall)
        seats = [[0] * 34 for _ in range(4)]
        for seat in range(4):
            for tile in wall[seat * 13 : seat * 13 + 13]:
                seats[seat][tile // 4] += 1
        drawn, seat = 52, 0
        while drawn < 136 - 14:
            counts = seats[seat]
            counts[wall[drawn] // 4] += 1
            drawn += 1
            if agari.is_agari(counts):
                break
            counts[rng.choice([kind for kind in range(34) if counts[kind]])] -= 1
            seat = (seat + 1) % 4
    return hands, time.process_time() - started


def worker(root: Path, levels: list[str], rules: list[str], hands: dict[str, int], warm_only: bool) -> dict[str, Any]:
    """Run in `root` (a checkout): its engine plays."""
    sys.path.insert(0, str(root))
    out: dict[str, Any] = {}
    for level in levels:
        for rule_set in rules:
            play(level, rule_set, "selfplay-warm", max(1, hands[level] // 4))
            if warm_only:
                continue
            played, cpu, digest = play(level, rule_set, "selfplay", hands[level])
            out[f"{level}/{rule_set}"] = {"hands": played, "cpu": cpu, "rate": played / cpu, "digest": digest}
    return out


def _worker_command(root: Path, args: argparse.Namespace, warm_only: bool = False) -> list[str]:
    run = [sys.executable, str(Path(__file__).resolve()), "--worker", str(root), "--levels", *args.levels]
    run += ["--rules", *args.rules, "--hands", str(args.hands), "--normal-hands", str(args.normal_hands)]
    return run + (["--warm-only"] if warm_only else [])


def _run(root: Path, command: list[str]) -> str:
    env = dict(os.environ, PYTHONPATH=str(root))
    return subprocess.run(command, env=env, cwd=root, check=True, capture_output=True, text=True).stdout


def ab(other: Path, args: argparse.Namespace) -> None:
    sides = {"A": other.resolve(), "B": ROOT}
    print(f"A = {sides['A']} (other), B = {sides['B']} (this); {args.rounds} rounds, alternating")
    print(f"{load()} at start")
    rates: dict[str, dict[str, list[float]]] = {s: {} for s in sides}
    digests: dict[str, set[str]] = {}
    for r in range(args.rounds):
        order = ["A", "B"] if r % 2 == 0 else ["B", "A"]
        for side in order:
            out = json.loads(_run(sides[side], _worker_command(sides[side], args)))
            for key, fig in out.items():
                rates[side].setdefault(key, []).append(fig["rate"])
                digests.setdefault(key, set()).add(fig["digest"])
            figures = ", ".join(f"{k} {v['rate']:.1f}" for k, v in out.items())
            print(f"round {r + 1} {side}: hands/s {figures}; {load()}", flush=True)
    print(f"{'level/rule set':16s} {'A median':>9s} {'B median':>9s} {'B/A':>6s}  hands/s/core (CPU time)")
    for key in rates["A"]:
        a, b = statistics.median(rates["A"][key]), statistics.median(rates["B"][key])
        print(f"{key:16s} {a:9.1f} {b:9.1f} {b / a:6.2f}")
    same = all(len(d) == 1 for d in digests.values())
    print(f"events of every round and side {'IDENTICAL' if same else 'DIFFER'}")
    print(f"{load()} at the end")


def _instructions(root: Path, command: list[str]) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        _run(root, ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command])
        text = out.read_text()
    found = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
    if not found:
        raise RuntimeError("no instruction total in callgrind's output")
    return int(found.group(1))


def callgrind(other: Path, args: argparse.Namespace) -> None:
    sides = {"A": other.resolve(), "B": ROOT}
    print(f"A = {sides['A']} (other), B = {sides['B']} (this); instructions of the timed match under callgrind")
    print(f"{load()} at start (does not affect instruction counts)")
    counts: dict[str, dict[str, int]] = {s: {} for s in sides}
    for side, root in sides.items():
        for level in args.levels:
            for rule_set in args.rules:
                one = argparse.Namespace(**{**vars(args), "levels": [level], "rules": [rule_set]})
                full = _instructions(root, _worker_command(root, one))
                warm = _instructions(root, _worker_command(root, one, warm_only=True))
                counts[side][f"{level}/{rule_set}"] = full - warm
                print(f"{side} {level}/{rule_set}: {full - warm:,} instructions", flush=True)
    hands = {"easy": args.hands, "normal": args.normal_hands}
    print(f"{'level/rule set':16s} {'hands':>5s} {'A instr/hand':>14s} {'B instr/hand':>14s} {'B/A':>6s}")
    for key, a in counts["A"].items():
        b = counts["B"][key]
        n = hands[key.split("/")[0]]
        print(f"{key:16s} {n:5d} {a / n:14,.0f} {b / n:14,.0f} {b / a:6.2f}")
    print(f"{load()} at the end")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--levels", nargs="+", default=list(LEVELS), choices=LEVELS)
    parser.add_argument("--rules", nargs="+", default=list(RULE_SETS), choices=list(RULE_SETS))
    parser.add_argument("--hands", type=int, default=64, help="hands of the timed match, easy bots (default 64)")
    parser.add_argument("--normal-hands", type=int, default=16, help="hands of the timed match, normal bots (16)")
    parser.add_argument("--anchor-hands", type=int, default=2000, help="hands of the minimal loop (2000)")
    parser.add_argument("--against", type=Path, help="another checkout to compare with (A/B)")
    parser.add_argument("--rounds", type=int, default=4, help="A/B rounds (default 4)")
    parser.add_argument("--callgrind", action="store_true", help="with --against: instruction counts instead")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--warm-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    hands = {"easy": args.hands, "normal": args.normal_hands}
    if args.worker:
        print(json.dumps(worker(args.worker, args.levels, args.rules, hands, args.warm_only)))
        return
    if args.against and args.callgrind:
        callgrind(args.against, args)
        return
    if args.against:
        ab(args.against, args)
        return
    print(f"{load()} at start")
    minimal_loop(max(1, args.anchor_hands // 10))  # warm-up
    played, cpu = minimal_loop(args.anchor_hands)
    anchor = played / cpu
    print(f"{'anchor':16s} {anchor:8.1f} hands/s/core ({played} hands, {cpu:.2f} s CPU): minimal_loop, the anchor")
    for key, fig in worker(ROOT, args.levels, args.rules, hands, False).items():
        print(
            f"{key:16s} {fig['rate']:8.1f} hands/s/core ({fig['hands']} hands, {fig['cpu']:.2f} s CPU), "
            f"{fig['rate'] / anchor:.3f}x the anchor  {fig['digest']}"
        )
    print(f"{load()} at the end")


if __name__ == "__main__":
    main()
