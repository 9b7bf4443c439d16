"""A seat's actions: version-checked (If-Match), idempotent (Idempotency-Key), then bots move."""

from __future__ import annotations

from flask import jsonify

from ...usecases.reads import renumbered, visible_events
from ...model.presenters import private_view
from ..problems import ApiError
from ..schemas import ActionResultSchema, ActionSchema
from ..web import etag, fingerprint, idempotency_key, if_match_version, require_token, seat_for, service
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
    svc = service()
    loaded = svc.load(match_id)
    seat = seat_for(loaded, require_token())
    expected = expected_version(data)
    command = {key: data[key] for key in ("action", "tile") if key in data}
    key = idempotency_key()
    request_fp = fingerprint(seat, {**command, "expected_version": expected}) if key else None
    acted = svc.act(match_id, seat, command, expected, key, request_fp, loaded)
    result, stored = acted.result, svc.own_events(match_id, acted)
    fresh = svc.latest(match_id)  # cached by the appends: no re-read, no re-fold
    shown_to = "all" if fresh.over else seat  # as the feed shows them: everything once the match is over
    view = private_view(fresh, seat)
    view["deadlines"] = svc.deadlines_for(fresh, seat)  # as GET view shows them (correspondence play)
    # versions in the seat's numbering (service/model/numbering.py); hidden events only grow at the end,
    # so an Idempotency-Key replay maps the stored result to the same numbers
    first, last = fresh.numbering.range(result.first_version, result.last_version, seat)
    body = {
        "accepted": True,
        "first_version": first,
        "version": last,
        "events": renumbered(visible_events(stored, shown_to), fresh.numbering, seat),
        "view": view,
    }
    response = jsonify(body)  # hot path: no schema dump, same shape
    response.headers["Idempotent-Replayed"] = "true" if result.replayed else "false"
    response.headers.update({"ETag": etag(fresh.version_for(seat)), "Cache-Control": "private, no-cache"})
    return response


def expected_version(data: dict):
    """The version the client acted on, in its seat's numbering: If-Match or body expected_version
    (they must agree)."""
    header, body = if_match_version(), data.get("expected_version")
    if header is not None and body is not None and header != body:
        raise ApiError(400, "version_mismatch", "If-Match and expected_version name different versions")
    return header if header is not None else body
