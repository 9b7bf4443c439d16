"""No response ever leaks another seat's concealed tiles, face-down discards, walls, seeds or token hashes."""

from __future__ import annotations

import json
import random
from typing import Any, Optional

import pytest

import engine
from audit_support import seeded_walls
from engine.tiles import format_hand
from service.infra.repository import engine_events, stream_of
from service.http.services import services

TOKEN_KEYS = {"token_hash", "owner_token_hash"}


class Truth:
    """The whole truth of a match, folded from every stored event, unredacted."""

    def __init__(self, app, match_id: str):
        stored = services(app).match.repo.store.read(stream_of(match_id))
        self.events = engine_events(stored)
        self.state = engine.fold(self.events)
        self.over = self.state.phase == "match_over"
        store = services(app).match.repo.store
        verifiers = store.query("SELECT verifier FROM tf_tokens WHERE stream = ?", [stream_of(match_id)])
        self.token_hashes = {row[0] for row in verifiers}  # what checks a token: never in an answer
        self.token_hashes |= {e.payload[k] for e in stored for k in TOKEN_KEYS if e.payload.get(k)}
        self.unrevealed_seeds = _unrevealed(self.events, "seed")
        self.walls = [json.dumps(e["wall"]) for e in self.events if e["type"] == "hand_started" and e.get("wall")]

    def concealed(self, seat: int) -> Optional[str]:
        hand = self.state.hand
        if hand is None:
            return None
        counts = hand.seats[seat].counts
        return format_hand([k for k, n in enumerate(counts) for _ in range(n)])


def _unrevealed(events: list[dict], key: str) -> set[str]:
    started = [e[key] for e in events if e["type"] == "hand_started" and e.get(key)]
    revealed = {e.get(key) for e in events if e["type"] == "hand_ended"}
    return {value for value in started if value not in revealed}


def walk(node: Any, path: tuple = ()):
    """Every (path, dict) in a JSON document."""
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from walk(value, path + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from walk(value, path + (index,))


def check(body: Any, viewer: Optional[int], truth: Truth) -> None:
    """Structural and textual secrecy checks of one response body for one viewer."""
    text = json.dumps(body)
    for secret in truth.token_hashes:
        assert secret not in text
    for _, node in walk(body):
        assert not TOKEN_KEYS & set(node), node.keys()
    if truth.over:
        return  # everything is revealed once the match is over
    for _, node in walk(body):
        assert node.get("wall") is None, node.keys()
    for seed in truth.unrevealed_seeds:
        assert seed not in text
    for path, node in walk(body):
        _check_node(path, node, viewer, truth)
    for seat in range(4):
        hidden = truth.concealed(seat)
        if seat != viewer and hidden and len(hidden) >= 12:
            assert f'"{hidden}"' not in text, (seat, hidden)


def _check_node(path: tuple, node: dict, viewer: Optional[int], truth: Truth) -> None:
    seat = node.get("seat")
    if "concealed" in node and seat != viewer:
        assert node["concealed"] is None, (path, node)
    if "drawn" in node and node["drawn"] is not None:
        assert viewer is not None and truth.state.hand.turn == viewer
    if "discards" in node and seat != viewer:
        for discard in node["discards"]:
            assert not discard["face_down"] or discard["tile"] is None, (path, node)
    if node.get("type") in ("drew", "discarded", "hand_started") and "payload" in node:
        _check_event(node["type"], node["payload"], viewer)


def _check_event(kind: str, payload: dict, viewer: Optional[int]) -> None:
    if kind == "drew" and payload["seat"] != viewer:
        assert payload.get("tile") is None, payload
    if kind == "discarded" and payload.get("face_down") and payload["seat"] != viewer:
        assert payload.get("tile") is None, payload
    if kind == "hand_started":
        assert payload.get("seed") is None and payload.get("wall") is None
        assert all(hand is None for s, hand in enumerate(payload["hands"]) if s != viewer), payload


@pytest.mark.parametrize("variant", ["koudiandian", "hanshan"])
def test_no_response_leaks_a_secret(app, api, variant, monkeypatch):
    seeded_walls(monkeypatch, f"secrecy/{variant}")  # the same joint walls every run (more than 50 replies)
    match_id, _, tokens = api.new_match(variant, {"hands": 2}, humans=3)
    seats = {token: api.view(match_id, token).body["seat"] for token in tokens}
    checked = {"n": 0}
    store, stream = services(app).match.repo.store, stream_of(match_id)
    truths: dict[int, Truth] = {}  # the stream's version -> the truth then (folded once per version)
    sample = random.Random(4)  # which replies are followed by the feeds, the summary and the list

    def inspect(token: Optional[str], reply) -> None:
        version = store.current_version(stream)
        truth = truths.get(version) or truths.setdefault(version, Truth(app, match_id))
        viewer = None if token is None else seats[token]
        if reply.status < 300 and reply.body is not None:
            check(reply.body, viewer, truth)
            checked["n"] += 1

    def everything(token, reply):
        inspect(token, reply)
        if sample.random() < 0.2:
            inspect(token, api.events(match_id, token))
            inspect(None, api.events(match_id))
            inspect(None, api.call("GET", f"/api/matches/{match_id}"))
            inspect(None, api.call("GET", "/api/matches"))

    api.play_randomly(match_id, tokens, random.Random(3), on_reply=everything)
    assert checked["n"] > 50
    final = api.events(match_id, tokens[0]).body
    assert final["viewer"] == "all"
    started = [e for e in final["events"] if e["type"] == "hand_started"]
    assert all(e["payload"]["seed"] and e["payload"]["wall"] for e in started)
    assert all(e["payload"]["hands"][1] for e in started)


def test_the_checker_catches_a_leak(app, api):
    match_id, _, tokens = api.new_match("koudiandian", {"hands": 1})
    truth = Truth(app, match_id)
    leaked = api.events(match_id, tokens[0]).body
    with pytest.raises(AssertionError):
        check({"leak": engine.redact(truth.events[1], "all")}, 0, truth)
    check(leaked, 0, truth)
    other = truth.concealed(1)
    with pytest.raises(AssertionError):
        check({"x": [other]}, 0, truth)
