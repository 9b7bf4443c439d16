"""The replay blueprint: the page at /replay/<id>, its frames as JSON, and replay_viewer's static JS/CSS."""

from __future__ import annotations

from engine.wall import SeedError, joint_parts, joint_seed, links_to

import gzip
import json
from typing import Optional

from flask import Response, current_app, render_template, request
from flask_smorest import Blueprint

from engine import variants as engine_variants
from replay_viewer import STATIC, TEMPLATES
from replay_viewer.frames import build_frames, parse_perspective

from ...usecases import match_log
from ...model.errors import NotFound
from ..problems import ApiError
from ...infra.sized_cache import SizedCache
from ..services import services
from ..web import bearer_token, service

blp = Blueprint(
    "replay",
    __name__,
    url_prefix="/replay",
    static_folder=str(STATIC),
    static_url_path="/static",
    template_folder=str(TEMPLATES),
    description="Replay viewer: step through a finished match (HTML page and its frames).",
)
HAND_MARKS = ("hand_started", "hand_ended")


def _cache() -> SizedCache:
    """This app's frames cache (TILEFOLD_REPLAY_CACHE_BYTES)."""
    return services().replay_frames


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
        service().load(match_id)
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
    svc = service()
    loaded = svc.load(match_id)
    if not loaded.over:
        owner = _owner_token()
        if not owner:
            raise ApiError(
                401,
                "missing_token",
                "a match in play replays only for its owner (?owner=<token>)",
                {"WWW-Authenticate": 'Bearer realm="tilefold"'},
            )
        if not svc.is_owner(loaded, owner):
            raise ApiError(403, "not_owner", "the token is not this match's owner token")
        perspective = None  # hidden information removed while the match is in play
    else:
        try:
            perspective = parse_perspective(request.args.get("seat"))
        except ValueError as exc:
            raise ApiError(400, "invalid_seat", str(exc)) from None
    page = _page_asked()
    index = hand_index(loaded)
    if page is None and len(index) > current_app.config["REPLAY_WHOLE_HANDS"]:
        raise ApiError(
            422,
            "replay_paged",
            f"this match has {len(index)} hands: ask one at a time (?hand=0..{len(index) - 1})",
            pages=_pages(index),
        )
    if page is not None and page >= _pages(index):
        raise ApiError(404, "no_such_hand", f"this match has {_pages(index)} page(s) of frames")
    cache, key = _cache(), (match_id, loaded.version, perspective, page)
    body = cache.get(key)
    if body is None:
        body = _frames_body(loaded, perspective, index, page)
        cache.put(key, body, len(body))
    cache_control = "public, max-age=3600" if loaded.over else "private, no-cache"
    headers = {"Cache-Control": cache_control, "Vary": "Accept-Encoding"}
    if "gzip" in request.headers.get("Accept-Encoding", ""):
        return Response(body, mimetype="application/json", headers={**headers, "Content-Encoding": "gzip"})
    return Response(gzip.decompress(body), mimetype="application/json", headers=headers)


def _page_asked() -> Optional[int]:
    text = request.args.get("hand")
    if text is None:
        return None
    if not text.isdigit() or len(text) > 6:
        raise ApiError(400, "invalid_hand", "hand must be a page number 0, 1, 2 ...")
    return int(text)


def hand_index(loaded) -> list[dict]:
    """Every hand of the match: number, dealer, page, first/last version, scores once ended; read
    from the hand_started/hand_ended events only (two per hand), cached by size."""
    cache, key = _cache(), (loaded.match_id, loaded.version, "index")
    found = cache.get(key)
    if found is not None:
        return found
    hands: list[dict] = []
    link = loaded.room.wall_commitment  # joint walls: each hand's server part must hash to this
    for item in service().read_types(loaded.match_id, HAND_MARKS):
        if item.type == "hand_started":
            hands.append(
                {
                    "hand": item.payload["hand"],
                    "dealer": item.payload["dealer"],
                    "page": len(hands),
                    "first": item.version,
                    "last": None,
                    "scores": None,
                    "deltas": None,
                }
            )
        elif hands:
            hands[-1].update(
                last=item.version, scores=list(item.payload["scores"]), deltas=item.payload["settlement"]["deltas"]
            )
            derivation = wall_derivation(item.payload, link)
            if derivation is not None:
                hands[-1]["wall"] = derivation
                link = derivation["server"]
    cache.put(key, hands, 300 * len(hands) + 100)
    return hands


