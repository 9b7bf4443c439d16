"""Tests for the events package: appends, reads, idempotency, integrity, upcasting, faults.

One suite, two backends: every test taking `store` or `backend` runs against SQLite and against
PostgreSQL (tests/backends.py); the tests of SQLite's own machinery (pragmas, triggers, WAL,
busy retries, fault mapping) take `path` / `sqlite_store` and run on SQLite only.
"""

import json
import sqlite3
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import events.connection as connection_module
from events.chain import canonical_json, hash_new_row
from events import (
    ConcurrencyError,
    EventStore,
    IdempotencyMismatch,
    NewEvent,
    Registry,
    StorageUnavailable,
    UpcastError,
    compute_hash,
    verify_chain,
)
from events.registry import validate_type_name


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "events.db")


@pytest.fixture
def store(backend):
    return backend.store(registry=Registry())


@pytest.fixture
def sqlite_store(path):
    return EventStore.initialise(path, registry=Registry())


def count(path, table="events"):
    with sqlite3.connect(path) as conn:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def ev(n, type_="tile_drawn"):
    return NewEvent(type_, {"n": n})


# -- append / read ----------------------------------------------------------------
def test_a_read_gives_back_every_json_value_as_written(store):
    """Given payloads orjson alone would read otherwise (integers beyond 64 bits, a digit run in a
    string, floats at the edges of their notation) beside plain ones, when the stream is read
    (both backends parse on orjson's fast path), then every payload equals what was appended."""
    payloads = [
        {"big": 2**64, "negative": -(2**63) - 1, "huge": 10**40},
        {"hex": "0123456789012345678901234567890abc", "n": 1},
        {"small": 1e-05, "large": 1e16, "zero": -0.0, "third": 1 / 3},
        {"tile": "5m", "seat": 2, "none": None, "flag": True, "nested": {"z": [1, "二", {"a": 2**63}]}},
    ]
    store.append("values", 0, [NewEvent("t", p) for p in payloads])
    read = [e.payload for e in store.read("values")]
    assert read == payloads
    assert [{k: type(v) for k, v in p.items()} for p in read] == [{k: type(v) for k, v in p.items()} for p in payloads]
    assert store.verify_stream("values") == []


def test_round_trip(store):
    result = store.append("match-1", 0, [ev(1), {"type": "discard", "payload": {"tile": "5m", "ü": "é"}}])
    assert (result.stream, result.first_version, result.last_version) == ("match-1", 1, 2)
    assert len(result.positions) == 2 and result.first_position < result.last_position
    events = store.read("match-1")
    assert [e.version for e in events] == [1, 2]
    assert [e.type for e in events] == ["tile_drawn", "discard"]
    assert events[1].payload == {"tile": "5m", "ü": "é"}
    assert events[1].position == result.last_position
    assert events[0].recorded_at.endswith("Z") and "T" in events[0].recorded_at
    assert len(events[0].hash) == 64
    assert store.current_version("match-1") == 2


def test_payload_is_canonical_json(store, backend):
    store.append("s", 0, [NewEvent("t", {"b": 1, "a": [1, 2], "c": "é"})])
    (payload,) = backend.sql("SELECT payload FROM events")[0]
    assert payload == '{"a":[1,2],"b":1,"c":"é"}'


def test_read_after_and_limit(store):
    store.append("s", 0, [ev(i) for i in range(1, 6)])
    assert [e.version for e in store.read("s", after=3)] == [4, 5]
    assert [e.version for e in store.read("s", after=1, limit=2)] == [2, 3]
    assert store.read("s", after=5) == []
    assert store.read("unknown") == []


def test_streams_and_current_version(store):
    assert store.streams() == []
    assert store.current_version("nope") == 0
    store.append("b", 0, [ev(1)])
    store.append("a", 0, [ev(1), ev(2)])
    assert store.streams() == ["a", "b"]
    assert store.current_version("a") == 2


def test_read_all_is_globally_ordered(store):
    store.append("a", 0, [ev(1)])
    store.append("b", 0, [ev(1), ev(2)])
    store.append("a", 1, [ev(2)])
    feed = store.read_all()
    assert [(e.stream, e.version) for e in feed] == [("a", 1), ("b", 1), ("b", 2), ("a", 2)]
    assert [e.position for e in feed] == sorted(e.position for e in feed)
    assert [(e.stream, e.version) for e in store.read_all(after_position=feed[1].position)] == [("b", 2), ("a", 2)]
    assert len(store.read_all(limit=3)) == 3


# -- optimistic concurrency ---------------------------------------------------------
def test_new_stream_needs_expected_version_zero(store):
    with pytest.raises(ConcurrencyError) as info:
        store.append("fresh", 3, [ev(1)])
    assert info.value.current_version == 0
    assert store.append("fresh", 0, [ev(1)]).first_version == 1


def test_conflict_reports_current_version(store, backend):
    store.append("s", 0, [ev(1), ev(2)])
    with pytest.raises(ConcurrencyError) as info:
        store.append("s", 1, [ev(3)])
    assert info.value.current_version == 2
    assert "version 2" in str(info.value) and "expected version 1" in str(info.value)
    assert backend.count() == 2
    assert store.append("s", 2, [ev(3)]).last_version == 3


# -- idempotency --------------------------------------------------------------------
def test_idempotent_retry_returns_original_and_writes_nothing(store, backend):
    first = store.append("s", 0, [ev(1), ev(2)], idempotency_key="req-1")
    store.append("s", 2, [ev(3)])  # the stream moves on; a late retry must not conflict
    again = store.append("s", 0, [ev(1), ev(2)], idempotency_key="req-1")
    assert again == first and again.replayed and not first.replayed
    assert backend.count() == 3
    assert backend.count("idempotency") == 1


