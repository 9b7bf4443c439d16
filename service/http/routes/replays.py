"""The replay blueprint: the page at /replay/<id>, its frames as JSON (service/usecases/replay.py, through
the viewer's reads), and replay_viewer's static JS/CSS."""

from __future__ import annotations

import gzip
from typing import Optional

from flask import Response, current_app, render_template, request

from replay_viewer import STATIC, TEMPLATES

from ...model.errors import NotFound
from ..web import bearer_token, reads
from .declare import Blueprint

blp = Blueprint(
    "replay",
    __name__,
    url_prefix="/replay",
    static_folder=str(STATIC),
    static_url_path="/static",
    template_folder=str(TEMPLATES),
    description="Replay viewer: step through a finished match (HTML page and its frames).",
)


def _owner_token() -> Optional[str]:
    return request.args.get("owner") or bearer_token()


@blp.route("/<match_id>", methods=["GET"])
@blp.doc(
    responses={
        "200": {"description": "the viewer page (text/html)"},
        "404": {
            "description": "no such match: a page saying so for a browser (Accept: text/html), else problem+json",
            "content": {
                "text/html": {"schema": {"type": "string"}},
                "application/problem+json": {"schema": {"type": "object"}},
            },
        },
    }
)
def page(match_id):
    """The replay page (its script loads frames.json); for an unknown match a browser (Accept: text/html)
    gets a 404 page, other clients the usual problem+json."""
    try:
        reads().exists(match_id)
    except NotFound:
        wants_html = request.accept_mimetypes.best_match(["application/problem+json", "text/html"]) == "text/html"
        if not wants_html:
            raise
        html = render_template("missing.html", match_id=match_id)
        return Response(html, status=404, mimetype="text/html", headers={"Cache-Control": "no-cache"})
    html = render_template("replay.html", match_id=match_id)
    return Response(html, mimetype="text/html", headers={"Cache-Control": "no-cache"})


@blp.route("/<match_id>/frames.json", methods=["GET"])
@blp.doc(
    parameters=[
        {
            "in": "query",
            "name": "seat",
            "schema": {"type": "string"},
            "description": "all (everyone's hands open) or 0..3 (what that seat knew)",
        },
        {
            "in": "query",
            "name": "hand",
            "schema": {"type": "integer", "minimum": 0},
            "description": "one page: the steps of the hand at this index (0-based) only",
        },
    ]
)
@blp.doc(
    responses={
        "200": {"description": "the replay frames (application/json)"},
        "422": {"description": "replay_paged: the match is too long to send whole; ask ?hand=K"},
    }
)
def frames(match_id):
    """The steps of the match (or of one hand, ?hand=K) as the engine's view for the chosen seat
    (public while in play). Every answer carries `index`: all hands with their pages and versions."""
    found = reads().replay(
        match_id,
        _owner_token(),
        request.args.get("seat"),
        request.args.get("hand"),
        current_app.config["REPLAY_WHOLE_HANDS"],
        review_samples=current_app.config["REVIEW_SAMPLES"],
        review_ahead=current_app.config["REVIEW_AHEAD"],
        review_waits=current_app.config["REVIEW_WAITS"],
    )
    cache_control = "public, max-age=3600" if found.over else "private, no-cache"
    headers = {"Cache-Control": cache_control, "Vary": "Accept-Encoding"}
    if "gzip" in request.headers.get("Accept-Encoding", ""):
        return Response(found.gzipped, mimetype="application/json", headers={**headers, "Content-Encoding": "gzip"})
    return Response(gzip.decompress(found.gzipped), mimetype="application/json", headers=headers)
