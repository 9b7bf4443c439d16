"""The `normal` bot decides exactly as recorded: fixed-seed all-normal matches in each rule set
(扣点点, 扣点点 with 耗子 wilds, 含山), every decision of every seat digested in play order
(bench/normal_decisions.py). A speed-up of the bot must leave these digests as they are; a change
meant to alter its play records new ones (and says so)."""

from __future__ import annotations

from bench.normal_decisions import RULE_SETS, digests

MATCHES, HANDS = 1, 4

# Recorded from the normal bot once it valued a ready hand's waits by the ways they may come (a win on
# another seat's discard where legal) and fed declared hands by the chances measured in self-play.
RECORDED = {
    "kdd": (166, "01eca4764fab916bb80c298e92528cddcc86839b5b4933e221f44899d6821e1e"),
    "haozi": (147, "6a5d10e15a50427a5927d2ebdaabe2f00dec8f6ec14031ded7b936e103f1b405"),
    "hanshan": (128, "a094f7534c086343ac533901b11f18c226a57067ef423ea325b2448c86c661f3"),
}


def test_given_fixed_seed_all_normal_matches_when_replayed_then_every_decision_is_as_recorded():
    # given the seeds of bench/normal_decisions.py (label normal-decisions/<rule set>/<match>)
    # when four normal bots play one match of four hands per rule set
    found = digests(MATCHES, HANDS, [], [])
    # then the decision count and digest of each rule set match the recorded ones
    for rule_set in RULE_SETS:
        assert found[rule_set] == RECORDED[rule_set], f"rule set {rule_set}, seeds normal-decisions/{rule_set}/0"
