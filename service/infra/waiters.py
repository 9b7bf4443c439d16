"""Waiting clients (long-polls, SSE streams): one watcher per worker process, caps per address.

A worker has ONE `WaiterHub`, told of appends by two pluggable sources:
- `store.watch(callback)`: callback(stream, version) after an append commits. SQLite calls it for
  this process's own appends; PostgreSQL for every node's (LISTEN/NOTIFY; ("*", 0) after its
  listener reconnected: anything may have moved, each watched stream is checked again).
- the change feed (`appended_since`, both backends): the hub's watcher (a thread; a greenlet under
  gunicorn's gevent worker) asks the store which streams moved since it last looked, one indexed
  query however many clients wait, once per poll interval (SQLite), or when the store's
  `append_source().wait(timeout)` returns early on a notification (PostgreSQL LISTEN/NOTIFY).
It then wakes the clients waiting on those streams. A waiter costs a condition wait, never a
thread of its own under gevent.

`WaitLimits` caps how many waits are open at once: per client address (429) and in all (503),
both with Retry-After (docs/API.md, "Waiting").
"""

from __future__ import annotations

import ipaddress
import logging
import os
import select
import socket
import threading
import time
from collections import OrderedDict
from typing import Any, Mapping, Optional

from events import EventStoreContract

from . import metrics
from ..model.errors import Busy, TooMany

log = logging.getLogger(__name__)


class _Watch:
    """The waiters of one stream: their condition, how many, the newest version seen, and the
    conditions of waiters on several streams at once (`WaiterHub.wait_any`) that include it."""

    __slots__ = ("cond", "count", "version", "groups")

    def __init__(self, lock: threading.Lock) -> None:
        self.cond = threading.Condition(lock)
        self.count = 0
        self.version = 0
        self.groups: set[threading.Condition] = set()


class PollingSource:
    """ "Appends may have happened" every `interval` seconds (SQLite: no notifications)."""

    def __init__(self, interval: float) -> None:
        self.interval = interval

    def wait(self, timeout: float) -> None:
        time.sleep(min(timeout, self.interval))


