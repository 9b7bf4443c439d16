"""The review check of bench/review_check.py, bounded: every seat of a few all-bot matches of each
rule set (扣点点, 扣点点 with 耗子, 含山) is reviewed and every entry checked against the state the
engine had at that decision (G-6 legal wins, K-2/H-4 报听, K-8 defence; the `strong` evaluator's own
measure, and `normal`'s bounded search)."""

from __future__ import annotations

import pytest

from bench.review_check import RULE_SETS, check_match


@pytest.mark.parametrize("variant, options", RULE_SETS, ids=["koudiandian", "koudiandian-wilds", "hanshan"])
@pytest.mark.parametrize("match", range(2))
def test_g6_k2_h4_every_review_entry_holds_at_its_decision(variant, options, match):
    # given an all-bot match from fixed seeds (the label is printed with any failure)
    label = f"review-check/{variant}/{sorted(options.items())}/{match}"
    # when every seat is reviewed and each entry checked against the state at its decision
    checked, problems = check_match(variant, options, label, hands=4)
    # then there are entries, and none flags a win that was not legal, a "best" other than the evaluator's
    # choice or no better than the move, or a step back from ready it does not justify
    assert checked > 0, label
    assert problems == [], "\n".join(problems[:10])
