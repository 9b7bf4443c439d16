"""Copy every stream from one store to another (SQLite ↔ PostgreSQL), verify, resume.

Before anything is written, the destination is compared with the source (`differences`): every
destination stream must be the source's chain up to the destination's head (same version, same
hash there), and a destination that holds streams the source lacks, or is ahead of it, is
refused (`CopyRefused`: the arguments swapped, an unrelated database, or a destination that took
writes of its own). A refused copy writes nothing.

Then the source's global feed is read page by page in position order and each run of rows of one
stream and one recorded_at (one original append) is appended to the destination with its own
recorded_at and hashes (`import_rows`, which checks that the first row chains from the
destination's head), so every chain is the same chain and the destination's feed keeps the
source's order (positions are the destination's own). Rows at or below a destination stream's
head are skipped: a copy that was interrupted is resumed by running it again.

Side tables follow the events: idempotency keys and meta values (rows whose key exists are kept),
pending outbox notices (each once: a notice already in the destination is not added again), and
the tables a caller names (`SideTable`); a `per_stream` table describes each stream as of its
head, so the source's rows replace the destination's for every stream copied (a stale row would
describe a version that is no longer the head). When the source took writes during the copy, the
copy goes round again (`rounds`); a source still moving after that is reported (`source_moved`).
Then every destination stream is verified and compared with the source's head.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Optional, Sequence

from .chain import Problem
from .errors import EventStoreError

PAGE = 1000
ROUNDS = 3
SHOWN = 10  # differences listed in a refusal (the count says how many more)


@dataclass(frozen=True)
class SideTable:
    """A table copied beside the events: rows whose `keys` exist are kept, unless `per_stream`
    (the rows describe their `stream` as of its head: the source's replace the destination's)."""

    name: str
    keys: tuple[str, ...]
    columns: tuple[str, ...]
    per_stream: bool = False


#: the store's own side tables copied with the events (service tables are the service's business)
STORE_TABLES = (
    SideTable("idempotency", ("key",), ("key", "stream", "request_hash", "result", "created_at")),
    SideTable("meta", ("key",), ("key", "value")),
)
OUTBOX_COLUMNS = ("stream", "created_at", "payload", "attempts", "next_attempt_at")


class CopyRefused(EventStoreError):
    """The destination's history differs from the source's (or is not empty when it must be):
    nothing was written."""

    def __init__(self, reason: str, differences: Sequence[str] = ()) -> None:
        self.reason, self.differences = reason, list(differences)
        shown = [f"  {line}" for line in self.differences[:SHOWN]]
        if len(self.differences) > SHOWN:
            shown.append(f"  … and {len(self.differences) - SHOWN} more")
        super().__init__("\n".join([reason, *shown]))


@dataclass
class CopyReport:
    streams: int = 0
    rows_read: int = 0
    rows_written: int = 0
    side_rows: int = 0
    notices: int = 0
    rounds: int = 0
    source_moved: bool = False
    problems: list[Problem] = field(default_factory=list)
    mismatched: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and not self.mismatched and not self.source_moved


def heads(store: Any) -> dict[str, tuple[int, str]]:
    """{stream: (version, hash)} of every stream's head."""
    return {row[0]: (int(row[1]), row[2]) for row in store.query("SELECT stream, version, hash FROM stream_heads")}


def differences(source: Any, destination: Any, *, empty: bool = False) -> list[str]:
    """What keeps `destination` from being continued from `source` (nothing = it holds a prefix
    of the source's history: every stream at a version the source has, with the same hash there);
    with `empty`, any event in the destination is a difference."""
    mine, theirs = heads(source), heads(destination)
    if empty and theirs:
        events = sum(version for version, _ in theirs.values())
        return [f"the destination is not empty: {len(theirs)} streams, {events} events"]
    if not mine and theirs:
        return [
            f"the source holds no events but the destination holds {len(theirs)} streams "
            "(are SOURCE and DESTINATION swapped?)"
        ]
    out = []
    for stream, (version, digest) in sorted(theirs.items()):
        have = mine.get(stream)
        if have is None:
            out.append(f"{stream}: only in the destination (v{version}); the source never had it")
        elif have[0] < version:
            out.append(
                f"{stream}: the destination is at v{version}, the source only at v{have[0]} "
                "(the destination is newer: are SOURCE and DESTINATION swapped, or did it take writes?)"
            )
        else:
            at = digest == have[1] if have[0] == version else digest == _hash_at(source, stream, version)
            if not at:
                out.append(
                    f"{stream}: v{version} differs (destination {digest[:12]}…, source "
                    f"{(_hash_at(source, stream, version) or '?')[:12]}…): the two histories diverged; "
                    "the destination took writes the source does not have"
                )
    return out


