"""Brute-force reference for engine.analysis (tests and bench/analysis.py).

missing(hand) by definition: the fewest tiles to swap so the hand is complete. Try m = 0, 1, 2, ...:
remove r naturals (every multiset of them) so that the kept naturals, the wilds and m new tiles
(which may be anything, so they count as wilds) make a complete hand per `engine.hand.is_complete`
(G-4, K-7 seven pairs, G-9 wilds, H-2 白板 stand-in) - an implementation independent of the analyser.
"""

from __future__ import annotations

import random
from itertools import combinations_with_replacement

from engine import hand as completeness


def ref_missing(counts, wilds, *, sets, seven_pairs=False, stand_in=None) -> int:
    size = 3 * sets + 2
    held = sum(counts) + wilds
    for m in range(0, size + 1):
        removed = held + m - size
        if removed < 0:
            continue
        if _some_removal_completes(counts, wilds + m, removed, sets, seven_pairs, stand_in):
            return m
    raise AssertionError("unreachable: m = size always completes")


def _some_removal_completes(counts, wilds, removed, sets, seven_pairs, stand_in) -> bool:
    kinds = [k for k, n in enumerate(counts) if n]
    for combo in combinations_with_replacement(kinds, removed):
        rest = list(counts)
        ok = True
        for k in combo:
            rest[k] -= 1
            ok = ok and rest[k] >= 0
        if ok and completeness.is_complete(rest, wilds, sets=sets, seven_pairs=seven_pairs, stand_in=stand_in):
            return True
    return False


def ref_waits(counts, wilds, wild, *, sets, seven_pairs=False, stand_in=None) -> list[int]:
    """Kinds t whose draw completes the hand; drawing the wild's kind adds a wild."""
    out = []
    for t in range(34):
        if wild is not None and t == wild:
            done = completeness.is_complete(counts, wilds + 1, sets=sets, seven_pairs=seven_pairs, stand_in=stand_in)
        else:
            more = list(counts)
            more[t] += 1
            done = completeness.is_complete(more, wilds, sets=sets, seven_pairs=seven_pairs, stand_in=stand_in)
        if done:
            out.append(t)
    return out


def random_case(rng: random.Random, wilds: int, extra: int = 1):
    """A random 3n+`extra` hand (13 or 14 tiles with 4 sets) with `wilds` copies of a random wild kind.

    Returns (full counts incl. wilds, wild kind or None, sets, variant)."""
    variant = rng.choice(["koudiandian", "hanshan"])
    sets = rng.choice([4, 4, 4, 3, 2])
    wild = rng.randrange(34) if wilds else None
    pool = [k for k in range(34) for _ in range(4) if k != wild]
    tiles = rng.sample(pool, 3 * sets + extra - wilds)
    counts = [0] * 34
    for k in tiles:
        counts[k] += 1
    if wild is not None:
        counts[wild] = wilds
    return counts, wild, sets, variant
