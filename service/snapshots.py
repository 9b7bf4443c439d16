"""Snapshots: a match's folded state kept beside its events (never replacing them).

A snapshot is kept every `every` events and at every hand end (by the worker that appended
them), and when a cold load had to fold more than `every` events (which also rebuilds snapshots
after the engine's rules version changed). With `head` on, every other append also leaves the
stream's rolling latest snapshot (one row per match, replaced by the next), so a cold load folds
no event at all: folding is dear (a discard costs a claim analysis for each seat). A cold load reads the latest snapshot in the current
format plus the events after it. The format key names the engine's rules version and the shape
of the state's classes: a snapshot of any other format is ignored (and a new one written).

Snapshots are pickles of (MatchState, Room) written only by this service into its own database
(never imported: an import stores events only); docs/STORE.md, "Snapshots".
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import pickle
from typing import Any, Iterable, Optional

import engine
from engine import state as states

from . import room as rooms

log = logging.getLogger(__name__)
HAND_ENDS = frozenset({"hand_ended", "match_ended"})
PICKLE_PROTOCOL = 5


def _shape() -> str:
    """The field names of every class a snapshot holds: a new field makes old snapshots unreadable."""
    classes = (states.MatchState, states.HandState, states.SeatHand, states.Window, rooms.Room, rooms.Seat)
    text = ";".join(f"{c.__name__}:{','.join(f.name for f in dataclasses.fields(c))}" for c in classes)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


SHAPE = _shape()


def format_key() -> str:
    """The format snapshots are written (and read) in now: pickle, rules version, state shape."""
    return f"pickle{PICKLE_PROTOCOL}-rules{engine.RULES_VERSION}-{SHAPE}"


def encode(state: Any, room: rooms.Room) -> bytes:
    clean = state.clone()
    clean.cache, clean.rules = {}, None  # derived; rebuilt on demand (engine.actions)
    return pickle.dumps((clean, room), protocol=PICKLE_PROTOCOL)


def decode(data: bytes) -> tuple[Any, rooms.Room]:
    state, room = pickle.loads(data)
    return state, room


class Snapshots:
    """Save and load a match's snapshots in the event store (`save_snapshot` / `load_snapshot`)."""

    def __init__(self, store: Any, every: int, head: bool = True) -> None:
        self.store = store
        self.every = max(1, int(every))
        self.head = head
        self.enabled = store is None or hasattr(store, "load_snapshot")  # a backend without them: always fold

    def load(self, stream: str, max_version: Optional[int] = None) -> Optional[tuple[int, Any, rooms.Room]]:
        """(version, state, room) of the latest usable snapshot, or None (a broken one is ignored)."""
        if not self.enabled:
            return None
        try:
            found = self.store.load_snapshot(stream, format_key(), max_version)
            if found is None:
                return None
            state, room = decode(found[1])
            return found[0], state, room
        except Exception:  # noqa: BLE001 - a snapshot is an optimisation: fold from the start instead
            log.warning("ignoring an unreadable snapshot of %s", stream, exc_info=True)
            return None

    def save(self, stream: str, version: int, state: Any, room: rooms.Room, keep: bool = True) -> None:
        if not self.enabled:
            return
        try:
            self.store.save_snapshot(stream, version, format_key(), encode(state, room), keep=keep)
        except Exception:  # noqa: BLE001 - never fail a request over a snapshot
            log.warning("could not save a snapshot of %s at %s", stream, version, exc_info=True)

    def after_append(self, stream: str, before: int, loaded: Any, event_types: Iterable[str]) -> None:
        """The snapshot an append from version `before` to `loaded` leaves: kept, rolling or none."""
        if self.due(before, loaded.version, event_types):
            self.save(stream, loaded.version, loaded.state, loaded.room)
        elif self.head:
            self.save(stream, loaded.version, loaded.state, loaded.room, keep=False)

    def due(self, before: int, after: int, event_types: Iterable[str]) -> bool:
        """Whether an append moving a match from `before` to `after` should leave a snapshot."""
        return after // self.every > before // self.every or any(t in HAND_ENDS for t in event_types)