class WaiterHub:
    """Wakes the waiters of a stream when it moves; one store query per poll for all of them."""

    def __init__(self, store: EventStoreContract, interval: float, source: Any = None) -> None:
        self.store = store
        self.interval = max(0.001, float(interval))
        self.source = source
        self._lock = threading.Lock()
        self._watches: dict[str, _Watch] = {}
        self._pid: Optional[int] = None
        self.polls = 0  # queries made by the watcher (tests and benchmarks read it)
        self.draining = False  # the worker is stopping: every wait returns now (`drain`)

    # -- waiting ------------------------------------------------------------------
    def wait(self, stream: str, seen: int, timeout: float) -> int:
        """Block until `stream` is past version `seen` or `timeout` seconds pass; its newest known version."""
        self._ensure_watcher()
        watch = self._enter(stream)
        try:
            deadline = time.monotonic() + max(0.0, timeout)
            with watch.cond:
                while watch.version <= seen and not self.draining:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        break
                    watch.cond.wait(remaining)
                return watch.version
        finally:
            self._leave(stream, watch)

    def wait_any(self, seen: dict[str, int], timeout: float) -> dict[str, int]:
        """Block until any stream of `seen` is past its version there, or `timeout` seconds pass (with
        no stream, just the timeout); the newest known version of each. My matches waits on a
        browser's matches this way: one condition, however many streams (service/http/pages)."""
        self._ensure_watcher()
        watches: dict[str, _Watch] = {}
        try:
            for stream in seen:
                watches[stream] = self._enter(stream)
        except BaseException:
            for stream, watch in watches.items():
                self._leave(stream, watch)
            raise
        group = threading.Condition(self._lock)  # the lock every watch's condition shares
        with group:
            for watch in watches.values():
                watch.groups.add(group)
        try:
            deadline = time.monotonic() + max(0.0, timeout)
            with group:
                while not self.draining and all(watch.version <= seen[stream] for stream, watch in watches.items()):
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        break
                    group.wait(remaining)
                return {stream: max(watch.version, seen[stream]) for stream, watch in watches.items()}
        finally:
            with group:
                for watch in watches.values():
                    watch.groups.discard(group)
            for stream, watch in watches.items():
                self._leave(stream, watch)

    def appended(self, stream: str, version: int) -> None:
        """`stream` was appended to up to `version` (store.watch): wake its waiters now; "*": every
        watched stream may have moved (a notification listener reconnected)."""
        if stream == "*":
            for name, watch in list(self._watches.items()):
                self._raise(name, watch, self.store.current_version(name))
            return
        found = self._watches.get(stream)
        if found is not None:
            self._raise(stream, found, version)

    def drain(self) -> None:
        """The worker is stopping (gunicorn's SIGTERM, a reload's HUP): every open wait returns now
        with what it has (a long-poll answers the current state, a stream tells its client to
        reconnect: service/http/stream.py), and a new wait returns at once; the client's next request
        reaches a live worker or node. Called from a thread of its own, never a signal handler."""
        with self._lock:
            self.draining = True
            for watch in self._watches.values():
                watch.cond.notify_all()
                for group in watch.groups:
                    group.notify_all()

    @property
    def waiting(self) -> int:
        with self._lock:
            return sum(w.count for w in self._watches.values())

    def _enter(self, stream: str) -> _Watch:
        """The stream's watch, counting one more waiter; a new watch learns the stream's version from
        the store (it closes the start-up race: an append before the watcher followed the stream).
        A watch that already had waiters is kept current by the watcher, so a wait re-entered (every
        DISCONNECT_CHECK, to look at its client) costs no query: 4,000 waiters asked the store
        4,000 times a second before."""
        with self._lock:
            watch = self._watches.get(stream)
            fresh = watch is None
            if watch is None:
                watch = self._watches[stream] = _Watch(self._lock)
            watch.count += 1
        if fresh:
            try:
                self._raise(stream, watch, self.store.current_version(stream))
            except BaseException:
                self._leave(stream, watch)
                raise
        return watch

    def _leave(self, stream: str, watch: _Watch) -> None:
        with self._lock:
            watch.count -= 1
            if watch.count <= 0 and self._watches.get(stream) is watch:
                del self._watches[stream]

    def _raise(self, stream: str, watch: _Watch, version: int) -> None:
        with watch.cond:
            if version > watch.version:
                watch.version = version
                watch.cond.notify_all()
                for group in watch.groups:
                    group.notify_all()

    # -- the watcher ------------------------------------------------------------------
    def _ensure_watcher(self) -> None:
        if self._pid == os.getpid():
            return
        with self._lock:
            if self._pid == os.getpid():
                return
            self._pid = os.getpid()  # a forked worker starts its own
            if self.source is None:  # the store's notifications (PostgreSQL), else a fixed interval
                self.source = self.store.append_source() or PollingSource(self.interval)
            threading.Thread(target=self._watch_forever, name="tilefold-waiters", daemon=True).start()

    def _watch_forever(self) -> None:
        position: Optional[int] = None
        while True:
            try:
                position = self._watch_once(position)
            except Exception:  # noqa: BLE001 - the watcher must outlive a storage hiccup
                log.exception("watching the store for appends failed")
                position = None
                time.sleep(self.interval)

    def _watch_once(self, position: Optional[int]) -> Optional[int]:
        """Wait for appends, then wake the waiters of every stream that moved; the new position."""
        notified = not isinstance(self.source, PollingSource)
        self.source.wait(max(self.interval, 1.0) if notified else self.interval)  # notified: 1 s safety net
        if not self._watches:
            return None  # nobody waits: no queries; a new waiter checks its stream itself
        if position is None:
            self.polls += 1
            return self.store.head_position()
        self.polls += 1
        position, changed = self.store.appended_since(position)
        for stream, version in changed.items():
            watch = self._watches.get(stream)
            if watch is not None:
                self._raise(stream, watch, version)
        return position


