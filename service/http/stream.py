"""Server-Sent Events: how a viewer's stream (service/usecases/reads.py, `Reads.follow`) is written
on the wire: `id:` the event's version in the viewer's numbering, heartbeats, a bounded life."""

from __future__ import annotations

import json
import re
from typing import Optional

RETRY_MS = 1000
#: the last message of a stream whose worker stops: reconnect (with Last-Event-ID) after RETRY_MS
RECONNECT = f'retry: {RETRY_MS}\nevent: reconnect\ndata: {{"reason": "server_stopping"}}\n\n'
_VERSION = re.compile(r"[0-9]{1,18}")  # a version: a small whole number in ASCII digits


def message(item: dict) -> str:
    """One SSE message; `id:` is the event's version in the viewer's numbering. An event with no
    number (a finished match's event the seat could not see in play) has no `id:`, so the
    client's Last-Event-ID stays at the last numbered one."""
    data = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
    if item["version"] is None:
        return f"data: {data}\n\n"
    return f"id: {item['version']}\ndata: {data}\n\n"


class ServerSentEvents:
    """The SSE framing of a stream's messages (service/usecases/reads.py: Framing)."""

    def start(self) -> str:
        return f"retry: {RETRY_MS}\n\n"

    def events(self, items: list[dict]) -> str:
        return "".join(message(item) for item in items)

    def heartbeat(self) -> str:
        return ": heartbeat\n\n"

    def forbidden(self) -> str:
        return 'event: forbidden\ndata: {"code": "spectating_disabled"}\n\n'

    def end(self, version: int) -> str:
        return f"event: end\ndata: {json.dumps({'version': version})}\n\n"

    def reconnect(self) -> str:
        return RECONNECT


SSE = ServerSentEvents()


def start_after(last_event_id: Optional[str], after: Optional[int]) -> Optional[int]:
    """The version to resume after, in the viewer's numbering: Last-Event-ID wins over ?after=;
    None when unreadable."""
    if last_event_id is not None:
        text = last_event_id.strip()
        return int(text) if _VERSION.fullmatch(text) else None  # ASCII digits only ("²", "١" are not)
    return after if after is not None else 0
