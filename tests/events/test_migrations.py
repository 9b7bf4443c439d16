"""Versioned migrations (events/migrations.py): each applied once under a lock and recorded; a
starting node never changes a table in use; a schema newer than the code is refused."""

from __future__ import annotations

import threading

import pytest

from events import EventStore, MigrationNeeded, NewEvent, PostgresEventStore, Registry, SchemaTooNew
from events.side_tables import KEYED_STEP


def latest(store) -> int:
    from events import pg_schema, schema

    return (pg_schema if store.dialect == "postgresql" else schema).LATEST


def keyed(store) -> int:
    """The version of the migration with the keyed step (the token verifiers')."""
    from events import pg_schema, schema

    found = (pg_schema if store.dialect == "postgresql" else schema).MIGRATIONS
    return next(migration.version for migration in found if migration.step == KEYED_STEP)


def versions(backend) -> list[int]:
    return [row[0] for row in backend.sql("SELECT version FROM schema_version ORDER BY version")]


def raw(backend, statements: list[str]) -> None:
    """Statements as an old version of the code (or an operator) would run them: no trigger dropped."""
    if backend.name == "postgresql":
        backend.script(statements)
        return
    import sqlite3

    conn = sqlite3.connect(backend.target, isolation_level=None)
    try:
        for statement in statements:
            conn.execute(statement)
    finally:
        conn.close()


def reopen(backend, **options):
    cls = PostgresEventStore if backend.name == "postgresql" else EventStore
    store = cls.initialise(backend.target, registry=Registry(), **options)
    if backend.name == "postgresql":
        backend._stores.append(store)
    return store


def test_a_fresh_database_gets_every_migration_once_and_records_it(backend):
    store = backend.store(registry=Registry())
    assert store.schema_version() == latest(store)
    assert versions(backend) == list(range(1, latest(store) + 1))
    again = reopen(backend, online_only=True)  # a second node starting: nothing to do, nothing recorded twice
    assert again.schema_version() == latest(store) and versions(backend) == list(range(1, latest(store) + 1))
    store.check_schema()


def test_an_unversioned_complete_schema_is_adopted_as_version_1(backend):
    """A database made before versions were recorded, with everything version 1 makes: it reads as
    version 1; the token migration after it rewrites rows running nodes read, so a reader and a
    starting node refuse, naming the command, and `migrate` adopts it and applies the rest."""
    store = backend.store(registry=Registry())
    store.append("s", 0, [NewEvent("e", {"n": 1})])
    raw(
        backend, ["DROP TABLE schema_version", "DROP TABLE tf_leases", "DROP TABLE tf_tokens"]
    )  # as the code before made it
    if backend.name == "postgresql":  # nor tf_feed
        raw(backend, ["DROP FUNCTION tf_feed_limit()", "DROP TABLE tf_feed"])
    # later versions are missing: a reader does not migrate
    with pytest.raises(MigrationNeeded, match="run `tilefold migrate`"):
        store.check_schema()
    with pytest.raises(MigrationNeeded, match="stop every node and run `tilefold migrate`"):
        reopen(backend, online_only=True)
    migrated = reopen(backend, steps={KEYED_STEP: lambda conn: None})
    assert migrated.schema_version() == latest(store) and versions(backend)[0] == 1
    assert migrated.append("s", 1, [NewEvent("e", {"n": 2})]).last_version == 2
    assert [e.version for e in migrated.read_all()] == [1, 2]


def test_a_keyed_step_runs_in_its_migration_and_is_required_once_events_exist(backend):
    """Given a database at the version before the token migration that holds events, then migrating
    without the keyed step is refused (it rewrites rows with the server's key directory) and nothing
    is recorded; with it, the step runs once, inside the migration, with `?` placeholders."""
    store = backend.store(registry=Registry())
    store.append("s", 0, [NewEvent("e", {"n": 1})])
    before = keyed(store) - 1
    raw(backend, ["DROP TABLE tf_tokens", f"DELETE FROM schema_version WHERE version > {before}"])
    with pytest.raises(MigrationNeeded, match="rewrites rows with the server's key directory"):
        reopen(backend)
    assert versions(backend) == list(range(1, before + 1))
    seen = []

    def step(conn) -> None:
        seen.append(conn.execute("SELECT count(*) FROM events WHERE stream = ?", ["s"]).fetchone()[0])
        conn.execute(
            "INSERT INTO tf_tokens (stream, seat, verifier, created_at) VALUES (?, ?, ?, ?)", ["s", 0, "v", "t"]
        )

    migrated = reopen(backend, steps={KEYED_STEP: step})
    assert seen == [1] and migrated.schema_version() == latest(store)
    assert backend.sql("SELECT verifier FROM tf_tokens") == [("v",)]
    reopen(backend, steps={KEYED_STEP: step})
    assert seen == [1]  # applied once