def test_idempotency_key_with_other_fingerprint_is_rejected(store, backend):
    store.append("s", 0, [ev(1)], idempotency_key="k", request_fingerprint="body-A")
    assert store.append("s", 0, [ev(1)], idempotency_key="k", request_fingerprint="body-A").replayed
    with pytest.raises(IdempotencyMismatch):
        store.append("s", 1, [ev(2)], idempotency_key="k", request_fingerprint="body-B")
    assert backend.count() == 1


def test_idempotency_default_fingerprint_is_the_body(store):
    store.append("s", 0, [ev(1)], idempotency_key="k")
    with pytest.raises(IdempotencyMismatch):
        store.append("s", 0, [ev(99)], idempotency_key="k")
    with pytest.raises(IdempotencyMismatch):
        store.append("other", 0, [ev(1)], idempotency_key="k")


def test_idempotent_result_lookup_writes_nothing(store):
    assert store.idempotent_result("k") is None
    first = store.append("s", 0, [ev(1)], idempotency_key="k", request_fingerprint="f")
    assert store.idempotent_result("k", "s", "f") == first
    assert store.idempotent_result("k").replayed
    with pytest.raises(IdempotencyMismatch):
        store.idempotent_result("k", "s", "other")
    with pytest.raises(IdempotencyMismatch):
        store.idempotent_result("k", "elsewhere")


def test_failed_append_does_not_consume_the_key(store):
    store.append("s", 0, [ev(1)])
    with pytest.raises(ConcurrencyError):
        store.append("s", 0, [ev(2)], idempotency_key="k", request_fingerprint="f")
    assert store.append("s", 1, [ev(2)], idempotency_key="k", request_fingerprint="f").last_version == 2


# -- atomicity, outbox, extra hook ----------------------------------------------------------
def test_batch_with_unserialisable_payload_writes_nothing(store, backend):
    with pytest.raises(ValueError):
        store.append("s", 0, [ev(1), NewEvent("t", {"bad": {1, 2}}), ev(3)])
    with pytest.raises(ValueError):
        store.append("s", 0, [ev(1), NewEvent("t", {"nan": float("nan")})])
    assert backend.count() == 0 and store.current_version("s") == 0


def test_failure_inside_transaction_rolls_everything_back(store, backend):
    def explode(conn):
        conn.execute("INSERT INTO meta (key, value) VALUES ('x', '1')")
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        store.append("s", 0, [ev(1), ev(2), ev(3)], idempotency_key="k", outbox=[{"hook": 1}], extra=explode)
    for table in ("events", "outbox", "idempotency", "meta", "stream_heads"):
        assert backend.count(table) == 0, table
    assert store.append("s", 0, [ev(1)], idempotency_key="k").first_version == 1


def test_extra_hook_writes_in_same_transaction(store):
    store.append(
        "s", 0, [ev(1)], extra=lambda conn: conn.execute("INSERT INTO meta (key, value) VALUES ('seen', '\"yes\"')")
    )
    assert store.meta_get("seen") == "yes"


def test_outbox_lifecycle(store):
    store.append("s", 0, [ev(1)], outbox=[{"hook": "a"}, {"hook": "b"}])
    pending = store.outbox_pending("2999-01-01T00:00:00.000000Z", limit=10)
    assert [item.payload for item in pending] == [{"hook": "a"}, {"hook": "b"}]
    first, second = pending
    store.outbox_mark_delivered(first.id)
    store.outbox_mark_failed(second.id, next_attempt_at="2030-01-01T00:00:00.000000Z")
    assert store.outbox_pending("2029-12-31T23:59:59.000000Z") == []
    (due,) = store.outbox_pending("2030-01-01T00:00:00.000000Z")
    assert due.id == second.id and due.attempts == 1


def test_meta_round_trip(store):
    assert store.meta_get("missing", 7) == 7
    store.meta_set("k", {"a": 1})
    store.meta_set("k", {"a": 2})
    assert store.meta_get("k") == {"a": 2}


# -- validation -------------------------------------------------------------------------
@pytest.mark.parametrize("bad", ["", "x" * 65, None, 5])
def test_type_name_is_validated(store, bad):
    with pytest.raises(ValueError):
        store.append("s", 0, [NewEvent(bad, {})])


def test_other_argument_validation(store):
    assert validate_type_name("x" * 64)
    with pytest.raises(ValueError):
        store.append("s", 0, [])
    with pytest.raises(ValueError):
        store.append("s", 0, [NewEvent("t", ["not", "a", "dict"])])
    with pytest.raises(ValueError):
        store.append("s", -1, [ev(1)])
    with pytest.raises(ValueError):
        store.append("", 0, [ev(1)])
    with pytest.raises(ValueError):
        store.append("s", 0, [{"payload": {}}])


# -- schema, pragmas, connections -----------------------------------------------------
def test_initialise_is_idempotent_and_sets_pragmas(path):
    store = EventStore.initialise(path)
    store.append("s", 0, [ev(1)])
    store = EventStore.initialise(path)
    assert store.current_version("s") == 1
    conn, _ = store._db.get()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert (
        conn.execute("PRAGMA synchronous").fetchone()[0] == 1
    )  # DURABLE: NORMAL + fsync after (test_store_durability)
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 30_000
    assert conn.isolation_level is None


