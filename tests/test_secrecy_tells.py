"""Tells (issue 13): nobody but the asked seat learns who is asked in a G-6 claim, G-7 rob or H-4 报听
window, what it answered, or that it could have claimed — in views, summaries, spectator views,
feeds, SSE frames, webhooks and replay frames of matches in play.

The acceptance test plays four-human matches with random legal clients and checks every response of
every seat, the spectator and the public while a window is open; it also reuses the hidden-tile,
seed and face-down checks of test_service_secrecy.
"""

from __future__ import annotations

import json
import random
from typing import Any, Optional

import pytest

import engine
from engine.views import WAITING
from test_service_secrecy import Truth, check, walk

WINDOW_PHASES = ("claim", "rob", "ting")
NAMING_KEYS = ("asked", "answered", "pending")


def no_tell(body: Any, viewer: Optional[int], truth: Truth) -> None:
    """No node of `body` names a seat other than `viewer` as asked / pending / answering (G-6, G-7, H-4)."""
    state = truth.state
    in_window = state.phase in WINDOW_PHASES and not truth.over
    asked = set(state.hand.window.allowed) if in_window else set()
    for path, node in walk(body):
        if truth.over:
            return
        _no_answer_event(path, node, viewer)
        if not in_window:
            continue
        for key in NAMING_KEYS:
            if isinstance(node.get(key), list):
                assert set(node[key]) <= {viewer}, (path, key, node[key], viewer)
        if "deadline" in node and "pending_since" in node:
            assert node["seat"] == viewer, (path, node)
        if "ready" in node and node.get("seat") != viewer and state.phase == "ting":
            assert node["ready"] is None, (path, node)
        if isinstance(node.get("phase"), str) and viewer not in asked:
            assert node["phase"] not in WINDOW_PHASES, (path, node["phase"], viewer)
        if isinstance(node.get("kind"), str) and "asked" in node and viewer not in asked:
            assert node["kind"] == WAITING, (path, node)


def _no_answer_event(path: tuple, node: dict, viewer: Optional[int]) -> None:
    """A window answer (responded, a 报听 at the deal) is the answering seat's alone; no kong_declared."""
    kind = node.get("type")
    payload = node.get("payload") if isinstance(node.get("payload"), dict) else None
    if payload is None or "version" not in node:
        return
    assert kind != "kong_declared", (path, node)
    if kind == "responded" or (kind == "ting_declared" and "with_discard" not in payload):
        assert payload.get("seat") == viewer, (path, node)
    assert "decision" not in payload, (path, node)


