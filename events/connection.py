"""Per-thread, per-process SQLite connections: pragmas, BUSY retry and storage-fault mapping."""

from __future__ import annotations

import contextlib
import os
import random
import sqlite3
import sys
import threading
import time
from typing import Any, Callable, Optional

from sqlite_utils import Database

from .errors import StorageUnavailable

SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN = 8, 10, 13, 14
SQLITE_BUSY, SQLITE_LOCKED = 5, 6
FAULT_CODES = {
    SQLITE_READONLY: "the database is read-only",
    SQLITE_IOERR: "disk I/O error",
    SQLITE_FULL: "the disk (or the database's size limit) is full",
    SQLITE_CANTOPEN: "the database file cannot be opened",
}
FAULT_MESSAGES = {
    "readonly database": SQLITE_READONLY,
    "disk i/o error": SQLITE_IOERR,
    "database or disk is full": SQLITE_FULL,
    "unable to open database file": SQLITE_CANTOPEN,
}
BUSY_MESSAGES = ("database is locked", "database table is locked", "database is busy")
#: SQLite's own `synchronous` levels, and DURABLE (the default): on a WAL file, SQLite commits
#: with NORMAL (no fsync while it holds its write lock) and every write is followed by an fsync
#: of the WAL before it returns, so a write is on disk before anyone is told it succeeded
#: (docs/STORE.md, "Durability"); on a file not in WAL mode, DURABLE is FULL
SYNCHRONOUS_MODES = ("OFF", "NORMAL", "FULL", "EXTRA", "DURABLE")
DURABLE = "DURABLE"
MAX_ATTEMPTS = 12
WAL_HEADER_BYTES = 32  # magic, format, page size, checkpoint sequence, two salts, two checksums

# Connections inherited through fork(): SQLite forbids using (even closing) them in the
# child, so the child keeps a reference here and never lets them be garbage-collected.
_INHERITED: list[sqlite3.Connection] = []


