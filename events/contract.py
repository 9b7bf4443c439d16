"""The event store's contract: what both backends (EventStore on SQLite, PostgresEventStore) offer.

Callers hold an `EventStoreContract` and never probe a backend for a method: where the backends
differ (how a worker hears of another process's appends, how fast a cold load checks its rows),
the contract has one method that each answers in its own way. mypy checks that both backends
keep it (`events/__init__.py` returns them as this type); the one parametrised store suite
(tests/events/test_store.py over tests/backends.py) runs it on both. docs/STORE.md is its text.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Optional, Protocol, Sequence

from .chain import Problem
from .migrations import Plan, Steps
from .models import AppendResult, NewEvent, OutboxItem, StoredEvent

#: What `append` takes: NewEvent, or a mapping with "type" and "payload" (and "schema_version").
EventLike = Any
#: watch(callback): callback(stream, version) after each append this store hears of.
Watcher = Callable[[str, int], None]


class AppendSource(Protocol):
    """Tells a waiting worker that an append may have happened (any process, any node)."""

    def wait(self, timeout: float) -> None:
        """Return when an append may have happened, or at `timeout` seconds at the latest."""


class EventStoreContract(Protocol):
    """Hash-chained streams with optimistic concurrency and idempotent appends, a global feed,
    an outbox, snapshots, metadata, and the transactions service tables share with appends."""

    dialect: str  # "sqlite" | "postgresql": the SQL the service's own tables are written in

    @property
    def where(self) -> str:
        """The target, for messages (a file path, or a URL without its password)."""

    def migrate(self, *, online_only: bool = False, steps: Optional[Steps] = None) -> Plan: ...

    def schema_version(self) -> int: ...

    def check_schema(self) -> None:
        """Raise unless the schema is the one this code reads and writes."""

    def close(self) -> None: ...

    # -- writing ---------------------------------------------------------------------------------
    def append(
        self,
        stream: str,
        expected_version: int,
        events: Sequence[EventLike],
        idempotency_key: Optional[str] = None,
        *,
        request_fingerprint: Optional[str] = None,
        outbox: Optional[Iterable[Any]] = None,
        extra: Optional[Callable[[Any], None]] = None,
        own: Optional[int] = None,
    ) -> AppendResult:
        """Append after `expected_version` (ConcurrencyError if the stream moved), in one
        transaction with `outbox` items and `extra(conn)` (the service's own rows)."""

    def idempotent_result(
        self, idempotency_key: str, stream: Optional[str] = None, request_fingerprint: Optional[str] = None
    ) -> Optional[AppendResult]: ...

    def import_rows(self, stream: str, rows: Sequence[Mapping[str, Any]]) -> int:
        """Insert an exported stream's rows as they are (their hashes checked first)."""

    def write(self, fn: Callable[[Any], Any]) -> Any:
        """Run `fn(conn)` in one write transaction (the service's side tables)."""

    def query(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]: ...

    # -- reading ---------------------------------------------------------------------------------
    def read(
        self, stream: str, after: int = 0, limit: Optional[int] = None, types: Optional[Sequence[str]] = None
    ) -> list[StoredEvent]: ...

    def read_all(self, after_position: int = 0, limit: Optional[int] = None) -> list[StoredEvent]: ...

    def current_version(self, stream: str) -> int: ...

    def head_position(self) -> int: ...

    def streams(self) -> list[str]: ...

    def streams_newest_first(self, prefix: str, before: Optional[str] = None, limit: int = 100) -> list[str]: ...

    def export_rows(self, stream: Optional[str] = None) -> list[dict[str, Any]]: ...

    def feed_rows(self, after_position: int = 0, limit: int = 1000) -> list[dict[str, Any]]: ...

    # -- integrity -------------------------------------------------------------------------------
    def verify_stream(self, stream: str) -> list[Problem]:
        """Every integrity problem of one stream (edited, dropped, reordered or truncated rows)."""

    def chain_problem(self, stream: str, after: int = 0) -> Optional[str]:
        """The first integrity problem of the stream's rows after version `after` (a snapshot's),
        as text, or None: the check of a cold load."""

    # -- hearing of appends ----------------------------------------------------------------------
    def appended_since(self, position: int) -> tuple[int, dict[str, int]]:
        """(the feed's head, stream -> version of each stream appended to after `position`)."""

    def append_source(self) -> Optional[AppendSource]:
        """What tells of another process's appends (PostgreSQL: LISTEN/NOTIFY), or None: poll."""

    def watch(self, callback: Watcher) -> Callable[[], None]:
        """Call `callback(stream, version)` after each append this store hears of; returns unwatch."""

    # -- snapshots, outbox, metadata ---------------------------------------------------------------
    def save_snapshot(self, stream: str, version: int, key: str, data: bytes, keep: bool = True) -> None: ...

    def load_snapshot(
        self, stream: str, key: str, max_version: Optional[int] = None
    ) -> Optional[tuple[int, bytes]]: ...

    def outbox_pending(self, now: Any = None, limit: int = 100) -> list[OutboxItem]: ...

    def outbox_claim(self, item_id: int, now: Any, until: Any) -> bool: ...

    def outbox_claim_due(self, now: Any, until: Any, limit: int = 50) -> list[OutboxItem]: ...

    def outbox_release(self, item_id: int) -> None: ...

    def outbox_mark_delivered(self, item_id: int, delivered_at: Any = None) -> None: ...

    def outbox_mark_failed(self, item_id: int, next_attempt_at: Any) -> None: ...

    def meta_get(self, key: str, default: Any = None) -> Any: ...

    def meta_set(self, key: str, value: Any) -> None: ...


__all__ = ["AppendSource", "EventStoreContract", "NewEvent", "Watcher"]
