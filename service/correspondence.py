"""Correspondence play wired into the match service: deadlines, standing orders, webhooks, tick.

`install(app)` swaps the app's MatchService for a CorrespondenceService (same state, more
behaviour), wraps the event store so every match append also writes its deadline rows and
webhook notices in the same transaction, and settles overdue decisions before each request
that names a match.
"""
from __future__ import annotations

import hashlib
import logging
from typing import Any, Callable, Optional

from flask import Flask, current_app, request

import engine
from events import canonical_json, connections_for

from . import orders, room as rooms, tables
from .clock import SystemClock, iso, later
from .deadlines import Decisions, new_decisions
from .notify import DeliverySettings, Notifier, Webhooks, notices
from .play import MatchService
from .problems import ApiError
from .repository import STREAM_PREFIX, Loaded, stream_of

log = logging.getLogger(__name__)
PROBE_LIMIT = 2**61  # expected versions above this are idempotency probes (nothing is written)


class CorrespondenceService(MatchService):
    """MatchService plus deadlines, standing orders and notices (no game rules: see orders.py)."""

    clock: Any
    decisions: Decisions
    webhooks: Webhooks
    notifier: Notifier

    @classmethod
    def adopt(cls, base: MatchService, clock: Any, settings: DeliverySettings, worker: bool,
              synchronous: str = "DURABLE") -> "CorrespondenceService":
        """A CorrespondenceService sharing `base`'s repository and settings."""
        svc = cls.__new__(cls)
        svc.__dict__.update(base.__dict__)
        store = svc.repo.store
        connections = connections_for(store, synchronous)  # SQLite's Connections or PostgreSQL's adapter
        tables.migrate(connections)
        svc.clock = clock
        svc.decisions = Decisions(connections)
        svc.webhooks = Webhooks(connections)
        svc.notifier = Notifier(store, connections, svc.webhooks, clock, settings, worker)
        svc.repo.store = TrackingStore(store, svc)
        return svc

    def now(self) -> str:
        return iso(self.clock.now())

    # -- creating ---------------------------------------------------------------
    def create(self, variant: str, options: Optional[dict], deadline_seconds: Optional[int] = None):
        """A new match; `deadline_seconds` (a service setting) goes into its match_created event."""
        if deadline_seconds is None:
            return super().create(variant, options)
        from engine.options import normalise

        normalised = normalise(variant, options)
        match_id, owner_token = rooms.new_match_id(), rooms.new_token()
        event = {"type": rooms.MATCH_CREATED, "variant": variant, "options": normalised,
                 "owner_token_hash": rooms.token_hash(owner_token), "deadline_seconds": deadline_seconds}
        self.repo.append(match_id, 0, [event])
        return match_id, owner_token, self.repo.load(match_id)

    # -- the automatic loop -----------------------------------------------------------
    def _automatic_command(self, loaded: Loaded) -> Optional[dict]:
        """Deals and bots first (MatchService), then standing orders, then overdue decisions."""
        command = MatchService._automatic_command(loaded)
        if command is not None:
            return command
        overdue: list[int] = []
        if loaded.room.deadline_seconds and loaded.started and not loaded.over:
            overdue = self.decisions.overdue(stream_of(loaded.match_id), loaded.version, self.now())
        return orders.automatic(loaded, overdue)

    def settle(self, match_id: str) -> bool:
        """Take every overdue decision of the match (then bots and deals go on); True if any was due."""
        cached = self.repo.cache.get(match_id)
        if cached is not None and not cached.room.deadline_seconds:
            return False  # fixed at creation: a match without move deadlines never has any due
        if not self.decisions.any_overdue(stream_of(match_id), self.now()):
            return False
        self.advance(match_id)
        return True

    def tick(self) -> dict:
        """Settle every overdue decision of every match, then deliver the due notices."""
        settled = 0
        for stream in self.decisions.due_streams(self.now()):
            try:
                settled += self.settle(stream[len(STREAM_PREFIX):])
            except Exception:  # noqa: BLE001 - one broken match must not stop the others
                log.exception("settling %s failed", stream)
        delivered = 0
        while True:
            attempted = self.notifier.deliver_due()
            delivered += attempted
            if attempted == 0:
                break
        return {"matches_settled": settled, "notices_attempted": delivered}

    # -- service events -----------------------------------------------------------------
    def append_service_event(self, match_id: str, event: dict, extra: Optional[Callable] = None) -> Loaded:
        """Append one service event at the latest version (retrying on conflicts), then advance."""
        from events import ConcurrencyError

        for _ in range(20):
            loaded = self.repo.load(match_id)
            if loaded.over:
                raise ApiError(409, "match_over", "the match is over")
            try:
                self.repo.store.append(stream_of(match_id), loaded.version, [_new_event(event)], extra=extra)
                return self.advance(match_id)
            except ConcurrencyError:
                continue
        raise ApiError(503, "busy", "too many simultaneous changes, retry", {"Retry-After": "1"})

    def deadlines_for(self, loaded: Loaded) -> list[dict]:
        if not loaded.room.deadline_seconds or not loaded.started or loaded.over:
            return []
        return self.decisions.for_view(stream_of(loaded.match_id), engine.pending_seats(loaded.state))

    # -- at every append -----------------------------------------------------------------
    def plan_append(self, match_id: str, expected_version: int, events: list[dict]) -> Optional[tuple[list, Callable]]:
        """(outbox notices, extra(conn)) for an append of `events` at `expected_version`, or None."""
        before = self.repo.cache.get(match_id)
        if before is None or before.version != expected_version:
            before = self.repo.load(match_id)
            if before.version != expected_version:
                return None  # the append is about to fail with a conflict
        room = before.room
        for event in events:
            if event["type"] in rooms.SERVICE_EVENT_TYPES:
                room = rooms.evolve(room, event["type"], {k: v for k, v in event.items() if k != "type"})
        hooked = [seat for seat in range(rooms.SEATS) if room.webhooks[seat]]
        if not room.deadline_seconds and not hooked:
            return None
        fresh = [e for e in events if e["type"] not in rooms.SERVICE_EVENT_TYPES]
        after = engine.fold(fresh, before.state) if fresh else before.state
        pending, new = new_decisions(before.state, after, fresh)
        now, version = self.now(), expected_version + len(events)
        due = {seat: later(now, room.deadline_seconds) if room.deadline_seconds else None for seat in new}
        if room.deadline_seconds:
            rows = self.decisions.writer(stream_of(match_id), pending, new, now, room.deadline_seconds, version)
        else:
            rows = None
        outbox = notices(match_id, version, hooked, fresh, after, new, due)
        return outbox, rows


