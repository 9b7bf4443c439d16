"""Multi-process tests of the event store: 8 concurrent writers, and SIGKILL mid-append, on both
backends (`backend`: a SQLite file, or a PostgreSQL schema)."""

import multiprocessing as mp
import os
import random
import signal
import time
from collections import Counter

import pytest

import events
from events import ConcurrencyError, NewEvent, Registry

WORKERS = 8
APPENDS_PER_WORKER = 100
DEADLINE_S = 40


def open_store(store_or_path):
    """Fork hands over the parent's store object (reconnect per pid); spawn gets a path or URL."""
    if isinstance(store_or_path, str):
        return events.open_store(store_or_path, registry=Registry())
    return store_or_path


def record_error(report, exc):
    report["errors"].append(repr(exc))
    if "locked" in str(exc).lower():
        report["locked"].append(repr(exc))


def shared_worker(store_or_path, worker, start, results):
    """Append to the shared stream: read version, append, retry on conflict."""
    store, report = open_store(store_or_path), new_report(worker, "shared")
    start.wait()
    deadline = time.monotonic() + DEADLINE_S
    while report["ok"] < APPENDS_PER_WORKER and time.monotonic() < deadline:
        try:
            version = store.current_version("shared")
            store.append("shared", version, [NewEvent("move", {"worker": worker, "n": report["ok"]})])
            report["ok"] += 1
        except ConcurrencyError:
            report["conflicts"] += 1
        except Exception as exc:  # recorded, asserted on by the parent
            record_error(report, exc)
    results.put(report)


def own_worker(store_or_path, worker, start, results):
    """Append to a stream nobody else writes."""
    store, report = open_store(store_or_path), new_report(worker, f"own-{worker}")
    start.wait()
    for n in range(APPENDS_PER_WORKER):
        try:
            store.append(report["stream"], n, [NewEvent("move", {"worker": worker, "n": n})])
            report["ok"] += 1
        except Exception as exc:
            record_error(report, exc)
    results.put(report)


def new_report(worker, stream):
    return {"worker": worker, "stream": stream, "ok": 0, "conflicts": 0, "errors": [], "locked": []}


@pytest.mark.slow
@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_eight_processes_append_without_loss_or_locks(backend, method):
    path = backend.target
    if method == "fork":
        # fork from a fresh single-threaded process: forking pytest itself, whose earlier tests
        # leave threads behind (one may be inside SQLite at that instant), once hung a child
        spawn = mp.get_context("spawn")
        out = spawn.Queue()
        parent = spawn.Process(target=forking_parent, args=(path, out))
        parent.start()
        reports = out.get(timeout=DEADLINE_S + 30)
        parent.join(timeout=10)
        assert parent.exitcode == 0
    else:
        reports = run_workers(path, "spawn")
    check_reports(events.open_store(path, registry=Registry()), reports)


def forking_parent(path, out):
    out.put(run_workers(path, "fork"))


def run_workers(path, method):
    """8 writers started by `method`; with fork they inherit this process's open store object."""
    store = events.initialise_store(path, registry=Registry())
    store.append("warmup", 0, [NewEvent("t", {})])  # the parent holds an open connection
    ctx = mp.get_context(method)
    start, results = ctx.Event(), ctx.Queue()
    handle = store if method == "fork" else path
    procs = [
        ctx.Process(target=shared_worker if w % 2 == 0 else own_worker, args=(handle, w, start, results))
        for w in range(WORKERS)
    ]
    for proc in procs:
        proc.start()
    start.set()
    reports = [results.get(timeout=DEADLINE_S + 20) for _ in procs]
    for proc in procs:
        proc.join(timeout=10)
    assert [proc.exitcode for proc in procs] == [0] * WORKERS
    return reports


def check_reports(store, reports):
    assert [r["locked"] for r in reports] == [[]] * WORKERS
    assert [r["errors"] for r in reports] == [[]] * WORKERS
    expected = Counter()
    for report in reports:
        expected[report["stream"]] += report["ok"]
    assert all(r["ok"] == APPENDS_PER_WORKER for r in reports)
    for stream, ok in expected.items():
        events = store.read(stream)
        assert [e.version for e in events] == list(range(1, ok + 1)), stream
        pairs = [(e.payload["worker"], e.payload["n"]) for e in events]
        assert len(set(pairs)) == len(pairs), f"duplicate event in {stream}"
        assert store.verify_stream(stream) == []
    assert len(store.read_all()) == 1 + sum(expected.values())


# -- SIGKILL while appending ---------------------------------------------------------------
BATCH = 3


def batch_appender(path, ack_path, ready):
    """Append 3-event batches forever; after each acknowledged append, fsync its last version."""
    store = events.open_store(path, registry=Registry())
    with open(ack_path, "a", encoding="ascii") as acks:
        batch = 0
        while True:
            version = store.current_version("killed")
            parts = [NewEvent("part", {"batch": batch, "i": i}) for i in range(BATCH)]
            result = store.append("killed", version, parts, idempotency_key=f"batch-{batch}", outbox=[{"batch": batch}])
            acks.write(f"{result.last_version}\n")
            acks.flush()
            os.fsync(acks.fileno())
            ready.set()
            batch += 1


def acknowledged_versions(ack_path):
    with open(ack_path, encoding="ascii") as acks:
        text = acks.read()
    complete = text.split("\n")[:-1]  # a line cut by the kill has no newline yet
    return [int(line) for line in complete]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_sigkill_loses_no_acknowledged_batch_and_leaves_no_partial_one(backend, tmp_path, seed):
    path, ack_path = backend.target, str(tmp_path / "acks.txt")
    events.initialise_store(path, registry=Registry()).close()
    # spawn, not fork: forking a test process that has other threads (webhook workers, servers of
    # earlier tests) can hand the child a lock held forever, which once stalled this test.
    ctx = mp.get_context("spawn")
    ready = ctx.Event()
    child = ctx.Process(target=batch_appender, args=(path, ack_path, ready))
    child.start()
    assert ready.wait(timeout=60), "child never acknowledged an append"
    time.sleep(random.Random(seed).uniform(0.3, 1.0))
    os.kill(child.pid, signal.SIGKILL)
    child.join(timeout=10)
    assert child.exitcode == -signal.SIGKILL
    check_after_kill(events.open_store(path, registry=Registry()), acknowledged_versions(ack_path))


def check_after_kill(store, acked):
    events = store.read("killed")
    versions = [e.version for e in events]
    assert acked and versions == list(range(1, len(versions) + 1))
    assert set(acked) <= set(versions), "an acknowledged append was lost"
    sizes = Counter(e.payload["batch"] for e in events)
    assert set(sizes.values()) == {BATCH}, f"partial batch: {sizes}"
    assert sorted(sizes) == list(range(len(sizes)))
    assert len(store.outbox_pending("9999-12-31T00:00:00.000000Z", limit=10_000)) == len(sizes)
    assert store.verify_stream("killed") == []
    store.append("killed", versions[-1], [NewEvent("after", {})])  # still writable
