"""Tilefold's event store: hash-chained streams, idempotent appends, outbox, upcasters.

Two backends behind one contract: EventStore (one SQLite file, the embedded default) and
PostgresEventStore (one PostgreSQL database shared by several service nodes). `open_store` and
`initialise_store` pick one from the target: a postgresql:// URL, else a SQLite path.
"""

from typing import Any, Union

from .chain import Problem, canonical_json, compute_hash, verify_chain
from .errors import (
    ChainMismatch,
    ConcurrencyError,
    EventStoreError,
    ForgedSnapshot,
    IdempotencyMismatch,
    StorageUnavailable,
    UpcastError,
)
from .migrations import MigrationNeeded, SchemaError, SchemaTooNew
from .models import AppendResult, NewEvent, OutboxItem, StoredEvent
from .postgres import PostgresEventStore, is_postgres_url
from .registry import Registry, default_registry
from .connection import cooperate_psycopg
from .store import EventStore


def open_store(target: str, **options: Any) -> Union[EventStore, PostgresEventStore]:
    """A store on `target` (postgresql://... → PostgresEventStore, anything else → SQLite file)."""
    return (PostgresEventStore if is_postgres_url(target) else EventStore)(target, **options)


def initialise_store(target: str, **options: Any) -> Union[EventStore, PostgresEventStore]:
    """open_store after bringing the schema to this code's version (events/migrations.py; each
    migration once, under a lock: racing nodes are safe). `online_only=True` (a node starting):
    MigrationNeeded instead of a migration that changes tables running nodes use."""
    return (PostgresEventStore if is_postgres_url(target) else EventStore).initialise(target, **options)


__all__ = [
    "ChainMismatch",
    "MigrationNeeded",
    "SchemaError",
    "SchemaTooNew",
    "cooperate_psycopg",
    "AppendResult",
    "ConcurrencyError",
    "EventStore",
    "EventStoreError",
    "ForgedSnapshot",
    "IdempotencyMismatch",
    "NewEvent",
    "OutboxItem",
    "PostgresEventStore",
    "Problem",
    "Registry",
    "StorageUnavailable",
    "StoredEvent",
    "UpcastError",
    "canonical_json",
    "compute_hash",
    "default_registry",
    "initialise_store",
    "is_postgres_url",
    "open_store",
    "verify_chain",
]
