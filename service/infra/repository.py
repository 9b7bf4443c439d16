"""Match streams in the event store, with an in-process LRU of folded (engine, room) state."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional

import engine
from events import AppendResult, EventStoreContract, NewEvent, StoredEvent, compute_hash, verify_chain

from . import metrics
from ..model import room as rooms
from ..model.catalogue import new_event
from ..model.match import STREAM_PREFIX, Loaded, stream_of
from ..model.numbering import NONE_HIDDEN
from ..model.errors import IntegrityFailure, NotFound
from .keys import Keyring
from .snapshots import Snapshots

log = logging.getLogger(__name__)


def to_new_event(event: dict[str, Any]) -> NewEvent:
    """An engine or service event dict ({"type": ..., fields}) as the store's NewEvent, built through
    the event catalogue: its fields checked, at its type's current schema version."""
    return new_event(event)


def to_engine_event(stored: StoredEvent) -> dict[str, Any]:
    return {"type": stored.type, **stored.payload}


def engine_events(stored: Iterable[StoredEvent]) -> list[dict[str, Any]]:
    """Only the engine's events (service events never reach engine.fold)."""
    return [to_engine_event(e) for e in stored if e.type not in rooms.SERVICE_EVENT_TYPES]


@dataclass(frozen=True)
class Effects:
    """What an append writes besides its events, in the same transaction (correspondence play).

    `notices`: webhook notices (outbox rows); `writes`: the service's own rows that describe the
    match after the append (its pending decisions, a seat's webhook), each `write(conn)`.
    """

    notices: tuple[dict, ...] = ()
    writes: tuple[Callable[[Any], None], ...] = ()

    def __add__(self, other: "Effects") -> "Effects":
        return Effects(self.notices + other.notices, self.writes + other.writes)


NO_EFFECTS = Effects()


class StateCache:
    """Thread-safe LRU: match id -> Loaded (immutable snapshots, never mutated)."""

    def __init__(self, size: int) -> None:
        self.size = max(1, size)
        self._items: OrderedDict[str, Loaded] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, match_id: str) -> Optional[Loaded]:
        with self._lock:
            item = self._items.get(match_id)
            if item is not None:
                self._items.move_to_end(match_id)
            return item

    def put(self, loaded: Loaded) -> None:
        with self._lock:
            current = self._items.get(loaded.match_id)
            if current is not None and current.version > loaded.version:
                return
            self._items[loaded.match_id] = loaded
            self._items.move_to_end(loaded.match_id)
            while len(self._items) > self.size:
                self._items.popitem(last=False)


class Unkept:
    """The newest fold of each match a cold load made without a usable snapshot, until the ticker
    keeps its snapshot (bounded: forgetting one only costs another fold)."""

    LIMIT = 256  # at most what the state cache holds by default (512): they are mostly the same objects

    def __init__(self) -> None:
        self._items: dict[str, Loaded] = {}
        self._lock = threading.Lock()

    def note(self, loaded: Loaded) -> None:
        with self._lock:
            if loaded.match_id in self._items or len(self._items) < self.LIMIT:
                self._items[loaded.match_id] = loaded

    def take(self) -> list[Loaded]:
        with self._lock:
            items, self._items = list(self._items.values()), {}
        return items