#: how often a wait looks whether its client is still connected (a closed tab frees its slot then)
DISCONNECT_CHECK = 1.0


def client_key(address: Optional[str]) -> str:
    """What the per-address cap counts: an IPv4 address as it is, an IPv6 client by its /64 network
    (one household or host is given a whole /64, and every address in it is the same client), an
    IPv4-mapped IPv6 address as its IPv4 address."""
    if not address:
        return "?"
    try:
        parsed = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return str(parsed)


def wait_over(hub: WaiterHub, environ: Mapping[str, Any]) -> bool:
    """Whether a wait that heard nothing ends now, before its time: the worker is stopping (its hub
    drains: answer with what it has, the client reconnects elsewhere) or its client left."""
    return hub.draining or client_gone(environ)


def client_gone(environ: Mapping[str, Any]) -> bool:
    """True when the client of this request has closed its connection (a closed tab, a lost
    network): its socket reads as ready with nothing to read. Unknown (no socket, TLS) is False."""
    sock = environ.get("gunicorn.socket") or environ.get("werkzeug.socket")
    if sock is None:
        return False
    try:
        ready, _, _ = select.select([sock], [], [], 0)
        return bool(ready) and sock.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return False


class Slot:
    """One open wait counted by WaitLimits (and by the `tilefold_waiters` gauge of its kind);
    release() once (idempotent)."""

    __slots__ = ("_limits", "_address", "_kind")

    def __init__(self, limits: "WaitLimits", address: str, kind: str) -> None:
        self._limits: Optional[WaitLimits] = limits
        self._address, self._kind = address, kind
        metrics.WAITERS.labels(kind).inc()

    def release(self) -> None:
        if self._limits is not None:
            self._limits._release(self._address)
            self._limits = None
            metrics.WAITERS.labels(self._kind).dec()


class WaitLimits:
    """Caps on open waits (long-polls and streams) in this worker: per client address and in all."""

    def __init__(self, per_address: int, total: int, retry_after: int = 5) -> None:
        self.per_address, self.total, self.retry_after = per_address, total, retry_after
        self._lock = threading.Lock()
        self._by_address: dict[str, int] = {}
        self._open = 0

    def acquire(self, address: Optional[str], kind: str) -> Slot:
        """A slot for one more wait of `kind` (view, chat, mine, stream) from `address`; 429 (that
        address) or 503 (everyone) beyond the caps."""
        address = client_key(address)
        with self._lock:
            mine = self._by_address.get(address, 0)
            if self.per_address > 0 and mine >= self.per_address:
                raise TooMany(
                    "too_many_waits",
                    f"at most {self.per_address} open streams and long-polls per client address "
                    "(an IPv6 client: per /64 network)",
                    retry_after=self.retry_after,
                )
            if self.total > 0 and self._open >= self.total:
                raise Busy(
                    "server_waits_full",
                    "the server holds as many open streams and long-polls as it allows",
                    retry_after=self.retry_after,
                )
            self._by_address[address] = mine + 1
            self._open += 1
        return Slot(self, address, kind)

    @property
    def open(self) -> int:
        return self._open

    def _release(self, address: str) -> None:
        with self._lock:
            self._open -= 1
            left = self._by_address.get(address, 1) - 1
            if left > 0:
                self._by_address[address] = left
            else:
                self._by_address.pop(address, None)


class SharedAnswers:
    """What many woken waiters of one match version would each compute alike (a viewer's SSE
    payload, a seat's private view), computed once and handed to all: a small LRU."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._items: "OrderedDict[tuple, Any]" = OrderedDict()
        self._lock = threading.Lock()

    def get_or_make(self, key: tuple, make: Any) -> Any:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
                return found
        made = make()  # outside the lock: two may make it at once, both right
        with self._lock:
            self._items[key] = made
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return made
