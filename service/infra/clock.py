"""The service's clock: `Clock.now()` (UTC), injected through app config so tests drive time."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone
from typing import Optional, Protocol, Union

ISO_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"  # the event store's format: comparing strings compares times


class Clock(Protocol):
    """Anything with `now() -> aware UTC datetime`."""

    def now(self) -> datetime: ...


class SystemClock:
    """The real time (the default)."""

    def now(self) -> datetime:
        return datetime.now(timezone.utc)


class ManualClock:
    """A clock that moves only when told to (tests): `advance(seconds)` or `set(moment)`."""

    def __init__(self, start: Optional[datetime] = None) -> None:
        self._now = start or datetime.now(timezone.utc)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> datetime:
        with self._lock:
            self._now += timedelta(seconds=seconds)
            return self._now

    def set(self, moment: datetime) -> None:
        with self._lock:
            self._now = moment


def iso(moment: datetime) -> str:
    """ISO-8601 UTC with microseconds and a Z, e.g. 2024-05-01T12:00:00.000000Z."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).strftime(ISO_FORMAT)


def parse(text: str) -> datetime:
    return datetime.strptime(text, ISO_FORMAT).replace(tzinfo=timezone.utc)


def later(moment: Union[datetime, str], seconds: float) -> str:
    """`moment` plus `seconds`, as an ISO string."""
    base = parse(moment) if isinstance(moment, str) else moment
    return iso(base + timedelta(seconds=seconds))