class MatchRepository:
    """Loads and appends match streams; loading reads only the events after the cached version."""

    def __init__(
        self,
        store: EventStoreContract,
        cache_size: int = 512,
        snapshot_every: int = 100,
        snapshot_head: bool = True,
        keyring: Optional[Keyring] = None,
    ) -> None:
        self.store = store
        self.keyring = keyring  # signs hand and match ends (service/usecases/signing.py); None: unsigned
        self.cache = StateCache(cache_size)
        self.snapshots = Snapshots(store, snapshot_every, snapshot_head)
        self._unkept = Unkept()  # cold loads' folds whose snapshot the ticker writes (keep_folded)

    def load(self, match_id: str) -> Loaded:
        """The match at its latest version; NotFound when there is no such match.

        Not in this worker's cache: the latest snapshot plus the events after it (service/infra/snapshots.py).
        """
        cached = self.cache.get(match_id)
        cold = cached is None
        metrics.child(metrics.MATCH_LOADS, "cold" if cold else "hit").inc()
        if cold:
            cached = self._from_snapshot(match_id)
            # The rows this load folds (after the snapshot); read() checks every row it hands
            # out as it reads it, so no row reaches a client unchecked.
            self.check_integrity(match_id, cached.version if cached else 0)
        after = cached.version if cached else 0
        # cold: those rows were just checked; warm: the rows appended since are checked as they are read
        new = self.store.read(stream_of(match_id), after=after) if cold else self.read(match_id, after)
        if not new:
            if cached is None:
                raise NotFound("match_not_found", f"no match {match_id!r}")
            self.cache.put(cached)
            return cached
        loaded = self._fold(match_id, cached, new)
        self.cache.put(loaded)
        if cold and len(new) >= self.snapshots.every:  # none yet, or of an older rules version
            self._unkept.note(loaded)  # kept by the ticker (keep_folded): a load never writes
        return loaded

    def cached(self, match_id: str, version: int) -> Optional[Loaded]:
        """The match as this worker's cache holds it, if at `version` or later (no query; None else)."""
        found = self.cache.get(match_id)
        return found if found is not None and found.version >= version else None

    def keep_folded(self) -> int:
        """Save the snapshot of every match a cold load of this worker folded from further back
        than a snapshot's worth of events (none yet, or of an older rules version, or an import),
        so the next cold load anywhere reads it, and the rolling snapshot of every match this worker
        appended to since the last call (Snapshots.save_heads); the ticker calls it (a read never
        writes). How many snapshots it saved."""
        taken = self._unkept.take()
        for loaded in taken:
            self.snapshots.save(
                stream_of(loaded.match_id), loaded.version, loaded.state, loaded.room, numbering=loaded.numbering
            )
        return len(taken) + self.snapshots.save_heads()

    def _from_snapshot(self, match_id: str, max_version: Optional[int] = None) -> Optional[Loaded]:
        found = self.snapshots.load(stream_of(match_id), max_version)
        return Loaded(match_id, found[0], found[1], found[2], found[3]) if found else None

    def at(self, match_id: str, version: int) -> Optional[Loaded]:
        """The match folded up to exactly `version` from the latest snapshot at or before it (None: no
        such version); bounded work however long the match (replay pages)."""
        start = self._from_snapshot(match_id, version)
        after = start.version if start else 0
        new = self.read(match_id, after, until=version) if version > after else []
        if not new:
            return start
        return self._fold(match_id, start, new)

    def check_integrity(self, match_id: str, after: int = 0) -> None:
        """Each stored row after `after` against the chain, as stored (the store's `chain_problem`).

        A row edited inside the database file (its triggers dropped and restored) no longer matches
        its hash, or breaks the chain after it: IntegrityFailure (503) and a logged error instead of
        a forged state. A cold load checks the rows after its snapshot (the ones it folds); `read`
        checks each row it hands out as it reads it; `read_types` checks the stream each time.
        """
        problem = self.store.chain_problem(stream_of(match_id), after)
        if problem:
            self._refuse(match_id, problem)

    @staticmethod
    def _refuse(match_id: str, problem: str) -> None:
        metrics.INTEGRITY_ERRORS.labels("chain").inc()
        log.error("match %s fails its hash chain, refusing to serve it: %s", match_id, problem)
        raise IntegrityFailure(match_id, problem)

    def latest(self, match_id: str) -> Loaded:
        """The newest state this worker knows (cached after its own appends), else load()."""
        return self.cache.get(match_id) or self.load(match_id)

    @staticmethod
    def _fold(match_id: str, cached: Optional[Loaded], new: list[StoredEvent]) -> Loaded:
        state = cached.state if cached else None
        fresh = engine_events(new)
        if fresh or state is None:
            state = engine.fold(fresh, state)
        room = rooms.fold(new, cached.room if cached else None)
        if not room.exists:
            raise NotFound("match_not_found", f"no match {match_id!r}")
        numbering = (cached.numbering if cached else NONE_HIDDEN).extended((e.version, e.type, e.payload) for e in new)
        return Loaded(match_id, new[-1].version, state, room, numbering)

    def append(
        self,
        match_id: str,
        expected_version: int,
        events: list[dict[str, Any]],
        idempotency_key: Optional[str] = None,
        fingerprint: Optional[str] = None,
        own: Optional[int] = None,
        effects: Effects = NO_EFFECTS,
    ) -> AppendResult:
        """Append to the match's stream, with its `effects` in the same transaction; `own`: see
        EventStore.append (the result covers those)."""
        with metrics.timed(metrics.APPEND_SECONDS):
            return self.store.append(
                stream_of(match_id),
                expected_version,
                [to_new_event(e) for e in events],
                idempotency_key,
                request_fingerprint=fingerprint,
                own=own,
                outbox=effects.notices or None,
                extra=_run_all(effects.writes),
            )

    def prior_result(self, match_id: str, idempotency_key: str, fingerprint: Optional[str]) -> Optional[AppendResult]:
        """The first result stored under an idempotency key of this match (replayed=True), or None;
        IdempotencyMismatch when the key was used with another request."""
        return self.store.idempotent_result(idempotency_key, stream_of(match_id), fingerprint)

    def append_on(
        self,
        loaded: Loaded,
        events: list[dict[str, Any]],
        state: Any = None,
        idempotency_key: Optional[str] = None,
        fingerprint: Optional[str] = None,
        own: Optional[int] = None,
        effects: Effects = NO_EFFECTS,
    ) -> AppendResult:
        """Append on top of `loaded`, then cache the match folded in memory (no re-read, no re-fold).

        `state` is the engine state after `events` when the caller already has it. The append only
        succeeds at exactly `loaded.version`, so the folded result is the match at the new version;
        the cache never moves backwards, so a newer state cached by a racing request is kept.
        """
        result = self.append(loaded.match_id, loaded.version, events, idempotency_key, fingerprint, own, effects)
        if not result.replayed and result.first_version == loaded.version + 1:
            after = _folded(loaded, events, state, loaded.version + len(events))
            self.cache.put(after)
            self.snapshots.after_append(stream_of(after.match_id), loaded.version, after, [e["type"] for e in events])
        return result

    def read(self, match_id: str, after: int = 0, until: Optional[int] = None) -> list[StoredEvent]:
        """Rows after `after` (up to `until`), each checked against the chain as it is handed out:
        its hash recomputed from what was read and the hash of the row before it (read with them),
        so a row edited in the database after this worker first read it, or cached the match, is
        never served. IntegrityFailure names the row."""
        limit = None if until is None else max(0, until - after)
        if limit == 0:
            return []
        start = max(0, after - 1)  # the row before the first: its hash is the first one's link
        rows = self.store.read(stream_of(match_id), after=start, limit=None if limit is None else limit + after - start)
        if after > 0:
            if not rows:
                return []
            if rows[0].version != after:
                self._refuse(match_id, f"v{after}: missing (found v{rows[0].version})")
            link, rows = rows[0].hash, rows[1:]
        else:
            link = ""
        self._check_rows(match_id, after, link, rows)
        return rows

    def _check_rows(self, match_id: str, after: int, link: str, rows: list[StoredEvent]) -> None:
        """Each row's hash recomputed from its content and the row before it; on a mismatch the
        stored text decides (`check_integrity`), since a payload read back upcast to a newer schema
        no longer hashes as stored."""
        expected = after + 1
        for row in rows:
            fields = {
                "stream": row.stream,
                "version": row.version,
                "type": row.type,
                "schema_version": row.schema_version,
                "payload": row.payload,
                "recorded_at": row.recorded_at,
            }
            if row.version != expected or compute_hash(link, fields) != row.hash:
                self.check_integrity(match_id, after)
                return
            link, expected = row.hash, expected + 1

    def export_rows(self, match_id: str) -> list[dict[str, Any]]:
        """Every stored row of the match as stored (for a log), each checked against the chain:
        the stream as a whole (its head: nothing dropped at the end), then exactly the rows handed
        out (nothing edited between the check and the read). IntegrityFailure names the row."""
        self.check_integrity(match_id)
        rows = self.store.export_rows(stream_of(match_id))
        problems = verify_chain(rows)
        if problems:
            first = problems[0]
            metrics.INTEGRITY_ERRORS.labels("chain").inc()
            log.error("match %s fails its hash chain, refusing to export it: %s", match_id, first)
            raise IntegrityFailure(match_id, f"v{first.version}: {first.kind}: {first.message}")
        return rows

    def read_types(self, match_id: str, types: tuple) -> list[StoredEvent]:
        """Only the rows of `types` (a backend without the filter: read all, keep those), the
        stream checked against the chain first, each time (its rows are not contiguous: `read`'s
        row-by-row check does not apply)."""
        self.check_integrity(match_id)
        try:
            return self.store.read(stream_of(match_id), types=types)
        except TypeError:
            return [item for item in self.store.read(stream_of(match_id)) if item.type in types]

    def version(self, match_id: str) -> int:
        return self.store.current_version(stream_of(match_id))

    def match_ids_newest_first(self, before: Optional[str] = None, limit: int = 100) -> list[str]:
        """Match ids, newest first by creation; `before`: a match id (the page's cursor)."""
        streams = self.store.streams_newest_first(STREAM_PREFIX, None if before is None else stream_of(before), limit)
        return [s[len(STREAM_PREFIX) :] for s in streams]

    def match_ids(self) -> list[str]:
        return [s[len(STREAM_PREFIX) :] for s in self.store.streams() if s.startswith(STREAM_PREFIX)]


def room_after(room: rooms.Room, events: list[dict[str, Any]]) -> rooms.Room:
    """The room with the service events among `events` (dicts, as appended) applied."""
    for event in events:
        if event["type"] in rooms.SERVICE_EVENT_TYPES:
            room = rooms.evolve(room, event["type"], to_new_event(event).payload)
    return room


def _run_all(writes: tuple[Callable[[Any], None], ...]) -> Optional[Callable[[Any], None]]:
    """One `extra(conn)` running every write in order (None when there is none)."""
    if not writes:
        return None

    def run(conn: Any) -> None:
        for write in writes:
            write(conn)

    return run


def _folded(loaded: Loaded, events: list[dict[str, Any]], state: Any, version: int) -> Loaded:
    """`loaded` with freshly appended events applied (service events to the room, the rest to the engine)."""
    room = room_after(loaded.room, events)
    if state is None:
        fresh = [e for e in events if e["type"] not in rooms.SERVICE_EVENT_TYPES]
        state = engine.fold(fresh, loaded.state) if fresh else loaded.state
    numbering = loaded.numbering.extended(
        (number, event["type"], event) for number, event in enumerate(events, start=loaded.version + 1)
    )
    return Loaded(loaded.match_id, version, state, room, numbering)
