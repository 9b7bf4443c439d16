"""Move deadlines: when each pending decision started and is due, kept in `tf_decisions`.

A decision starts when its seat becomes pending: after an append, a seat is pending and either
was not pending before it or acted in it (its own engine event). The start is the injected
clock's time at that append, written in the same transaction as the events, so it is
deterministic and survives restarts; a decision still pending keeps its start.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Optional

import engine

from .clock import later


def new_decisions(before_state: Any, after_state: Any, engine_events: Iterable[dict]) -> tuple[list[int], list[int]]:
    """(seats pending after the events, those whose decision is new)."""
    before = set(engine.pending_seats(before_state)) if before_state is not None else set()
    after = engine.pending_seats(after_state)
    actors = {event.get("seat") for event in engine_events}
    return after, [seat for seat in after if seat not in before or seat in actors]


class Decisions:
    """Reads and writes the `tf_decisions` rows (events/side_tables.py) through the event store."""

    def __init__(self, store: Any) -> None:
        self.store = store

    @staticmethod
    def writer(
        stream: str, pending: list[int], new: list[int], now: str, seconds: dict[int, Optional[int]], version: int
    ) -> Callable[[Any], None]:
        """`write(conn)` for the append: rows for exactly the seats pending after it; a new decision
        is due `seconds[seat]` from now (None: no limit)."""

        def write(conn: Any) -> None:
            if pending:
                marks = ",".join("?" * len(pending))
                conn.execute(f"DELETE FROM tf_decisions WHERE stream = ? AND seat NOT IN ({marks})", [stream, *pending])
            else:
                conn.execute("DELETE FROM tf_decisions WHERE stream = ?", [stream])
            for seat in pending:
                limit = seconds.get(seat)
                due = later(now, limit) if limit else None
                if seat in new:
                    conn.execute(
                        "INSERT INTO tf_decisions (stream, seat, since, due_at, version) "
                        "VALUES (?, ?, ?, ?, ?) ON CONFLICT(stream, seat) DO UPDATE SET "
                        "since = excluded.since, due_at = excluded.due_at, version = excluded.version",
                        [stream, seat, now, due, version],
                    )
                else:  # the same decision, still pending: keep its start
                    conn.execute(
                        "INSERT INTO tf_decisions (stream, seat, since, due_at, version) "
                        "VALUES (?, ?, ?, ?, ?) ON CONFLICT(stream, seat) DO UPDATE SET "
                        "version = excluded.version",
                        [stream, seat, now, due, version],
                    )

        return write

    def rows(self, stream: str) -> list[dict]:
        sql = "SELECT seat, since, due_at, version FROM tf_decisions WHERE stream = ? ORDER BY seat"
        return [dict(zip(("seat", "since", "due_at", "version"), row)) for row in self.store.query(sql, [stream])]

    def overdue(self, stream: str, version: int, now: str) -> list[int]:
        """Seats whose decision, as of `version`, was due at `now` or earlier."""
        sql = (
            "SELECT seat FROM tf_decisions WHERE stream = ? AND version = ? AND due_at IS NOT NULL "
            "AND due_at <= ? ORDER BY seat"
        )
        return [r[0] for r in self.store.query(sql, [stream, version, now])]

    def any_overdue(self, stream: str, now: str) -> bool:
        sql = "SELECT 1 FROM tf_decisions WHERE stream = ? AND due_at IS NOT NULL AND due_at <= ? LIMIT 1"
        return bool(self.store.query(sql, [stream, now]))

    def due_streams(self, now: str) -> list[str]:
        sql = "SELECT DISTINCT stream FROM tf_decisions WHERE due_at IS NOT NULL AND due_at <= ? ORDER BY stream"
        return [r[0] for r in self.store.query(sql, [now])]

    def for_view(self, stream: str, pending: Iterable[int]) -> list[dict]:
        """Each pending decision's start and deadline (ISO-8601 UTC; deadline null without a limit)."""
        wanted = set(pending)
        return [
            {"seat": r["seat"], "pending_since": r["since"], "deadline": r["due_at"]}
            for r in self.rows(stream)
            if r["seat"] in wanted
        ]
