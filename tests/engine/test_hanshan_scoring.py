"""Tests of engine.variants.hanshan.scoring: legality (H-1, H-3), the 25 patterns (H-6..H-9), extra and payment (H-5, H-10, G-10)."""

from __future__ import annotations

import pytest

from engine.options import normalise
from engine.win import Meld, WinContext
from engine.variants.hanshan.scoring import (
    EXCLUDED_BY,
    HIGHEST_ONLY,
    PATTERNS,
    Win,
    all_facts,
    apply_exclusions,
    readings,
    score,
)
from engine.tiles import kind, parse

DEALER = 0
WINNER = 1  # a non-dealer unless a test says otherwise
FEEDER = 2


def meld(spec: str) -> Meld:
    """`pung:E`, `exposed:9m`, `added:E`, `concealed:9m`."""
    how, tile = spec.split(":")
    if how == "pung":
        return Meld("pung", kind(tile))
    return Meld("kong", kind(tile), how)


def win(
    hand: str,
    tile: str,
    by: str = "self_draw",
    *,
    wild: str = "9p",
    melds: str = "",
    seat: int = WINNER,
    dealer: int = DEALER,
    discarder: int | None = None,
    ready: bool = False,
    heavenly: bool = False,
    first_discard: bool = False,
    **options,
) -> dict:
    """Score `hand` (every concealed tile, the winning `tile` included) won `by` ...; checks sum(deltas) == 0."""
    if by in ("discard", "rob_kong") and discarder is None:
        discarder = FEEDER if seat != FEEDER else DEALER
    ctx = WinContext(
        variant="hanshan",
        options=normalise("hanshan", options),
        seat=seat,
        dealer=dealer,
        concealed=tuple(parse(hand)),
        melds=tuple(meld(m) for m in melds.split()),
        win_tile=kind(tile),
        win_by=by,
        discarder=discarder,
        ready=ready,
        wild=kind(wild),
        heavenly=heavenly,
        dealer_first_discard=first_discard,
    )
    result = score(ctx)
    if result["ok"]:
        assert sum(result["deltas"]) == 0
        assert result["pattern_score"] == sum(p["points"] for p in result["patterns"])
    return result


def patterns(result: dict) -> dict[str, int]:
    assert result["ok"], result
    return {p["code"]: p["points"] for p in result["patterns"]}


# ---------------------------------------------------------------- contract


def test_contract_legal_win_has_exactly_the_documented_keys():
    # given a plain 含山 win / when scored / then the contract of docs/CONTRACTS.md
    result = win("123m456p789s234s55m", "5m")
    assert set(result) == {"ok", "patterns", "pattern_score", "extra", "deltas"}
    assert all(set(p) == {"code", "points"} for p in result["patterns"])
    assert result["extra"] in ("pinghu", "yadang") and len(result["deltas"]) == 4


def test_contract_example_of_docs_contracts_md():
    # given the example of docs/CONTRACTS.md: seat 1 wins on seat 2's C with a pung of S
    result = win("123m456mEEECC", "C", "discard", melds="pung:S")
    assert result == {
        "ok": True,
        "patterns": [
            {"code": "fengpai", "points": 4},
            {"code": "hunyise", "points": 30},
            {"code": "wupeizi", "points": 4},
        ],
        "pattern_score": 38,
        "extra": "yadang",
        "deltas": [-48, 132, -42, -42],
    }


def test_H7_pattern_table_has_the_25_codes_and_points_of_H7():
    table = {p.code: p.points for p in PATTERNS}
    assert table == {
        "fengpai": 2,
        "minggang": 5,
        "angang": 10,
        "gangshang_kaihua": 5,
        "qiangganghu": 5,
        "duanyao": 5,
        "wanshi": 5,
        "queyimen": 5,
        "yaojiutou": 2,
        "ming_sihuo": 5,
        "an_sihuo": 10,
        "hunyise": 30,
        "duiduihu": 30,
        "tongtian": 30,
        "qingyise": 60,
        "quanqiuren": 90,
        "wupeizi": 4,
        "peizizan": 30,
        "peizizan_peizi": 60,
        "shuangpeijia": 60,
        "peizijia_peizi": 120,
        "sipeizi": 60,
        "tianhu": 60,
        "dihu": 30,
        "fengyise": 120,
        "baoting": 30,
    }
    assert all(p.name_zh and p.name_en for p in PATTERNS)


# ---------------------------------------------------------------- H-1, H-3 legality


def test_H1_seven_pairs_never_win():
    assert win("11m22m33m44p55p66sEE", "E") == {"ok": False, "reason": "not_complete"}


def test_H1_an_incomplete_hand_is_not_a_win():
    assert win("123m456p789s234s5m6m", "6m") == {"ok": False, "reason": "not_complete"}


def test_H3_wild_self_draw_only_holding_a_peizi_cannot_win_on_a_discard():
    # given 配子 5p used as 3s, when won on a discarded 5m with the default option
    result = win("123m456p789s2s5p4s55m", "5m", "discard", wild="5p")
    assert result == {"ok": False, "reason": "wild_self_draw_only"}


def test_H3_wild_self_draw_only_off_allows_the_discard_win():
    result = win("123m456p789s2s5p4s55m", "5m", "discard", wild="5p", wild_self_draw_only=False)
    assert result["ok"]


def test_H3_holding_a_peizi_may_self_draw():
    assert win("123m456p789s2s5p4s55m", "5m", wild="5p")["ok"]


def test_H3_discarded_wild_cannot_be_won_on_by_default():
    result = win("123m456m789s234s5p5m", "5p", "discard", wild="5p", wild_self_draw_only=False)
    assert result == {"ok": False, "reason": "discarded_wild"}


def test_H3_win_on_discarded_wild_with_wild_self_draw_only_off_is_legal():
    result = win(
        "123m456m789s234s5p5m", "5p", "discard", wild="5p", wild_self_draw_only=False, win_on_discarded_wild=True
    )
    assert result["ok"]


def test_H3_discarded_wild_counts_as_holding_a_peizi_under_wild_self_draw_only():
    # Tilefold ruling (docs/RULES.md): the winning 配子 is in the hand after the win.
    result = win("123m456m789s234s5p5m", "5p", "discard", wild="5p", win_on_discarded_wild=True)
    assert result == {"ok": False, "reason": "wild_self_draw_only"}


# ---------------------------------------------------------------- H-2 白板


def test_H2_white_plays_the_peizi_kind_in_a_sequence():
    # given 配子 5m, 4m P 6m is 456m: a complete hand, P standing for 5m keeps 断幺
    got = patterns(win("234p456p678s46mP55s", "5s", wild="5m"))
    assert "duanyao" in got and "wupeizi" in got


def test_H2_white_is_only_wild_when_white_is_the_peizi():
    # given 配子 P: P is wild, so P P stands for anything and 1m P 3m is complete
    got = patterns(win("1mP3m456p789s234s55s", "5s", wild="P"))
    assert "wupeizi" not in got and "fengpai" not in got


def test_H2_white_read_as_white_scores_fengpai():
    # given 配子 5m and P P P: G-10 reads them as 白 (an honour triplet) rather than 5m 5m 5m
    got = patterns(win("123p456p789pPPP11s", "1s", wild="5m"))
    assert got["fengpai"] == 2


def test_H2_white_read_as_the_peizi_kind_in_a_sequence_is_no_honour_set():
    got = patterns(win("123p456p789p4mP6m11s", "1s", wild="5m"))
    assert "fengpai" not in got


# ---------------------------------------------------------------- H-7 patterns, one by one


def test_H7_fengpai_per_honour_pung_and_concealed_triplet():
    got = patterns(win("123m456pEEE99s", "9s", melds="pung:S"))
    assert got["fengpai"] == 4


def test_H7_fengpai_triplet_completed_by_a_peizi_counts():
    got = patterns(win("123m456m789sEE5p11s", "9s", wild="5p"))
    assert got["fengpai"] == 2


def test_H7_fengpai_misses_on_an_honour_pair():
    assert "fengpai" not in patterns(win("123m456p789s234sEE", "E"))


def test_H7_minggang_per_exposed_and_added_kong():
    got = patterns(win("123p456p55s", "5s", melds="exposed:9m added:E"))
    assert got["minggang"] == 10 and got["fengpai"] == 2


def test_H7_minggang_misses_on_a_concealed_kong():
    got = patterns(win("123p456p789s55s", "5s", melds="concealed:9m"))
    assert "minggang" not in got and got["angang"] == 10


def test_H7_angang_misses_on_a_pung():
    assert "angang" not in patterns(win("123p456p789s55s", "5s", melds="pung:9m"))


def test_H7_gangshang_kaihua_on_a_kong_replacement():
    got = patterns(win("123p456p789s55s", "5s", "kong_draw", melds="concealed:9m"))
    assert got["gangshang_kaihua"] == 5


def test_H7_gangshang_kaihua_misses_on_an_ordinary_draw():
    assert "gangshang_kaihua" not in patterns(win("123p456p789s55s", "5s", melds="concealed:9m"))


def test_H7_qiangganghu_robbing_a_kong():
    assert patterns(win("123m456p789s234s55m", "5m", "rob_kong"))["qiangganghu"] == 5


def test_H7_qiangganghu_misses_on_a_discard():
    assert "qiangganghu" not in patterns(win("123m456p789s234s55m", "5m", "discard"))


def test_H7_duanyao_no_terminal_or_honour():
    assert patterns(win("234m456p678s345s55m", "5m"))["duanyao"] == 5


def test_H7_duanyao_misses_with_a_nine():
    assert "duanyao" not in patterns(win("234m456p678s789s55m", "5m"))


def test_H7_duanyao_a_peizi_counts_as_the_tile_it_plays():
    # given 配子 9p playing 4s: the hand stands for 2..8 only (Tilefold ruling)
    assert "duanyao" in patterns(win("234m456p678s3s9p5s55m", "5m", wild="9p"))


def test_H7_wanshi_self_draw_with_a_concealed_kong():
    assert patterns(win("123p456p789s55s", "5s", melds="concealed:9m"))["wanshi"] == 5


def test_H7_wanshi_misses_with_a_pung():
    assert "wanshi" not in patterns(win("123p456p789s55s", "5s", melds="pung:9m"))


def test_H7_wanshi_misses_on_a_discard():
    assert "wanshi" not in patterns(win("123p456p789s234s55s", "5s", "discard"))


def test_H7_queyimen_one_suit_missing():
    assert patterns(win("123m456m789s234s55s", "5s"))["queyimen"] == 5


def test_H7_queyimen_misses_with_all_three_suits():
    assert "queyimen" not in patterns(win("123m456p789s234s55s", "5s"))


def test_H9_queyimen_a_peizi_of_the_missing_suit_is_colour_neutral():
    # given 配子 5p standing for 3s in a 万/条 hand: still 缺一门 (筒 missing)
    assert "queyimen" in patterns(win("123m456m789s2s5p4s55m", "5m", wild="5p"))


def test_H7_yaojiutou_pair_of_natural_ones():
    assert patterns(win("123m456p123s888s11m", "1m", wild="E"))["yaojiutou"] == 2


def test_H7_yaojiutou_misses_when_the_pair_is_completed_by_a_peizi():
    # original text 9: 123,456,123,888,1 that draws the 配子 is no 幺九头
    assert "yaojiutou" not in patterns(win("123m456p123s888s1mE", "E", wild="E"))


def test_H7_yaojiutou_misses_on_white_playing_the_peizi_one():
    # given 配子 1s, P P as 1s 1s is not a pair of natural 1s
    assert "yaojiutou" not in patterns(win("123m456p789p234sPP", "P", wild="1s"))


def test_H7_ming_sihuo_pung_plus_the_fourth_in_a_sequence():
    assert patterns(win("456m123p789s11s", "1s", melds="pung:5m"))["ming_sihuo"] == 5


def test_H7_ming_sihuo_misses_without_the_fourth():
    assert "ming_sihuo" not in patterns(win("678m123p789s11s", "1s", melds="pung:5m"))


