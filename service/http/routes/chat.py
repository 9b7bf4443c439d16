"""A chat line per match for its seated players (the lines: service/usecases/chat.py, read through
service/usecases/reads.py); only a seat token reads or writes them."""

from __future__ import annotations

from flask import current_app

from ..schemas import ChatListSchema, ChatPostSchema, ChatQuerySchema
from ..services import services
from ..web import client, reads, require_token, seated
from .declare import Blueprint, bearer, errors

blp = Blueprint(
    "chat",
    __name__,
    url_prefix="/api/matches",
    description="Chat between the seated players of a match (Bearer seat token).",
)


@blp.route("/<match_id>/chat", methods=["GET"])
@bearer(blp)
@blp.arguments(ChatQuerySchema, location="query", error_status_code=400)
@blp.response(200, ChatListSchema)
@errors(blp, 401, 403, 404, 429, 503)
def read_chat(args, match_id):
    """Lines after ?after=N (their versions in the chat stream); ?wait= long-polls for a new one.
    The wait is counted by the waiting limits like every other (429 per address, 503 in all)."""
    wait = min(args["wait"], current_app.config["MAX_WAIT"]) if args["wait"] > 0 else 0
    seat, lines = reads().chat_lines(match_id, require_token(), args["after"], wait=wait, client=client())
    seated(seat)
    return lines


@blp.route("/<match_id>/chat", methods=["POST"])
@bearer(blp)
@blp.arguments(ChatPostSchema, error_status_code=400)
@blp.response(201, ChatListSchema)
@errors(blp, 401, 403, 404, 413, 503)
def post_chat(data, match_id):
    """Say one line (1 to 300 characters) to the table; it is stored as a `chat_posted` event."""
    seat, said = services().chat.post(match_id, require_token(), data["text"])
    seated(seat)
    return said, 201
