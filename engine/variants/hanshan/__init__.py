"""含山麻将 (H- rulings, docs/RULES.md):
its registry entry (options, rule ids, refusal reasons, display names);
the table hooks are in hooks.py, scoring in scoring.py, the explained settlement in explain.py."""

from __future__ import annotations

from typing import Any, Mapping

from engine.options import boolean
from engine.variants.hanshan import scoring as hanshan_scoring
from engine.variants.hanshan.explain import explain_payment, explain_reading
from engine.variants.hanshan.hooks import Hanshan
from engine.variants.registry import OptionSpec, VariantEntry

OPTIONS: dict[str, OptionSpec] = {
    "wild_self_draw_only": (True, boolean),  # H-3 【有配子只能自摸】
    "win_on_discarded_wild": (False, boolean),  # H-3 【见配给胡】
    "discarder_pays_all": (False, boolean),  # H-5 【点炮一家付】
}

EXTRA_NAMES = {"pinghu": ("平胡", "plain win"), "yadang": ("丫当", "yadang")}  # H-10


def _score_lines(score: Mapping[str, Any]) -> list[str]:
    """H-6/H-10: the pattern score and 平胡 or 丫当."""
    zh, en = EXTRA_NAMES.get(score.get("extra") or "", (score.get("extra"), score.get("extra")))
    return [f"    番数 pattern score {score['pattern_score']}, {zh} {en}"]


ENTRY = VariantEntry(
    name="hanshan",
    name_zh="含山麻将",
    name_en="Hanshan",
    wild_zh="配子",
    rules=Hanshan,
    scoring=hanshan_scoring,
    options=OPTIONS,
    patterns={p.code: (p.name_zh, p.name_en) for p in hanshan_scoring.PATTERNS},
    rule_ids={"ting": "H-4", "locked": "H-4"},
    uses_wilds=lambda options: True,  # H-2: every hand has a 配子
    score_lines=_score_lines,
    ting_at_deal_only=True,
    extra=EXTRA_NAMES,
    summary=(
        "含山麻将",
        "Hanshan — a 配子 wild each hand (白板 stands in for it); 报听 only at the deal; 25 patterns, paid by all three",
    ),
    option_names={
        "wild_self_draw_only": ("有配子只能自摸", "a hand holding a 配子 wins only by self-draw (H-3)"),
        "win_on_discarded_wild": ("见配给胡", "a discarded 配子 may be won on (H-3)"),
        "discarder_pays_all": ("点炮一家付", "the discarder pays the whole win alone (H-5)"),
    },
    reasons={
        "not_ready_after_discard": ("H-4", "报听 needs a discard after which the hand is ready"),
        "discarded_wild": ("G-9", "nobody may win on a discarded 配子 without 见配给胡 (H-3)"),
        "wild_self_draw_only": ("H-3", "a player holding a 配子 may win only by self-draw"),
    },
    explain_reading=explain_reading,
    explain_payment=explain_payment,
    bot_plans={"plain": 55.0, "half_flush": 145.0, "full_flush": 235.0},  # H-7: 3 payers; 混一色 +30, 清一色 +60 each
    bot_scored_waits=3,  # scoring one win (25 patterns over every reading) costs 0.1-1 ms; a lone 配子 waits on 34 kinds
)