def test_H7_an_sihuo_four_in_the_hand_not_konged():
    assert patterns(win("1111m23m456p789s55s", "5s"))["an_sihuo"] == 10


def test_H7_an_sihuo_misses_when_konged():
    got = patterns(win("234m456p789s55s", "5s", melds="concealed:1m"))
    assert "an_sihuo" not in got


def test_H7_hunyise_one_suit_plus_honours():
    got = patterns(win("123m456m777mEEECC", "7m"))
    assert got["hunyise"] == 30 and "queyimen" not in got


def test_H9_hunyise_misses_when_the_only_honours_are_white():
    # 白板 is colour-neutral: one suit + 白板 is 清一色 (original 14(1)), and 清一色 scores no fengpai
    got = patterns(win("123m456m777mPPP55m", "7m"))
    assert "hunyise" not in got and got["qingyise"] == 60 and "fengpai" not in got


def test_H7_duiduihu_all_triplets():
    assert patterns(win("111m555pEEE999s22s", "2s"))["duiduihu"] == 30


def test_H7_duiduihu_misses_with_a_sequence():
    assert "duiduihu" not in patterns(win("123m555pEEE999s22s", "2s"))


def test_H7_tongtian_one_to_nine_of_one_suit():
    assert patterns(win("123m456m789m234s55s", "5s"))["tongtian"] == 30


def test_H7_tongtian_misses_across_suits():
    assert "tongtian" not in patterns(win("123m456m789p234s55s", "5s"))


def test_H7_qingyise_one_suit_only():
    got = patterns(win("123m345m678m234m99m", "9m"))
    assert got["qingyise"] == 60 and "queyimen" not in got


def test_H7_qingyise_misses_with_one_other_suit_tile():
    got = patterns(win("123m345m678m234p99m", "9m"))
    assert "qingyise" not in got and "queyimen" in got


def test_H9_qingyise_a_peizi_of_another_suit_does_not_break_it():
    assert "qingyise" in patterns(win("123m345m678m2m5p4m99m", "9m", wild="5p"))


def test_H9_qingyise_honour_peizi_and_white_with_one_suit_scores_no_fengpai():
    # original 14(2): 配子 E, only 风配 + 万 + 白板 is 清一色; P P P would be a 风牌 triplet
    got = patterns(win("123m456m789mPPP1mE", "1m", wild="E"))
    assert got["qingyise"] == 60 and "fengpai" not in got and "hunyise" not in got


def test_H9_qingyise_honour_peizi_drawing_white_scores_peizizan():
    # original 14(3): 清一色 with 风配 E, drawing 白板 is 配子赞
    got = patterns(win("123m456m789m111mEP", "P", wild="E"))
    assert got["qingyise"] == 60 and got["peizizan"] == 30


def test_H7_quanqiuren_four_melds_single_wait_on_a_discard():
    got = patterns(win("3s3s", "3s", "discard", melds="pung:1m pung:5p pung:9s exposed:E"))
    assert got["quanqiuren"] == 90 and "duiduihu" not in got  # H-6


def test_H7_quanqiuren_misses_on_self_draw_which_is_duiduihu():
    got = patterns(win("3s3s", "3s", melds="pung:1m pung:5p pung:9s exposed:E"))
    assert "quanqiuren" not in got and got["duiduihu"] == 30


def test_H7_quanqiuren_misses_with_a_concealed_kong():
    got = patterns(win("3s3s", "3s", "discard", melds="pung:1m pung:5p pung:9s concealed:E"))
    assert "quanqiuren" not in got and got["duiduihu"] == 30


def test_H7_wupeizi_no_peizi_in_the_hand():
    assert patterns(win("123m456p789s234s55m", "5m"))["wupeizi"] == 4


def test_H7_wupeizi_misses_with_a_peizi():
    assert "wupeizi" not in patterns(win("123m456p789s2s5p4s55m", "5m", wild="5p"))


def test_H7_sipeizi_all_four_peizi():
    got = patterns(win("123m456m789s5p5p5p5pE", "E", wild="5p"))
    assert got["sipeizi"] == 60


def test_H7_sipeizi_misses_with_three():
    assert "sipeizi" not in patterns(win("123m456m789s5p5p5pEE", "E", wild="5p"))


def test_H7_tianhu_dealer_wins_on_the_first_fourteen():
    got = patterns(win("123m456p789s234s55m", "5m", seat=DEALER, heavenly=True))
    assert got["tianhu"] == 60


def test_H7_tianhu_misses_after_a_concealed_kong():
    got = patterns(win("123p456p789s55s", "5s", seat=DEALER, heavenly=True, melds="concealed:9m"))
    assert "tianhu" not in got


def test_H7_dihu_non_dealer_wins_on_the_dealers_first_discard():
    got = patterns(win("123m456p789s234s55m", "5m", "discard", discarder=DEALER, first_discard=True))
    assert got["dihu"] == 30


def test_H7_dihu_non_dealer_who_declared_ready_at_the_deal_wins_later():
    got = patterns(win("123m456p789s234s55m", "5m", ready=True))
    assert got["dihu"] == 30 and got["baoting"] == 60


def test_H7_dihu_misses_for_a_ready_dealer():
    got = patterns(win("123m456p789s234s55m", "5m", seat=DEALER, ready=True))
    assert "dihu" not in got and got["baoting"] == 60


def test_H7_fengyise_all_honours():
    got = patterns(win("EEESSSWWWNNNCC", "C"))
    assert got["fengyise"] == 120 and got["fengpai"] == 8 and got["duiduihu"] == 30


def test_H7_fengyise_misses_with_a_suit_triplet():
    got = patterns(win("EEESSSWWW111mCC", "C"))
    assert "fengyise" not in got and got["hunyise"] == 30


def test_H7_baoting_on_a_discard_is_30():
    assert patterns(win("123m456p789s234s55m", "5m", "discard", ready=True))["baoting"] == 30


def test_H7_baoting_misses_without_declaring():
    assert "baoting" not in patterns(win("123m456p789s234s55m", "5m"))


# ---------------------------------------------------------------- H-8 配子 hands


def test_H8_peizizan_lone_peizi_draws_any_tile():
    # given sets + a lone 配子 5p before the draw, when E is drawn
    result = win("123m456m789s234s5pE", "E", wild="5p")
    assert patterns(result)["peizizan"] == 30 and result["extra"] == "yadang"


def test_H8_peizizan_misses_on_a_discard():
    result = win("123m456m789s234s5pE", "E", "discard", wild="5p", wild_self_draw_only=False)
    assert "peizizan" not in patterns(result)


def test_H8_peizizan_misses_when_the_peizi_is_not_lone_before_the_draw():
    assert "peizizan" not in patterns(win("123m456m789s2s4s5pEE", "E", wild="5p"))


def test_H8_peizizan_peizi_lone_peizi_draws_a_peizi():
    got = patterns(win("123m456m789s234s5p5p", "5p", wild="5p"))
    assert got["peizizan_peizi"] == 60 and "peizizan" not in got and "peizijia_peizi" not in got


def test_H8_shuangpeijia_pair_of_peizi_and_a_pair_draws_a_middle_tile():
    got = patterns(win("123m456m789s5p5p22s6s", "6s", wild="5p"))
    assert got["shuangpeijia"] == 60 and "peizizan" not in got  # H-6 only the highest


@pytest.mark.parametrize("drawn", ["1s", "9m", "E", "P"])
def test_H8_shuangpeijia_drawing_one_nine_or_honour_scores_peizizan(drawn):
    result = win("123m456m789s5p5p22s" + drawn, drawn, wild="5p")
    got = patterns(result)
    assert got["peizizan"] == 30 and "shuangpeijia" not in got and result["extra"] == "yadang"


def test_H8_peizijia_peizi_pair_of_peizi_and_a_pair_draws_a_peizi():
    got = patterns(win("123m456m789s5p5p5p22s", "5p", wild="5p"))
    assert got["peizijia_peizi"] == 120 and "peizizan_peizi" not in got and "sipeizi" not in got


def test_H8_peizijia_peizi_three_peizi_and_a_single_draws_a_peizi():
    got = patterns(win("123m456m789s5p5p5p5pE", "5p", wild="5p"))
    assert got["peizijia_peizi"] == 120 and got["sipeizi"] == 60 and "peizizan_peizi" not in got


def test_H8_peizijia_peizi_misses_when_a_natural_tile_is_drawn():
    assert "peizijia_peizi" not in patterns(win("123m456m789s5p5p5p22s", "2s", wild="5p"))


# ---------------------------------------------------------------- H-6 exclusions (data)


def test_H6_exclusions_are_data():
    excluded = dict(EXCLUDED_BY)
    assert set(excluded["queyimen"]) == {"hunyise", "qingyise"}
    assert excluded["duiduihu"] == ("quanqiuren",)
    for code in ("peizizan", "peizizan_peizi", "shuangpeijia", "peizijia_peizi"):
        assert "quanqiuren" in excluded[code]
    assert ("peizizan", "peizizan_peizi", "shuangpeijia", "peizijia_peizi") in HIGHEST_ONLY


@pytest.mark.parametrize(
    "applies,kept",
    [
        ({"queyimen": 5, "hunyise": 30}, {"hunyise": 30}),
        ({"queyimen": 5, "qingyise": 60}, {"qingyise": 60}),
        ({"duiduihu": 30, "quanqiuren": 90}, {"quanqiuren": 90}),
        ({"peizizan": 30, "shuangpeijia": 60}, {"shuangpeijia": 60}),
        ({"peizizan_peizi": 60, "peizijia_peizi": 120}, {"peizijia_peizi": 120}),
        ({"peizizan": 30, "quanqiuren": 90}, {"quanqiuren": 90}),
        ({"peizijia_peizi": 120, "quanqiuren": 90}, {"quanqiuren": 90}),
        ({"fengpai": 4, "qingyise": 60}, {"qingyise": 60}),  # H-9
        ({"fengpai": 4, "hunyise": 30, "duiduihu": 30}, {"fengpai": 4, "hunyise": 30, "duiduihu": 30}),
    ],
)
def test_H6_exclusions_applied(applies, kept):
    assert apply_exclusions(applies) == kept


def test_H7_angang_per_concealed_kong():
    got = patterns(win("123p456p55s", "5s", melds="concealed:9m concealed:E"))
    assert got["angang"] == 20 and got["wanshi"] == 5


def test_H8_peizizan_peizi_misses_when_the_drawn_peizi_fills_a_gap():
    # given 2s 4s before the draw and no 配子 held, the drawn 配子 plays 3s: no 配子 hand
    got = patterns(win("123m456m789s2s4sEE5p", "5p", wild="5p"))
    assert not {"peizizan", "peizizan_peizi", "shuangpeijia", "peizijia_peizi"} & set(got)


def test_H6_patterns_otherwise_stack_without_cap():
    got = patterns(win("EEESSSWWWNNNCC", "C", ready=True))
    assert sum(got.values()) == 8 + 5 + 30 + 4 + 30 + 120 + 60  # fengpai wanshi duiduihu wupeizi dihu fengyise baoting


# ---------------------------------------------------------------- H-10 extra, H-5 payment, base

PINGHU = "234m456p789s678s55m"  # 2m drawn on 34m: a two-sided wait
PINGHU_TILE = "2m"
YADANG_TILE = "5m"  # 5m on 234m 5m: a single wait on the pair


@pytest.mark.parametrize(
    "seat,by,tile,deltas",
    [
        (1, "discard", PINGHU_TILE, [-9, 21, -6, -6]),  # non-dealer on a discard, 平胡: 4 + (5 | 2)
        (1, "discard", YADANG_TILE, [-14, 30, -8, -8]),  # 丫当: 4 + (10 | 4)
        (1, "self_draw", PINGHU_TILE, [-24, 50, -13, -13]),  # non-dealer self-draw: 9 + (15 | 4)
        (1, "self_draw", YADANG_TILE, [-29, 59, -15, -15]),  # 丫当: 9 + (20 | 6)
        (0, "discard", PINGHU_TILE, [27, -9, -9, -9]),  # dealer on a discard: 4 + 5
        (0, "discard", YADANG_TILE, [42, -14, -14, -14]),  # 丫当: 4 + 10
        (0, "self_draw", PINGHU_TILE, [72, -24, -24, -24]),  # dealer self-draw: 9 + 15
        (0, "self_draw", YADANG_TILE, [87, -29, -29, -29]),  # 丫当: 9 + 20
    ],
)
def test_H10_extra_table_row(seat, by, tile, deltas):
    result = win(PINGHU, tile, by, seat=seat)
    assert result["deltas"] == deltas
    assert result["extra"] == ("yadang" if tile == YADANG_TILE else "pinghu")


