"""The service's event catalogue: every event type it stores, with its fields, version and upcasters.

One catalogue (events/catalogue.py) holds the engine's types (engine/event_types.py, group
"engine"), the room's (service/model/room.py, group "room": the service's events in a match's
stream), the accounts' (service/model/accounts.py, group "account": stream account-<id>) and the
types of the streams beside a match's: its chat lines, its signed heads and an
imported match's record (declared here). The store is opened with it (it writes each new event
at its type's current version and upcasts what it reads); the repository builds every event
through it (`new_event`: fields checked); an import checks every row against it.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional, TypedDict

import engine
from events import Catalogue, InvalidEvent, NewEvent, UnknownEventType

from . import accounts, room as rooms

ENGINE = "engine"
ROOM = "room"
ACCOUNT = "account"  # a player's account (stream account-<id>: service/model/accounts.py)
CHAT_POSTED = "chat_posted"  # a line of a match's chat (stream chat-<match id>)
HEAD_SIGNED = "head_signed"  # a signature over the match stream's head (stream sig-<match id>)
IMPORTED = "imported"  # an imported match's record (stream import-<match id>)


class ChatPosted(TypedDict):
    seat: int
    text: str


class HeadSigned(TypedDict):
    """docs/AUDIT.md, "Signed records" (service/model/signatures.py FIELDS)."""

    stream: str
    version: int
    hash: str
    key_id: str
    algorithm: str
    signed_at: str
    value: str


class Head(TypedDict):
    version: int
    hash: str


class Imported(TypedDict):
    """The original stream, head, each row's time and hash, and the signed heads the log carried."""

    match_id: str
    original_stream: str
    original_head: Head
    rows: list[list[str]]
    signatures: list[dict[str, Any]]


OTHER_STREAMS: Mapping[str, tuple[Optional[type], int, Mapping[int, Callable[[dict[str, Any]], dict[str, Any]]]]] = {
    CHAT_POSTED: (ChatPosted, 1, {}),
    HEAD_SIGNED: (HeadSigned, 1, {}),
    IMPORTED: (Imported, 1, {}),
}

CATALOGUE = Catalogue()
CATALOGUE.declare_all(engine.EVENT_TYPES, group=ENGINE)
CATALOGUE.declare_all(rooms.EVENT_TYPES, group=ROOM)
CATALOGUE.declare_all(OTHER_STREAMS, group="streams")
CATALOGUE.declare_all(accounts.EVENT_TYPES, group=ACCOUNT)

#: the types a match's stream holds: the engine's and the room's
MATCH_TYPES = CATALOGUE.names(ENGINE) | CATALOGUE.names(ROOM)


def new_event(event: Mapping[str, Any]) -> NewEvent:
    """An event dict ({"type": ..., fields}) as the store's NewEvent at its type's current version,
    its fields checked against the catalogue (InvalidEvent, UnknownEventType)."""
    payload = {key: value for key, value in event.items() if key != "type"}
    type_name, version, payload = CATALOGUE.new(event["type"], payload)
    return NewEvent(type_name, payload, version)


def match_row_problem(row: Mapping[str, Any]) -> Optional[str]:
    """Why a row of a match log is not a declared event of a match stream (None: it is one)."""
    type_name = row.get("type")
    if not isinstance(type_name, str) or type_name not in MATCH_TYPES:
        return f"unknown event type {type_name!r}: not an event of a match stream"
    try:
        CATALOGUE.check(type_name, row.get("schema_version"), row.get("payload"))
    except (UnknownEventType, InvalidEvent) as exc:
        return str(exc)
    return None


__all__ = ["CATALOGUE", "CHAT_POSTED", "HEAD_SIGNED", "IMPORTED", "MATCH_TYPES", "match_row_problem", "new_event"]
