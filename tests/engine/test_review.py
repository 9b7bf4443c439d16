"""The review (复盘) judges each of a seat's decisions once, from the state the engine had when the
seat decided, and flags only what the engine's legal actions offered then."""

from __future__ import annotations

import pytest

from engine import analysis as A
from engine.bot_normal import normal_action
from engine.bot_strong import Budget
from engine.review import review
from engine.scenario import run_scenario
from engine.table import evolve_in_place, initial_state
from engine.tiles import parse


def _played(spec):
    return run_scenario(spec)["events"]


def _index(events, type_, seat):
    return next(i for i, e in enumerate(events) if e["type"] == type_ and e.get("seat") == seat)


def test_k2_a_ting_with_its_discard_is_one_decision_judged_before_the_hand_locks():
    # given 扣点点: the dealer draws 9s to 123m 456m 789m 123p 1s, and declares 听 letting 1s go (waits 9s)
    events = _played(
        {
            "variant": "koudiandian",
            "hands": ["123m456m789m123p1s9s", "147m147p147sESWN", "258m258p258sESWF", "369m369p369sESWP"],
            "wall": "1s2s3s4s",
            "actions": [{"seat": 0, "action": "ting", "tile": "1s"}],
        }
    )
    # when the dealer's decisions are reviewed
    entries = review(events, 0)
    # then the 听 and its discard are one entry, at the 听, judged with every discard still open
    ting = _index(events, "ting_declared", 0)
    assert [e["index"] for e in entries] == [ting]
    (entry,) = entries
    assert entry["made"] == "1s" and entry["best"] == ["1s"] and not entry["differs"]
    assert entry["made_judged"]["shanten"] == 0


def test_k2_no_missed_win_when_the_win_became_legal_only_by_declaring():
    # given 扣点点: the dealer's 14 tiles are complete but it has not declared (K-2: no win yet);
    # it declares 听 with a discard of 1m (afterwards its hand could win on the drawn tile)
    events = _played(
        {
            "variant": "koudiandian",
            "hands": ["123m456m789m123p88p", "147m147p147sESWN", "258m258p258sESWF", "369m369p369sESWP"],
            "wall": "1s2s3s4s",
            "actions": [{"seat": 0, "action": "ting", "tile": "1m"}],
        }
    )
    # when the dealer's decisions are reviewed
    entries = review(events, 0)
    # then no 漏胡 is flagged: no win was legal at the decision
    assert entries and all(e["kind"] != "missed_hu" for e in entries)


def test_h4_a_ting_at_the_deal_is_not_judged_as_the_dealers_next_discard():
    # given 含山: seat 1 is ready on its 13 dealt tiles and declares 听 at the deal (H-4); then the
    # dealer lets 9s go, a tile seat 1 does not hold
    events = _played(
        {
            "variant": "hanshan",
            "wild": "9p",
            "hands": ["147m147p147sESWN9s", "123m456m789m123s5s", "258m258p258sESWF", "369m369p3sESWNPC"],
            "wall": "6s7s8s2s",
            "actions": [{"seat": 1, "action": "ting"}, {"seat": 0, "action": "discard", "tile": "9s"}],
        }
    )
    assert events[_index(events, "discarded", 0)]["tile"] == "9s"
    # when seat 1's decisions are reviewed
    entries = review(events, 1)
    # then it raises nothing, and nothing judges a discard seat 1 did not make
    assert all(e.get("made") != "9s" for e in entries)


@pytest.mark.parametrize("hand, tile", [("123m456m789m12p", "9s"), ("123m456m789m1p", "1p")])
def test_g4_the_analyser_refuses_an_impossible_hand_with_a_clear_error(hand, tile):
    # given counts with a tile the hand does not hold (or a negative count once it is let go)
    counts = [0] * 34
    for k in parse(hand):
        counts[k] += 1
    rules = A.Rules()
    if tile == "1p":
        counts[parse(tile)[0]] -= 2
        # when the analyser is asked about it, then it refuses with a ValueError (no endless recursion)
        with pytest.raises(ValueError, match="impossible hand"):
            A.hand_shanten(counts, 4, rules)
    else:
        with pytest.raises(ValueError, match="impossible hand"):
            A.judge_discard(counts, parse(tile)[0], 4, rules, [4] * 34)


