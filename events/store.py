"""EventStore: append-only, hash-chained SQLite event streams with idempotency and an outbox."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Union

from sqlite_utils import Database

from .chain import (
    Problem,
    canonical_json,
    check_imported_chain,
    checked_snapshot,
    hash_new_row,
    snapshot_seal,
    verify_chain,
)
from .connection import Connections
from .errors import ConcurrencyError, IdempotencyMismatch
from .models import AppendResult, NewEvent, OutboxItem, StoredEvent
from . import json_fast
from .catalogue import Catalogue, EventType, validate_type_name
from .registry import default_registry
from .migrations import Plan, Steps
from .schema import HEAD_TRIGGERS, check, migrate, schema_plan

EventLike = Union[NewEvent, Mapping[str, Any]]
MAX_STREAM_NAME = 200
ROW_COLUMNS = "position, stream, version, type, schema_version, payload, recorded_at, hash"
INSERT_COLUMNS = "stream, version, type, schema_version, payload, recorded_at, hash"
INSERT_ROW = "(?, ?, ?, ?, ?, ?, ?)"
#: a snapshot row with what its check needs: the hash of the event row at its version (LEFT JOIN e)
SNAPSHOT_SEALED = "s.version, s.data, s.chain_hash, s.seal, e.hash"
MAX_STATEMENT_ROWS = 500  # 7 parameters a row, well under SQLite's 32,766 variables
HEAD_CACHE = 10_000  # streams whose head (version, hash) a store remembers


#: (a whole second since the epoch, its "YYYY-MM-DDTHH:MM:SS"): utc_now formats a second once
_SECOND: tuple[int, str] = (-1, "")


def utc_now() -> str:
    """Current time as ISO-8601 UTC with microseconds, e.g. 2024-05-01T12:00:00.123456Z (as `iso`).

    Every append stamps its rows: the second's text is kept and only the microseconds formatted
    (a third of datetime.isoformat's time); the tuple is replaced whole, so threads need no lock."""
    global _SECOND
    second, micro = divmod(time.time_ns() // 1000, 1_000_000)
    known = _SECOND
    if known[0] != second:
        known = _SECOND = (second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second)))
    return f"{known[1]}.{micro:06d}Z"