def test_events_table_is_append_only_and_unique(sqlite_store, path):
    sqlite_store.append("s", 0, [ev(1)])
    conn = sqlite3.connect(path, isolation_level=None)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("UPDATE events SET payload = '{}'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("DELETE FROM events")
    for version in (1, 3):  # a second version 1, or a gap after the head (1)
        with pytest.raises(sqlite3.IntegrityError, match="stream version conflict|UNIQUE"):
            conn.execute(
                "INSERT INTO events (stream, version, type, schema_version, payload, recorded_at, hash) "
                f"VALUES ('s', {version}, 't', 1, '{{}}', 'now', 'h')"
            )
    assert count(path) == 1


# -- single-statement appends (no key, outbox or hook: one INSERT, heads kept by triggers) ------
def test_plain_append_is_one_statement_and_keeps_the_head(sqlite_store, path, monkeypatch):
    statements = []
    real = sqlite_store._db.execute_alone
    monkeypatch.setattr(
        sqlite_store._db, "execute_alone", lambda sql, params: statements.append(sql) or real(sql, params)
    )
    first = sqlite_store.append("s", 0, [ev(1), ev(2), ev(3)])
    second = sqlite_store.append("s", 3, [ev(4)])
    assert len(statements) == 2 and statements[0].count("(?, ?, ?, ?, ?, ?, ?)") == 3
    assert [e.position for e in sqlite_store.read("s")] == list(first.positions + second.positions)
    assert (first.first_version, first.last_version, second.last_version) == (1, 3, 4)
    with sqlite3.connect(path) as conn:
        head = conn.execute("SELECT version, hash FROM stream_heads WHERE stream = 's'").fetchone()
    assert head == (4, sqlite_store.read("s")[-1].hash) and sqlite_store.verify_stream("s") == []


def test_writer_between_head_read_and_insert_is_a_conflict(sqlite_store, path, monkeypatch):
    """Another process appends after this one read the head: the triggers refuse the stale rows."""
    sqlite_store.append("s", 0, [ev(1)])
    other = EventStore(path, registry=Registry())
    real = sqlite_store._db.execute_alone

    def racing(sql, params):
        other.append("s", 1, [ev(99)])
        return real(sql, params)

    monkeypatch.setattr(sqlite_store._db, "execute_alone", racing)
    with pytest.raises(ConcurrencyError) as info:
        sqlite_store.append("s", 1, [ev(2), ev(3)])
    assert info.value.current_version == 2
    assert [e.payload["n"] for e in sqlite_store.read("s")] == [1, 99] and sqlite_store.verify_stream("s") == []


def test_database_without_head_triggers_appends_in_a_transaction(path):
    EventStore.initialise(path).close()
    with sqlite3.connect(path) as conn:
        for name in ("events_version_follows_head", "events_move_head"):
            conn.execute(f"DROP TRIGGER {name}")
    old = EventStore(path, registry=Registry())
    old.append("s", 0, [ev(1)])
    old.append("s", 1, [ev(2)])
    with pytest.raises(ConcurrencyError):
        old.append("s", 1, [ev(3)])
    assert old.verify_stream("s") == [] and old.current_version("s") == 2


OLD_LAYOUT = """
CREATE TABLE events (position INTEGER PRIMARY KEY AUTOINCREMENT, stream TEXT NOT NULL,
    version INTEGER NOT NULL CHECK (version >= 1), type TEXT NOT NULL,
    schema_version INTEGER NOT NULL CHECK (schema_version >= 1), payload TEXT NOT NULL,
    recorded_at TEXT NOT NULL, hash TEXT NOT NULL, UNIQUE (stream, version));
CREATE TABLE [stream_heads] ([stream] TEXT PRIMARY KEY, [version] INTEGER NOT NULL, [hash] TEXT NOT NULL);
"""


def test_new_files_write_few_pages_per_append(path):
    """No AUTOINCREMENT (no sqlite_sequence row to rewrite) and stream_heads WITHOUT ROWID (no separate
    index page): a one-event append to an existing stream writes about three pages (events, its
    (stream, version) index, the head), not six."""
    store = EventStore.initialise(path, registry=Registry())
    with sqlite3.connect(path) as conn:
        tables = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall())
    assert "sqlite_sequence" not in tables and "AUTOINCREMENT" not in tables["events"]
    assert tables["stream_heads"].rstrip().endswith("WITHOUT ROWID")
    for n in range(1, 41):
        store.append(f"s{n % 8}", n // 8 if n % 8 else n // 8 - 1, [ev(n)])
    conn, _ = store._db.get()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.append("s1", 5, [ev(99)])
    frames = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1]
    assert frames <= 3  # the earlier layout: 5
    assert [e.position for e in store.read_all()][-2:] == [40, 41]  # rowids still count up


def test_file_with_the_earlier_layout_keeps_working(path):
    """Files created before (AUTOINCREMENT, a rowid stream_heads) are used as they are."""
    with sqlite3.connect(path) as conn:
        conn.executescript(OLD_LAYOUT)
    store = EventStore.initialise(path, registry=Registry())
    first = store.append("s", 0, [ev(1), ev(2)])
    second = store.append("s", 2, [ev(3)], idempotency_key="k")
    with pytest.raises(ConcurrencyError):
        store.append("s", 2, [ev(4)])
    assert list(first.positions + second.positions) == [1, 2, 3]
    assert store.verify_stream("s") == [] and store.current_version("s") == 3
    with sqlite3.connect(path) as conn:
        assert "AUTOINCREMENT" in conn.execute("SELECT sql FROM sqlite_master WHERE name = 'events'").fetchone()[0]
        assert conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'events'").fetchone()[0] == 3