def wall_derivation(ended: dict, previous: Optional[str]) -> Optional[dict]:
    """How an ended hand's wall was derived (G-11 joint walls), as the replay shows it: the revealed
    server part, the seats' parts, the seed, and whether the part hashes to the previous link and
    the parts give the seed (engine/wall.py; `tilefold verify` checks the wall itself too)."""
    parts = ended.get("wall_parts")
    if not isinstance(parts, dict) or previous is None:
        return None
    try:
        server, seats = joint_parts(parts)
        links = links_to(server, previous)
        derived = joint_seed(server, int(ended["hand"]), seats).hex() == ended.get("seed")
    except (SeedError, KeyError, TypeError, ValueError):
        links = derived = False
    return {
        "server": parts.get("server"),
        "seats": parts.get("seats"),
        "previous": previous,
        "seed": ended.get("seed"),
        "commitment": ended.get("commitment"),
        "links": links,
        "derived": derived,
    }


def _pages(index: list[dict]) -> int:
    return max(1, len(index))


def _page_versions(loaded, index: list[dict], page: Optional[int]) -> tuple[int, int]:
    """(after, until) versions of a page: hand K's events, the opening ones on page 0, the closing
    ones on the last page; the whole match without a page."""
    if page is None:
        return 0, loaded.version
    after = index[page - 1]["last"] if page > 0 else 0
    last_page = page >= _pages(index) - 1
    until = loaded.version if last_page or index[page]["last"] is None else index[page]["last"]
    return after, until


def _frames_body(loaded, perspective, index: list[dict], page: Optional[int]) -> bytes:
    """The frames of one page, folded from the latest snapshot before it: time and memory bound by
    the page (one hand), not by the match."""
    svc = service()
    after, until = _page_versions(loaded, index, page)
    start = svc.at(loaded.match_id, after) if after > 0 else None
    stored = svc.read(loaded.match_id, after, until=until)
    out = build_frames(stored, perspective, match_log.service_types(), start.state if start else None)
    out.update(
        {
            "id": loaded.match_id,
            "variant": loaded.room.variant,
            "options": loaded.room.options,
            "status": "over" if loaded.over else "playing",
            "version": loaded.version,
            "seats": loaded.room.public_seats(),
            "names": match_log.pattern_names(),
            "variants": engine_variants.display_all(),  # labels and wild names from the variant registry
            "imported": svc.imported(loaded.match_id),
            "index": index,
            "page": page,
            "pages": _pages(index),
            "first_version": after + 1,
            "last_version": until,
        }
    )
    if not loaded.over:
        _public_numbers(out, loaded)
    raw = json.dumps(out, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return gzip.compress(raw, compresslevel=6, mtime=0)  # cached compressed; inflated for a client without gzip


def _public_numbers(out: dict, loaded) -> None:
    """A match in play replays as the public sees it, so its versions are in the public numbering
    too (service/model/numbering.py: no gap where a hidden window answer was); a finished match's replay
    shows everything, in the stream's own numbering."""
    numbering = loaded.numbering

    def public(version):
        return None if version is None else numbering.local(version, None)

    for step in out["steps"]:
        step["version"] = public(step["version"])
    out["version"] = public(out["version"])
    out["first_version"] = public(out["first_version"] - 1) + 1
    out["last_version"] = public(out["last_version"])
    out["index"] = [{**hand, "first": public(hand["first"]), "last": public(hand["last"])} for hand in out["index"]]
