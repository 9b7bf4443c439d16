"""The `normal` bot decides exactly as recorded: fixed-seed all-normal matches in each rule set
(扣点点, 扣点点 with 耗子 wilds, 含山), every decision of every seat digested in play order
(bench/normal_decisions.py). A speed-up of the bot must leave these digests as they are; a change
meant to alter its play records new ones (and says so)."""

from __future__ import annotations

from bench.normal_decisions import RULE_SETS, digests

MATCHES, HANDS = 1, 4

# Recorded from the normal bot as it judged every discard by worth (before its speed-up).
RECORDED = {
    "kdd": (179, "69d463cd802c146d11d743aca136d9a7dd71458b35045c25e60e9adad7215c4f"),
    "haozi": (147, "caa2d5a6d2f2cdf04351ab1a561035d5b8d3f0089d677c3c6d50dbe9df33d391"),
    "hanshan": (118, "5e7a38db95ca79aa0052d53324c5b5771fda06ea48811f8e2c9b91534da1c58f"),
}


def test_given_fixed_seed_all_normal_matches_when_replayed_then_every_decision_is_as_recorded():
    # given the seeds of bench/normal_decisions.py (label normal-decisions/<rule set>/<match>)
    # when four normal bots play one match of four hands per rule set
    found = digests(MATCHES, HANDS, [], [])
    # then the decision count and digest of each rule set match the recorded ones
    for rule_set in RULE_SETS:
        assert found[rule_set] == RECORDED[rule_set], f"rule set {rule_set}, seeds normal-decisions/{rule_set}/0"
