"""DURABLE, the store's default: SQLite commits without fsync under its lock, then the WAL is fsynced
before the write returns (shared by concurrent commits); FULL and non-WAL files keep SQLite's own sync."""

import os
import sqlite3
import threading
import time

import pytest

import events.connection as connection_module
from events import EventStore, NewEvent, StorageUnavailable
from events.connection import Connections, WalSync
from events.registry import Registry


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "events.db")


def ev(n):
    return NewEvent("tile_drawn", {"n": n})


def rows_seen_by_another_connection(path):
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT count(*) FROM events").fetchone()[0]


class FsyncSpy:
    """Stands in for os.fdatasync: records which file was synced and what another reader saw then."""

    def __init__(self, path, fail=False, delay=0.0):
        self.path, self.fail, self.delay, self.calls = path, fail, delay, []

    def __call__(self, fd):
        synced = os.readlink(f"/proc/self/fd/{fd}")
        if synced != os.path.realpath(self.path + "-wal"):  # another test's lingering thread: not ours
            return
        self.calls.append((synced, rows_seen_by_another_connection(self.path), time.monotonic()))
        time.sleep(self.delay)
        if self.fail:
            raise OSError(5, "Input/output error")


def run_staggered(target, count):
    """`count` threads running `target`, started 10 ms apart (so later ones arrive mid-sync), joined."""
    threads = [threading.Thread(target=target) for _ in range(count)]
    for thread in threads:
        thread.start()
        time.sleep(0.01)
    for thread in threads:
        thread.join()


def test_durable_is_the_default_and_commits_with_normal(path):
    store = EventStore.initialise(path, registry=Registry())
    conn, _ = store._db.get()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL: no fsync under the write lock


@pytest.mark.parametrize("how", ["plain", "keyed"])  # one INSERT in autocommit / a BEGIN IMMEDIATE transaction
def test_every_write_fsyncs_the_wal_after_commit_before_returning(path, monkeypatch, how):
    store = EventStore.initialise(path, registry=Registry())
    spy = FsyncSpy(path)
    monkeypatch.setattr(connection_module.os, "fdatasync", spy)
    store.append("s", 0, [ev(1), ev(2)], **({"idempotency_key": "k"} if how == "keyed" else {}))
    assert len(spy.calls) == 1  # before append returned
    synced, seen, _ = spy.calls[0]
    assert synced == os.path.realpath(path + "-wal") and seen == 2  # committed (visible) first, then synced
    store.meta_set("x", 1)
    assert len(spy.calls) == 2


def test_a_failed_fsync_is_never_reported_as_success(path, monkeypatch):
    store = EventStore.initialise(path, registry=Registry())
    monkeypatch.setattr(connection_module.os, "fdatasync", FsyncSpy(path, fail=True))
    with pytest.raises(StorageUnavailable, match="could not be synced"):
        store.append("s", 0, [ev(1)])
    monkeypatch.setattr(connection_module.os, "fdatasync", FsyncSpy(path))
    # SQLite had committed: the event is there, and a retry on the old version is a conflict, not a double
    assert store.current_version("s") == 1
    store.append("s", 1, [ev(2)])
    assert [e.payload["n"] for e in store.read("s")] == [1, 2] and store.verify_stream("s") == []


def test_full_keeps_sqlites_own_sync_and_no_extra_fsync(path, monkeypatch):
    EventStore.initialise(path, registry=Registry()).close()
    store = EventStore(path, synchronous="FULL", registry=Registry())
    spy = FsyncSpy(path)
    monkeypatch.setattr(connection_module.os, "fdatasync", spy)
    store.append("s", 0, [ev(1)])
    conn, _ = store._db.get()
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2 and spy.calls == []


def test_durable_on_a_file_not_in_wal_mode_is_full(path, monkeypatch):
    sqlite3.connect(path).execute("CREATE TABLE t (x)").connection.close()
    spy = FsyncSpy(path)
    monkeypatch.setattr(connection_module.os, "fdatasync", spy)
    connections = Connections(path)
    connections.write(lambda conn, db: conn.execute("INSERT INTO t VALUES (1)"))
    conn, _ = connections.get()
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2 and spy.calls == []


