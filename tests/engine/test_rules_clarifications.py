"""The "Clarifications" of docs/RULES.md, one given / when / then test per clarification id."""

from __future__ import annotations

from engine_helpers import actions, given, only, play, when

from engine.options import normalise
from engine.variants.hanshan import scoring as hanshan_scoring
from engine.variants.koudiandian import scoring as kdd_scoring
from engine.win import WinContext
from engine.tiles import kind, parse, points

KDD, HS = "koudiandian", "hanshan"


def kdd_win(
    hand: str,
    tile: str,
    by: str = "self_draw",
    *,
    seat: int = 0,
    dealer: int = 1,
    discarder: int | None = None,
    discarder_ready: bool = False,
    wild: str | None = None,
    **options,
) -> dict:
    ctx = WinContext(
        variant=KDD,
        options=normalise(KDD, options),
        seat=seat,
        dealer=dealer,
        concealed=tuple(parse(hand)),
        melds=(),
        win_tile=kind(tile),
        win_by=by,
        discarder=discarder,
        discarder_ready=discarder_ready,
        ready=True,
        wild=None if wild is None else kind(wild),
    )
    return kdd_scoring.score(ctx)


def hs_win(
    hand: str,
    tile: str,
    by: str = "self_draw",
    *,
    wild: str = "9p",
    seat: int = 1,
    dealer: int = 0,
    discarder: int | None = None,
    heavenly: bool = False,
    **options,
) -> dict:
    ctx = WinContext(
        variant=HS,
        options=normalise(HS, options),
        seat=seat,
        dealer=dealer,
        concealed=tuple(parse(hand)),
        melds=(),
        win_tile=kind(tile),
        win_by=by,
        discarder=discarder,
        wild=kind(wild),
        heavenly=heavenly,
    )
    return hanshan_scoring.score(ctx)


def codes(result: dict) -> dict[str, int]:
    assert result["ok"], result
    return {p["code"]: p["points"] for p in result["patterns"]}


# ---------------------------------------------------------------- G-5/K-6


HS_PUNG = ["13579m2468s5pEWFC", "1357m555p9p2468sS", "1357m1379p1357sW", "2468m2468p9sEEFF"]


def test_G5_K6_in_hanshan_a_pung_chosen_over_a_kong_may_still_add_the_fourth():
    # given seat 1 holds 555p and may kong or pung the dealer's 5p
    state = given(HS, HS_PUNG, "9m9m7p7p", wild="N")
    state, _ = when(state, 0, "discard", "5p")
    assert state.hand.window.allowed[1] == ["kong", "pung", "pass"]
    # when seat 1 pungs
    state, _ = when(state, 1, "pung")
    # then (G-5/K-6: the forfeiture is a 扣点点 rule only) the fourth 5p may be added as a kong
    assert ("kong", "5p") in actions(state, 1)
    state, events = when(state, 1, "kong", "5p")
    assert only(events, "konged")[0]["kind"] == "added"


def test_G5_K6_in_koudiandian_the_same_choice_still_forfeits_the_kong():
    hands = ["123456789m7788pE", "1234567sCCEEEW", "13579m13579pSSS", "2468m2468p2468sN"]
    state = given(KDD, hands, "FFF")
    state, _ = play(state, (0, "discard", "E"), (1, "pung"))
    assert ("kong", "E") not in actions(state, 1)


# ---------------------------------------------------------------- G-8

G8_HANDS = ["123456789m99p78sC", "123456p9sSSWWNE", "999s2468m2468pNW", "1357s1357p13mFFC"]


def test_G8_the_last_discard_may_be_won_on_but_not_konged():
    # given the dealer waits on 6s/9s and the wall holds one tile
    state = given(KDD, G8_HANDS, "F")
    state, _ = when(state, 0, "ting", "C")
    assert state.hand.wall_count == 0 and state.hand.turn == 1
    # when seat 1 discards 9s, the last discard of the hand
    state, _ = when(state, 1, "discard", "9s")
    # then the dealer may win on it, and seat 2 (999s) is offered no kong (G-5: no replacement tile)
    assert state.hand.window.allowed[0] == ["hu", "pass"]
    assert "kong" not in state.hand.window.allowed[2]
    state, events = when(state, 0, "hu")
    assert only(events, "won")[0] == {"type": "won", "seat": 0, "tile": "9s", "by": "discard", "from": 1}


