"""A seat's private view with ETag, If-None-Match and long-polling (?wait=seconds)."""

from __future__ import annotations

import time

from flask import Response, current_app, jsonify, request

from ...model.presenters import private_view
from ...infra import waiters
from ...model.match import Loaded, stream_of
from ..schemas import PrivateViewSchema, ViewQuerySchema
from ..services import services
from ..web import etag, none_match, require_token, seat_for, service
from .declare import Blueprint, bearer, errors, headers

blp = Blueprint("view", __name__, url_prefix="/api/matches", description="What one seat sees (Bearer seat token).")


@blp.route("/<match_id>/view", methods=["GET"])
@bearer(blp)
@headers(blp, "If-None-Match")
@blp.arguments(ViewQuerySchema, location="query", error_status_code=400)
@blp.alt_response(
    200,
    schema=PrivateViewSchema,
    success=True,
    headers={"ETag": {"schema": {"type": "string"}, "description": '"v<version>"'}},
)
@blp.alt_response(304, description="Not modified (If-None-Match names the current version)")
@errors(blp, 401, 403, 404, 429, 503)
def get_view(args, match_id):
    """engine.view for the caller's seat plus names and legal actions; ETag \"v<version>\"."""
    svc = service()
    loaded = svc.load(match_id)
    seat = seat_for(loaded, require_token())
    waited = args["wait"] > 0 and none_match(loaded.version_for(seat))
    if waited:
        loaded = wait_for_change(loaded, seat, min(args["wait"], current_app.config["MAX_WAIT"]))
    version = loaded.version_for(seat)  # the seat's own numbering (service/model/numbering.py)
    headers = {"ETag": etag(version), "Cache-Control": "private, no-cache"}
    if none_match(version):
        return Response(status=304, headers=headers)
    if waited:  # every long-poll of this seat woken by this version gets the same answer: made once
        key = ("view", loaded.match_id, loaded.version, seat)
        data = services().shared_answers.get_or_make(key, lambda: current_app.json.dumps(view_body(svc, loaded, seat)))
        return Response(data, mimetype="application/json", headers=headers)
    response = jsonify(view_body(svc, loaded, seat))  # hot path: no schema dump, same shape
    response.headers.update(headers)
    return response


def view_body(svc, loaded: Loaded, seat: int) -> dict:
    body = private_view(loaded, seat)
    body["deadlines"] = svc.deadlines_for(
        loaded, seat
    )  # correspondence play: [] without move deadlines; in a window its own only
    return body


def wait_for_change(loaded: Loaded, seat: int, seconds: float) -> Loaded:
    """Wait on the worker's WaiterHub (one store query per poll for all waiters, across workers)
    until the match moves in `seat`'s numbering or time runs out; counted by the waiting limits
    (429/503 beyond them). An event hidden from the seat (another seat's answer in an open window)
    wakes the hub but not the answer: the wait goes on, as if nothing had happened."""
    slot = services().wait_limits.acquire(request.remote_addr, "view")
    seen, known = loaded.version_for(seat), loaded.version
    deadline = time.monotonic() + seconds
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return loaded
            version = services().hub.wait(stream_of(loaded.match_id), known, min(remaining, waiters.DISCONNECT_CHECK))
            if version <= known:
                if waiters.wait_over(services().hub, request.environ):
                    return loaded  # stopping, or the client left: its slot is freed now, not when the wait would end
                continue
            known = version
            loaded = service().load(loaded.match_id)
            if loaded.version_for(seat) != seen:
                return loaded
    finally:
        slot.release()
