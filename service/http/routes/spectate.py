"""Spectators: a live match's public view and event feed, with no hidden information at all."""

from __future__ import annotations

import engine

from ...usecases.correspondence import require_spectating
from ...model.presenters import status
from ..schemas import EventsQuerySchema
from ..schemas_correspondence import SpectateEventsSchema, SpectateViewSchema
from ..stream import SPECTATOR, items_for
from ..web import service
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
    svc = service()
    loaded = svc.load(match_id)
    require_spectating(loaded)
    return {
        "id": loaded.match_id,
        "version": loaded.version_for(None),
        "status": status(loaded),
        "seats": loaded.room.public_seats(),
        "view": engine.view(loaded.state, None) if loaded.started else None,
        "deadlines": svc.deadlines_for(loaded),
    }


@blp.route("/<match_id>/spectate/events", methods=["GET"])
@blp.arguments(EventsQuerySchema, location="query", error_status_code=400)
@blp.response(200, SpectateEventsSchema)
@errors(blp, 403, 404, 503)
def spectate_events(args, match_id):
    """Events after ?after=N, each engine.redact(event, None) (even once the match is over)."""
    svc = service()
    loaded = svc.load(match_id)
    require_spectating(loaded)
    return {
        "version": loaded.version_for(None),
        "viewer": None,
        "events": items_for(svc, loaded, SPECTATOR, args["after"]),
    }
