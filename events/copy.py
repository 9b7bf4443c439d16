"""Copy every stream from one store to another (SQLite ↔ PostgreSQL), verify, resume.

The source's global feed is read page by page in position order and each run of rows of one
stream and one recorded_at (one original append) is appended to the destination with its own
recorded_at and hashes (`import_rows`), so every chain is the same chain and the destination's
feed keeps the source's order (positions are the destination's own). Rows at or below a
destination stream's head are skipped: a copy that was interrupted is resumed by running it
again. Then every destination stream is verified and compared with the source's head.
Idempotency keys and meta values are copied too (the key's stored result names source positions).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from .chain import Problem

PAGE = 1000
#: the store's own side tables copied with the events (service tables are the service's business)
SIDE_TABLES = {
    "idempotency": (("key",), ("key", "stream", "request_hash", "result", "created_at")),
    "meta": (("key",), ("key", "value")),
}


@dataclass
class CopyReport:
    streams: int = 0
    rows_read: int = 0
    rows_written: int = 0
    side_rows: int = 0
    problems: list[Problem] = field(default_factory=list)
    mismatched: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and not self.mismatched


def copy_store(
    source: Any,
    destination: Any,
    *,
    page: int = PAGE,
    progress: Optional[Callable[[CopyReport], None]] = None,
    tables: Optional[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = None,
) -> CopyReport:
    """Copy all of `source` into `destination` (both open stores, destination initialised);
    `tables` adds other tables to copy as {name: (key columns, columns)} (rows whose key exists are kept)."""
    report = CopyReport()
    heads = {stream: destination.current_version(stream) for stream in destination.streams()}
    after = 0
    while True:
        rows = source.feed_rows(after, page)
        if not rows:
            break
        report.rows_read += len(rows)
        for stream, run in _runs(rows):
            todo = [r for r in run if r["version"] > heads.get(stream, 0)]
            if todo:
                report.rows_written += destination.import_rows(stream, todo)
                heads[stream] = todo[-1]["version"]
        after = rows[-1]["position"]
        if progress is not None:
            progress(report)
    report.side_rows = _copy_side_tables(source, destination, {**SIDE_TABLES, **(tables or {})})
    _verify(source, destination, report)
    return report


def _runs(rows: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Consecutive rows of one stream, in feed order."""
    out: list[tuple[str, list[dict[str, Any]]]] = []
    for row in rows:
        if out and out[-1][0] == row["stream"]:
            out[-1][1].append(row)
        else:
            out.append((row["stream"], [row]))
    return out


def _copy_side_tables(source: Any, destination: Any, tables: dict[str, Any]) -> int:
    copied = 0
    for table, (keys, columns) in tables.items():
        names = ", ".join(columns)
        try:
            rows = source.query(f"SELECT {names} FROM {table}")
        except Exception:  # noqa: BLE001 - a table the source never had: nothing to copy
            continue
        marks = ", ".join("?" * len(columns))
        sql = f"INSERT INTO {table} ({names}) VALUES ({marks}) ON CONFLICT ({', '.join(keys)}) DO NOTHING"

        def write(conn: Any, rows: list[tuple[Any, ...]] = rows, sql: str = sql) -> None:
            for row in rows:
                conn.execute(sql, list(row))

        if rows:
            destination.write(write)
            copied += len(rows)
    return copied


def _verify(source: Any, destination: Any, report: CopyReport) -> None:
    source_streams = source.streams()
    report.streams = len(source_streams)
    for stream in source_streams:
        report.problems += destination.verify_stream(stream)
        want, got = source.export_rows(stream)[-1:], destination.export_rows(stream)[-1:]
        if [(r["version"], r["hash"]) for r in want] != [(r["version"], r["hash"]) for r in got]:
            report.mismatched.append(stream)
