"""Adapters: the repository over the event store, snapshots, waiters, notices, deadlines, clock, settings (docs/ARCHITECTURE.md)."""
