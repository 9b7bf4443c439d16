"""This process's follower of the store's global feed, for what it keeps in memory and brings up to
date by what was appended (the seat index and ratings: service/usecases/seat_index.py, ratings.py).

`poll()` reads the streams appended to since the last poll, with the version each reached: one
indexed query (`appended_since`: the rows after a position, grouped by stream), the same count as
asking for the store's head. It hands them to every subscriber, in order, under one lock; a
subscriber only notes them (it is called holding the feed's lock: it must not call the feed back).
The first poll only fixes the position: a subscriber builds itself from the store after it (what it
reads then is at or after that position; later appends arrive by poll, and noting an append twice
changes nothing). On PostgreSQL the feed is read below the high-water mark, so an append that
commits late is handed out by a later poll, never skipped.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Mapping, Optional

#: a subscriber: called with {stream: the version it reached} after a poll found appends
Listener = Callable[[Mapping[str, int]], None]


class StoreFeed:
    """Polls the store's feed for this process's in-memory indexes (see the module's doc)."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._position: Optional[int] = None
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> None:
        with self._lock:
            self._listeners.append(listener)

    def start(self) -> None:
        """Fix the position if no poll has yet (a subscriber then builds itself from the store)."""
        if self._position is None:
            self.poll()

    def poll(self) -> None:
        """Hand what was appended since the last poll to every subscriber (one query)."""
        with self._lock:
            if self._position is None:
                self._position = self.store.head_position()
                return
            head, streams = self.store.appended_since(self._position)
            self._position = max(self._position, head)
            if streams:
                for listener in self._listeners:
                    listener(streams)
