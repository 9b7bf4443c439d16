"""PostgresEventStore: the EventStore contract on PostgreSQL (psycopg 3 and its connection pool).

Same methods, arguments, results and errors as the SQLite EventStore (tests/events/test_store.py runs
one suite against both). How order and uniqueness are kept across nodes (docs/STORE.md):

* a stream's head row (`stream_heads`) is moved from exactly the expected version in the same
  statement that inserts the rows: a racing append finds the head moved (or, for a new stream,
  the head row inserted) and gets ConcurrencyError; (stream, version) is the primary key besides;
* the global feed's positions are made of the appending transaction's id, and `read_all` reads
  only below the oldest transaction still running (a transaction-id high-water mark), so it never
  skips an event that becomes visible late, and appends to different streams share no lock;
* after each append the store NOTIFYs `tf_<schema>` with "<version> <stream>" (batched by a
  background thread, outside the append's transaction): `watch` wakes waiters on every node.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import time
from typing import Any, Callable, Iterable, Iterator, Mapping, Optional, Sequence

from .chain import Problem, canonical_json, check_imported_chain, checked_snapshot, snapshot_seal, verify_chain
from .errors import ConcurrencyError, IdempotencyMismatch, StorageUnavailable
from .models import AppendResult, OutboxItem, StoredEvent
from .migrations import Plan, Steps, refuse_offline, refuse_older
from .pg_schema import FEED_LIMIT, LATEST, SCHEMA_LOCK, apply_plan, reseed_feed, schema_plan
from .catalogue import Catalogue
from .registry import default_registry
from .store import (
    SNAPSHOT_SEALED,
    EventLike,
    _check_expected,
    _check_stream,
    _fingerprint,
    _head_problems,
    _own_part,
    _position_problems,
    _row_hash,
    iso,
    prepare_event,
    stored_events,
    utc_now,
)

log = logging.getLogger(__name__)
ROW_COLUMNS = "position, stream, version, type, schema_version, payload, recorded_at, hash"
ROW_NAMES = tuple(c.strip() for c in ROW_COLUMNS.split(","))
APPEND_SQL = "SELECT tf_append(%s, %s::int, %s, %s::text[], %s::int[], %s::text[], %s::text[], %s)"
Watcher = Callable[[str, int], None]
HEAD_CACHE = 10_000  # streams whose head (version, hash) a store remembers
_INHERITED: list[Any] = []  # pools a forked child inherited: kept, never closed (they are the parent's)


class _HeadMoved(Exception):
    """tf_append found the head not at (expected, prev_hash)."""


class _Replay(Exception):
    """Roll the transaction back and answer with a racing twin's stored result."""

    def __init__(self, result: AppendResult) -> None:
        super().__init__("replay")
        self.result = result


def is_postgres_url(target: Any) -> bool:
    """postgresql:// or postgres:// (libpq accepts both): PostgreSQL; anything else is a SQLite path."""
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


