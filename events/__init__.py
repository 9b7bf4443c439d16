"""Tilefold's event store: hash-chained streams, idempotent appends, outbox, and the event catalogue
(events/catalogue.py: event types with their fields, versions and upcasters; it knows no event itself).

Two backends behind one contract (events/contract.py, EventStoreContract; docs/STORE.md): EventStore
(one SQLite file, the embedded default) and PostgresEventStore (one PostgreSQL database shared by
several service nodes); mypy checks that both keep it (`open_store` returns either as the contract). `open_store` and
`initialise_store` pick one from the target: a postgresql:// URL, else a SQLite path.
"""

from typing import Any

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
from .catalogue import Catalogue, Declaration, EventType, InvalidEvent, UnknownEventType, Upcaster
from .registry import Registry, default_registry
from .connection import cooperate_psycopg
from .contract import AppendSource, EventStoreContract
from .store import EventStore
from .side_tables import KEYED_STEP


def _both_backends_keep_the_contract(sqlite: EventStore, postgresql: PostgresEventStore) -> list[EventStoreContract]:
    """Never called: mypy checks here, by name, that each backend keeps the contract."""
    return [sqlite, postgresql]


def open_store(target: str, **options: Any) -> EventStoreContract:
    """A store on `target` (postgresql://... → PostgresEventStore, anything else → SQLite file)."""
    return (PostgresEventStore if is_postgres_url(target) else EventStore)(target, **options)


def initialise_store(target: str, **options: Any) -> EventStoreContract:
    """open_store after bringing the schema to this code's version (events/migrations.py; each
    migration once, under a lock: racing nodes are safe). `online_only=True` (a node starting):
    MigrationNeeded instead of a migration that changes tables running nodes use."""
    return (PostgresEventStore if is_postgres_url(target) else EventStore).initialise(target, **options)


__all__ = [
    "KEYED_STEP",
    "AppendSource",
    "Catalogue",
    "Declaration",
    "EventType",
    "InvalidEvent",
    "UnknownEventType",
    "Upcaster",
    "EventStoreContract",
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