@pytest.mark.parametrize(
    "hand,tile", [("123m456p789s79m55s", "8m"), ("123m456p789s12m55s", "3m"), ("123m456p789s89m55s", "7m")]
)
def test_H10_yadang_closed_and_edge_waits(hand, tile):
    # given 79m + 8m (closed), 12m + 3m and 89m + 7m (edges)
    assert win(hand + tile, tile)["extra"] == "yadang"


def test_H10_pinghu_on_a_triplet_wait():
    assert win("123m456p789s55m666s", "6s")["extra"] == "pinghu"


def test_H5_every_other_player_pays_for_a_discard_win_by_default():
    assert win(PINGHU, PINGHU_TILE, "discard")["deltas"] == [-9, 21, -6, -6]


def test_H5_discarder_pays_all_on_a_discard_win():
    assert win(PINGHU, PINGHU_TILE, "discard", discarder_pays_all=True)["deltas"] == [0, 21, -21, 0]


def test_H5_discarder_pays_all_robbed_kong_is_paid_by_the_konger():
    result = win(PINGHU, PINGHU_TILE, "rob_kong", discarder=3, discarder_pays_all=True)
    assert result["deltas"] == [0, 36, 0, -36]  # (qiangganghu 5 + wupeizi 4) x 3 + 平胡 5 + 2 + 2


def test_H5_discarder_pays_all_does_not_touch_a_self_draw():
    assert win(PINGHU, PINGHU_TILE, discarder_pays_all=True)["deltas"] == [-24, 50, -13, -13]


def test_H5_base_multiplies_every_payment():
    assert win(PINGHU, PINGHU_TILE, "discard", base=3)["deltas"] == [-27, 63, -18, -18]


def test_H11_kong_points_count_only_in_the_winners_pattern_score():
    # exposed kong 5 + wupeizi 4 = 9 from each payer, 平胡 on a discard (two-sided 2s on 34s)
    result = win("123p456p34s2s55s", "2s", "discard", melds="exposed:9m")
    assert patterns(result) == {"minggang": 5, "wupeizi": 4}
    assert result["deltas"] == [-14, 36, -11, -11]


# ---------------------------------------------------------------- G-10 best reading


def test_G10_the_winning_tile_takes_the_yadang_place():
    # 3m can close 12m (edge, 丫当) or open 345m (two-sided): the winner gets the 丫当 extra
    assert win("123345m678pEEE99s", "3m")["extra"] == "yadang"


def test_G10_triplets_beat_sequences_for_duiduihu():
    got = patterns(win("111222333m555pEE", "5p"))
    assert got["duiduihu"] == 30


def test_G10_peizi_assignment_for_fengpai():
    # 配子 5p with E E could make 1s 1s 1s or E E E: E E E gives fengpai and keeps 幺九头 on 1s 1s
    got = patterns(win("123m456m789sEE5p11s", "9s", wild="5p"))
    assert got["fengpai"] == 2 and got["yaojiutou"] == 2


# ---------------------------------------------------------------- G-10 search: fixed differential data

