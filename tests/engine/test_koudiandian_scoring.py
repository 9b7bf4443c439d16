"""Tests of engine.variants.koudiandian.scoring, named after the rulings they check (K-2..K-13, G-10)."""

from __future__ import annotations

from engine.options import normalise
from engine.win import Meld, WinContext
from engine.variants.koudiandian.scoring import (
    SPECIAL_HANDS,
    kong_payments,
    score,
    split_wilds,
    ting_waits,
    win_value_tile,
)
from engine.tiles import kind, parse, to_counts


def win(
    hand: str,
    tile: str,
    by: str = "self_draw",
    *,
    seat=0,
    dealer=1,
    melds=(),
    discarder=None,
    discarder_ready=False,
    ready=True,
    wild=None,
    **options,
) -> dict:
    """Score `hand` (concealed tiles including the winning `tile`)."""
    ctx = WinContext(
        variant="koudiandian",
        options=normalise("koudiandian", options),
        seat=seat,
        dealer=dealer,
        concealed=tuple(parse(hand)),
        melds=tuple(melds),
        win_tile=kind(tile),
        win_by=by,
        discarder=discarder,
        discarder_ready=discarder_ready,
        ready=ready,
        wild=None if wild is None else kind(wild),
    )
    return score(ctx)


# ---------------------------------------------------------------- K-7 plain and special hands


def test_K7_plain_discard_is_points_times_one():
    result = win("123m456p789sEEE99m", "9m", "discard", discarder=2, discarder_ready=True)
    assert result == {"ok": True, "points": 9, "multiplier": 1, "value": 9, "patterns": [], "deltas": [27, -9, -9, -9]}


def test_K7_plain_self_draw_doubles():
    result = win("123m456p789sEEE99m", "9m")
    assert (result["multiplier"], result["value"], result["deltas"]) == (2, 18, [54, -18, -18, -18])


def test_K7_qixiaodui_self_draw_doubles():
    result = win("1122m3344p5566sEE", "E")
    assert (result["points"], result["multiplier"], result["value"], result["patterns"]) == (10, 4, 40, ["qixiaodui"])


def test_K7_qixiaodui_just_missing_is_not_complete():
    assert win("1122m3344p5566sES", "E") == {"ok": False, "reason": "not_complete"}


def test_K7_qingyise_discard():
    result = win("11123456778999m", "7m", "discard", discarder=2, discarder_ready=True)
    assert "qingyise" in result["patterns"] and result["multiplier"] == 2


def test_K7_qingyise_just_missing_with_one_honour_pair():
    result = win("123456m789m111mEE", "E", "discard", discarder=2, discarder_ready=True)
    assert "qingyise" not in result["patterns"]


def test_K7_qingyise_counts_melds():
    # given a 9m pung declared and a 东 pung declared: not one suit
    result = win("123456m789m66m", "6m", "discard", discarder=2, discarder_ready=True, melds=[Meld("pung", kind("E"))])
    assert result["patterns"] == ["yitiaolong"]
    result = win("123456m789m66m", "6m", "discard", discarder=2, discarder_ready=True, melds=[Meld("pung", kind("9m"))])
    assert result["patterns"] == ["qingyise", "yitiaolong"] and result["multiplier"] == 2


def test_K7_yitiaolong_self_draw():
    result = win("123456789pEEE77s", "7s")
    assert (result["patterns"], result["multiplier"], result["value"]) == (["yitiaolong"], 4, 28)


def test_K7_yitiaolong_just_missing_across_suits():
    result = win("123m456p789sEEE77s", "7s")
    assert result["patterns"] == [] and result["multiplier"] == 2


def test_K7_huangjin_qixiaodui():
    result = win("11223344556677p", "7p", "discard", discarder=2, discarder_ready=True)
    assert result["multiplier"] == 4
    assert "huangjin_qixiaodui" in result["patterns"]


def test_K7_huangjin_just_missing_with_an_honour_pair():
    result = win("112233445566pEE", "E", "discard", discarder=2, discarder_ready=True)
    assert "huangjin_qixiaodui" not in result["patterns"] and result["multiplier"] == 2


def test_K7_haohua_qixiaodui():
    result = win("1111m3344p5566sEE", "E")
    assert result["multiplier"] == 16 and "haohua_qixiaodui" in result["patterns"]


