"""Play now (docs/API.md, "Play now"): an account's API token seats its account at the oldest open
table of a rule set and options, or opens one."""

from __future__ import annotations

from engine.options import OptionError

from ..account_tokens import require_account_token
from ..links import play_url
from ...model.presenters import summary
from ..problems import ApiError
from ..schemas import PlayNowAnswerSchema, PlayNowSchema
from ..web import service
from .declare import Blueprint, errors, rate_limited

blp = Blueprint("play_now", __name__, url_prefix="/api", description="Play now: a seat at an open table, or a new one.")


@blp.route("/play-now", methods=["POST"])
@rate_limited("RATE_LIMIT_JOIN")
@blp.doc(security=[{"account_token": []}])
@blp.arguments(PlayNowSchema, error_status_code=400)
@blp.response(201, PlayNowAnswerSchema)
@errors(blp, 401, 413, 503)
def play_now(data):
    """Seat the token's account at the oldest open table of this rule set and options (not started,
    no move deadline, none of its seats there), or open one (owned by the account) and seat it;
    the seat and the match are the account's."""
    try:
        placed, loaded = service().play_now(
            data["variant"],
            data["options"],
            data["name"].strip() or "Player",
            require_account_token(),
            data.get("randomness"),
        )
    except OptionError as exc:
        raise ApiError(400, "invalid_option", str(exc)) from None
    return {
        "id": placed.match_id,
        "seat": placed.seat,
        "token": placed.token,
        "play_url": play_url(placed.match_id, placed.token),
        "opened": placed.owner_token is not None,
        "owner_token": placed.owner_token,
        "match": summary(loaded),
    }, 201
