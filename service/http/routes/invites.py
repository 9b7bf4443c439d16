"""Invites: the owner issues a fresh invite for a seat (new token, the old one stops working)."""

from __future__ import annotations

from ..links import play_url
from ..schemas import ReissuedSchema
from ..web import bearer_token, service
from .declare import Blueprint, bearer, errors, owner_only

blp = Blueprint(
    "invites",
    __name__,
    url_prefix="/api/matches",
    description="Owner only: re-invite a seat whose player lost their browser (a seat_reissued event).",
)


@blp.route("/<match_id>/seats/<int:seat>/invite", methods=["POST"])
@owner_only
@bearer(blp)
@blp.response(200, ReissuedSchema)
@errors(blp, 401, 403, 404, 409, 503)
def reissue(match_id, seat):
    """A new token for a human seat (shown once, with its play_url); the seat's old token stops working."""
    token, loaded = service().reissue_seat(match_id, bearer_token(), seat)
    return {"seat": seat, "token": token, "play_url": play_url(match_id, token), "version": loaded.version_for(None)}
