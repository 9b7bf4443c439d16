"""bench/bots.py's figures: a seating's per-hand figure, and hand by hand against its control (the
duplicate format), where the deals' luck for the lone seat cancels."""

from __future__ import annotations

import pytest

from bench.bots import figure, seating


def test_given_a_seating_and_its_control_then_the_duplicate_figure_is_the_difference_hand_by_hand():
    raw = [10.0, -4.0, 6.0, 0.0]
    control = [8.0, -4.0, 2.0, 0.0]  # the same deals with the lone seat taken by the others' player
    assert figure(raw).startswith(" +3.00 ±")
    assert figure(raw, control) == " +3.00 ± 6.09 (duplicate  +1.50 ± 1.88, 2 hands differ)"  # diffs 2, 0, 4, 0


@pytest.mark.parametrize("rule_set", ["kdd", "hanshan"])
def test_given_one_player_among_three_alike_then_its_figure_is_the_deals_luck_alone_and_its_duplicate_zero(rule_set):
    # given the lone seat played by the same player as the others (bench/bots.py's control)
    # when one match of its fixed deals (label bench-bots/<rule set>/0) is played twice
    first = seating(rule_set, "greedy", "greedy", 8, {})
    again = seating(rule_set, "greedy", "greedy", 8, {})
    # then it is the same figure (fixed seeds) and, against itself, 0 in every hand
    assert first == again
    assert "(duplicate  +0.00 ± 0.00, 0 hands differ)" in figure(first, again)


def test_given_another_deals_label_then_other_deals_are_played_and_the_default_label_is_bench_bots():
    # given the same players, when the first match is played from the default deals and from others
    default = seating("kdd", "greedy", "greedy", 8, {})
    named = seating("kdd", "greedy", "greedy", 8, {}, "bench-bots")
    fresh = seating("kdd", "greedy", "greedy", 8, {}, "bench-bots-fresh")
    # then the default is the label bench-bots, and another label deals other hands
    assert default == named
    assert fresh != default