def sse_items(client, match_id: str, token: Optional[str]) -> list[dict]:
    """The data of every SSE message of one short-lived stream (lifetime set by the fixture)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    resp = client.get(f"/api/matches/{match_id}/stream?after=0", headers=headers)
    text = resp.get_data(as_text=True)
    return [
        json.loads(line[len("data: ") :])
        for line in text.splitlines()
        if line.startswith("data: ") and line[len("data: ") :].startswith('{"version"')
    ]


@pytest.fixture
def tell_app(tmp_path):
    from service.app import create_app

    return create_app(
        {"DATABASE": str(tmp_path / "tilefold.db"), "TESTING": True, "STREAM_LIFETIME": 0.0, "STREAM_HEARTBEAT": 60.0}
    )


@pytest.mark.parametrize("variant,seed", [("koudiandian", 1), ("hanshan", 2), ("hanshan", 5)])
def test_four_random_humans_see_no_tell_in_any_response(tell_app, variant, seed):
    """Done when (issue 13): every response of every seat, the spectator and the public, in every window."""
    from conftest import MatchClient, flask_transport

    client = tell_app.test_client()
    api = MatchClient(flask_transport(client))
    match_id, _, tokens = api.new_match(variant, {"hands": 1}, humans=4)
    seats = {token: api.view(match_id, token).body["seat"] for token in tokens}
    windows = {"n": 0, "checked": 0}
    rng = random.Random(seed)

    current: dict = {}

    def inspect(viewer: Optional[int], body: Any) -> None:
        truth = current["truth"]  # reads do not change the match (no bots, no deadlines here)
        check(body, viewer, truth)
        no_tell(body, viewer, truth)
        windows["checked"] += 1

    def everything(token, reply):
        if reply.status >= 300 or reply.body is None:
            return
        viewer = seats[token]
        truth = current["truth"] = Truth(tell_app, match_id)
        inspect(viewer, reply.body)
        if truth.state.phase not in WINDOW_PHASES and rng.random() > 0.05:
            return
        windows["n"] += truth.state.phase in WINDOW_PHASES
        for other, seat in seats.items():
            inspect(seat, api.view(match_id, other).body)
            inspect(seat, api.events(match_id, other).body)
            inspect(seat, sse_items(client, match_id, other))
        inspect(None, api.events(match_id).body)
        inspect(None, api.summary(match_id))
        inspect(None, api.call("GET", "/api/matches").body)
        inspect(None, api.call("GET", f"/api/matches/{match_id}/spectate").body)
        inspect(None, api.call("GET", f"/api/matches/{match_id}/spectate/events").body)
        inspect(None, sse_items(client, match_id, None))
        inspect(None, api.call("GET", f"/replay/{match_id}/frames.json").body)

    api.play_randomly(match_id, tokens, rng, on_reply=everything)
    assert windows["n"] >= 2 and windows["checked"] > 50, windows


def test_the_tell_checker_catches_a_named_seat(tell_app):
    """The checker itself: a view naming another asked seat, or another seat's pass, fails it."""
    from conftest import MatchClient, flask_transport

    api = MatchClient(flask_transport(tell_app.test_client()))
    match_id, _, _ = api.new_match("koudiandian", {"hands": 1}, humans=4)
    truth = Truth(tell_app, match_id)
    truth.state.phase = "claim"
    truth.state.hand.window = engine.state.Window("claim", 0, 0, {2: ["pung", "pass"]})
    with pytest.raises(AssertionError):
        no_tell({"window": {"kind": "claim", "asked": [2]}}, 1, truth)
    with pytest.raises(AssertionError):
        no_tell({"pending": [2]}, None, truth)
    with pytest.raises(AssertionError):
        no_tell({"version": 9, "type": "responded", "payload": {"seat": 2, "response": "pass"}}, 1, truth)
    no_tell({"pending": [1], "window": {"kind": WAITING, "asked": []}}, 1, truth)


# ---- the engine's one place of redaction, given / when / then -------------------------------------

HS_HANDS = ["23m5p8899pCCCFFFE", "123m456m789m123s5p", "777m46p111999sEE", "55p234678sSSWWC"]
ROB = ["123456789m99p12s5s", "123p456p789p46sEE", "123m777s888s9s11pF", "55sSSSWWWCCFF7s"]


def undecided(events: list[dict]) -> list[dict]:
    """The events without their decision data (which no seat sees in play)."""
    return [{k: v for k, v in e.items() if k != "decision"} for e in events]


def shown(events: list[dict], viewer) -> list[dict]:
    return [e for e in (engine.redact(event, viewer) for event in events) if e is not None]


