"""Standing orders: auto_pass / auto_discard answer for a seat at once, recorded as "standing_order"."""

from __future__ import annotations

import random

import pytest

from audit_support import seeded_deals
from correspondence_helpers import App, preset  # noqa: F401 (fixture)
from test_service_deadlines import HANDS


@pytest.fixture
def t(tmp_path):
    return App(tmp_path)


def put_orders(t, match_id, token, **orders):
    reply = t.api.call("PUT", f"/api/matches/{match_id}/orders", orders, token=token)
    assert reply.status == 200, reply
    return reply.body


def test_orders_are_events_and_can_be_read_back(t):
    match_id, _, tokens = t.match(deadline=None)
    body = put_orders(t, match_id, tokens[2], auto_pass=True, auto_discard=False)
    assert body["seat"] == 2 and body["auto_pass"] and not body["auto_discard"]
    got = t.api.call("GET", f"/api/matches/{match_id}/orders", token=tokens[2]).body
    assert (got["auto_pass"], got["auto_discard"]) == (True, False)
    [event] = [e for e in t.stored(match_id) if e.type == "orders_set"]
    assert event.payload == {"seat": 2, "auto_pass": True, "auto_discard": False}
    put_orders(t, match_id, tokens[2])  # PUT replaces: missing fields are false
    assert t.api.call("GET", f"/api/matches/{match_id}/orders", token=tokens[2]).body["auto_pass"] is False


@pytest.mark.parametrize(
    "body,status,code",
    [({"auto_pass": "yes"}, 400, "invalid_body"), ({"auto_pass": True, "extra": 1}, 400, "invalid_body")],
)
def test_bad_orders(t, body, status, code):
    match_id, _, tokens = t.match(deadline=None)
    reply = t.api.call("PUT", f"/api/matches/{match_id}/orders", body, token=tokens[0])
    assert (reply.status, reply.body["code"]) == (status, code)


def test_orders_without_a_body_are_refused_and_change_nothing(t):
    """Given a seat on auto-pass, when it PUTs its orders with no body at all (the OpenAPI document
    requires one), then 400 invalid_body, and its orders stay as they were (not both turned off)."""
    match_id, _, tokens = t.match(deadline=None)
    put_orders(t, match_id, tokens[1], auto_pass=True, auto_discard=True)
    reply = t.api.call("PUT", f"/api/matches/{match_id}/orders", None, token=tokens[1])
    assert (reply.status, reply.body["code"]) == (400, "invalid_body"), reply
    got = t.api.call("GET", f"/api/matches/{match_id}/orders", token=tokens[1]).body
    assert (got["auto_pass"], got["auto_discard"]) == (True, True)


def test_orders_need_a_seat_token(t):
    match_id, owner, _ = t.match(deadline=None)
    assert t.api.call("PUT", f"/api/matches/{match_id}/orders", {}).body["code"] == "missing_token"
    assert t.api.call("PUT", f"/api/matches/{match_id}/orders", {}, token=owner).body["code"] == "invalid_token"


def test_auto_pass_skips_a_pung_question_but_wins_are_still_offered(t, preset):
    preset(HANDS, "7s7s1p", wild="N")
    match_id, _, tokens = t.match("hanshan", deadline=None)
    for seat in (1, 2, 3):
        put_orders(t, match_id, tokens[seat], auto_pass=True)
    # the 报听 question at the deal is answered pass for seats 1 and 2
    assert [(e["seat"], e["window"]) for e in t.reasons(match_id, "standing_order")] == [(1, "ting"), (2, "ting")]
    t.act(match_id, tokens[0], "discard", "5p")  # a win for 1 and 2, a pung for 3
    answered = t.reasons(match_id, "standing_order")[2:]
    assert [(e["seat"], e["response"], e["window"]) for e in answered] == [(3, "pass", "claim")]
    for seat in (1, 2):
        assert {"action": "hu"} in t.api.view(match_id, tokens[seat]).body["legal_actions"]