#: Hands scored by the plain search over every reading (before the Facts search replaced it), kept as
#: data: (concealed, winning tile, win_by, 配子, melds, seat dealer discarder, flags, options, expected).
#: Chosen for many distinct readings (3-4 配子, 白板 stand-ins) and for ties between different
#: outcomes, which the first reading in hand.decompositions order decides (G-10).
SEARCH_CASES = [
    (
        "333m1112sCCCPPPP",
        "P",
        "self_draw",
        "P",
        "",
        "31-",
        "",
        "",
        "fengpai:4 wanshi:5 queyimen:5 duiduihu:30 peizijia_peizi:120 sipeizi:60|yadang|-230,-244,-230,704",
    ),
    (
        "111m77pWWPPPP",
        "1m",
        "self_draw",
        "P",
        "pung:S",
        "22-",
        "heavenly",
        "base=4",
        "fengpai:6 queyimen:5 duiduihu:30 peizizan:30 sipeizi:60|yadang|-604,-604,1812,-604",
    ),
    (
        "789m66999p345sPPP",
        "4s",
        "kong_draw",
        "P",
        "",
        "21-",
        "heavenly",
        "wild_self_draw_only=0 win_on_discarded_wild=1",
        "gangshang_kaihua:5 wanshi:5 yaojiutou:2 shuangpeijia:60|yadang|-78,-92,248,-78",
    ),
    (
        "111m66999sCCPPPP",
        "1m",
        "self_draw",
        "P",
        "",
        "00-",
        "",
        "",
        "fengpai:2 wanshi:5 queyimen:5 yaojiutou:2 duiduihu:30 peizizan:30 sipeizi:60|yadang|462,-154,-154,-154",
    ),
    (
        "77m111444567777s",
        "7m",
        "self_draw",
        "4s",
        "",
        "30-",
        "",
        "discarder_pays_all=1",
        "wanshi:5 queyimen:5 yaojiutou:2 an_sihuo:10 peizizan:30|yadang|-72,-58,-58,188",
    ),
    (
        "111m77p566667sSSS",
        "7s",
        "kong_draw",
        "S",
        "",
        "03-",
        "",
        "wild_self_draw_only=0",
        "gangshang_kaihua:5 wanshi:5 yaojiutou:2 an_sihuo:10 shuangpeijia:60|yadang|278,-88,-88,-102",
    ),
    (
        "3m678999p4444s",
        "9p",
        "self_draw",
        "4s",
        "pung:2m",
        "22-",
        "",
        "win_on_discarded_wild=1 discarder_pays_all=1 base=2",
        "queyimen:5 yaojiutou:2 peizizan:30 sipeizi:60|yadang|-234,-234,702,-234",
    ),
    (
        "88m111sEEEWWWPPP",
        "1s",
        "self_draw",
        "P",
        "",
        "30-",
        "",
        "wild_self_draw_only=0 discarder_pays_all=1 base=3",
        "fengpai:4 wanshi:5 queyimen:5 yaojiutou:2 duiduihu:30 peizizan:30|yadang|-288,-246,-246,780",
    ),
    (
        "9999m111p7s",
        "9m",
        "self_draw",
        "9m",
        "pung:2m exposed:6p",
        "10-",
        "",
        "win_on_discarded_wild=1 discarder_pays_all=1",
        "fengpai:2 minggang:5 duiduihu:30 peizijia_peizi:120 sipeizi:60|yadang|-237,683,-223,-223",
    ),
    (
        "66999sCCC",
        "9s",
        "kong_draw",
        "C",
        "pung:2s pung:1p",
        "10-",
        "",
        "base=5",
        "gangshang_kaihua:5 queyimen:5 yaojiutou:2 duiduihu:30 peizizan:30|yadang|-460,1240,-390,-390",
    ),
    (
        "678888999p44sFFF",
        "F",
        "kong_draw",
        "F",
        "",
        "03-",
        "ready first",
        "discarder_pays_all=1",
        "gangshang_kaihua:5 wanshi:5 queyimen:5 yaojiutou:2 an_sihuo:10 peizijia_peizi:120 dihu:30 baoting:60|yadang|743,-243,-243,-257",
    ),
    (
        "6666789m2366p999s",
        "9s",
        "self_draw",
        "6m",
        "",
        "03-",
        "",
        "win_on_discarded_wild=1 discarder_pays_all=1",
        "wanshi:5 yaojiutou:2 peizizan:30 sipeizi:60|yadang|323,-103,-103,-117",
    ),
    (
        "999m111223345sPP",
        "5s",
        "self_draw",
        "3s",
        "",
        "30-",
        "",
        "",
        "fengpai:2 wanshi:5 queyimen:5 shuangpeijia:60|yadang|-92,-78,-78,248",
    ),
    (
        "4999pPPPP",
        "4p",
        "self_draw",
        "P",
        "pung:7m concealed:1m",
        "23-",
        "",
        "win_on_discarded_wild=1",
        "angang:10 queyimen:5 yaojiutou:2 duiduihu:30 shuangpeijia:60 sipeizi:60|yadang|-173,-173,533,-187",
    ),
    (
        "1117999pCCCC",
        "9p",
        "self_draw",
        "C",
        "pung:W",
        "20-",
        "",
        "",
        "fengpai:2 yaojiutou:2 hunyise:30 duiduihu:30 peizizan:30 sipeizi:60|yadang|-174,-160,494,-160",
    ),
    (
        "9m999sFFFF",
        "F",
        "kong_draw",
        "F",
        "pung:4s pung:7s",
        "10-",
        "",
        "",
        "gangshang_kaihua:5 queyimen:5 yaojiutou:2 duiduihu:30 peizijia_peizi:120 sipeizi:60|yadang|-242,698,-228,-228",
    ),
    (
        "11155678pEEEECC",
        "C",
        "self_draw",
        "E",
        "",
        "02-",
        "",
        "win_on_discarded_wild=1",
        "fengpai:2 wanshi:5 yaojiutou:2 hunyise:30 peizizan:30 sipeizi:60|yadang|419,-135,-149,-135",
    ),
    (
        "4444m111999p1s",
        "1p",
        "self_draw",
        "4m",
        "pung:7s",
        "10-",
        "heavenly",
        "",
        "fengpai:2 queyimen:5 duiduihu:30 peizizan:30 sipeizi:60|yadang|-147,413,-133,-133",
    ),
    (
        "999p4556777sP",
        "4s",
        "self_draw",
        "7s",
        "pung:8s",
        "10-",
        "",
        "discarder_pays_all=1",
        "fengpai:2 queyimen:5 shuangpeijia:60|yadang|-87,233,-73,-73",
    ),
    (
        "55m56888999sCCCP",
        "C",
        "self_draw",
        "8s",
        "",
        "00-",
        "ready",
        "wild_self_draw_only=0 discarder_pays_all=1 base=5",
        "fengpai:4 wanshi:5 queyimen:5 baoting:60|pinghu|1335,-445,-445,-445",
    ),
    (
        "7p678999sNNNNPPP",
        "9s",
        "kong_draw",
        "N",
        "",
        "21-",
        "",
        "discarder_pays_all=1",
        "fengpai:2 gangshang_kaihua:5 wanshi:5 queyimen:5 yaojiutou:2 peizizan:30 sipeizi:60|yadang|-115,-129,359,-115",
    ),
    (
        "3335555m555p1114s",
        "5p",
        "kong_draw",
        "5m",
        "",
        "30-",
        "",
        "",
        "fengpai:2 gangshang_kaihua:5 wanshi:5 duiduihu:30 shuangpeijia:60 sipeizi:60|yadang|-182,-168,-168,518",
    ),
    (
        "222m33p666688999s",
        "6s",
        "kong_draw",
        "6s",
        "",
        "10-",
        "",
        "wild_self_draw_only=0 win_on_discarded_wild=1 discarder_pays_all=1",
        "gangshang_kaihua:5 wanshi:5 yaojiutou:2 duiduihu:30 peizijia_peizi:120 sipeizi:60|yadang|-242,698,-228,-228",
    ),
    (
        "7m789p112233sWWWW",
        "7p",
        "self_draw",
        "W",
        "",
        "31-",
        "",
        "base=4",
        "wanshi:5 yaojiutou:2 peizizan:30 sipeizi:60|yadang|-412,-468,-412,1292",
    ),
    (
        "555678999m9pP",
        "7m",
        "self_draw",
        "5m",
        "pung:1m",
        "30-",
        "",
        "wild_self_draw_only=0",
        "fengpai:2 queyimen:5|yadang|-27,-13,-13,53",
    ),
    (
        "13999m789p33sPPPP",
        "3s",
        "self_draw",
        "P",
        "",
        "02-",
        "",
        "base=3",
        "wanshi:5 yaojiutou:2 peizizan:30 sipeizi:60|yadang|969,-309,-351,-309",
    ),
    (
        "8m999p3333s",
        "3s",
        "kong_draw",
        "3s",
        "pung:4s pung:3m",
        "23-",
        "",
        "wild_self_draw_only=0 discarder_pays_all=1",
        "gangshang_kaihua:5 yaojiutou:2 duiduihu:30 peizijia_peizi:120 sipeizi:60|yadang|-223,-223,683,-237",
    ),
    (
        "678m7777p1114677s",
        "7p",
        "kong_draw",
        "7p",
        "",
        "13-",
        "ready",
        "wild_self_draw_only=0",
        "gangshang_kaihua:5 wanshi:5 queyimen:5 yaojiutou:2 peizijia_peizi:120 sipeizi:60 dihu:30 baoting:60|yadang|-293,893,-293,-307",
    ),
    (
        "1333999p8888s",
        "8s",
        "self_draw",
        "8s",
        "concealed:2s",
        "01-",
        "ready",
        "wild_self_draw_only=0 discarder_pays_all=1",
        "angang:10 wanshi:5 queyimen:5 yaojiutou:2 duiduihu:30 peizijia_peizi:120 sipeizi:60 dihu:30 baoting:60|yadang|998,-342,-328,-328",
    ),
    (
        "4m1114444p567s",
        "1p",
        "kong_draw",
        "4p",
        "added:3s",
        "31-",
        "",
        "wild_self_draw_only=0",
        "minggang:5 gangshang_kaihua:5 yaojiutou:2 peizizan:30 sipeizi:60|yadang|-108,-122,-108,338",
    ),
    (
        "77m111222456pWWW",
        "6p",
        "self_draw",
        "W",
        "",
        "00-",
        "",
        "wild_self_draw_only=0",
        "wanshi:5 queyimen:5 yaojiutou:2 shuangpeijia:60|yadang|276,-92,-92,-92",
    ),
    (
        "44m111559999s",
        "9s",
        "kong_draw",
        "9s",
        "pung:6m",
        "03-",
        "",
        "wild_self_draw_only=0",
        "fengpai:2 gangshang_kaihua:5 queyimen:5 duiduihu:30 peizijia_peizi:120 sipeizi:60|yadang|698,-228,-228,-242",
    ),
    (
        "555999m999p3sCCCC",
        "9m",
        "self_draw",
        "C",
        "",
        "20-",
        "",
        "discarder_pays_all=1",
        "fengpai:2 wanshi:5 duiduihu:30 peizizan:30 sipeizi:60|yadang|-147,-133,413,-133",
    ),
    (
        "22m333456999p777s",
        "3p",
        "self_draw",
        "7s",
        "",
        "12-",
        "ready",
        "win_on_discarded_wild=1",
        "wanshi:5 queyimen:5 yaojiutou:2 shuangpeijia:60 dihu:30 baoting:60|yadang|-168,518,-182,-168",
    ),
    (
        "11188sEECCCC",
        "8s",
        "kong_draw",
        "C",
        "added:2s",
        "00-",
        "ready heavenly",
        "",
        "fengpai:4 minggang:5 gangshang_kaihua:5 hunyise:30 duiduihu:30 shuangpeijia:60 sipeizi:60 baoting:60|yadang|822,-274,-274,-274",
    ),
    (
        "1111237mPPPP",
        "7m",
        "kong_draw",
        "P",
        "exposed:7p",
        "10-",
        "",
        "",
        "minggang:5 gangshang_kaihua:5 queyimen:5 yaojiutou:2 an_sihuo:10 shuangpeijia:60 sipeizi:60|yadang|-167,473,-153,-153",
    ),
    (
        "123p23sWWNNNN",
        "2p",
        "rob_kong",
        "N",
        "pung:3p",
        "330",
        "first",
        "wild_self_draw_only=0 win_on_discarded_wild=1",
        "fengpai:2 qiangganghu:5 queyimen:5 ming_sihuo:5 sipeizi:60|yadang|-87,-87,-87,261",
    ),
    (
        "3777889pWWWWCCC",
        "3p",
        "kong_draw",
        "W",
        "",
        "03-",
        "",
        "win_on_discarded_wild=1",
        "fengpai:2 gangshang_kaihua:5 wanshi:5 hunyise:30 duiduihu:30 shuangpeijia:60 sipeizi:60|yadang|608,-198,-198,-212",
    ),
    (
        "55559m",
        "5m",
        "self_draw",
        "5m",
        "pung:8s pung:5s exposed:3m",
        "01-",
        "",
        "",
        "fengpai:2 minggang:5 queyimen:5 duiduihu:30 peizijia_peizi:120 sipeizi:60|yadang|698,-242,-228,-228",
    ),
    (
        "2246pSSSS",
        "4p",
        "self_draw",
        "S",
        "exposed:7p pung:4p",
        "00-",
        "ready",
        "",
        "minggang:5 duanyao:5 ming_sihuo:5 duiduihu:30 qingyise:60 shuangpeijia:60 sipeizi:60 baoting:60|yadang|915,-305,-305,-305",
    ),
    (
        "6667779sPPPP",
        "6s",
        "kong_draw",
        "P",
        "pung:9p",
        "10-",
        "",
        "discarder_pays_all=1 base=4",
        "fengpai:2 gangshang_kaihua:5 queyimen:5 duiduihu:30 shuangpeijia:60 sipeizi:60|yadang|-728,2072,-672,-672",
    ),
    (
        "6m666pE",
        "6p",
        "self_draw",
        "6p",
        "pung:1s exposed:8s pung:5m",
        "20-",
        "first",
        "discarder_pays_all=1",
        "fengpai:2 minggang:5 queyimen:5 duiduihu:30|yadang|-62,-48,158,-48",
    ),
    (
        "444999p234sSSFFF",
        "4p",
        "self_draw",
        "9p",
        "",
        "10-",
        "",
        "",
        "fengpai:4 wanshi:5 queyimen:5 shuangpeijia:60|yadang|-94,254,-80,-80",
    ),
    (
        "89m7777p456999sWW",
        "7p",
        "kong_draw",
        "7p",
        "",
        "30-",
        "",
        "",
        "fengpai:2 gangshang_kaihua:5 wanshi:5 queyimen:5 yaojiutou:2 peizijia_peizi:120 sipeizi:60|yadang|-219,-205,-205,629",
    ),
    (
        "89m33555p5sSSFFFF",
        "5s",
        "rob_kong",
        "F",
        "",
        "203",
        "",
        "wild_self_draw_only=0 base=4",
        "fengpai:2 qiangganghu:5 sipeizi:60|yadang|-308,-284,876,-284",
    ),
    (
        "22456m111123p444s",
        "4s",
        "self_draw",
        "1p",
        "",
        "10-",
        "ready",
        "wild_self_draw_only=0 win_on_discarded_wild=1",
        "duanyao:5 wanshi:5 shuangpeijia:60 sipeizi:60 dihu:30 baoting:60|yadang|-240,692,-226,-226",
    ),
    (
        "11123m567sFFFPPP",
        "1m",
        "kong_draw",
        "P",
        "",
        "33-",
        "",
        "",
        "fengpai:4 gangshang_kaihua:5 wanshi:5 queyimen:5 yaojiutou:2 peizizan:30|yadang|-71,-71,-71,213",
    ),
    (
        "56777888999sPPP",
        "7s",
        "kong_draw",
        "P",
        "",
        "21-",
        "",
        "win_on_discarded_wild=1",
        "gangshang_kaihua:5 wanshi:5 duiduihu:30 qingyise:60 shuangpeijia:60|yadang|-166,-180,512,-166",
    ),
    (
        "222344m33355567s",
        "5s",
        "kong_draw",
        "3s",
        "",
        "30-",
        "ready",
        "wild_self_draw_only=0 base=3",
        "gangshang_kaihua:5 duanyao:5 wanshi:5 queyimen:5 dihu:30 baoting:60|yadang|-390,-348,-348,1086",
    ),
    (
        "99m33p123555sPPPP",
        "P",
        "self_draw",
        "P",
        "",
        "00-",
        "ready heavenly",
        "win_on_discarded_wild=1 discarder_pays_all=1 base=3",
        "fengpai:2 wanshi:5 yaojiutou:2 peizijia_peizi:120 sipeizi:60 tianhu:60 baoting:60|yadang|2961,-987,-987,-987",
    ),
    (
        "333m344p11s",
        "3m",
        "kong_draw",
        "3m",
        "added:P pung:7m",
        "01-",
        "",
        "wild_self_draw_only=0",
        "fengpai:2 minggang:5 gangshang_kaihua:5 duiduihu:30|yadang|158,-62,-48,-48",
    ),
    (
        "566m11456777pSSS",
        "S",
        "kong_draw",
        "S",
        "",
        "10-",
        "",
        "wild_self_draw_only=0 discarder_pays_all=1",
        "gangshang_kaihua:5 wanshi:5 queyimen:5 yaojiutou:2|yadang|-37,83,-23,-23",
    ),
    (
        "EEEEWWWPPPP",
        "E",
        "kong_draw",
        "P",
        "pung:9p",
        "20-",
        "",
        "",
        "fengpai:6 gangshang_kaihua:5 an_sihuo:10 hunyise:30 duiduihu:30 peizizan:30 sipeizi:60|yadang|-191,-177,545,-177",
    ),
    (
        "22m1111p3sE",
        "E",
        "self_draw",
        "1p",
        "pung:2p pung:9p",
        "30-",
        "",
        "win_on_discarded_wild=1",
        "fengpai:2 duiduihu:30 peizizan:30 sipeizi:60|yadang|-142,-128,-128,398",
    ),
    (
        "223m2224444p6s",
        "2m",
        "discard",
        "4p",
        "added:C",
        "103",
        "ready",
        "wild_self_draw_only=0 win_on_discarded_wild=1",
        "fengpai:2 minggang:5 duiduihu:30 sipeizi:60 dihu:30 baoting:30|yadang|-167,489,-161,-161",
    ),
    (
        "11334456789999m",
        "1m",
        "rob_kong",
        "9m",
        "",
        "233",
        "",
        "wild_self_draw_only=0",
        "qiangganghu:5 yaojiutou:2 tongtian:30 qingyise:60 sipeizi:60|yadang|-161,-161,489,-167",
    ),
    (
        "56p555s",
        "5p",
        "self_draw",
        "5s",
        "pung:9m pung:9s pung:4m",
        "03-",
        "",
        "discarder_pays_all=1",
        "duiduihu:30 peizizan:30|yadang|212,-66,-66,-80",
    ),
    (
        "EEPPP",
        "P",
        "self_draw",
        "P",
        "concealed:2m concealed:6m added:N",
        "00-",
        "",
        "wild_self_draw_only=0",
        "fengpai:4 minggang:5 angang:20 hunyise:30 duiduihu:30 peizijia_peizi:120|yadang|687,-229,-229,-229",
    ),
    (
        "22455666678pFFF",
        "6p",
        "self_draw",
        "F",
        "",
        "22-",
        "",
        "wild_self_draw_only=0",
        "duanyao:5 wanshi:5 an_sihuo:10 qingyise:60 shuangpeijia:60|yadang|-160,-160,480,-160",
    ),
    (
        "11123356666mSSS",
        "3m",
        "self_draw",
        "6m",
        "",
        "10-",
        "",
        "",
        "fengpai:2 wanshi:5 hunyise:30 duiduihu:30 shuangpeijia:60 sipeizi:60|yadang|-207,593,-193,-193",
    ),
    (
        "1114466999pS",
        "1p",
        "kong_draw",
        "1p",
        "pung:7m",
        "30-",
        "",
        "",
        "gangshang_kaihua:5 queyimen:5 duiduihu:30|yadang|-60,-46,-46,152",
    ),
    (
        "4444pF",
        "4p",
        "self_draw",
        "4p",
        "pung:1p concealed:2m pung:C",
        "00-",
        "first",
        "wild_self_draw_only=0",
        "fengpai:4 angang:10 queyimen:5 duiduihu:30 peizijia_peizi:120 sipeizi:60|yadang|747,-249,-249,-249",
    ),
    (
        "777m33p",
        "7m",
        "kong_draw",
        "7m",
        "pung:4p pung:2p pung:6s",
        "20-",
        "ready",
        "discarder_pays_all=1",
        "gangshang_kaihua:5 duanyao:5 queyimen:5 duiduihu:30 peizijia_peizi:120 dihu:30 baoting:60|yadang|-275,-261,797,-261",
    ),
    (
        "11233345689sPPP",
        "P",
        "kong_draw",
        "P",
        "",
        "31-",
        "",
        "win_on_discarded_wild=1",
        "gangshang_kaihua:5 wanshi:5 yaojiutou:2 tongtian:30 qingyise:60|yadang|-108,-122,-108,338",
    ),
    (
        "111223334m11sPPP",
        "3m",
        "kong_draw",
        "P",
        "",
        "00-",
        "",
        "wild_self_draw_only=0 discarder_pays_all=1 base=3",
        "gangshang_kaihua:5 wanshi:5 queyimen:5 yaojiutou:2 duiduihu:30 shuangpeijia:60|yadang|1143,-381,-381,-381",
    ),
    (
        "22228sNNNCCFFFF",
        "2s",
        "kong_draw",
        "2s",
        "",
        "03-",
        "",
        "",
        "fengpai:8 gangshang_kaihua:5 wanshi:5 an_sihuo:10 hunyise:30 duiduihu:30 sipeizi:60|yadang|476,-154,-154,-168",
    ),
    (
        "99m456999p2222sFF",
        "5p",
        "discard",
        "2s",
        "",
        "300",
        "",
        "wild_self_draw_only=0",
        "fengpai:4 queyimen:5 yaojiutou:2 sipeizi:60|yadang|-81,-75,-75,231",
    ),
    (
        "4777m5p",
        "7m",
        "self_draw",
        "7m",
        "pung:2m pung:2p pung:4m",
        "22-",
        "ready",
        "wild_self_draw_only=0",
        "duanyao:5 queyimen:5 ming_sihuo:5 duiduihu:30 baoting:60|yadang|-125,-125,375,-125",
    ),
    (
        "58pNNN",
        "8p",
        "self_draw",
        "N",
        "pung:4m added:9p pung:3p",
        "20-",
        "",
        "",
        "minggang:5 queyimen:5 duiduihu:30 peizizan:30|yadang|-90,-76,242,-76",
    ),
    (
        "12355567p345sCCC",
        "4s",
        "kong_draw",
        "C",
        "",
        "11-",
        "ready",
        "win_on_discarded_wild=1",
        "gangshang_kaihua:5 wanshi:5 queyimen:5 tongtian:30 shuangpeijia:60 baoting:60|yadang|-185,555,-185,-185",
    ),
    (
        "567m2pCCCC",
        "C",
        "kong_draw",
        "C",
        "exposed:F added:8m",
        "01-",
        "heavenly",
        "base=2",
        "fengpai:4 minggang:10 gangshang_kaihua:5 queyimen:5 peizijia_peizi:120 sipeizi:60|yadang|1288,-448,-420,-420",
    ),
    (
        "5m2333s",
        "5m",
        "self_draw",
        "3s",
        "pung:2p exposed:3p pung:7p",
        "23-",
        "",
        "",
        "minggang:5 duanyao:5 duiduihu:30 peizizan:30|yadang|-76,-76,242,-90",
    ),
    (
        "7m3444488p555s",
        "7m",
        "self_draw",
        "5s",
        "pung:3m",
        "30-",
        "",
        "",
        "duanyao:5 queyimen:5 an_sihuo:10 shuangpeijia:60|yadang|-100,-86,-86,272",
    ),
    (
        "57mPPP",
        "5m",
        "self_draw",
        "P",
        "concealed:S pung:5p pung:6s",
        "10-",
        "",
        "win_on_discarded_wild=1",
        "fengpai:2 angang:10 duiduihu:30 peizizan:30|yadang|-92,248,-78,-78",
    ),
    (
        "2227m33345p33s",
        "7m",
        "self_draw",
        "2m",
        "pung:W",
        "30-",
        "ready",
        "wild_self_draw_only=0",
        "fengpai:2 shuangpeijia:60 dihu:30 baoting:60|yadang|-172,-158,-158,488",
    ),
    (
        "1237777p99sNFFPP",
        "F",
        "kong_draw",
        "7p",
        "",
        "03-",
        "",
        "",
        "fengpai:6 gangshang_kaihua:5 wanshi:5 queyimen:5 yaojiutou:2 sipeizi:60|pinghu|272,-87,-87,-98",
    ),
    (
        "EEWWWWFF",
        "E",
        "kong_draw",
        "W",
        "concealed:N pung:S",
        "30-",
        "ready first",
        "wild_self_draw_only=0 discarder_pays_all=1",
        "fengpai:8 angang:10 gangshang_kaihua:5 duiduihu:30 peizizan:30 sipeizi:60 dihu:30 fengyise:120 baoting:60|yadang|-373,-359,-359,1091",
    ),
    (
        "555678sWWPPP",
        "5s",
        "self_draw",
        "P",
        "pung:8m",
        "20-",
        "",
        "",
        "fengpai:2 queyimen:5 shuangpeijia:60|yadang|-87,-73,233,-73",
    ),
    (
        "666pSS",
        "6p",
        "kong_draw",
        "6p",
        "pung:4m pung:3m pung:3s",
        "20-",
        "",
        "",
        "fengpai:2 gangshang_kaihua:5 queyimen:5 duiduihu:30 peizijia_peizi:120|yadang|-182,-168,518,-168",
    ),
    (
        "89p66sCCCPPPP",
        "8p",
        "self_draw",
        "P",
        "pung:2p",
        "00-",
        "first",
        "wild_self_draw_only=0 discarder_pays_all=1",
        "fengpai:2 queyimen:5 duiduihu:30 shuangpeijia:60 sipeizi:60|yadang|531,-177,-177,-177",
    ),
    (
        "4444m5566667789s",
        "5s",
        "kong_draw",
        "4m",
        "",
        "20-",
        "",
        "win_on_discarded_wild=1 discarder_pays_all=1 base=2",
        "gangshang_kaihua:5 wanshi:5 an_sihuo:10 tongtian:30 qingyise:60 shuangpeijia:60 sipeizi:60|yadang|-500,-472,1444,-472",
    ),
    (
        "11789p444567sPPP",
        "4s",
        "kong_draw",
        "P",
        "",
        "30-",
        "ready",
        "",
        "fengpai:2 gangshang_kaihua:5 wanshi:5 queyimen:5 yaojiutou:2 shuangpeijia:60 dihu:30 baoting:60|yadang|-189,-175,-175,539",
    ),
    (
        "245pCCPPP",
        "5p",
        "self_draw",
        "P",
        "pung:N added:9s",
        "10-",
        "heavenly",
        "wild_self_draw_only=0",
        "fengpai:4 minggang:5 queyimen:5 shuangpeijia:60|yadang|-94,254,-80,-80",
    ),
    (
        "67m335555pSSSWPP",
        "3p",
        "kong_draw",
        "5p",
        "",
        "12-",
        "first",
        "",
        "fengpai:6 gangshang_kaihua:5 wanshi:5 queyimen:5 sipeizi:60|yadang|-87,275,-101,-87",
    ),
    (
        "222244556m456p2sW",
        "2m",
        "self_draw",
        "2m",
        "",
        "10-",
        "heavenly",
        "",
        "fengpai:2 wanshi:5 sipeizi:60|yadang|-87,233,-73,-73",
    ),
    (
        "56m677778pPPP",
        "7p",
        "self_draw",
        "7p",
        "pung:2p",
        "30-",
        "heavenly",
        "wild_self_draw_only=0 base=5",
        "duanyao:5 queyimen:5 peizijia_peizi:120 sipeizi:60|yadang|-1050,-980,-980,3010",
    ),
    (
        "2233499m999p1111s",
        "9p",
        "self_draw",
        "1s",
        "",
        "00-",
        "",
        "wild_self_draw_only=0 discarder_pays_all=1",
        "wanshi:5 queyimen:5 yaojiutou:2 duiduihu:30 peizizan:30 sipeizi:60|yadang|456,-152,-152,-152",
    ),
    (
        "44pPPP",
        "4p",
        "discard",
        "P",
        "pung:3p added:9m pung:E",
        "200",
        "",
        "wild_self_draw_only=0 discarder_pays_all=1",
        "fengpai:4 minggang:5 queyimen:5 duiduihu:30|yadang|-150,0,150,0",
    ),
    (
        "1244488pP",
        "4p",
        "kong_draw",
        "4p",
        "concealed:6s concealed:E",
        "20-",
        "",
        "wild_self_draw_only=0 win_on_discarded_wild=1",
        "fengpai:4 angang:20 gangshang_kaihua:5 wanshi:5 queyimen:5|yadang|-59,-45,149,-45",
    ),
    (
        "444pEE",
        "4p",
        "kong_draw",
        "4p",
        "pung:N pung:C pung:8m",
        "11-",
        "heavenly",
        "wild_self_draw_only=0 discarder_pays_all=1",
        "fengpai:6 gangshang_kaihua:5 hunyise:30 duiduihu:30 peizijia_peizi:120|yadang|-211,633,-211,-211",
    ),
    (
        "111456m234sFFFFP",
        "1m",
        "kong_draw",
        "F",
        "",
        "00-",
        "",
        "",
        "fengpai:2 gangshang_kaihua:5 wanshi:5 queyimen:5 yaojiutou:2 peizizan:30 sipeizi:60|yadang|387,-129,-129,-129",
    ),
    (
        "8888m45556p7sPPPP",
        "P",
        "self_draw",
        "8m",
        "",
        "00-",
        "first",
        "",
        "duanyao:5 wanshi:5 queyimen:5 an_sihuo:10 peizizan:30 sipeizi:60|yadang|405,-135,-135,-135",
    ),
    (
        "111mSS",
        "S",
        "rob_kong",
        "1m",
        "pung:6p pung:P pung:W",
        "311",
        "",
        "wild_self_draw_only=0 win_on_discarded_wild=1 discarder_pays_all=1",
        "fengpai:6 qiangganghu:5 hunyise:30 duiduihu:30|yadang|0,-231,0,231",
    ),
    (
        "25mFFF",
        "F",
        "kong_draw",
        "F",
        "pung:7m pung:4m pung:9s",
        "30-",
        "",
        "",
        "gangshang_kaihua:5 queyimen:5 duiduihu:30|yadang|-60,-46,-46,152",
    ),
    (
        "3338888p3448s",
        "8p",
        "self_draw",
        "8p",
        "pung:S",
        "00-",
        "",
        "wild_self_draw_only=0",
        "fengpai:2 queyimen:5 duiduihu:30 sipeizi:60|yadang|351,-117,-117,-117",
    ),
    (
        "111m56677778p456s",
        "1m",
        "self_draw",
        "1m",
        "",
        "30-",
        "",
        "",
        "duanyao:5 wanshi:5 queyimen:5 an_sihuo:10 peizijia_peizi:120|yadang|-165,-151,-151,467",
    ),
    (
        "5555m5667888999s",
        "8s",
        "self_draw",
        "5m",
        "",
        "23-",
        "",
        "win_on_discarded_wild=1 discarder_pays_all=1 base=5",
        "wanshi:5 duiduihu:30 qingyise:60 shuangpeijia:60 sipeizi:60|yadang|-1105,-1105,3385,-1175",
    ),
    (
        "4555m7777s",
        "7s",
        "self_draw",
        "7s",
        "pung:2p pung:1p",
        "20-",
        "",
        "discarder_pays_all=1 base=3",
        "fengpai:2 queyimen:5 duiduihu:30 peizijia_peizi:120 sipeizi:60|yadang|-711,-669,2049,-669",
    ),
    (
        "9m8sPPP",
        "P",
        "self_draw",
        "P",
        "pung:8m pung:N pung:6m",
        "30-",
        "",
        "wild_self_draw_only=0 base=2",
        "fengpai:2 queyimen:5 duiduihu:30|yadang|-114,-86,-86,286",
    ),
    (
        "2345567888m6666p",
        "6p",
        "self_draw",
        "6p",
        "",
        "12-",
        "",
        "",
        "wanshi:5 tongtian:30 qingyise:60 peizijia_peizi:120 sipeizi:60|yadang|-281,857,-295,-281",
    ),
    (
        "1222356666pEEEE",
        "E",
        "kong_draw",
        "E",
        "",
        "10-",
        "",
        "win_on_discarded_wild=1",
        "gangshang_kaihua:5 wanshi:5 an_sihuo:10 tongtian:30 qingyise:60 peizijia_peizi:120 sipeizi:60|yadang|-310,902,-296,-296",
    ),
    (
        "567m3455569sPPPP",
        "P",
        "self_draw",
        "P",
        "",
        "20-",
        "",
        "",
        "wanshi:5 queyimen:5 tongtian:30 sipeizi:60|yadang|-120,-106,332,-106",
    ),
    (
        "666p336668sEE",
        "3s",
        "self_draw",
        "6s",
        "pung:8s",
        "30-",
        "",
        "win_on_discarded_wild=1",
        "fengpai:2 queyimen:5 ming_sihuo:5 duiduihu:30|yadang|-62,-48,-48,158",
    ),
    (
        "111233355567sPP",
        "5s",
        "self_draw",
        "1s",
        "",
        "31-",
        "",
        "",
        "wanshi:5 qingyise:60 peizizan:30|yadang|-101,-115,-101,317",
    ),
    (
        "666mSS",
        "6m",
        "self_draw",
        "6m",
        "exposed:6p pung:1p pung:2p",
        "10-",
        "",
        "wild_self_draw_only=0 win_on_discarded_wild=1 base=3",
        "fengpai:2 minggang:5 hunyise:30 duiduihu:30 peizijia_peizi:120|yadang|-621,1779,-579,-579",
    ),
    (
        "23m11p22244455sPP",
        "3m",
        "kong_draw",
        "2s",
        "",
        "33-",
        "",
        "win_on_discarded_wild=1 discarder_pays_all=1",
        "fengpai:2 gangshang_kaihua:5 wanshi:5 yaojiutou:2|yadang|-34,-34,-34,102",
    ),
    (
        "333888m56788p",
        "8m",
        "self_draw",
        "8m",
        "pung:1p",
        "30-",
        "first",
        "",
        "fengpai:2 queyimen:5 peizijia_peizi:120|yadang|-147,-133,-133,413",
    ),
    (
        "223466m1111333sP",
        "3m",
        "self_draw",
        "1s",
        "",
        "20-",
        "",
        "",
        "fengpai:2 wanshi:5 queyimen:5 sipeizi:60|yadang|-92,-78,248,-78",
    ),
    (
        "4888m35p999sCCCCF",
        "C",
        "self_draw",
        "C",
        "",
        "20-",
        "",
        "wild_self_draw_only=0 base=3",
        "fengpai:2 wanshi:5 sipeizi:60|yadang|-261,-219,699,-219",
    ),
    (
        "9999m114p2s",
        "1p",
        "kong_draw",
        "9m",
        "concealed:E pung:7m",
        "33-",
        "ready",
        "wild_self_draw_only=0 base=2",
        "fengpai:2 angang:10 gangshang_kaihua:5 yaojiutou:2 duiduihu:30 sipeizi:60 baoting:60|yadang|-378,-378,-378,1134",
    ),
    (
        "333m12356667788p",
        "8p",
        "self_draw",
        "3m",
        "",
        "30-",
        "",
        "wild_self_draw_only=0 discarder_pays_all=1",
        "wanshi:5 tongtian:30 qingyise:60 shuangpeijia:60|yadang|-175,-161,-161,497",
    ),
    (
        "456m333444477pPP",
        "4p",
        "self_draw",
        "4p",
        "",
        "00-",
        "",
        "wild_self_draw_only=0 win_on_discarded_wild=1 base=5",
        "duanyao:5 wanshi:5 queyimen:5 peizijia_peizi:120 sipeizi:60|yadang|3225,-1075,-1075,-1075",
    ),
    (
        "6666999m66p9sSWWW",
        "W",
        "self_draw",
        "6m",
        "",
        "10-",
        "",
        "discarder_pays_all=1",
        "fengpai:4 wanshi:5 duiduihu:30 sipeizi:60|pinghu|-114,320,-103,-103",
    ),
    (
        "22234999m888p99sP",
        "9m",
        "kong_draw",
        "2m",
        "",
        "31-",
        "",
        "win_on_discarded_wild=1",
        "fengpai:2 gangshang_kaihua:5 wanshi:5 yaojiutou:2 peizizan:30|yadang|-50,-64,-50,164",
    ),
    (
        "33445568mCCC",
        "3m",
        "self_draw",
        "C",
        "exposed:1m",
        "03-",
        "heavenly",
        "win_on_discarded_wild=1 discarder_pays_all=1 base=5",
        "minggang:5 qingyise:60 peizizan:30|yadang|1585,-505,-505,-575",
    ),
    (
        "66677999m666679s",
        "6s",
        "self_draw",
        "6s",
        "",
        "00-",
        "",
        "win_on_discarded_wild=1",
        "wanshi:5 queyimen:5 duiduihu:30 peizijia_peizi:120 sipeizi:60|yadang|720,-240,-240,-240",
    ),
    (
        "11247777m111s",
        "7m",
        "self_draw",
        "1s",
        "pung:6m",
        "02-",
        "first",
        "wild_self_draw_only=0 discarder_pays_all=1 base=4",
        "yaojiutou:2 an_sihuo:10 qingyise:60 shuangpeijia:60|yadang|1712,-552,-608,-552",
    ),
    (
        "6666m1134577999s",
        "6m",
        "kong_draw",
        "6m",
        "",
        "23-",
        "",
        "",
        "gangshang_kaihua:5 wanshi:5 yaojiutou:2 qingyise:60 peizijia_peizi:120 sipeizi:60|yadang|-258,-258,788,-272",
    ),
    (
        "8mPPPP",
        "8m",
        "kong_draw",
        "P",
        "pung:6s pung:8s concealed:N",
        "10-",
        "",
        "",
        "fengpai:4 angang:10 gangshang_kaihua:5 queyimen:5 duiduihu:30 peizizan:30 sipeizi:60|yadang|-164,464,-150,-150",
    ),
    (
        "1sWWWPPPP",
        "P",
        "self_draw",
        "P",
        "pung:8m added:5s",
        "00-",
        "",
        "discarder_pays_all=1",
        "fengpai:4 minggang:5 queyimen:5 duiduihu:30 peizijia_peizi:120 sipeizi:60|yadang|732,-244,-244,-244",
    ),
    (
        "3678p5555s",
        "3p",
        "kong_draw",
        "5s",
        "pung:2p pung:9p",
        "33-",
        "",
        "base=3",
        "gangshang_kaihua:5 qingyise:60 peizizan:30 sipeizi:60|yadang|-525,-525,-525,1575",
    ),
    (
        "2223444566sCCCC",
        "2s",
        "discard",
        "C",
        "",
        "003",
        "",
        "wild_self_draw_only=0 discarder_pays_all=1 base=2",
        "duanyao:5 duiduihu:30 qingyise:60 sipeizi:60|pinghu|960,0,0,-960",
    ),
    (
        "22234456667pNNN",
        "N",
        "self_draw",
        "N",
        "",
        "23-",
        "ready",
        "",
        "duanyao:5 wanshi:5 qingyise:60 dihu:30 baoting:60|yadang|-166,-166,512,-180",
    ),
    (
        "999m44457778p",
        "5p",
        "self_draw",
        "9m",
        "exposed:3p",
        "30-",
        "",
        "",
        "minggang:5 duanyao:5 duiduihu:30 qingyise:60 shuangpeijia:60|yadang|-180,-166,-166,512",
    ),
    (
        "11112233447sPPP",
        "P",
        "kong_draw",
        "P",
        "",
        "30-",
        "ready",
        "wild_self_draw_only=0",
        "gangshang_kaihua:5 wanshi:5 yaojiutou:2 an_sihuo:10 qingyise:60 dihu:30 baoting:60|yadang|-192,-178,-178,548",
    ),
    (
        "777m888p4446sC",
        "4s",
        "kong_draw",
        "7m",
        "added:9m",
        "20-",
        "",
        "win_on_discarded_wild=1",
        "fengpai:2 minggang:5 gangshang_kaihua:5 duiduihu:30|pinghu|-57,-46,149,-46",
    ),
    (
        "777sSSCCCFFPPPP",
        "7s",
        "rob_kong",
        "7s",
        "",
        "103",
        "ready first",
        "wild_self_draw_only=0 win_on_discarded_wild=1 discarder_pays_all=1",
        "fengpai:8 qiangganghu:5 an_sihuo:10 duiduihu:30 dihu:30 fengyise:120 baoting:30|yadang|0,717,0,-717",
    ),
    (
        "2mWWWNNNN",
        "N",
        "kong_draw",
        "N",
        "added:7s pung:1p",
        "00-",
        "",
        "base=4",
        "fengpai:4 minggang:5 gangshang_kaihua:5 duiduihu:30 peizijia_peizi:120 sipeizi:60|yadang|2928,-976,-976,-976",
    ),
    (
        "EESSSWWNNNPPPP",
        "W",
        "self_draw",
        "P",
        "",
        "20-",
        "",
        "wild_self_draw_only=0",
        "fengpai:8 wanshi:5 duiduihu:30 peizizan:30 sipeizi:60 fengyise:120|yadang|-273,-259,791,-259",
    ),
    (
        "1777888999mP",
        "P",
        "self_draw",
        "8m",
        "pung:6s",
        "30-",
        "",
        "wild_self_draw_only=0 base=2",
        "fengpai:2 queyimen:5 duiduihu:30 peizizan:30|yadang|-174,-146,-146,466",
    ),
    (
        "4444sWWNCCPP",
        "W",
        "self_draw",
        "4s",
        "added:5s",
        "10-",
        "",
        "",
        "fengpai:6 minggang:5 hunyise:30 duiduihu:30 sipeizi:60|yadang|-151,425,-137,-137",
    ),
    (
        "3334555599mFFFF",
        "9m",
        "kong_draw",
        "F",
        "",
        "11-",
        "ready",
        "discarder_pays_all=1",
        "gangshang_kaihua:5 wanshi:5 yaojiutou:2 an_sihuo:10 duiduihu:30 qingyise:60 peizizan:30 sipeizi:60 baoting:60|yadang|-282,846,-282,-282",
    ),
    (
        "14444m99p33sEE",
        "9p",
        "kong_draw",
        "4m",
        "pung:5m",
        "10-",
        "",
        "base=2",
        "fengpai:2 gangshang_kaihua:5 yaojiutou:2 duiduihu:30 sipeizi:60|yadang|-238,658,-210,-210",
    ),
    (
        "5p5sCCC",
        "C",
        "self_draw",
        "C",
        "pung:7s pung:7m pung:9s",
        "31-",
        "",
        "win_on_discarded_wild=1",
        "duiduihu:30|yadang|-36,-50,-36,122",
    ),
    (
        "2888m6666pPPP",
        "6p",
        "kong_draw",
        "6p",
        "pung:4m",
        "00-",
        "ready",
        "win_on_discarded_wild=1 discarder_pays_all=1 base=3",
        "gangshang_kaihua:5 duanyao:5 duiduihu:30 qingyise:60 peizijia_peizi:120 sipeizi:60 baoting:60|yadang|3240,-1080,-1080,-1080",
    ),
    (
        "44mNNN",
        "N",
        "self_draw",
        "N",
        "pung:5p pung:P pung:3m",
        "22-",
        "",
        "",
        "fengpai:4 queyimen:5 duiduihu:30 peizijia_peizi:120|yadang|-179,-179,537,-179",
    ),
    (
        "34m4p88sSSSPPP",
        "4m",
        "discard",
        "S",
        "pung:1p",
        "102",
        "",
        "wild_self_draw_only=0 win_on_discarded_wild=1",
        "fengpai:2|yadang|-12,24,-6,-6",
    ),
    (
        "8999m67pWWWPP",
        "P",
        "kong_draw",
        "W",
        "pung:5p",
        "10-",
        "ready",
        "wild_self_draw_only=0 discarder_pays_all=1",
        "fengpai:2 gangshang_kaihua:5 queyimen:5 yaojiutou:2 dihu:30 baoting:60|pinghu|-119,335,-108,-108",
    ),
    (
        "117m33sPPP",
        "7m",
        "self_draw",
        "3s",
        "pung:1s pung:7m",
        "00-",
        "",
        "win_on_discarded_wild=1",
        "fengpai:2 queyimen:5 yaojiutou:2 ming_sihuo:5 duiduihu:30 shuangpeijia:60|yadang|372,-124,-124,-124",
    ),
    (
        "5556mWNNNPPP",
        "6m",
        "self_draw",
        "5m",
        "pung:3s",
        "10-",
        "first",
        "win_on_discarded_wild=1 base=2",
        "fengpai:6 queyimen:5 duiduihu:30 peizizan:30|yadang|-182,490,-154,-154",
    ),
    (
        "CCCFFFFPPPP",
        "P",
        "self_draw",
        "F",
        "concealed:E",
        "10-",
        "",
        "",
        "fengpai:8 angang:10 wanshi:5 an_sihuo:10 duiduihu:30 peizizan:30 sipeizi:60 fengyise:120|yadang|-293,851,-279,-279",
    ),
    ("33789p7778sPP", "9p", "self_draw", "7s", "pung:4m", "20-", "", "", "fengpai:2|pinghu|-17,-6,29,-6"),
    (
        "11789m33556779sP",
        "7s",
        "self_draw",
        "3s",
        "",
        "10-",
        "",
        "base=4",
        "wanshi:5 queyimen:5 yaojiutou:2|yadang|-128,272,-72,-72",
    ),
    (
        "334566m88p33sP",
        "6m",
        "kong_draw",
        "3m",
        "pung:6s",
        "30-",
        "",
        "discarder_pays_all=1",
        "gangshang_kaihua:5 duanyao:5|yadang|-30,-16,-16,62",
    ),
    (
        "1235556677pP",
        "6p",
        "self_draw",
        "7p",
        "pung:F",
        "23-",
        "ready",
        "",
        "fengpai:4 hunyise:30 shuangpeijia:60 dihu:30 baoting:60|yadang|-190,-190,584,-204",
    ),
    (
        "338888mESSFFFPP",
        "8m",
        "kong_draw",
        "8m",
        "",
        "00-",
        "",
        "wild_self_draw_only=0 discarder_pays_all=1 base=2",
        "fengpai:6 gangshang_kaihua:5 wanshi:5 hunyise:30 duiduihu:30 sipeizi:60|yadang|936,-312,-312,-312",
    ),
    (
        "2334457788999mP",
        "5m",
        "self_draw",
        "9m",
        "",
        "31-",
        "",
        "discarder_pays_all=1",
        "wanshi:5 qingyise:60 peizizan:30|yadang|-101,-115,-101,317",
    ),
    (
        "55577m33334455pP",
        "3p",
        "kong_draw",
        "3p",
        "",
        "30-",
        "",
        "win_on_discarded_wild=1 base=2",
        "gangshang_kaihua:5 duanyao:5 wanshi:5 queyimen:5 duiduihu:30 peizijia_peizi:120 sipeizi:60|yadang|-500,-472,-472,1444",
    ),
    (
        "555678p66sNNP",
        "8p",
        "kong_draw",
        "8p",
        "pung:E",
        "30-",
        "",
        "discarder_pays_all=1",
        "fengpai:4 gangshang_kaihua:5 queyimen:5|pinghu|-29,-18,-18,65",
    ),
    (
        "SWWWNNCCFFFPPP",
        "N",
        "self_draw",
        "S",
        "",
        "22-",
        "ready heavenly",
        "discarder_pays_all=1 base=4",
        "fengpai:8 wanshi:5 duiduihu:30 tianhu:60 fengyise:120 baoting:60|yadang|-1212,-1212,3636,-1212",
    ),
    (
        "1134567sSSSSPPP",
        "7s",
        "kong_draw",
        "S",
        "",
        "20-",
        "",
        "wild_self_draw_only=0 win_on_discarded_wild=1 base=5",
        "gangshang_kaihua:5 wanshi:5 yaojiutou:2 tongtian:30 qingyise:60 shuangpeijia:60 sipeizi:60|yadang|-1210,-1140,3490,-1140",
    ),
    (
        "123m55p345789sPPP",
        "5p",
        "kong_draw",
        "8p",
        "",
        "33-",
        "",
        "win_on_discarded_wild=1",
        "fengpai:2 gangshang_kaihua:5 wanshi:5 wupeizi:4|yadang|-36,-36,-36,108",
    ),
    (
        "WNNCCCCFFFP",
        "C",
        "kong_draw",
        "C",
        "pung:1s",
        "20-",
        "ready",
        "wild_self_draw_only=0 win_on_discarded_wild=1",
        "fengpai:6 gangshang_kaihua:5 hunyise:30 duiduihu:30 sipeizi:60 dihu:30 baoting:60|yadang|-241,-227,695,-227",
    ),
    (
        "44p79sSSNNPPP",
        "P",
        "kong_draw",
        "S",
        "exposed:E",
        "20-",
        "",
        "",
        "fengpai:6 minggang:5 gangshang_kaihua:5 queyimen:5|pinghu|-36,-25,86,-25",
    ),
    (
        "455sSSSSFFPP",
        "5s",
        "rob_kong",
        "S",
        "exposed:E",
        "321",
        "",
        "wild_self_draw_only=0",
        "fengpai:6 minggang:5 qiangganghu:5 hunyise:30 duiduihu:30 sipeizi:60|yadang|-140,-140,-146,426",
    ),
    (
        "9999pWWWCCCFFFP",
        "W",
        "discard",
        "9p",
        "",
        "102",
        "",
        "wild_self_draw_only=0 win_on_discarded_wild=1",
        "fengpai:8 duiduihu:30 sipeizi:60 fengyise:120|yadang|-228,672,-222,-222",
    ),
    (
        "567m222347799sPP",
        "2s",
        "self_draw",
        "9s",
        "",
        "11-",
        "",
        "wild_self_draw_only=0 discarder_pays_all=1",
        "fengpai:2 wanshi:5 queyimen:5|yadang|-32,96,-32,-32",
    ),
    (
        "456pSSWWCCFFPPP",
        "S",
        "rob_kong",
        "F",
        "",
        "200",
        "",
        "wild_self_draw_only=0",
        "fengpai:6 qiangganghu:5 hunyise:30|yadang|-51,-45,141,-45",
    ),
    (
        "23447888sWWWWPP",
        "4s",
        "kong_draw",
        "W",
        "",
        "10-",
        "",
        "wild_self_draw_only=0",
        "gangshang_kaihua:5 wanshi:5 qingyise:60 shuangpeijia:60 sipeizi:60|yadang|-210,602,-196,-196",
    ),
    (
        "3pP",
        "3p",
        "kong_draw",
        "3p",
        "pung:3s added:E pung:1m added:4s",
        "00-",
        "",
        "win_on_discarded_wild=1",
        "fengpai:2 minggang:10 gangshang_kaihua:5 queyimen:5 duiduihu:30|yadang|216,-72,-72,-72",
    ),
    (
        "22p777sENNNPP",
        "N",
        "kong_draw",
        "2p",
        "pung:S",
        "20-",
        "",
        "wild_self_draw_only=0",
        "fengpai:6 gangshang_kaihua:5 hunyise:30 duiduihu:30|pinghu|-86,-75,236,-75",
    ),
    (
        "33pSSSNNNCCPPPP",
        "C",
        "discard",
        "3p",
        "",
        "300",
        "",
        "wild_self_draw_only=0",
        "fengpai:8 an_sihuo:10 duiduihu:30 fengyise:120|yadang|-178,-172,-172,522",
    ),
    (
        "888m5555sSSSNPPP",
        "P",
        "kong_draw",
        "5s",
        "",
        "01-",
        "",
        "wild_self_draw_only=0",
        "fengpai:6 gangshang_kaihua:5 wanshi:5 hunyise:30 duiduihu:30 peizizan:30 sipeizi:60|yadang|530,-186,-172,-172",
    ),
    (
        "334556p1179sPPPP",
        "9s",
        "discard",
        "5p",
        "",
        "103",
        "",
        "wild_self_draw_only=0",
        "fengpai:2 queyimen:5 yaojiutou:2 an_sihuo:10|pinghu|-24,66,-21,-21",
    ),
    (
        "234455557777pPP",
        "7p",
        "kong_draw",
        "7p",
        "",
        "23-",
        "",
        "",
        "gangshang_kaihua:5 duanyao:5 wanshi:5 an_sihuo:10 qingyise:60 peizijia_peizi:120 sipeizi:60|yadang|-271,-271,827,-285",
    ),
    (
        "5555pSSSNNCCCCP",
        "N",
        "discard",
        "5p",
        "",
        "031",
        "",
        "wild_self_draw_only=0",
        "fengpai:8 an_sihuo:10 duiduihu:30 sipeizi:60 fengyise:120|yadang|702,-232,-232,-238",
    ),
    (
        "PP",
        "P",
        "discard",
        "P",
        "pung:9m pung:7m pung:9p pung:6p",
        "201",
        "",
        "win_on_discarded_wild=1 base=3",
        "wild_self_draw_only",
    ),
    ("444566788899pSS", "9p", "discard", "S", "", "300", "", "base=4", "wild_self_draw_only"),
    ("1245m77sSSSSN", "S", "rob_kong", "S", "pung:8m", "311", "", "discarder_pays_all=1 base=3", "discarded_wild"),
    (
        "11122234677888m",
        "8m",
        "rob_kong",
        "2m",
        "",
        "210",
        "ready first",
        "win_on_discarded_wild=1",
        "wild_self_draw_only",
    ),
    ("567m45789p3333sWN", "5p", "rob_kong", "3s", "", "021", "heavenly", "base=5", "wild_self_draw_only"),
    (
        "123m22p5667778sCC",
        "7s",
        "rob_kong",
        "C",
        "",
        "201",
        "ready heavenly",
        "win_on_discarded_wild=1 discarder_pays_all=1 base=5",
        "wild_self_draw_only",
    ),
    ("344455669999sPP", "9s", "rob_kong", "6s", "", "012", "", "base=5", "wild_self_draw_only"),
    (
        "1m56778sNN",
        "5s",
        "rob_kong",
        "1m",
        "added:6m pung:S",
        "120",
        "",
        "win_on_discarded_wild=1 discarder_pays_all=1",
        "wild_self_draw_only",
    ),
    ("4444m12366799pCC", "7p", "rob_kong", "4m", "", "301", "", "discarder_pays_all=1", "wild_self_draw_only"),
    ("45m24444p2777sNNP", "7s", "rob_kong", "4p", "", "002", "", "", "wild_self_draw_only"),
    ("2388m1111667789p", "6p", "rob_kong", "1p", "", "123", "", "base=5", "wild_self_draw_only"),
    (
        "56m22p145sEEEE",
        "2p",
        "rob_kong",
        "E",
        "pung:8m",
        "100",
        "first",
        "win_on_discarded_wild=1",
        "wild_self_draw_only",
    ),
    ("444m23344567888s", "4s", "discard", "4m", "", "002", "", "discarder_pays_all=1", "wild_self_draw_only"),
    ("112346mSSSFFPPP", "4m", "discard", "S", "", "201", "heavenly", "", "wild_self_draw_only"),
    (
        "NN",
        "N",
        "rob_kong",
        "N",
        "pung:7s pung:2p pung:6p pung:P",
        "100",
        "ready",
        "wild_self_draw_only=0 discarder_pays_all=1",
        "discarded_wild",
    ),
    (
        "1112223678pEEEP",
        "3p",
        "self_draw",
        "P",
        "",
        "32-",
        "",
        "base=3",
        "fengpai:2 wanshi:5 yaojiutou:2 hunyise:30 peizizan:30|yadang|-225,-225,-267,717",
    ),
    (
        "2334455566777pP",
        "7p",
        "self_draw",
        "P",
        "",
        "30-",
        "",
        "wild_self_draw_only=0",
        "duanyao:5 wanshi:5 qingyise:60 peizizan:30|yadang|-120,-106,-106,332",
    ),
    (
        "234p11123344445s",
        "2p",
        "self_draw",
        "9s",
        "",
        "01-",
        "",
        "discarder_pays_all=1",
        "wanshi:5 queyimen:5 yaojiutou:2 an_sihuo:10 wupeizi:4|pinghu|101,-41,-30,-30",
    ),
    (
        "PP",
        "P",
        "kong_draw",
        "P",
        "pung:2m concealed:9p pung:2p added:7p",
        "21-",
        "",
        "win_on_discarded_wild=1",
        "minggang:5 angang:10 gangshang_kaihua:5 queyimen:5 duiduihu:30 peizizan_peizi:60|yadang|-121,-135,377,-121",
    ),
    (
        "99s",
        "9s",
        "self_draw",
        "9s",
        "pung:3m pung:6m pung:2m exposed:S",
        "32-",
        "",
        "wild_self_draw_only=0 win_on_discarded_wild=1 base=4",
        "fengpai:2 minggang:5 hunyise:30 duiduihu:30 peizizan_peizi:60|yadang|-532,-532,-588,1652",
    ),
    (
        "4445555sP",
        "5s",
        "kong_draw",
        "P",
        "pung:3p exposed:6s",
        "13-",
        "",
        "win_on_discarded_wild=1",
        "minggang:5 gangshang_kaihua:5 duanyao:5 queyimen:5 an_sihuo:10 duiduihu:30 peizizan:30|yadang|-96,302,-96,-110",
    ),
    (
        "123p45555666888s",
        "5s",
        "self_draw",
        "9m",
        "",
        "03-",
        "",
        "",
        "wanshi:5 queyimen:5 an_sihuo:10 wupeizi:4|yadang|104,-30,-30,-44",
    ),
    ("2233789m4s", "3m", "self_draw", "4s", "pung:4m pung:6p", "20-", "", "", "queyimen:5|yadang|-25,-11,47,-11"),
    (
        "499m345p567789sEE",
        "9m",
        "self_draw",
        "4m",
        "",
        "13-",
        "",
        "wild_self_draw_only=0 win_on_discarded_wild=1",
        "fengpai:2 wanshi:5 yaojiutou:2|yadang|-15,59,-15,-29",
    ),
    (
        "9p55577888sEE",
        "8s",
        "kong_draw",
        "E",
        "pung:5p",
        "00-",
        "",
        "wild_self_draw_only=0 win_on_discarded_wild=1 discarder_pays_all=1",
        "gangshang_kaihua:5 queyimen:5 duiduihu:30|pinghu|165,-55,-55,-55",
    ),
    (
        "4455667789m8s",
        "5m",
        "kong_draw",
        "8s",
        "pung:4p",
        "21-",
        "first",
        "",
        "gangshang_kaihua:5 queyimen:5|yadang|-16,-30,62,-16",
    ),
    (
        "99p",
        "9p",
        "self_draw",
        "9p",
        "pung:5p pung:C pung:5s exposed:6m",
        "10-",
        "",
        "win_on_discarded_wild=1",
        "fengpai:2 minggang:5 duiduihu:30 peizizan_peizi:60|yadang|-117,323,-103,-103",
    ),
    (
        "4p1112345566788s",
        "7s",
        "discard",
        "4p",
        "",
        "100",
        "",
        "wild_self_draw_only=0",
        "qingyise:60|yadang|-70,198,-64,-64",
    ),
    (
        "7999pSSPP",
        "P",
        "kong_draw",
        "P",
        "pung:6m pung:9m",
        "00-",
        "first",
        "win_on_discarded_wild=1 base=5",
        "fengpai:2 gangshang_kaihua:5 queyimen:5 duiduihu:30|yadang|930,-310,-310,-310",
    ),
    (
        "11123456m24p44sPP",
        "4s",
        "kong_draw",
        "P",
        "",
        "03-",
        "",
        "wild_self_draw_only=0",
        "gangshang_kaihua:5 wanshi:5|yadang|62,-16,-16,-30",
    ),
    (
        "77p",
        "7p",
        "self_draw",
        "7p",
        "pung:4m pung:3s pung:4s pung:8m",
        "13-",
        "",
        "",
        "duanyao:5 queyimen:5 duiduihu:30 peizizan_peizi:60|yadang|-106,332,-106,-120",
    ),
    (
        "PP",
        "P",
        "kong_draw",
        "P",
        "exposed:3m exposed:E pung:5s pung:4m",
        "31-",
        "",
        "wild_self_draw_only=0",
        "fengpai:2 minggang:10 gangshang_kaihua:5 queyimen:5 duiduihu:30 peizizan_peizi:60|yadang|-118,-132,-118,368",
    ),
    (
        "33334566m6pNN",
        "N",
        "self_draw",
        "6p",
        "pung:4m",
        "23-",
        "",
        "base=5",
        "ming_sihuo:5 an_sihuo:10 hunyise:30|yadang|-255,-255,835,-325",
    ),
    (
        "SSWWFFFF",
        "S",
        "self_draw",
        "S",
        "pung:E pung:7s",
        "01-",
        "",
        "wild_self_draw_only=0",
        "fengpai:6 an_sihuo:10 hunyise:30 duiduihu:30|yadang|260,-96,-82,-82",
    ),
    (
        "99pEEEWWCFFF",
        "F",
        "rob_kong",
        "C",
        "added:N",
        "311",
        "",
        "wild_self_draw_only=0",
        "fengpai:8 minggang:5 qiangganghu:5 yaojiutou:2 hunyise:30 duiduihu:30|pinghu|-82,-85,-82,249",
    ),
]


