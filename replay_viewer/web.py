"""The replay blueprint: the page at /replay/<id>, its frames as JSON, and its static JS/CSS."""
from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Optional

from flask import Response, render_template, request
from flask_smorest import Blueprint

from engine import variants as engine_variants
from service import match_log
from service import room as rooms
from service.problems import ApiError
from service.web import bearer_token, service

from .frames import build_frames, parse_perspective

blp = Blueprint("replay", __name__, url_prefix="/replay", static_folder="static",
                static_url_path="/static", template_folder="templates",
                description="Replay viewer: step through a finished match (HTML page and its frames).")
_CACHE: "OrderedDict[tuple, bytes]" = OrderedDict()
_CACHE_SIZE = 16
_LOCK = threading.Lock()


def _owner_token() -> Optional[str]:
    return request.args.get("owner") or bearer_token()


@blp.route("/<match_id>", methods=["GET"])
@blp.doc(responses={"200": {"description": "the viewer page (text/html)"}})
def page(match_id):
    """The replay page (its script loads frames.json)."""
    service().repo.load(match_id)  # 404 for an unknown match
    html = render_template("replay.html", match_id=match_id)
    return Response(html, mimetype="text/html", headers={"Cache-Control": "no-cache"})


@blp.route("/<match_id>/frames.json", methods=["GET"])
@blp.doc(parameters=[{"in": "query", "name": "seat", "schema": {"type": "string"},
                      "description": "all (everyone's hands open) or 0..3 (what that seat knew)"}])
@blp.doc(responses={"200": {"description": "the replay frames (application/json)"}})
def frames(match_id):
    """Every step of the match as the engine's view for the chosen seat (public while in play)."""
    svc = service()
    loaded = svc.repo.load(match_id)
    if not loaded.over:
        owner = _owner_token()
        if not owner:
            raise ApiError(401, "missing_token", "a match in play replays only for its owner (?owner=<token>)",
                           {"WWW-Authenticate": 'Bearer realm="tilefold"'})
        if not rooms.matches(owner, loaded.room.owner_token_hash):
            raise ApiError(403, "not_owner", "the token is not this match's owner token")
        perspective = None  # hidden information removed while the match is in play
    else:
        try:
            perspective = parse_perspective(request.args.get("seat"))
        except ValueError as exc:
            raise ApiError(400, "invalid_seat", str(exc)) from None
    key = (match_id, loaded.version, perspective)
    with _LOCK:
        body = _CACHE.get(key)
    if body is None:
        body = _frames_body(loaded, perspective)
        with _LOCK:
            _CACHE[key] = body
            while len(_CACHE) > _CACHE_SIZE:
                _CACHE.popitem(last=False)
    cache = "public, max-age=3600" if loaded.over else "private, no-cache"
    return Response(body, mimetype="application/json", headers={"Cache-Control": cache})


def _frames_body(loaded, perspective) -> bytes:
    stored = service().repo.read(loaded.match_id, 0, until=loaded.version)
    out = build_frames(stored, perspective, match_log.service_types())
    out.update({
        "id": loaded.match_id, "variant": loaded.room.variant, "options": loaded.room.options,
        "status": "over" if loaded.over else "playing", "version": loaded.version,
        "seats": loaded.room.public_seats(), "names": match_log.pattern_names(),
        "variants": engine_variants.display_all(),  # labels and wild names from the variant registry
        "imported": match_log.import_record(service().repo, loaded.match_id) is not None,
    })
    return json.dumps(out, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
