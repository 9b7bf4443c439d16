"""The room projection: who sits where; folded from service-level events.

Tokens are checked against `tf_tokens` (service/infra/tokens.py), never against the events: the
events of matches made since carry no token hash, and the hashes older ones carry are not read."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Callable, Iterable, Literal, NotRequired, Optional, TypedDict

SEATS = 4
MATCH_CREATED = "match_created"
SEAT_JOINED = "seat_joined"
ORDERS_SET = "orders_set"  # a seat's standing orders (service/model/orders.py)
WEBHOOK_SET = "webhook_set"  # a seat (un)registered a webhook; URL and secret live in tf_webhooks
SPECTATING_SET = "spectating_set"  # the owner turned spectating on or off
SEAT_REISSUED = "seat_reissued"  # the owner issued a fresh invite for a seat: a new token, the old one stops working
#: the H-4 报听 window at the deal closed on an answer nobody else sees (per-viewer
#: versions): the one event that tells the table it moved on (no engine event follows the last
#: answer there, unlike a G-6/G-7 window's resolution); it changes no room state
WINDOW_CLOSED = "window_closed"


class MatchCreated(TypedDict):
    variant: str
    options: dict[str, Any]  # normalised (engine.options.normalise)
    owner_token_hash: NotRequired[str]  # only in matches made before tokens were checked in tf_tokens
    wall_commitment: NotRequired[str]  # joint walls (G-11); absent in older logs
    deadline_seconds: NotRequired[Optional[int]]  # correspondence play
    claim_seconds: NotRequired[Optional[int]]


class SeatJoined(TypedDict):
    seat: int
    name: str
    bot: bool
    token_hash: NotRequired[Optional[str]]  # only in matches made before tf_tokens (None for bots)
    level: NotRequired[Optional[str]]  # a bot's level (older logs: none)
    randomness: NotRequired[str]  # the seat's part of every hand's wall (G-11 joint walls)


class OrdersSet(TypedDict):
    seat: int
    auto_pass: bool
    auto_discard: bool


class WebhookSet(TypedDict):
    seat: int
    registered: bool


class SpectatingSet(TypedDict):
    enabled: bool


class SeatReissued(TypedDict):
    seat: int
    token_hash: NotRequired[str]  # only in matches made before tf_tokens


class WindowClosed(TypedDict):
    window: Literal["ting"]


#: the room's events, in the match stream beside the engine's: name -> (fields, schema version,
#: upcasters), the form the event catalogue reads (service/model/catalogue.py)
EVENT_TYPES: dict[str, tuple[Optional[type], int, dict[int, Callable[[dict[str, Any]], dict[str, Any]]]]] = {
    MATCH_CREATED: (MatchCreated, 1, {}),
    SEAT_JOINED: (SeatJoined, 1, {}),
    ORDERS_SET: (OrdersSet, 1, {}),
    WEBHOOK_SET: (WebhookSet, 1, {}),
    SPECTATING_SET: (SpectatingSet, 1, {}),
    SEAT_REISSUED: (SeatReissued, 1, {}),
    WINDOW_CLOSED: (WindowClosed, 1, {}),
}
SERVICE_EVENT_TYPES = frozenset(EVENT_TYPES)
NO_ORDERS = (False, False)  # (auto_pass, auto_discard)
#: payload fields of service events that no response may ever contain (token hashes: only events
#: written before tokens were checked in tf_tokens carry them).
SECRET_FIELDS = frozenset({"owner_token_hash", "token_hash"})


@dataclass(frozen=True)
class Seat:
    """One taken seat (its token is checked in tf_tokens: service/infra/tokens.py)."""

    name: str
    bot: bool
    level: Optional[str] = None  # a bot's level, engine.bot.LEVELS (bots recorded before levels: "easy")
    randomness: Optional[str] = None  # the seat's part of every hand's wall (G-11 joint walls), 64 hex digits


#: the claim timer's range: seconds (a table in play) to a week (correspondence)
MIN_CLAIM_SECONDS, MAX_CLAIM_SECONDS = 5, 604800


@dataclass(frozen=True)
class Room:
    """The match's room: variant, normalised options and the four seats."""

    variant: Optional[str] = None
    options: Optional[dict] = None
    created_at: Optional[str] = None
    seats: tuple[Optional[Seat], ...] = (None,) * SEATS
    deadline_seconds: Optional[int] = None  # correspondence play: time per decision (None: no limit)
    claim_seconds: Optional[int] = None  # time to answer a claim or rob window (None: the move deadline)
    orders: tuple[tuple[bool, bool], ...] = (NO_ORDERS,) * SEATS  # per seat (auto_pass, auto_discard)
    webhooks: tuple[bool, ...] = (False,) * SEATS  # per seat: a webhook is registered
    spectating: bool = True
    wall_commitment: Optional[str] = None  # joint walls (G-11): the server's chain end, published at creation
    #: how many tokens the match has handed out (the owner's, each human seat's, each re-invite's):
    #: changes whenever a token's verifier does, so a worker may keep the verifiers it read under it
    token_grants: int = 0

    @property
    def timed(self) -> bool:
        """Some decision of this match has a time limit (a move deadline or a claim timer)."""
        return bool(self.deadline_seconds or self.claim_seconds)

    def seconds_for(self, answering_window: bool) -> Optional[int]:
        """The time a new decision gets: the claim timer for an answer in a claim or rob window
        (when set), else the move deadline; None without a limit."""
        if answering_window and self.claim_seconds:
            return self.claim_seconds
        return self.deadline_seconds

    @property
    def exists(self) -> bool:
        return self.variant is not None

    @cached_property  # asked several times a request; a Room never changes (frozen)
    def full(self) -> bool:
        return all(seat is not None for seat in self.seats)

    def free_seat(self) -> Optional[int]:
        """The next seat to fill (seats fill in join order), None when full."""
        return next((i for i, seat in enumerate(self.seats) if seat is None), None)

    def seat_parts(self) -> list[Optional[str]]:
        """Each seat's part of the walls (None: a bot, an empty seat, a seat that sent none)."""
        return [None if s is None else s.randomness for s in self.seats]

    def is_bot(self, seat: int) -> bool:
        taken = self.seats[seat]
        return taken is not None and taken.bot

    def bot_level(self, seat: int) -> str:
        taken = self.seats[seat]
        return (taken.level if taken is not None else None) or "easy"

    def public_seats(self) -> list[Optional[dict]]:
        return [
            None if s is None else {"seat": i, "name": s.name, "bot": s.bot, **({"level": s.level} if s.bot else {})}
            for i, s in enumerate(self.seats)
        ]


