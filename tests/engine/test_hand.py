"""Tests of engine.hand: completeness, decompositions and waits (G-4, G-9, G-10, H-2, K-7 seven pairs)."""

from __future__ import annotations


import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine.hand import Block, Decomposition, decompositions, is_complete, waits
from engine.tiles import WHITE, full_set, kind, parse, to_counts


def counts(text: str) -> list[int]:
    return to_counts(parse(text))


def kinds(text: str) -> list[int]:
    return sorted(set(parse(text)))


# ---------------------------------------------------------------- G-4 standard hands


@pytest.mark.parametrize(
    "hand",
    ["123m456p789sEEECC", "111222333m44455s", "11123456789999m", "234m234m234m55pCCC", "EEESSSWWWNNNCC"],
)
def test_G4_standard_hand_is_complete(hand):
    assert is_complete(counts(hand))
    assert decompositions(counts(hand))


@pytest.mark.parametrize("hand", ["123m456p789sEEECF", "1m2p3s4m5p6s7m8p9sESWN", "11223344m5566pEE9s"[:-2] + "S"])
def test_G4_broken_hand_is_not_complete(hand):
    assert not is_complete(counts(hand))
    assert decompositions(counts(hand)) == []


def test_G4_wrong_tile_count_is_not_complete():
    assert not is_complete(counts("123m456p789sEEEC"))
    assert waits(counts("123m456p789sEEECC")) == []


def test_G10_all_decompositions_are_listed():
    # given 111222333m as three triplets or three sequences
    ds = decompositions(counts("111222333m456pEE"))
    shapes = sorted(tuple(b.shape for b in d.blocks) for d in ds)
    assert ("seq", "seq", "seq", "seq", "pair") in shapes
    assert ("seq", "triplet", "triplet", "triplet", "pair") in shapes
    for d in ds:
        assert d.blocks[-1].shape == "pair"  # the pair LAST


def test_block_kinds():
    assert Block("seq", kind("4m")).kinds == (3, 4, 5)
    assert Block("triplet", kind("E")).kinds == (27, 27, 27)
    assert Block("pair", kind("9s"), (1,)).kinds == (26, 26)


# ---------------------------------------------------------------- seven pairs (K-7 qixiaodui)


def test_K7_seven_pairs_only_when_asked():
    hand = counts("1122m3344p5566sEE")
    assert not is_complete(hand)
    assert is_complete(hand, seven_pairs=True)
    ds = decompositions(hand, seven_pairs=True)
    assert any(d.seven_pairs and len(d.blocks) == 7 for d in ds)


def test_K7_four_of_a_kind_is_two_pairs():
    hand = counts("1111m3344p5566sEE")
    ds = [d for d in decompositions(hand, seven_pairs=True) if d.seven_pairs]
    assert ds and sum(b.kind == kind("1m") for b in ds[0].blocks) == 2


def test_K7_seven_pairs_need_four_sets_worth():
    # with one meld declared there are only 11 concealed tiles: no seven pairs
    assert not is_complete(counts("1122m3344p55s"), sets=3, seven_pairs=True) or is_complete(
        counts("1122m3344p55s"), sets=3
    )


def test_K7_seven_pairs_with_wilds():
    # a wild pairs with any single tile, two wilds pair with each other
    assert is_complete(counts("1122m3344p5566sE"), 1, seven_pairs=True)
    assert not is_complete(counts("1122m3344p5566sE"), 1)
    assert not is_complete(counts("1122m3344p5sESW"), 1, seven_pairs=True)
    assert is_complete(counts("1122m3344p5sEES"), 2, seven_pairs=True)
    assert is_complete(counts("1122m3344p55s"), 4, seven_pairs=True)


# ---------------------------------------------------------------- wait shapes


@pytest.mark.parametrize(
    "hand,expected",
    [
        ("23m456p789sEEECC", "14m"),  # 两面 two-sided
        ("13m456p789sEEECC", "2m"),  # 嵌张 closed
        ("12m456p789sEEECC", "3m"),  # 边张 edge
        ("89m456p789sEEECC", "7m"),  # 边张 edge
        ("123m456p789sEEEC", "C"),  # 单吊 single
        ("123m456p789sEECC", "EC"),  # 双碰 shanpon
        ("1112345678999m", "123456789m"),  # 九莲宝灯 nine gates: all nine
        ("2345m456p789sEEE", "25m"),  # single wait on 2m/5m
    ],
)
def test_wait_shapes(hand, expected):
    assert waits(counts(hand)) == kinds(expected)


