"""Tests of engine.scoring.hanshan: legality (H-1, H-3), the 25 patterns (H-6..H-9), extra and payment (H-5, H-10, G-10)."""

from __future__ import annotations

import pytest

from engine.options import normalise
from engine.scoring.context import Meld, WinContext
from engine.scoring.hanshan import EXCLUDED_BY, HIGHEST_ONLY, PATTERNS, apply_exclusions, score
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


def win(hand: str, tile: str, by: str = "self_draw", *, wild: str = "9p", melds: str = "",
        seat: int = WINNER, dealer: int = DEALER, discarder: int | None = None, ready: bool = False,
        heavenly: bool = False, first_discard: bool = False, **options) -> dict:
    """Score `hand` (every concealed tile, the winning `tile` included) won `by` ...; checks sum(deltas) == 0."""
    if by in ("discard", "rob_kong") and discarder is None:
        discarder = FEEDER if seat != FEEDER else DEALER
    ctx = WinContext(
        variant="hanshan", options=normalise("hanshan", options), seat=seat, dealer=dealer,
        concealed=tuple(parse(hand)), melds=tuple(meld(m) for m in melds.split()), win_tile=kind(tile),
        win_by=by, discarder=discarder, ready=ready, wild=kind(wild), heavenly=heavenly,
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
        "patterns": [{"code": "fengpai", "points": 4}, {"code": "hunyise", "points": 30},
                     {"code": "wupeizi", "points": 4}],
        "pattern_score": 38, "extra": "yadang", "deltas": [-48, 132, -42, -42],
    }


def test_H7_pattern_table_has_the_25_codes_and_points_of_H7():
    table = {p.code: p.points for p in PATTERNS}
    assert table == {
        "fengpai": 2, "minggang": 5, "angang": 10, "gangshang_kaihua": 5, "qiangganghu": 5,
        "duanyao": 5, "wanshi": 5, "queyimen": 5, "yaojiutou": 2, "ming_sihuo": 5, "an_sihuo": 10,
        "hunyise": 30, "duiduihu": 30, "tongtian": 30, "qingyise": 60, "quanqiuren": 90, "wupeizi": 4,
        "peizizan": 30, "peizizan_peizi": 60, "shuangpeijia": 60, "peizijia_peizi": 120, "sipeizi": 60,
        "tianhu": 60, "dihu": 30, "fengyise": 120, "baoting": 30,
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
    result = win("123m456m789s234s5p5m", "5p", "discard", wild="5p", wild_self_draw_only=False,
                 win_on_discarded_wild=True)
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


@pytest.mark.parametrize("applies,kept", [
    ({"queyimen": 5, "hunyise": 30}, {"hunyise": 30}),
    ({"queyimen": 5, "qingyise": 60}, {"qingyise": 60}),
    ({"duiduihu": 30, "quanqiuren": 90}, {"quanqiuren": 90}),
    ({"peizizan": 30, "shuangpeijia": 60}, {"shuangpeijia": 60}),
    ({"peizizan_peizi": 60, "peizijia_peizi": 120}, {"peizijia_peizi": 120}),
    ({"peizizan": 30, "quanqiuren": 90}, {"quanqiuren": 90}),
    ({"peizijia_peizi": 120, "quanqiuren": 90}, {"quanqiuren": 90}),
    ({"fengpai": 4, "qingyise": 60}, {"qingyise": 60}),  # H-9
    ({"fengpai": 4, "hunyise": 30, "duiduihu": 30}, {"fengpai": 4, "hunyise": 30, "duiduihu": 30}),
])
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


@pytest.mark.parametrize("seat,by,tile,deltas", [
    (1, "discard", PINGHU_TILE, [-9, 21, -6, -6]),  # non-dealer on a discard, 平胡: 4 + (5 | 2)
    (1, "discard", YADANG_TILE, [-14, 30, -8, -8]),  # 丫当: 4 + (10 | 4)
    (1, "self_draw", PINGHU_TILE, [-24, 50, -13, -13]),  # non-dealer self-draw: 9 + (15 | 4)
    (1, "self_draw", YADANG_TILE, [-29, 59, -15, -15]),  # 丫当: 9 + (20 | 6)
    (0, "discard", PINGHU_TILE, [27, -9, -9, -9]),  # dealer on a discard: 4 + 5
    (0, "discard", YADANG_TILE, [42, -14, -14, -14]),  # 丫当: 4 + 10
    (0, "self_draw", PINGHU_TILE, [72, -24, -24, -24]),  # dealer self-draw: 9 + 15
    (0, "self_draw", YADANG_TILE, [87, -29, -29, -29]),  # 丫当: 9 + 20
])
def test_H10_extra_table_row(seat, by, tile, deltas):
    result = win(PINGHU, tile, by, seat=seat)
    assert result["deltas"] == deltas
    assert result["extra"] == ("yadang" if tile == YADANG_TILE else "pinghu")


@pytest.mark.parametrize("hand,tile", [("123m456p789s79m55s", "8m"), ("123m456p789s12m55s", "3m"),
                                      ("123m456p789s89m55s", "7m")])
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