def test_unknown_level_is_refused(path):
    with pytest.raises(ValueError, match="DURABLE"):
        Connections(path, synchronous="SOMETIMES")


def test_concurrent_commits_share_fsyncs_each_covered_by_one_that_started_after_it(path, monkeypatch):
    store = EventStore.initialise(path, registry=Registry())
    store.append("s", 0, [ev(1)])  # the store stays open, so SQLite keeps the WAL file
    spy = FsyncSpy(path, delay=0.05)
    monkeypatch.setattr(connection_module.os, "fdatasync", spy)
    syncer, spans = WalSync(path), []

    def commit_then_sync():
        called = time.monotonic()
        syncer.sync()
        spans.append((called, time.monotonic()))

    run_staggered(commit_then_sync, 8)
    starts = [started for _, _, started in spy.calls]
    assert len(spans) == 8 and len(starts) < 8 and store.current_version("s") == 1  # shared
    for called, returned in spans:
        assert any(called <= started and started + 0.05 <= returned + 1e-3 for started in starts)


def test_a_failed_shared_fsync_fails_every_waiter_that_relied_on_it(path, monkeypatch):
    store = EventStore.initialise(path, registry=Registry())
    store.append("s", 0, [ev(1)])
    monkeypatch.setattr(connection_module.os, "fdatasync", FsyncSpy(path, fail=True, delay=0.05))
    syncer, outcomes = WalSync(path), []

    def attempt():
        try:
            syncer.sync()
            outcomes.append("ok")
        except OSError:
            outcomes.append("failed")

    run_staggered(attempt, 4)
    assert outcomes == ["failed"] * 4 and store.current_version("s") == 1


def test_a_symlinked_database_fsyncs_the_wal_sqlite_writes(tmp_path, monkeypatch):
    """SQLite resolves a symlinked database path and keeps its WAL beside the real file; the fsync
    goes there too, also after the working directory changed (names come from SQLite, not the path given)."""
    (tmp_path / "real").mkdir()
    monkeypatch.chdir(tmp_path)
    os.symlink("real/events.db", "link.db")
    store = EventStore.initialise("link.db", registry=Registry())
    spy = FsyncSpy(str(tmp_path / "real" / "events.db"))
    monkeypatch.setattr(connection_module.os, "fdatasync", spy)
    store.append("s", 0, [ev(1)])
    monkeypatch.chdir("/")
    store.append("s", 1, [ev(2)])
    assert [seen for _, seen, _ in spy.calls] == [1, 2] and not os.path.exists(tmp_path / "link.db-wal")


def test_the_directory_is_synced_once_for_each_new_wal_file(path, monkeypatch):
    """A new file's name must reach the disk too: the WAL's directory is fsynced the first time a
    WAL file is synced, and again after SQLite deleted the WAL (last connection closed) and made a
    new one, which here even gets the old one's inode number (told apart by the WAL header's salt)."""
    directories = []
    real_fsync = os.fsync
    monkeypatch.setattr(
        connection_module.os,
        "fsync",
        lambda fd: directories.append(os.readlink(f"/proc/self/fd/{fd}")) or real_fsync(fd),
    )
    store = EventStore.initialise(path, registry=Registry())
    store.append("s", 0, [ev(1)])
    store.append("s", 1, [ev(2)])
    folder = os.path.dirname(os.path.realpath(path))
    assert directories.count(folder) == 1
    store.close()
    assert not os.path.exists(path + "-wal")  # the last connection closed: SQLite removed the WAL
    store.append("s", 2, [ev(3)])
    assert directories.count(folder) == 2 and store.current_version("s") == 3


def test_a_directory_that_cannot_be_synced_does_not_fail_writes(path, monkeypatch):
    """Like SQLite, a file system that refuses to fsync a directory (EINVAL) is not a storage fault;
    the WAL's own sync still decides."""
    real_fsync = os.fsync

    def refusing(fd):
        if os.path.isdir(os.readlink(f"/proc/self/fd/{fd}")):
            raise OSError(22, "Invalid argument")
        return real_fsync(fd)

    monkeypatch.setattr(connection_module.os, "fsync", refusing)
    store = EventStore.initialise(path, registry=Registry())
    store.append("s", 0, [ev(1)])
    assert store.current_version("s") == 1