def test_waits_skip_kinds_held_four_times():
    # 1111m234m... : a fifth 1m does not exist
    assert kind("1m") not in waits(counts("1111m234p567sEEEC"))


def test_K7_seven_pairs_wait_listed_only_with_seven_pairs():
    hand = counts("1122m3344p5566sE")
    assert waits(hand) == []
    assert waits(hand, seven_pairs=True) == [kind("E")]


# ---------------------------------------------------------------- G-9 wilds


def test_G9_one_wild_fills_a_closed_wait():
    ds = decompositions(counts("13m456p789sEEECC"), 1)
    assert len(ds) == 1
    assert ds[0].blocks[0] == Block("seq", kind("1m"), (1,))


def test_G9_wild_positions_distinguish_decompositions():
    # 45m + wild: 3m-4m-5m (wild at 0) or 4m-5m-6m (wild at 2)
    ds = decompositions(counts("45m456p789sEEECC"), 1)
    seqs = {d.blocks[0] for d in ds}
    assert Block("seq", kind("3m"), (0,)) in seqs
    assert Block("seq", kind("4m"), (2,)) in seqs


def test_G9_two_wilds():
    assert is_complete(counts("1m456p789sEEECC"), 2)
    assert is_complete(counts("159m456p789sEEE"), 2) is False
    assert is_complete(counts("35m456p789sEEEC"), 2)


def test_G9_three_wilds_complete_anything_close():
    assert is_complete(counts("1m5p9sEEECCCFF"), 3) is False
    assert is_complete(counts("1m5p789sEEECC"), 3) is False  # 13 tiles: wrong size
    assert is_complete(counts("15p789sEEECCC"), 3)


def test_G9_four_wilds_and_ten_tiles():
    hand = counts("159m37p2sESWN")  # 10 scattered tiles
    assert not is_complete(hand, 4)
    hand = counts("19m456p789sEE")  # 10 tiles: wilds make 1m-set, 9m-pair, EE-triplet
    ds = decompositions(hand, 4)  # how fast: a benchmark's question, never a timed test's (it failed under load)
    assert is_complete(hand, 4) and ds
    assert all(d.wilds_used == 4 for d in ds)


def test_G9_four_wilds_waits_cover_everything():
    hand = counts("123m456p789s")  # 9 naturals + 4 wilds = 13 tiles
    assert waits(hand, 4) == list(range(34))


def test_G9_only_wilds_left_form_any_set():
    ds = decompositions(counts("123m456p789s"), 5)
    # 3 wilds form a set of any kind, 2 wilds the pair
    assert any(d.blocks[-1].wild_positions == (0, 1) for d in ds)


# ---------------------------------------------------------------- H-2 stand-ins


def test_H2_white_stands_in_for_the_wild_kind():
    # 配子 2m: 1m P 3m is a sequence; the caller counts the 2m tiles out as wilds
    hand = counts("1m3mP456p789sEEECC")
    assert not is_complete(hand)
    assert is_complete(hand, stand_in=(WHITE, kind("2m")))
    ds = decompositions(hand, stand_in=(WHITE, kind("2m")))
    assert [d.stand_ins for d in ds] == [1]
    assert ds[0].blocks[0] == Block("seq", kind("1m"))


def test_H2_white_may_still_be_white():
    hand = counts("123m456p789sPPPCC")
    ds = decompositions(hand, stand_in=(WHITE, kind("2m")))
    assert {d.stand_ins for d in ds} == {0, 3}  # PPP as 白 pung, or as a 2m triplet
    assert waits(counts("13mP456p789sEEEC"), stand_in=(WHITE, kind("2m"))) == kinds("C")


def test_H2_stand_in_waits():
    # 1m P + 456p 789s EEE CC (13 tiles): P as 2m makes 12m waiting 3m; as 白 nothing
    assert kind("3m") in waits(counts("1mP456p789sEEECC"), stand_in=(WHITE, kind("2m")))


# ---------------------------------------------------------------- melds reduce sets


