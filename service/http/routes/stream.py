"""The SSE event stream of a match: a seat's (Bearer seat token) or the public's (no token)."""

from __future__ import annotations

from functools import partial

from typing import Any

from flask import Response, current_app, request, stream_with_context

from ...infra import waiters
from ...usecases.correspondence import require_spectating
from ..problems import ApiError
from ..schemas_correspondence import StreamQuerySchema
from ..stream import SPECTATOR, events, start_after
from ..services import services
from ..web import optional_viewer, service
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
    svc = service()
    loaded = svc.load(match_id)
    viewer: Any = optional_viewer(loaded)  # a seat, or SPECTATOR
    allowed = None
    if viewer is None:
        require_spectating(loaded)
        viewer, allowed = SPECTATOR, (lambda current: current.room.spectating or current.over)
    after = start_after(request.headers.get("Last-Event-ID"), args["after"])
    if after is None:
        raise ApiError(400, "invalid_last_event_id", "Last-Event-ID must be an event version (a whole number)")
    config = current_app.config
    slot = services().wait_limits.acquire(request.remote_addr, "stream")  # 429/503 beyond the waiting limits
    body = events(
        svc,
        match_id,
        viewer,
        after,
        lifetime=config["STREAM_LIFETIME"],
        heartbeat=config["STREAM_HEARTBEAT"],
        idle=config["STREAM_IDLE"],
        hub=services().hub,
        allowed=allowed,
        slot=slot,
        shared=services().shared_answers,
        gone=partial(waiters.client_gone, request.environ),
    )
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    response = Response(stream_with_context(body), mimetype="text/event-stream", headers=headers)
    response.call_on_close(slot.release)  # also when the body is never read
    return response