def test_utc_now_is_the_store_timestamp_format():
    from datetime import datetime

    from events.store import iso, utc_now

    stamp = utc_now()
    assert iso(datetime.fromisoformat(stamp.replace("Z", "+00:00"))) == stamp and len(stamp) == 27


def test_connection_is_reopened_in_another_pid(sqlite_store, monkeypatch):
    first, _ = sqlite_store._db.get()
    assert sqlite_store._db.get()[0] is first
    real_pid = connection_module.os.getpid()
    monkeypatch.setattr(connection_module.os, "getpid", lambda: real_pid + 100_000)
    second, _ = sqlite_store._db.get()
    assert second is not first and first in connection_module._INHERITED
    sqlite_store.append("s", 0, [ev(1)])
    assert sqlite_store.current_version("s") == 1


def test_each_thread_gets_its_own_connection(sqlite_store):
    seen, errors = [], []

    def work(i):
        try:
            seen.append(sqlite_store._db.get()[0])
            for n in range(10):
                sqlite_store.append(f"t{i}", n, [ev(n)])
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len({id(c) for c in seen}) == 4
    assert all(sqlite_store.current_version(f"t{i}") == 10 for i in range(4))


def test_busy_writer_is_waited_for_not_reported(path):
    store = EventStore.initialise(path, busy_timeout_ms=50)
    blocker = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    blocker.execute("BEGIN IMMEDIATE")
    timer = threading.Timer(0.4, lambda: blocker.execute("ROLLBACK"))
    timer.start()
    try:
        assert store.append("s", 0, [ev(1)]).last_version == 1  # waited through retries
    finally:
        timer.join()


def test_endless_lock_becomes_storage_unavailable(path, monkeypatch):
    monkeypatch.setattr(connection_module, "MAX_ATTEMPTS", 3)
    store = EventStore.initialise(path, busy_timeout_ms=20)
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    with pytest.raises(StorageUnavailable) as info:
        store.append("s", 0, [ev(1)])
    assert "locked" not in str(info.value)
    blocker.execute("ROLLBACK")
    assert store.append("s", 0, [ev(1)]).last_version == 1


# -- the contract (events/contract.py, docs/STORE.md) -------------------------------------
def _contract_members() -> set[str]:
    from events.contract import EventStoreContract

    names = set(vars(EventStoreContract)) | set(EventStoreContract.__annotations__)
    return {name for name in names if not name.startswith("_")}


def test_each_backend_has_every_member_of_the_store_contract(store, backend):
    # given the contract's members (mypy checks their signatures: events/__init__.py)
    members = _contract_members()
    assert {"append", "read", "chain_problem", "append_source", "watch", "dialect"} <= members
    # then the backend has each of them, and says its dialect
    assert sorted(name for name in members if not hasattr(store, name)) == []
    assert store.dialect == backend.name


def test_append_source_tells_of_appends_or_leaves_the_worker_to_poll(store, backend):
    # given a worker's source of append news
    source = store.append_source()
    if backend.name == "sqlite":
        assert source is None  # SQLite tells no other process: the worker polls appended_since
        return
    # when another connection appends, then the source wakes before its time limit
    threading.Timer(0.2, lambda: store.append("s", 0, [ev(1)])).start()
    started = time.monotonic()
    source.wait(20)
    assert time.monotonic() - started < 20


# -- tamper detection -----------------------------------------------------------------
@pytest.fixture
def chained(store):
    for n in range(1, 6):
        store.append("m", n - 1, [ev(n)])
    assert store.verify_stream("m") == []
    return store


def test_edited_payload_is_named(chained, backend):
    backend.sql("UPDATE events SET payload = '{\"n\":99}' WHERE stream = 'm' AND version = 3")
    problems = chained.verify_stream("m")
    assert [(p.version, p.kind) for p in problems] == [(3, "hash")]
    assert "v3" in str(problems[0])


def test_the_cold_load_check_names_an_edited_row_on_either_backend(chained, backend):
    # given a stream whose third row was edited in the database
    assert chained.chain_problem("m") is None and chained.chain_problem("m", after=2) is None
    backend.sql("UPDATE events SET payload = '{\"n\":99}' WHERE stream = 'm' AND version = 3")
    # then the store contract's cold-load check names it (from the start, and after a snapshot below it)
    assert "v3" in chained.chain_problem("m") and "v3" in chained.chain_problem("m", after=2)


def test_dropped_row_is_caught(chained, backend):
    backend.sql("DELETE FROM events WHERE stream = 'm' AND version = 2")
    problems = chained.verify_stream("m")
    assert (2, "gap") in [(p.version, p.kind) for p in problems]


def test_dropped_last_row_is_caught(chained, backend):
    backend.sql("DELETE FROM events WHERE stream = 'm' AND version = 5")
    problems = chained.verify_stream("m")
    assert [(p.version, p.kind) for p in problems] == [(5, "truncated")]


def test_reordered_rows_are_caught(chained, backend):
    backend.script(
        [
            "UPDATE events SET version = version + 100 WHERE stream = 'm' AND version IN (2, 4)",
            "UPDATE events SET version = 4 WHERE stream = 'm' AND version = 102",
            "UPDATE events SET version = 2 WHERE stream = 'm' AND version = 104",
        ]
    )
    versions = {p.version for p in chained.verify_stream("m")}
    assert {2, 4} <= versions


def test_swapped_payloads_and_types_are_caught(chained, backend):
    backend.sql("UPDATE events SET type = 'other', payload = '{\"n\":4}' WHERE stream = 'm' AND version = 2")
    backend.sql("UPDATE events SET payload = '{\"n\":2}' WHERE stream = 'm' AND version = 4")
    assert sorted(p.version for p in chained.verify_stream("m")) == [2, 4]


