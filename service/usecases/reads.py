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
from .play import public_event

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
