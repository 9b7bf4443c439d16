"""A lease in the database: one holder at a time across worker processes and nodes.

`Lease(store, name, ttl)` keeps one row of `tf_leases` (created by the store's migrations,
events/side_tables.py: nothing here creates a table, so reading a lease writes nothing). `take()`
takes the lease when it is free or expired, or renews it when this holder has it, in one statement,
and says whether this holder now holds it until `ttl` seconds from now: whoever runs the service's
ticker (service/usecases/ticker.py) holds the lease named "ticker", so each overdue deadline is
settled by one worker of one node. A holder that dies stops renewing; another takes the lease once
it has expired. `state()` is for a readiness probe: whether this holder holds the lease or could
take it now, without taking it.
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Optional

TAKE = (
    "INSERT INTO tf_leases (name, holder, expires_at) VALUES (?, ?, ?) "
    "ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at "
    "WHERE tf_leases.holder = excluded.holder OR tf_leases.expires_at < ?"
)


def holder_name() -> str:
    """This process's name as a holder: host, process id and a random part (a pid may be reused)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@dataclass(frozen=True)
class LeaseState:
    """What a readiness probe reports: who holds the lease and whether this process holds it or could take it."""

    held: bool  # this process holds it now
    available: bool  # this process holds it or could take it now (free or expired)
    holder: Optional[str]
    expires_in: Optional[float]  # seconds left of the current holder's lease (None: no row yet)


class Lease:
    """One named lease row; `take()` to take or renew it, `release()` to give it up."""

    def __init__(
        self,
        store: Any,
        name: str,
        ttl: float = 5.0,
        holder: Optional[str] = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store, self.name, self.ttl = store, name, ttl
        self.holder = holder or holder_name()
        self._clock = clock

    def take(self) -> bool:
        """Take the lease (free or expired) or renew it (ours) until now + ttl; True iff ours now."""
        now = self._clock()

        def take(conn: Any) -> bool:
            conn.execute(TAKE, [self.name, self.holder, now + self.ttl, now])
            row = conn.execute("SELECT holder FROM tf_leases WHERE name = ?", [self.name]).fetchone()
            return row is not None and row[0] == self.holder

        held: bool = self.store.write(take)
        return held

    def release(self) -> None:
        """Give the lease up at once (a stopping worker), so another takes it without waiting it out."""
        self.store.write(
            lambda conn: conn.execute("DELETE FROM tf_leases WHERE name = ? AND holder = ?", [self.name, self.holder])
        )

    def state(self) -> LeaseState:
        """Who holds the lease, and whether this process holds it or could take it now (one read, no write)."""
        rows = self.store.query("SELECT holder, expires_at FROM tf_leases WHERE name = ?", [self.name])
        if not rows:
            return LeaseState(False, True, None, None)
        holder, expires = rows[0][0], float(rows[0][1])
        left = expires - self._clock()
        held = holder == self.holder and left > 0
        return LeaseState(held, held or left <= 0, holder, left)
