"""The engine's event types: each one's fields, its current schema version and its upcasters, once.

Pure data (the engine imports no store): `EVENT_TYPES` is the engine's table of declarations, name
-> (fields, version, upcasters), in the form the event catalogue reads (events/catalogue.py); the
service puts it into its catalogue beside its own types (service/model/catalogue.py). Fields are
TypedDicts (`NotRequired` for a field some events of the type leave out); a field named `from`
(a Python keyword) needs the functional form. `decision` holds what the rules decided when the
event was made (engine/versions.py, DECISION; docs/ENGINE_API.md, "Evolve only applies data").

An upcaster moves a payload's shape from one schema version to the next, never its meaning. What
the rules version changes (engine/versions.py) is not a shape: version-1 events have no recorded
decisions, which only the rules can give back (engine/decisions.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal, NotRequired, Optional, TypedDict

Seat = int  # 0..3
Tile = str  # a tile's name, G-1 ("9m", "E")
Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
WinBy = Literal["self_draw", "kong_draw", "discard", "rob_kong"]
DrawSource = Literal["wall", "kong"]


class WallParts(TypedDict):
    """The parts a joint wall's seed is derived from (G-11)."""

    server: str
    seats: list[Optional[str]]


class MatchStarted(TypedDict):
    variant: str
    options: dict[str, Any]
    first_dealer: Seat
    rules_version: int  # schema version 1 left it out for rules version 1: the upcaster adds it
    wall_commitment: NotRequired[str]  # joint walls only


def _match_started_v1(payload: dict[str, Any]) -> dict[str, Any]:
    """Schema version 1 of `match_started` had `rules_version` only from rules version 2 on: absent is 1."""
    return {"rules_version": 1, **payload}


class TingAtDeal(TypedDict):
    ting: list[Seat]  # seats asked 听 or 过 at the deal (H-4)


class HandStarted(TypedDict):
    hand: int
    dealer: Seat
    wild: Optional[Tile]
    commitment: str
    wall_count: int
    hands: list[str]
    dealer_draw: Tile
    wall: list[Tile]
    seed: Optional[str]
    wall_parts: NotRequired[WallParts]  # joint walls only
    decision: NotRequired[TingAtDeal]


class Drew(TypedDict):
    seat: Seat
    tile: Tile
    source: DrawSource


class Waits(TypedDict):
    waits: list[Tile]  # the declared hand's waits (K-3)


class TingDeclared(TypedDict):
    seat: Seat
    with_discard: NotRequired[bool]  # absent for a 报听 in the H-4 window at the deal
    reason: NotRequired[str]
    decision: NotRequired[Waits]


class Claims(TypedDict, total=False):
    claims: dict[str, list[str]]  # seat (as text) -> the answers it may give (G-6)
    waits: list[Tile]  # with the declaring discard of 扣点点


class Discarded(TypedDict):
    seat: Seat
    tile: Tile
    face_down: bool
    auto: bool
    reason: NotRequired[str]
    decision: NotRequired[Claims]


class PassedHu(TypedDict):
    passed_hu: bool  # K-5 过胡


class Responded(TypedDict):
    seat: Seat
    response: Literal["pass", "pung", "kong", "hu", "ting"]
    window: str  # the window answered: engine/state.py's CLAIM, ROB or TING
    auto: NotRequired[bool]
    reason: NotRequired[str]
    decision: NotRequired[PassedHu]


class ForfeitsKong(TypedDict):
    forfeits_kong: bool  # K-6


Punged = TypedDict(
    "Punged",
    {"seat": Seat, "tile": Tile, "from": Seat, "reason": NotRequired[str], "decision": NotRequired[ForfeitsKong]},
)
Konged = TypedDict(
    "Konged",
    {
        "seat": Seat,
        "tile": Tile,
        "kind": Literal["exposed", "added", "concealed"],
        "from": Optional[Seat],
        "reason": NotRequired[str],
    },
)


class Robbers(TypedDict):
    robbers: list[Seat]  # seats that may rob the added kong (G-7)


class KongDeclared(TypedDict):
    seat: Seat
    tile: Tile
    reason: NotRequired[str]
    decision: NotRequired[Robbers]


Won = TypedDict(
    "Won",
    {
        "seat": Seat,
        "tile": Optional[Tile],
        "by": WinBy,
        "from": Optional[Seat],
        "auto": NotRequired[bool],
        "reason": NotRequired[str],
    },
)


class Revealed(TypedDict):
    hands: list[str]
    face_down: list[list[Tile]]


class HandEnded(TypedDict):
    hand: int
    outcome: Literal["win", "draw"]
    winner: Optional[Seat]
    win: Optional[dict[str, Any]]  # the win as the table saw it (seat, tile, by, from)
    settlement: dict[str, Any]  # deltas, win_deltas, kong_deltas and the variant's score
    scores: list[int]
    revealed: Revealed
    seed: Optional[str]
    commitment: str
    wall_parts: NotRequired[WallParts]
    next_dealer: Seat
    match_over: bool


class MatchEnded(TypedDict):
    scores: list[int]
    hands: int


class MatchStartedV1(TypedDict):
    """Schema version 1 of `match_started`, which the engine still writes when it re-decides a log of
    rules version 1 (the audit): `rules_version` only from rules version 2 on."""

    variant: str
    options: dict[str, Any]
    first_dealer: Seat
    rules_version: NotRequired[int]
    wall_commitment: NotRequired[str]


def event_of(type_name: str, fields: Mapping[str, Any]) -> dict[str, Any]:
    """The event dict `{"type": type_name, **fields}`; the decider types `fields` where it builds
    them (a TypedDict above, checked by mypy)."""
    return {"type": type_name, **fields}


#: name -> (fields, current schema version, upcasters by the version they start from)
EVENT_TYPES: Mapping[str, tuple[Optional[type], int, Mapping[int, Upcaster]]] = {
    "match_started": (MatchStarted, 2, {1: _match_started_v1}),
    "hand_started": (HandStarted, 1, {}),
    "drew": (Drew, 1, {}),
    "ting_declared": (TingDeclared, 1, {}),
    "discarded": (Discarded, 1, {}),
    "responded": (Responded, 1, {}),
    "punged": (Punged, 1, {}),
    "konged": (Konged, 1, {}),
    "kong_declared": (KongDeclared, 1, {}),
    "won": (Won, 1, {}),
    "hand_ended": (HandEnded, 1, {}),
    "match_ended": (MatchEnded, 1, {}),
}