def _case_context(row: tuple) -> WinContext:
    hand, tile, by, wild, melds, who, flags, opts, _ = row
    options = {k: int(v) for k, v in (o.split("=") for o in opts.split())}
    options = {k: (v if k == "base" else bool(v)) for k, v in options.items()}
    return WinContext(
        variant="hanshan",
        options=normalise("hanshan", options),
        seat=int(who[0]),
        dealer=int(who[1]),
        concealed=tuple(parse(hand)),
        melds=tuple(meld(m) for m in melds.split()),
        win_tile=kind(tile),
        win_by=by,
        discarder=None if who[2] == "-" else int(who[2]),
        ready="ready" in flags,
        wild=kind(wild),
        heavenly="heavenly" in flags,
        dealer_first_discard="first" in flags,
    )


def _expected(text: str) -> dict:
    if "|" not in text:
        return {"ok": False, "reason": text}
    pats, extra, deltas = text.split("|")
    listed = [{"code": c, "points": int(p)} for c, p in (x.split(":") for x in pats.split())]
    return {
        "ok": True,
        "patterns": listed,
        "pattern_score": sum(p["points"] for p in listed),
        "extra": extra,
        "deltas": [int(d) for d in deltas.split(",")],
    }


@pytest.mark.parametrize("row", SEARCH_CASES, ids=lambda row: f"{row[0]}-{row[1]}-{row[3]}")
def test_G10_search_gives_the_plain_search_result(row):
    assert score(_case_context(row)) == _expected(row[-1])


