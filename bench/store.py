"""Benchmark: EventStore appends/s (1 and 2 writer processes) and stream reads vs raw sqlite3;
then the same for PostgresEventStore vs raw psycopg on a throwaway PostgreSQL cluster started
for the run (fsync on; TILEFOLD_BENCH_PG=<url> uses an existing server instead, and
TILEFOLD_BENCH_PG=off skips it).

Like with like: both sides durable when a call returns (raw sqlite3 twice: synchronous=FULL, and
the store's own scheme, NORMAL then an fdatasync of the WAL after the commit); A and B alternate
(which goes first flips every repetition); medians; the load average printed before and after.
The read anchor reads the same rows (the store's own table, the same columns) and parses their
payloads with json.loads and with orjson.loads."""

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

import orjson  # noqa: E402

from events import EventStore, NewEvent, Registry  # noqa: E402
from events.chain import canonical_json  # noqa: E402
from events.store import ROW_COLUMNS  # noqa: E402

APPENDS = 400  # per writer per repetition
READ_EVENTS = 2_000
READS = 7  # reads of each kind per repetition, alternating
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


def raw_connect(path: str, synchronous: str = "FULL") -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, timeout=30)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute(f"PRAGMA synchronous = {synchronous}")
    conn.execute("PRAGMA busy_timeout = 30000")
    return conn


def raw_writer(path: str, stream: str, count: int, after_commit=None, synchronous: str = "FULL") -> tuple[float, float]:
    conn = raw_connect(path, synchronous)
    payload = canonical_json(PAYLOAD)
    start = time.monotonic()
    for version in range(1, count + 1):
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(
            "INSERT INTO raw_events (stream, version, type, payload) VALUES (?, ?, ?, ?)",
            (stream, version, "tile_discarded", payload),
        )
        conn.execute("COMMIT")
        if after_commit is not None:
            after_commit()
    return start, time.monotonic()


def raw_synced_writer(path: str, stream: str, count: int) -> tuple[float, float]:
    """Raw sqlite3 with the store's durability scheme: commit with NORMAL (no fsync under the write
    lock), then fdatasync the WAL before the call returns."""
    wal = os.open(path + "-wal", os.O_RDONLY | os.O_CREAT)
    try:
        return raw_writer(path, stream, count, lambda: os.fdatasync(wal), "NORMAL")
    finally:
        os.close(wal)


def child(writer, path, stream, count, start_evt, out):
    start_evt.wait()
    out.put(writer(path, stream, count))


# -- measurements -------------------------------------------------------------------------
def fresh_paths(tmp: str, rep: int) -> tuple[str, str, str]:
    store_path, raw_path, synced_path = f"{tmp}/store-{rep}.db", f"{tmp}/raw-{rep}.db", f"{tmp}/synced-{rep}.db"
    EventStore.initialise(store_path).close()
    for path in (raw_path, synced_path):
        raw_connect(path).execute(RAW_DDL)
    return store_path, raw_path, synced_path


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


def read_ms(store_path: str) -> dict[str, list[float]]:
    """Read one 2,000-event stream through EventStore.read and as raw rows (the same SELECT of the
    same columns of the same table, then each payload parsed with json.loads / orjson.loads), the
    three kinds taking turns READS times; milliseconds."""
    store = EventStore(store_path, registry=Registry())
    for first in range(0, READ_EVENTS, 100):
        store.append("read", first, [NewEvent("tile_discarded", PAYLOAD) for _ in range(100)])
    conn = raw_connect(store_path)
    sql = f"SELECT {ROW_COLUMNS} FROM events WHERE stream = ? AND version > ? ORDER BY version"

    def raw(loads):
        def read() -> int:
            rows = conn.execute(sql, ["read", 0]).fetchall()
            return len([loads(row[5]) for row in rows])

        return read

    kinds = {"sread": lambda: len(store.read("read")), "jread": raw(json.loads), "oread": raw(orjson.loads)}
    times: dict[str, list[float]] = {kind: [] for kind in kinds}
    for turn in range(READS):
        order = list(kinds) if turn % 2 == 0 else list(reversed(kinds))
        for kind in order:
            started = time.perf_counter()
            assert kinds[kind]() == READ_EVENTS
            times[kind].append(1000 * (time.perf_counter() - started))
    return times


