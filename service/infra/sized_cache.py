"""A least-recently-used cache bounded by the total size of its values in bytes."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any


class SizedCache:
    """LRU of response bodies bounded by their total size in bytes (not by their count)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self._items: "OrderedDict[tuple, Any]" = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple) -> Any:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found[0] if found is not None else None

    def put(self, key: tuple, value: Any, size: int) -> None:
        if size > self.max_bytes:
            return  # larger than the whole cache: served, never kept
        with self._lock:
            old = self._items.pop(key, None)
            self.bytes += size - (old[1] if old else 0)
            self._items[key] = (value, size)
            while self.bytes > self.max_bytes:
                _, (_, dropped) = self._items.popitem(last=False)
                self.bytes -= dropped
