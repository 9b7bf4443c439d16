"""HTTP blueprints, one per resource (how each declares itself: service/http/routes/declare.py)."""

from __future__ import annotations

from ..smorest_adapter import Blueprint
from .declare import bearer, errors, headers  # noqa: F401  (route modules import them from .declare)


def blueprints() -> list[Blueprint]:
    from . import (
        account,
        actions,
        chat,
        events,
        export,
        invites,
        matches,
        orders,
        play_now,
        ratings,
        replays,
        score,
        seats,
        spectate,
        stream,
        variants,
        view,
        webhooks,
    )

    return [
        matches.blp,
        seats.blp,
        view.blp,
        actions.blp,
        events.blp,
        score.blp,
        export.blp,
        export.keys_blp,
        replays.blp,
        orders.blp,
        webhooks.blp,
        spectate.blp,
        stream.blp,
        invites.blp,
        chat.blp,
        variants.blp,
        ratings.blp,
        account.blp,
        play_now.blp,
    ]
