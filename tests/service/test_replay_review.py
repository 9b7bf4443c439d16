"""The replay's review (复盘) in the frames: by default the `strong` bot's evaluator (its look one draw
ahead and its sampled danger), `normal`'s when TILEFOLD_REVIEW_SAMPLES and TILEFOLD_REVIEW_AHEAD give it
no budget."""

from __future__ import annotations

from audit_support import finished_match


def _discards(client, match_id):
    out = []
    for seat in range(4):
        frames = client.get(f"/replay/{match_id}/frames.json?seat={seat}").get_json()
        out += [r for r in frames["review"] if r["kind"] == "discard"]
    return out


def test_k8_the_review_judges_as_strong_by_default_and_as_normal_with_no_budget(client, app):
    # given a finished 扣点点 match of bots (its deals are logged by finished_match)
    match_id, _ = finished_match(app, "koudiandian", {"hands": 3})
    # when every seat's review is fetched with no budget (no sampled hands, no discard looked ahead)
    app.config.update(REVIEW_SAMPLES=0, REVIEW_AHEAD=0)
    plain = _discards(client, match_id)
    # then every discard is judged by normal's evaluator, and each says why when it differs
    assert plain and {r["evaluator"] for r in plain} == {"normal"}
    assert all(r["reason"] != "same" and r["why"] for r in plain if r["differs"])
    # when the default budget (strong's own: 200 sampled hands per declared seat, 4 discards looked ahead)
    app.config.update(REVIEW_SAMPLES=200, REVIEW_AHEAD=4)
    judged = _discards(client, match_id)
    # then the decisions made against a declared hand, or a step from ready, are judged as strong
    # judges them (sampled danger, one draw ahead), the rest as before
    by_strong = [s for s in judged if s["evaluator"] == "strong"]
    assert by_strong, "the fixed deals were chosen to have a declared hand"
    assert any(s["made_judged"]["ahead"] or s["best_judged"]["ahead"] for s in by_strong)
    assert [r["step"] for r in plain] == [s["step"] for s in judged]
    assert all(p == s for p, s in zip(plain, judged) if s["evaluator"] == "normal")
    assert all(r["reason"] != "same" and r["why"] for r in judged if r["differs"])


def test_the_review_budget_defaults_to_the_strong_bots_own():
    from engine.bot_strong import BUDGET
    from service.infra.config import ENV_SETTINGS

    assert ENV_SETTINGS["TILEFOLD_REVIEW_SAMPLES"][2] == BUDGET.samples
    assert ENV_SETTINGS["TILEFOLD_REVIEW_AHEAD"][2] == BUDGET.ahead
