"""Ratings and figures: a rule set's leaderboard, a player's ratings, figures and matches, and a
finished match's rating changes (docs/API.md, "Ratings and figures"). Public, read-only."""

from __future__ import annotations

from ..schemas import LeaderboardQuerySchema, LeaderboardSchema, MatchRatingsSchema, PlayerSchema
from ..web import reads
from .declare import Blueprint, errors

blp = Blueprint(
    "ratings",
    __name__,
    url_prefix="/api",
    description="Ratings and figures per rule set (public): leaderboards, players, a match's rating changes.",
)


@blp.route("/leaderboards/<rule_set>", methods=["GET"])
@blp.arguments(LeaderboardQuerySchema, location="query", error_status_code=400)
@blp.response(200, LeaderboardSchema)
@errors(blp, 400, 404, 503)
def leaderboard(args, rule_set):
    """A rule set's rated players, highest rating first: a variant's name (GET /api/variants), with
    `+wilds` for a variant whose options turned its wilds on (扣点点 with 耗子)."""
    return reads().leaderboard(rule_set, args["limit"])


@blp.route("/players/<player_id>", methods=["GET"])
@blp.response(200, PlayerSchema)
@errors(blp, 404, 503)
def player(player_id):
    """A player's rating and figures per rule set, and their finished matches (newest first); 404
    for an id that names no account (or a deleted one)."""
    return reads().player(player_id)


@blp.route("/matches/<match_id>/ratings", methods=["GET"])
@blp.response(200, MatchRatingsSchema)
@errors(blp, 404, 503)
def match_ratings(match_id):
    """A finished match's rating changes per seat, or why it is not rated (404 while it is in play)."""
    return reads().rating_changes(match_id)
