"""The ticker: what the service does when nobody asks (requests only read, or act for their caller).

Overdue move deadlines, bot moves and a deal left half-written (a worker killed between a hand's
end and the next deal) are settled here, never by a read. `tilefold serve` runs one `Ticker` in
each worker (service/cli/__init__.py); only the worker holding the database lease named "ticker"
(service/infra/lease.py) works, so across workers and nodes each deadline is settled once, within
about `interval` seconds of falling due. `tilefold tick` runs one pass (`run_once`) by hand or
from a clock process.

A pass: take or renew the lease; settle every overdue decision and deliver the due notices
(`MatchService.tick`); heal the matches appended to since the last pass (on taking the lease, every
match), once their last append is `grace` seconds old (so a worker still dealing is not raced):
deal, play bots, and sign a finished match's unsigned ends and head; and, at most every
`SESSION_SWEEP` seconds, remove every account's expired sessions (refused already; their rows go).
Every worker's pass, lease or not, also keeps the snapshots of what its own cold loads folded without one and the rolling snapshot
of each match it appended to since its last pass (`keep_snapshots`): a request only reads, or
appends, so this is where those folds are saved for the next cold load.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Callable, Optional

from ..infra.lease import Lease
from ..infra.repository import STREAM_PREFIX
from .play import MatchService

log = logging.getLogger(__name__)
LEASE = "ticker"
#: seconds between two sweeps of expired account sessions by the lease holder
SESSION_SWEEP = 600.0
#: seconds before a failed sweep is tried again (a busy database: sooner than the next sweep)
SESSION_RETRY = 60.0


class Ticker:
    """Settles deadlines, deliver notices and heals half-written matches while it holds the lease."""

    def __init__(
        self,
        svc: MatchService,
        lease: Optional[Lease] = None,
        interval: float = 1.0,
        grace: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.svc = svc
        self.lease = lease or Lease(svc.repo.store, LEASE, ttl=max(5.0, 4 * interval))
        self.interval, self.grace, self._clock = interval, grace, clock
        self._position: Optional[int] = None  # the feed position healed up to (None: sweep every match)
        self._seen: dict[str, float] = {}  # match id -> when an append to it was first seen
        self._swept: Optional[float] = None  # when expired sessions were last swept (None: never)
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self.passes = 0

    # -- one pass ---------------------------------------------------------------------
    def run_once(self, *, leased: bool = True) -> Optional[dict[str, Any]]:
        """One pass (None when another process holds the lease); `leased=False` skips the lease
        (`tilefold tick`: the operator runs it; a concurrent settle is safe, only wasted)."""
        if leased and not self.lease.take():
            self._position = None  # whoever holds it heals; when ours again, sweep every match
            self.svc.keep_snapshots()  # this worker's own cold folds: only it knows of them
            return None
        report = self.svc.tick()
        report["matches_healed"] = self._heal(wait=leased)
        report["sessions_ended"] = self._end_expired_sessions()
        report["snapshots_kept"] = self.svc.keep_snapshots()
        self.passes += 1
        return report

    def _heal(self, wait: bool) -> int:
        store = self.svc.repo.store
        now = self._clock()
        position, streams = store.appended_since(self._position or 0)
        self._position = position
        for stream in streams:
            if stream.startswith(STREAM_PREFIX):
                self._seen.setdefault(stream[len(STREAM_PREFIX) :], now)
        healed = 0
        for match_id, seen in list(self._seen.items()):
            if wait and now - seen < self.grace:
                continue
            del self._seen[match_id]
            try:
                self.svc.heal(match_id)
                healed += 1
            except Exception:  # noqa: BLE001 - one broken match must not stop the others
                log.exception("healing %s failed", match_id)
        return healed

    def _end_expired_sessions(self) -> int:
        accounts, now = self.svc.accounts, self._clock()
        if accounts is None or (self._swept is not None and now - self._swept < SESSION_SWEEP):
            return 0
        self._swept = now
        try:
            return accounts.end_expired_sessions()
        except Exception:  # noqa: BLE001 - a failed sweep must not stop deadlines
            log.exception("ending expired sessions failed; tried again in %.0f s", SESSION_RETRY)
            self._swept = now - SESSION_SWEEP + SESSION_RETRY
            return 0

    # -- the thread -------------------------------------------------------------------
    def start(self) -> "Ticker":
        """Run passes every `interval` seconds on a daemon thread (a greenlet under gevent) until stop()."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="tilefold-ticker", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.run_once()
            except Exception:  # noqa: BLE001 - the store may be away for a moment: try again next pass
                log.exception("ticker pass failed")
            self._stop.wait(self.interval)

    def stop(self) -> None:
        """Stop the thread and give the lease up (another worker takes it at once)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        try:
            self.lease.release()
        except Exception:  # noqa: BLE001 - stopping anyway; the lease expires on its own
            log.warning("could not release the ticker lease", exc_info=True)
