"""Creates the event store's tables, indexes and triggers (idempotent, safe to race)."""

from __future__ import annotations

import sqlite3

from sqlite_utils import Database

from .connection import Connections, backoff, is_busy, MAX_ATTEMPTS

SCHEMA_VERSION = 1

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


def create_schema(connections: Connections) -> None:
    """Switch the file to WAL and create every table that does not exist yet."""
    _enable_wal(connections)
    connections.discard()  # reopened knowing the file is in WAL mode (its synchronous level depends on it)
    connections.write(_create_tables)


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
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
