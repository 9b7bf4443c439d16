"""A chat line per match for its seated players (the lines: service/usecases/chat.py); only a seat
token reads or writes them."""

from __future__ import annotations

import time

from flask import current_app, request

from ...infra import waiters
from ...usecases.chat import Chat, chat_stream
from ..schemas import ChatListSchema, ChatPostSchema, ChatQuerySchema
from ..services import services
from ..web import require_token, seat_for, service
from .declare import Blueprint, bearer, errors

blp = Blueprint(
    "chat",
    __name__,
    url_prefix="/api/matches",
    description="Chat between the seated players of a match (Bearer seat token).",
)


def chat_of() -> Chat:
    """The app's chat (service/app.py wires it beside the match service)."""
    return services().chat


@blp.route("/<match_id>/chat", methods=["GET"])
@bearer(blp)
@blp.arguments(ChatQuerySchema, location="query", error_status_code=400)
@blp.response(200, ChatListSchema)
@errors(blp, 401, 403, 404, 429, 503)
def read_chat(args, match_id):
    """Lines after ?after=N (their versions in the chat stream); ?wait= long-polls for a new one."""
    svc, chat = service(), chat_of()
    seat_for(svc.load(match_id), require_token())
    if args["wait"] > 0 and chat.version(match_id) <= args["after"]:
        wait_for_line(chat_stream(match_id), args["after"], min(args["wait"], current_app.config["MAX_WAIT"]))
    return chat.lines(match_id, args["after"])


def wait_for_line(stream: str, after: int, seconds: float) -> None:
    """Wait on the worker's WaiterHub (one store watcher per worker, no query per waiting
    client) until the chat stream passes `after` or time runs out; counted by the waiting limits
    like every other wait (429 per address, 503 in all, with Retry-After)."""
    slot = services().wait_limits.acquire(request.remote_addr, "chat")
    deadline = time.monotonic() + seconds
    try:
        while (remaining := deadline - time.monotonic()) > 0:
            if services().hub.wait(stream, after, min(remaining, waiters.DISCONNECT_CHECK)) > after:
                return
            if waiters.wait_over(services().hub, request.environ):
                return  # stopping, or the client left: its slot is freed now
    finally:
        slot.release()


@blp.route("/<match_id>/chat", methods=["POST"])
@bearer(blp)
@blp.arguments(ChatPostSchema, error_status_code=400)
@blp.response(201, ChatListSchema)
@errors(blp, 401, 403, 404, 413, 503)
def post_chat(data, match_id):
    """Say one line (1 to 300 characters) to the table; it is stored as a `chat_posted` event."""
    seat = seat_for(service().load(match_id), require_token())
    return chat_of().post(match_id, seat, data["text"]), 201