def test_a_migration_that_changes_tables_in_use_is_left_to_tilefold_migrate(backend):
    """An old schema lacking a column: a starting node refuses (naming the command), nothing changes;
    `migrate` (initialise without online_only) applies it."""
    store = backend.store(registry=Registry())
    raw(backend, ["DROP TABLE schema_version", "ALTER TABLE snapshots DROP COLUMN seal"])
    with pytest.raises(MigrationNeeded) as refused:
        reopen(backend, online_only=True)
    assert "stop every node and run `tilefold migrate`" in str(refused.value)
    assert (
        backend.sql(
            "SELECT count(*) FROM sqlite_master WHERE name = 'schema_version'"
            if backend.name == "sqlite"
            else "SELECT count(*) FROM pg_tables WHERE tablename = 'schema_version' AND schemaname = current_schema()"
        )[0][0]
        == 0
    )
    migrated = reopen(backend)
    assert migrated.schema_version() == latest(store)
    migrated.append("s", 0, [NewEvent("e", {})])
    migrated.save_snapshot("s", 1, "k", b"x")
    assert migrated.load_snapshot("s", "k") == (1, b"x")


def test_a_schema_newer_than_the_code_is_refused(backend):
    store = backend.store(registry=Registry())
    raw(backend, ["INSERT INTO schema_version (version, name, applied_at) VALUES (99, 'future', 'x')"])
    for attempt in (store.check_schema, lambda: reopen(backend), lambda: reopen(backend, online_only=True)):
        with pytest.raises(SchemaTooNew, match="schema version 99, this tilefold knows only up to"):
            attempt()


def test_a_node_starting_beside_a_busy_snapshots_table_takes_no_lock_on_it(pg_url):
    """A live node's transaction holds `snapshots` (a save_snapshot in flight): a second node's
    start-up must not wait for it (an ALTER TABLE at start-up did, and deadlocked with the live
    node's next statement)."""
    import psycopg

    PostgresEventStore.initialise(pg_url).close()
    with psycopg.connect(pg_url, autocommit=True) as live, live.transaction():
        live.execute("SELECT count(*) FROM snapshots")  # holds an ACCESS SHARE lock until the end
        live.execute("SELECT count(*) FROM events")
        done = threading.Event()
        failure: list[BaseException] = []

        def start() -> None:
            try:
                PostgresEventStore.initialise(pg_url, online_only=True).close()
            except BaseException as exc:  # noqa: BLE001 - reported below
                failure.append(exc)
            done.set()

        threading.Thread(target=start, daemon=True).start()
        started = done.wait(15)
    assert started and not failure, failure  # it finished while the live transaction still held its locks


def test_migrate_beside_a_live_node_gives_up_with_the_cause_instead_of_waiting(pg_url):
    """An ALTER TABLE that a running node's open transaction blocks: `migrate` waits lock_timeout,
    then fails naming the cause (stop the nodes); nothing of the migration is kept."""
    import psycopg

    from events.diagnose import explain

    PostgresEventStore.initialise(pg_url).close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DROP TABLE schema_version")
        conn.execute("ALTER TABLE snapshots DROP COLUMN seal")
    with psycopg.connect(pg_url, autocommit=True) as live, live.transaction():
        live.execute("SELECT count(*) FROM snapshots")  # a node's transaction, still open
        with pytest.raises(psycopg.errors.LockNotAvailable) as failed:
            PostgresEventStore(pg_url).migrate(lock_timeout=1.0)
    assert "in use by running nodes" in explain(failed.value, pg_url)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert conn.execute("SELECT to_regclass('schema_version')").fetchone()[0] is not None  # the version table
        assert conn.execute("SELECT count(*) FROM schema_version").fetchone()[0] == 0  # but no migration recorded
    store = PostgresEventStore(pg_url)
    assert store.migrate().current == 0 and store.schema_version() == latest(store)  # with the node gone it runs


def test_the_migrate_command_checks_then_applies(backend, capsys, monkeypatch, tmp_path):
    import json

    monkeypatch.setenv("TILEFOLD_KEYS", str(tmp_path / "keys"))  # the keyed step's key directory

    import service.cli
    from service.cli import main

    monkeypatch.setattr(service.cli, "gunicorn_app", lambda options: pytest.fail("serve started gunicorn"))

    store = backend.store(registry=Registry())
    raw(backend, ["DROP TABLE schema_version", "ALTER TABLE snapshots DROP COLUMN seal"])
    assert main(["migrate", "--check", "--db", backend.target]) == 1  # pending, nothing changed
    assert json.loads(capsys.readouterr().out)["pending"] is True
    assert main(["serve", "--db", backend.target]) == 2  # a node refuses, naming the command
    assert "stop every node and run `tilefold migrate`" in capsys.readouterr().err
    assert main(["migrate", "--db", backend.target]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["schema_version"] == latest(store) and report["pending"] is False
    assert main(["migrate", "--check", "--db", backend.target]) == 0