def _hash_at(store: Any, stream: str, version: int) -> Optional[str]:
    rows = store.query("SELECT hash FROM events WHERE stream = ? AND version = ?", [stream, int(version)])
    return rows[0][0] if rows else None


def newest_age(store: Any, now: Optional[datetime] = None) -> Optional[float]:
    """Seconds since the store's newest event was recorded (None when it has none)."""
    rows = store.query("SELECT recorded_at FROM events ORDER BY position DESC LIMIT 1")
    if not rows:
        return None
    try:
        recorded = datetime.strptime(rows[0][0], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    except ValueError:  # a timestamp in another spelling (an imported log): age unknown
        return None
    return ((now or datetime.now(timezone.utc)) - recorded).total_seconds()


def copy_store(
    source: Any,
    destination: Any,
    *,
    page: int = PAGE,
    progress: Optional[Callable[[CopyReport], None]] = None,
    tables: Sequence[SideTable] = (),
    empty: bool = False,
    rounds: int = ROUNDS,
) -> CopyReport:
    """Copy all of `source` into `destination` (both open stores, destination initialised);
    `tables` adds other tables to copy; `empty` refuses a destination holding any event.
    CopyRefused (nothing written) when the destination's history is not a prefix of the source's."""
    found = differences(source, destination, empty=empty)
    if found:
        reason = "the destination must be empty" if empty else "the destination's history differs from the source's"
        raise CopyRefused(f"refused, nothing written: {reason} ({len(found)} differences):", found)
    report = CopyReport()
    known = {stream: version for stream, (version, _) in heads(destination).items()}
    after = 0
    for _ in range(max(1, rounds)):
        report.rounds += 1
        after = _copy_feed(source, destination, report, known, after, page, progress)
        report.side_rows = _copy_side_tables(source, destination, [*STORE_TABLES, *tables])
        report.notices += _copy_notices(source, destination)
        report.source_moved = bool(source.feed_rows(after, 1))
        if not report.source_moved:
            break
    _verify(source, destination, report)
    return report


def _copy_feed(
    source: Any,
    destination: Any,
    report: CopyReport,
    known: dict[str, int],
    after: int,
    page: int,
    progress: Optional[Callable[[CopyReport], None]],
) -> int:
    """Copy the feed after `after` up to the source's newest position as the round starts (what
    is written meanwhile is the next round's: a source written faster than it is read still ends
    a round). Returns the last position copied."""
    target = source.query("SELECT max(position) FROM events")[0][0] or 0
    while after < target:
        rows = source.feed_rows(after, page)
        if not rows:
            return after
        report.rows_read += len(rows)
        for stream, run in _runs(rows):
            todo = [r for r in run if r["version"] > known.get(stream, 0)]
            if todo:
                report.rows_written += destination.import_rows(stream, todo)
                known[stream] = todo[-1]["version"]
        after = rows[-1]["position"]
        if progress is not None:
            progress(report)
    return after


def _runs(rows: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Consecutive rows of one stream, in feed order."""
    out: list[tuple[str, list[dict[str, Any]]]] = []
    for row in rows:
        if out and out[-1][0] == row["stream"]:
            out[-1][1].append(row)
        else:
            out.append((row["stream"], [row]))
    return out


def _copy_side_tables(source: Any, destination: Any, tables: Sequence[SideTable]) -> int:
    copied, streams = 0, set(heads(source))
    for table in tables:
        try:
            rows = source.query(f"SELECT {', '.join(table.columns)} FROM {table.name}")
        except Exception:  # noqa: BLE001 - a table the source never had: nothing to copy
            continue
        if rows or table.per_stream:
            destination.write(_side_writer(table, rows, streams))
        copied += len(rows)
    return copied


def _side_writer(table: SideTable, rows: list[tuple[Any, ...]], streams: set[str]) -> Callable[[Any], None]:
    """The destination transaction that writes `rows` of `table` (per stream: in place of the
    destination's rows of every copied stream; else beside them, existing keys kept)."""
    marks = ", ".join("?" * len(table.columns))
    insert = f"INSERT INTO {table.name} ({', '.join(table.columns)}) VALUES ({marks})"
    if not table.per_stream:
        insert += f" ON CONFLICT ({', '.join(table.keys)}) DO NOTHING"

    def write(conn: Any) -> None:
        if table.per_stream:
            at = table.columns.index("stream")
            for stream in sorted(streams):
                conn.execute(f"DELETE FROM {table.name} WHERE stream = ?", [stream])
            rows[:] = [row for row in rows if row[at] in streams]
        for row in rows:
            conn.execute(insert, list(row))

    return write


def _copy_notices(source: Any, destination: Any) -> int:
    """Add the source's undelivered outbox notices the destination lacks (same stream and payload),
    unclaimed: the destination's nodes deliver them (receivers dedupe a notice sent twice)."""
    names = ", ".join(OUTBOX_COLUMNS)
    rows = source.query(f"SELECT {names} FROM outbox WHERE delivered_at IS NULL ORDER BY id")
    have = {(row[0], row[1]) for row in destination.query("SELECT stream, payload FROM outbox")}
    todo = [row for row in rows if (row[0], row[2]) not in have]
    if todo:
        marks = ", ".join("?" * len(OUTBOX_COLUMNS))

        def add(conn: Any) -> None:
            for row in todo:
                conn.execute(f"INSERT INTO outbox ({names}) VALUES ({marks})", list(row))

        destination.write(add)
    return len(todo)


def _verify(source: Any, destination: Any, report: CopyReport) -> None:
    """Every destination chain verifies and ends at the source's head (while the source moved: at
    a version of the source's chain)."""
    mine, theirs = heads(source), heads(destination)
    report.streams = len(mine)
    for stream in sorted(theirs):
        report.problems += destination.verify_stream(stream)
    if report.source_moved:
        report.mismatched += [line.partition(":")[0] for line in differences(source, destination)]
    else:
        report.mismatched += [stream for stream, head in sorted(mine.items()) if theirs.get(stream) != head]


@dataclass
class BackupReport:
    streams: int = 0
    events: int = 0
    problems: list[Problem] = field(default_factory=list)
    mismatched: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and not self.mismatched


def backup_store(store: Any, path: str, *, tables: Sequence[SideTable] = ()) -> BackupReport:
    """A consistent online copy of `store` in a new SQLite file at `path` (never overwritten),
    verified: every chain of the copy, and (PostgreSQL) every head against the snapshot it was
    read from. SQLite: the online backup API (the file as of one moment, page by page).
    PostgreSQL: one REPEATABLE READ transaction read through `copy_store` (events, idempotency,
    meta, pending notices and `tables`; snapshots are derived data and are not carried).
    `tilefold restore` brings the file into an empty database (`copy_store(..., empty=True)`)."""
    from .catalogue import Catalogue
    from .store import EventStore

    report = BackupReport()
    if store.dialect == "sqlite":
        store.backup_to(path)
        copy = EventStore(path, registry=Catalogue())
    else:
        if os.path.exists(path):
            raise FileExistsError(f"{path} exists: a backup never overwrites a file")
        copy = EventStore.initialise(path, registry=Catalogue())
        with store.snapshot() as snapshot:
            copied = copy_store(snapshot, copy, tables=tables, empty=True, rounds=1)
        report.mismatched = copied.mismatched
    try:
        found = heads(copy)
        report.streams, report.events = len(found), sum(version for version, _ in found.values())
        for stream in sorted(found):
            report.problems += copy.verify_stream(stream)
    finally:
        copy.close()
    return report
