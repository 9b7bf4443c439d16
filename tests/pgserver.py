"""A throwaway PostgreSQL cluster for the tests (and bench/): initdb + pg_ctl on 127.0.0.1.

`.ci/run` starts one for the whole run and exports TILEFOLD_TEST_PG; a developer running plain
`pytest` gets one started by tests/conftest.py when TILEFOLD_TEST_PG is unset and Debian's
postgresql binaries exist (stopped at the end of the session). initdb refuses to run as root,
so as root the cluster belongs to the `postgres` user (its commands run through `su`).

    python tests/pgserver.py start DIR   # prints the URL; the server keeps running
    python tests/pgserver.py stop DIR
"""

from __future__ import annotations

import glob
import os
import pwd
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Optional

try:
    from tests.ports import free_port
except ImportError:  # run as a script (`python tests/pgserver.py start DIR`): tests/ is on sys.path
    from ports import free_port  # type: ignore[no-redef]

DATABASE = "tilefold_test"
#: settings for a test server: small, local only; fsync stays on unless asked (bench wants it)
SETTINGS = {
    "listen_addresses": "'127.0.0.1'",
    "max_connections": "200",
    "shared_buffers": "64MB",
    "max_wal_size": "256MB",
    "log_min_messages": "warning",
}


def binaries() -> Optional[str]:
    """The newest /usr/lib/postgresql/N/bin holding initdb and pg_ctl, or None."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0,
    )
    for initdb in reversed(found):
        folder = os.path.dirname(initdb)
        if os.path.exists(os.path.join(folder, "pg_ctl")):
            return folder
    found_path = shutil.which("initdb")
    return os.path.dirname(found_path) if found_path and shutil.which("pg_ctl") else None


def _owner() -> Optional[str]:
    """The user the cluster runs as: `postgres` when we are root, else ourselves (None)."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        raise RuntimeError("running as root and there is no `postgres` user for initdb") from None
    return "postgres"


def _run(argv: list[str], owner: Optional[str], timeout: float = 120) -> None:
    if owner:
        argv = ["su", owner, "-s", "/bin/sh", "-c", " ".join(shlex.quote(a) for a in argv)]
    result = subprocess.run(
        argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout, stdin=subprocess.DEVNULL
    )
    if result.returncode != 0:
        raise RuntimeError(
            f"{argv[0] if not owner else argv[-1]} failed: {result.stdout.decode(errors='replace')[-2000:]}"
        )


def start(folder: str, *, fsync: bool = False) -> str:
    """initdb a cluster in `folder` (created), start it on a free 127.0.0.1 port, create the test
    database; return its postgresql:// URL. `fsync=False` (tests) trades crash safety for speed."""
    bin_dir = binaries()
    if bin_dir is None:
        raise RuntimeError("no PostgreSQL binaries (apt-get install postgresql)")
    owner = _owner()
    os.makedirs(folder, exist_ok=True)
    data, sockets = os.path.join(folder, "data"), os.path.join(folder, "sock")
    os.makedirs(sockets, exist_ok=True)
    if owner:
        entry = pwd.getpwnam(owner)
        for path in (folder, sockets):
            os.chown(path, entry.pw_uid, entry.pw_gid)
    _run([f"{bin_dir}/initdb", "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C.UTF-8"], owner)
    port = free_port()
    options = dict(
        SETTINGS,
        port=str(port),
        unix_socket_directories=f"'{sockets}'",
        fsync="on" if fsync else "off",
        synchronous_commit="on" if fsync else "off",
        full_page_writes="on" if fsync else "off",
    )
    with open(os.path.join(data, "postgresql.auto.conf"), "a", encoding="utf-8") as conf:
        conf.writelines(f"{key} = {value}\n" for key, value in options.items())
    _run([f"{bin_dir}/pg_ctl", "-D", data, "-l", os.path.join(folder, "server.log"), "-w", "-t", "60", "start"], owner)
    _run([f"{bin_dir}/createdb", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", DATABASE], owner)
    url = f"postgresql://postgres@127.0.0.1:{port}/{DATABASE}"
    with open(os.path.join(folder, "url"), "w", encoding="utf-8") as out:
        out.write(url)
    return url


def stop(folder: str) -> None:
    """Stop the cluster in `folder` (immediate: it is throwaway) and remove the folder."""
    bin_dir, data = binaries(), os.path.join(folder, "data")
    if bin_dir and os.path.isdir(data):
        try:
            _run([f"{bin_dir}/pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"], _owner(), timeout=60)
        except (RuntimeError, subprocess.TimeoutExpired):
            pass
    shutil.rmtree(folder, ignore_errors=True)


def new_folder() -> str:
    return tempfile.mkdtemp(prefix="tilefold-pg-")


def wait_ready(url: str, seconds: float = 30) -> None:
    import psycopg

    deadline = time.monotonic() + seconds
    while True:
        try:
            psycopg.connect(url, connect_timeout=5).close()
            return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("start", "stop"):
        sys.exit("usage: pgserver.py start|stop DIR")
    if sys.argv[1] == "start":
        print(start(sys.argv[2], fsync=os.environ.get("TILEFOLD_TEST_PG_FSYNC") == "1"))
    else:
        stop(sys.argv[2])