def run() -> dict[str, list[float]]:
    figures: dict[str, list[float]] = {k: [] for k in ("s1", "r1", "d1", "s2", "r2", "d2", "sread", "jread", "oread")}
    with tempfile.TemporaryDirectory() as tmp:
        for rep in range(REPEATS):
            for writers in (1, 2):
                store_path, raw_path, synced_path = fresh_paths(tmp, rep + 100 * writers)
                sides = [
                    ("s", store_writer, store_path),
                    ("r", raw_writer, raw_path),
                    ("d", raw_synced_writer, synced_path),
                ]
                for key, writer, path in sides if rep % 2 == 0 else reversed(sides):  # A/B order flips
                    figures[f"{key}{writers}"].append(appends_per_second(writer, path, writers))
            for kind, values in read_ms(store_path).items():
                figures[kind] += values
    return figures


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def print_table(figures: dict[str, list[float]]) -> None:
    med = {k: statistics.median(v) for k, v in figures.items()}
    print(
        f"SQLite {sqlite3.sqlite_version}, WAL; medians of {REPEATS} repetitions (A/B order flipping); "
        f"{APPENDS} single-event appends per writer; reads: {READS} of each kind per repetition, taking turns"
    )
    print("EventStore: DURABLE (its default: commit with NORMAL, then fdatasync of the WAL before append returns)")
    print("raw FULL: BEGIN IMMEDIATE/INSERT/COMMIT per append, synchronous=FULL (fsync inside the commit)")
    print("raw synced: the same with NORMAL, then fdatasync of the WAL before the next append (the store's scheme)")
    print(f"{'measure':<34}{'EventStore':>12}{'raw FULL':>10}{'ratio':>7}{'raw synced':>12}{'ratio':>7}")
    for label, n in (("appends/s, 1 writer", 1), ("appends/s, 2 writer processes", 2)):
        store, raw, synced = med[f"s{n}"], med[f"r{n}"], med[f"d{n}"]
        print(f"{label:<34}{store:>12.0f}{raw:>10.0f}{store / raw:>7.2f}{synced:>12.0f}{store / synced:>7.2f}")
    print(
        f"{'read ' + str(READ_EVENTS) + '-event stream (ms)':<34}{'EventStore':>12}{'json':>10}{'ratio':>7}{'orjson':>12}{'ratio':>7}"
    )
    store, plain, fast = med["sread"], med["jread"], med["oread"]
    print(
        f"{'  (raw: same SELECT, then parse)':<34}{store:>12.1f}{plain:>10.1f}{store / plain:>7.2f}{fast:>12.1f}{store / fast:>7.2f}"
    )


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


def pg_read_ms(url: str) -> dict[str, list[float]]:
    """read_ms on PostgreSQL: PostgresEventStore.read and the same SELECT on raw psycopg (parsed with
    json.loads / orjson.loads), taking turns."""
    import psycopg

    from events import PostgresEventStore

    store = PostgresEventStore(url, registry=Registry(), pool_size=2)
    for first in range(0, READ_EVENTS, 100):
        store.append("read", first, [NewEvent("tile_discarded", PAYLOAD) for _ in range(100)])
    sql = f"SELECT {ROW_COLUMNS} FROM events WHERE stream = %s AND version > %s ORDER BY version"
    times: dict[str, list[float]] = {"sread": [], "jread": [], "oread": []}
    with psycopg.connect(url, autocommit=True) as conn:

        def raw(loads):
            def read() -> int:
                rows = conn.execute(sql, ["read", 0]).fetchall()
                return len([loads(row[5]) for row in rows])

            return read

        kinds = {"sread": lambda: len(store.read("read")), "jread": raw(json.loads), "oread": raw(orjson.loads)}
        for turn in range(READS):
            for kind in list(kinds) if turn % 2 == 0 else list(reversed(kinds)):
                started = time.perf_counter()
                assert kinds[kind]() == READ_EVENTS
                times[kind].append(1000 * (time.perf_counter() - started))
    store.close()
    return times


def run_pg(base: str) -> dict[str, list[float]]:
    figures: dict[str, list[float]] = {k: [] for k in ("s1", "r1", "s2", "r2", "sread", "jread", "oread")}
    for rep in range(REPEATS):
        for writers in (1, 2):
            url = pg_fresh(base, rep + 100 * writers)
            sides = [("s", pg_store_writer), ("r", pg_raw_writer)]
            for key, writer in sides if rep % 2 == 0 else reversed(sides):  # A/B order flips
                figures[f"{key}{writers}"].append(appends_per_second(writer, url, writers))
        for kind, values in pg_read_ms(url).items():
            figures[kind] += values
    return figures


def print_pg_table(figures: dict[str, list[float]], server: str) -> None:
    med = {k: statistics.median(v) for k, v in figures.items()}
    print(f"\nPostgreSQL ({server}; fsync on, synchronous_commit on: both durable when the call returns)")
    print("raw psycopg = one autocommit INSERT per append (one round trip, one commit)")
    print("PostgresEventStore = tf_append (head moved from the expected version; head cached, else read first)")
    print(f"{'measure':<34}{'PgStore':>12}{'raw psycopg':>13}{'ratio':>7}")
    for label, n in (("appends/s, 1 writer", 1), ("appends/s, 2 writer processes", 2)):
        store, raw = med[f"s{n}"], med[f"r{n}"]
        print(f"{label:<34}{store:>12.0f}{raw:>13.0f}{store / raw:>7.2f}")
    store, plain, fast = med["sread"], med["jread"], med["oread"]
    print(
        f"read {READ_EVENTS}-event stream (ms){'':<6}{store:>12.1f}  raw + json {plain:.1f} ({store / plain:.2f}), "
        f"raw + orjson {fast:.1f} ({store / fast:.2f})"
    )


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
    print(f"load average before: {load_average()} (1, 5, 15 min; {os.cpu_count()} CPUs)")
    if os.environ.get("TILEFOLD_BENCH_PG") != "only":
        print_table(run())
    else:
        os.environ["TILEFOLD_BENCH_PG"] = ""
    postgres_section()
    print(f"load average after: {load_average()}; bench took {time.monotonic() - began:.1f} s")
