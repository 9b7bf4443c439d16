"""Snapshots: a match's folded state kept beside its events (never replacing them).

A snapshot is kept every `every` events and at every hand end (by the worker that appended
them), and after a cold load had to fold more than `every` events (which also rebuilds snapshots
after the engine's rules version changed, or of an import): saved by the worker's ticker
(`MatchRepository.keep_folded`), never by the load, since a read writes nothing. With `head` on, the
same pass also leaves the rolling latest snapshot (one row per match, replaced by the next) of
every match the worker appended to since its last pass, so a cold load folds at most the events of
about a second: folding is dear (a discard costs a claim analysis for each seat). A cold load reads the latest snapshot in the current
format plus the events after it. The format key names the engine's rules version and the shape
of the state's classes: a snapshot of any other format is ignored (and a new one written).

Snapshots are pickles of (MatchState, Room, the per-viewer numbering as raw bytes) written only by this service into its own database
(never imported: an import stores events only); docs/STORE.md, "Snapshots". Each row is sealed to
the hash chain: the store keeps the hash of the event row at the snapshot's version and
a seal over its bytes bound to that hash, and checks both before handing the bytes over, so an
edited snapshot row is never unpickled: the load answers 503 `integrity_error` with a logged error,
as for an edited event row. The bytes are then unpickled with only the state's own classes
allowed (`decode`): no other global, so no function call. docs/AUDIT.md, "Integrity on load".
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import logging
import pickle
import threading
from typing import Any, Iterable, Optional

import engine
from engine import state as states
from events import EventStoreContract, ForgedSnapshot

from . import metrics
from ..model import room as rooms
from ..model.numbering import NONE_HIDDEN, Numbering
from ..model.errors import IntegrityFailure

log = logging.getLogger(__name__)
HAND_ENDS = frozenset({"hand_ended", "match_ended"})
PICKLE_PROTOCOL = 5


#: every class a snapshot holds, and the only globals `decode` lets a pickle name
CLASSES = (states.MatchState, states.HandState, states.SeatHand, states.Window, rooms.Room, rooms.Seat)
ALLOWED = {(c.__module__, c.__qualname__): c for c in CLASSES}


def _shape() -> str:
    """The field names of every class a snapshot holds: a new field makes old snapshots unreadable."""
    text = ";".join(f"{c.__name__}:{','.join(f.name for f in dataclasses.fields(c))}" for c in CLASSES)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


SHAPE = _shape()


def format_key() -> str:
    """The format snapshots are written (and read) in now: sealed pickle, rules version, state shape
    ("sealed": rows from before seals are never read, so they cannot pass for sealed ones;
    "numbered": with the per-viewer numbering, service/model/numbering.py; "private-orders": standing
    orders hidden from the other viewers' numberings)."""
    return f"sealed-pickle{PICKLE_PROTOCOL}-rules{engine.RULES_VERSION}-{SHAPE}-numbered-private-orders"


def encode(state: Any, room: rooms.Room, numbering: Numbering = NONE_HIDDEN) -> bytes:
    clean = state.clone()
    clean.cache = {}  # derived; rebuilt on demand (engine.actions)
    return pickle.dumps((clean, room, numbering.to_bytes()), protocol=PICKLE_PROTOCOL)


class RefusedGlobal(pickle.UnpicklingError):
    """A snapshot's pickle names a global that is not one of the state's classes: never written by
    this service, so a forged snapshot (whatever its seal says)."""


class _StateUnpickler(pickle.Unpickler):
    """Unpickles only the state's own classes (docs.python.org's "Restricting Globals")."""

    def find_class(self, module: str, name: str) -> Any:
        found = ALLOWED.get((module, name))
        if found is None:
            raise RefusedGlobal(f"a snapshot may not name {module}.{name}")
        return found


def decode(data: bytes) -> tuple[Any, rooms.Room, Numbering]:
    """(state, room, per-viewer numbering) of a snapshot (service/model/numbering.py: the versions hidden
    from each viewer up to the snapshot, so a cold load reads no older event for them; kept as
    plain bytes, so the pickle names no class of its own)."""
    state, room, hidden = _StateUnpickler(io.BytesIO(data)).load()
    if not isinstance(state, states.MatchState) or not isinstance(room, rooms.Room):
        raise pickle.UnpicklingError("a snapshot is (MatchState, Room, numbering)")
    return state, room, Numbering.from_bytes(hidden)


def refuse_forged(stream: str, problem: Exception) -> IntegrityFailure:
    """Log an edited snapshot row as an error; the refusal a load raises instead of its state."""
    metrics.INTEGRITY_ERRORS.labels("snapshot").inc()
    log.error("%s fails its snapshot check, refusing to serve it: %s", stream, problem)
    return IntegrityFailure(
        stream.removeprefix("match-"), f"snapshot: {problem}", "stored snapshot fails its check against the hash chain"
    )


class Snapshots:
    """Save and load a match's snapshots in the event store (`save_snapshot` / `load_snapshot`)."""

    HEADS = 4096  # streams whose rolling snapshot waits for the ticker (beyond: a cold load folds more)

    def __init__(self, store: EventStoreContract, every: int, head: bool = True) -> None:
        self.store = store
        self.every = max(1, int(every))
        self.head = head
        self._heads: dict[str, Any] = {}  # stream -> the newest Loaded this worker appended, unsaved
        self._lock = threading.Lock()

    def load(self, stream: str, max_version: Optional[int] = None) -> Optional[tuple[int, Any, rooms.Room, Numbering]]:
        """(version, state, room, numbering) of the latest usable snapshot, or None (an unreadable
        one is ignored); a forged one (seal, chain or a refused global) is a 503 with a logged error."""
        try:
            found = self.store.load_snapshot(stream, format_key(), max_version)  # seal checked first
            if found is None:
                return None
            state, room, numbering = decode(found[1])
            return found[0], state, room, numbering
        except (ForgedSnapshot, RefusedGlobal) as forged:
            raise refuse_forged(stream, forged) from None
        except Exception:  # noqa: BLE001 - a snapshot is an optimisation: fold from the start instead
            log.warning("ignoring an unreadable snapshot of %s", stream, exc_info=True)
            return None

    def save(
        self,
        stream: str,
        version: int,
        state: Any,
        room: rooms.Room,
        keep: bool = True,
        numbering: Numbering = NONE_HIDDEN,
    ) -> None:
        try:
            self.store.save_snapshot(stream, version, format_key(), encode(state, room, numbering), keep=keep)
            metrics.SNAPSHOT_WRITES.labels("ok").inc()
        except Exception:  # noqa: BLE001 - never fail a request over a snapshot
            metrics.SNAPSHOT_WRITES.labels("failed").inc()
            log.warning("could not save a snapshot of %s at %s", stream, version, exc_info=True)

    def after_append(self, stream: str, before: int, loaded: Any, event_types: Iterable[str]) -> None:
        """The snapshot an append from version `before` to `loaded` leaves: a kept one now (every
        `every` events, hand ends: replay pages start there), else, with `head`, the stream's rolling
        one at the worker's next ticker pass (`save_heads`): not in the request, which would pay a
        pickle and a second write for each action, where the pass writes one a match a second."""
        if self.due(before, loaded.version, event_types):
            with self._lock:
                self._heads.pop(stream, None)  # the kept one is newer
            self.save(stream, loaded.version, loaded.state, loaded.room, numbering=loaded.numbering)
        elif self.head:
            with self._lock:
                known = self._heads.get(stream)
                if (known is None and len(self._heads) < self.HEADS) or (known and known.version < loaded.version):
                    self._heads[stream] = loaded

    def save_heads(self) -> int:
        """Save the rolling snapshot of every stream appended to since the last call, at the newest
        version this worker appended (the ticker's pass, every worker's); how many were saved."""
        with self._lock:
            heads, self._heads = self._heads, {}
        for stream, loaded in heads.items():
            self.save(stream, loaded.version, loaded.state, loaded.room, keep=False, numbering=loaded.numbering)
        return len(heads)

    def due(self, before: int, after: int, event_types: Iterable[str]) -> bool:
        """Whether an append moving a match from `before` to `after` should leave a snapshot."""
        return after // self.every > before // self.every or any(t in HAND_ENDS for t in event_types)
