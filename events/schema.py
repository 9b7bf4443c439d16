"""The SQLite event store's tables, indexes and triggers, and their numbered migrations."""

from __future__ import annotations

import sqlite3
from typing import Optional

from sqlite_utils import Database

from .connection import Connections, backoff, is_busy, MAX_ATTEMPTS
from .migrations import VERSION_DDL, Migration, Plan, Steps, applied_now, plan, refuse_offline, refuse_older, run_step
from .side_tables import (
    ACCOUNTS_DDL,
    API_TOKENS_DDL,
    DDL as SIDE_DDL,
    KEYED_STEP,
    LEASES_DDL,
    PUSH_DDL,
    SESSION_DEVICE_DDL,
    TOKENS_DDL,
)

#: `position` is the rowid, given out as max + 1 under the write lock; deletes are refused (the
#: triggers below), so a position is never reused without AUTOINCREMENT, whose sqlite_sequence
#: row would be one more page written on every append (files made before keep it; both work)
EVENTS_DDL = """
CREATE TABLE IF NOT EXISTS events (
    position       INTEGER PRIMARY KEY,
    stream         TEXT    NOT NULL,
    version        INTEGER NOT NULL CHECK (version >= 1),
    type           TEXT    NOT NULL,
    schema_version INTEGER NOT NULL CHECK (schema_version >= 1),
    payload        TEXT    NOT NULL,
    recorded_at    TEXT    NOT NULL,
    hash           TEXT    NOT NULL,
    UNIQUE (stream, version)
)"""

#: one row per stream, its last version and hash; WITHOUT ROWID: the stream name is the
#: B-tree key, so moving a head rewrites one page, not a table page and an index page
HEADS_DDL = """
CREATE TABLE IF NOT EXISTS stream_heads (
    stream  TEXT    PRIMARY KEY,
    version INTEGER NOT NULL,
    hash    TEXT    NOT NULL
) WITHOUT ROWID"""
#: folded states of a stream (service/infra/snapshots.py), keyed by the format they are in (which names
#: the engine's rules version); derived data beside the events, never replacing them. `keep` = 0:
#: a stream's rolling latest snapshot, replaced by the next one; kept ones (1) stay. A rowid table:
#: a snapshot of a few KB stays on its leaf page (WITHOUT ROWID would spill it to overflow pages)
SNAPSHOTS_DDL = """
CREATE TABLE IF NOT EXISTS snapshots (
    stream     TEXT    NOT NULL,
    key        TEXT    NOT NULL,
    version    INTEGER NOT NULL,
    keep       INTEGER NOT NULL DEFAULT 1,
    data       BLOB    NOT NULL,
    created_at TEXT    NOT NULL,
    chain_hash TEXT,
    seal       TEXT,
    UNIQUE (stream, key, version)
)"""
#: a snapshot's seal (events.chain.snapshot_seal over its bytes, stream, version, key and
#: `chain_hash`, the hash of the event row at its version): a load checks both before unpickling
SNAPSHOT_SEAL_COLUMNS = ("chain_hash", "seal")
#: triggers that keep stream_heads and refuse a version that does not follow the head; an
#: append can then be a single INSERT statement (EventStore._append_in_one_statement)
HEAD_TRIGGERS = ("events_version_follows_head", "events_move_head")
TRIGGER_NAMES = ("events_no_update", "events_no_delete", *HEAD_TRIGGERS)
TRIGGERS = [
    """CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
       BEGIN SELECT RAISE(ABORT, 'events are append-only'); END""",
    """CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
       BEGIN SELECT RAISE(ABORT, 'events are append-only'); END""",
    """CREATE TRIGGER IF NOT EXISTS events_version_follows_head BEFORE INSERT ON events
       WHEN NEW.version != 1 + COALESCE((SELECT version FROM stream_heads WHERE stream = NEW.stream), 0)
       BEGIN SELECT RAISE(ABORT, 'stream version conflict'); END""",
    """CREATE TRIGGER IF NOT EXISTS events_move_head AFTER INSERT ON events
       BEGIN INSERT OR REPLACE INTO stream_heads (stream, version, hash) VALUES (NEW.stream, NEW.version, NEW.hash); END""",
]


def _baseline(conn: sqlite3.Connection) -> None:
    _create_tables(conn, Database(conn))
    for statement in SIDE_DDL:
        conn.execute(statement)


def _tokens(conn: sqlite3.Connection) -> None:
    conn.execute(TOKENS_DDL)


#: the numbered migrations (events/migrations.py); append, never edit one that has shipped
def _leases(conn: sqlite3.Connection) -> None:
    for statement in LEASES_DDL:
        conn.execute(statement)


def _accounts(conn: sqlite3.Connection) -> None:
    for statement in ACCOUNTS_DDL:
        conn.execute(statement)


def _push(conn: sqlite3.Connection) -> None:
    for statement in PUSH_DDL:
        conn.execute(statement)


def _api_tokens(conn: sqlite3.Connection) -> None:
    for statement in API_TOKENS_DDL:
        conn.execute(statement)


def _session_device(conn: sqlite3.Connection) -> None:
    for statement in SESSION_DEVICE_DDL:
        conn.execute(statement)


