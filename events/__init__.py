"""Tilefold's SQLite event store: hash-chained streams, idempotent appends, outbox, upcasters."""
from .chain import Problem, canonical_json, compute_hash, verify_chain
from .errors import (ConcurrencyError, EventStoreError, IdempotencyMismatch, StorageUnavailable,
                     UpcastError)
from .models import AppendResult, NewEvent, OutboxItem, StoredEvent
from .registry import Registry, default_registry
from .store import EventStore

__all__ = [
    "AppendResult", "ConcurrencyError", "EventStore", "EventStoreError", "IdempotencyMismatch",
    "NewEvent", "OutboxItem", "Problem", "Registry", "StorageUnavailable", "StoredEvent",
    "UpcastError", "canonical_json", "compute_hash", "default_registry", "verify_chain",
]
