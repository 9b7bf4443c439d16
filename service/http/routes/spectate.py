"""Spectators: a live match's public view and event feed, with no hidden information at all."""

from __future__ import annotations

from ..schemas import EventsQuerySchema
from ..schemas_correspondence import SpectateEventsSchema, SpectateViewSchema
from ..web import reads
from .declare import Blueprint, errors

blp = Blueprint(
    "spectate",
    __name__,
    url_prefix="/api/matches",
    description="Read-only public view and feed (engine.view/redact with no seat); no token.",
)


@blp.route("/<match_id>/spectate", methods=["GET"])
@blp.response(200, SpectateViewSchema)
@errors(blp, 403, 404, 503)
def spectate(match_id):
    """engine.view(state, None) and the pending decisions' deadlines; 403 when spectating is off."""
    return reads().spectate(match_id)


@blp.route("/<match_id>/spectate/events", methods=["GET"])
@blp.arguments(EventsQuerySchema, location="query", error_status_code=400)
@blp.response(200, SpectateEventsSchema)
@errors(blp, 403, 404, 503)
def spectate_events(args, match_id):
    """Events after ?after=N, each engine.redact(event, None) (even once the match is over)."""
    return reads().spectate_events(match_id, args["after"])