# ---------------------------------------------------------------- G-9


def test_G9_three_wilds_alone_form_an_honour_triplet():
    # given 含山 with 配子 9p, three 配子 and a complete rest / when self-drawn / then G-10 reads them as
    # an honour triplet where that scores most (fengpai counts 配子-completed triplets, H-7)
    got = codes(hs_win("123m456p789s55m999p", "5m"))
    assert got.get("fengpai") == 2


def test_G9_a_wild_counts_as_what_it_stands_for_except_for_yaojiutou():
    # given 配子 9p standing for 1m beside a natural 1m as the pair / then no yaojiutou (natural tiles only)
    got = codes(hs_win("234m456p678s234s1m9p", "1m"))
    assert "yaojiutou" not in got
    assert "duanyao" not in got  # a wild standing for a 1 is a 1 for 断幺 (G-9)


# ---------------------------------------------------------------- K-3


def test_K3_a_locked_hand_may_kong_when_it_still_waits_on_anything_even_below_six():
    # given 555m34m123p456pEE declared on waits 2m/5m/E (E is worth 10)
    hands = ["555m34m123p456pEEC", "12345678sCCWWS", "1379m1379pSSSEW", "2468m2468p2468sN"]
    state = given(KDD, hands, "FFF5m9s")
    state, _ = when(state, 0, "ting", "C")
    state, _ = play(state, (1, "discard", "F"), (2, "discard", "F"), (3, "discard", "F"))
    # when the dealer draws the fourth 5m: after the kong 34m123p456pEE waits on 2m and 5m only (< 6)
    assert state.hand.drawn == kind("5m")
    # then the kong is still allowed (K-3: "still ready" is any wait; the six applies only to 报听)
    assert ("kong", "5m") in actions(state, 0)


# ---------------------------------------------------------------- K-9


def test_K9_with_both_options_the_unready_discarder_pays_a_kong_another_unready_player_fed():
    options = normalise(KDD, {"feeder_pays_kong": True, "discarder_pays_kongs": True})
    kong = {"seat": 0, "tile": kind("9m"), "kind": "exposed", "fed_by": 1, "feeder_ready": False}
    deltas = kdd_scoring.kong_payments([kong], 0, None, options, discarder=2, discarder_ready=False)
    assert deltas == [27, 0, -27, 0]


# ---------------------------------------------------------------- K-12


def test_K12_an_unready_dealer_feeding_a_non_dealer_pays_3P_plus_5():
    result = kdd_win("123m456p789sEEE99m", "9m", "discard", seat=0, dealer=1, discarder=1, dealer_bonus=True)
    assert result["value"] == 9 and result["deltas"] == [27 + 5, -(27 + 5), 0, 0]


def test_K12_an_unready_non_dealer_feeding_the_dealer_pays_3_times_P_plus_5():
    result = kdd_win("123m456p789sEEE99m", "9m", "discard", seat=1, dealer=1, discarder=2, dealer_bonus=True)
    assert result["deltas"] == [0, 3 * (9 + 5), -3 * (9 + 5), 0]


# ---------------------------------------------------------------- K-13


def test_K13_a_self_drawn_wild_scores_the_highest_wait_other_than_the_wild_kind():
    # given 耗子 9m; the 13 other tiles 123s EEE 456p 44p 78m wait on 6m and, as a natural tile, on 9m
    # when the drawn 9m (a wild) completes the hand
    result = kdd_win("123sEEE456p44p78m9m", "9m", wild="9m", wilds=True)
    # then it scores as 6m (the highest wait other than 9m): 6 x 2, not 9 x 2 (the version-1 reading)
    assert (result["points"], result["multiplier"], result["value"]) == (6, 2, 12)


