"""Rooms: create a match, list matches, a match's public summary."""

from __future__ import annotations

from flask import current_app

from engine.options import OptionError, normalise

from ..account_tokens import account_token
from ..links import invite_url
from ...model.presenters import summary
from ..problems import ApiError
from ..schemas import MatchCreatedSchema, MatchListQuerySchema, MatchListSchema, MatchSummarySchema
from ..schemas_correspondence import CorrespondenceCreateSchema
from ..web import reads, service
from .declare import Blueprint, errors, rate_limited

blp = Blueprint(
    "matches",
    __name__,
    url_prefix="/api/matches",
    description="Rooms: create, list and inspect matches (public, no hidden tile).",
)


@blp.route("", methods=["GET"])
@blp.arguments(MatchListQuerySchema, location="query", error_status_code=400)
@blp.response(200, MatchListSchema)
@errors(blp, 400, 404, 503)
def list_matches(args):
    """List matches newest first by creation, without the table; `?before=<id>` for the next page."""
    matches, last = reads().matches(args.get("before"), current_app.config["LIST_LIMIT"])  # 404: unknown cursor
    return {"matches": matches, "next": f"/api/matches?before={last}" if last is not None else None}


@blp.route("", methods=["POST"])
@rate_limited("RATE_LIMIT_CREATE")
@blp.arguments(CorrespondenceCreateSchema, error_status_code=400)
@blp.response(201, MatchCreatedSchema)
@errors(blp, 413, 422, 503)
def create_match(data):
    """Create a match; the answer carries the owner token, shown only once."""
    try:
        _check_length(normalise(data["variant"], data["options"]))  # the engine's own 400s first
        match_id, owner_token, loaded = service().create(
            data["variant"],
            data["options"],
            deadline_seconds=data.get("deadline_seconds"),
            claim_seconds=data.get("claim_seconds"),
            session=account_token(),  # an account's API token: the match is the account's too
        )
    except OptionError as exc:
        raise ApiError(400, "invalid_option", str(exc)) from None
    location = {"Location": f"/api/matches/{match_id}"}
    body = {"id": match_id, "owner_token": owner_token, "invite_url": invite_url(match_id), "match": summary(loaded)}
    return body, 201, location


def _check_length(options: dict) -> None:
    """422 match_too_long beyond TILEFOLD_MAX_HANDS hands (a round of K-14 counts as 4 hands, its least)."""
    cap = current_app.config["MAX_HANDS"]
    hands, rounds = options.get("hands"), options.get("rounds")
    too_long = (isinstance(hands, int) and hands > cap) or (isinstance(rounds, int) and rounds * 4 > cap)
    if cap > 0 and too_long:
        raise ApiError(
            422,
            "match_too_long",
            f"a new match may last at most {cap} hands (TILEFOLD_MAX_HANDS; a round counts as 4)",
            max_hands=cap,
        )


@blp.route("/<match_id>", methods=["GET"])
@blp.response(200, MatchSummarySchema)
@errors(blp, 404, 503)
def get_match(match_id):
    """A match's public summary: seats, scores and the public table."""
    return reads().summary(match_id)
