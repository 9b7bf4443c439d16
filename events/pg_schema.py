"""The PostgreSQL event store's tables and its append function (idempotent, safe to race).

Everything an append touches is keyed by stream (`events` by (stream, version), `stream_heads`
by stream), so the tables could be distributed by stream (Citus); the global feed's position
sequence and its lock are the one piece that is not (docs/STORE.md, "PostgreSQL").
"""

from __future__ import annotations

from typing import Any

#: an advisory lock id for schema creation (two nodes starting at once must not both CREATE)
SCHEMA_LOCK = 7_017_001

DDL = [
    """CREATE TABLE IF NOT EXISTS events (
        stream         TEXT    NOT NULL,
        version        INTEGER NOT NULL CHECK (version >= 1),
        position       BIGINT  NOT NULL,
        type           TEXT    NOT NULL,
        schema_version INTEGER NOT NULL CHECK (schema_version >= 1),
        payload        TEXT    NOT NULL,
        recorded_at    TEXT    NOT NULL,
        hash           TEXT    NOT NULL,
        PRIMARY KEY (stream, version))""",
    "CREATE UNIQUE INDEX IF NOT EXISTS events_position ON events (position)",
    """CREATE TABLE IF NOT EXISTS stream_heads (
        stream  TEXT    PRIMARY KEY,
        version INTEGER NOT NULL,
        hash    TEXT    NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS idempotency (
        key          TEXT PRIMARY KEY,
        stream       TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        result       TEXT NOT NULL,
        created_at   TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS outbox (
        id              BIGSERIAL PRIMARY KEY,
        stream          TEXT    NOT NULL,
        created_at      TEXT    NOT NULL,
        payload         TEXT    NOT NULL,
        delivered_at    TEXT,
        attempts        INTEGER NOT NULL DEFAULT 0,
        next_attempt_at TEXT,
        claimed_until   TEXT)""",
    "CREATE INDEX IF NOT EXISTS outbox_due ON outbox (delivered_at, next_attempt_at)",
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)",
    # folded states beside the events (the service's snapshots; derived data, never replacing events)
    """CREATE TABLE IF NOT EXISTS snapshots (
        stream     TEXT    NOT NULL,
        key        TEXT    NOT NULL,
        version    INTEGER NOT NULL,
        keep       INTEGER NOT NULL DEFAULT 1,
        data       BYTEA   NOT NULL,
        created_at TEXT    NOT NULL,
        chain_hash TEXT,
        seal       TEXT,
        UNIQUE (stream, key, version))""",
    # schemas made before snapshots were sealed (their rows are never read: the format key changed)
    "ALTER TABLE snapshots ADD COLUMN IF NOT EXISTS chain_hash TEXT",
    "ALTER TABLE snapshots ADD COLUMN IF NOT EXISTS seal TEXT",
    """CREATE OR REPLACE FUNCTION tf_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN RAISE EXCEPTION 'events are append-only'; END $$""",
    "DROP TRIGGER IF EXISTS events_append_only ON events",
    """CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
       FOR EACH ROW EXECUTE FUNCTION tf_events_append_only()""",
]

#: One append as one statement: move the stream's head from (expected, prev_hash) or refuse
#: (NULL = conflict), then insert the rows at positions made of the transaction's id:
#: position = xid << 20 | n-th event written by that transaction. The global feed is read in
#: position order up to the oldest transaction still running (read_all: `position <
#: pg_snapshot_xmin(pg_current_snapshot()) << 20`), so an event that commits late is never
#: skipped: its position is above every position a reader could have passed (docs/STORE.md,
#: "The global feed"). No lock is shared by appends to different streams: they commit in parallel.
POSITION_BITS = 20  # events one transaction may append (2**20); positions stay below 2**63 for 2**43 xids
APPEND_FUNCTION = """
CREATE OR REPLACE FUNCTION tf_append(p_stream TEXT, p_expected INTEGER, p_prev_hash TEXT,
    p_types TEXT[], p_schema_versions INTEGER[], p_payloads TEXT[], p_hashes TEXT[], p_recorded_at TEXT)
RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
    n INTEGER := cardinality(p_types);
    written INTEGER := coalesce(nullif(current_setting('tilefold.written', true), ''), '0')::INTEGER;
    first_position BIGINT;
BEGIN
    IF p_expected = 0 THEN
        INSERT INTO stream_heads (stream, version, hash) VALUES (p_stream, n, p_hashes[n])
            ON CONFLICT (stream) DO NOTHING;
    ELSE
        UPDATE stream_heads SET version = p_expected + n, hash = p_hashes[n]
            WHERE stream = p_stream AND version = p_expected AND hash = p_prev_hash;
    END IF;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    IF written + n > 1048576 THEN
        RAISE EXCEPTION 'more than 1048576 events in one transaction';
    END IF;
    first_position := (pg_current_xact_id()::TEXT::BIGINT << 20) + written;
    PERFORM set_config('tilefold.written', (written + n)::TEXT, true);
    INSERT INTO events (stream, version, position, type, schema_version, payload, recorded_at, hash)
        SELECT p_stream, p_expected + i, first_position + i - 1, p_types[i], p_schema_versions[i],
               p_payloads[i], p_recorded_at, p_hashes[i]
        FROM generate_series(1, n) AS i;
    RETURN first_position;
END $$"""

#: the feed's high-water mark: positions below it belong to finished transactions only
FEED_LIMIT = "(pg_snapshot_xmin(pg_current_snapshot())::TEXT::BIGINT << 20)"

TABLES = ("events", "stream_heads", "idempotency", "outbox", "meta")


def create_schema(conn: Any) -> None:
    """Create every table, the append function and the trigger, under an advisory lock (autocommit conn)."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", [SCHEMA_LOCK])
        for statement in DDL:
            conn.execute(statement)
        conn.execute(APPEND_FUNCTION)
