"""A seat's hand facts (engine/variants/base.py `hand_facts`): kept per distinct hand and worked out
once, they must answer exactly as engine.hand does when asked directly (G-4, G-9, K-2, K-7, H-2).

The facts answer "does this one more tile complete the hand" only when one more wild would (any
tile that completes the hand could be played by that wild instead); the random check below asks
every tile of near-complete hands, where that shortcut matters, in both variants' rules.
"""

from __future__ import annotations

import random

import pytest

from engine import hand as H
from engine.tiles import WHITE, parse, to_counts
from engine.variants.base import HandFacts, hand_facts
from engine.variants.hanshan import Hanshan
from engine.variants.koudiandian import Koudiandian

SEED = 20261202


def _near_complete(rng: random.Random, sets: int, wild: int | None, stand_in: bool) -> list[int]:
    """A complete 3*sets+2 hand (sets and a pair, or seven pairs), then 0-2 tiles taken out and
    0-1 put in, some copies of the wild kind among them."""
    while True:
        counts = [0] * 34
        if sets == 4 and rng.random() < 0.2:
            for k in rng.sample(range(34), 7):
                counts[k] += 2
        else:
            for _ in range(sets):
                if rng.random() < 0.6:
                    start = rng.randrange(3) * 9 + rng.randrange(7)
                    kinds = [start, start + 1, start + 2]
                else:
                    kinds = [rng.randrange(34)] * 3
                for k in kinds:
                    counts[k] += 1
            counts[rng.randrange(34)] += 2
        if stand_in and rng.random() < 0.5:
            counts[WHITE] += 1
        if wild is not None:
            for _ in range(rng.randrange(3)):
                counts[wild] += 1
        for _ in range(rng.randrange(3)):
            held = [k for k, n in enumerate(counts) if n]
            counts[rng.choice(held)] -= 1
        if rng.random() < 0.3:
            counts[rng.randrange(34)] += 1
        if max(counts) <= 4:
            return counts


def _split(counts: list[int], wild: int | None) -> tuple[list[int], int]:
    natural = counts[:]
    if wild is None:
        return natural, 0
    wilds, natural[wild] = natural[wild], 0
    return natural, wilds


@pytest.mark.parametrize("variant", ["koudiandian", "hanshan"])
def test_given_near_complete_hands_when_asked_every_tile_then_the_facts_answer_as_engine_hand(variant):
    rng = random.Random(SEED)
    rules = Koudiandian({}) if variant == "koudiandian" else Hanshan({})
    checked = completing = 0
    for i in range(600):
        sets = rng.choice([4, 4, 4, 3, 2, 1])
        wild = rng.randrange(34) if i % 2 else None
        stand = rules.stand_in_for(wild)
        counts = _near_complete(rng, sets, wild, stand is not None)
        facts = HandFacts(tuple(counts), sets, wild, rules.seven_pairs, stand)
        natural, wilds = _split(counts, wild)
        where = f"seed {SEED}, case {i}: {counts} wild {wild} sets {sets}"
        for t in range(34):
            plus = counts[:]
            plus[t] += 1
            n, w = _split(plus, wild)
            want = H.is_complete(n, w, sets=sets, seven_pairs=rules.seven_pairs, stand_in=stand)
            assert facts.completes(t) == want, f"{where}, tile {t}"
            checked += 1
            completing += want
        if sum(counts) == 3 * sets + 1:
            want_waits = H.waits(natural, wilds, sets=sets, seven_pairs=rules.seven_pairs, stand_in=stand)
            assert facts.waits() == tuple(k for k in want_waits if k != wild), where
        if sum(counts) == 3 * sets + 2:
            found = H.ready_discards(natural, wilds, sets=sets, seven_pairs=rules.seven_pairs, stand_in=stand)
            if wilds and H.is_complete(natural, wilds, sets=sets, seven_pairs=rules.seven_pairs, stand_in=stand):
                found.append(wild)
            assert facts.ready_after() == tuple(sorted(found)), where
    assert completing > 100, f"too few completing tiles to test the shortcut ({completing} of {checked})"


def test_given_the_same_hand_twice_when_its_facts_are_asked_then_they_are_kept_not_recomputed():
    counts = tuple(to_counts(parse("123m456p789sEEEC")))
    first = hand_facts(counts, 4, None, True, None)
    assert first.completes(parse("C")[0]) and not first.completes(parse("1m")[0])
    assert hand_facts(counts, 4, None, True, None) is first  # one entry per distinct hand and rules
    assert hand_facts(counts, 4, None, False, None) is not first
