"""A chat line per match for its seated players, kept as events of its own stream (`chat-<match id>`).

The chat stream is not part of the match's stream, so it never reaches the public feed, the
spectators' stream or a match export: only a seat token reads or writes it.
"""

from __future__ import annotations

import time

from flask import current_app, request

from events import ConcurrencyError, NewEvent

from ...infra import waiters
from ..problems import ApiError
from ..schemas import ChatListSchema, ChatPostSchema, ChatQuerySchema
from ..web import require_token, seat_for, service
from .declare import Blueprint, bearer, errors

blp = Blueprint(
    "chat",
    __name__,
    url_prefix="/api/matches",
    description="Chat between the seated players of a match (Bearer seat token).",
)
CHAT_PREFIX = "chat-"
CHAT_TYPE = "chat_posted"


def chat_stream(match_id: str) -> str:
    return CHAT_PREFIX + match_id


@blp.route("/<match_id>/chat", methods=["GET"])
@bearer(blp)
@blp.arguments(ChatQuerySchema, location="query", error_status_code=400)
@blp.response(200, ChatListSchema)
@errors(blp, 401, 403, 404, 429, 503)
def read_chat(args, match_id):
    """Lines after ?after=N (their versions in the chat stream); ?wait= long-polls for a new one."""
    svc = service()
    seat_for(svc.repo.load(match_id), require_token())
    store, stream = svc.repo.store, chat_stream(match_id)
    if args["wait"] > 0 and store.current_version(stream) <= args["after"]:
        wait_for_line(stream, args["after"], min(args["wait"], current_app.config["MAX_WAIT"]))
    lines = [
        {"version": e.version, "seat": e.payload["seat"], "text": e.payload["text"], "at": e.recorded_at}
        for e in store.read(stream, after=args["after"], limit=200)
    ]
    return {"version": store.current_version(stream), "lines": lines}


def wait_for_line(stream: str, after: int, seconds: float) -> None:
    """Wait on the worker's WaiterHub (one store watcher per worker, no query per waiting
    client) until the chat stream passes `after` or time runs out; counted by the waiting limits
    like every other wait (429 per address, 503 in all, with Retry-After)."""
    slot = waiters.limits().acquire(request.remote_addr, "chat")
    deadline = time.monotonic() + seconds
    try:
        while (remaining := deadline - time.monotonic()) > 0:
            if waiters.hub().wait(stream, after, min(remaining, waiters.DISCONNECT_CHECK)) > after:
                return
            if waiters.client_gone(request.environ):
                return  # the client left: its slot is freed now
    finally:
        slot.release()


@blp.route("/<match_id>/chat", methods=["POST"])
@bearer(blp)
@blp.arguments(ChatPostSchema, error_status_code=400)
@blp.response(201, ChatListSchema)
@errors(blp, 401, 403, 404, 413, 503)
def post_chat(data, match_id):
    """Say one line (1 to 300 characters) to the table; it is stored as a `chat_posted` event."""
    svc = service()
    seat = seat_for(svc.repo.load(match_id), require_token())
    store, stream = svc.repo.store, chat_stream(match_id)
    event = NewEvent(CHAT_TYPE, {"seat": seat, "text": data["text"].strip()})
    for _ in range(20):
        version = store.current_version(stream)
        try:
            result = store.append(stream, version, [event])
        except ConcurrencyError:
            continue
        line = {"version": result.last_version, "seat": seat, "text": event.payload["text"], "at": result.recorded_at}
        return {"version": result.last_version, "lines": [line]}, 201
    raise ApiError(503, "busy", "too many simultaneous chat lines, retry", {"Retry-After": "1"})
