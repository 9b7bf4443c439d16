"""engine.analysis: shanten, improving tiles, waits and best discards (G-4, G-9, K-1, K-7, H-2).

Given/when/then with hands as strings, plus a differential sample against the brute-force
reference of tests/analysis_reference.py (bench/analysis.py runs 20,000 hands).
"""

from __future__ import annotations

import random

import pytest

from analysis_reference import random_case, ref_missing, ref_waits
from engine import analysis as A
from engine.tiles import kind, parse, to_counts, WHITE


def counts_of(text: str) -> list[int]:
    return to_counts(parse(text))


@pytest.mark.parametrize(
    "hand, sets, expected",
    [
        ("123m456p789sEEECC", 4, -1),  # G-4 complete
        ("123m456p789sEEEC", 4, 0),  # ready on 中
        ("123m456p789sEECF", 4, 1),
        ("1m4m7m1p4p7p1s4s7sESWN", 4, 8),  # 13 isolated tiles, far from anything
        ("11m22m33m44m55m66m7m", 4, 0),  # K-7 seven pairs: ready (with 七小对 counted)
    ],
)
def test_given_a_hand_without_wilds_when_analysed_then_its_shanten(hand, sets, expected):
    seven = expected == 0 and "11m22m" in hand
    assert A.shanten(counts_of(hand), 0, sets=sets, seven_pairs=seven) == expected


def test_given_a_wild_when_analysed_then_it_fills_any_place_G9():
    counts = counts_of("123m456p789sEEC")  # 12 naturals + 1 wild = 13
    assert A.shanten(counts, 1, sets=4) == 0
    assert A.shanten(counts_of("123m456p789sE"), 4, sets=4) == -1  # four wilds: E+wild pair, a wild set


def test_given_hanshan_white_stand_in_when_analysed_then_white_plays_as_the_wild_kind_H2():
    wild = kind("5m")
    rules = A.Rules.of("hanshan", wild)
    assert rules.stand_in == (WHITE, wild)
    # 4m P(白 as 5m) 6m is a sequence: the hand is complete only through the stand-in
    counts = counts_of("46m123p456p789sEEP")
    assert A.hand_shanten(counts, 4, rules) == -1
    assert A.hand_shanten(counts, 4, A.Rules(wild=wild)) == 0  # without the stand-in: ready only


def test_given_koudiandian_rules_when_built_then_seven_pairs_K7_and_no_stand_in():
    rules = A.Rules.of("koudiandian", kind("E"))
    assert rules.seven_pairs and rules.stand_in is None


def test_given_a_ready_hand_when_waits_asked_then_every_completing_kind():
    rules = A.Rules()
    assert A.waits(counts_of("123m456p789s23sEE"), 4, rules) == [kind("1s"), kind("4s")]
    assert A.improving_tiles(counts_of("123m456p789s23sEE"), 4, rules) == [kind("1s"), kind("4s")]


def test_given_a_hand_when_best_discard_then_it_keeps_the_most_unseen_improving_tiles():
    counts = counts_of("123m456p789s23sEEN")  # 14 tiles: N is the odd one out
    hidden = [4] * 34
    options = A.discard_options(counts, 4, A.Rules(), hidden)
    assert A.best_discards(options) == [kind("N")]
    assert options[0].shanten == 0 and options[0].improving_unseen == 8


def test_given_wait_values_when_ready_then_the_expected_value_decides_K1():
    counts = counts_of("123m456p789s23sEEN")
    hidden = [4] * 34
    hidden[kind("4s")] = 0  # every 4s seen: that wait is dead
    options = A.discard_options(counts, 4, A.Rules(), hidden, value_of=lambda rest, t: t % 9 + 1)
    best = options[0]
    assert best.waits == ((kind("1s"), 4, 1), (kind("4s"), 0, 4))
    assert best.wait_value == 4.0


def test_unseen_counts_what_the_seat_has_not_seen():
    assert A.unseen([2, 0, 4], [1, 4, 1])[:3] == [1, 0, 0]


def test_differential_sample_against_the_brute_force_reference():
    """A sample every run (bench/analysis.py: 20,000 hands with 0 mismatches)."""
    rng = random.Random(18)
    for i in range(300):
        counts, wild, sets, variant = random_case(rng, i % 5, extra=1 + (i // 5) % 2)
        rules = A.Rules.of(variant, wild)
        seven = rules.seven_pairs and sets == 4
        natural, wilds = A.split(counts, wild)
        assert A.hand_missing(counts, sets, rules) == ref_missing(
            natural, wilds, sets=sets, seven_pairs=seven, stand_in=rules.stand_in
        ), (counts, wild, sets, variant)
        if sum(counts) == 3 * sets + 1:
            assert A.waits(counts, sets, rules) == ref_waits(
                natural, wilds, wild, sets=sets, seven_pairs=seven, stand_in=rules.stand_in
            )


def stand_ins_for_suit_tiles(counts: list[int], whites: int) -> None:
    """Exchange the hand's lowest suit tiles for 白板 until it holds `whites` of them (H-2's stand-in)."""
    while counts[WHITE] < whites and any(counts[k] for k in range(27)):
        counts[next(k for k in range(27) if counts[k])] -= 1
        counts[WHITE] += 1


def test_given_wilds_and_white_when_each_draw_is_judged_then_it_equals_judging_the_drawn_hand():
    """The draws of a wild and of a 白板 stand-in (H-2) are read off the hand's own readings; every
    draw must give what `hand_missing` gives the hand with that tile added (seed printed on failure)."""
    seed = 41
    rng = random.Random(seed)
    for i in range(400):
        counts, wild, sets, variant = random_case(rng, i % 5, extra=1)
        if sum(counts) != 3 * sets + 1:
            continue
        stand_ins_for_suit_tiles(counts, i % 3)
        rules = A.Rules.of(variant, wild)
        after = A._missing_after_each_draw(counts, sets, rules)
        for t in range(34):
            drawn = list(counts)
            drawn[t] += 1
            assert after[t] == A.hand_missing(drawn, sets, rules), (seed, i, counts, wild, sets, variant, t)


def test_given_a_hand_when_each_discard_is_judged_from_its_table_then_it_equals_judging_the_hand_left():
    """`missing_after_each_discard` (one table per hand, wilds, 白板 stand-ins and K-7 seven pairs
    included) against `hand_missing` of the hand less each kind (seed printed on failure)."""
    seed = 43
    rng = random.Random(seed)
    for i in range(400):
        counts, wild, sets, variant = random_case(rng, i % 5, extra=2 if i % 4 else 1)
        if i % 7 == 0:  # pairs, for K-7
            counts = [min(4, 2 * n) for n in counts[:17]] + [0] * 17
        stand_ins_for_suit_tiles(counts, i % 3)
        rules = A.Rules.of(variant, wild)
        table = A.missing_after_each_discard(counts, sets, rules)
        for t in range(34):
            if not counts[t]:
                assert table[t] == A.NOT_HELD, (seed, i, counts, wild, sets, variant, t)
                continue
            left = list(counts)
            left[t] -= 1
            assert table[t] == A.hand_missing(left, sets, rules), (seed, i, counts, wild, sets, variant, t)
