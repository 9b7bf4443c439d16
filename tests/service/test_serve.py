"""`tilefold serve` says where its database, API and pages are, and shares no control socket with other servers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from served import free_port, wait_until_up

ROOT = Path(__file__).resolve().parents[2]


def test_banner_names_the_database_the_api_and_the_pages(tmp_path):
    from service.cli import banner

    text = banner(str(tmp_path / "m.db"), "127.0.0.1:8123")
    assert f"database {tmp_path / 'm.db'}" in text
    assert "http://127.0.0.1:8123/api/matches" in text and "http://127.0.0.1:8123/api/openapi.json" in text
    assert "pages    http://127.0.0.1:8123/ " in text and "http://127.0.0.1:8123/my" in text
    assert "http://127.0.0.1:8123/replay/<match id>" in text


def test_banner_never_prints_a_postgresql_password():
    from service.cli import banner

    text = banner("postgresql://tilefold:s3cret@db.example:5432/tilefold", "0.0.0.0:80")
    assert "s3cret" not in text and "postgresql://db.example:5432/tilefold" in text


def test_gunicorn_control_socket_is_off():
    """gunicorn >= 25.1 would open $XDG_RUNTIME_DIR/gunicorn.ctl, one path shared by every server of a user."""
    from service.cli import gunicorn_app

    argv, sys.argv = sys.argv, ["tilefold"]
    try:
        cfg = gunicorn_app({"bind": "127.0.0.1:0", "control_socket_disable": True}).cfg
    finally:
        sys.argv = argv
    if "control_socket_disable" in cfg.settings:  # older gunicorn: no control socket at all
        assert cfg.control_socket_disable is True


@pytest.mark.slow  # two real server processes: out of the fast loop
def test_two_servers_start_side_by_side_and_print_where_they_are(tmp_path):
    """Given two `tilefold serve` on one machine (one runtime dir), when both start, then both answer,
    each printed its own database and address, and no control socket was made in the runtime dir."""
    runtime = tmp_path / "run"
    runtime.mkdir()
    script = Path(sys.executable).with_name("tilefold")
    launcher = [str(script)] if script.exists() else [sys.executable, "-m", "service.cli"]
    servers = []
    try:
        for name in ("a", "b"):
            port, db = free_port(), tmp_path / f"{name}.db"
            env = dict(os.environ, XDG_RUNTIME_DIR=str(runtime), TILEFOLD_DB=str(db))
            proc = subprocess.Popen(
                launcher + ["serve", "--bind", f"127.0.0.1:{port}", "--workers", "1"],
                env=env,
                cwd=str(ROOT),
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                text=True,
            )
            servers.append((proc, port, db))
        for proc, port, db in servers:
            wait_until_up(f"http://127.0.0.1:{port}", proc)
            printed = [proc.stdout.readline() for _ in range(3)]
            assert f"database {db}" in printed[0]
            assert f"http://127.0.0.1:{port}/api/matches" in printed[1]
            assert f"pages    http://127.0.0.1:{port}/ " in printed[2]
        assert not list(runtime.iterdir())
    finally:
        for proc, _, _ in servers:
            os.killpg(proc.pid, signal.SIGTERM)
        for proc, _, _ in servers:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