def test_k1_the_review_says_why_its_discard_is_better_with_the_waits_and_their_unseen_copies():
    # given 扣点点: the dealer draws 9s to 123m 456m 789m 123p 1s and lets 9s go (ready on 1s only)
    events = _played(
        {
            "variant": "koudiandian",
            "hands": ["123m456m789m123p1s9s", "147m147p147sESWN", "258m258p258sESWF", "369m369p369sESWP"],
            "wall": "1s2s3s4s",
            "actions": [{"seat": 0, "action": "discard", "tile": "9s"}],
        }
    )
    # when the dealer's decision is reviewed
    (entry,) = review(events, 0)
    # then letting 1s go is better (a wait on 9s, K-1: worth more), and the review says so with the waits
    assert entry["differs"] and entry["best"] == ["1s"]
    assert "waits are worth more" in entry["why"]
    assert "9s (3 unseen" in entry["why"] and "1s (3 unseen" in entry["why"]


def test_k8_the_review_names_the_danger_of_a_tile_let_go_against_a_declared_hand():
    # given 扣点点: the dealer declared 报听; seat 1, far from ready, lets E go (10 points), then
    # on its next turn 1m (under 6 points: no discard wins on it, K-4)
    events = _played(
        {
            "variant": "koudiandian",
            "hands": ["123m456m789m123p1s9s", "147m258p369sESWN", "258m147p147sESWF", "369m369p258sESWP"],
            "wall": "7p8p9p1m2m3m4m5m6m",
            "actions": [
                {"seat": 0, "action": "ting", "tile": "1s"},
                {"seat": 1, "action": "discard", "tile": "E"},
                {"seat": 2, "action": "discard", "tile": "F"},
                {"seat": 3, "action": "discard", "tile": "P"},
                {"seat": 1, "action": "discard", "tile": "1m"},
            ],
        }
    )
    # when seat 1's decisions are reviewed
    first, second = [e for e in review(events, 1) if e["kind"] == "discard"]
    # then the honour's danger is named (K-8: an unready discarder pays all), the 1m is safe
    assert first["made"] == "E" and first["danger"] > 0 and "risked feeding the declared hand" in first["why"]
    assert second["made"] == "1m" and second["danger"] == 0 and "was safe against the declared hand" in second["why"]


def test_k8_a_step_back_from_ready_is_flagged_only_when_defence_justifies_it_and_the_entry_says_so():
    # given 扣点点: the dealer declared 报听 (waits 9s); seat 1, two from ready on low tiles and an
    # isolated 9s, lets the 9s go (K-8: an unready discarder pays all; 9 points may win on a discard, K-4)
    events = _played(
        {
            "variant": "koudiandian",
            "hands": ["123m456m789m123p1s9s", "12m45m234p22p34s9sE", "258m147p147sESWF", "369m369p258sESWP"],
            "wall": "6p8p9p1m2m3m4m5m6m",
            "actions": [{"seat": 0, "action": "ting", "tile": "1s"}, {"seat": 1, "action": "discard", "tile": "9s"}],
        }
    )
    # when seat 1's decision is reviewed (by the normal bot's evaluator, its feeding cost)
    (entry,) = review(events, 1)
    # then the best is a safe low tile a step further from ready, and the entry says defence decided
    assert entry["differs"] and entry["evaluator"] == "normal" and entry["reason"] == "safer"
    made, best = entry["made_judged"], entry["best_judged"]
    assert best["shanten"] == made["shanten"] + 1
    assert made["danger"] > 0 == best["danger"] and best["worth"] <= made["worth"]
    assert "safer against the declared hand" in entry["why"] and "danger 2.70" in entry["why"]


