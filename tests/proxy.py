"""Debian's nginx run by a test: deploy/nginx-tilefold.conf as written, in a temporary prefix, in the
foreground, on 127.0.0.1 free ports (only the listen address and the node addresses are changed)."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Iterator, Optional, Sequence

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "deploy" / "nginx-tilefold.conf"
NODES_IN_SITE = ("127.0.0.1:8001", "127.0.0.1:8002")


def nginx_binary() -> Optional[str]:
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.path.exists(p)), None)


def site_for(port: int, nodes: Sequence[str]) -> str:
    """The site file with its listen address and its two node addresses replaced."""
    text = SITE.read_text(encoding="utf-8")
    assert text.count("listen 80;") == 1, "the site listens once"
    text = text.replace("listen 80;", f"listen 127.0.0.1:{port};")
    for documented, actual in zip(NODES_IN_SITE, nodes, strict=True):
        assert len(re.findall(rf"server {re.escape(documented)}\b", text)) == 1, documented
        text = text.replace(f"server {documented}", f"server {actual}")
    return text


@contextlib.contextmanager
def nginx_in_front(nodes: Sequence[str], port: int, folder: Path) -> Iterator[str]:
    """nginx (master in the foreground) with the site in front of `nodes`; yields its base URL."""
    binary = nginx_binary()
    assert binary is not None
    folder.mkdir(parents=True, exist_ok=True)
    for sub in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (folder / sub).mkdir(exist_ok=True)
        os.chmod(folder / sub, 0o777)  # the worker runs as nobody when the master is root
    (folder / "tilefold.conf").write_text(site_for(port, nodes), encoding="utf-8")
    (folder / "nginx.conf").write_text(
        f"""
pid {folder}/nginx.pid;
error_log {folder}/error.log info;
worker_processes 1;
events {{ worker_connections 1024; }}
http {{
    access_log {folder}/access.log;
    client_body_temp_path {folder}/client_body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    include {folder}/tilefold.conf;
}}
""",
        encoding="utf-8",
    )
    check = subprocess.run(
        [binary, "-t", "-p", str(folder), "-c", str(folder / "nginx.conf")], capture_output=True, text=True
    )
    assert check.returncode == 0, check.stderr
    proc = subprocess.Popen(
        [binary, "-p", str(folder), "-c", str(folder / "nginx.conf"), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,  # its error_log is a file in `folder`
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            assert proc.poll() is None, (folder / "error.log").read_text(errors="replace")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            assert time.monotonic() < deadline, "nginx did not listen within 20 s"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
