"""Match logs over HTTP: export a finished match (ndjson/json/text) and import a verified log."""

from __future__ import annotations

from flask import Response, current_app, request

from ...usecases import match_log
from ..import_check import check_service_events
from ...model import room as rooms
from ..problems import ApiError
from ..web import reads, service
from .declare import Blueprint, errors, rate_limited

blp = Blueprint(
    "export",
    __name__,
    url_prefix="/api/matches",
    description="Export a finished match's log; import a verified log as a read-only match.",
)
DEFAULT_IMPORT_LIMIT = (
    4 * 1024 * 1024
)  # TILEFOLD_MAX_IMPORT (a bound on what one import may make the server parse: was 16 MiB)


@blp.route("/<match_id>/export", methods=["GET"])
@blp.doc(parameters=[{"in": "query", "name": "format", "schema": {"type": "string", "enum": list(match_log.FORMATS)}}])
@blp.alt_response(200, description="ndjson (one stored row a line), json or a readable text log", success=True)
@errors(blp, 400, 404, 409, 503)
def export_match(match_id):
    """The log of a finished match (409 while it is in play); ndjson rows are exactly as stored."""
    fmt = request.args.get("format", "ndjson")
    body, mimetype = reads().export(match_id, fmt)
    ext = {"ndjson": "ndjson", "json": "json", "text": "txt"}[fmt]
    headers = {"Content-Disposition": f'inline; filename="tilefold-{match_id}.{ext}"'}
    return Response(body, mimetype=mimetype, headers=headers)


@blp.route("/import", methods=["POST"])
@rate_limited("RATE_LIMIT_IMPORT")
@blp.alt_response(201, description="the new match's id, summary and the verdict", success=True)
@errors(blp, 400, 413, 422, 503)
def import_match():
    """Verify an exported log (ndjson or a JSON list) and store it as a finished, read-only match."""
    request.max_content_length = current_app.config.get("MAX_IMPORT_BYTES", DEFAULT_IMPORT_LIMIT)
    text = request.get_data(as_text=True)
    try:
        rows, signed = match_log.read_log(text)
    except match_log.LogError as exc:
        raise ApiError(400, "invalid_log", str(exc)) from None
    match_id = rooms.new_match_id()
    verdict, match = service().import_log(rows, match_id, signed, check=check_service_events)
    body = {"id": match_id, "verdict": verdict.text(), "signed_by_trusted_key": bool(verdict.trusted), "match": match}
    return body, 201, {"Location": f"/api/matches/{match_id}"}


keys_blp = Blueprint(
    "keys",
    __name__,
    url_prefix="/api/keys",
    description="The server's public signing keys: check a match log's signatures (tilefold verify --key).",
)


@keys_blp.route("", methods=["GET"])
@keys_blp.alt_response(
    200, description="`{keys: [{id, algorithm, public_key (base64 of 32 raw bytes), current}]}`", success=True
)
@errors(keys_blp, 503)
def public_keys():
    """Every signing key this server has used (the current one first): old matches stay checkable."""
    keyring = service().keyring
    return {"keys": keyring.describe() if keyring is not None else []}