@pytest.mark.parametrize("row", [r for r in SEARCH_CASES if "|" in r[-1]][::4], ids=lambda row: row[0])
def test_G10_facts_search_finds_the_facts_of_every_reading(row):
    # the memoised block-by-block search sees exactly the readings hand.decompositions lists
    game = Win(_case_context(row))
    assert all_facts(game) == {r.facts for r in readings(game)}


@pytest.mark.parametrize("hand, wild", [("EESSSSWWNNCCCF", "S"), ("EESSWWNNCCFFFF", "F")])
def test_H8_hands_holding_every_other_honour_score_without_crashing(hand, wild):
    """Regression: the H-8 check once needed an honour absent from the hand and crashed without one."""
    from engine.options import normalise
    from engine.scoring import WinContext, score
    from engine.tiles import kind, parse

    tiles = tuple(parse(hand))
    result = score(
        WinContext("hanshan", normalise("hanshan", {}), 0, 0, tiles, (), tiles[-1], "self_draw", wild=kind(wild))
    )
    assert "ok" in result


def test_H2_the_one_white_stand_in_rule():
    # engine/variants/hanshan/scoring.white_stand_in is the H-2 rule both the table and scoring use
    from engine.variants.hanshan.scoring import white_stand_in
    from engine.tiles import WHITE

    assert white_stand_in(kind("2m")) == (WHITE, kind("2m"))
    assert white_stand_in(WHITE) is None and white_stand_in(None) is None


