"""One door for what a viewer reads: every answer in that viewer's own numbering and redaction.

A viewer is a seat (0-3), None (the public: spectators, summaries, the match list) or "all" (the
full record, once a match is over). Whatever a read hands out is counted in the viewer's numbering
(service/model/numbering.py), never the store's global one, so nothing hidden from the viewer can
move it; and every row comes through the repository's `read`, which checks it against the hash
chain before it is served (service/infra/repository.py).
"""

from __future__ import annotations

from typing import Any, Optional

import engine

from ..infra.repository import Loaded, MatchRepository
from ..model import room as rooms
from ..model.numbering import Numbering, hidden_from
from ..model.orders import STANDING_ORDER

#: the engine events a "last move" line may name (never `responded`: who was asked is not public)
MOVES = frozenset(
    {"hand_started", "discarded", "punged", "konged", "ting_declared", "won", "hand_ended", "match_ended"}
)
LOOK_BACK = 12  # events of the viewer's own numbering a "last move" looks back over


def shown_to(loaded: Loaded, viewer: Any) -> Any:
    """Whose redaction a viewer's reads use: its own in play, the full record once the match is over."""
    return "all" if loaded.over else viewer


def recent(repo: MatchRepository, loaded: Loaded, viewer: Any, count: int) -> list[dict]:
    """The last `count` events `viewer` may see (in its own numbering: events hidden from it neither
    count nor show), oldest first, as public_event dicts with global versions."""
    last = loaded.version_for(viewer)
    since = loaded.numbering.to_global(max(0, last - count), viewer)
    stored = repo.read(loaded.match_id, since, until=loaded.version)
    redaction = shown_to(loaded, viewer)
    out = []
    for event in stored:
        if loaded.numbering.is_hidden(event.version, viewer) and not loaded.over:
            continue
        item = public_event(event, redaction)
        if item is not None:
            out.append(item)
    return out


def last_move(repo: MatchRepository, loaded: Loaded, viewer: Any) -> Optional[dict]:
    """The latest move `viewer` may see among its last LOOK_BACK events (its own numbering): its
    type, seat, tile and time; None when none of those is a move."""
    for item in reversed(recent(repo, loaded, viewer, LOOK_BACK)):
        if item["type"] in MOVES:
            return {
                "type": item["type"],
                "seat": item["payload"].get("seat"),
                "tile": item["payload"].get("tile"),
                "at": item["recorded_at"],
            }
    return None


def ting_choices(loaded: Loaded, seat: int) -> list[dict]:
    """The seat's 报听 choices (K-2, H-4) as the engine gives them; none outside play."""
    if not loaded.started or loaded.over:
        return []
    return engine.ting_choices(loaded.state, seat)


def visible_events(stored, viewer: Any) -> list[dict]:
    """The stored events `viewer` may see, each redacted (engine.redact drops window answers and tells)."""
    items = (public_event(e, viewer) for e in stored)
    return [item for item in items if item is not None]


def renumbered(items: list[dict], numbering: Numbering, viewer: Any) -> list[dict]:
    """`items` (public_event dicts, global versions) with each version in `viewer`'s numbering;
    None for an event hidden from `viewer` in play (shown only in a finished match's full feed)."""
    for item in items:
        version = item["version"]
        item["version"] = None if numbering.is_hidden(version, viewer) else numbering.local(version, viewer)
    return items


def public_event(stored, viewer: Any) -> Optional[dict]:
    """One stored event as {version, type, payload, recorded_at}, redacted for viewer (None: not shown)."""
    if stored.type in rooms.SERVICE_EVENT_TYPES:
        if hidden_from({"type": stored.type, **stored.payload}, viewer):
            return None  # another seat's standing orders
        payload = rooms.public_payload(stored.payload)
    else:
        redacted = engine.redact({"type": stored.type, **stored.payload}, viewer)
        if redacted is None:
            return None
        payload = {key: value for key, value in redacted.items() if key != "type"}
        if payload.get("reason") == STANDING_ORDER and viewer != "all" and viewer != payload.get("seat"):
            payload.pop("reason")  # a move made by a standing order looks like any other to the table
    return {"version": stored.version, "type": stored.type, "payload": payload, "recorded_at": stored.recorded_at}
