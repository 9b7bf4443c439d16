"""Rate limits per client address (flask-limiter), on the calls an attacker can repeat cheaply
to fill the database or burn CPU: match creation, imports, joins and score calls.

Settings (docs/API.md): TILEFOLD_RATE_LIMITS (on by default; off when TESTING unless a test sets
RATE_LIMITS), TILEFOLD_RATE_LIMIT_CREATE / _IMPORT / _JOIN / _SCORE (flask-limiter strings such
as "30 per minute"), TILEFOLD_RATE_LIMIT_STORAGE (a `limits` storage URI; "memory://" counts per
worker process). A refused call is 429 problem+json `rate_limited` with Retry-After.
"""

from __future__ import annotations

from typing import Any, Callable

from flask import Flask, current_app
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

from .services import services

#: endpoint -> its setting
LIMITED = {
    "matches.create_match": "RATE_LIMIT_CREATE",
    "export.import_match": "RATE_LIMIT_IMPORT",
    "seats.join": "RATE_LIMIT_JOIN",
    "score.score": "RATE_LIMIT_SCORE",
}


def _setting(key: str) -> Callable[[], str]:
    """The limit as a callable: read from the app's config at each request (tests change it)."""
    return lambda: str(current_app.config[key])


def install(app: Flask) -> Limiter:
    enabled = app.config.get("RATE_LIMITS")
    if enabled is None:
        enabled = not app.config.get("TESTING")
    limiter = Limiter(
        get_remote_address,
        app=app,
        storage_uri=app.config["RATE_LIMIT_STORAGE"],
        enabled=bool(enabled),
        headers_enabled=True,
        default_limits=[],
    )
    for endpoint, key in LIMITED.items():
        view: Any = app.view_functions[endpoint]
        app.view_functions[endpoint] = limiter.limit(_setting(key))(view)
    services(app).limiter = limiter  # flask-limiter keeps only a weak reference
    return limiter
