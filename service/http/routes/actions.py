"""A seat's actions: version-checked (If-Match), idempotent (Idempotency-Key), then bots move."""

from __future__ import annotations

from flask import jsonify

from ..problems import ApiError
from ..schemas import ActionResultSchema, ActionSchema
from ..web import etag, idempotency_key, if_match_version, require_token, seated, service
from .declare import Blueprint, bearer, errors, headers

blp = Blueprint(
    "actions",
    __name__,
    url_prefix="/api/matches",
    description="Send the caller's decision (Bearer seat token; the seat comes from the token).",
)


@blp.route("/<match_id>/actions", methods=["POST"])
@bearer(blp)
@headers(blp, "If-Match", "Idempotency-Key")
@blp.arguments(ActionSchema, error_status_code=400)
@blp.alt_response(
    200,
    schema=ActionResultSchema,
    success=True,
    headers={
        "Idempotent-Replayed": {
            "schema": {"type": "string"},
            "description": "true when answering a retried Idempotency-Key",
        },
        "ETag": {
            "schema": {"type": "string"},
            "description": '"v<version>" of the returned view (use it as the next If-Match)',
        },
    },
)
@errors(blp, 401, 403, 404, 409, 413, 422, 503)
def act(data, match_id):
    """Apply one action; the answer carries the seat's fresh view, so the next action needs no GET.

    409 if If-Match/expected_version is stale, 422 if the rules forbid it.
    """
    command = {key: data[key] for key in ("action", "tile") if key in data}
    answer = service().act_as(match_id, require_token(), command, expected_version(data), idempotency_key())
    seated(answer.seat)
    response = jsonify(answer.body)  # hot path: no schema dump, same shape
    response.headers["Idempotent-Replayed"] = "true" if answer.replayed else "false"
    response.headers.update({"ETag": etag(answer.version), "Cache-Control": "private, no-cache"})
    return response


def expected_version(data: dict):
    """The version the client acted on, in its seat's numbering: If-Match or body expected_version
    (they must agree)."""
    header, body = if_match_version(), data.get("expected_version")
    if header is not None and body is not None and header != body:
        raise ApiError(400, "version_mismatch", "If-Match and expected_version name different versions")
    return header if header is not None else body