def test_verify_chain_on_exported_dicts(chained):
    rows = chained.export_rows("m")
    assert verify_chain(rows) == []
    assert verify_chain(json.loads(json.dumps(rows))) == []  # survives an ndjson round trip
    edited = [dict(r) for r in rows]
    edited[1]["payload"] = {"n": 42}
    assert [(p.version, p.kind) for p in verify_chain(edited)] == [(2, "hash")]
    dropped = rows[:2] + rows[3:]
    assert (3, "gap") in [(p.version, p.kind) for p in verify_chain(dropped)]
    reordered = [rows[0], rows[2], rows[1], rows[3], rows[4]]
    assert {2, 3} <= {p.version for p in verify_chain(reordered)}
    as_text = [dict(r, payload=json.dumps(r["payload"])) for r in rows]
    assert verify_chain(as_text) == []
    assert verify_chain([{"stream": "m", "version": 1}])[0].kind == "malformed"


def test_compute_hash_is_public_and_chained(chained):
    rows = chained.export_rows("m")
    assert compute_hash("", rows[0]) == rows[0]["hash"]
    assert compute_hash(rows[0]["hash"], rows[1]) == rows[1]["hash"]
    assert compute_hash("x", rows[1]) != rows[1]["hash"]


# -- upcasting --------------------------------------------------------------------------
def make_registry():
    registry = Registry()
    registry.register("tile_discarded", version=3)

    @registry.upcaster("tile_discarded", from_version=1)
    def v1_to_v2(payload):
        return {"tile": payload["t"], "seat": payload.get("seat", 0)}

    @registry.upcaster("tile_discarded", from_version=2)
    def v2_to_v3(payload):
        return {**payload, "riichi": False}

    return registry


def test_old_payloads_are_upcast_step_by_step(backend):
    store = backend.store(registry=make_registry())
    store.append(
        "m",
        0,
        [
            NewEvent("tile_discarded", {"t": "5m"}, schema_version=1),
            NewEvent("tile_discarded", {"tile": "1p", "seat": 2}, schema_version=2),
            NewEvent("tile_discarded", {"tile": "9s", "seat": 1, "riichi": True}),
        ],
    )
    events = store.read("m")
    assert [e.schema_version for e in events] == [3, 3, 3]
    assert events[0].payload == {"tile": "5m", "seat": 0, "riichi": False}
    assert events[1].payload == {"tile": "1p", "seat": 2, "riichi": False}
    assert events[2].payload == {"tile": "9s", "seat": 1, "riichi": True}
    stored = store.export_rows("m")
    assert [r["schema_version"] for r in stored] == [1, 2, 3]  # storage keeps the original
    assert stored[0]["payload"] == {"t": "5m"}
    assert store.verify_stream("m") == []


def test_unregistered_types_pass_through(store):
    store.append("m", 0, [NewEvent("mystery", {"a": 1}, schema_version=7), NewEvent("plain", {})])
    events = store.read("m")
    assert [(e.type, e.schema_version, e.payload) for e in events] == [("mystery", 7, {"a": 1}), ("plain", 1, {})]


def test_missing_upcaster_is_an_error_not_data_loss(backend):
    registry = Registry()
    registry.register("x", version=2)
    store = backend.store(registry=registry)
    store.append("m", 0, [NewEvent("x", {"old": True}, schema_version=1)])
    with pytest.raises(UpcastError, match="from schema version 1"):
        store.read("m")
    assert store.export_rows("m")[0]["payload"] == {"old": True}


# -- storage faults -------------------------------------------------------------------------
class FaultInjector:
    """on_connect hook making SQLite itself fail writes (works as root, unlike chmod).

    "full": PRAGMA max_page_count = current size, so the pager returns a real SQLITE_FULL.
    "readonly": PRAGMA query_only = ON, so writes get a real SQLITE_READONLY.
    on()/off() also switch every live connection, like a disk filling up or being freed.
    """

    def __init__(self, kind):
        self.kind, self.active, self.conns = kind, False, []

    def __call__(self, conn):
        self.conns.append(conn)
        self._apply(conn)

    def _apply(self, conn):
        if self.kind == "full":
            pages = conn.execute("PRAGMA page_count").fetchone()[0] if self.active else 2**30
            conn.execute(f"PRAGMA max_page_count = {pages}")
        else:
            conn.execute(f"PRAGMA query_only = {'ON' if self.active else 'OFF'}")

    def switch(self, active):
        self.active = active
        for conn in self.conns:
            try:
                self._apply(conn)
            except sqlite3.ProgrammingError:  # closed by the store after the fault
                pass


@pytest.mark.parametrize("kind", ["full", "readonly"])
def test_storage_fault_maps_to_unavailable_and_recovers(path, kind):
    fault = FaultInjector(kind)
    store = EventStore.initialise(path, on_connect=fault)
    acked = [store.append("m", 0, [ev(1)]).last_version]
    fault.switch(True)
    big = NewEvent("blob", {"data": "x" * 50_000})
    for _ in range(2):  # stays unavailable while the fault lasts, each time on a fresh connection
        with pytest.raises(StorageUnavailable, match="full" if kind == "full" else "read-only"):
            store.append("m", acked[-1], [big])
    assert [e.version for e in store.read("m")] == acked  # reads still work, nothing half-written
    fault.switch(False)
    acked.append(store.append("m", acked[-1], [big]).last_version)
    assert [e.version for e in store.read("m")] == acked == [1, 2]
    assert store.verify_stream("m") == []
    assert len(fault.conns) >= 3  # the broken connections were discarded and reopened


