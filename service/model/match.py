"""The match as the service sees it: `Loaded`, a match folded up to a version, and its stream's name.

The repository (service/infra/repository.py) makes these; the use cases, views and standing
orders read them. A `Loaded` never changes: an append makes a new one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import room as rooms
from .numbering import NONE_HIDDEN, Numbering

STREAM_PREFIX = "match-"


@dataclass(frozen=True)
class Loaded:
    """A match folded up to `version`: the engine's state, the room, and which of its events each
    viewer may not see (`numbering`: per-viewer versions, service/model/numbering.py)."""

    match_id: str
    version: int  # global: the store's numbering (appends, concurrency); never shown to a viewer in play
    state: Any
    room: rooms.Room
    numbering: Numbering = NONE_HIDDEN

    def version_for(self, viewer: Any) -> int:
        """The match's version in `viewer`'s numbering (a seat, None/spectator: public, "all": global)."""
        return self.numbering.local(self.version, viewer)

    @property
    def started(self) -> bool:
        return self.room.full and self.state.phase != "lobby"

    @property
    def over(self) -> bool:
        return self.state.phase == "match_over"


def stream_of(match_id: str) -> str:
    return STREAM_PREFIX + match_id