def test_K7_haohua_just_missing_without_four_of_a_kind():
    result = win("1122m3344p5566sEE", "E")
    assert "haohua_qixiaodui" not in result["patterns"] and result["multiplier"] == 4


def test_K7_haohua_huangjin_qixiaodui_self_draw_is_32():
    result = win("11113344556677s", "7s")
    assert result["multiplier"] == 32 and result["value"] == 7 * 32
    assert "haohua_huangjin_qixiaodui" in result["patterns"]


def test_K7_haohua_huangjin_just_missing_is_haohua_only():
    result = win("1111s33445566p77m", "7m")
    assert result["multiplier"] == 16 and "haohua_huangjin_qixiaodui" not in result["patterns"]


def test_K7_multipliers_do_not_stack():
    # qingyise + yitiaolong: the single highest (2), not 4
    result = win("123456789m111m99m", "9m", "discard", discarder=2, discarder_ready=True)
    assert {"qingyise", "yitiaolong"} <= set(result["patterns"]) and result["multiplier"] == 2


def test_K7_rob_kong_counts_as_discard_and_kong_draw_as_self_draw():
    assert win("123m456p789sEEE99m", "9m", "rob_kong", discarder=2, discarder_ready=True)["multiplier"] == 1
    assert win("123m456p789sEEE99m", "9m", "kong_draw")["multiplier"] == 2


def test_K7_special_hands_table_has_the_six_codes():
    assert [h.code for h in SPECIAL_HANDS] == [
        "qingyise",
        "qixiaodui",
        "yitiaolong",
        "huangjin_qixiaodui",
        "haohua_qixiaodui",
        "haohua_huangjin_qixiaodui",
    ]


# ---------------------------------------------------------------- G-10


def test_G10_best_decomposition_prefers_yitiaolong():
    # 111222333 could be triplets; 123456789 + 111 chosen so that yitiaolong applies
    result = win("123456789p111sEE", "E")
    assert result["patterns"] == ["yitiaolong"]


def test_G10_best_decomposition_seven_pairs_over_sets():
    # 112233m as sequences or as pairs: seven pairs all of one suit scores higher
    result = win("11223344556699m", "9m")
    assert result["multiplier"] == 8 and "huangjin_qixiaodui" in result["patterns"]


# ---------------------------------------------------------------- K-2, K-4


def test_K2_not_ready_cannot_win():
    assert win("123m456p789sEEE99m", "9m", ready=False) == {"ok": False, "reason": "not_ready"}


def test_K2_check_order_not_complete_first():
    assert win("123m456p789sEEE98m", "9m", ready=False)["reason"] == "not_complete"


def test_K4_one_or_two_never_wins():
    assert win("123m456p789sEEE22m", "2m")["reason"] == "tile_too_low"


def test_K4_three_to_five_only_by_self_draw():
    assert win("123m456p789sEEE55m", "5m", "discard", discarder=2)["reason"] == "self_draw_only"
    assert win("123m456p789sEEE55m", "5m", "rob_kong", discarder=2)["reason"] == "self_draw_only"
    assert win("123m456p789sEEE55m", "5m")["ok"]


def test_K2_the_ready_condition_play_uses_needs_a_wait_worth_six():
    # the one K-2 implementation (engine/variants/koudiandian/hooks.py), tested directly
    from engine.state import HandState
    from engine.variants.koudiandian import Koudiandian

    rules = Koudiandian(normalise("koudiandian", {"wilds": True}))
    plain = HandState(number=1, dealer=0, wild=None, commitment="", seed=None, wall=[])
    assert rules._waits_on_six_or_more(plain, to_counts(parse("123m456p789sEEE5m")), 4) is False
    assert rules._waits_on_six_or_more(plain, to_counts(parse("123m456p789sEEE6m")), 4) is True
    assert rules._waits_on_six_or_more(plain, to_counts(parse("123m456p789s12mEE")), 4) is False
    wild_1s = HandState(number=1, dealer=0, wild=kind("1s"), commitment="", seed=None, wall=[])
    assert rules._waits_on_six_or_more(wild_1s, to_counts(parse("123m456p789s12mE1s")[:13]), 4) is True  # K-13


