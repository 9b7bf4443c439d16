"""Service events of an imported log, checked with the live endpoints' schemas.

An imported log is stored as it came, so each service event's payload must be one that the live
endpoints could have written: the same marshmallow fields (a join's name as on POST .../seats, a
match's variant and options as on POST /api/matches, strict booleans as on .../orders), and the
room must fold in order (one match_created first, seats taken in join order, nothing after four).
Anything else is refused with 422 before a row is stored.
"""

from __future__ import annotations

from typing import Any, Optional

from marshmallow import Schema, ValidationError, fields, validate

from engine.bot import LEVELS
from engine.options import OptionError, normalise

from ..model import room as rooms
from ..model.orders import MAX_DEADLINE, MIN_DEADLINE
from ..model.room import MAX_CLAIM_SECONDS, MIN_CLAIM_SECONDS
from ..model.errors import Rejected
from .schemas import SEAT, JoinSchema, MatchCreateSchema, Strict
from .schemas_correspondence import StrictBoolean

HASH = validate.Regexp(r"^[0-9a-f]{64}$", error="must be a SHA-256 hex digest")


def _seat() -> fields.Integer:
    return fields.Integer(required=True, strict=True, validate=SEAT)


class MatchCreatedPayload(MatchCreateSchema):
    owner_token_hash = fields.String(validate=HASH)  # logs from before tokens were checked in tf_tokens
    wall_commitment = fields.String(validate=HASH)  # joint walls (G-11); absent in older logs
    deadline_seconds = fields.Integer(
        load_default=None, allow_none=True, strict=True, validate=validate.Range(min=MIN_DEADLINE, max=MAX_DEADLINE)
    )
    claim_seconds = fields.Integer(
        load_default=None,
        allow_none=True,
        strict=True,
        validate=validate.Range(min=MIN_CLAIM_SECONDS, max=MAX_CLAIM_SECONDS),
    )


class SeatJoinedPayload(JoinSchema):  # the name exactly as POST .../seats takes it
    seat = _seat()
    bot = StrictBoolean(required=True)
    token_hash = fields.String(allow_none=True, validate=HASH)  # older logs only (service/infra/tokens.py)
    level = fields.String(allow_none=True, validate=validate.OneOf(LEVELS))  # a bot's level (older logs: none)


class OrdersSetPayload(Strict):
    seat = _seat()
    auto_pass = StrictBoolean(required=True)
    auto_discard = StrictBoolean(required=True)


class WebhookSetPayload(Strict):
    seat = _seat()
    registered = StrictBoolean(required=True)


class SeatReissuedPayload(Strict):
    seat = _seat()
    token_hash = fields.String(validate=HASH)  # older logs only


class SpectatingSetPayload(Strict):
    enabled = StrictBoolean(required=True)


class WindowClosedPayload(Strict):
    window = fields.String(required=True, validate=validate.OneOf(["ting"]))


PAYLOADS: dict[str, type[Schema]] = {
    rooms.MATCH_CREATED: MatchCreatedPayload,
    rooms.SEAT_JOINED: SeatJoinedPayload,
    rooms.ORDERS_SET: OrdersSetPayload,
    rooms.WEBHOOK_SET: WebhookSetPayload,
    rooms.SPECTATING_SET: SpectatingSetPayload,
    rooms.SEAT_REISSUED: SeatReissuedPayload,
    rooms.WINDOW_CLOSED: WindowClosedPayload,
}


def check_service_events(rows: list[dict]) -> None:
    """422 log_rejected at the first service event the live endpoints could not have written."""
    room: Optional[rooms.Room] = None
    for number, row in enumerate(rows, start=1):
        kind_, payload = row.get("type"), row.get("payload")
        if kind_ not in PAYLOADS:
            continue
        problem = _payload_problem(kind_, payload)
        if problem is None and isinstance(payload, dict):
            problem = _order_problem(room, kind_, payload, number)
        if problem:
            raise Rejected("log_rejected", f"row {number} ({kind_}): {problem}")
        room = rooms.evolve(room or rooms.Room(), kind_, payload)  # type: ignore[arg-type]  # checked above


def _payload_problem(kind_: str, payload: Any) -> Optional[str]:
    if not isinstance(payload, dict):
        return "the payload must be an object"
    try:
        loaded = PAYLOADS[kind_]().load(payload)
    except ValidationError as exc:
        return f"invalid payload: {exc.messages}"
    if kind_ == rooms.MATCH_CREATED:
        try:
            if normalise(loaded["variant"], loaded["options"]) != payload["options"]:
                return "the options are not as POST /api/matches stores them (normalised)"
        except OptionError as exc:
            return f"invalid options: {exc}"
    return None


def _order_problem(room: Optional[rooms.Room], kind_: str, payload: dict, number: int) -> Optional[str]:
    if kind_ == rooms.MATCH_CREATED:
        return None if room is None and number == 1 else "match_created must be the first event, once"
    if room is None:
        return "the log must start with match_created"
    if kind_ == rooms.SEAT_JOINED and payload["seat"] != room.free_seat():
        return f"seat {payload['seat']} is not the next free seat ({room.free_seat()})"
    if kind_ == rooms.SEAT_REISSUED and (room.seats[payload["seat"]] is None or room.is_bot(payload["seat"])):
        return f"seat {payload['seat']} is not a human player's seat"
    return None
