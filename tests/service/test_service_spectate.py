"""Spectators: the public view and feed hide every secret; the owner may turn spectating off."""

from __future__ import annotations

import pytest

import engine
from engine.views import WINDOW_PHASES

from audit_support import seeded_walls
from correspondence_helpers import App
from service.model.room import SERVICE_EVENT_TYPES as SERVICE


@pytest.fixture
def t(tmp_path):
    return App(tmp_path)


def check_public(event: dict, stored) -> None:
    """`event` (spectator feed) against the unredacted stored event: nothing hidden leaks."""
    assert event["type"] == stored.type  # its version is in the public's numbering
    payload, raw = event["payload"], stored.payload
    if stored.type == "hand_started":
        assert payload["hands"] == [None] * 4 and raw["hands"] != [None] * 4
        assert payload.get("dealer_draw") is None and "wall" not in payload and payload.get("seed") is None
        assert not any(h and h in str(payload) for h in raw["hands"])
    elif stored.type == "drew":
        assert payload["tile"] is None
    elif stored.type == "discarded" and raw["face_down"]:
        assert payload["tile"] is None and raw["tile"] is not None
    elif stored.type in ("match_created", "seat_joined"):
        assert "owner_token_hash" not in payload and "token_hash" not in payload
    else:  # engine.DECISION (who could claim, rob, the waits) is secret until the full record
        assert payload == {k: v for k, v in raw.items() if k != engine.DECISION}
    assert engine.DECISION not in payload


def test_spectator_feed_of_a_whole_match_hides_every_secret(t, monkeypatch):
    seeded_walls(monkeypatch, "spectate-whole")  # four hands with a claim window and a 报听, every run
    match_id, owner = t.create("koudiandian", {"hands": 4}, deadline=None)
    t.api.bots(match_id, owner)  # four bots play it all
    assert t.api.summary(match_id)["status"] == "over"
    feed = t.api.call("GET", f"/api/matches/{match_id}/spectate/events").body
    stored = t.stored(match_id)
    # Window answers (responded) and kong_declared are never in the public feed
    visible = [e for e in stored if e.type in SERVICE or engine.redact({"type": e.type, **e.payload}, None)]
    assert any(e.type == "responded" for e in stored) and not any(e["type"] == "responded" for e in feed["events"])
    assert feed["viewer"] is None and len(feed["events"]) == len(visible) == feed["version"]
    # the public's own numbering: no gap where a hidden event was
    assert [e["version"] for e in feed["events"]] == list(range(1, len(visible) + 1))
    for event, raw in zip(feed["events"], visible):
        check_public(event, raw)
    kinds = {e.type for e in stored}
    assert {"hand_started", "drew", "discarded", "hand_ended"} <= kinds
    assert any(e.type == "discarded" and e.payload["face_down"] for e in stored), "no 报听 in 4 hands"
    later = t.api.call("GET", f"/api/matches/{match_id}/spectate/events?after=10").body["events"]
    assert [e["version"] for e in later] == list(range(11, len(visible) + 1))  # ?after= in the public's numbering
    assert [e["type"] for e in later] == [e.type for e in visible[10:]]


def test_spectate_view_of_a_live_match_is_the_engine_public_view(t, monkeypatch):
    seeded_walls(monkeypatch, "spectate-live")  # a deal the bots do not end before the human decides again
    match_id, _, tokens = t.match("koudiandian", {"hands": 1}, humans=1)
    t.api.act(match_id, tokens[0], t.api.view(match_id, tokens[0]).body["legal_actions"][0])
    body = t.api.call("GET", f"/api/matches/{match_id}/spectate").body
    assert body["status"] == "playing" and body["view"]["seat"] is None
    hand = body["view"]["hand"]
    assert hand["drawn"] is None and all(seat["concealed"] is None for seat in hand["seats"])
    assert body["view"]["legal_actions"] == []
    # the bots played on until the human must decide: its turn (public: seat 0's deadline), or a
    # claim window asking it, which nobody else may learn of (no deadline is shown)
    in_window = t.api.view(match_id, tokens[0]).body["view"]["phase"] in WINDOW_PHASES
    assert [d["seat"] for d in body["deadlines"]] == ([] if in_window else [0])
    assert "wall" not in hand and "seed" not in hand


def test_the_owner_turns_spectating_off_and_on(t):
    match_id, owner, tokens = t.match(deadline=None)
    url = f"/api/matches/{match_id}/spectating"
    assert t.api.call("PUT", url, {"enabled": False}, token=tokens[0]).body["code"] == "not_owner"
    assert t.api.call("PUT", url, {"enabled": False}).body["code"] == "missing_token"
    assert t.api.call("PUT", url, {"enabled": "no"}, token=owner).status == 400
    reply = t.api.call("PUT", url, {"enabled": False}, token=owner)
    assert reply.status == 200 and reply.body["spectating"] is False
    for path in ("spectate", "spectate/events", "events", "stream"):
        refused = t.api.call("GET", f"/api/matches/{match_id}/{path}")
        assert (refused.status, refused.body["code"]) == (403, "spectating_disabled"), path
        assert refused.headers["Content-Type"].startswith("application/problem+json")
    assert t.api.events(match_id, tokens[1]).status == 200  # seats still see their own feed
    assert t.api.summary(match_id)["table"] is None  # nor does the public summary show the table
    assert t.api.call("PUT", url, {"enabled": True}, token=owner).body["spectating"] is True
    assert t.api.call("GET", f"/api/matches/{match_id}/spectate").status == 200


def test_unknown_match(t):
    reply = t.api.call("GET", "/api/matches/nope/spectate")
    assert (reply.status, reply.body["code"]) == (404, "match_not_found")