def test_K7_ting_waits_include_seven_pairs():
    assert ting_waits(to_counts(parse("1122m3344p5566sE")), 0, 4, False) == [kind("E")]


# ---------------------------------------------------------------- K-8, K-12


def test_K8_unready_discarder_pays_all():
    result = win("123m456p789sEEE99m", "9m", "discard", discarder=2, discarder_ready=False)
    assert result["deltas"] == [27, 0, -27, 0]


def test_K8_ready_discarder_pays_one_share():
    result = win("123m456p789sEEE99m", "9m", "discard", discarder=2, discarder_ready=True)
    assert result["deltas"] == [27, -9, -9, -9]


def test_K12_dealer_bonus_dealer_pays_five_more():
    result = win("123m456p789sEEE99m", "9m", dealer=1, dealer_bonus=True)
    assert result["deltas"] == [18 * 3 + 5, -23, -18, -18] and sum(result["deltas"]) == 0


def test_K12_dealer_bonus_dealer_winner_receives_five_more_per_share():
    result = win("123m456p789sEEE99m", "9m", seat=1, dealer=1, dealer_bonus=True)
    assert result["deltas"] == [-23, 69, -23, -23]


def test_K12_dealer_bonus_unready_discarder_pays_the_dealers_share():
    result = win("123m456p789sEEE99m", "9m", "discard", discarder=2, dealer=3, dealer_bonus=True)
    assert result["deltas"] == [9 * 3 + 5, 0, -32, 0]


def test_K14_base_multiplies_the_payment():
    result = win("123m456p789sEEE99m", "9m", base=3, dealer_bonus=True)
    assert result["deltas"] == [(18 * 3 + 5) * 3, -23 * 3, -54, -54]


# ---------------------------------------------------------------- K-13 耗子


def test_K13_special_hands_win_without_multiplier():
    result = win("1122m3344p5566sEE", "E", wild="9s", wilds=True)
    assert result["patterns"] == ["qixiaodui"] and result["multiplier"] == 2 and result["value"] == 20


def test_K13_wild_completes_the_hand():
    # given 1s is wild: 1m 1s 3m plays 123m
    result = win("13m456p789sEEECC1s", "C", "discard", discarder=2, discarder_ready=True, wild="1s", wilds=True)
    assert result["ok"] and result["points"] == 10


def test_K13_discarded_wild_cannot_win():
    result = win("123m456p78sEEECC9s", "9s", "discard", discarder=2, wild="9s", wilds=True)
    assert result == {"ok": False, "reason": "discarded_wild"}


def test_K13_self_drawn_wild_scores_the_highest_wait():
    # without the wild the hand waits on C and E (shanpon): a drawn wild scores 10
    result = win("123m456p789sEECC1s", "1s", wild="1s", wilds=True)
    assert result["points"] == 10 and result["value"] == 20


def test_K13_self_drawn_wild_highest_of_number_waits():
    # 123m 456p 789s EEE + 6m; waits on 6m only... with the wild drawn: 6 points
    result = win("123m456p789sEEE6m1s", "1s", wild="1s", wilds=True)
    assert result["points"] == 6


def test_K13_wild_mode_off_wild_field_ignored():
    result = win("123m456p789sEEE99m", "9m", wild="9m")
    assert result["points"] == 9


def test_K13_win_value_tile_helper():
    counts, wilds = split_wilds(parse("123m456p789sEECC"), None)
    assert win_value_tile(counts, wilds, 4, kind("1s"), kind("1s")) == kind("E")
    assert win_value_tile(counts, wilds, 4, kind("C")) == kind("C")


# ---------------------------------------------------------------- K-9 kongs


def _kong(seat, tile, kind_, fed_by=None, feeder_ready=False):
    return {"seat": seat, "tile": kind(tile), "kind": kind_, "fed_by": fed_by, "feeder_ready": feeder_ready}


def test_K9_exposed_and_added_kongs_each_other_pays_v():
    opts = normalise("koudiandian", {})
    assert kong_payments([_kong(1, "7m", "exposed", fed_by=2)], 0, None, opts) == [-7, 21, -7, -7]
    assert kong_payments([_kong(1, "E", "added")], 0, None, opts) == [-10, 30, -10, -10]


def test_K9_concealed_kong_each_pays_double():
    opts = normalise("koudiandian", {"base": 2})
    assert kong_payments([_kong(0, "5p", "concealed")], 0, None, opts) == [60, -20, -20, -20]


