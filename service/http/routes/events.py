"""A match's event feed, redacted for the caller (everything once the match is over)."""

from __future__ import annotations

from ..schemas import EventListSchema, EventsQuerySchema
from ..web import optional_token, reads, seated
from .declare import Blueprint, bearer, errors

blp = Blueprint(
    "events", __name__, url_prefix="/api/matches", description="Events after ?after=N as the caller may see them."
)


@blp.route("/<match_id>/events", methods=["GET"])
@bearer(blp, optional=True)
@blp.arguments(EventsQuerySchema, location="query", error_status_code=400)
@blp.response(200, EventListSchema)
@errors(blp, 403, 404, 503)
def list_events(args, match_id):
    """With a seat token: that seat's redaction; without: public; after the end: unredacted.

    `?after=` and every version are in the caller's numbering (its seat's, or the public's): the
    events it may see, counted without gaps; once the match is over the events it could not see in
    play come too, with `version` null."""
    seat, feed = reads().feed(match_id, optional_token(), args["after"])
    seated(seat)
    return feed