def new_token() -> str:
    """A fresh secret token (shown once, stored only as a keyed MAC: service/infra/tokens.py)."""
    return secrets.token_urlsafe(24)


def new_match_id() -> str:
    """A fresh, unguessable match id (96 bits) that never starts with '-' (a command line would read
    `tilefold export -x…` as an option)."""
    while True:
        match_id = secrets.token_urlsafe(12)
        if not match_id.startswith("-"):
            return match_id


def evolve(room: Room, event_type: str, payload: dict[str, Any], recorded_at: str = "") -> Room:
    """Apply one service event to the room (other event types leave it unchanged)."""
    if event_type == MATCH_CREATED:
        return replace(
            room,
            variant=payload["variant"],
            options=dict(payload["options"]),
            created_at=recorded_at,
            deadline_seconds=payload.get("deadline_seconds"),
            wall_commitment=payload.get("wall_commitment"),
            claim_seconds=payload.get("claim_seconds"),
            token_grants=room.token_grants + 1,
        )
    if event_type == SEAT_JOINED:
        seats = list(room.seats)
        bot = bool(payload["bot"])
        seats[payload["seat"]] = Seat(
            payload["name"],
            bot,
            payload.get("level", "easy") if bot else None,
            payload.get("randomness"),
        )
        return replace(room, seats=tuple(seats), token_grants=room.token_grants + (0 if bot else 1))
    if event_type == SEAT_REISSUED:
        return replace(room, token_grants=room.token_grants + 1)
    if event_type == ORDERS_SET:
        return replace(
            room, orders=_at(room.orders, payload["seat"], (bool(payload["auto_pass"]), bool(payload["auto_discard"])))
        )
    if event_type == WEBHOOK_SET:
        return replace(room, webhooks=_at(room.webhooks, payload["seat"], bool(payload["registered"])))
    if event_type == SPECTATING_SET:
        return replace(room, spectating=bool(payload["enabled"]))
    return room


def _at(values: tuple, index: int, value: Any) -> tuple:
    return values[:index] + (value,) + values[index + 1 :]


def fold(events: Iterable[Any], room: Optional[Room] = None) -> Room:
    """Fold stored events (objects with .type/.payload/.recorded_at) into the room."""
    room = room or Room()
    for event in events:
        if event.type in SERVICE_EVENT_TYPES:
            room = evolve(room, event.type, event.payload, event.recorded_at)
    return room


def public_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """A service event's payload without token hashes."""
    return {key: value for key, value in payload.items() if key not in SECRET_FIELDS}