def test_K9_feeder_pays_kong_when_not_ready():
    opts = normalise("koudiandian", {"feeder_pays_kong": True})
    assert kong_payments([_kong(1, "7m", "exposed", fed_by=2)], 0, None, opts) == [0, 21, -21, 0]
    assert kong_payments([_kong(1, "7m", "exposed", fed_by=2, feeder_ready=True)], 0, None, opts) == [-7, 21, -7, -7]


def test_K9_discarder_pays_the_winners_kongs():
    opts = normalise("koudiandian", {"discarder_pays_kongs": True})
    kongs = [_kong(0, "8s", "concealed"), _kong(1, "E", "added")]
    deltas = kong_payments(kongs, 0, None, opts, discarder=3, discarder_ready=False)
    assert deltas == [48 - 10, 30 - 0, -10, -48 - 10]
    ready = kong_payments(kongs, 0, None, opts, discarder=3, discarder_ready=True)
    assert ready == [48 - 10, 30 - 16, -16 - 10, -16 - 10]


def test_K7_G10_given_random_complete_hands_when_scored_then_the_plain_shortcut_agrees_with_reading_them_all():
    """The scorer skips reading every decomposition when no K-7 special hand is possible
    (_may_be_special); on random complete hands (melds, 七小对 shapes, 0-3 耗子 wilds) the multiplier
    and patterns equal those of reading them all (G-10)."""
    import random

    from engine.hand import decompositions
    from engine.variants.koudiandian.scoring import (
        HandShape,
        _best_shape,
        _multiplier,
        _may_be_special,
        score,
        split_wilds,
    )

    seed = 20261202
    rng = random.Random(seed)
    checked = 0
    for case in range(400):
        pool = [k for k in range(34) for _ in range(4)]
        rng.shuffle(pool)
        wild = rng.choice([None, rng.randrange(34)])
        melds: list[Meld] = []
        tiles: list[int] = []
        if rng.random() < 0.3:  # seven pairs
            kinds = rng.sample(range(27) if rng.random() < 0.5 else range(9), 7)
            tiles = [k for k in kinds for _ in range(2)]
        else:
            suit = rng.randrange(3) if rng.random() < 0.3 else None
            for _ in range(4):
                base = (suit * 9 if suit is not None else 9 * rng.randrange(3)) + rng.randrange(7)
                block = [base, base + 1, base + 2] if rng.random() < 0.6 else [base] * 3
                if rng.random() < 0.15 and block[0] == block[1]:
                    melds.append(Meld("pung", block[0]))
                else:
                    tiles += block
            pair = (suit * 9 if suit is not None else rng.randrange(34 if rng.random() < 0.5 else 27)) + (
                rng.randrange(9) if suit is not None else 0
            )
            tiles += [pair, pair]
        if any(tiles.count(k) + sum(3 for m in melds if m.tile == k) > 4 for k in set(tiles)):
            continue
        if wild is not None:
            for i in rng.sample(range(len(tiles)), rng.randrange(4)):
                tiles[i] = wild
        win_tile = rng.choice(tiles)
        ctx = WinContext(
            variant="koudiandian",
            options=normalise("koudiandian", {"wilds": wild is not None}),
            seat=0,
            dealer=1,
            concealed=tuple(tiles),
            melds=tuple(melds),
            win_tile=win_tile,
            win_by="self_draw",
            ready=True,
            wild=wild,
        )
        result = score(ctx)
        if not result["ok"]:
            continue
        counts, wilds = split_wilds(tiles, wild)
        sets = 4 - len(melds)
        shapes = (HandShape(d, ctx.melds) for d in decompositions(counts, wilds, sets=sets, seven_pairs=sets == 4))
        multiplier, specials = _best_shape(shapes, True)
        if wild is not None:
            multiplier = _multiplier([], True)
        assert (result["multiplier"], result["patterns"]) == (multiplier, [s.code for s in specials]), (
            f"seed {seed}, case {case}: {tiles} melds {melds} wild {wild} (shortcut: {not _may_be_special(counts, wilds, melds, sets)})"
        )
        checked += 1
    assert checked > 100, f"seed {seed}: only {checked} legal wins checked"
