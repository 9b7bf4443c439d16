"""Tables the service keeps beside its streams, created by the store's migrations on either backend.

* `tf_decisions`: one row per pending decision of a match with move deadlines: since when it is
  pending (by the service's clock), when it is due, and the stream version the row describes;
  rewritten in the same transaction as every append of the match (`append(..., extra=...)`).
* `tf_webhooks`: a seat's webhook URL and its HMAC signing secret (never in the event stream).
* `tf_leases` (a later migration, `LEASES_DDL`): one row per named lease, who holds it and until
  when (service/infra/lease.py: the ticker's). Created with the schema, never on first use, so
  nothing a request does (a readiness probe reading the lease) creates a table.
* `tf_tokens` (a later migration, `TOKENS_DDL`): what checks a seat's (or the owner's, `seat` -1)
  token: a keyed MAC of it, written in the same transaction as the event that gives the seat its
  token (never in the event stream).

The statements are portable (SQLite and PostgreSQL): the service reaches these tables only
through a store's `query(sql, params)` / `write(fn)` and `extra(conn)`, with `?` placeholders.
"""

from __future__ import annotations

#: a token's verifier per match stream and seat (-1: the owner), a keyed MAC (the key lives outside
#: the database); created by the third SQLite / fourth PostgreSQL migration, which moves the
#: token hashes of matches made before it out of the events' reach (service/infra/tokens.py)
TOKENS_DDL = """CREATE TABLE IF NOT EXISTS tf_tokens (
        stream     TEXT    NOT NULL,
        seat       INTEGER NOT NULL,
        verifier   TEXT    NOT NULL,
        created_at TEXT    NOT NULL,
        PRIMARY KEY (stream, seat))"""
#: the keyed step that fills tf_tokens from older matches and seals older webhook secrets
KEYED_STEP = "seal"

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

#: a later migration of both backends (online: it only creates a table); never copied (a lease is
#: the running deployment's, not the data's)
LEASES_DDL = [
    "CREATE TABLE IF NOT EXISTS tf_leases ("
    "name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at DOUBLE PRECISION NOT NULL)",
]

#: accounts (service/infra/account_secrets.py): what signs a player in, kept beside the account
#: streams, never in them. A passkey's credential id -> its account and signature counter; a
#: session's keyed MAC (the cookie's secret is never stored); a recovery code's keyed MAC, deleted
#: when used; a WebAuthn challenge's MAC until it is used once or expires; the salt of the key that
#: seals an account's personal fields (deleting it shreds them: the events stay as they are).
ACCOUNTS_DDL = [
    """CREATE TABLE IF NOT EXISTS tf_passkeys (
        credential TEXT    PRIMARY KEY,
        account    TEXT    NOT NULL,
        sign_count INTEGER NOT NULL,
        created_at TEXT    NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS tf_passkeys_account ON tf_passkeys (account)",
    """CREATE TABLE IF NOT EXISTS tf_sessions (
        id         TEXT PRIMARY KEY,
        account    TEXT NOT NULL,
        label      TEXT NOT NULL,
        created_at TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS tf_sessions_account ON tf_sessions (account)",
    """CREATE TABLE IF NOT EXISTS tf_recovery (
        verifier   TEXT PRIMARY KEY,
        account    TEXT NOT NULL,
        created_at TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS tf_recovery_account ON tf_recovery (account)",
    """CREATE TABLE IF NOT EXISTS tf_challenges (
        id         TEXT             PRIMARY KEY,
        purpose    TEXT             NOT NULL,
        data       TEXT             NOT NULL,
        expires_at DOUBLE PRECISION NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS tf_account_keys (
        account    TEXT PRIMARY KEY,
        salt       TEXT NOT NULL,
        created_at TEXT NOT NULL)""",
]

#: Web Push subscriptions of accounts (service/infra/account_secrets.py): one row per device, its id a
#: keyed MAC of the push endpoint, the subscription (endpoint and the device's p256dh/auth keys)
#: sealed under the account's own key; deleting the account deletes its rows (and that key)
PUSH_DDL = [
    """CREATE TABLE IF NOT EXISTS tf_push (
        id           TEXT PRIMARY KEY,
        account      TEXT NOT NULL,
        subscription TEXT NOT NULL,
        created_at   TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS tf_push_account ON tf_push (account)",
]

#: an account's API tokens for scripts (service/infra/account_secrets.py): the token's keyed MAC
#: (the token itself is shown once and never stored), a public reference to list and revoke it by,
#: its name, when it was made and when it last authorised a change
API_TOKENS_DDL = [
    """CREATE TABLE IF NOT EXISTS tf_api_tokens (
        id         TEXT PRIMARY KEY,
        ref        TEXT NOT NULL UNIQUE,
        account    TEXT NOT NULL,
        name       TEXT NOT NULL,
        created_at TEXT NOT NULL,
        last_used  TEXT)""",
    "CREATE INDEX IF NOT EXISTS tf_api_tokens_account ON tf_api_tokens (account)",
]

#: what belongs to one session of an account (service/infra/account_secrets.py), in tables of their
#: own so the migration only creates (online), never alters a table in use: when the session last
#: authorised a change (the idle timeout counts from it, or from the sign-in before any), and which
#: Web Push subscription its device made (ended with the session)
SESSION_DEVICE_DDL = [
    """CREATE TABLE IF NOT EXISTS tf_session_seen (
        id        TEXT PRIMARY KEY,
        account   TEXT NOT NULL,
        last_seen TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS tf_session_seen_account ON tf_session_seen (account)",
    """CREATE TABLE IF NOT EXISTS tf_push_session (
        id      TEXT PRIMARY KEY,
        account TEXT NOT NULL,
        session TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS tf_push_session_session ON tf_push_session (session)",
    "CREATE INDEX IF NOT EXISTS tf_push_session_account ON tf_push_session (account)",
]