def _random_complete_win(rng) -> Win:
    """A random complete 含山 hand (2-4 concealed sets and a pair), some tiles of the 配子's kind,
    sometimes a 白板 standing in for it (H-2), won on one of its tiles by self-draw."""
    from engine.tiles import WHITE

    wild = rng.randrange(34)
    sets = rng.choice([4, 4, 3, 2])
    while True:
        blocks = []
        for _ in range(sets):
            if rng.random() < 0.6:
                start = rng.randrange(3) * 9 + rng.randrange(7)
                blocks += [start, start + 1, start + 2]
            else:
                blocks += [rng.randrange(34)] * 3
        blocks += [rng.randrange(34)] * 2
        if wild != WHITE and rng.random() < 0.3:  # a 白板 played as the 配子's kind
            blocks = [WHITE if k == wild and rng.random() < 0.5 else k for k in blocks]
        extra = rng.randrange(4)  # more 配子 in random places
        for _ in range(extra):
            blocks[rng.randrange(len(blocks))] = wild
        if all(blocks.count(k) <= 4 for k in set(blocks)):
            break
    melds = tuple(Meld("pung", k) for k in rng.sample([k for k in range(34) if k not in blocks], 4 - sets))
    ctx = WinContext(
        variant="hanshan",
        options=normalise("hanshan", {}),
        seat=WINNER,
        dealer=DEALER,
        concealed=tuple(sorted(blocks)),
        melds=melds,
        win_tile=rng.choice(blocks),
        win_by="self_draw",
        wild=wild,
    )
    return Win(ctx)