class TrackingStore:
    """The event store, with match appends also writing deadline rows and notices (one transaction)."""

    def __init__(self, store: Any, svc: CorrespondenceService) -> None:
        self._store, self._svc = store, svc

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def append(self, stream, expected_version, events, idempotency_key=None, *, request_fingerprint=None,
               outbox=None, extra=None, own=None):
        plan = None
        if stream.startswith(STREAM_PREFIX) and 0 < expected_version < PROBE_LIMIT:
            try:
                plan = self._svc.plan_append(stream[len(STREAM_PREFIX):], expected_version,
                                             [_event_dict(e) for e in events])
            except ApiError:
                plan = None
            except Exception:  # noqa: BLE001 - never fail an action over a notice
                log.exception("planning deadlines/notices for %s failed", stream)
        if plan is None:
            return self._store.append(stream, expected_version, events, idempotency_key,
                                      request_fingerprint=request_fingerprint, outbox=outbox, extra=extra,
                                      own=own)
        notices_, rows = plan
        if idempotency_key is not None and request_fingerprint is None:  # keep retries' fingerprints stable
            body = {"stream": stream, "expected": expected_version, "events": [_event_dict(e) for e in events]}
            request_fingerprint = hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()
        result = self._store.append(stream, expected_version, events, idempotency_key,
                                    request_fingerprint=request_fingerprint,
                                    outbox=list(outbox or ()) + notices_, extra=_both(extra, rows), own=own)
        if notices_ and not result.replayed:
            self._svc.notifier.wake()
        return result


def _both(first: Optional[Callable], second: Optional[Callable]) -> Optional[Callable]:
    if first is None or second is None:
        return first or second

    def run(conn) -> None:
        first(conn)
        second(conn)
    return run


def _event_dict(event: Any) -> dict:
    if isinstance(event, dict):
        return {"type": event["type"], **event.get("payload", {})} if "payload" in event else dict(event)
    return {"type": event.type, **event.payload}


def _new_event(event: dict):
    from .repository import to_new_event
    return to_new_event(event)


# -- wiring ----------------------------------------------------------------------------
def install(app: Flask) -> CorrespondenceService:
    """Replace the app's service with a CorrespondenceService and register the request hooks."""
    settings = DeliverySettings(timeout=app.config["WEBHOOK_TIMEOUT"], attempts=app.config["WEBHOOK_ATTEMPTS"],
                                backoff=app.config["WEBHOOK_BACKOFF"], poll=app.config["WEBHOOK_POLL"],
                                allow_private=app.config["WEBHOOK_ALLOW_PRIVATE"])
    clock = app.config.get("CLOCK") or SystemClock()
    app.config["CLOCK"] = clock
    svc = CorrespondenceService.adopt(app.extensions["tilefold"], clock, settings, app.config["WEBHOOK_WORKER"],
                                      app.config["SYNCHRONOUS"])
    app.extensions["tilefold"] = svc
    app.extensions["tilefold_started"] = False
    app.before_request(_before_request)
    return svc


def service() -> CorrespondenceService:
    return current_app.extensions["tilefold"]


def _before_request() -> None:
    """Lazily start this process's notice worker; settle the named match's overdue decisions."""
    svc = service()
    if not current_app.extensions["tilefold_started"]:
        current_app.extensions["tilefold_started"] = True
        if svc.webhooks.any():
            svc.notifier.ensure_worker()
    match_id = (request.view_args or {}).get("match_id")
    if not match_id:
        return
    try:
        svc.settle(match_id)
    except ApiError:
        pass
    except Exception:  # noqa: BLE001 - a read must still work
        log.exception("settling %s before a request failed", match_id)
    if request.endpoint == "events.list_events" and "Authorization" not in request.headers:
        require_spectating(svc.repo.load(match_id))


def require_spectating(loaded: Loaded) -> None:
    """403 spectating_disabled when the owner turned spectating off (until the match is over)."""
    if not loaded.room.spectating and not loaded.over:
        raise ApiError(403, "spectating_disabled", "the owner has turned spectating off for this match")


def run_tick(args: Any) -> int:
    """`tilefold tick [--db FILE] [--every SECONDS]`: print one JSON line per pass."""
    import json
    import os
    import time

    from .app import create_app

    if args.db:
        os.environ["TILEFOLD_DB"] = args.db
    app = create_app({"WEBHOOK_WORKER": False})
    svc: CorrespondenceService = app.extensions["tilefold"]
    while True:
        print(json.dumps(svc.tick()), flush=True)
        if not args.every:
            return 0
        time.sleep(args.every)