MIGRATIONS = (
    Migration(1, "events, heads, idempotency, outbox, meta, snapshots, side tables", False, _baseline),
    Migration(2, "leases (tf_leases)", True, _leases),
    Migration(3, "token verifiers beside the streams (tf_tokens); webhook secrets sealed", False, _tokens, KEYED_STEP),
    Migration(4, "accounts: passkeys, sessions, recovery codes, challenges, sealing keys", True, _accounts),
    Migration(5, "accounts' Web Push subscriptions (tf_push)", True, _push),
    Migration(6, "accounts' API tokens (tf_api_tokens)", True, _api_tokens),
    Migration(7, "what belongs to an account session: its last use, its push subscription", True, _session_device),
)
LATEST = MIGRATIONS[-1].version
V1_TABLES = ("events", "stream_heads", "snapshots", "idempotency", "outbox", "meta", "tf_decisions", "tf_webhooks")
V1_COLUMNS = (("snapshots", "chain_hash"), ("snapshots", "seal"), ("outbox", "claimed_until"))


def migrate(connections: Connections, where: str, *, online_only: bool = False, steps: Optional[Steps] = None) -> Plan:
    """Switch the file to WAL and apply the pending migrations, all in one write transaction
    (SQLite's write lock on the file is the migration lock: a second process waits, then finds
    nothing left to do). With `online_only`, MigrationNeeded instead of changing tables in use;
    `steps`: the keyed steps (events/migrations.py)."""
    found: Plan = connections.read(lambda conn, db: schema_plan(conn, where))
    if not (found.todo or found.adopt):
        return found
    _enable_wal(connections)
    connections.discard()  # reopened knowing the file is in WAL mode (its synchronous level depends on it)

    def apply(conn: sqlite3.Connection, db: Database) -> Plan:
        found = schema_plan(conn, where)
        if online_only:
            refuse_offline(found, where, LATEST)
        conn.execute(VERSION_DDL)
        record = "INSERT OR IGNORE INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)"
        if found.adopt:
            conn.execute(record, [1, "adopted (made before versions were recorded)", applied_now()])
        holds_events = _holds_events(conn)
        for migration in found.todo:
            migration.apply(conn)
            run_step(migration, conn, steps, holds_events, where)
            conn.execute(record, [migration.version, migration.name, applied_now()])
        conn.execute(f"PRAGMA user_version = {LATEST}")
        return found

    applied: Plan = connections.write(apply)
    return applied


def check(connections: Connections, where: str) -> None:
    """MigrationNeeded / SchemaTooNew unless the file's schema is this code's (read only)."""
    refuse_older(connections.read(lambda conn, db: schema_plan(conn, where)), where, LATEST)


def schema_plan(conn: sqlite3.Connection, where: str) -> Plan:
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')")}
    recorded = None
    if "schema_version" in names:
        recorded = conn.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchone()[0]
    complete = False
    if "events" in names and recorded is None:
        columns = {(t, c) for t, _ in V1_COLUMNS if t in names for c in _columns(conn, t)}
        complete = set(V1_TABLES) <= names and set(V1_COLUMNS) <= columns and {t for t in TRIGGER_NAMES} <= names
    return plan(recorded, "events" in names, complete, MIGRATIONS, where)


def _holds_events(conn: sqlite3.Connection) -> bool:
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").fetchone():
        return False
    return conn.execute("SELECT 1 FROM events LIMIT 1").fetchone() is not None


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def _enable_wal(connections: Connections) -> None:
    for attempt in range(MAX_ATTEMPTS):
        try:
            connections.get()[1].enable_wal()
            return
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or attempt + 1 == MAX_ATTEMPTS:
                raise
            backoff(attempt)


def _create_tables(conn: sqlite3.Connection, db: Database) -> None:
    conn.execute(EVENTS_DDL)
    conn.execute(HEADS_DDL)
    conn.execute(SNAPSHOTS_DDL)
    have = {row[1] for row in conn.execute("PRAGMA table_info(snapshots)")}
    for column in SNAPSHOT_SEAL_COLUMNS:
        if column not in have:  # files made before snapshots were sealed (their rows are never read)
            conn.execute(f"ALTER TABLE snapshots ADD COLUMN {column} TEXT")
    db.table("idempotency").create(
        {"key": str, "stream": str, "request_hash": str, "result": str, "created_at": str},
        pk="key",
        not_null={"stream", "request_hash", "result", "created_at"},
        if_not_exists=True,
    )
    db.table("outbox").create(
        {
            "id": int,
            "stream": str,
            "created_at": str,
            "payload": str,
            "delivered_at": str,
            "attempts": int,
            "next_attempt_at": str,
            "claimed_until": str,
        },
        pk="id",
        not_null={"stream", "created_at", "payload", "attempts"},
        defaults={"attempts": 0},
        if_not_exists=True,
    )
    if "claimed_until" not in {row[1] for row in conn.execute("PRAGMA table_info(outbox)")}:
        conn.execute("ALTER TABLE outbox ADD COLUMN claimed_until TEXT")  # a delivery lease (files made before it)
    db.table("outbox").create_index(["delivered_at", "next_attempt_at"], if_not_exists=True)
    db.table("meta").create({"key": str, "value": str}, pk="key", if_not_exists=True)
    for trigger in TRIGGERS:
        conn.execute(trigger)
