"""Service-level SQLite tables for correspondence play (a small, idempotent, race-safe migration).

* `tf_decisions`: one row per pending decision of a match with move deadlines: since when it is
  pending (by the injected clock), when it is due, and the stream version the row describes.
  Rewritten in the same transaction as every append (`append(..., extra=...)`).
* `tf_webhooks`: a seat's webhook URL and its HMAC signing secret (never in the event stream).
* `outbox.claimed_until`: a delivery lease, so two workers never deliver one notice at once.
"""
from __future__ import annotations

import sqlite3

from events.connection import Connections

DDL = [
    """CREATE TABLE IF NOT EXISTS tf_decisions (
        stream  TEXT    NOT NULL,
        seat    INTEGER NOT NULL,
        since   TEXT    NOT NULL,
        due_at  TEXT,
        version INTEGER NOT NULL,
        PRIMARY KEY (stream, seat))""",
    "CREATE INDEX IF NOT EXISTS tf_decisions_due ON tf_decisions (due_at)",
    """CREATE TABLE IF NOT EXISTS tf_webhooks (
        stream     TEXT    NOT NULL,
        seat       INTEGER NOT NULL,
        url        TEXT    NOT NULL,
        secret     TEXT    NOT NULL,
        created_at TEXT    NOT NULL,
        PRIMARY KEY (stream, seat))""",
]


def migrate(connections: Connections) -> None:
    """Create the tables and the outbox lease column if missing (inside BEGIN IMMEDIATE)."""
    connections.write(_migrate)


def _migrate(conn: sqlite3.Connection, db) -> None:
    postgres = getattr(db, "dialect", None) == "postgresql"
    if postgres:  # nodes starting together: one migrates at a time (CREATE ... IF NOT EXISTS can race)
        conn.execute("SELECT pg_advisory_xact_lock(7017002)")
    for statement in DDL:
        conn.execute(statement)
    if postgres:  # PostgreSQL's outbox has claimed_until from the start (events/pg_schema.py)
        return
    columns = {row[1] for row in conn.execute("PRAGMA table_info(outbox)")}
    if columns and "claimed_until" not in columns:
        conn.execute("ALTER TABLE outbox ADD COLUMN claimed_until TEXT")
