"""Rate limits per client address (flask-limiter), on the calls an attacker can repeat cheaply
to fill the database or burn CPU: match creation, imports, joins and score calls. Each such route
declares its limit itself (`@rate_limited(setting)`, service/http/routes/declare.py); this module
makes the app's Limiter that counts them.

Settings (docs/API.md): TILEFOLD_RATE_LIMITS (on by default; off when TESTING unless a test sets
RATE_LIMITS), TILEFOLD_RATE_LIMIT_CREATE / _IMPORT / _JOIN / _SCORE (flask-limiter strings such
as "30 per minute"), TILEFOLD_RATE_LIMIT_STORAGE (a `limits` storage URI; "memory://" counts per
worker process). A refused call is 429 problem+json `rate_limited` with Retry-After.
"""

from __future__ import annotations

from flask import Flask
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

from .services import services


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
    services(app).limiter = limiter  # flask-limiter keeps only a weak reference
    return limiter