def test_G10_group_by_group_facts_search_equals_every_reading_on_random_hands():
    """all_facts searches suit by suit with shared memos: the same facts as hand.decompositions'
    readings on random complete hands with 配子 and 白板 stand-ins (G-9, G-10, H-2)."""
    import random

    rng = random.Random(1812)
    checked = 0
    while checked < 300:
        game = _random_complete_win(rng)
        if not game.complete():
            continue
        assert all_facts(game) == {r.facts for r in readings(game)}, game.ctx
        checked += 1


def test_G10_patterns_outside_READING_PATTERNS_do_not_depend_on_the_reading():
    """Win.fixed_points checks them once per win: on random wins every other facts gives the same."""
    import itertools
    import random

    from engine.variants.hanshan.scoring import ON_PAIR, OPEN, READING_PATTERNS, Facts, Reading

    rng = random.Random(7)
    shapes = [
        Facts(hs, *flags, role)
        for hs in (0, 2)
        for flags in itertools.product((False, True), repeat=5)
        for role in (ON_PAIR, OPEN, "closed")
    ]
    for _ in range(60):
        game = _random_complete_win(rng)
        for p in PATTERNS:
            if p.code not in READING_PATTERNS:
                assert len({p.check(Reading(game, f)) for f in shapes}) == 1, p.code
