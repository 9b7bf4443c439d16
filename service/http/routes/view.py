"""A seat's private view with ETag, If-None-Match and long-polling (?wait=seconds)."""

from __future__ import annotations

from flask import Response, current_app, jsonify

from ..schemas import PrivateViewSchema, ViewQuerySchema
from ..web import client, etag, none_match, reads, require_token, seated
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
    wait = min(args["wait"], current_app.config["MAX_WAIT"]) if args["wait"] > 0 else 0
    answer = reads().view(match_id, require_token(), wait=wait, held=none_match, client=client())
    seated(answer.seat)
    headers = {"ETag": etag(answer.version), "Cache-Control": "private, no-cache"}
    if none_match(answer.version):
        return Response(status=304, headers=headers)
    shared = answer.text(current_app.json.dumps)  # every long-poll woken by this version: made once
    if shared is not None:
        return Response(shared, mimetype="application/json", headers=headers)
    response = jsonify(answer.body())  # hot path: no schema dump, same shape
    response.headers.update(headers)
    return response
