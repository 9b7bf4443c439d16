"""Exceptions raised by the event store."""


class EventStoreError(Exception):
    """Base class for every event-store error."""


class ConcurrencyError(EventStoreError):
    """The stream's current version is not the version the caller expected."""

    def __init__(self, stream: str, expected_version: int, current_version: int):
        self.stream = stream
        self.expected_version = expected_version
        self.current_version = current_version
        super().__init__(
            f"stream {stream!r} is at version {current_version}, but the append expected version {expected_version}"
        )


class IdempotencyMismatch(EventStoreError):
    """An idempotency key was reused with a different request."""

    def __init__(self, key: str, detail: str):
        self.key = key
        super().__init__(f"idempotency key {key!r} was already used for {detail}")


class StorageUnavailable(EventStoreError):
    """The database cannot be written or read right now (disk full, read-only, I/O error, busy)."""


class UpcastError(EventStoreError):
    """A stored payload cannot be upcast to the current schema version."""


class ForgedSnapshot(EventStoreError):
    """A stored snapshot fails its seal or no longer matches the hash chain at its version (the
    database was edited): never unpickled, never served."""

    def __init__(self, stream: str, version: int, reason: str):
        self.stream, self.version, self.reason = stream, version, reason
        super().__init__(f"snapshot of {stream!r} at v{version}: {reason}")


class ChainMismatch(EventStoreError):
    """Imported rows do not follow on from the stream's stored head (another history): refused whole."""

    def __init__(self, stream: str, version: int, reason: str):
        self.stream, self.version, self.reason = stream, version, reason
        super().__init__(f"stream {stream!r} v{version}: {reason}")