def test_unopenable_database_is_unavailable_then_recovers(tmp_path):
    path = tmp_path / "not-yet" / "events.db"
    store = EventStore(str(path))
    with pytest.raises(StorageUnavailable, match="cannot be opened"):
        store.read("m")
    path.parent.mkdir()
    EventStore.initialise(str(path))
    assert store.append("m", 0, [ev(1)]).last_version == 1


def test_fault_classification_by_message():
    for message, fault in [
        ("database or disk is full", True),
        ("disk I/O error", True),
        ("attempt to write a readonly database", True),
        ("no such table: x", False),
    ]:
        assert connection_module.is_fault(sqlite3.OperationalError(message)) is fault
    assert connection_module.is_busy(sqlite3.OperationalError("database is locked"))


# -- the append path's row hash is compute_hash, byte for byte ------------------------------------
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(
    prev=st.text(),
    stream=st.text(min_size=1),
    version=st.integers(1, 10**9),
    type_name=st.text(min_size=1),
    schema_version=st.integers(1, 50),
    payload=st.dictionaries(st.text(), _json, max_size=5),
    recorded_at=st.text(),
)
def test_hash_new_row_equals_compute_hash(prev, stream, version, type_name, schema_version, payload, recorded_at):
    row = {
        "stream": stream,
        "version": version,
        "type": type_name,
        "schema_version": schema_version,
        "payload": payload,
        "recorded_at": recorded_at,
    }
    assert hash_new_row(
        prev, stream, version, type_name, schema_version, canonical_json(payload), recorded_at
    ) == compute_hash(prev, row)


def test_a_long_transactional_append_is_chunked_under_one_timestamp(store):
    """More rows than one INSERT takes (MAX_STATEMENT_ROWS), in a transaction (an idempotency key)."""
    count = 1234
    result = store.append("long", 0, [ev(n) for n in range(count)], idempotency_key="long-1")
    events = store.read("long")
    assert (result.first_version, result.last_version) == (1, count) and len(events) == count
    assert [e.position for e in events] == list(result.positions)
    assert {e.recorded_at for e in events} == {result.recorded_at}
    assert store.verify_stream("long") == [] and store.current_version("long") == count


def test_a_cached_head_with_another_hash_is_never_chained_from(store):
    """Given a store whose remembered head of a stream has the right version but another hash (as
    after the database was replaced under it; set by hand here), when it appends at that version,
    then the append reads the stored head and chains from it: the stream verifies."""
    store.append("cached", 0, [ev(1)])
    store._heads["cached"] = (1, "0" * 64)
    result = store.append("cached", 1, [ev(2), ev(3)])
    assert (result.first_version, result.last_version) == (2, 3)
    assert store.verify_stream("cached") == [] and [e.version for e in store.read("cached")] == [1, 2, 3]
    with pytest.raises(ConcurrencyError):
        store.append("cached", 1, [ev(4)])  # the cache now at v3: a stale expected version is still refused


# -- across connections and nodes: both backends ------------------------------------------------
def test_racing_appends_at_one_version_let_exactly_one_through(backend):
    """Eight writers (own store objects, as on eight nodes) append at the same version, eight rounds:
    each round exactly one wins, the others get ConcurrencyError; nothing is lost or doubled."""
    stores = [backend.store(registry=Registry()) for _ in range(8)]
    barrier, outcomes, lock = threading.Barrier(8), [], threading.Lock()

    def writer(i):
        for round_ in range(8):
            barrier.wait(timeout=60)
            try:
                stores[i].append("race", round_, [ev(i * 100 + round_)])
                with lock:
                    outcomes.append((round_, i))
            except ConcurrencyError:
                pass
            barrier.wait(timeout=60)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert sorted(r for r, _ in outcomes) == list(range(8))
    events = stores[0].read("race")
    assert [e.payload["n"] for e in events] == [i * 100 + r for r, i in sorted(outcomes)]
    assert stores[0].verify_stream("race") == []


def test_racing_new_streams_and_idempotency_keys(backend):
    """Racing creations of one stream (expected 0) and racing retries of one idempotency key."""
    stores = [backend.store(registry=Registry()) for _ in range(6)]
    barrier, won, replays = threading.Barrier(6), [], []

    def writer(i):
        barrier.wait(timeout=60)
        try:
            won.append(stores[i].append("fresh", 0, [ev(i)]).last_version)
        except ConcurrencyError:
            pass
        barrier.wait(timeout=60)
        try:
            result = stores[i].append("keyed", 0, [ev(7)], idempotency_key="same", request_fingerprint="f")
            replays.append(result.replayed)
        except ConcurrencyError:  # lost the race before the winner's key was committed: a retry replays
            replays.append(
                stores[i].append("keyed", 0, [ev(7)], idempotency_key="same", request_fingerprint="f").replayed
            )

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert won == [1] and stores[0].current_version("fresh") == 1
    assert sorted(replays) == [False] + [True] * 5 and stores[0].current_version("keyed") == 1


