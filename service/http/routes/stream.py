"""The SSE event stream of a match: a seat's (Bearer seat token) or the public's (no token)."""

from __future__ import annotations

from flask import Response, current_app, request, stream_with_context

from ..schemas_correspondence import StreamQuerySchema
from ..stream import SSE, start_after
from ..web import client, optional_token, reads, seated
from .declare import Blueprint, bearer, errors, headers

blp = Blueprint(
    "stream",
    __name__,
    url_prefix="/api/matches",
    description="Server-Sent Events: the caller's visible events, resumable with Last-Event-ID.",
)


@blp.route("/<match_id>/stream", methods=["GET"])
@bearer(blp, optional=True)
@headers(blp, "Last-Event-ID")
@blp.arguments(StreamQuerySchema, location="query", error_status_code=400)
@blp.alt_response(
    200,
    description="text/event-stream; `id:` is the event version, `data:` the event as on "
    "GET .../events; `: heartbeat` comments; the stream ends after "
    "TILEFOLD_STREAM_LIFETIME seconds (reconnect with Last-Event-ID)",
    success=True,
)
@errors(blp, 400, 403, 404, 429, 503)
def stream(args, match_id):
    """With a seat token: that seat's events; without: the spectator feed (403 when spectating is off)."""
    token = optional_token()
    after = start_after(request.headers.get("Last-Event-ID"), args["after"])  # None: unreadable
    config = current_app.config
    following = reads().follow(  # 429/503 beyond the waiting limits
        match_id,
        token,
        after,
        client(),
        SSE,
        lifetime=config["STREAM_LIFETIME"],
        heartbeat=config["STREAM_HEARTBEAT"],
        idle=config["STREAM_IDLE"],
    )
    seated(following.seat)
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    response = Response(stream_with_context(following.messages), mimetype="text/event-stream", headers=headers)
    response.call_on_close(following.close)  # also when the body is never read
    return response