def test_three_seats_on_standing_orders_leave_only_the_fourth_to_decide(t, monkeypatch):
    seeded_deals(monkeypatch, "orders-three-seats")  # the same hand every run: the others' orders are used
    match_id, _, tokens = t.match("koudiandian", {"hands": 1}, deadline=None)
    for seat in (1, 2, 3):
        put_orders(t, match_id, tokens[seat], auto_pass=True, auto_discard=True)
    rng, asked_others = random.Random(5), 0
    for _ in range(2_000):
        if t.api.summary(match_id)["status"] == "over":
            break
        for seat in (1, 2, 3):  # nobody else is ever asked anything but a win
            legal = t.api.view(match_id, tokens[seat]).body["legal_actions"]
            if legal:
                assert {"action": "hu"} in legal, legal
                asked_others += 1
                t.act(match_id, tokens[seat], "hu")
                break
        else:
            view = t.api.view(match_id, tokens[0]).body
            assert view["legal_actions"], "the match waits for nobody"
            reply = t.api.act(match_id, tokens[0], rng.choice(view["legal_actions"]), view["version"])
            assert reply.status == 200, reply
    assert t.api.summary(match_id)["status"] == "over"
    by_others = [
        e
        for e in t.stored(match_id)
        if e.payload.get("seat") in (1, 2, 3) and e.type in ("discarded", "responded") and not e.payload.get("auto")
    ]
    assert by_others and all(e.payload.get("reason") == "standing_order" for e in by_others)


def test_orders_after_the_match_is_over_are_refused(t):
    match_id, _, tokens = t.match("koudiandian", {"hands": 1}, deadline=None)
    for seat in range(4):
        put_orders(t, match_id, tokens[seat], auto_pass=True, auto_discard=True)
    for _ in range(500):  # everyone on orders: only wins and forced choices remain
        if t.api.summary(match_id)["status"] == "over":
            break
        for token in tokens:
            legal = t.api.view(match_id, token).body["legal_actions"]
            if legal:
                t.api.act(match_id, token, legal[0])
    assert t.api.summary(match_id)["status"] == "over"
    reply = t.api.call("PUT", f"/api/matches/{match_id}/orders", {"auto_pass": True}, token=tokens[0])
    assert (reply.status, reply.body["code"]) == (409, "match_over")


def test_standing_orders_are_private_to_their_seat(t, monkeypatch):
    """Given four humans, when seat 1 turns auto-pass and auto-discard on, then no other seat and
    no spectator sees an orders_set event, no other viewer's version moves, and a move its orders
    make carries its standing-order reason only for seat 1 (to the others it is a move like any
    other); seat 1 sees its own orders."""
    seeded_deals(monkeypatch, "orders-private")  # a deal where seat 1's orders discard before any pass
    match_id, _, tokens = t.match("koudiandian", {"hands": 1}, deadline=None)
    before = {seat: t.api.view(match_id, tokens[seat]).body["version"] for seat in (0, 2, 3)}
    public_before = t.api.summary(match_id)["version"]
    put_orders(t, match_id, tokens[1], auto_pass=True, auto_discard=True)
    for seat in (0, 2, 3):
        assert t.api.view(match_id, tokens[seat]).body["version"] == before[seat]
        feed = t.api.call("GET", f"/api/matches/{match_id}/events", token=tokens[seat]).body["events"]
        assert "orders_set" not in {e["type"] for e in feed}
    assert t.api.summary(match_id)["version"] == public_before
    spectators = t.api.call("GET", f"/api/matches/{match_id}/spectate/events").body["events"]
    assert "orders_set" not in {e["type"] for e in spectators}
    own = t.api.call("GET", f"/api/matches/{match_id}/events", token=tokens[1]).body["events"]
    assert [e["payload"] for e in own if e["type"] == "orders_set"] == [
        {"seat": 1, "auto_pass": True, "auto_discard": True}
    ]
    rng = random.Random(11)
    print("seed 11")
    for _ in range(300):  # play seat 0, 2 and 3 until seat 1's orders made a discard
        if t.reasons(match_id, "standing_order") or t.api.summary(match_id)["status"] == "over":
            break
        for seat in (0, 2, 3):
            view = t.api.view(match_id, tokens[seat]).body
            if view["legal_actions"]:
                t.api.act(match_id, tokens[seat], rng.choice(view["legal_actions"]), view["version"])
                break
        else:
            break
    auto = [e for e in t.reasons(match_id, "standing_order") if e["type"] == "discarded"]
    assert auto, "seat 1's orders made no discard"
    for seat, token in enumerate(tokens):
        feed = t.api.call("GET", f"/api/matches/{match_id}/events", token=token).body["events"]
        reasons = {e["payload"].get("reason") for e in feed if e["type"] == "discarded" and e["payload"]["seat"] == 1}
        assert ("standing_order" in reasons) == (seat == 1), (seat, reasons)
