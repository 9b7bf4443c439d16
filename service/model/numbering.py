"""Per-viewer versions: each viewer counts only the events it may see.

A match's stream has one global numbering (1, 2, 3 ... as stored). While a G-6 claim, G-7 rob or
H-4 报听 window is open, an asked seat's answer is appended but hidden from everybody else
(engine.hidden_from); if the version every viewer sees counted it, a viewer counting versions
would learn that (and how many) seats answered. So every version a viewer is shown is in its own
numbering: the number of events of the stream it may see. A hidden event is never counted, so
nothing a viewer sees changes when one is appended, and no gap ever appears.

Whether an event is hidden from a viewer depends only on the event and the viewer, so a match
keeps, per viewer (seats 0-3 and the public), the short sorted tuple of the global versions
hidden from it: global -> viewer is `g - (hidden <= g)`, viewer -> global a walk of that tuple.
Only events of the types in engine.MAY_HIDE, and the seat-private service events
(PRIVATE_SERVICE_TYPES: standing orders), are ever looked at. "all" (the full record) is the
global numbering itself.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any, Iterable, Optional

import engine

PUBLIC = 4  # the slot of the public numbering (no seat: spectators, summaries, the match list)
VIEWERS: tuple[Optional[int], ...] = (0, 1, 2, 3, None)
TYPECODE = "I"  # unsigned 32-bit (4 bytes): versions up to 4 billion events per stream


def _versions(values: Iterable[int] = ()) -> "array[int]":
    """A sorted run of global versions: an array, so a snapshot pickles it as raw bytes (a tuple of
    a thousand ints costs a cold load ~30x more to unpickle) and bisect still works on it."""
    return array(TYPECODE, values)


EMPTY: tuple["array[int]", ...] = tuple(_versions() for _ in VIEWERS)


def slot(viewer: Any) -> Optional[int]:
    """The numbering a viewer counts in: a seat's own (0-3), the public's (None and the spectator
    feed, PUBLIC), or None for "all" (the global numbering, nothing hidden)."""
    if isinstance(viewer, int) and not isinstance(viewer, bool) and 0 <= viewer <= 3:
        return viewer
    if viewer == "all":
        return None
    return PUBLIC


#: service events only their own seat sees while the match runs: a seat's standing orders (an
#: auto-pass that never declines a win, public, would let an open window tell that someone can win)
PRIVATE_SERVICE_TYPES = frozenset({"orders_set"})


def hidden_from(event: dict[str, Any], viewer: Any) -> bool:
    """engine.hidden_from, and a seat's private service events from every viewer but that seat."""
    if event.get("type") in PRIVATE_SERVICE_TYPES:
        return viewer != "all" and viewer != event.get("seat")
    return engine.hidden_from(event, viewer)


@dataclass(frozen=True)
class Numbering:
    """For each viewer slot, the sorted global versions of the events hidden from it (arrays,
    never changed in place: `extended` makes new ones)."""

    hidden: tuple["array[int]", ...] = EMPTY

    def extended(self, events: Iterable[tuple[int, str, Any]]) -> "Numbering":
        """With (global version, type, event dict or payload) appended in order; only the types in
        engine.MAY_HIDE are looked at (`redact` hides nothing else)."""
        added: Optional[list[list[int]]] = None
        for version, kind, fields in events:
            if kind not in engine.MAY_HIDE and kind not in PRIVATE_SERVICE_TYPES:
                continue
            event = fields if fields.get("type") == kind else {"type": kind, **fields}
            for index, viewer in enumerate(VIEWERS):
                if hidden_from(event, viewer):
                    added = added or [[] for _ in VIEWERS]
                    added[index].append(version)
        if added is None:
            return self
        return Numbering(tuple(old + _versions(new) if new else old for old, new in zip(self.hidden, added)))

    def to_bytes(self) -> tuple[bytes, ...]:
        """The lists as raw bytes (a snapshot's pickle then names no class: service/infra/snapshots.py)."""
        return tuple(versions.tobytes() for versions in self.hidden)

    @classmethod
    def from_bytes(cls, parts: Any) -> "Numbering":
        """The numbering `to_bytes` gave (a snapshot): ValueError for anything else."""
        if not isinstance(parts, tuple) or len(parts) != len(VIEWERS) or not all(isinstance(p, bytes) for p in parts):
            raise ValueError("a snapshot's numbering is one bytes string per viewer")
        hidden = []
        for part in parts:
            versions = _versions()
            versions.frombytes(part)
            hidden.append(versions)
        return cls(tuple(hidden))

    def local(self, version: int, viewer: Any) -> int:
        """Global `version` in `viewer`'s numbering: the events up to it that the viewer may see."""
        index = slot(viewer)
        if index is None:
            return version
        return version - bisect_right(self.hidden[index], version)

    def to_global(self, number: int, viewer: Any) -> int:
        """The global version of `viewer`'s event number `number` (0: before the first event); a
        number beyond the viewer's last event maps beyond the stream's last event."""
        index = slot(viewer)
        if index is None or number <= 0:
            return max(0, number)
        skipped = 0
        for version in self.hidden[index]:
            if version > number + skipped:
                break
            skipped += 1
        return number + skipped

    def is_hidden(self, version: int, viewer: Any) -> bool:
        index = slot(viewer)
        if index is None:
            return False
        hidden = self.hidden[index]
        at = bisect_right(hidden, version)
        return at > 0 and hidden[at - 1] == version

    def range(self, first: int, last: int, viewer: Any) -> tuple[int, int]:
        """Global versions first..last as (first, last) in `viewer`'s numbering; first > last when
        none of them is visible to the viewer."""
        return self.local(first - 1, viewer) + 1, self.local(last, viewer)


NONE_HIDDEN = Numbering()  # a match before any event hidden from anyone
