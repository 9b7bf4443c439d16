"""Value objects the event store accepts and returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional


@dataclass(frozen=True)
class NewEvent:
    """An event to append; schema_version None means the type's registered current version."""

    type: str
    payload: dict[str, Any]
    schema_version: Optional[int] = None


@dataclass(frozen=True, init=False)
class StoredEvent:
    """An event as read back (payload already upcast to the current schema version)."""

    stream: str
    version: int
    position: int
    type: str
    schema_version: int
    payload: dict[str, Any]
    recorded_at: str
    hash: str

    def __init__(
        self,
        stream: str,
        version: int,
        position: int,
        type: str,
        schema_version: int,
        payload: dict[str, Any],
        recorded_at: str,
        hash: str,
    ) -> None:
        # the fields written straight into the instance's dict: a frozen dataclass's own __init__
        # goes through object.__setattr__ once a field, about three times the cost, and a stream
        # read builds one of these per row
        fields = self.__dict__
        fields["stream"], fields["version"], fields["position"], fields["type"] = stream, version, position, type
        fields["schema_version"], fields["payload"], fields["recorded_at"], fields["hash"] = (
            schema_version,
            payload,
            recorded_at,
            hash,
        )


@dataclass(frozen=True)
class AppendResult:
    """What an append wrote; `replayed` is True when returned for a repeated idempotency key."""

    stream: str
    first_version: int
    last_version: int
    positions: tuple[int, ...]
    replayed: bool = field(default=False, compare=False)
    #: the rows' recorded_at, when this append wrote them (not kept for idempotent replays)
    recorded_at: Optional[str] = field(default=None, compare=False)
    #: the hash of the last row written, when this append wrote them (a backend's head cache)
    last_hash: Optional[str] = field(default=None, compare=False)

    @property
    def first_position(self) -> int:
        return self.positions[0]

    @property
    def last_position(self) -> int:
        return self.positions[-1]

    def to_dict(self) -> dict[str, Any]:
        return {
            "stream": self.stream,
            "first_version": self.first_version,
            "last_version": self.last_version,
            "positions": list(self.positions),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], replayed: bool = False) -> "AppendResult":
        return cls(
            data["stream"], data["first_version"], data["last_version"], tuple(data["positions"]), replayed=replayed
        )


@dataclass(frozen=True)
class OutboxItem:
    """A row of the outbox table waiting for delivery."""

    id: int
    stream: str
    created_at: str
    payload: Any
    attempts: int
    next_attempt_at: Optional[str]