def iso(moment: Union[datetime, str]) -> str:
    """Normalise a datetime (naive = UTC) or an ISO string to the store's timestamp format."""
    if isinstance(moment, str):
        return moment
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class EventStore:
    """Append-only event streams in one SQLite file; safe across threads and processes."""

    def __init__(
        self,
        path: str,
        *,
        synchronous: str = "DURABLE",
        busy_timeout_ms: int = 30_000,
        registry: Optional[Catalogue] = None,
        on_connect: Optional[Callable[[sqlite3.Connection], None]] = None,
    ) -> None:
        self.path = str(path)
        self.registry = registry if registry is not None else default_registry
        self._db = Connections(
            self.path, synchronous=synchronous, busy_timeout_ms=busy_timeout_ms, on_connect=on_connect
        )
        self._heads_by_trigger: Optional[bool] = None
        self._heads: dict[str, tuple[int, str]] = {}  # stream -> (version, hash) of its head, as last seen here

    @classmethod
    def initialise(
        cls, path: str, *, online_only: bool = False, steps: Optional[Steps] = None, **options: Any
    ) -> "EventStore":
        """Bring the schema to this code's version (`migrate`; a fresh file gets all of it) and
        return a store; with `online_only` (a node starting), MigrationNeeded instead of a
        migration that would change tables in use; `steps`: the keyed steps (events/migrations.py)."""
        store = cls(path, **options)
        store.migrate(online_only=online_only, steps=steps)
        return store

    @property
    def where(self) -> str:
        """The database as a message may name it."""
        return os.path.abspath(self.path)

    def migrate(self, *, online_only: bool = False, steps: Optional[Steps] = None) -> Plan:
        """Apply the pending migrations (events/migrations.py) under SQLite's write lock."""
        return migrate(self._db, self.where, online_only=online_only, steps=steps)

    def schema_version(self) -> int:
        """The schema version recorded in the file (0: none yet)."""
        found: Plan = self._db.read(lambda conn, db: schema_plan(conn, self.where))
        return found.current

    def check_schema(self) -> None:
        """MigrationNeeded / SchemaTooNew unless the schema is this code's (read only: no DDL)."""
        check(self._db, self.where)

    def backup_to(self, path: str) -> None:
        """A consistent copy of the whole file at `path` while it is in use (SQLite's online backup
        API: pages copied from one read snapshot; writers go on meanwhile). `path` must not exist."""
        if os.path.exists(path):
            raise FileExistsError(f"{path} exists: a backup never overwrites a file")
        source = sqlite3.connect(f"file:{os.path.abspath(self.path)}?mode=ro", uri=True)
        target = sqlite3.connect(path)
        try:
            source.backup(target)
        finally:
            target.close()
            source.close()

    def close(self) -> None:
        """Close the calling thread's connection; the next call reopens one."""
        self._db.discard()

    # -- appending ------------------------------------------------------------
    def append(
        self,
        stream: str,
        expected_version: int,
        events: Sequence[EventLike],
        idempotency_key: Optional[str] = None,
        *,
        request_fingerprint: Optional[str] = None,
        outbox: Optional[Iterable[Any]] = None,
        extra: Optional[Callable[[sqlite3.Connection], None]] = None,
        own: Optional[int] = None,
    ) -> AppendResult:
        """Atomically append events if the stream is at expected_version (0 = new stream).

        With `own`, only the first `own` events are the request's: the result returned (and
        remembered under the idempotency key) covers them; the rest are follow-ups written in
        the same transaction (a replay returns the own events' versions, never the follow-ups').
        """
        _check_stream(stream)
        _check_expected(expected_version)
        rows = [self._prepare(event) for event in events]
        if not rows:
            raise ValueError("append needs at least one event")
        outbox_json = [canonical_json(item) for item in outbox or ()]
        single = self._heads_by_triggers() and len(rows) <= MAX_STATEMENT_ROWS
        if idempotency_key is None and not outbox_json and extra is None and single:
            return _own_part(self._tell(self._append_in_one_statement(stream, expected_version, rows)), own)
        move_head = not self._heads_by_triggers()
        fingerprint = request_fingerprint or _fingerprint(stream, expected_version, rows, outbox_json)

        def transaction(conn: sqlite3.Connection, db: Database) -> AppendResult:
            if idempotency_key is not None:
                prior = _prior_result(conn, idempotency_key, stream, fingerprint)
                if prior is not None:
                    return prior
            result = _own_part(_write_events(conn, stream, expected_version, rows, move_head), own)
            _write_outbox(conn, stream, outbox_json)
            if extra is not None:
                extra(conn)
            if idempotency_key is not None:
                _remember(conn, idempotency_key, stream, fingerprint, result)
            return result

        result = self._db.write(transaction)
        return result if result.replayed else self._tell(result)

    def _heads_by_triggers(self) -> bool:
        """Whether the file's triggers keep stream_heads (any file `initialise` has seen); asked once."""
        if self._heads_by_trigger is None:
            sql = "SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger' AND name IN (?, ?)"
            self._heads_by_trigger = self._db.query(sql, list(HEAD_TRIGGERS))[0][0] == len(HEAD_TRIGGERS)
        return self._heads_by_trigger

    def _append_in_one_statement(self, stream: str, expected: int, rows: list[dict[str, Any]]) -> AppendResult:
        """Append as ONE multi-row INSERT in autocommit: SQLite's write lock is held only inside it.

        The hash chain is computed from the head: the one this store last wrote or read when it is
        at `expected` (a new stream's is (0, "")), else read first. The INSERT writes its rows only
        if the stored head's hash is the one chained from (so a cached head is never a wrong chain,
        only a retry after reading it), and the schema's triggers refuse a row whose version does
        not follow the stream's head (so a writer that got in between fails the whole statement)
        and move the head. Holding the write lock only within one C call keeps it clear of Python
        (and GIL hand-offs), which is what lets concurrent requests' appends through (docs/STORE.md).
        """
        known = self._heads.get(stream) if expected else (0, "")
        for _ in range(2):  # a second time only after the cached head's hash proved stale
            if known is None or known[0] != expected:
                head = self._db.query("SELECT version, hash FROM stream_heads WHERE stream = ?", [stream])
                known = head[0] if head else (0, "")
                if known[0] != expected:
                    raise ConcurrencyError(stream, expected, known[0])
            recorded_at = utc_now()
            sql, params, last_hash = _insert_after_head(stream, expected, known[1], rows, recorded_at)
            try:
                last, written = self._db.execute_alone(sql, params)
            except sqlite3.IntegrityError:  # the version trigger or UNIQUE (stream, version): someone got in first
                self._heads.pop(stream, None)
                raise ConcurrencyError(stream, expected, self.current_version(stream)) from None
            if written:
                self._remember_head(stream, expected + len(rows), last_hash)
                positions = _positions(last, len(rows))
                return AppendResult(
                    stream, expected + 1, expected + len(rows), positions, recorded_at=recorded_at, last_hash=last_hash
                )
            self._heads.pop(stream, None)  # the head's hash is not the cached one: read it
            known = None
        raise ConcurrencyError(stream, expected, self.current_version(stream))

    def _remember_head(self, stream: str, version: int, hash_: str) -> None:
        """Cache a stream's head as last written or read here (bounded: a stale entry costs one
        read of the head, never a wrong chain: the INSERT checks the hash it chains from)."""
        if len(self._heads) > HEAD_CACHE:
            self._heads.clear()
        known = self._heads.get(stream)
        if known is None or known[0] < version:
            self._heads[stream] = (version, hash_)

    def idempotent_result(
        self, idempotency_key: str, stream: Optional[str] = None, request_fingerprint: Optional[str] = None
    ) -> Optional[AppendResult]:
        """The stored result for a key (replayed=True), or None; checks stream/fingerprint when given."""
        sql = "SELECT stream, request_hash, result FROM idempotency WHERE key = ?"
        rows = self._db.read(lambda conn, db: list(db.query(sql, [idempotency_key])))
        if not rows:
            return None
        row = rows[0]
        if stream is not None and row["stream"] != stream:
            raise IdempotencyMismatch(idempotency_key, f"stream {row['stream']!r}, not {stream!r}")
        if request_fingerprint is not None and row["request_hash"] != request_fingerprint:
            raise IdempotencyMismatch(idempotency_key, "a request with a different body (fingerprint differs)")
        return AppendResult.from_dict(json.loads(row["result"]), replayed=True)

    def _prepare(self, event: EventLike) -> dict[str, Any]:
        return prepare_event(self.registry, event)

    # -- reading --------------------------------------------------------------
    def read(
        self, stream: str, after: int = 0, limit: Optional[int] = None, types: Optional[Sequence[str]] = None
    ) -> list[StoredEvent]:
        """Events of stream with version > after, in version order, payloads upcast; with `types`,
        only events of those types (the limit then counts those)."""
        if types is None:
            sql = f"SELECT {ROW_COLUMNS} FROM events WHERE stream = ? AND version > ? ORDER BY version"
            events = self._select_events(sql, [stream, after], limit)
            if events and limit is None:  # the head as of this read: the next append need not read it
                self._remember_head(stream, events[-1].version, events[-1].hash)
            return events
        names = list(types)
        marks = ", ".join("?" * len(names)) or "NULL"
        sql = (
            f"SELECT {ROW_COLUMNS} FROM events WHERE stream = ? AND version > ? AND type IN ({marks}) ORDER BY version"
        )
        return self._select_events(sql, [stream, after, *names], limit)

    def read_all(self, after_position: int = 0, limit: Optional[int] = None) -> list[StoredEvent]:
        """The global feed: every stream's events with position > after_position, in order."""
        sql = f"SELECT {ROW_COLUMNS} FROM events WHERE position > ? ORDER BY position"
        return self._select_events(sql, [after_position], limit)

    def _select_events(self, sql: str, params: list[Any], limit: Optional[int]) -> list[StoredEvent]:
        if limit is not None:
            sql, params = sql + " LIMIT ?", params + [int(limit)]
        return stored_events(self.registry, self._db.query(sql, params))

    def current_version(self, stream: str) -> int:
        """The stream's last version, 0 if it has no events."""
        rows = self._db.query("SELECT MAX(version) FROM events WHERE stream = ?", [stream])
        return rows[0][0] or 0

    # -- change feed (the waiter hub: service/infra/waiters.py) ---------------------------
    def head_position(self) -> int:
        """The highest global position written so far (0 for an empty store)."""
        return self._db.query("SELECT MAX(position) FROM events")[0][0] or 0

    def appended_since(self, position: int) -> tuple[int, dict[str, int]]:
        """(new head position, {stream: its latest version}) for the streams appended to after
        `position`: one indexed query, however many clients wait on those streams."""
        sql = "SELECT stream, MAX(version), MAX(position) FROM events WHERE position > ? GROUP BY stream"
        rows = self._db.query(sql, [int(position)])
        head = max((row[2] for row in rows), default=int(position))
        return head, {row[0]: row[1] for row in rows}

    def append_source(self) -> None:
        """None: SQLite tells no other process of its appends, so a waiting worker polls
        `appended_since` (its own appends it hears through `watch`)."""
        return None

    # -- snapshots (derived data beside the events, never replacing them) ---------------
    def save_snapshot(self, stream: str, version: int, key: str, data: bytes, keep: bool = True) -> None:
        """Store `data` (a folded state at `version`, in the format named `key`) for `stream`, sealed
        to the hash of the event row at `version` (events.chain.snapshot_seal; ValueError when there
        is no such row).

        `keep=False`: the stream's rolling latest snapshot; every save drops the older rolling ones
        (kept ones stay). Derived data: written without an fsync of its own (a lost snapshot is
        rebuilt by folding).
        """
        drop = "DELETE FROM snapshots WHERE stream = ? AND key = ? AND keep = 0 AND version < ?"
        insert = (
            "INSERT OR REPLACE INTO snapshots (stream, key, version, keep, data, created_at, chain_hash, seal) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        )
        blob = bytes(data)

        def save(conn: sqlite3.Connection, db: Database) -> None:
            found = conn.execute("SELECT hash FROM events WHERE stream = ? AND version = ?", [stream, int(version)])
            row = found.fetchone()
            if row is None:
                raise ValueError(f"no event of {stream!r} at v{version} to seal a snapshot to")
            seal = snapshot_seal(stream, version, key, row[0], blob)
            conn.execute(drop, [stream, key, int(version)])
            conn.execute(insert, [stream, key, int(version), int(bool(keep)), blob, utc_now(), row[0], seal])

        self._db.write(save, durable=False)

    def load_snapshot(self, stream: str, key: str, max_version: Optional[int] = None) -> Optional[tuple[int, bytes]]:
        """(version, data) of the stream's latest snapshot in format `key` (at or before
        `max_version` when given), or None; ForgedSnapshot when its seal or the chain at its version
        does not hold (the hash of the event row at its version: the same indexed read)."""
        sql = (
            f"SELECT {SNAPSHOT_SEALED} FROM snapshots s LEFT JOIN events e ON e.stream = s.stream "
            "AND e.version = s.version WHERE s.stream = ? AND s.key = ? AND s.version <= ? "
            "ORDER BY s.version DESC LIMIT 1"
        )
        limit = (1 << 62) if max_version is None else int(max_version)
        rows = self._db.query(sql, [stream, key, limit])
        return checked_snapshot(stream, key, rows[0]) if rows else None

    def streams(self) -> list[str]:
        """Every stream that has at least one event, sorted by name."""
        sql = "SELECT DISTINCT stream FROM events ORDER BY stream"
        streams: list[str] = self._db.read(lambda conn, db: [row["stream"] for row in db.query(sql)])
        return streams

    def streams_newest_first(self, prefix: str, before: Optional[str] = None, limit: int = 100) -> list[str]:
        """Streams named `prefix…`, newest first by the position of their first event; with `before`
        (a stream name), only those created before it. One index lookup per stream (stream_heads
        joined to the (stream, version) index), no scan of the events."""
        sql = (
            "SELECT h.stream FROM stream_heads h JOIN events e ON e.stream = h.stream AND e.version = 1 "
            "WHERE h.stream >= ? AND h.stream < ? {cursor} ORDER BY e.position DESC LIMIT ?"
        )
        params: list[Any] = [prefix, prefix + "\U0010ffff"]
        cursor = ""
        if before is not None:
            cursor = "AND e.position < (SELECT position FROM events WHERE stream = ? AND version = 1)"
            params.append(before)
        return [row[0] for row in self._db.query(sql.format(cursor=cursor), params + [int(limit)])]

    def export_rows(self, stream: Optional[str] = None) -> list[dict[str, Any]]:
        """Raw stored rows (payload as stored, not upcast) for ndjson export / verify_chain."""
        where, params = ("WHERE stream = ? ORDER BY version", [stream]) if stream else ("ORDER BY position", [])
        sql = f"SELECT {ROW_COLUMNS} FROM events {where}"
        rows: list[dict[str, Any]] = self._db.read(lambda conn, db: list(db.query(sql, params)))
        for row in rows:
            row["payload"] = json.loads(row["payload"])
        return rows

    def feed_rows(self, after_position: int = 0, limit: int = 1000) -> list[dict[str, Any]]:
        """A page of raw rows of the global feed (payload as stored text), for `tilefold copy`."""
        sql = f"SELECT {ROW_COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?"
        rows: list[dict[str, Any]] = self._db.read(lambda conn, db: list(db.query(sql, [after_position, int(limit)])))
        return rows

    # -- integrity ------------------------------------------------------------
    def chain_problem(self, stream: str, after: int = 0) -> Optional[str]:
        """The first integrity problem of the stream's rows after version `after`, or None: the fast
        check of a cold load (`after`: a snapshot's version; those rows are linked to its stored hash).

        Each row's hash is recomputed over the payload text as stored (written as canonical JSON,
        so no JSON is parsed or re-serialised) and must chain from the row before; the head must
        be the last row. `verify_stream` gives every problem of the whole stream, in detail."""

        def snapshot(conn: sqlite3.Connection, db: Database) -> tuple[list[Any], Any, Any]:
            rows = conn.execute(
                "SELECT version, type, schema_version, payload, recorded_at, hash FROM events "
                "WHERE stream = ? AND version > ? ORDER BY version",
                [stream, after],
            ).fetchall()
            head = conn.execute("SELECT version, hash FROM stream_heads WHERE stream = ?", [stream]).fetchone()
            base = conn.execute("SELECT hash FROM events WHERE stream = ? AND version = ?", [stream, after]).fetchone()
            return rows, head, base

        rows, head, base = self._db.read(snapshot)
        if after and base is None:
            return f"v{after}: missing"
        prev, expected = (base[0] if after else ""), after + 1
        for version, type_name, schema_version, payload_json, recorded_at, digest in rows:
            if version != expected:
                return f"v{expected}: missing (found v{version})"
            if hash_new_row(prev, stream, version, type_name, schema_version, payload_json, recorded_at) != digest:
                return f"v{version}: content does not match its hash (row edited or chain rewritten)"
            prev, expected = digest, expected + 1
        if rows and (head is None or tuple(head) != (expected - 1, prev)):
            return f"the stream head {tuple(head) if head else None} is not its last row v{expected - 1}"
        return None

    def verify_stream(self, stream: str) -> list[Problem]:
        """Integrity problems of one stream (edited, dropped, reordered or truncated rows)."""

        def snapshot(conn: sqlite3.Connection, db: Database) -> tuple[list[dict[str, Any]], Optional[dict[str, Any]]]:
            sql = f"SELECT {ROW_COLUMNS} FROM events WHERE stream = ? ORDER BY version"
            heads = list(db.query("SELECT version, hash FROM stream_heads WHERE stream = ?", [stream]))
            return list(db.query(sql, [stream])), (heads[0] if heads else None)

        rows, head = self._db.read(snapshot)
        return verify_chain(rows) + _position_problems(rows) + _head_problems(stream, rows, head)

    # -- outbox ---------------------------------------------------------------
    def outbox_pending(self, now: Union[datetime, str, None] = None, limit: int = 100) -> list[OutboxItem]:
        """Undelivered outbox rows whose next attempt is due at `now`, oldest first."""
        sql = (
            "SELECT id, stream, created_at, payload, attempts, next_attempt_at FROM outbox "
            "WHERE delivered_at IS NULL AND (next_attempt_at IS NULL OR next_attempt_at <= ?) "
            "ORDER BY id LIMIT ?"
        )
        params = [iso(now) if now is not None else utc_now(), int(limit)]
        rows = self._db.read(lambda conn, db: list(db.query(sql, params)))
        return [
            OutboxItem(
                r["id"], r["stream"], r["created_at"], json.loads(r["payload"]), r["attempts"], r["next_attempt_at"]
            )
            for r in rows
        ]

    def outbox_mark_delivered(self, item_id: int, delivered_at: Union[datetime, str, None] = None) -> None:
        """Record that outbox row item_id was delivered (its lease ends)."""
        when = iso(delivered_at) if delivered_at is not None else utc_now()
        self._ensure_claim_column()
        self._execute("UPDATE outbox SET delivered_at = ?, claimed_until = NULL WHERE id = ?", [when, item_id])

    def outbox_mark_failed(self, item_id: int, next_attempt_at: Union[datetime, str]) -> None:
        """Count a failed delivery of item_id and schedule the next attempt (its lease ends)."""
        sql = "UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?, claimed_until = NULL WHERE id = ?"
        self._ensure_claim_column()
        self._execute(sql, [iso(next_attempt_at), item_id])

    # -- meta key/value ---------------------------------------------------------
    def meta_get(self, key: str, default: Any = None) -> Any:
        """The JSON value stored under key in the meta table, or default."""
        sql = "SELECT value FROM meta WHERE key = ?"
        rows = self._db.read(lambda conn, db: list(db.query(sql, [key])))
        return json.loads(rows[0]["value"]) if rows else default

    def meta_set(self, key: str, value: Any) -> None:
        """Store a JSON-serialisable value under key (insert or replace)."""
        sql = "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"
        self._execute(sql, [key, canonical_json(value)])

    def _execute(self, sql: str, params: list[Any]) -> None:
        self._db.write(lambda conn, db: conn.execute(sql, params))

    # -- the backend-neutral surface the service uses (PostgresEventStore has the same) ----------
    dialect = "sqlite"

    def query(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        """The rows of one statement (autocommit), `?` placeholders."""
        return self._db.query(sql, params)

    def write(self, fn: Callable[[sqlite3.Connection], Any]) -> Any:
        """Run fn(conn) in one write transaction (BEGIN IMMEDIATE ... COMMIT; durable when it returns)."""
        return self._db.write(lambda conn, db: fn(conn))

    def watch(self, callback: Callable[[str, int], None]) -> Callable[[], None]:
        """Call callback(stream, version) after each append THIS process commits (SQLite has no
        cross-process notification; PostgresEventStore.watch covers every node). Returns unwatch."""
        watchers = self.__dict__.setdefault("_watchers", [])
        watchers.append(callback)

        def unwatch() -> None:
            if callback in watchers:
                watchers.remove(callback)

        return unwatch

    def _tell(self, result: AppendResult) -> AppendResult:
        for callback in list(self.__dict__.get("_watchers", ())):
            try:
                callback(result.stream, result.last_version)
            except Exception:  # noqa: BLE001 - one bad watcher must not fail an append
                pass
        return result

    def outbox_claim(self, item_id: int, now: Union[datetime, str], until: Union[datetime, str]) -> bool:
        """Claim one notice until `until` iff it is undelivered and unclaimed (or its lease ended before `now`)."""
        sql = (
            "UPDATE outbox SET claimed_until = ? WHERE id = ? AND delivered_at IS NULL "
            "AND (claimed_until IS NULL OR claimed_until < ?)"
        )
        self._ensure_claim_column()
        claimed: bool = self._db.write(
            lambda conn, db: conn.execute(sql, [iso(until), item_id, iso(now)]).rowcount == 1
        )
        return claimed

    def outbox_claim_due(
        self, now: Union[datetime, str], until: Union[datetime, str], limit: int = 50
    ) -> list[OutboxItem]:
        """Claim due, unclaimed notices until `until` (a lease), oldest first: a claimed row is handed
        to no other caller until the lease ends or outbox_release (BEGIN IMMEDIATE serialises claimers)."""
        moment, lease = iso(now), iso(until)

        def claim(conn: sqlite3.Connection, db: Database) -> list[OutboxItem]:
            rows = conn.execute(
                "SELECT id, stream, created_at, payload, attempts, next_attempt_at FROM outbox "
                "WHERE delivered_at IS NULL AND (next_attempt_at IS NULL OR next_attempt_at <= ?) "
                "AND (claimed_until IS NULL OR claimed_until < ?) ORDER BY id LIMIT ?",
                [moment, moment, int(limit)],
            ).fetchall()
            conn.executemany("UPDATE outbox SET claimed_until = ? WHERE id = ?", [(lease, r[0]) for r in rows])
            return [OutboxItem(r[0], r[1], r[2], json.loads(r[3]), r[4], r[5]) for r in rows]

        self._ensure_claim_column()
        items: list[OutboxItem] = self._db.write(claim)
        return items

    def outbox_release(self, item_id: int) -> None:
        self._ensure_claim_column()
        self._execute("UPDATE outbox SET claimed_until = NULL WHERE id = ?", [item_id])

    def _ensure_claim_column(self) -> None:
        if self.__dict__.get("_claim_column"):
            return

        def add(conn: sqlite3.Connection, db: Database) -> None:
            if "claimed_until" not in {row[1] for row in conn.execute("PRAGMA table_info(outbox)")}:
                conn.execute("ALTER TABLE outbox ADD COLUMN claimed_until TEXT")

        self._db.write(add)
        self._claim_column = True

    def import_rows(self, stream: str, rows: Sequence[Mapping[str, Any]]) -> int:
        """Append already-hashed rows (another store's export, in version order) keeping their recorded_at
        and hashes; rows at or below the stream's head are skipped (a copy resumes). Returns rows written."""

        def transaction(conn: sqlite3.Connection, db: Database) -> int:
            current, prev_hash = _head(conn, stream)
            todo = [r for r in rows if r["version"] > current]
            if todo and todo[0]["version"] != current + 1:
                raise ConcurrencyError(stream, todo[0]["version"] - 1, current)
            check_imported_chain(prev_hash, stream, todo)
            for r in todo:
                payload = r["payload"] if isinstance(r["payload"], str) else canonical_json(r["payload"])
                conn.execute(
                    f"INSERT INTO events ({INSERT_COLUMNS}) VALUES {INSERT_ROW}",
                    [stream, r["version"], r["type"], r["schema_version"], payload, r["recorded_at"], r["hash"]],
                )
            if todo and not self._heads_by_triggers():
                conn.execute(
                    "INSERT INTO stream_heads (stream, version, hash) VALUES (?, ?, ?) ON CONFLICT(stream) "
                    "DO UPDATE SET version = excluded.version, hash = excluded.hash",
                    [stream, todo[-1]["version"], todo[-1]["hash"]],
                )
            return len(todo)

        written: int = self._db.write(transaction)
        return written


# -- rows in and out (both backends) -----------------------------------------------
def prepare_event(registry: Catalogue, event: EventLike) -> dict[str, Any]:
    """An event to append, checked, as {type, schema_version, payload_json} (the registry's current
    version when the event names none)."""
    if isinstance(event, NewEvent):
        type_name, payload, schema_version = event.type, event.payload, event.schema_version
    elif isinstance(event, Mapping) and "type" in event and "payload" in event:
        type_name, payload = event["type"], event["payload"]
        schema_version = event.get("schema_version")
    else:
        raise ValueError(f"an event must be a NewEvent or a dict with 'type' and 'payload', got {event!r}")
    validate_type_name(type_name)
    if not isinstance(payload, dict):
        raise ValueError(f"event payload must be a JSON object (dict), got {type(payload).__name__}")
    if schema_version is None:
        schema_version = registry.current_version(type_name) or 1
    if not isinstance(schema_version, int) or isinstance(schema_version, bool) or schema_version < 1:
        raise ValueError(f"schema_version must be an integer >= 1, got {schema_version!r}")
    try:
        payload_json = canonical_json(payload)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"payload of {type_name!r} is not JSON-serialisable: {exc}") from exc
    return {"type": type_name, "schema_version": schema_version, "payload_json": payload_json}


def stored_events(registry: Catalogue, rows: Sequence[tuple[Any, ...]]) -> list[StoredEvent]:
    """Rows of ROW_COLUMNS as StoredEvents, payloads upcast to their types' current versions.

    The read path of both backends: the payloads parsed together (events.json_fast: orjson where it
    gives json.loads's values), and an upcast asked for only of a row whose type the catalogue
    declares at a newer version than the row's (the catalogue looked up once a type per read)."""
    payloads = json_fast.loads_many([row[5] for row in rows])
    declared: dict[str, Optional[EventType]] = {}
    events = []
    for row, payload in zip(rows, payloads):
        position, stream, stored_version, type_name, schema_version, _, recorded_at, hash_ = row
        if type_name in declared:
            kind = declared[type_name]
        else:
            kind = declared[type_name] = registry.get(type_name)
        if kind is not None and schema_version < kind.version:
            schema_version, payload = kind.upcast(schema_version, payload)
        events.append(
            StoredEvent(stream, stored_version, position, type_name, schema_version, payload, recorded_at, hash_)
        )
    return events


# -- transaction helpers (run inside BEGIN IMMEDIATE) -----------------------------
def _head(conn: sqlite3.Connection, stream: str) -> tuple[int, str]:
    row = conn.execute(
        "SELECT version, hash FROM events WHERE stream = ? ORDER BY version DESC LIMIT 1", [stream]
    ).fetchone()
    return (row[0], row[1]) if row else (0, "")


def _write_events(
    conn: sqlite3.Connection, stream: str, expected: int, rows: list[dict[str, Any]], move_head: bool = True
) -> AppendResult:
    """Inside a transaction: check the head, insert the rows (MAX_STATEMENT_ROWS an INSERT), and
    move the head unless the schema's triggers do."""
    current, prev_hash = _head(conn, stream)
    if current != expected:
        raise ConcurrencyError(stream, expected, current)
    recorded_at, positions = utc_now(), list[int]()
    for start in range(0, len(rows), MAX_STATEMENT_ROWS):
        chunk = rows[start : start + MAX_STATEMENT_ROWS]
        sql, params, prev_hash = _insert(stream, current + start, prev_hash, chunk, recorded_at)
        positions += _positions(conn.execute(sql, params).lastrowid or 0, len(chunk))
    last = current + len(rows)
    if move_head:
        conn.execute(
            "INSERT INTO stream_heads (stream, version, hash) VALUES (?, ?, ?) "
            "ON CONFLICT(stream) DO UPDATE SET version = excluded.version, hash = excluded.hash",
            [stream, last, prev_hash],
        )
    return AppendResult(stream, current + 1, last, tuple(positions), recorded_at=recorded_at)


def _insert(
    stream: str, current: int, prev_hash: str, rows: list[dict[str, Any]], recorded_at: str
) -> tuple[str, list[Any], str]:
    """The multi-row INSERT of `rows` after version `current`, their hashes chained from `prev_hash`.

    Returns (sql, params, hash of the last row).
    """
    params: list[Any] = []
    for version, row in enumerate(rows, start=current + 1):
        prev_hash = _row_hash(prev_hash, stream, version, row, recorded_at)
        params += [stream, version, row["type"], row["schema_version"], row["payload_json"], recorded_at, prev_hash]
    return f"INSERT INTO events ({INSERT_COLUMNS}) VALUES " + ", ".join([INSERT_ROW] * len(rows)), params, prev_hash


def _insert_after_head(
    stream: str, current: int, prev_hash: str, rows: list[dict[str, Any]], recorded_at: str
) -> tuple[str, list[Any], str]:
    """`_insert`'s rows as one INSERT ... SELECT that writes them only while the stream's stored head
    has the hash they chain from (none: a new stream). Returns (sql, params, hash of the last row)."""
    _, params, last_hash = _insert(stream, current, prev_hash, rows, recorded_at)
    values = ", ".join([INSERT_ROW] * len(rows))
    sql = (
        f"INSERT INTO events ({INSERT_COLUMNS}) SELECT * FROM (VALUES {values}) "
        "WHERE (SELECT hash FROM stream_heads WHERE stream = ?) IS ?"
    )
    return sql, params + [stream, prev_hash if current else None], last_hash


def _positions(last_position: int, count: int) -> tuple[int, ...]:
    """The positions of one INSERT's `count` rows: one statement under the write lock gives consecutive rowids."""
    return tuple(range(last_position - count + 1, last_position + 1))


def _row_hash(prev_hash: str, stream: str, version: int, row: dict[str, Any], recorded_at: str) -> str:
    return hash_new_row(
        prev_hash, stream, version, row["type"], row["schema_version"], row["payload_json"], recorded_at
    )


def _own_part(result: AppendResult, own: Optional[int]) -> AppendResult:
    """The result for the first `own` events of an append (all of them when own is None)."""
    if own is None or own >= len(result.positions):
        return result
    if own < 1:
        raise ValueError("own must be at least 1")
    return AppendResult(
        result.stream,
        result.first_version,
        result.first_version + own - 1,
        result.positions[:own],
        recorded_at=result.recorded_at,
    )


def _write_outbox(conn: sqlite3.Connection, stream: str, items: list[str]) -> None:
    now = utc_now()
    conn.executemany(
        "INSERT INTO outbox (stream, created_at, payload, attempts) VALUES (?, ?, ?, 0)",
        [(stream, now, item) for item in items],
    )


def _prior_result(conn: sqlite3.Connection, key: str, stream: str, fingerprint: str) -> Optional[AppendResult]:
    row = conn.execute("SELECT stream, request_hash, result FROM idempotency WHERE key = ?", [key]).fetchone()
    if row is None:
        return None
    if row[0] != stream:
        raise IdempotencyMismatch(key, f"stream {row[0]!r}, not {stream!r}")
    if row[1] != fingerprint:
        raise IdempotencyMismatch(key, "a request with a different body (fingerprint differs)")
    return AppendResult.from_dict(json.loads(row[2]), replayed=True)


def _remember(conn: sqlite3.Connection, key: str, stream: str, fingerprint: str, result: AppendResult) -> None:
    conn.execute(
        "INSERT INTO idempotency (key, stream, request_hash, result, created_at) VALUES (?, ?, ?, ?, ?)",
        [key, stream, fingerprint, canonical_json(result.to_dict()), utc_now()],
    )


def _fingerprint(stream: str, expected: int, rows: list[dict[str, Any]], outbox: list[str]) -> str:
    body = {
        "stream": stream,
        "expected_version": expected,
        "outbox": outbox,
        "events": [[r["type"], r["schema_version"], r["payload_json"]] for r in rows],
    }
    return hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()


# -- validation and extra integrity checks ------------------------------------
def _check_stream(stream: Any) -> None:
    if not isinstance(stream, str) or not stream or len(stream) > MAX_STREAM_NAME:
        raise ValueError(f"stream must be a non-empty string of at most {MAX_STREAM_NAME} characters")


def _check_expected(expected: Any) -> None:
    if not isinstance(expected, int) or isinstance(expected, bool) or expected < 0:
        raise ValueError(f"expected_version must be an integer >= 0, got {expected!r}")


def _position_problems(rows: list[dict[str, Any]]) -> list[Problem]:
    problems = []
    for before, after in zip(rows, rows[1:]):
        if after["position"] <= before["position"]:
            message = f"position {after['position']} is not after v{before['version']}'s {before['position']}"
            problems.append(Problem(after["stream"], after["version"], "position", message))
    return problems


def _head_problems(stream: str, rows: list[dict[str, Any]], head: Optional[dict[str, Any]]) -> list[Problem]:
    last_version = rows[-1]["version"] if rows else 0
    last_hash = rows[-1]["hash"] if rows else ""
    if head is None:
        return [] if not rows else [Problem(stream, last_version, "truncated", "stream head record missing")]
    if head["version"] > last_version:
        message = f"head says v{head['version']} but the last row is v{last_version} (rows dropped at the end)"
        return [Problem(stream, last_version + 1, "truncated", message)]
    if head["version"] == last_version and head["hash"] != last_hash:
        return [Problem(stream, last_version, "hash", "last row's hash differs from the recorded head")]
    return []
