"""Nodes started and killed over and over beside a loaded node on one PostgreSQL database: a
start-up runs no DDL on tables in use, so no deadlock, no lost snapshot, no refused start.

(Schema changes at every start — `ALTER TABLE snapshots ADD COLUMN IF NOT EXISTS`, `DROP TRIGGER …
ON events` — took exclusive locks and deadlocked with a live node's `save_snapshot`.)
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from served import free_port, wait_until_up

RESTARTS = 10
WRITERS = 4  # the live node's request threads


@pytest.mark.slow
def test_restarting_nodes_beside_a_loaded_node_never_deadlock_or_lose_a_snapshot(pg_url):
    from events import NewEvent, PostgresEventStore

    live = PostgresEventStore.initialise(pg_url)
    stop, errors, saved = threading.Event(), [], []

    def load(writer: int) -> None:
        """One request thread of the live node: appends and rolling snapshots on its own streams."""
        versions = {f"m{writer}-{i}": 0 for i in range(3)}
        while not stop.is_set():
            for stream, version in versions.items():
                try:
                    versions[stream] = live.append(stream, version, [NewEvent("move", {"n": version})]).last_version
                    live.save_snapshot(stream, versions[stream], "k", b"state %d" % versions[stream], keep=False)
                    saved.append((stream, versions[stream]))
                except Exception as exc:  # noqa: BLE001 - every failure is a finding
                    errors.append(repr(exc))
                    versions[stream] = live.current_version(stream)

    workers = [threading.Thread(target=load, args=(n,), daemon=True) for n in range(WRITERS)]
    for worker in workers:
        worker.start()
    logs = []
    try:
        for _ in range(RESTARTS):
            port = free_port()
            log = Path(tempfile.mkstemp(prefix="tilefold-restart-", suffix=".log")[1])
            logs.append(log)
            with open(log, "wb") as sink:
                proc = subprocess.Popen(
                    [sys.executable, "-m", "service.cli", "serve", "--bind", f"127.0.0.1:{port}", "--workers", "1"],
                    env=dict(os.environ, TILEFOLD_DB=pg_url),
                    cwd=str(Path(__file__).resolve().parents[2]),
                    stdout=sink,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            try:
                wait_until_up(f"http://127.0.0.1:{port}", proc, seconds=60)
            finally:
                os.killpg(proc.pid, signal.SIGKILL)  # killed, not stopped: the next start finds whatever it left
                proc.wait()
    finally:
        stop.set()
        for worker in workers:
            worker.join(30)
    output = "\n".join(log.read_text(errors="replace") for log in logs)
    for log in logs:
        log.unlink(missing_ok=True)
    assert "Deadlock" not in output and "Traceback" not in output, output[-3000:]
    assert errors == [] and len(saved) > RESTARTS
    for stream in {s for s, _ in saved}:  # the last snapshot each stream saved is there
        last = max(v for s, v in saved if s == stream)
        assert live.load_snapshot(stream, "k") == (last, b"state %d" % last)
    live.close()
