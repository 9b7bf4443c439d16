"""The replay's review (复盘) in the frames: the `normal` bot's evaluator, and `strong`'s sampled danger
when TILEFOLD_REVIEW_SAMPLES gives it a budget."""

from __future__ import annotations

from audit_support import finished_match


def _discards(client, match_id):
    out = []
    for seat in range(4):
        frames = client.get(f"/replay/{match_id}/frames.json?seat={seat}").get_json()
        out += [r for r in frames["review"] if r["kind"] == "discard"]
    return out


def test_k8_the_review_budget_setting_judges_danger_by_sampling(client, app):
    # given a finished 扣点点 match of bots (its deals are logged by finished_match)
    match_id, _ = finished_match(app, "koudiandian", {"hands": 3})
    # when every seat's review is fetched with the default budget (0)
    plain = _discards(client, match_id)
    # then every discard is judged by normal's evaluator, and each says why when it differs
    assert plain and {r["evaluator"] for r in plain} == {"normal"}
    assert all(r["reason"] != "same" and r["why"] for r in plain if r["differs"])
    # when the budget allows 50 sampled hands per declared seat
    app.config["REVIEW_SAMPLES"] = 50
    sampled = _discards(client, match_id)
    # then the decisions made against a declared hand are judged by strong's sampled danger, the rest as before
    against = [s for s in sampled if s["evaluator"] == "strong"]
    assert against, "the fixed deals were chosen to have a declared hand"
    assert [r["step"] for r in plain] == [s["step"] for s in sampled]
    assert all(p == s for p, s in zip(plain, sampled) if s["evaluator"] == "normal")
