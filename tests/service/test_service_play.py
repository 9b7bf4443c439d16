"""Whole matches of both variants through the HTTP API with four random-but-legal clients."""

from __future__ import annotations

import random

import pytest

import engine
from audit_support import seeded_deals


def settlement_deltas(payload: dict) -> list[int]:
    settlement = payload["settlement"]
    return list(settlement["deltas"] if isinstance(settlement, dict) else settlement)


@pytest.mark.parametrize("variant", ["koudiandian", "hanshan"])
@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.slow)])  # the fast loop plays seed 1
def test_four_random_clients_play_to_the_end(api, variant, seed):
    match_id, _, tokens = api.new_match(variant, {"hands": 2})
    actions = api.play_randomly(match_id, tokens, random.Random(seed))
    assert actions > 0
    summary = api.summary(match_id)
    assert summary["status"] == "over" and summary["phase"] == "match_over"

    feed = api.events(match_id).body
    assert feed["viewer"] == "all"
    ended = [e["payload"] for e in feed["events"] if e["type"] == "hand_ended"]
    assert len(ended) == 2
    totals = [sum(column) for column in zip(*(settlement_deltas(p) for p in ended))]
    assert totals == summary["scores"]
    assert sum(summary["scores"]) == 0
    final = [e["payload"] for e in feed["events"] if e["type"] == "match_ended"]
    assert final and final[-1]["scores"] == summary["scores"]
    # Numbered in the public's numbering (no gaps); the events the public could not see
    # in play (window answers, a robbable kong's declaration) come unnumbered once the match is over
    numbered = [e["version"] for e in feed["events"] if e["version"] is not None]
    assert numbered == list(range(1, summary["version"] + 1))
    assert {e["type"] for e in feed["events"] if e["version"] is None} <= engine.MAY_HIDE


def test_one_human_and_three_bots(api):
    match_id, _, tokens = api.new_match("hanshan", {"hands": 2}, humans=1)
    api.play_randomly(match_id, tokens, random.Random(7))
    summary = api.summary(match_id)
    assert summary["status"] == "over"
    assert [s["bot"] for s in summary["seats"]] == [False, True, True, True]
    assert sum(summary["scores"]) == 0


def test_four_bots_play_the_whole_match_in_the_filling_request(api):
    match_id, owner = api.create("koudiandian", {"hands": 2})
    reply = api.bots(match_id, owner)
    assert reply.body["seats"] == [0, 1, 2, 3]
    assert reply.body["match"]["status"] == "over"


def test_first_joiner_is_seat_zero_and_first_dealer(api):
    match_id, owner = api.create("koudiandian", {"hands": 1})
    first = api.join(match_id, "alice")
    api.bots(match_id, owner)
    summary = api.summary(match_id)
    assert summary["seats"][0]["name"] == "alice" and summary["dealer"] == 0
    view = api.view(match_id, first).body
    assert view["seat"] == 0


def test_private_view_etag_and_long_poll(api):
    match_id, _, tokens = api.new_match("koudiandian", {"hands": 1})
    first = api.view(match_id, tokens[0])
    tag = first.headers["ETag"]
    assert tag == f'"v{first.body["version"]}"'
    assert api.view(match_id, tokens[0], If_None_Match=tag).status == 304
    # long-poll that times out: still 304, after roughly the wait
    assert api.view(match_id, tokens[1], If_None_Match=tag).status == 304
    import time

    started = time.monotonic()
    assert api.call("GET", f"/api/matches/{match_id}/view?wait=0.3", token=tokens[1], If_None_Match=tag).status == 304
    assert time.monotonic() - started >= 0.25


def test_long_poll_returns_when_the_version_changes(app, api):
    import threading
    import time

    match_id, _, tokens = api.new_match("koudiandian", {"hands": 1})
    view = api.view(match_id, tokens[0])
    dealer_move = view.body["legal_actions"][0]
    other = app.test_client()

    def act_soon():
        time.sleep(0.2)
        from conftest import MatchClient, flask_transport

        MatchClient(flask_transport(other)).act(match_id, tokens[0], dealer_move, view.body["version"])

    thread = threading.Thread(target=act_soon)
    thread.start()
    started = time.monotonic()
    reply = api.call(
        "GET", f"/api/matches/{match_id}/view?wait=10", token=tokens[1], If_None_Match=view.headers["ETag"]
    )
    thread.join()
    assert reply.status == 200 and reply.body["version"] > view.body["version"]
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("variant", ["koudiandian", "hanshan"])
def test_an_actions_answer_lists_its_events_as_the_feed_shows_them(api, variant, monkeypatch):
    """The POST answer builds `events` from what it just wrote; the stored feed must say the same."""
    seeded_deals(monkeypatch, f"answer-events/{variant}")  # a hand long enough for twenty answers, every run
    match_id, _, tokens = api.new_match(variant, {"hands": 1})
    seen = []

    def compare(token, reply):
        body = reply.body
        if reply.status != 200 or "first_version" not in body:
            return  # a GET view, or a refused action
        feed = api.events(match_id, token, after=body["first_version"] - 1).body["events"]
        assert body["events"] == feed[: body["version"] - body["first_version"] + 1]
        seen.append(len(body["events"]))

    first = next(view for view in (api.view(match_id, t).body for t in tokens) if view["legal_actions"])
    token = tokens[first["seat"]]
    once = api.act(match_id, token, first["legal_actions"][0], first["version"], Idempotency_Key="k")
    again = api.act(match_id, token, first["legal_actions"][0], first["version"], Idempotency_Key="k")
    assert again.headers["Idempotent-Replayed"] == "true"  # read back from the store this time
    assert again.body["events"] == once.body["events"] and once.body["events"]
    api.play_randomly(match_id, tokens, random.Random(11), on_reply=compare)
    assert len(seen) > 20 and all(seen)


def test_the_owner_chooses_each_bots_level_seat_by_seat(api):
    # given a match with one human at seat 0
    match_id, owner = api.create("koudiandian", {"hands": 1})
    api.join(match_id, "alice")
    # when the owner fills the three empty seats with one level each
    reply = api.call("POST", f"/api/matches/{match_id}/bots", {"levels": ["strong", "easy", "normal"]}, token=owner)
    # then each empty seat, lowest first, has the level chosen for it
    assert reply.status == 200, reply
    assert reply.body["seats"] == [1, 2, 3]
    levels = [s.get("level") for s in api.summary(match_id)["seats"]]
    assert levels == [None, "strong", "easy", "normal"]


@pytest.mark.parametrize(
    "body", [{"levels": ["expert"]}, {"levels": []}, {"levels": ["easy"], "count": 1}, {"level": "expert"}]
)
def test_a_bots_level_outside_the_engines_levels_is_refused(api, body):
    # given a match with an empty seat
    match_id, owner = api.create("koudiandian", {"hands": 1})
    # when the owner asks for bots of an unknown level (or gives levels and a count at once)
    reply = api.call("POST", f"/api/matches/{match_id}/bots", body, token=owner)
    # then it is refused and no seat is taken
    assert reply.status == 400, reply
    assert all(s is None for s in api.summary(match_id)["seats"])
