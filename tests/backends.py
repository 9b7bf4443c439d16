"""The two event-store backends as test fixtures: one suite runs against SQLite and PostgreSQL.

`backend` (parametrised "sqlite" / "postgresql") gives a fresh, empty store target per test:
a file in tmp_path, or a new schema in the test PostgreSQL database (TILEFOLD_TEST_PG, or a
throwaway cluster tests/pgserver.py starts). Tests reach the raw tables through `backend.sql`
(bypassing the store and its append-only guard, to tamper) and `backend.count`.
"""

from __future__ import annotations

import atexit
import os
import sqlite3
import uuid
from typing import Any, Optional

import pytest

from events import EventStore, PostgresEventStore

BACKENDS = ["sqlite", "postgresql"]
_server: dict[str, Any] = {}


def pg_server_url() -> Optional[str]:
    """The test server's URL: $TILEFOLD_TEST_PG, else a throwaway cluster started once per session
    (None, with the reason in _server["why"], when neither is possible)."""
    if "url" in _server:
        return _server["url"]
    url, why = os.environ.get("TILEFOLD_TEST_PG") or None, None
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # One cluster per worker: PostgreSQL's feed reads below the oldest writing transaction of the
        # whole cluster, so a test that holds one open for seconds (a migration waiting for a lock)
        # would hold back every other worker's reads. The shared server stays the fallback.
        own, why_own = _start_throwaway()
        url, why = (own, None) if own is not None else (url, why_own if url is None else None)
    if url is None:
        url, why = _start_throwaway()
    _server.update(url=url, why=why)
    return url


def _start_throwaway() -> tuple[Optional[str], Optional[str]]:
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return None, "psycopg is not installed (pip install -e '.[test]')"
    from tests import pgserver

    if pgserver.binaries() is None:
        return None, "no PostgreSQL server binaries (apt-get install postgresql) and TILEFOLD_TEST_PG unset"
    folder = pgserver.new_folder()
    try:
        url = pgserver.start(folder)
    except Exception as exc:  # noqa: BLE001 - reported as the skip reason
        pgserver.stop(folder)
        return None, f"could not start a throwaway PostgreSQL server: {exc}"
    atexit.register(pgserver.stop, folder)
    os.environ["TILEFOLD_TEST_PG"] = url  # servers the tests start inherit it
    return url, None


def require_pg() -> str:
    url = pg_server_url()
    if url is None:
        pytest.skip(f"PostgreSQL half skipped: {_server.get('why')}")
    return url


def new_schema_url(base: str) -> tuple[str, str]:
    """A fresh schema in the test database; (its name, a URL whose connections use it)."""
    import psycopg

    schema = "t_" + uuid.uuid4().hex[:12]
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    separator = "&" if "?" in base else "?"
    return schema, f"{base}{separator}options=-csearch_path%3D{schema}"


def drop_schema(base: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


class SqliteBackend:
    name = "sqlite"

    def __init__(self, tmp_path) -> None:
        self.target = str(tmp_path / "events.db")

    def store(self, **options: Any) -> EventStore:
        return EventStore.initialise(self.target, **options)

    def sql(self, statement: str, params: tuple = ()) -> list[tuple]:
        """Run raw SQL (`?` placeholders) bypassing the store and its append-only triggers."""
        conn = sqlite3.connect(self.target, isolation_level=None)
        try:
            conn.execute("DROP TRIGGER IF EXISTS events_no_update")
            conn.execute("DROP TRIGGER IF EXISTS events_no_delete")
            return conn.execute(statement, params).fetchall()
        finally:
            conn.close()

    def script(self, statements: list[str]) -> None:
        """Several raw statements in one transaction."""
        conn = sqlite3.connect(self.target, isolation_level=None)
        try:
            conn.execute("DROP TRIGGER IF EXISTS events_no_update")
            conn.execute("BEGIN")
            for statement in statements:
                conn.execute(statement)
            conn.execute("COMMIT")
        finally:
            conn.close()

    def count(self, table: str = "events") -> int:
        return self.sql(f"SELECT count(*) FROM {table}")[0][0]

    def close(self) -> None:
        pass


class PostgresBackend:
    name = "postgresql"

    def __init__(self, base: str) -> None:
        self.base = base
        self.schema, self.target = new_schema_url(base)
        self._stores: list[PostgresEventStore] = []

    def store(self, **options: Any) -> PostgresEventStore:
        options.pop("on_connect", None)
        store = PostgresEventStore.initialise(self.target, **options)
        self._stores.append(store)
        return store

    def sql(self, statement: str, params: tuple = ()) -> list[tuple]:
        self.script([statement], params)
        return self._last

    def script(self, statements: list[str], params: tuple = ()) -> None:
        """Raw statements in one transaction, with triggers off (session_replication_role = replica)."""
        import psycopg

        with psycopg.connect(self.target, autocommit=True) as conn, conn.transaction():
            conn.execute("SET LOCAL session_replication_role = replica")
            cursor = None
            for statement in statements:
                cursor = conn.execute(statement.replace("?", "%s"), list(params))
            self._last = cursor.fetchall() if cursor is not None and cursor.description else []

    def count(self, table: str = "events") -> int:
        return self.sql(f"SELECT count(*) FROM {table}")[0][0]

    def close(self) -> None:
        for store in self._stores:
            store.close()
        drop_schema(self.base, self.schema)


def make_backend(name: str, tmp_path):
    if name == "sqlite":
        return SqliteBackend(tmp_path)
    return PostgresBackend(require_pg())
