"""Ports for the servers the tests start (gunicorn, metrics listeners, nginx, PostgreSQL).

A port from `bind(0)` lies in the kernel's ephemeral range (/proc/sys/net/ipv4/ip_local_port_range,
32768-60999 by default), the range every outgoing connection on the machine takes its local port
from. Under load (tests opening thousands of connections, PostgreSQL pools, four workers at once) a
port picked that way can become some client's local port before the server binds it, and the server
then dies with "Address already in use". So a port here comes from below that range, where the
kernel hands none out; each pytest-xdist worker (and the controller) takes its own block, so two
workers never pick the same port; within a block the ports go round from an offset of the process id
(two test runs side by side start apart); a port some listener already holds is skipped.
"""

from __future__ import annotations

import itertools
import os
import socket
from typing import Iterator, Optional

LOWEST = 20_000  # the first port used (below: ports other services are commonly configured on)
BLOCKS = 17  # the controller and 16 workers (gw0 … gw15); more workers share blocks round the table


def ephemeral_low(path: str = "/proc/sys/net/ipv4/ip_local_port_range") -> int:
    """The first port of the kernel's ephemeral range (32768, Linux's default, when it cannot be read)."""
    try:
        with open(path, encoding="ascii") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def block_of(worker: Optional[str], low: int) -> Optional[range]:
    """The ports of one worker (`PYTEST_XDIST_WORKER`, e.g. "gw3"; None: the controller or a run
    without xdist), all below `low`; None when the room below `low` is too small to share."""
    size = (low - LOWEST) // BLOCKS
    if size < 50:
        return None
    index = int(worker[2:]) % (BLOCKS - 1) + 1 if worker and worker[2:].isdigit() else 0
    start = LOWEST + index * size
    return range(start, start + size)


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _kernel_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _ports() -> Iterator[int]:
    block = block_of(os.environ.get("PYTEST_XDIST_WORKER"), ephemeral_low())
    if block is None:  # a machine whose ephemeral range starts too low: what the kernel gives
        while True:
            yield _kernel_port()
    for n in itertools.count(os.getpid()):
        yield block[n % len(block)]


_NEXT = _ports()


def free_port() -> int:
    """A 127.0.0.1 port no listener holds now, and none the kernel gives out to connections."""
    for _ in range(10_000):
        port = next(_NEXT)
        if _bindable(port):
            return port
    raise RuntimeError("no free port for a test server")