def test_the_global_feed_never_skips_an_event_committed_late(backend):
    """Writers on many streams commit in any order while a reader tails read_all from its last
    position: what the reader collected is exactly the final feed (no gap filled in behind it)."""
    stores = [backend.store(registry=Registry()) for _ in range(5)]
    done, seen = threading.Event(), []

    def writer(i):
        version = 0
        for n in range(40):
            version = stores[i].append(f"w{i}", version, [ev(n)] * (1 + n % 3)).last_version

    total = 4 * sum(1 + n % 3 for n in range(40))

    def reader():  # tails the feed from its last position until every event arrived (a feed may lag)
        after, give_up = 0, None
        while len(seen) < total:
            batch = stores[4].read_all(after_position=after)
            seen.extend(batch)
            after = batch[-1].position if batch else after
            if done.is_set():
                give_up = give_up or time.monotonic() + 30
                if time.monotonic() > give_up:
                    return

    tail = threading.Thread(target=reader)
    tail.start()
    writers = [threading.Thread(target=writer, args=(i,)) for i in range(4)]
    for t in writers:
        t.start()
    for t in writers:
        t.join(timeout=120)
    done.set()
    tail.join(timeout=120)
    final = stores[4].read_all()
    assert [(e.stream, e.version) for e in seen] == [(e.stream, e.version) for e in final]
    assert len(final) == total


def test_watch_tells_every_store_of_each_append(backend):
    """A watcher is told (stream, version) after an append commits — on PostgreSQL also through
    another store object (another node), in no promised order across nodes; unwatch stops it."""
    import time

    store, other = backend.store(registry=Registry()), backend.store(registry=Registry())
    mine, theirs = [], []
    unwatch = store.watch(lambda stream, version: mine.append((stream, version)))
    other.watch(lambda stream, version: theirs.append((stream, version)))
    store.append("w", 0, [ev(1), ev(2)])
    other.append("w", 2, [ev(3)])
    expected_mine = [("w", 2), ("w", 3)] if backend.name == "postgresql" else [("w", 2)]
    deadline = time.monotonic() + 10
    # each store NOTIFYs from its own thread: two nodes' notices may arrive in either order
    while sorted(mine) != expected_mine and time.monotonic() < deadline:
        time.sleep(0.02)
    assert sorted(mine) == expected_mine
    unwatch()
    store.append("w", 3, [ev(4)])
    time.sleep(0.3)
    assert ("w", 4) not in mine and ("w", 3) in theirs


