"""The browser pages: home (create a match), invite, my matches and the table (docs/WEB.md).

Served by the same Flask app, offline (plain JS/CSS in service/http/static). The pages read and write
through the public API; `auth.CookieSeats` lets their HttpOnly seat cookies stand in for the
Bearer token. The routes here only render pages and move tokens into cookies.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any, Optional

from flask import Blueprint, Flask, Response, current_app, jsonify, request
from marshmallow import ValidationError

from engine import variants
from engine.options import OptionError

from ...model import room as rooms
from ...model.errors import NotFound
from ...usecases.reads import pattern_names
from ..problems import ApiError
from ..routes.declare import is_owner_route
from ..schemas import ViewQuerySchema
from ..web import client, reads, service
from . import accounts as account_pages, auth, common
from ..links import invite_url

blp = Blueprint("pages", __name__, template_folder="templates")
RANDOMNESS_TEXT = re.compile(r"[0-9a-f]{64}")
LEADERBOARD_LENGTH = 100  # players a leaderboard page lists


def install(app: Flask) -> None:
    """Register the pages and the cookie-to-Bearer middleware."""
    app.register_blueprint(blp)
    account_pages.install(app)
    app.wsgi_app = auth.CookieSeats(  # type: ignore[method-assign]
        app.wsgi_app, partial(is_owner_route, app), account_pages.delegate_for(app)
    )


blp.after_request(common.csrf_cookie)
_page = common.page


def _missing_page(match_id: str, missing: NotFound) -> Exception:
    """What a page raises for an unknown match: for a browser (Accept: text/html) a 404 page saying
    so, like /replay/<id>; for other clients the NotFound itself (the API's problem+json)."""
    wants_html = request.accept_mimetypes.best_match(["application/problem+json", "text/html"]) == "text/html"
    return _Missing(_page("no_match.html", status=404, match_id=match_id)) if wants_html else missing


class _Missing(Exception):
    def __init__(self, response: Response) -> None:
        super().__init__("no such match")
        self.response = response


@blp.errorhandler(_Missing)
def _missing(exc: _Missing) -> Response:
    return exc.response


_set, _check_csrf, _body = common.set_cookie, common.check_csrf, common.body


# -- pages ------------------------------------------------------------------------
@blp.route("/", methods=["GET"])
def home():
    return _page("home.html")


@blp.route("/join/<match_id>", methods=["GET"])
def join_page(match_id):
    try:
        seat = reads().seat_of(match_id, request.cookies.get(auth.seat_cookie(match_id)), _session())
    except NotFound as missing:
        raise _missing_page(match_id, missing) from None
    return _page("join.html", match_id=match_id, seated=seat is not None)


@blp.route("/my", methods=["GET"])
def my_page():
    return _page("my.html")


@blp.route("/play/<match_id>", methods=["GET"])
def play_page(match_id):
    try:
        cookies = request.cookies
        seat, owner = reads().table(
            match_id, cookies.get(auth.seat_cookie(match_id)), cookies.get(auth.owner_cookie(match_id)), _session()
        )
    except NotFound as missing:
        raise _missing_page(match_id, missing) from None
    return _page(
        "play.html",
        match_id=match_id,
        seat="" if seat is None else seat,
        owner=owner,
        invite=invite_url(match_id),
        names=pattern_names(),
    )


@blp.route("/leaderboards", methods=["GET"])
def leaderboards_page():
    """The first rule set's leaderboard (the registry's order); it links to the others."""
    return leaderboard_page(variants.names()[0])


@blp.route("/leaderboards/<rule_set>", methods=["GET"])
def leaderboard_page(rule_set):
    """A rule set's leaderboard (docs/API.md, "Ratings and figures"); 404 page for an unknown one."""
    try:
        board = reads().leaderboard(rule_set, LEADERBOARD_LENGTH)
    except NotFound:
        return _page("leaderboard.html", status=404, board=None, rule_set=rule_set)
    return _page("leaderboard.html", board=board, rule_set=rule_set)


@blp.route("/players/<player_id>", methods=["GET"])
def player_page(player_id):
    """A player's profile: rating and figures per rule set, finished matches with their results;
    a 404 page for an id that names no account."""
    try:
        player = reads().player(player_id)
    except NotFound:
        return _page("player.html", status=404, player=None)
    return _page("player.html", player=player)


# -- JSON helpers that set cookies --------------------------------------------------
@blp.route("/web/matches", methods=["POST"])
def create():
    """Create a match from the home page; this browser keeps the owner token (an HttpOnly cookie),
    or, signed in, its account does (`_keep`)."""
    _check_csrf()
    body = _body()
    options: dict[str, Any] = body["options"] if isinstance(body.get("options"), dict) else {}
    deadline, claim = _times(body.get("deadline_seconds"), body.get("claim_seconds"))
    try:
        match_id, owner_token = service().create_in_browser(
            str(body.get("variant", "")), options, deadline, claim, _session()
        )
    except OptionError as exc:
        raise ApiError(400, "invalid_option", str(exc)) from None
    response = jsonify({"id": match_id, "invite_url": invite_url(match_id), "play": f"/play/{match_id}"})
    _keep(response, auth.owner_cookie(match_id), owner_token)
    return response, 201


def _times(deadline: Any, claim: Any) -> tuple[Optional[int], Optional[int]]:
    """The move deadline and claim time a new match is asked for (None: none), checked."""
    if deadline is not None and (
        isinstance(deadline, bool) or not isinstance(deadline, int) or not 10 <= deadline <= 30 * 86400
    ):
        raise ApiError(400, "invalid_deadline", "deadline_seconds must be a whole number from 10 to 2592000")
    low, high = rooms.MIN_CLAIM_SECONDS, rooms.MAX_CLAIM_SECONDS
    if claim is not None and (isinstance(claim, bool) or not isinstance(claim, int) or not low <= claim <= high):
        raise ApiError(400, "invalid_claim_seconds", f"claim_seconds must be a whole number from {low} to {high}")
    return deadline or None, claim or None


@blp.route("/web/play-now", methods=["POST"])
def play_now():
    """Play now from the home page (signed in): a seat at the oldest open table of the rule set and
    options, or a new table; the account holds it (no cookie: every device of the account plays it)."""
    _check_csrf()
    body = _body()
    options: dict[str, Any] = body["options"] if isinstance(body.get("options"), dict) else {}
    name = str(body.get("name", "")).strip()[:40] or "Player"
    try:
        placed, _ = service().play_now(str(body.get("variant", "")), options, name, _session())
    except OptionError as exc:
        raise ApiError(400, "invalid_option", str(exc)) from None
    return jsonify({"id": placed.match_id, "seat": placed.seat, "play": f"/play/{placed.match_id}"}), 201


@blp.route("/web/matches/<match_id>/join", methods=["POST"])
def join(match_id):
    """Take the next seat with a display name; the seat token goes into an HttpOnly cookie (signed
    in: the account holds the seat instead, `_keep`)."""
    _check_csrf()
    body = _body()
    name = str(body.get("name", "")).strip()[:40] or "Player"
    randomness = body.get("randomness")  # the page's part of the walls (crypto.getRandomValues)
    if randomness is not None and (not isinstance(randomness, str) or RANDOMNESS_TEXT.fullmatch(randomness) is None):
        raise ApiError(400, "invalid_body", "randomness must be 32 bytes as 64 lower-case hex digits")
    seat, token = service().join_in_browser(match_id, name, randomness, _session())
    response = jsonify({"seat": seat, "play": f"/play/{match_id}"})
    _keep(response, auth.seat_cookie(match_id), token)
    return response, 201


@blp.route("/web/matches/<match_id>/claim", methods=["POST"])
def claim(match_id):
    """A play link's token (from its #fragment) moves into the HttpOnly seat cookie (signed in: the
    account holds the seat instead, `_keep`)."""
    _check_csrf()
    token = str(_body().get("token", ""))
    seat, held = service().keep_seat(match_id, token, _session())  # signed in: the account's seat instead
    if seat is None:
        raise ApiError(403, "invalid_token", "this link's seat token no longer works: ask the owner for a fresh invite")
    response = jsonify({"seat": seat})
    _keep(response, auth.seat_cookie(match_id), None if held else token)
    return response


def _keep(response: Response, cookie: str, token: Optional[str]) -> None:
    """Keep a seat's (or the owner's) token this browser was just given in its HttpOnly cookie;
    None: the signed-in account holds it (the use case linked it) and the device plays it through
    its session, so no cookie outlives the session (signing out everywhere ends it on a lost device
    too)."""
    if token is not None:
        _set(response, cookie, token)


@blp.route("/web/mine", methods=["GET"])
def my_matches():
    """Every match this browser holds a seat in, your turn first (service/usecases/reads.py), with an
    ETag over the list. `?wait=seconds` with If-None-Match naming it long-polls: answered when one
    of those matches moves in the browser's seat's numbering (never for an event hidden from that
    seat), else 304 when the time is up; counted by the waiting caps (429/503)."""
    wait = _wait_seconds()
    wait = min(wait, current_app.config["MAX_WAIT"]) if wait > 0 else 0
    listed = reads().mine(
        auth.held_matches(request.cookies), wait=wait, holds=_names, client=client(), session=_session()
    )
    if _names(listed.tag):
        return Response(status=304, headers={"ETag": listed.tag})
    response = jsonify({"matches": listed.matches})
    response.headers["ETag"] = listed.tag
    return response


def _wait_seconds() -> float:
    try:
        return float(ViewQuerySchema().load({"wait": request.args.get("wait", "0")})["wait"])
    except ValidationError as exc:
        detail = "the request does not fit the schema: query: wait: a number of seconds, 0 or more"
        raise ApiError(400, "invalid_body", detail, errors={"query": exc.messages}) from exc  # as the API answers


def _names(tag: str) -> bool:
    """True when If-None-Match names `tag` (or *)."""
    header = request.headers.get("If-None-Match") or ""
    return any(found.strip() in (tag, "*") for found in header.split(","))


@blp.route("/web/matches/<match_id>/ting", methods=["GET"])
def ting(match_id):
    """The seat's 报听 choices: each discard, the tiles it then waits on and their points."""
    return jsonify(reads().ting(match_id, request.cookies.get(auth.seat_cookie(match_id)), _session()))


def _session() -> Optional[str]:
    """The signed-in account's session cookie (service/http/pages/accounts.py), if any."""
    return request.cookies.get(auth.SESSION_COOKIE)
