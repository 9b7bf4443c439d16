"""The PostgreSQL event store's tables, its append function and their numbered migrations.

Everything an append touches is keyed by stream (`events` by (stream, version), `stream_heads`
by stream), so the tables could be distributed by stream (Citus); the global feed's position
sequence and its lock are the one piece that is not (docs/STORE.md, "PostgreSQL").
"""

from __future__ import annotations

from typing import Any, Optional

from .migrations import VERSION_DDL, Migration, Plan, Steps, applied_now, plan, run_step
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

#: an advisory lock id for migrations (two nodes starting at once must not both CREATE)
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
#: position = (xid + shift) << 20 | n-th event written by that transaction, where `shift` (the
#: one row of `tf_feed`, 0 until a restore) lifts a restored database's positions above the ones
#: it brought along when its new cluster's transaction ids start lower (`reseed_feed`). The global feed is read in
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
    first_position := ((pg_current_xact_id()::TEXT::BIGINT + (SELECT shift FROM tf_feed WHERE id = 1)) << 20)
        + written;
    PERFORM set_config('tilefold.written', (written + n)::TEXT, true);
    INSERT INTO events (stream, version, position, type, schema_version, payload, recorded_at, hash)
        SELECT p_stream, p_expected + i, first_position + i - 1, p_types[i], p_schema_versions[i],
               p_payloads[i], p_recorded_at, p_hashes[i]
        FROM generate_series(1, n) AS i;
    RETURN first_position;
END $$"""

#: the feed's high-water mark: positions below it belong to finished transactions only
FEED_LIMIT = "tf_feed_limit()"
FEED_DDL = [
    """CREATE TABLE IF NOT EXISTS tf_feed (
        id    INTEGER PRIMARY KEY CHECK (id = 1),
        shift BIGINT  NOT NULL)""",
    "INSERT INTO tf_feed (id, shift) VALUES (1, 0) ON CONFLICT (id) DO NOTHING",
    """CREATE OR REPLACE FUNCTION tf_feed_limit() RETURNS BIGINT LANGUAGE sql STABLE AS $$
       SELECT (pg_snapshot_xmin(pg_current_snapshot())::TEXT::BIGINT + (SELECT shift FROM tf_feed WHERE id = 1)) << 20
       $$""",
    APPEND_FUNCTION,
]

TABLES = ("events", "stream_heads", "idempotency", "outbox", "meta")
#: what version 1 made: an unversioned schema with all of it is adopted as version 1
V1_TABLES = (*TABLES, "snapshots", "tf_decisions", "tf_webhooks")
V1_COLUMNS = (("snapshots", "chain_hash"), ("snapshots", "seal"), ("outbox", "claimed_until"))


def _run(statements: list[str]) -> Any:
    def apply(conn: Any) -> None:
        for statement in statements:
            conn.execute(statement)

    return apply


#: the numbered migrations (events/migrations.py); append, never edit one that has shipped
MIGRATIONS = (
    Migration(
        1,
        "events, heads, idempotency, outbox, meta, snapshots, side tables",
        False,
        _run([*DDL, APPEND_FUNCTION, *SIDE_DDL]),
    ),
    Migration(2, "feed positions independent of the cluster's transaction ids (tf_feed)", True, _run(FEED_DDL)),
    Migration(3, "leases (tf_leases)", True, _run(LEASES_DDL)),
    Migration(
        4,
        "token verifiers beside the streams (tf_tokens); webhook secrets sealed",
        False,
        _run([TOKENS_DDL]),
        KEYED_STEP,
    ),
    Migration(5, "accounts: passkeys, sessions, recovery codes, challenges, sealing keys", True, _run(ACCOUNTS_DDL)),
    Migration(6, "accounts' Web Push subscriptions (tf_push)", True, _run(PUSH_DDL)),
    Migration(7, "accounts' API tokens (tf_api_tokens)", True, _run(API_TOKENS_DDL)),
    Migration(
        8, "what belongs to an account session: its last use, its push subscription", True, _run(SESSION_DEVICE_DDL)
    ),
)
LATEST = MIGRATIONS[-1].version


def schema_plan(conn: Any, where: str) -> Plan:
    """What this database's schema needs (read only)."""
    has_versions, has_events = conn.execute(
        "SELECT to_regclass('schema_version') IS NOT NULL, to_regclass('events') IS NOT NULL"
    ).fetchone()
    recorded: Optional[int] = None
    if has_versions:
        recorded = conn.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchone()[0]
    return plan(recorded, has_events, bool(has_events and not has_versions and _complete_v1(conn)), MIGRATIONS, where)


def _complete_v1(conn: Any) -> bool:
    tables = conn.execute(
        "SELECT count(*) FROM unnest(%s::text[]) AS t WHERE to_regclass(t) IS NOT NULL", [list(V1_TABLES)]
    ).fetchone()[0]
    columns = conn.execute(
        "SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() "
        "AND table_name || '.' || column_name = ANY(%s)",
        [[f"{t}.{c}" for t, c in V1_COLUMNS]],
    ).fetchone()[0]
    extras = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = to_regclass('events') "
        "AND tgname = 'events_append_only'), EXISTS (SELECT 1 FROM pg_proc p JOIN pg_namespace n "
        "ON n.oid = p.pronamespace WHERE n.nspname = current_schema() AND p.proname = 'tf_append')"
    ).fetchone()
    return bool(tables == len(V1_TABLES) and columns == len(V1_COLUMNS) and all(extras))


def apply_plan(conn: Any, found: Plan, steps: Optional[Steps] = None, where: str = "") -> None:
    """Adopt and/or run the plan's migrations, each in its own transaction with its version row
    (autocommit conn, advisory lock held by the caller). A lock a running node holds is waited
    for at most `lock_timeout` (set by the caller): then the migration fails, nothing of it kept.
    `steps`: the keyed steps (events/migrations.py), each given this connection."""
    record = "INSERT INTO schema_version (version, name, applied_at) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING"
    conn.execute(VERSION_DDL)
    if found.adopt:
        conn.execute(record, [1, "adopted (made before versions were recorded)", applied_now()])
    has_events = bool(conn.execute("SELECT to_regclass('events') IS NOT NULL").fetchone()[0])
    holds_events = has_events and bool(conn.execute("SELECT EXISTS (SELECT 1 FROM events)").fetchone()[0])
    for migration in found.todo:
        with conn.transaction():
            migration.apply(conn)
            run_step(migration, conn, steps, holds_events, where)
            conn.execute(record, [migration.version, migration.name, applied_now()])


def reseed_feed(conn: Any) -> Optional[int]:
    """After a restore into a cluster whose transaction ids are below the ones the positions were
    made of, lift `tf_feed.shift` so every new position lands above every stored one (and the
    high-water mark above them all); the new shift, or None when nothing needed it. Run at every
    start under the advisory lock, before the node appends: on a database that was not restored
    the newest position is always below the current transaction id's, and nothing changes."""
    with conn.transaction():
        top, xid, shift = conn.execute(
            "SELECT (SELECT max(position) FROM events), pg_current_xact_id()::TEXT::BIGINT, "
            "(SELECT shift FROM tf_feed WHERE id = 1 FOR UPDATE)"
        ).fetchone()
        if top is None or (top >> 20) < xid + shift:
            return None
        lifted = (top >> 20) + 1 - xid
        conn.execute("UPDATE tf_feed SET shift = %s WHERE id = 1", [lifted])
        return int(lifted)