def safe_url(url: str) -> str:
    """A PostgreSQL URL without its password (for messages and logs)."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    userinfo, at, host = parts.netloc.rpartition("@")
    user = userinfo.partition(":")[0]
    return parts._replace(netloc=f"{user}@{host}" if at and user else host).geturl()


class PgConnection:
    """What `extra(conn)` and `write(fn)` get on PostgreSQL: `execute(sql, params)` with SQLite's
    `?` placeholders (translated to psycopg's %s), returning a psycopg cursor."""

    _translated: dict[str, str] = {}

    def __init__(self, conn: Any) -> None:
        self.raw = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        text = self._translated.get(sql)
        if text is None:
            text = self._translated.setdefault(sql, sql.replace("%", "%%").replace("?", "%s"))
        return self.raw.execute(text, list(params))

    def executemany(self, sql: str, seq: Iterable[Sequence[Any]]) -> Any:
        cursor = self.raw.cursor()
        cursor.executemany(sql.replace("%", "%%").replace("?", "%s"), [list(p) for p in seq])
        return cursor


def _with_qmarks(step: Callable[[Any], None]) -> Callable[[Any], None]:
    """A keyed migration step (written with `?` placeholders) run on a psycopg connection."""
    return lambda conn: step(PgConnection(conn))


class PostgresEventStore:
    """Append-only, hash-chained event streams in one PostgreSQL schema, shared by many nodes."""

    dialect = "postgresql"

    def _prepare(self, event: EventLike) -> dict[str, Any]:
        return prepare_event(self.registry, event)

    def __init__(
        self,
        url: str,
        *,
        registry: Optional[Catalogue] = None,
        pool_size: int = 10,
        pool_timeout: float = 30.0,
        synchronous: Optional[str] = None,
        **_sqlite_only: Any,
    ) -> None:
        self.path = self.url = url
        self.registry = registry if registry is not None else default_registry
        self.pool_size = pool_size  # connections per process (TILEFOLD_PG_POOL_SIZE)
        self.pool_timeout = pool_timeout  # seconds a caller waits for one before StorageUnavailable
        self.synchronous = synchronous
        self._pool: Any = None
        self._pool_pid: Optional[int] = None
        self._pool_lock = threading.Lock()
        self._watchers: list[Watcher] = []
        self._listener_pid: Optional[int] = None
        self._heads: dict[str, tuple[int, str]] = {}
        self._announced = threading.Condition()
        self._to_announce: dict[str, int] = {}
        self._announcer_pid: Optional[int] = None

    @classmethod
    def initialise(
        cls, url: str, *, online_only: bool = False, steps: Optional[Steps] = None, **options: Any
    ) -> "PostgresEventStore":
        """Bring the schema to this code's version (`migrate`) and return a store; with
        `online_only` (a node starting), MigrationNeeded instead of a migration that would
        change tables running nodes use; `steps`: the keyed steps (events/migrations.py)."""
        store = cls(url, **options)
        store.migrate(online_only=online_only, steps=steps)
        return store

    @property
    def where(self) -> str:
        """The database as a message may name it (no password)."""
        return safe_url(self.url)

    def migrate(self, *, online_only: bool = False, lock_timeout: float = 10.0, steps: Optional[Steps] = None) -> Plan:
        """Apply the pending migrations (events/migrations.py) under an advisory lock, each once,
        then re-seed the feed's positions after a restore (`reseed_feed`). Returns the plan found.
        A table lock a running node holds is waited for at most `lock_timeout` seconds."""
        with self._direct() as conn:
            found = schema_plan(conn, self.where)
            if found.todo or found.adopt:
                conn.execute("SELECT pg_advisory_lock(%s)", [SCHEMA_LOCK])
                try:
                    found = schema_plan(conn, self.where)  # again, under the lock: another node may have done it
                    if online_only:
                        refuse_offline(found, self.where, LATEST)
                    conn.execute(f"SET lock_timeout = '{int(lock_timeout * 1000)}ms'")
                    keyed = {name: _with_qmarks(step) for name, step in (steps or {}).items()}
                    apply_plan(conn, found, keyed, self.where)
                finally:
                    conn.execute("SELECT pg_advisory_unlock(%s)", [SCHEMA_LOCK])
            shift = reseed_feed(conn)
            if shift is not None:
                log.warning("feed positions re-seeded after a restore (tf_feed.shift = %d)", shift)
        return found

    def schema_version(self) -> int:
        """The schema version recorded in the database (0: none yet)."""
        with self._direct() as conn:
            return schema_plan(conn, self.where).current

    def check_schema(self) -> None:
        """MigrationNeeded / SchemaTooNew unless the schema is this code's (read only: no DDL)."""
        with self._direct() as conn:
            refuse_older(schema_plan(conn, self.where), self.where, LATEST)

    @contextlib.contextmanager
    def snapshot(self) -> Iterator["Snapshot"]:
        """The whole database as of one moment: one REPEATABLE READ, READ ONLY transaction on one
        connection (what `tilefold backup` reads); writers go on meanwhile."""
        with self._direct() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield Snapshot(conn)

    def _direct(self) -> Any:
        """One connection outside the pool (start-up checks and migrations): a server that is down
        or refuses us fails at once with its own error, not after the pool's 30 s of retries."""
        import psycopg

        return psycopg.connect(self.url, autocommit=True, connect_timeout=10)

    # -- connections ------------------------------------------------------------
    def _forked(self) -> None:
        """In a forked child: fresh locks, no pool, no threads (the parent's were copied mid-use: a
        lock may be held by a thread that does not exist here). The inherited pool is kept, never
        closed: closing its connections would end the parent's sessions on the shared sockets."""
        if self._pool is not None:
            _INHERITED.append(self._pool)
        self._pool, self._pool_pid = None, os.getpid()
        self._pool_lock, self._announced = threading.Lock(), threading.Condition()
        self._to_announce, self._announcer_pid, self._listener_pid = {}, None, None

    def pool(self) -> Any:
        """This process's connection pool (a forked child opens its own)."""
        if self._pool_pid is not None and self._pool_pid != os.getpid():
            self._forked()
        if self._pool is None or self._pool_pid != os.getpid():
            with self._pool_lock:
                if self._pool is None or self._pool_pid != os.getpid():
                    from psycopg_pool import ConnectionPool

                    self._pool = ConnectionPool(
                        self.url,
                        min_size=1,
                        max_size=self.pool_size,
                        open=True,
                        kwargs={"autocommit": True},
                        name="tilefold",
                        timeout=self.pool_timeout,
                    )
                    self._pool_pid = os.getpid()
        return self._pool

    def _connection(self) -> "_Borrowed":
        return _Borrowed(self)

    def close(self) -> None:
        """Close this process's pool and stop its listener (the next call opens a new pool)."""
        self._listener_pid = None
        with self._announced:
            self._announcer_pid = None
            self._announced.notify_all()
        pool, self._pool = self._pool, None
        if pool is not None and self._pool_pid == os.getpid():
            pool.close()

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows of one statement (autocommit), `?` placeholders."""
        with self._connection() as conn:
            rows: list[tuple[Any, ...]] = PgConnection(conn).execute(sql, params).fetchall()
            return rows

    def write(self, fn: Callable[[PgConnection], Any]) -> Any:
        """Run fn(conn) in one transaction (committed when it returns, rolled back if it raises)."""
        with self._connection() as conn, conn.transaction():
            return fn(PgConnection(conn))

    def _execute(self, sql: str, params: Sequence[Any]) -> None:
        with self._connection() as conn:
            conn.execute(sql, list(params))

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
        extra: Optional[Callable[[Any], None]] = None,
        own: Optional[int] = None,
    ) -> AppendResult:
        """Atomically append events if the stream is at expected_version (see EventStore.append)."""
        _check_stream(stream)
        _check_expected(expected_version)
        rows = [self._prepare(event) for event in events]
        if not rows:
            raise ValueError("append needs at least one event")
        outbox_json = [canonical_json(item) for item in outbox or ()]
        if idempotency_key is None and not outbox_json and extra is None:
            return _own_part(self._append_alone(stream, expected_version, rows), own)
        fingerprint = request_fingerprint or _fingerprint(stream, expected_version, rows, outbox_json)
        import psycopg

        for attempt in range(2):
            try:
                result, written = self._append_in_transaction(
                    stream, expected_version, rows, idempotency_key, fingerprint, outbox_json, extra, own
                )
                break
            except _Replay as replay:  # the twin created the stream: its writes stand, ours are rolled back
                return replay.result
            except psycopg.errors.UniqueViolation:  # the same key, committed meanwhile by a racing append
                if attempt or idempotency_key is None:
                    raise
        if written is not None:
            self._remember_head(stream, written.last_version, written.last_hash)
            self._announce(stream, written.last_version)
        return result

    def _append_in_transaction(
        self,
        stream: str,
        expected_version: int,
        rows: list[dict[str, Any]],
        key: Optional[str],
        fingerprint: str,
        outbox_json: list[str],
        extra: Optional[Callable[[Any], None]],
        own: Optional[int],
    ) -> tuple[AppendResult, Optional[AppendResult]]:
        """(result, written) of one transaction: lock the head, replay a known key, check the version,
        write outbox rows and `extra`, append, remember the key. written is None for a replay."""
        with self._connection() as conn, conn.transaction():
            row = conn.execute(
                "SELECT version, hash FROM stream_heads WHERE stream = %s FOR UPDATE", [stream]
            ).fetchone()
            prior = _prior_result(conn, key, stream, fingerprint) if key is not None else None
            if prior is not None:  # checked after the head lock: a racing twin's key is visible by now
                return prior, None
            current, prev_hash = row if row else (0, "")
            if current != expected_version:
                raise ConcurrencyError(stream, expected_version, current)
            if outbox_json:
                now = utc_now()
                conn.cursor().executemany(
                    "INSERT INTO outbox (stream, created_at, payload) VALUES (%s, %s, %s)",
                    [(stream, now, item) for item in outbox_json],
                )
            if extra is not None:
                extra(PgConnection(conn))
            try:
                written = _insert(conn, stream, current, prev_hash, rows)
            except _HeadMoved:  # a new stream another transaction created meanwhile
                prior = _prior_result(conn, key, stream, fingerprint) if key is not None else None
                if prior is not None:
                    raise _Replay(prior) from None
                head = conn.execute("SELECT version FROM stream_heads WHERE stream = %s", [stream]).fetchone()
                raise ConcurrencyError(stream, expected_version, head[0] if head else 0) from None
            result = _own_part(written, own)
            if key is not None:
                conn.execute(
                    "INSERT INTO idempotency (key, stream, request_hash, result, created_at) "
                    "VALUES (%s, %s, %s, %s, %s)",
                    [key, stream, fingerprint, canonical_json(result.to_dict()), utc_now()],
                )
        return result, written

    def _append_alone(self, stream: str, expected: int, rows: list[dict[str, Any]]) -> AppendResult:
        """Append in ONE statement (autocommit): one round trip and one commit when the head is
        known — a new stream (expected 0) or the head this process last wrote or read — else the
        head is read first. tf_append checks (version, hash) against the row itself, so a stale
        cached head is only a retry, never a wrong chain."""
        known = self._heads.get(stream) if expected else (0, "")
        with self._connection() as conn:
            if known is None or known[0] != expected:
                known = self._read_head(conn, stream, expected)
            try:
                result = _insert(conn, stream, expected, known[1], rows)
            except _HeadMoved:
                self._heads.pop(stream, None)
                fresh = self._read_head(conn, stream, expected)  # ConcurrencyError unless only the hash was stale
                result = _insert(conn, stream, expected, fresh[1], rows)
        self._remember_head(stream, result.last_version, result.last_hash)
        self._announce(stream, result.last_version)
        return result

    def _read_head(self, conn: Any, stream: str, expected: int) -> tuple[int, str]:
        row = conn.execute("SELECT version, hash FROM stream_heads WHERE stream = %s", [stream]).fetchone()
        current, prev_hash = row if row else (0, "")
        if current != expected:
            raise ConcurrencyError(stream, expected, current)
        return current, prev_hash

    def _remember_head(self, stream: str, version: int, hash_: Optional[str]) -> None:
        """Cache a stream's head as last written or read here (bounded; a stale entry costs a retry)."""
        if hash_ is None:
            return
        if len(self._heads) > HEAD_CACHE:
            self._heads.clear()
        known = self._heads.get(stream)
        if known is None or known[0] < version:
            self._heads[stream] = (version, hash_)

    def import_rows(self, stream: str, rows: Sequence[Mapping[str, Any]]) -> int:
        """Append already-hashed rows (an export of another store, in version order) keeping their
        recorded_at and hashes; rows at or below the stream's head are skipped (so a copy resumes).
        Returns how many rows were written. Rows of one recorded_at go in one append."""
        written, batch = 0, list[Mapping[str, Any]]()
        for row in rows:
            if batch and row["recorded_at"] != batch[-1]["recorded_at"]:
                written += self._import_batch(stream, batch)
                batch = []
            batch.append(row)
        return written + (self._import_batch(stream, batch) if batch else 0)

    def _import_batch(self, stream: str, batch: list[Mapping[str, Any]]) -> int:
        with self._connection() as conn:
            row = conn.execute("SELECT version, hash FROM stream_heads WHERE stream = %s", [stream]).fetchone()
            current, prev_hash = row if row else (0, "")
            batch = [r for r in batch if r["version"] > current]
            if not batch:
                return 0
            if batch[0]["version"] != current + 1:
                raise ConcurrencyError(stream, batch[0]["version"] - 1, current)
            check_imported_chain(prev_hash, stream, batch)
            payloads = [r["payload"] if isinstance(r["payload"], str) else canonical_json(r["payload"]) for r in batch]
            first = conn.execute(
                APPEND_SQL,
                [
                    stream,
                    current,
                    prev_hash,
                    [r["type"] for r in batch],
                    [r["schema_version"] for r in batch],
                    payloads,
                    [r["hash"] for r in batch],
                    batch[0]["recorded_at"],
                ],
            ).fetchone()[0]
            if first is None:
                raise ConcurrencyError(stream, current, self.current_version(stream))
            return len(batch)

    def idempotent_result(
        self, idempotency_key: str, stream: Optional[str] = None, request_fingerprint: Optional[str] = None
    ) -> Optional[AppendResult]:
        """The stored result for a key (replayed=True), or None; checks stream/fingerprint when given."""
        rows = self.query("SELECT stream, request_hash, result FROM idempotency WHERE key = ?", [idempotency_key])
        if not rows:
            return None
        row_stream, request_hash, result = rows[0]
        if stream is not None and row_stream != stream:
            raise IdempotencyMismatch(idempotency_key, f"stream {row_stream!r}, not {stream!r}")
        if request_fingerprint is not None and request_hash != request_fingerprint:
            raise IdempotencyMismatch(idempotency_key, "a request with a different body (fingerprint differs)")
        return AppendResult.from_dict(json.loads(result), replayed=True)

    # -- reading --------------------------------------------------------------
    def read(
        self, stream: str, after: int = 0, limit: Optional[int] = None, types: Optional[Sequence[str]] = None
    ) -> list[StoredEvent]:
        """Events of stream with version > after, in version order, payloads upcast; with `types`,
        only events of those types (the limit then counts those)."""
        if types is not None:
            sql = (
                f"SELECT {ROW_COLUMNS} FROM events WHERE stream = %s AND version > %s AND type = ANY(%s) "
                "ORDER BY version"
            )
            return self._select_events(sql, [stream, after, list(types)], limit)
        sql = f"SELECT {ROW_COLUMNS} FROM events WHERE stream = %s AND version > %s ORDER BY version"
        events = self._select_events(sql, [stream, after], limit)
        if events and limit is None:  # the head as of this read: the next append need not read it
            self._remember_head(stream, events[-1].version, events[-1].hash)
        return events

    def read_all(self, after_position: int = 0, limit: Optional[int] = None) -> list[StoredEvent]:
        """The global feed: every stream's events with position > after_position, in order.

        Read only below the feed's high-water mark, the oldest transaction still running: an event
        committed later always lands above every position returned here, so nothing is skipped.
        Every event committed before the call is returned (the call waits, at most ~0.5 s, for
        transactions that began writing before it to end)."""
        with self._connection() as conn:
            mark = self._high_water_mark(conn)
            sql = f"SELECT {ROW_COLUMNS} FROM events WHERE position > %s AND position < %s ORDER BY position"
            params: list[Any] = [after_position, mark]
            if limit is not None:
                sql, params = sql + " LIMIT %s", params + [int(limit)]
            rows = conn.execute(sql, params).fetchall()
        return stored_events(self.registry, rows)

    @staticmethod
    def _high_water_mark(conn: Any) -> int:
        """A position below which every transaction has ended, at or above the last committed event
        (waiting briefly for transactions that began before it)."""
        for attempt in range(25):
            mark, top = conn.execute(f"SELECT {FEED_LIMIT}, (SELECT max(position) FROM events)").fetchone()
            if top is None or top < mark:
                return int(mark)
            time.sleep(0.002 * (attempt + 1))
        return int(mark)

    def _select_events(self, sql: str, params: list[Any], limit: Optional[int]) -> list[StoredEvent]:
        if limit is not None:
            sql, params = sql + " LIMIT %s", params + [int(limit)]
        with self._connection() as conn:
            rows = conn.execute(sql, params).fetchall()
        return stored_events(self.registry, rows)

    def current_version(self, stream: str) -> int:
        """The stream's last version, 0 if it has no events."""
        rows = self.query("SELECT version FROM stream_heads WHERE stream = ?", [stream])
        return rows[0][0] if rows else 0

    def streams(self) -> list[str]:
        """Every stream that has at least one event, sorted by name (bytewise, as SQLite sorts)."""
        return [row[0] for row in self.query('SELECT stream FROM stream_heads ORDER BY stream COLLATE "C"')]

    def streams_newest_first(self, prefix: str, before: Optional[str] = None, limit: int = 100) -> list[str]:
        """Streams named `prefix…`, newest first by the position of their first event (EventStore's)."""
        cursor, params = "", [prefix + "%"]
        if before is not None:
            cursor = "AND e.position < (SELECT position FROM events WHERE stream = ? AND version = 1)"
            params.append(before)
        sql = (
            "SELECT h.stream FROM stream_heads h JOIN events e ON e.stream = h.stream AND e.version = 1 "
            f"WHERE h.stream LIKE ? {cursor} ORDER BY e.position DESC LIMIT ?"
        )
        return [row[0] for row in self.query(sql, params + [int(limit)])]

    def export_rows(self, stream: Optional[str] = None) -> list[dict[str, Any]]:
        """Raw stored rows (payload as stored, not upcast) for ndjson export / verify_chain."""
        if stream:
            rows = self.query(f"SELECT {ROW_COLUMNS} FROM events WHERE stream = ? ORDER BY version", [stream])
        else:
            rows = self.query(f"SELECT {ROW_COLUMNS} FROM events ORDER BY position")
        return [_row_dict(row) for row in rows]

    def feed_rows(self, after_position: int = 0, limit: int = 1000) -> list[dict[str, Any]]:
        """A page of raw rows of the global feed (payload as stored text), for `tilefold copy`."""
        rows = self.query(
            f"SELECT {ROW_COLUMNS} FROM events WHERE position > ? AND position < {FEED_LIMIT} "
            "ORDER BY position LIMIT ?",
            [after_position, int(limit)],
        )
        return [dict(zip(ROW_NAMES, row)) for row in rows]

    def verify_stream(self, stream: str) -> list[Problem]:
        """Integrity problems of one stream (edited, dropped, reordered or truncated rows)."""
        with self._connection() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            rows = conn.execute(
                f"SELECT {ROW_COLUMNS} FROM events WHERE stream = %s ORDER BY version", [stream]
            ).fetchall()
            head = conn.execute("SELECT version, hash FROM stream_heads WHERE stream = %s", [stream]).fetchone()
        dicts = [_row_dict(row) for row in rows]
        head_dict = {"version": head[0], "hash": head[1]} if head else None
        return verify_chain(dicts) + _position_problems(dicts) + _head_problems(stream, dicts, head_dict)

    def chain_problem(self, stream: str, after: int = 0) -> Optional[str]:
        """The stream's first integrity problems as text, or None (EventStore.chain_problem): every
        row is checked here, `after` or not (the rows come back parsed; the check is verify_stream's)."""
        return "; ".join(str(p) for p in self.verify_stream(stream)[:3]) or None

    # -- change feed (a waiter hub per worker) and snapshots -------------------------------
    def head_position(self) -> int:
        """A feed position every later append lands above: the high-water mark less one (events
        above it may still be committing, so this is what a change-feed reader starts from)."""
        return max(0, int(self.query(f"SELECT {FEED_LIMIT}")[0][0]) - 1)

    def appended_since(self, position: int) -> tuple[int, dict[str, int]]:
        """(new head position, {stream: its latest version}) of the streams appended to after
        `position`, read below the high-water mark (so an append committing late is never passed).
        As read_all, it waits briefly for transactions that began before it, so every stream appended
        to before the call is named even while another session of the cluster holds a transaction open."""
        with self._connection() as conn:
            mark = self._high_water_mark(conn)
            rows = conn.execute(
                "SELECT stream, MAX(version), MAX(position) FROM events WHERE position > %s "
                "AND position < %s GROUP BY stream",
                [int(position), mark],
            ).fetchall()
        head = max((row[2] for row in rows), default=int(position))
        return head, {row[0]: row[1] for row in rows}

    def append_source(self) -> "_AppendSource":
        """An object whose wait(timeout) returns early when an append may have happened (LISTEN/NOTIFY)."""
        return _AppendSource(self)

    def save_snapshot(self, stream: str, version: int, key: str, data: bytes, keep: bool = True) -> None:
        """Store `data` (a folded state at `version` in the format `key`), sealed to the hash of the
        event row at `version` (EventStore.save_snapshot); keep=False is the stream's rolling latest
        (older rolling ones are dropped). Derived data: committed without waiting for the WAL flush
        (synchronous_commit off for this transaction)."""
        blob = bytes(data)
        with self._connection() as conn, conn.transaction():
            conn.execute("SET LOCAL synchronous_commit = off")
            row = conn.execute(
                "SELECT hash FROM events WHERE stream = %s AND version = %s", [stream, int(version)]
            ).fetchone()
            if row is None:
                raise ValueError(f"no event of {stream!r} at v{version} to seal a snapshot to")
            seal = snapshot_seal(stream, version, key, row[0], blob)
            conn.execute(
                "DELETE FROM snapshots WHERE stream = %s AND key = %s AND keep = 0 AND version < %s",
                [stream, key, int(version)],
            )
            conn.execute(
                "INSERT INTO snapshots (stream, key, version, keep, data, created_at, chain_hash, seal) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (stream, key, version) DO UPDATE SET "
                "keep = excluded.keep, data = excluded.data, created_at = excluded.created_at, "
                "chain_hash = excluded.chain_hash, seal = excluded.seal",
                [stream, key, int(version), int(bool(keep)), blob, utc_now(), row[0], seal],
            )

    def load_snapshot(self, stream: str, key: str, max_version: Optional[int] = None) -> Optional[tuple[int, bytes]]:
        """(version, data) of the stream's latest snapshot in format `key` (at or before max_version);
        ForgedSnapshot when its seal or the chain at its version does not hold (EventStore's)."""
        limit = (1 << 30) if max_version is None else int(max_version)
        rows = self.query(
            f"SELECT {SNAPSHOT_SEALED} FROM snapshots s LEFT JOIN events e ON e.stream = s.stream "
            "AND e.version = s.version WHERE s.stream = ? AND s.key = ? AND s.version <= ? "
            "ORDER BY s.version DESC LIMIT 1",
            [stream, key, min(limit, 2**31 - 1)],
        )
        return checked_snapshot(stream, key, rows[0]) if rows else None

    # -- outbox ---------------------------------------------------------------
    def outbox_pending(self, now: Any = None, limit: int = 100) -> list[OutboxItem]:
        """Undelivered outbox rows whose next attempt is due at `now`, oldest first."""
        sql = (
            "SELECT id, stream, created_at, payload, attempts, next_attempt_at FROM outbox "
            "WHERE delivered_at IS NULL AND (next_attempt_at IS NULL OR next_attempt_at <= ?) "
            "ORDER BY id LIMIT ?"
        )
        rows = self.query(sql, [iso(now) if now is not None else utc_now(), int(limit)])
        return [_outbox_item(row) for row in rows]

    def outbox_claim(self, item_id: int, now: Any, until: Any) -> bool:
        """Claim one notice until `until` iff it is undelivered and unclaimed (or its lease ended
        before `now`): one UPDATE, so of racing claimers on any node exactly one gets True."""
        sql = (
            "UPDATE outbox SET claimed_until = %s WHERE id = %s AND delivered_at IS NULL "
            "AND (claimed_until IS NULL OR claimed_until < %s)"
        )
        with self._connection() as conn:
            return bool(conn.execute(sql, [iso(until), item_id, iso(now)]).rowcount == 1)

    def outbox_claim_due(self, now: Any, until: Any, limit: int = 50) -> list[OutboxItem]:
        """Claim due, unclaimed notices until `until` (a lease): each is handed to ONE caller on
        any node (FOR UPDATE SKIP LOCKED: racing claimers take different rows, never wait)."""
        sql = (
            "UPDATE outbox SET claimed_until = %s WHERE id IN (SELECT id FROM outbox "
            "WHERE delivered_at IS NULL AND (next_attempt_at IS NULL OR next_attempt_at <= %s) "
            "AND (claimed_until IS NULL OR claimed_until < %s) ORDER BY id LIMIT %s FOR UPDATE SKIP LOCKED) "
            "RETURNING id, stream, created_at, payload, attempts, next_attempt_at"
        )
        moment = iso(now)
        with self._connection() as conn:
            rows = conn.execute(sql, [iso(until), moment, moment, int(limit)]).fetchall()
        return sorted((_outbox_item(row) for row in rows), key=lambda item: item.id)

    def outbox_release(self, item_id: int) -> None:
        self._execute("UPDATE outbox SET claimed_until = NULL WHERE id = %s", [item_id])

    def outbox_mark_delivered(self, item_id: int, delivered_at: Any = None) -> None:
        when = iso(delivered_at) if delivered_at is not None else utc_now()
        self._execute("UPDATE outbox SET delivered_at = %s, claimed_until = NULL WHERE id = %s", [when, item_id])

    def outbox_mark_failed(self, item_id: int, next_attempt_at: Any) -> None:
        self._execute(
            "UPDATE outbox SET attempts = attempts + 1, next_attempt_at = %s, claimed_until = NULL WHERE id = %s",
            [iso(next_attempt_at), item_id],
        )

    # -- meta key/value ---------------------------------------------------------
    def meta_get(self, key: str, default: Any = None) -> Any:
        rows = self.query("SELECT value FROM meta WHERE key = ?", [key])
        return json.loads(rows[0][0]) if rows else default

    def meta_set(self, key: str, value: Any) -> None:
        self._execute(
            "INSERT INTO meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [key, canonical_json(value)],
        )

    # -- notifications ------------------------------------------------------------
    def watch(self, callback: Watcher) -> Callable[[], None]:
        """Call callback(stream, version) after any append on any node commits (LISTEN/NOTIFY, one
        listening connection per process). After the listener lost its connection, it calls
        callback("*", 0): anything may have changed meanwhile. Returns a function that unwatches."""
        self._watchers.append(callback)
        self._ensure_listener()

        def unwatch() -> None:
            try:
                self._watchers.remove(callback)
            except ValueError:
                pass

        return unwatch

    def _ensure_listener(self) -> None:
        if self._pool_pid is not None and self._pool_pid != os.getpid():
            self._forked()
        if self._listener_pid == os.getpid():
            return
        with self._pool_lock:
            if self._listener_pid == os.getpid():
                return
            self._listener_pid = os.getpid()
            ready = threading.Event()
            threading.Thread(target=self._listen, args=(ready,), name="tilefold-listen", daemon=True).start()
        ready.wait(10)

    def _listen(self, ready: threading.Event) -> None:
        import psycopg

        lost, me = False, os.getpid()
        while self._listener_pid == me:
            try:
                with psycopg.connect(self.url, autocommit=True, connect_timeout=10) as conn:
                    schema = (conn.execute("SELECT current_schema()").fetchone() or ("public",))[0]
                    conn.execute(f'LISTEN "tf_{schema}"')
                    ready.set()
                    if lost:
                        self._tell("*", 0)
                    while self._listener_pid == me:
                        for note in conn.notifies(timeout=1.0):
                            version, _, stream = note.payload.partition(" ")
                            self._tell(stream, int(version))
            except Exception as exc:  # noqa: BLE001 - reconnect after any failure
                if self._listener_pid == me:
                    log.warning("LISTEN connection lost (%s); reconnecting", exc)
            lost = True
            ready.set()
            time.sleep(0.5)

    def _announce(self, stream: str, version: int) -> None:
        """NOTIFY the append to every node, from a background thread that batches them (outside
        the append's transaction: a NOTIFY inside it would serialise every append's commit)."""
        if self._pool_pid != os.getpid():
            self.pool()
        with self._announced:
            if self._to_announce.get(stream, 0) < version:
                self._to_announce[stream] = version
            if self._announcer_pid != os.getpid():
                self._announcer_pid = os.getpid()
                threading.Thread(target=self._announce_loop, name="tilefold-notify", daemon=True).start()
            self._announced.notify()

    def _announce_loop(self) -> None:
        me = os.getpid()
        while self._announcer_pid == me:
            with self._announced:
                while not self._to_announce and self._announcer_pid == me:
                    self._announced.wait(1.0)
                batch, self._to_announce = self._to_announce, {}
            if not batch:
                continue
            payloads = [f"{version} {stream}" for stream, version in batch.items()]
            try:
                with self._connection() as conn:
                    conn.execute(
                        "SELECT pg_notify('tf_' || current_schema(), p) FROM unnest(%s::text[]) AS p", [payloads]
                    )
            except Exception as exc:  # noqa: BLE001 - waiters recheck on their own timers; never die
                log.warning("could not NOTIFY %d appends: %s", len(payloads), exc)
                time.sleep(0.2)

    def _tell(self, stream: str, version: int) -> None:
        for callback in list(self._watchers):
            try:
                callback(stream, version)
            except Exception:  # noqa: BLE001 - one bad watcher must not stop the others
                log.exception("append watcher failed")


class Snapshot:
    """A store's rows as of one REPEATABLE READ transaction: `query` and `feed_rows` (the reads
    `events.copy.copy_store` makes of a source). Everything visible has committed, so the feed is
    read without the high-water mark (which would hide rows of transactions that committed while an
    older one still ran)."""

    def __init__(self, conn: Any) -> None:
        self.conn = PgConnection(conn)

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        rows: list[tuple[Any, ...]] = self.conn.execute(sql, params).fetchall()
        return rows

    def feed_rows(self, after_position: int = 0, limit: int = 1000) -> list[dict[str, Any]]:
        rows = self.query(
            f"SELECT {ROW_COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?",
            [after_position, int(limit)],
        )
        return [dict(zip(ROW_NAMES, row)) for row in rows]


class _AppendSource:
    """wait(timeout) returns when the store's watcher heard an append (any node), or at the timeout."""

    def __init__(self, store: PostgresEventStore) -> None:
        self.heard = threading.Event()
        self.unwatch = store.watch(lambda stream, version: self.heard.set())

    def wait(self, timeout: float) -> None:
        self.heard.wait(timeout)
        self.heard.clear()


class _Borrowed:
    """`with store._connection() as conn`: a pooled autocommit connection; psycopg's connection
    failures become StorageUnavailable (the service answers 503), like SQLite's faults."""

    def __init__(self, store: PostgresEventStore) -> None:
        self.store = store
        self.context: Any = None

    def __enter__(self) -> Any:
        import psycopg
        from psycopg_pool import PoolTimeout

        try:
            self.context = self.store.pool().connection()
            return self.context.__enter__()
        except (psycopg.OperationalError, PoolTimeout) as exc:
            raise StorageUnavailable(f"event storage unavailable: PostgreSQL ({type(exc).__name__}: {exc})") from exc

    def __exit__(self, kind: Any, exc: Optional[BaseException], tb: Any) -> None:
        import psycopg

        try:
            self.context.__exit__(kind, exc, tb)
        except psycopg.OperationalError as failure:
            if exc is None:
                raise StorageUnavailable(f"event storage unavailable: PostgreSQL ({failure})") from failure
        if isinstance(exc, psycopg.OperationalError) and not isinstance(exc, psycopg.errors.QueryCanceled):
            raise StorageUnavailable(f"event storage unavailable: PostgreSQL ({type(exc).__name__}: {exc})") from exc
        return None  # never swallows the exception


def _insert(conn: Any, stream: str, current: int, prev_hash: str, rows: list[dict[str, Any]]) -> AppendResult:
    """Hash the rows after (current, prev_hash) and append them with tf_append (one statement);
    _HeadMoved when the head is not there (a racing append got in first, or a stale cached hash)."""
    recorded_at, hashes, last = utc_now(), [], prev_hash
    for version, row in enumerate(rows, start=current + 1):
        last = _row_hash(last, stream, version, row, recorded_at)
        hashes.append(last)
    params = [
        stream,
        current,
        prev_hash,
        [r["type"] for r in rows],
        [r["schema_version"] for r in rows],
        [r["payload_json"] for r in rows],
        hashes,
        recorded_at,
    ]
    first = conn.execute(APPEND_SQL, params).fetchone()[0]
    if first is None:
        raise _HeadMoved()
    positions = tuple(range(first, first + len(rows)))
    return AppendResult(stream, current + 1, current + len(rows), positions, recorded_at=recorded_at, last_hash=last)


def _prior_result(conn: Any, key: str, stream: str, fingerprint: str) -> Optional[AppendResult]:
    row = conn.execute(
        "SELECT stream, request_hash, result FROM idempotency WHERE key = %s FOR UPDATE", [key]
    ).fetchone()
    if row is None:
        return None
    if row[0] != stream:
        raise IdempotencyMismatch(key, f"stream {row[0]!r}, not {stream!r}")
    if row[1] != fingerprint:
        raise IdempotencyMismatch(key, "a request with a different body (fingerprint differs)")
    return AppendResult.from_dict(json.loads(row[2]), replayed=True)


def _row_dict(row: tuple[Any, ...]) -> dict[str, Any]:
    out = dict(zip(ROW_NAMES, row))
    out["payload"] = json.loads(out["payload"])
    return out


def _outbox_item(row: tuple[Any, ...]) -> OutboxItem:
    item_id, stream, created_at, payload, attempts, next_attempt_at = row
    return OutboxItem(item_id, stream, created_at, json.loads(payload), attempts, next_attempt_at)