def test_K13_with_a_wild_among_the_other_tiles_the_value_is_still_never_the_wild_kind():
    # 123s EEE 66m 44p 78m + a 9m wild wait on 4m..8m and 4p, and naturally on 9m: 8m is the highest
    result = kdd_win("123sEEE66m44p78m9m9m", "9m", wild="9m", wilds=True)
    assert (result["points"], result["value"]) == (8, 16)


def test_K13_the_wild_kind_is_no_wait_for_the_K2_condition():
    # given 耗子 6s: after discarding C, 123m456p789pEE45s waits on 3s and (as a natural tile) 6s
    hands = ["123m456p789p45sEEC", "12345678mCCWWS", "1357m1357sSSSWE", "2468m2468p2488sN"]
    state = given(KDD, hands, "FFF", wild="6s", options={"wilds": True})
    # then no 报听: 6s is a wild, not a wait, and 3s is worth less than 6 (K-2, K-13)
    assert not any(a == "ting" for a, _ in actions(state, 0))


def test_K13_the_table_scores_a_self_drawn_wild_by_the_other_waits():
    hands = ["123sEEE456p44p78mC", "12345678sCCWWS", "13579m1357pSSSE", "2468m2468p2468sN"]
    state = given(KDD, hands, "FFF9m", wild="9m", options={"wilds": True})
    state, _ = when(state, 0, "ting", "C")
    state, events = play(state, (1, "discard", "F"), (2, "discard", "F"), (3, "discard", "F"))
    assert state.hand.drawn == kind("9m")
    state, events = when(state, 0, "hu")
    score = only(events, "hand_ended")[0]["settlement"]["score"]
    assert (score["points"], score["value"]) == (6, 12)  # not 9 x 2 (K-13 clarification)


# ---------------------------------------------------------------- H-3

H3_HANDS = ["13579m2468s5pEWFC", "123m456m789s5p9p", "1357m1379p1357sW", "2468m2468p9sEEFF"]


def test_H3_with_both_wild_options_a_discarded_peizi_cannot_be_won_on():
    # given seat 1 waits on 5p holding no 配子, and both options on
    result = hs_win(
        "123m456m789sEEE4p5p",
        "5p",
        "discard",
        wild="5p",
        discarder=0,
        wild_self_draw_only=True,
        win_on_discarded_wild=True,
    )
    assert result == {"ok": False, "reason": "wild_self_draw_only"}
    # and only with wild_self_draw_only off does win_on_discarded_wild let it win
    assert hs_win(
        "123m456m789sEEE4p5p",
        "5p",
        "discard",
        wild="5p",
        discarder=0,
        wild_self_draw_only=False,
        win_on_discarded_wild=True,
    )["ok"]


# ---------------------------------------------------------------- H-4


def test_H4_tianhu_the_fourteenth_dealt_tile_decides_yadang():
    rest = ["123456789m2468s", "SSWWCCFF1s6s8s9sE", "159m159p3s7sPPPNN"]
    closed = given(HS, ["123m456p789s55m46s5s", *rest], "9s9s", wild="1p")
    _, events = when(closed, 0, "hu")
    assert only(events, "hand_ended")[0]["settlement"]["score"]["extra"] == "yadang"
    open_ = given(HS, ["123m456p789s55m45s6s", *rest], "9s9s", wild="1p")
    _, events = when(open_, 0, "hu")
    assert only(events, "hand_ended")[0]["settlement"]["score"]["extra"] == "pinghu"


# ---------------------------------------------------------------- H-6


def test_H6_sipeizi_excludes_an_sihuo_of_the_peizi_kind():
    got = codes(hs_win("123m456m789s5s9p9p9p9p", "5s", wild="9p"))
    assert got.get("sipeizi") == 60 and "an_sihuo" not in got


def test_points_helper_sanity():
    assert points(kind("E")) == 10