def test_melds_reduce_sets():
    # two declared pungs: the concealed part is 2 sets + pair = 8 tiles
    assert is_complete(counts("123m456pEE"), sets=2)
    assert not is_complete(counts("123m456pEE"))
    assert waits(counts("123m456pE"), sets=2) == [kind("E")]
    assert is_complete(counts("EE"), sets=0)
    assert waits(counts("E"), sets=0) == [kind("E")]
    assert waits(counts(""), 1, sets=0) == list(range(34))


# ---------------------------------------------------------------- properties

tile_pool = full_set()


@st.composite
def hands(draw, size: int):
    idx = draw(st.lists(st.integers(0, 135), min_size=size, max_size=size, unique=True))
    return to_counts(tile_pool[i] for i in idx)


@st.composite
def complete_hands(draw):
    """Random complete 14-tile hands built from blocks (to hit the positive side)."""
    c = [0] * 34
    for _ in range(4):
        if draw(st.booleans()):
            suit, rank = draw(st.integers(0, 2)), draw(st.integers(0, 6))
            ks = [suit * 9 + rank + d for d in range(3)]
        else:
            ks = [draw(st.integers(0, 33))] * 3
        for k in ks:
            c[k] += 1
    p = draw(st.integers(0, 33))
    c[p] += 2
    assume(max(c) <= 4)
    return c


@settings(max_examples=300, deadline=None)
@given(hand=st.one_of(hands(14), complete_hands()), wilds=st.integers(0, 2), seven=st.booleans())
def test_property_is_complete_iff_decomposable(hand, wilds, seven):
    # drop `wilds` natural tiles so that the hand keeps 14 tiles
    for k in range(34):
        while wilds and hand[k]:
            hand[k] -= 1
            wilds -= 1
            break
    total_wilds = 14 - sum(hand)
    assert is_complete(hand, total_wilds, seven_pairs=seven) == bool(
        decompositions(hand, total_wilds, seven_pairs=seven)
    )


@settings(max_examples=200, deadline=None)
@given(hand=hands(13), seven=st.booleans())
def test_property_waits_match_is_complete(hand, seven):
    ws = set(waits(hand, seven_pairs=seven))
    for t in range(34):
        if hand[t] >= 4:
            assert t not in ws
            continue
        hand[t] += 1
        assert (t in ws) == is_complete(hand, seven_pairs=seven)
        hand[t] -= 1


@settings(max_examples=100, deadline=None)
@given(hand=hands(12))
def test_property_waits_with_one_wild_match_is_complete(hand):
    ws = set(waits(hand, 1))
    for t in range(34):
        if hand[t] >= 4:
            continue
        hand[t] += 1
        assert (t in ws) == is_complete(hand, 1)
        hand[t] -= 1


def _agari_special(hand: list[int]) -> bool:
    """Shapes mahjong's Agari accepts that G-4 does not: 13 orphans, seven distinct pairs."""
    orphans = [0, 8, 9, 17, 18, 26] + list(range(27, 34))
    kokushi = all(hand[k] for k in orphans) and sum(hand[k] for k in orphans) == 14
    return kokushi or sum(c == 2 for c in hand) == 7


@settings(max_examples=500, deadline=None)
@given(hand=st.one_of(hands(14), complete_hands()))
def test_property_agrees_with_mahjong_agari(hand):
    agari = pytest.importorskip("mahjong.agari").Agari
    assume(not _agari_special(hand))
    assert is_complete(hand) == agari().is_agari(hand)


def test_decomposition_is_hashable_and_frozen():
    d = decompositions(counts("123m456p789sEEECC"))[0]
    assert isinstance(d, Decomposition) and hash(d) == hash(Decomposition(d.blocks, d.seven_pairs, d.stand_ins))
    with pytest.raises(AttributeError):
        d.stand_ins = 3  # type: ignore[misc]


@settings(max_examples=300, deadline=None)
@given(st.permutations(list(range(34)) * 4), st.integers(min_value=0, max_value=2), st.booleans())
def test_ready_discards_equals_checking_each_discard(shuffled, wilds, seven_pairs):
    from engine.hand import ready_discards

    counts = [0] * 34
    for k in shuffled[: 14 - wilds]:
        counts[k] += 1
    expected = []
    for d in range(34):
        if counts[d]:
            after = list(counts)
            after[d] -= 1
            if is_complete(after, wilds + 1, seven_pairs=seven_pairs):
                expected.append(d)
    assert ready_discards(counts, wilds, seven_pairs=seven_pairs) == expected