def test_H4_a_ready_seat_at_the_deal_is_named_to_nobody_else_until_the_window_closes():
    from engine_helpers import given, play

    state = given("hanshan", HS_HANDS, "7s7s1p", wild="N")  # seats 1 and 2 may declare 报听 (H-4)
    for viewer in (None, 0, 3):
        seen = engine.view(state, viewer)
        assert seen["phase"] == WAITING and seen["pending"] == [] and seen["waiting"] is True
        assert seen["hand"]["window"] == {"kind": WAITING, "tile": None, "source": None, "asked": [], "answered": []}
    own = engine.view(state, 1)
    assert own["phase"] == "ting" and own["pending"] == [1] and own["hand"]["window"]["asked"] == [1]
    state, events = play(state, (1, "ting"))  # seat 2 has not answered yet: the window is open
    assert shown(events, 2) == [] and shown(events, 0) == [] and shown(events, None) == []
    assert shown(events, 1) == undecided(events)
    assert [s["ready"] for s in engine.view(state, 0)["hand"]["seats"]] == [False, None, None, None]
    assert engine.view(state, 2)["hand"]["window"]["answered"] == []
    state, events = play(state, (2, "pass"))  # closed: the table sees the 报听, never the pass
    assert shown(events, 1) == [] and shown(events, 2) == undecided(events)
    assert [s["ready"] for s in engine.view(state, None)["hand"]["seats"]] == [False, True, False, False]


def test_G7_a_robbable_added_kong_looks_to_the_table_like_any_added_kong():
    from engine_helpers import given, play, when

    state = given("hanshan", ROB, "9m2m3m5s1s1s", wild="N")
    state, _ = play(
        state,
        (1, "pass"),
        (0, "discard", "5s"),
        (1, "pass"),
        (3, "pung"),
        (3, "discard", "7s"),
        (2, "pass"),
        (0, "discard", "9m"),
        (1, "discard", "2m"),
        (2, "discard", "3m"),
    )
    state, declared = when(state, 3, "kong", "5s")  # seat 1 may rob it (G-7)
    assert [e["type"] for e in declared] == ["kong_declared"]
    for viewer in (None, 0, 2, 3):  # the konger too: that someone waits on 5s is seat 1's secret
        assert shown(declared, viewer) == []
        assert engine.view(state, viewer)["phase"] == WAITING
    assert engine.view(state, 1)["hand"]["window"]["kind"] == "rob"
    state, passed = when(state, 1, "pass")
    for viewer in (None, 0, 2, 3):  # what a non-robbable added kong shows: konged (added), the kong draw
        seen = [(e["type"], e.get("kind"), e.get("source")) for e in shown(passed, viewer)]
        assert seen[:2] == [("konged", "added", None), ("drew", None, "kong")], seen
    assert engine.redact(declared[0], "all") == declared[0]  # the finished match's record keeps it


def test_decision_data_on_an_event_is_stripped_for_every_viewer_but_all():
    event = {
        "type": "discarded",
        "seat": 0,
        "tile": "5p",
        "face_down": False,
        "auto": False,
        "decision": {"asked": [2], "allowed": {"2": ["pung", "pass"]}},
    }
    for viewer in (None, 0, 1, 2, 3):
        assert "decision" not in engine.redact(event, viewer)
    assert engine.redact(event, "all")["decision"] == {"asked": [2], "allowed": {"2": ["pung", "pass"]}}


def test_G6_decision_notices_go_only_to_the_seats_asked_and_carry_no_other_seat():
    """Webhooks: a claim window's "your turn" notice goes to the asked seat alone (all four hooked)."""
    from engine_helpers import given, play

    from service.deadlines import new_decisions
    from service.notify import notices

    state = given("hanshan", HS_HANDS, "7s7s1p", wild="N")
    before, _ = play(state, (1, "pass"), (2, "pass"))
    events = engine.decide(before, {"seat": 0, "action": "discard", "tile": "5p"})
    after = engine.fold(events, before)
    assert after.phase == "claim" and sorted(after.hand.window.allowed) == [1, 2, 3]
    _, new = new_decisions(before, after, events)
    sent = notices("m", 9, [0, 1, 2, 3], events, after, new, {})
    decisions = [n for n in sent if n["kind"] == "decision"]
    assert sorted(n["seat"] for n in decisions) == [1, 2, 3]  # each to itself; seat 0 hears nothing
    for notice in decisions:
        assert set(notice) == {"notice_id", "kind", "match", "seat", "version", "phase", "actions", "deadline"}