def error_code(exc: BaseException) -> Optional[int]:
    """Primary SQLite result code of exc (from sqlite_errorcode or, failing that, the message)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return int(code) & 0xFF
    text = str(exc).lower()
    if any(m in text for m in BUSY_MESSAGES):
        return SQLITE_BUSY
    for message, fault in FAULT_MESSAGES.items():
        if message in text:
            return fault
    return None


def is_busy(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.Error) and error_code(exc) in (SQLITE_BUSY, SQLITE_LOCKED)


def is_fault(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.Error) and error_code(exc) in FAULT_CODES


def cooperative() -> bool:
    """True in a process whose threading gevent has monkey-patched (gunicorn's gevent worker):
    "threads" are then greenlets sharing one OS thread, and blocking calls must be handed off."""
    monkey = sys.modules.get("gevent.monkey")
    return bool(monkey is not None and monkey.is_module_patched("threading"))


def _thread_local_class() -> type:
    """threading.local per OS thread, even under gevent (whose patched one is per greenlet: that
    would open a connection for every request)."""
    if cooperative():
        from gevent import monkey

        original: type = monkey.get_original("threading", "local")
        return original
    return threading.local


def _transaction_lock() -> Any:
    """Under gevent, greenlets of one OS thread share its connection: one transaction at a time
    (a gevent lock, so a greenlet waiting for it lets the others run). Threads need none."""
    if cooperative():
        from gevent.lock import RLock

        return RLock()
    return contextlib.nullcontext()


def offload(fn: Callable[[], Any]) -> Any:
    """Run a blocking system call (an fsync): under gevent on a real thread of gevent's pool, so the
    other greenlets go on meanwhile (and join the group sync); the caller still waits for it."""
    if cooperative():
        import gevent

        return gevent.get_hub().threadpool.apply(fn)
    return fn()


def cooperate_psycopg() -> None:
    """Under gevent, make psycopg wait through the patched `select` even when it was imported
    before the monkey patching (`tilefold serve` opens a PostgreSQL store in gunicorn's master,
    before the workers patch): psycopg picks its C wait function at import, which would block
    every greenlet of the worker while one waits for the server."""
    waiting = sys.modules.get("psycopg.waiting")
    if waiting is not None and cooperative() and getattr(waiting, "wait", None) is getattr(waiting, "wait_c", None):
        setattr(waiting, "wait", waiting.wait_select)  # noqa: B010 - psycopg's module attribute, set as psycopg documents


def backoff(attempt: int) -> None:
    """Sleep a small jittered, exponentially growing delay (at most ~0.2 s)."""
    time.sleep(random.uniform(0.001, min(0.2, 0.005 * 2**attempt)))


class Connections:
    """Hands out one connection per (thread, pid) and runs transactions on it."""

    def __init__(
        self,
        path: str,
        *,
        synchronous: str = DURABLE,
        busy_timeout_ms: int = 30_000,
        on_connect: Optional[Callable[[sqlite3.Connection], None]] = None,
    ) -> None:
        if synchronous.upper() not in SYNCHRONOUS_MODES:
            raise ValueError(f"synchronous must be one of {SYNCHRONOUS_MODES}, got {synchronous!r}")
        self.path = str(path)
        self.synchronous = synchronous.upper()
        self.busy_timeout_ms = int(busy_timeout_ms)
        self.on_connect = on_connect
        self._local = _thread_local_class()()

    # -- connection lifecycle -------------------------------------------------
    def get(self) -> tuple[sqlite3.Connection, Database]:
        """This thread's connection in this process, opening a fresh one when needed."""
        local = self._local
        conn = getattr(local, "conn", None)
        if conn is not None and local.pid != os.getpid():
            _INHERITED.append(conn)  # opened by the parent before fork: never touch it
            conn = local.conn = None
        if conn is None:
            conn, database_file = self._open()
            local.conn, local.db, local.pid = (
                conn,
                Database(conn, recursive_triggers=False, execute_plugins=False),
                os.getpid(),
            )
            local.fsync_after = database_file
            local.lock = _transaction_lock()
        return conn, local.db

    def _open(self) -> tuple[sqlite3.Connection, Optional[str]]:
        """A new connection with the pragmas set, and the database file as SQLite names it (symlinks
        resolved; its WAL is that name + "-wal") when writes on it must fsync the WAL after, else None."""
        conn = None
        try:
            conn = sqlite3.connect(self.path, timeout=self.busy_timeout_ms / 1000, isolation_level=None)
            conn.execute(f"PRAGMA busy_timeout = {self.busy_timeout_ms}")
            sync_wal = self.synchronous == DURABLE and _in_wal_mode(conn)
            level = "NORMAL" if sync_wal else "FULL" if self.synchronous == DURABLE else self.synchronous
            conn.execute(f"PRAGMA synchronous = {level}")
            database_file = conn.execute("PRAGMA database_list").fetchone()[2] if sync_wal else None
            conn.execute("PRAGMA foreign_keys = ON")
            if self.on_connect is not None:
                self.on_connect(conn)
            return conn, database_file or None
        except sqlite3.Error as exc:
            if conn is not None:
                conn.close()
            raise _unavailable(exc) from exc

    def discard(self) -> None:
        """Close and forget this thread's connection (no-op if none, or if inherited via fork)."""
        local = self._local
        conn = getattr(local, "conn", None)
        local.conn = None
        if conn is None:
            return
        if local.pid != os.getpid():
            _INHERITED.append(conn)
            return
        try:
            conn.close()
        except sqlite3.Error:
            pass

    # -- transactions ---------------------------------------------------------
    def write(self, fn: Callable[[sqlite3.Connection, Database], Any], *, durable: bool = True) -> Any:
        """Run fn inside BEGIN IMMEDIATE ... COMMIT, retrying on SQLITE_BUSY; durable when it returns
        (`durable=False`: derived data, on disk with the next durable write or checkpoint)."""
        result = self._transaction("BEGIN IMMEDIATE", fn)
        if durable:
            self._sync_wal()
        return result

    def read(self, fn: Callable[[sqlite3.Connection, Database], Any]) -> Any:
        """Run fn inside a deferred (snapshot) read transaction, retrying on SQLITE_BUSY."""
        return self._transaction("BEGIN", fn)

    def query(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        """The rows of ONE statement run on its own (autocommit: one consistent snapshot), retrying on BUSY.

        No BEGIN/COMMIT around it: a single statement is already atomic; use read() for several.
        """
        rows: list[tuple[Any, ...]] = self._transaction(None, lambda conn, db: conn.execute(sql, params).fetchall())
        return rows

    def execute_alone(self, sql: str, params: Any = ()) -> tuple[int, int]:
        """Run ONE writing statement on its own (autocommit: atomic and durable), retrying on BUSY;
        (its lastrowid, the rows it changed). Nothing changed: nothing to sync."""

        def run(conn: sqlite3.Connection, db: Database) -> tuple[int, int]:
            cursor = conn.execute(sql, params)
            return cursor.lastrowid or 0, cursor.rowcount

        last, count = self._transaction(None, run)
        if count:
            self._sync_wal()
        return last, count

    def _sync_wal(self) -> None:
        """DURABLE on a WAL file: fsync the WAL now that SQLite has committed (and let go of its lock).

        An fsync covers this commit and every one before it in the WAL, so threads that commit
        while one is under way share the next (WalSync). A failed fsync is a storage fault: the
        caller is told the write is not known to be durable (StorageUnavailable), never that it
        succeeded.
        """
        database_file = getattr(self._local, "fsync_after", None)
        if not database_file:
            return
        try:
            WalSync.of(database_file).sync()
        except OSError as exc:
            self.discard()
            raise StorageUnavailable(
                f"event storage unavailable: the write-ahead log could not be synced "
                f"to disk ({type(exc).__name__}: {exc})"
            ) from exc

    def _transaction(self, begin: Optional[str], fn: Callable[[sqlite3.Connection, Database], Any]) -> Any:
        for attempt in range(MAX_ATTEMPTS):
            conn, db = self.get()
            try:
                with self._local.lock:
                    return self._run(conn, db, begin, fn)
            except BaseException as exc:
                if is_busy(exc) and attempt + 1 < MAX_ATTEMPTS:
                    backoff(attempt)
                    continue
                if is_fault(exc) or is_busy(exc):
                    self.discard()
                    raise _unavailable(exc) from exc
                raise
        raise AssertionError("unreachable")

    def _run(
        self,
        conn: sqlite3.Connection,
        db: Database,
        begin: Optional[str],
        fn: Callable[[sqlite3.Connection, Database], Any],
    ) -> Any:
        """One attempt: fn inside `begin` ... COMMIT (or alone), rolled back when it fails."""
        try:
            if begin is None:
                return fn(conn, db)
            conn.execute(begin)
            result = fn(conn, db)
            conn.execute("COMMIT")
            return result
        except BaseException:
            self._rollback(conn)
            raise

    def _rollback(self, conn: sqlite3.Connection) -> None:
        try:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        except sqlite3.Error:
            self.discard()


class WalSync:
    """Group sync of one database's WAL within a process: a commit waits for an fsync that
    *started after it*, joining the next one rather than queueing an fsync of its own.

    Syncs are numbered as they start. A thread arriving takes ticket = started + 1 (the next sync
    to start, which begins after its commit); it is done once a sync numbered >= ticket has
    succeeded. A failed sync advances nothing, so every waiter then tries (and fails) itself.
    The WAL is opened by name each time: a WAL that SQLite deleted and made anew is the one synced.
    """

    _by_path: dict[tuple[int, str], "WalSync"] = {}
    _registry_lock = threading.Lock()

    def __init__(self, path: str) -> None:
        self.wal = path + "-wal"
        self._cond = threading.Condition()
        self._started = self._done = 0
        self._running = False
        self._directory_synced_for: Optional[tuple[int, int, bytes]] = None  # (device, inode, header) of that WAL

    @classmethod
    def of(cls, path: str) -> "WalSync":
        """The syncer of this database file (its full name, as SQLite gives it) in this process (a
        forked child gets its own)."""
        key = (os.getpid(), path)
        found = cls._by_path.get(key)
        if found is None:
            with cls._registry_lock:
                found = cls._by_path.setdefault(key, cls(path))
        return found

    def sync(self) -> None:
        with self._cond:
            ticket = self._started + 1
            while self._running and self._done < ticket:
                self._cond.wait()
            if self._done >= ticket:
                return
            self._running, self._started = True, self._started + 1
            mine = self._started
        synced = False
        try:
            offload(self._sync_files)
            synced = True
        finally:
            with self._cond:
                self._running = False
                if synced:
                    self._done = mine
                self._cond.notify_all()

    def _sync_files(self) -> None:
        """fdatasync the WAL (what SQLite's own FULL calls: data and size, not times). When the WAL
        is a new file, also fsync its directory, so that the file's name is on disk too (SQLite
        does the same once for a WAL it creates under FULL).

        "New" is told by the WAL header, whose salt SQLite draws afresh for every new WAL file (and
        every restart of one): an inode number alone can be reused at once by the next file.
        A restart only costs a spare directory fsync (about 50 µs, every thousand pages or so).
        """
        handle = os.open(self.wal, os.O_RDONLY)
        try:
            getattr(os, "fdatasync", os.fsync)(handle)  # macOS has no fdatasync
            status = os.fstat(handle)
            identity = (status.st_dev, status.st_ino, os.pread(handle, WAL_HEADER_BYTES, 0))
        finally:
            os.close(handle)
        if identity != self._directory_synced_for:
            _sync_directory(os.path.dirname(self.wal) or ".")
            self._directory_synced_for = identity


def _sync_directory(path: str) -> None:
    """fsync a directory, as SQLite does after creating a WAL: best effort, like SQLite, which
    goes on when a file system cannot open or sync a directory (some refuse with EINVAL)."""
    try:
        directory = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(directory)
    except OSError:
        pass
    finally:
        os.close(directory)


def _in_wal_mode(conn: sqlite3.Connection) -> bool:
    return str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal"


def _unavailable(exc: BaseException) -> StorageUnavailable:
    code = error_code(exc)
    if code in (SQLITE_BUSY, SQLITE_LOCKED):  # SQLite's own text says "locked": keep it out
        return StorageUnavailable(f"event storage unavailable: still busy after {MAX_ATTEMPTS} attempts")
    reason = (
        FAULT_CODES.get(code, "SQLite could not open or use the database")
        if code is not None
        else ("SQLite could not open or use the database")
    )
    return StorageUnavailable(f"event storage unavailable: {reason} ({type(exc).__name__}: {exc})")
