"""`tilefold serve` (gunicorn, 2 gevent workers) on a free 127.0.0.1 port, for tests over real HTTP."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

import requests

from tests.ports import free_port


def wait_until_up(base: str, proc: subprocess.Popen, seconds: float = 120) -> None:
    """Wait for the server's first answer. A slow start on a busy machine is no failure: a refused
    connection or a read timeout (workers still importing) only means "not yet"."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited with {proc.returncode}")
        try:
            if requests.get(base + "/api/matches", timeout=5).status_code == 200:
                return
        except (requests.ConnectionError, requests.Timeout):  # a worker still booting on a busy machine
            pass
        time.sleep(0.1)
    raise AssertionError(f"server did not come up within {seconds} s")


class Served:
    """A running `tilefold serve`: its base URL, its process (the gunicorn master) and its log file."""

    def __init__(self, base: str, proc: subprocess.Popen, log: Path, port: int) -> None:
        self.base, self.proc, self.log, self.port = base, proc, log, port

    def lines(self) -> list[str]:
        """What it wrote to standard error so far (one JSON object a line: not a terminal)."""
        return self.log.read_text(encoding="utf-8", errors="replace").splitlines()


@contextlib.contextmanager
def served(db: Path, *args: str, **env: str) -> Iterator[Served]:
    """Run the service on `db` with extra `serve` arguments and TILEFOLD_* settings; stop it after.
    Its standard error goes to a file (a pipe nobody reads would fill up with the access log)."""
    port = free_port()
    environ = dict(os.environ, TILEFOLD_DB=str(db), TILEFOLD_RATE_LIMITS="0")  # load tests: one address
    environ.update(env)
    script = Path(sys.executable).with_name("tilefold")
    launcher = [str(script)] if script.exists() else [sys.executable, "-m", "service.cli"]
    cmd = launcher + ["serve", "--bind", f"127.0.0.1:{port}", "--workers", "2", "--threads", "4", *args]
    log = Path(tempfile.mkstemp(prefix="tilefold-serve-", suffix=".log")[1])
    with open(log, "wb") as sink:
        proc = subprocess.Popen(
            cmd,
            env=environ,
            cwd=str(Path(__file__).resolve().parents[1]),
            stdout=subprocess.DEVNULL,
            stderr=sink,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, proc)
        yield Served(base, proc, log, port)
    finally:
        stop(proc)
        log.unlink(missing_ok=True)


def stop(proc: subprocess.Popen, seconds: float = 40) -> None:
    """SIGTERM to the server's process group, SIGKILL when it is still there after `seconds`."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@contextlib.contextmanager
def serving(db: Path, **env: str) -> Iterator[str]:
    """Run the service on `db` with extra TILEFOLD_* settings; yield its base URL; stop it after."""
    with served(db, **env) as server:
        yield server.base
