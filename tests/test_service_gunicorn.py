"""A whole match over real HTTP against `tilefold serve` (gunicorn, 2 gthread workers)."""
from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

requests = pytest.importorskip("requests")

from conftest import MatchClient, requests_transport  # noqa: E402


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_up(base: str, proc: subprocess.Popen, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited with {proc.returncode}")
        try:
            if requests.get(base + "/api/matches", timeout=1).status_code == 200:
                return
        except requests.ConnectionError:
            pass
        time.sleep(0.1)
    raise AssertionError("server did not come up")


@pytest.fixture
def server(tmp_path: Path):
    port = free_port()
    env = dict(os.environ, TILEFOLD_DB=str(tmp_path / "served.db"))
    script = Path(sys.executable).with_name("tilefold")
    launcher = [str(script)] if script.exists() else [sys.executable, "-m", "service.cli"]
    cmd = launcher + ["serve", "--bind", f"127.0.0.1:{port}", "--workers", "2", "--threads", "4"]
    proc = subprocess.Popen(cmd, env=env, cwd=str(Path(__file__).resolve().parents[1]),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, proc)
        yield base
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_one_human_three_bots_over_http(server):
    api = MatchClient(requests_transport(server))
    started = time.monotonic()
    match_id, owner = api.create("koudiandian", {"hands": 2})
    token = api.join(match_id, "human")
    api.bots(match_id, owner)
    api.play_randomly(match_id, [token], random.Random(11))
    summary = api.summary(match_id)
    assert summary["status"] == "over" and sum(summary["scores"]) == 0
    assert [s["bot"] for s in summary["seats"]] == [False, True, True, True]
    feed = api.events(match_id, token).body
    assert feed["viewer"] == "all" and feed["version"] == summary["version"]
    spec = requests.get(server + "/api/openapi.json", timeout=5).json()
    assert "/api/matches/{match_id}/actions" in spec["paths"]
    missing = requests.get(f"{server}/api/matches/{match_id}/view", timeout=5)
    assert missing.status_code == 401 and missing.headers["Content-Type"].startswith("application/problem+json")
    assert time.monotonic() - started < 120


def test_oversized_chunked_body_is_413_through_gunicorn(server):
    """gunicorn hands a chunked body over without Content-Length; it must not be silently cut to the limit."""
    head = b'{"variant": "koudiandian", "options": {}}'

    def chunks():
        yield head
        for _ in range(20):
            yield b" " * 10_000

    reply = requests.post(f"{server}/api/matches", data=chunks(), headers={"Content-Type": "application/json"},
                          timeout=30)
    assert reply.status_code == 413 and reply.json()["code"] == "body_too_large"
    small = requests.post(f"{server}/api/matches", data=iter([head]), headers={"Content-Type": "application/json"},
                          timeout=30)
    assert small.status_code == 201
