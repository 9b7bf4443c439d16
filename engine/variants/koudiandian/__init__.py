"""山西扣点点 (K- rulings, docs/RULES.md):
its registry entry (options, rule ids, refusal reasons, display names);
the table hooks are in hooks.py, scoring in scoring.py, the explained settlement in explain.py."""

from __future__ import annotations

from typing import Any, Mapping

from engine.options import OptionError, boolean
from engine.variants.koudiandian import scoring as kdd_scoring
from engine.variants.koudiandian.explain import explain_payment, explain_reading
from engine.variants.koudiandian.hooks import Koudiandian
from engine.variants.registry import OptionSpec, VariantEntry

OPTIONS: dict[str, OptionSpec] = {
    "wilds": (False, boolean),  # K-13 耗子
    "kong_keeps_waits": (False, boolean),  # K-3 【改变听口不能杠】
    "must_win": (False, boolean),  # K-5 【有胡必胡】
    "feeder_pays_kong": (False, boolean),  # K-9 【点杠包杠】
    "discarder_pays_kongs": (False, boolean),  # K-9 【点炮包杠】
    "dealer_bonus": (False, boolean),  # K-12 【带庄多五分】
    "dealer_rule": ("winner", None),  # K-11, checked by _check_dealer_rule
}


def _check_dealer_rule(out: dict[str, Any], given: set[str]) -> None:
    """K-11: 一圈 or 【带庄多五分】 force the "rotate" dealer rule."""
    rule = out["dealer_rule"]
    if rule not in ("winner", "rotate"):
        raise OptionError(f'option \'dealer_rule\' must be "winner" or "rotate", got {rule!r}')
    forced = out["rounds"] is not None or out["dealer_bonus"]
    if forced and rule == "winner":
        if "dealer_rule" in given:
            raise OptionError(
                "dealer_rule \"winner\" cannot be combined with 'rounds' or 'dealer_bonus': "
                'K-11 makes those matches use the "rotate" rule'
            )
        out["dealer_rule"] = "rotate"


def _score_lines(score: Mapping[str, Any]) -> list[str]:
    """K-7: points × multiplier."""
    return [f"    点数 points {score.get('points')} × 倍数 multiplier {score.get('multiplier')} = {score.get('value')}"]


ENTRY = VariantEntry(
    name="koudiandian",
    name_zh="扣点点",
    name_en="Koudiandian",
    wild_zh="耗子",
    rules=Koudiandian,
    scoring=kdd_scoring,
    options=OPTIONS,
    patterns={h.code: (h.name_zh, h.name_en) for h in kdd_scoring.SPECIAL_HANDS},
    rule_ids={"ting": "K-2", "locked": "K-3"},
    uses_wilds=lambda options: bool(options.get("wilds")),  # K-13
    score_lines=_score_lines,
    check_options=_check_dealer_rule,
    explain_reading=explain_reading,
    explain_payment=explain_payment,
    summary=("山西扣点点", "Shanxi Koudiandian — win only after declaring ready (报听); points by the winning tile"),
    option_names={
        "wilds": ("耗子", "each hand one tile kind is wild (K-13)"),
        "kong_keeps_waits": ("改变听口不能杠", "after 报听 a kong must keep exactly the same waits (K-3)"),
        "must_win": ("有胡必胡", "a possible win is always taken (K-5)"),
        "feeder_pays_kong": ("点杠包杠", "whoever fed an exposed kong pays all of it (K-9)"),
        "discarder_pays_kongs": ("点炮包杠", "the discarder of the winning tile pays every kong (K-9)"),
        "dealer_bonus": ("带庄多五分", "5 more points on each share the dealer pays or gets (K-12)"),
    },
    reasons={
        "not_ready": ("K-2", "only a player who declared 报听 may win"),
        "not_ready_after_discard": ("K-2", "报听 needs a discard after which the hand waits on a tile worth 6 or more"),
        "tile_too_low": ("K-4", "a winning tile worth 1 or 2 can never win"),
        "self_draw_only": ("K-4", "a winning tile worth 3 to 5 wins only by self-draw"),
        "discarded_wild": ("G-9", "nobody may win on a discarded wild (K-13)"),
        "passed_hu": ("K-5", "after 过胡 this tile wins only by self-draw"),
        "must_win": ("K-5", "with 有胡必胡 every possible win is taken"),
    },
    ting_to_win=True,  # K-2
    points_caution=True,  # K-2/K-4/K-8
    bot_plans={"plain": 30.0, "full_flush": 60.0},  # K-7: 3 shares of about 8 points x 1-2; 清一色 doubles it
)
