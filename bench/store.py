"""Benchmark: EventStore appends/s (1 and 2 writer processes) and stream reads vs raw sqlite3."""
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

APPENDS = 400          # per writer per repetition
READ_EVENTS = 2_000
REPEATS = 5
PAYLOAD = {"seat": 2, "tile": "5m", "riichi": False, "note": "x" * 40}
RAW_DDL = ("CREATE TABLE IF NOT EXISTS raw_events (position INTEGER PRIMARY KEY, stream TEXT, "
           "version INTEGER, type TEXT, payload TEXT, UNIQUE (stream, version))")


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
        conn.execute("INSERT INTO raw_events (stream, version, type, payload) VALUES (?, ?, ?, ?)",
                     (stream, version, "tile_discarded", payload))
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
    procs = [ctx.Process(target=child, args=(writer, path, f"bench-{w}", APPENDS, start_evt, out))
             for w in range(writers)]
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
    conn.executemany("INSERT INTO raw_events (stream, version, type, payload) VALUES ('read', ?, 't', ?)",
                     [(v, canonical_json(PAYLOAD)) for v in range(1, READ_EVENTS + 1)])
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
    print(f"median of {REPEATS} runs; {APPENDS} single-event appends per writer; "
          f"EventStore DURABLE (its default), raw synchronous=FULL: both on disk when the call returns; WAL; sqlite {sqlite3.sqlite_version}")
    print("raw sqlite3 = BEGIN IMMEDIATE/INSERT/COMMIT per append; SELECT + json.loads for the read")
    print(f"{'measure':<34}{'EventStore':>12}{'raw sqlite3':>13}{'ratio':>8}")
    rows = [("appends/s, 1 writer", "s1", "r1", "{:.0f}"), ("appends/s, 2 writer processes", "s2", "r2", "{:.0f}"),
            (f"read {READ_EVENTS}-event stream (ms)", "sread", "rread", "{:.1f}")]
    for label, store_key, raw_key, fmt in rows:
        ratio = med[store_key] / med[raw_key]
        print(f"{label:<34}{fmt.format(med[store_key]):>12}{fmt.format(med[raw_key]):>13}{ratio:>8.2f}")


if __name__ == "__main__":
    began = time.monotonic()
    print_table(run())
    print(f"(bench took {time.monotonic() - began:.1f} s)")
