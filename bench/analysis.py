"""Hand analyser: differential check against the brute-force reference, and shanten speed vs `mahjong`.

    python bench/analysis.py [HANDS]      (default 20,000 hands for the check)

1. Differential: HANDS random hands (13 and 14 tiles, 2-4 sets, 0-4 wilds in turn, both variants'
   rules: 七小对 in 扣点点, the 白板 stand-in in 含山) - engine.analysis's missing/shanten and waits
   against tests/analysis_reference.py (engine.hand.is_complete over every removal). Prints mismatches.
2. Speed: the same 13-tile hands without wilds (4 sets, regular hands: no seven pairs on either side)
   through engine.analysis.shanten and mahjong.shanten.Shanten.calculate_shanten_for_regular_hand.
   Both get ready-made 34-count arrays (ours: m p s E S W N C F P; mahjong's: man pin sou then
   E S W N haku hatsu chun, so 白/发/中 are moved to their places). Our per-suit tables are memoised,
   so the first pass (tables cleared) and later passes are reported apart; the ratio is ours/mahjong.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from engine import analysis as A  # noqa: E402
from engine.tiles import RED, GREEN, WHITE  # noqa: E402
from analysis_reference import random_case, ref_missing, ref_waits  # noqa: E402

# our honours E S W N C(中) F(发) P(白) -> mahjong's 27..33 = E S W N haku hatsu chun
_TO_MAHJONG = list(range(31)) + [33, 32, 31]
assert _TO_MAHJONG[RED] == 33 and _TO_MAHJONG[GREEN] == 32 and _TO_MAHJONG[WHITE] == 31


def differential(hands: int, seed: int = 20261201) -> tuple[int, int]:
    rng = random.Random(seed)
    mismatches = 0
    for i in range(hands):
        counts, wild, sets, variant = random_case(rng, i % 5, extra=1 + (i // 5) % 2)
        rules = A.Rules.of(variant, wild)
        seven = rules.seven_pairs and sets == 4
        natural, wilds = A.split(counts, wild)
        want = ref_missing(natural, wilds, sets=sets, seven_pairs=seven, stand_in=rules.stand_in)
        got = A.hand_missing(counts, sets, rules)
        if want != got:
            mismatches += 1
            print("missing mismatch", counts, wild, sets, variant, want, got)
        if sum(counts) == 3 * sets + 1:
            want_w = ref_waits(natural, wilds, wild, sets=sets, seven_pairs=seven, stand_in=rules.stand_in)
            if want_w != A.waits(counts, sets, rules):
                mismatches += 1
                print("waits mismatch", counts, wild, sets, variant, want_w)
    return hands, mismatches


def _plain_hands(n: int, seed: int = 7) -> list[list[int]]:
    rng = random.Random(seed)
    pool = [k for k in range(34) for _ in range(4)]
    out = []
    for _ in range(n):
        counts = [0] * 34
        for k in rng.sample(pool, 13):
            counts[k] += 1
        out.append(counts)
    return out


def _time(fn, arrays) -> tuple[float, list[int]]:
    started = time.perf_counter()
    results = [fn(a) for a in arrays]
    return time.perf_counter() - started, results


def speed(n: int = 20000, repeats: int = 5) -> None:
    from mahjong.shanten import Shanten

    hands = _plain_hands(n)
    theirs_in = [[0] * 34 for _ in hands]
    for src, dst in zip(hands, theirs_in):
        for k, c in enumerate(src):
            dst[_TO_MAHJONG[k]] = c
    calc = Shanten()

    def ours(a):
        return A.shanten(a, 0, sets=4)

    A._frontier.cache_clear()
    A._convolve.cache_clear()
    cold, ours_res = _time(ours, hands)
    warm = statistics.median(_time(ours, hands)[0] for _ in range(repeats))
    theirs_times = []
    for _ in range(repeats):
        t, theirs_res = _time(calc.calculate_shanten_for_regular_hand, theirs_in)
        theirs_times.append(t)
    theirs = statistics.median(theirs_times)
    agree = sum(a == b for a, b in zip(ours_res, theirs_res))
    us = 1e6 / n
    print(f"shanten, {n} 13-tile hands without wilds (regular hands), median of {repeats}:")
    print(f"  engine.analysis  first pass {cold * us:6.1f} us/hand   later passes {warm * us:6.1f} us/hand")
    print(f"  mahjong {_mahjong_version():8s}                         {theirs * us:6.1f} us/hand")
    print(f"  ratio ours/mahjong: first pass {cold / theirs:.2f}, later {warm / theirs:.2f}")
    print(f"  same shanten on {agree}/{n} hands")
    for a, b, h in zip(ours_res, theirs_res, hands):
        if a != b:
            print("  differs:", h, "ours", a, "mahjong", b)
            break


def _mahjong_version() -> str:
    from importlib.metadata import version

    return version("mahjong")


def main() -> None:
    hands = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    started = time.perf_counter()
    n, bad = differential(hands)
    print(
        f"differential: {n} hands (0-4 wilds, 13/14 tiles, both variants), {bad} mismatches, "
        f"{time.perf_counter() - started:.0f} s"
    )
    speed()


if __name__ == "__main__":
    main()
