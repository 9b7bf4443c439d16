"""HTTP blueprints, one per resource, and a decorator documenting their error responses."""
from __future__ import annotations

import http
from typing import Callable

from flask_smorest import Blueprint


def errors(blp: Blueprint, *statuses: int) -> Callable:
    """Document problem+json responses for these statuses on a view."""
    def decorate(func: Callable) -> Callable:
        for status in statuses:
            func = blp.alt_response(status, response=http.HTTPStatus(status).name)(func)
        return func
    return decorate


def blueprints() -> list[Blueprint]:
    from . import actions, events, export, matches, orders, replay, score, seats, spectate, stream, view, webhooks
    return [matches.blp, seats.blp, view.blp, actions.blp, events.blp, score.blp, export.blp, replay.blp,
            orders.blp, webhooks.blp, spectate.blp, stream.blp]
