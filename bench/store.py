"""Benchmark: EventStore appends/s (1 and 2 writer processes) and stream reads vs raw sqlite3;
then the same for PostgresEventStore vs raw psycopg on a throwaway PostgreSQL cluster started
for the run (fsync on; TILEFOLD_BENCH_PG=<url> uses an existing server instead, and
TILEFOLD_BENCH_PG=off skips it)."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import sqlite3
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from events import EventStore, NewEvent, Registry  # noqa: E402
from events.chain import canonical_json  # noqa: E402

APPENDS = 400  # per writer per repetition
READ_EVENTS = 2_000
REPEATS = 5
PAYLOAD = {"seat": 2, "tile": "5m", "riichi": False, "note": "x" * 40}
RAW_DDL = (
    "CREATE TABLE IF NOT EXISTS raw_events (position INTEGER PRIMARY KEY, stream TEXT, "
    "version INTEGER, type TEXT, payload TEXT, UNIQUE (stream, version))"
)


# -- one writer's work (runs in this process or in a child) ----------------------------
def store_writer(path: str, stream: str, count: int) -> tuple[float, float]:
    store = EventStore(path, registry=Registry())
    store.current_version(stream)  # open the connection outside the timed part
    start = time.monotonic()
    for version in range(count):
        store.append(stream, version, [NewEvent("tile_discarded", PAYLOAD)])
    return start, time.monotonic()


def raw_connect(path: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, timeout=30)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA busy_timeout = 30000")
    return conn


def raw_writer(path: str, stream: str, count: int) -> tuple[float, float]:
    conn = raw_connect(path)
    payload = canonical_json(PAYLOAD)
    start = time.monotonic()
    for version in range(1, count + 1):
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(
            "INSERT INTO raw_events (stream, version, type, payload) VALUES (?, ?, ?, ?)",
            (stream, version, "tile_discarded", payload),
        )
        conn.execute("COMMIT")
    return start, time.monotonic()


def child(writer, path, stream, count, start_evt, out):
    start_evt.wait()
    out.put(writer(path, stream, count))


# -- measurements -------------------------------------------------------------------------
def fresh_paths(tmp: str, rep: int) -> tuple[str, str]:
    store_path, raw_path = f"{tmp}/store-{rep}.db", f"{tmp}/raw-{rep}.db"
    EventStore.initialise(store_path).close()
    raw_connect(raw_path).execute(RAW_DDL)
    return store_path, raw_path


def appends_per_second(writer, path: str, writers: int) -> float:
    if writers == 1:
        start, end = writer(path, "bench-0", APPENDS)
        return APPENDS / (end - start)
    ctx = mp.get_context("fork")
    start_evt, out = ctx.Event(), ctx.Queue()
    procs = [
        ctx.Process(target=child, args=(writer, path, f"bench-{w}", APPENDS, start_evt, out)) for w in range(writers)
    ]
    for proc in procs:
        proc.start()
    start_evt.set()
    spans = [out.get() for _ in procs]
    for proc in procs:
        proc.join()
    return writers * APPENDS / (max(e for _, e in spans) - min(s for s, _ in spans))


def read_seconds(store_path: str, raw_path: str) -> tuple[float, float]:
    store = EventStore(store_path, registry=Registry())
    for first in range(0, READ_EVENTS, 100):
        store.append("read", first, [NewEvent("tile_discarded", PAYLOAD) for _ in range(100)])
    conn = raw_connect(raw_path)
    conn.execute("BEGIN")
    conn.executemany(
        "INSERT INTO raw_events (stream, version, type, payload) VALUES ('read', ?, 't', ?)",
        [(v, canonical_json(PAYLOAD)) for v in range(1, READ_EVENTS + 1)],
    )
    conn.execute("COMMIT")
    started = time.perf_counter()
    assert len(store.read("read")) == READ_EVENTS
    store_s = time.perf_counter() - started
    started = time.perf_counter()
    rows = conn.execute("SELECT * FROM raw_events WHERE stream = 'read' ORDER BY version").fetchall()
    payloads = [json.loads(row[4]) for row in rows]  # same decoding work as the store
    assert len(payloads) == READ_EVENTS
    return store_s, time.perf_counter() - started


def run() -> dict[str, list[float]]:
    figures: dict[str, list[float]] = {k: [] for k in ("s1", "r1", "s2", "r2", "sread", "rread")}
    with tempfile.TemporaryDirectory() as tmp:
        for rep in range(REPEATS):
            store_path, raw_path = fresh_paths(tmp, rep)
            figures["s1"].append(appends_per_second(store_writer, store_path, 1))
            figures["r1"].append(appends_per_second(raw_writer, raw_path, 1))
            store_path, raw_path = fresh_paths(tmp, rep + 100)
            figures["s2"].append(appends_per_second(store_writer, store_path, 2))
            figures["r2"].append(appends_per_second(raw_writer, raw_path, 2))
            sread, rread = read_seconds(store_path, raw_path)
            figures["sread"].append(sread * 1000)
            figures["rread"].append(rread * 1000)
    return figures


def print_table(figures: dict[str, list[float]]) -> None:
    med = {k: statistics.median(v) for k, v in figures.items()}
    print(
        f"median of {REPEATS} runs; {APPENDS} single-event appends per writer; "
        f"EventStore DURABLE (its default), raw synchronous=FULL: both on disk when the call returns; WAL; sqlite {sqlite3.sqlite_version}"
    )
    print("raw sqlite3 = BEGIN IMMEDIATE/INSERT/COMMIT per append; SELECT + json.loads for the read")
    print(f"{'measure':<34}{'EventStore':>12}{'raw sqlite3':>13}{'ratio':>8}")
    rows = [
        ("appends/s, 1 writer", "s1", "r1", "{:.0f}"),
        ("appends/s, 2 writer processes", "s2", "r2", "{:.0f}"),
        (f"read {READ_EVENTS}-event stream (ms)", "sread", "rread", "{:.1f}"),
    ]
    for label, store_key, raw_key, fmt in rows:
        ratio = med[store_key] / med[raw_key]
        print(f"{label:<34}{fmt.format(med[store_key]):>12}{fmt.format(med[raw_key]):>13}{ratio:>8.2f}")


# -- PostgreSQL: PostgresEventStore vs raw psycopg on the same server --------------------------
PG_RAW_DDL = (
    "CREATE TABLE IF NOT EXISTS raw_events (position BIGSERIAL UNIQUE, stream TEXT, version INTEGER, "
    "type TEXT, payload TEXT, PRIMARY KEY (stream, version))"
)


def pg_store_writer(url: str, stream: str, count: int) -> tuple[float, float]:
    from events import PostgresEventStore

    store = PostgresEventStore(url, registry=Registry(), pool_size=2)
    store.current_version(stream)  # open the pool outside the timed part
    start = time.monotonic()
    for version in range(count):
        store.append(stream, version, [NewEvent("tile_discarded", PAYLOAD)])
    end = time.monotonic()
    store.close()
    return start, end


def pg_raw_writer(url: str, stream: str, count: int) -> tuple[float, float]:
    import psycopg

    payload = canonical_json(PAYLOAD)
    with psycopg.connect(url, autocommit=True) as conn:
        start = time.monotonic()
        for version in range(1, count + 1):  # one INSERT = one transaction, committed (durable) when it returns
            conn.execute(
                "INSERT INTO raw_events (stream, version, type, payload) VALUES (%s, %s, %s, %s)",
                (stream, version, "tile_discarded", payload),
            )
        return start, time.monotonic()


def pg_fresh(base: str, rep: int) -> str:
    import psycopg

    from events import PostgresEventStore

    schema = f"bench_{rep}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        conn.execute(f"CREATE SCHEMA {schema}")
    url = f"{base}?options=-csearch_path%3D{schema}"
    PostgresEventStore.initialise(url).close()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(PG_RAW_DDL)
    return url


def pg_read_ms(url: str) -> tuple[float, float]:
    import psycopg

    from events import PostgresEventStore

    store = PostgresEventStore(url, registry=Registry(), pool_size=2)
    for first in range(0, READ_EVENTS, 100):
        store.append("read", first, [NewEvent("tile_discarded", PAYLOAD) for _ in range(100)])
    with psycopg.connect(url, autocommit=True) as conn:
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO raw_events (stream, version, type, payload) VALUES ('read', %s, 't', %s)",
                [(v, canonical_json(PAYLOAD)) for v in range(1, READ_EVENTS + 1)],
            )
        started = time.perf_counter()
        assert len(store.read("read")) == READ_EVENTS
        store_s = time.perf_counter() - started
        started = time.perf_counter()
        rows = conn.execute("SELECT * FROM raw_events WHERE stream = 'read' ORDER BY version").fetchall()
        assert len([json.loads(row[4]) for row in rows]) == READ_EVENTS
        raw_s = time.perf_counter() - started
    store.close()
    return store_s * 1000, raw_s * 1000


def run_pg(base: str) -> dict[str, list[float]]:
    figures: dict[str, list[float]] = {k: [] for k in ("s1", "r1", "s2", "r2", "sread", "rread")}
    for rep in range(REPEATS):
        url = pg_fresh(base, rep)
        figures["s1"].append(appends_per_second(pg_store_writer, url, 1))
        figures["r1"].append(appends_per_second(pg_raw_writer, url, 1))
        url = pg_fresh(base, rep + 100)
        figures["s2"].append(appends_per_second(pg_store_writer, url, 2))
        figures["r2"].append(appends_per_second(pg_raw_writer, url, 2))
        sread, rread = pg_read_ms(url)
        figures["sread"].append(sread)
        figures["rread"].append(rread)
    return figures


def print_pg_table(figures: dict[str, list[float]], server: str) -> None:
    med = {k: statistics.median(v) for k, v in figures.items()}
    print(f"\nPostgreSQL ({server}; fsync on, synchronous_commit on: both durable when the call returns)")
    print(
        "raw psycopg = one autocommit INSERT per append (one round trip, one commit); SELECT + json.loads for the read"
    )
    print(
        "PostgresEventStore = tf_append (head moved from the expected version; head cached, else read first); NOTIFY batched after"
    )
    print(f"{'measure':<34}{'PgStore':>12}{'raw psycopg':>13}{'ratio':>8}")
    rows = [
        ("appends/s, 1 writer", "s1", "r1", "{:.0f}"),
        ("appends/s, 2 writer processes", "s2", "r2", "{:.0f}"),
        (f"read {READ_EVENTS}-event stream (ms)", "sread", "rread", "{:.1f}"),
    ]
    for label, store_key, raw_key, fmt in rows:
        ratio = med[store_key] / med[raw_key]
        print(f"{label:<34}{fmt.format(med[store_key]):>12}{fmt.format(med[raw_key]):>13}{ratio:>8.2f}")


def postgres_section() -> None:
    wanted = os.environ.get("TILEFOLD_BENCH_PG", "")
    if wanted == "off":
        return
    if wanted:
        print_pg_table(run_pg(wanted), "TILEFOLD_BENCH_PG")
        return
    from tests import pgserver

    if pgserver.binaries() is None:
        print("\nPostgreSQL: skipped (no server binaries; apt-get install postgresql)")
        return
    folder = pgserver.new_folder()
    try:
        url = pgserver.start(folder, fsync=True)
        print_pg_table(run_pg(url), "a throwaway cluster on this machine")
    finally:
        pgserver.stop(folder)


if __name__ == "__main__":
    began = time.monotonic()
    if os.environ.get("TILEFOLD_BENCH_PG") != "only":
        print_table(run())
    else:
        os.environ["TILEFOLD_BENCH_PG"] = ""
    postgres_section()
    print(f"(bench took {time.monotonic() - began:.1f} s)")
