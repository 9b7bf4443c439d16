"""Server-Sent Events for one viewer of a match: resumable (id = version), heartbeats, bounded life."""

from __future__ import annotations

import json
import re
import time
from typing import Any, Callable, Iterator, Optional

from ..usecases.play import MatchService
from ..model.match import Loaded, stream_of
from ..infra.waiters import DISCONNECT_CHECK

RETRY_MS = 1000
#: the last message of a stream whose worker stops: reconnect (with Last-Event-ID) after RETRY_MS
RECONNECT = f'retry: {RETRY_MS}\nevent: reconnect\ndata: {{"reason": "server_stopping"}}\n\n'
_VERSION = re.compile(r"[0-9]{1,18}")  # a version: a small whole number in ASCII digits
SPECTATOR = "spectator"


def items_for(svc: MatchService, loaded: Loaded, viewer: Any, after: int) -> list[dict]:
    """The events after `after` (in the viewer's numbering) as `viewer` sees them: a seat as on
    GET .../events (everything once the match is over), a spectator always as the public
    (engine.redact(event, None)); numbered in the viewer's numbering (service/model/numbering.py)."""
    return items_since(svc, loaded, viewer, loaded.numbering.to_global(after, viewer))


def items_since(svc: MatchService, loaded: Loaded, viewer: Any, since: int) -> list[dict]:
    """As `items_for`, from global version `since` (the stream's own cursor)."""
    if viewer == SPECTATOR:
        return svc.numbered_since(loaded, None, since, None)
    return svc.numbered_since(loaded, viewer, since, "all" if loaded.over else viewer)


def message(item: dict) -> str:
    """One SSE message; `id:` is the event's version in the viewer's numbering. An event with no
    number (a finished match's event the seat could not see in play) has no `id:`, so the
    client's Last-Event-ID stays at the last numbered one."""
    data = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
    if item["version"] is None:
        return f"data: {data}\n\n"
    return f"id: {item['version']}\ndata: {data}\n\n"


def events(
    svc: MatchService,
    match_id: str,
    viewer: Any,
    after: int,
    *,
    lifetime: float,
    heartbeat: float,
    hub: Any,
    idle: float = 0.0,
    allowed=None,
    slot: Any = None,
    shared: Any = None,
    gone: Callable[[], bool] = lambda: False,
) -> Iterator[str]:
    """Yield SSE messages from version `after` on until `lifetime` seconds pass, `idle` seconds pass
    without an event (0: never), or the match is over. Between events the stream waits on the
    worker's WaiterHub (no query of its own); a `: heartbeat` comment goes out every `heartbeat` s.

    `allowed(loaded)` (spectators) may end the stream early, e.g. when spectating is turned off.
    `slot` (WaitLimits) is released when the stream ends, however it ends; `gone()` tells that the
    client closed its connection (looked at every second between events), which ends it at once.
    """
    try:
        yield from _events(svc, match_id, viewer, after, lifetime, heartbeat, hub, idle, allowed, shared, gone)
    finally:
        if slot is not None:
            slot.release()


def _events(
    svc: MatchService,
    match_id: str,
    viewer: Any,
    after: int,
    lifetime: float,
    heartbeat: float,
    hub: Any,
    idle: float,
    allowed,
    shared: Any,
    gone: Callable[[], bool],
) -> Iterator[str]:
    yield f"retry: {RETRY_MS}\n\n"
    started = beat = active = time.monotonic()
    since = svc.load(match_id).numbering.to_global(after, viewer)  # the stream's cursor: global
    current = svc.version(match_id)
    while True:
        if current > since:
            loaded = svc.load(match_id)
            if allowed is not None and not allowed(loaded):
                yield 'event: forbidden\ndata: {"code": "spectating_disabled"}\n\n'
                return
            text = _messages(svc, loaded, viewer, since, shared)
            since = max(since, loaded.version)
            if text:  # only events this viewer may see: a hidden one sends nothing, moves no timer
                yield text
                beat = active = time.monotonic()
            if loaded.over:
                end = loaded.version_for(None if viewer == SPECTATOR else viewer)
                yield f"event: end\ndata: {json.dumps({'version': end})}\n\n"
                return
        if getattr(hub, "draining", False):  # the worker stops: the client resumes elsewhere
            yield RECONNECT
            return
        now = time.monotonic()
        ends = started + lifetime if not idle else min(started + lifetime, active + idle)
        if now >= ends:
            return
        if now - beat >= heartbeat:
            yield ": heartbeat\n\n"
            beat = now
        current = hub.wait(
            stream_of(match_id), since, max(0.0, min(beat + heartbeat, ends, now + DISCONNECT_CHECK) - now)
        )
        if current <= since and gone():
            return  # the client left: its slot is freed now, not at the next heartbeat


def _messages(svc: MatchService, loaded: Loaded, viewer: Any, since: int, shared: Any) -> str:
    """The SSE messages of the events after global version `since` for `viewer`: made once for all
    the streams of that viewer woken by the same version (`shared`), not once per stream."""

    def make() -> str:
        return "".join(message(item) for item in items_since(svc, loaded, viewer, since))

    if shared is None:
        return make()
    return shared.get_or_make(("sse", loaded.match_id, loaded.version, viewer, since), make)


def start_after(last_event_id: Optional[str], after: Optional[int]) -> Optional[int]:
    """The version to resume after, in the viewer's numbering: Last-Event-ID wins over ?after=;
    None when unreadable."""
    if last_event_id is not None:
        text = last_event_id.strip()
        return int(text) if _VERSION.fullmatch(text) else None  # ASCII digits only ("²", "١" are not)
    return after if after is not None else 0