def test_k1_the_best_is_the_normal_bots_own_choice_with_both_moves_worth_and_waits():
    # given 扣点点: the dealer draws 9s to 123m 456m 789m 123p 1s and lets 9s go (ready on 1s only)
    events = _played(
        {
            "variant": "koudiandian",
            "hands": ["123m456m789m123p1s9s", "147m147p147sESWN", "258m258p258sESWF", "369m369p369sESWP"],
            "wall": "1s2s3s4s",
            "actions": [{"seat": 0, "action": "discard", "tile": "9s"}],
        }
    )
    # when the dealer's decision is reviewed
    (entry,) = review(events, 0)
    # then "best" is what the normal bot plays there, and both moves carry the evaluator's figures
    state = initial_state()
    for event in events[: entry["index"]]:
        evolve_in_place(state, event)
    assert entry["best"] == [normal_action(state, 0)["tile"]] == ["1s"]
    assert entry["reason"] == "waits_worth_more"
    made, best = entry["made_judged"], entry["best_judged"]
    assert best["net"] > made["net"] and best["plan"] is None
    assert best["waits"] == [{"tile": "9s", "unseen": 3, "value": best["waits"][0]["value"]}]
    assert made["waits"] == [{"tile": "1s", "unseen": 3, "value": made["waits"][0]["value"]}]


def test_k8_with_a_sampling_budget_the_review_judges_danger_as_strong_does():
    # given the declared-hand decision above (seat 1 lets 9s go against the dealer's 报听)
    events = _played(
        {
            "variant": "koudiandian",
            "hands": ["123m456m789m123p1s9s", "12m45m234p22p34s9sE", "258m147p147sESWF", "369m369p258sESWP"],
            "wall": "6p8p9p1m2m3m4m5m6m",
            "actions": [{"seat": 0, "action": "ting", "tile": "1s"}, {"seat": 1, "action": "discard", "tile": "9s"}],
        }
    )
    # when it is reviewed with strong's sampled danger (the sampling is seeded from the seat's view)
    (entry,) = review(events, 1, budget=Budget(samples=50, ahead=0, waits=0))
    # then the entry says so, and its danger is the sampled one (the same on a second review)
    assert entry["evaluator"] == "strong"
    assert review(events, 1, budget=Budget(samples=50, ahead=0, waits=0)) == [entry]
    assert entry["danger"] == round(entry["made_judged"]["danger"], 2)


def _with_the_rest_as_wall(hands):
    """A preset hand's wall: every tile the hands leave, in kind order (a full wall of 83 tiles)."""
    from engine.tiles import name, parse

    left = [4] * 34
    for hand in hands:
        for k in parse(hand):
            left[k] -= 1
    return "".join(name(k) for k in range(34) for _ in range(left[k]))


def test_k1_k4_with_a_look_ahead_budget_the_review_judges_as_strong_one_draw_ahead():
    # given 扣点点: the dealer lets 1m go from 11m2m33m9m 123s789s FF (a step from ready after 1m or 3m;
    # four of 1m's improving kinds would make ready hands on low tiles, K-1/K-4)
    hands = ["11m2m33m9m123s789sFF", "147m258p369sESWN", "258m147p147sESWP", "369m369p258sESWN"]
    events = _played(
        {
            "variant": "koudiandian",
            "hands": hands,
            "wall": _with_the_rest_as_wall(hands),
            "actions": [{"seat": 0, "action": "discard", "tile": "1m"}],
        }
    )
    # when it is reviewed by normal's evaluator, then the move made is its best
    (plain,) = review(events, 0)
    assert plain["best"] == ["1m"] and not plain["differs"] and plain["evaluator"] == "normal"
    # when it is reviewed with strong's look one draw ahead
    (entry,) = review(events, 0, budget=Budget(samples=0, ahead=4, waits=0))
    # then 3m is best, because the ready hands its draws make are worth more, and the entry says so
    assert entry["best"] == ["3m"] and entry["differs"] and entry["evaluator"] == "strong"
    assert entry["reason"] == "ready_hands_worth_more" and "one draw ahead" in entry["why"]
    made, best = entry["made_judged"], entry["best_judged"]
    assert made["ahead"] and best["ahead"] and made["shanten"] == best["shanten"] == 1
    assert best["net"] > made["net"] and made["improving_unseen"] > best["improving_unseen"]


def test_the_replay_viewer_has_words_for_every_reason_the_review_gives():
    """replay_viewer/static/viewer.js shows each REASONS code in words: none may be missing."""
    import re
    from pathlib import Path

    from engine.review import REASONS

    js = (Path(__file__).resolve().parents[2] / "replay_viewer" / "static" / "viewer.js").read_text()
    table = js[js.index("const REASONS = {") : js.index("};", js.index("const REASONS = {"))]
    assert set(re.findall(r"^\s*(\w+):", table, re.M)) == set(REASONS) - {"same"}
