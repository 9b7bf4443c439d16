"""docs/OPERATIONS.md is followed as written: its blocks marked `<!-- run: NAME -->` run in order in
one shell (bash -euo pipefail) in a fresh working directory, with TILEFOLD_DB set (a fresh
PostgreSQL schema, or a SQLite file when no PostgreSQL server can start) and only the documented
ports (8001, 8002, 9101, 9102) changed to free ones. Bounded: two nodes started, one stopped, one
reloaded, a backup taken and restored, about a minute.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from served import free_port

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "OPERATIONS.md"
MARKED = re.compile(r"<!-- run: ([\w-]+) -->\n```sh\n(.*?)```", re.S)
PORTS = ("8001", "8002", "9101", "9102")
ORDER = ["start", "ready", "metrics", "stop", "reload", "upgrade", "backup", "shutdown"]

pytestmark = pytest.mark.skipif(not shutil.which("curl"), reason="the blocks use curl")


def blocks() -> list[tuple[str, str]]:
    return MARKED.findall(DOC.read_text(encoding="utf-8"))


def test_every_run_block_is_named_and_in_order():
    assert [name for name, _ in blocks()] == ORDER


@pytest.fixture
def database(tmp_path):
    """A fresh PostgreSQL schema's URL when a server is there, else a SQLite file."""
    from tests.backends import PostgresBackend, pg_server_url

    url = pg_server_url()
    if url is not None:
        made = PostgresBackend(url)
        yield made.target
        made.close()
    else:
        yield str(tmp_path / "tilefold.db")


@pytest.mark.slow
def test_the_operations_page_runs_as_written(tmp_path, database):
    script = "\n".join(body for _, body in blocks())
    for port in PORTS:
        assert script.count(port) >= 1, port
        script = script.replace(port, str(free_port()))
    work = tmp_path / "node"
    work.mkdir()
    env = dict(
        os.environ,
        TILEFOLD_DB=database,
        TILEFOLD_KEYS=str(tmp_path / "keys"),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        PYTHONPATH=str(ROOT),
    )
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    try:
        run = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        for pid_file in work.glob("*.pid"):  # whatever the script left running
            try:
                os.kill(int(pid_file.read_text()), signal.SIGKILL)
            except (ValueError, ProcessLookupError):
                pass
    logs = {p.name: p.read_text(errors="replace") for p in work.glob("*.log")}
    assert run.returncode == 0, (run.stdout[-3000:], run.stderr[-3000:], {k: v[-2000:] for k, v in logs.items()})
    out = run.stdout
    ready = '{"status":"ready","checks":{"database":"ok","ticker":"ok"}}'
    assert out.count(ready) >= 3  # both nodes, then A after its reload
    assert '"pending": false' in out
    assert out.count('"verified": true') == 2  # the backup, then its restore into an empty file
    assert re.search(r'^tilefold_requests_total\{route="/readyz",status="200"\} [1-9]', out, re.M)
    assert "worker_stopping" in logs["node-b.log"] and "worker_stopping" in logs["node-a.log"]
    assert "Handling signal: hup" in logs["node-a.log"]