def test_outbox_claim_hands_each_notice_to_one_claimer(backend):
    stores = [backend.store(registry=Registry()) for _ in range(4)]
    stores[0].append("s", 0, [ev(1)], outbox=[{"n": n} for n in range(30)])
    now, lease = "2999-01-01T00:00:00.000000Z", "2999-01-01T00:02:00.000000Z"
    barrier, claimed = threading.Barrier(4), []

    def claimer(i):
        barrier.wait(timeout=60)
        for _ in range(5):
            claimed.extend(item.payload["n"] for item in stores[i].outbox_claim_due(now, lease, limit=4))

    threads = [threading.Thread(target=claimer, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(claimed) == list(range(30))  # each once
    assert stores[0].outbox_claim_due(now, lease) == []  # all leased
    assert not stores[2].outbox_claim(1, now, lease)
    first = stores[0].outbox_pending(now)[0]
    stores[0].outbox_release(first.id)
    assert [item.id for item in stores[1].outbox_claim_due(now, lease)] == [first.id]
    assert [
        i.payload["n"] for i in stores[0].outbox_claim_due("2999-01-01T00:03:00.000000Z", "3000-01-01T00:00:00Z")
    ] == list(range(30))  # leases ended: claimable again


def test_import_rows_keeps_the_chain_and_resumes(backend, tmp_path):
    source = EventStore.initialise(str(tmp_path / "source.db"), registry=Registry())
    source.append("m", 0, [ev(1), ev(2)])
    source.append("m", 2, [ev(3)])
    rows = source.export_rows("m")
    store = backend.store(registry=Registry())
    assert store.import_rows("m", rows[:2]) == 2
    assert store.import_rows("m", rows) == 1  # resumed: the first two are skipped
    assert store.import_rows("m", rows) == 0
    assert store.export_rows("m") == [
        dict(r, position=mine["position"]) for r, mine in zip(rows, store.export_rows("m"))
    ]
    assert store.verify_stream("m") == [] and store.append("m", 3, [ev(4)]).last_version == 4
    assert store.verify_stream("m") == []


# -- PostgreSQL's own guards ----------------------------------------------------------------------
def test_postgres_events_are_append_only_and_unique(pg_url):
    import psycopg

    from events import PostgresEventStore

    store = PostgresEventStore.initialise(pg_url, registry=Registry())
    store.append("s", 0, [ev(1)])
    PostgresEventStore.initialise(pg_url).close()  # idempotent
    with psycopg.connect(pg_url, autocommit=True) as conn:
        with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
            conn.execute("UPDATE events SET payload = '{}'")
        with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
            conn.execute("DELETE FROM events")
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute(
                "INSERT INTO events (stream, version, position, type, schema_version, payload, "
                "recorded_at, hash) VALUES ('s', 1, 99, 't', 1, '{}', 'now', 'h')"
            )
    assert store.read("s")[0].payload == {"n": 1} and store.verify_stream("s") == []
    store.close()  # a pool left to the garbage collector warns from its own worker thread


def test_postgres_unreachable_is_storage_unavailable():
    from events import PostgresEventStore

    store = PostgresEventStore("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2", pool_size=1)
    store.pool().timeout = 3
    with pytest.raises(StorageUnavailable, match="PostgreSQL"):
        store.read("m")
    store.close()


def test_racing_claims_of_one_notice_give_it_to_one(backend):
    stores = [backend.store(registry=Registry()) for _ in range(4)]
    stores[0].append("s", 0, [ev(1)], outbox=[{"n": 1}])
    (item,) = stores[0].outbox_pending("2999-01-01T00:00:00.000000Z")
    barrier, wins = threading.Barrier(4), []

    def claimer(i):
        barrier.wait(timeout=60)
        wins.append(stores[i].outbox_claim(item.id, "2999-01-01T00:00:00.000000Z", "2999-01-01T00:02:00.000000Z"))

    threads = [threading.Thread(target=claimer, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(wins) == [False, False, False, True]
    assert stores[1].outbox_claim(item.id, "2999-01-01T00:03:00.000000Z", "2999-01-01T00:05:00.000000Z")  # lease over


# -- change feed and snapshots (the waiter hub and service snapshots; both backends once both have them) ----
def needs(store, name):
    if not hasattr(store, name):
        pytest.skip(f"this backend has no {name} yet")


def test_appended_since_names_each_changed_stream_once(store):
    needs(store, "appended_since")
    start = store.head_position()
    store.append("a", 0, [ev(1), ev(2)])
    store.append("b", 0, [ev(1)])
    head, changed = store.appended_since(start)
    assert changed == {"a": 2, "b": 1} and head >= store.read("b")[-1].position
    store.append("a", 2, [ev(3)])
    assert store.appended_since(head)[1] == {"a": 3}
    assert store.appended_since(store.appended_since(head)[0])[1] == {}


def test_appended_since_waits_for_another_sessions_short_transaction(backend):
    """Given another session of the same PostgreSQL cluster inside a transaction that ends 0.2 s later
    (another node's append, a test in the next schema), when the streams appended since a position
    are asked, then both streams appended before the call are named (the feed's high-water mark is
    the oldest running transaction of the whole cluster; the call waits for it as read_all does)."""
    if backend.name != "postgresql":
        pytest.skip("the high-water mark is PostgreSQL's")
    import psycopg

    store = backend.store(registry=Registry())
    start = store.head_position()
    with psycopg.connect(backend.target, autocommit=True) as other:
        with other.transaction():
            other.execute("SELECT txid_current()")  # holds the cluster's xmin at its transaction id
            store.append("a", 0, [ev(1), ev(2)])
            store.append("b", 0, [ev(1)])
            done: list = []
            worker = threading.Thread(target=lambda: done.append(store.appended_since(start)))
            worker.start()
            time.sleep(0.2)
        worker.join(10)
    assert done and done[0][1] == {"a": 2, "b": 1}, done


def test_snapshots_round_trip_and_roll(store):
    needs(store, "save_snapshot")
    assert store.load_snapshot("m", "k1") is None
    store.append("m", 0, [ev(n) for n in range(1, 31)])
    store.save_snapshot("m", 10, "k1", b"\x00ten", keep=True)
    store.save_snapshot("m", 20, "k1", b"twenty", keep=False)
    store.save_snapshot("m", 30, "k1", b"thirty", keep=False)  # drops the rolling 20
    assert store.load_snapshot("m", "k1") == (30, b"thirty")
    assert store.load_snapshot("m", "k1", max_version=25) == (10, b"\x00ten")
    assert store.load_snapshot("m", "other") is None


def test_a_snapshot_is_sealed_to_the_event_row_at_its_version(store):
    """A snapshot needs an event row at its version to be sealed to."""
    needs(store, "save_snapshot")
    with pytest.raises(ValueError):
        store.save_snapshot("m", 1, "k1", b"nothing to seal to")
    store.append("m", 0, [ev(1)])
    store.save_snapshot("m", 1, "k1", b"one")
    assert store.load_snapshot("m", "k1") == (1, b"one")


@pytest.mark.parametrize(
    "edit,reason",
    [
        ("UPDATE snapshots SET data = ? WHERE stream = 'm'", "seal"),  # the bytes (a forged state)
        ("UPDATE snapshots SET version = 3 WHERE stream = 'm' AND ? IS NOT NULL", "hash"),  # pretends to be later
        (  # ... with the chain hash of v3 copied in too: the seal binds the version and the hash
            "UPDATE snapshots SET version = 3, chain_hash = (SELECT hash FROM events WHERE stream = 'm' "
            "AND version = 3) WHERE stream = 'm' AND ? IS NOT NULL",
            "seal",
        ),
        ("UPDATE snapshots SET chain_hash = 'x' || chain_hash WHERE stream = 'm' AND ? IS NOT NULL", "hash"),
        ("UPDATE snapshots SET seal = NULL WHERE stream = 'm' AND ? IS NOT NULL", "no seal"),
        ("UPDATE events SET hash = 'x' || hash WHERE stream = 'm' AND version = 2 AND ? IS NOT NULL", "hash"),
    ],
)
def test_an_edited_snapshot_row_is_refused_before_its_bytes_are_used(backend, store, edit, reason):
    """Given a sealed snapshot at v2, when its row (bytes, version, chain hash, seal) or the
    event row it is sealed to is edited behind the store's back, then loading it raises ForgedSnapshot."""
    from events import ForgedSnapshot

    needs(store, "save_snapshot")
    store.append("m", 0, [ev(1), ev(2), ev(3)])
    store.save_snapshot("m", 2, "k1", b"genuine")
    assert store.load_snapshot("m", "k1") == (2, b"genuine")
    backend.sql(edit, (b"forged",))
    with pytest.raises(ForgedSnapshot) as refused:
        store.load_snapshot("m", "k1")
    assert reason in str(refused.value)


def test_read_by_types(store):
    store.append("m", 0, [ev(1, "a"), ev(2, "b"), ev(3, "a"), ev(4, "c")])
    if "types" not in store.read.__code__.co_varnames:
        pytest.skip("this backend has no read(types=) yet")
    assert [e.version for e in store.read("m", types=["a", "c"])] == [1, 3, 4]
    assert [e.version for e in store.read("m", after=1, types=["a"], limit=1)] == [3]
