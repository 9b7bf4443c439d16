"""Seats: join a match with a display name; the owner fills empty seats with bots."""

from __future__ import annotations

from ..account_tokens import account_token
from ..links import play_url
from ...model.presenters import summary
from ..schemas import BotsAddedSchema, BotsSchema, JoinedSchema, JoinSchema
from ..web import bearer_token, service
from .declare import Blueprint, bearer, errors, owner_only, rate_limited

blp = Blueprint(
    "seats",
    __name__,
    url_prefix="/api/matches",
    description="Seats fill in join order; seat 0 deals first. Four seats start the match.",
)


@blp.route("/<match_id>/seats", methods=["POST"])
@rate_limited("RATE_LIMIT_JOIN")
@blp.arguments(JoinSchema, error_status_code=400)
@blp.response(201, JoinedSchema)
@errors(blp, 404, 409, 413, 503)
def join(data, match_id):
    """Take the next free seat; the answer carries the seat token, shown only once, and its play_url."""
    name, randomness = data["name"].strip() or "Player", data.get("randomness")
    seat, token, loaded = service().join(match_id, name, randomness, session=account_token())  # the account's too
    return {"seat": seat, "token": token, "play_url": play_url(match_id, token), "match": summary(loaded)}


@blp.route("/<match_id>/bots", methods=["POST"])
@owner_only
@bearer(blp)
@blp.arguments(BotsSchema, error_status_code=400)
@blp.response(200, BotsAddedSchema)
@errors(blp, 401, 403, 404, 409, 413, 503)
def add_bots(data, match_id):
    """Owner only (Bearer owner token): fill empty seats with bots, of one level or one level per seat."""
    levels = data.get("levels")  # instead of count and level: one level per bot
    count = len(levels) if levels is not None else data.get("count")
    seats, loaded = service().add_bots(match_id, bearer_token(), count, data["level"], levels=levels)
    return {"seats": seats, "match": summary(loaded)}
