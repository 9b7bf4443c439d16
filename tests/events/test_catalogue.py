"""The event catalogue: every event the engine and the service emit is a declared type with its
declared fields; an import refuses a row of an unknown type or version; upcasters bring an old
payload to its type's current version, step by step (events/catalogue.py, engine/event_types.py,
service/model/catalogue.py)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, NotRequired, TypedDict

import pytest

import engine
from engine.bot import LEVELS
from engine.selfplay import play_match, seeds_from
from events import Catalogue, InvalidEvent, UnknownEventType
from service.http.services import services
from service.model.catalogue import CATALOGUE, ENGINE, MATCH_TYPES, ROOM

SEED = 20261202
GOLDEN = Path(__file__).resolve().parents[1] / "service" / "golden"


def _payload(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k != "type"}


def _bot(level: str):
    return lambda state, seat: engine.bot_action(state, seat, level)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("variant", sorted(engine.variants.names()))
def test_every_event_a_bot_match_emits_is_declared_with_its_fields(variant, level):
    # given a seeded whole match of one variant with bots of one level at every seat (and the same
    # seeds under rules version 1, whose match_started has the older shape)
    label = f"catalogue/{SEED}/{variant}/{level}"
    _, log = play_match(variant, {"hands": 2}, seeds_from(label), chooser=_bot(level))
    # when each event is built through the catalogue, then it is a declared engine type and its fields check
    for number, event in enumerate(json.loads(json.dumps(log)), start=1):
        assert event["type"] in CATALOGUE.names(ENGINE), (label, number, event["type"])
        CATALOGUE.new(event["type"], _payload(event))  # InvalidEvent names the field (seed label above)
    assert {e["type"] for e in log} <= CATALOGUE.names(ENGINE)


def test_version_1_events_check_at_schema_version_1_and_an_event_with_a_reason_checks():
    # given a rules-version-1 match start (no rules_version) and a discard made on a timeout
    state = engine.initial_state()
    started, state = engine.step(
        state, {"action": "start_match", "variant": "koudiandian", "options": {}, "rules_version": 1}
    )
    dealt, state = engine.step(state, {"action": "start_hand", "seed": next(seeds_from(f"catalogue/{SEED}/v1"))})
    seat = engine.pending_seats(state)[0]
    move = dict(engine.default_action(state, seat), seat=seat, reason="timeout")
    moved, _ = engine.step(state, move)
    # then match_started is refused as the current version and accepted (and upcast) as version 1
    with pytest.raises(InvalidEvent, match="rules_version"):
        CATALOGUE.new("match_started", _payload(started[0]))
    assert CATALOGUE.check("match_started", 1, _payload(started[0]))["rules_version"] == 1
    for event in dealt + moved:
        CATALOGUE.new(event["type"], _payload(event))
    assert moved[0]["reason"] == "timeout"


def test_the_engine_declares_exactly_the_types_its_evolve_applies():
    from engine.evolve import _HANDLERS

    assert set(engine.EVENT_TYPES) == set(_HANDLERS) == set(CATALOGUE.names(ENGINE))


def test_every_event_a_service_match_stores_is_declared(app, api, client):
    # given a match created with a move deadline and a claim timer, one human and three bots, whose
    # owner re-invites the human, turns spectating off and on, sets orders, registers a webhook,
    # chats, and plays it to the end with seeded random legal moves
    rng = random.Random(SEED)
    created = api.call(
        "POST",
        "/api/matches",
        {"variant": "hanshan", "options": {"hands": 1}, "deadline_seconds": 3600, "claim_seconds": 30},
    )
    assert created.status == 201, created
    match_id, owner = created.body["id"], created.body["owner_token"]
    token = api.join(match_id, "Alice")
    api.bots(match_id, owner)
    reissued = api.call("POST", f"/api/matches/{match_id}/seats/0/invite", {}, token=owner)
    assert reissued.status == 200, reissued
    token = reissued.body["token"]
    for enabled in (False, True):
        assert api.call("PUT", f"/api/matches/{match_id}/spectating", {"enabled": enabled}, token=owner).status == 200
    assert api.call("PUT", f"/api/matches/{match_id}/orders", {"auto_pass": True}, token=token).status == 200
    hook = api.call("PUT", f"/api/matches/{match_id}/webhook", {"url": "https://example.com/hook"}, token=token)
    assert hook.status == 200, hook
    assert api.call("DELETE", f"/api/matches/{match_id}/webhook", None, token=token).status in (200, 204)
    assert api.call("POST", f"/api/matches/{match_id}/chat", {"text": "你好"}, token=token).status in (200, 201)
    api.play_randomly(match_id, [token], rng)
    exported = client.get(f"/api/matches/{match_id}/export?format=ndjson")  # signs the head
    assert exported.status_code == 200
    imported = client.post("/api/matches/import", data=exported.get_data(), content_type="application/x-ndjson")
    assert imported.status_code == 201, imported.get_json()  # an import record beside the imported match
    # when every stream's rows are read as stored
    store = services(app).match.repo.store
    rows = [row for stream in store.streams() for row in store.export_rows(stream)]
    # then each is a declared type at a known version with its declared fields (seed printed on failure)
    seen = set()
    for row in rows:
        payload = json.loads(row["payload"]) if isinstance(row["payload"], str) else row["payload"]
        CATALOGUE.check(row["type"], row["schema_version"], payload)
        seen.add(row["type"])
    assert {"match_created", "seat_joined", "seat_reissued", "spectating_set", "orders_set", "webhook_set"} <= seen, (
        SEED,
        seen,
    )
    assert {"chat_posted", "head_signed", "imported", "match_started", "hand_ended", "match_ended"} <= seen, (
        SEED,
        seen,
    )
    assert [r["schema_version"] for r in rows if r["type"] == "match_started"] == [2, 2]  # played, imported


def _import(client, rows: list[dict]) -> tuple[int, dict]:
    body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    reply = client.post("/api/matches/import", data=body.encode(), content_type="application/x-ndjson")
    return reply.status_code, reply.get_json()


def _finished_rows(api, client) -> list[dict]:
    match_id, _, tokens = api.new_match("koudiandian", {"hands": 1}, humans=1)
    api.play_randomly(match_id, tokens, random.Random(SEED))
    text = client.get(f"/api/matches/{match_id}/export?format=ndjson").get_data(as_text=True)
    return [json.loads(line) for line in text.splitlines() if '"signature"' not in line[:14]]


@pytest.mark.parametrize(
    "change,words",
    [
        (lambda r: r.update(type="tile_swapped"), "unknown event type 'tile_swapped'"),
        (lambda r: r.update(type=["drew"]), "unknown event type ['drew']"),
        (lambda r: r.update(schema_version="1"), "schema version must be an integer"),
        (lambda r: r.update(schema_version=9), "unknown schema version 9"),
        (lambda r: r["payload"].update(colour="red"), "undeclared field 'colour'"),
    ],
    ids=["unknown type", "a list as type", "a text version", "unknown version", "undeclared field"],
)
def test_an_import_refuses_a_row_the_catalogue_does_not_declare(app, api, client, change, words):
    # given a finished match's export with one drew row changed
    rows = _finished_rows(api, client)
    at = next(i for i, r in enumerate(rows) if r["type"] == "drew")
    change(rows[at])
    before = services(app).match.repo.store.streams()
    # when it is imported, then it is refused naming the row and why, and nothing is stored
    status, body = _import(client, rows)
    assert status == 422 and body["code"] == "log_rejected", body
    assert f"row {at + 1}" in body["detail"] and words in body["detail"], body
    assert services(app).match.repo.store.streams() == before


class _V3(TypedDict):
    tile: str
    seat: int
    riichi: bool
    note: NotRequired[str]


def test_an_upcaster_chain_brings_a_version_1_payload_to_the_current_version():
    # given a type at version 3 whose upcasters rename a field (1 -> 2) and add one (2 -> 3)
    catalogue = Catalogue(
        {
            "tile_discarded": (
                _V3,
                3,
                {1: lambda p: {"tile": p["t"], "seat": p["s"]}, 2: lambda p: {**p, "riichi": False}},
            )
        }
    )
    # when a version-1 payload is upcast and checked, then it has today's shape and fields
    assert catalogue.upcast("tile_discarded", 1, {"t": "5m", "s": 2}) == (3, {"tile": "5m", "seat": 2, "riichi": False})
    assert catalogue.check("tile_discarded", 1, {"t": "5m", "s": 2}) == {"tile": "5m", "seat": 2, "riichi": False}
    # and a version-2 one takes the last step only; a newer or unknown one is refused
    assert catalogue.upcast("tile_discarded", 2, {"tile": "1p", "seat": 0})[0] == 3
    with pytest.raises(UnknownEventType, match="unknown schema version 4"):
        catalogue.check("tile_discarded", 4, {})
    with pytest.raises(UnknownEventType):
        catalogue.check("tile_swapped", 1, {})
    with pytest.raises(InvalidEvent, match="seat: must be an integer"):
        catalogue.check("tile_discarded", 3, {"tile": "1p", "seat": True, "riichi": False})


def test_a_type_declared_at_version_n_must_have_every_upcaster_below_it():
    with pytest.raises(ValueError, match="no upcaster"):
        Catalogue({"x": (None, 3, {1: lambda p: p})})


def test_the_engines_match_started_upcaster_makes_rules_version_1_explicit():
    # given a version-1 match_started (rules version 1: no rules_version field) and one of rules version 2
    old = {"variant": "hanshan", "options": {}, "first_dealer": 0}
    newer = {**old, "rules_version": 2}
    # then the store's catalogue upcasts the first to rules_version 1 and keeps the second's
    assert CATALOGUE.upcast("match_started", 1, old) == (2, {**old, "rules_version": 1})
    assert CATALOGUE.upcast("match_started", 1, newer) == (2, newer)


def test_a_match_stream_holds_the_engines_and_the_rooms_types_only():
    assert MATCH_TYPES == CATALOGUE.names(ENGINE) | CATALOGUE.names(ROOM)
    assert not {"chat_posted", "head_signed", "imported"} & MATCH_TYPES


def test_the_feed_of_an_old_log_reads_through_the_catalogue_and_its_export_is_as_stored(client):
    # given a golden log of rules version 1 (its match_started, schema version 1, has no rules_version)
    body = (GOLDEN / "koudiandian-rules1.ndjson").read_text(encoding="utf-8")
    imported = client.post("/api/matches/import", data=body.encode(), content_type="application/x-ndjson")
    assert imported.status_code == 201, imported.get_json()
    match_id = imported.get_json()["id"]
    # when its feed is read, then match_started comes upcast to the current version: rules_version 1
    feed = client.get(f"/api/matches/{match_id}/events").get_json()["events"]
    started = next(e for e in feed if e["type"] == "match_started")
    assert started["payload"]["rules_version"] == 1
    # and the ndjson export still gives the rows as stored, byte for byte
    assert client.get(f"/api/matches/{match_id}/export?format=ndjson").get_data(as_text=True) == body
