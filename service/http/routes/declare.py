"""How a route declares itself: the Blueprint, its documented error responses, bearer auth, headers."""

from __future__ import annotations

import functools
import http
import threading
from typing import Any, Callable
from weakref import WeakKeyDictionary

from flask import Flask, current_app
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from ..services import services
from ..smorest_adapter import Blueprint

__all__ = [
    "Blueprint",
    "bearer",
    "errors",
    "headers",
    "owner_only",
    "is_owner_route",
    "declared_owner_only",
    "rate_limited",
]

_OWNER_ONLY = "tilefold_owner_only"
_RATE_LIMIT = "tilefold_rate_limit"


def errors(blp: Blueprint, *statuses: int) -> Callable:
    """Document problem+json responses for these statuses on a view."""

    def decorate(func: Callable) -> Callable:
        for status in statuses:
            func = blp.alt_response(status, response=http.HTTPStatus(status).name)(func)
        return func

    return decorate


_HEADERS = {
    "If-Match": 'ETag "v<version>" of the state the action was chosen on; stale → 409',
    "If-None-Match": 'ETag "v<version>" already held; unchanged → 304 (with ?wait=, long-poll)',
    "Idempotency-Key": "a client-chosen key; a retry with the same key and body returns the first answer",
    "Last-Event-ID": "resume the stream after this event version",
}


def bearer(blp: Blueprint, *, optional: bool = False) -> Callable:
    """Document the Bearer token (seat or owner) an operation needs, or accepts when `optional`.

    A required token is also checked for presence first, so a request without one is 401 even when
    its body is malformed too (place this right under @blp.route, above @blp.arguments).
    """
    doc = blp.doc(security=[{}, {"bearer": []}] if optional else [{"bearer": []}])
    if optional:
        return doc

    def decorate(func: Callable) -> Callable:
        @functools.wraps(func)
        def checked(*args, **kwargs):
            from ..web import require_token

            require_token()
            return func(*args, **kwargs)

        return doc(checked)

    return decorate


def headers(blp: Blueprint, *names: str) -> Callable:
    """Document request headers an operation reads."""
    return blp.doc(
        parameters=[
            {"in": "header", "name": n, "required": False, "schema": {"type": "string"}, "description": _HEADERS[n]}
            for n in names
        ]
    )


def owner_only(func: Callable) -> Callable:
    """Declare a route the match's owner calls with the owner token: in a browser, the owner cookie
    (`tfo_<match id>`), not the seat cookie, stands in for its Bearer token (service/http/pages/auth.py).
    Place it right under @blp.route (the mark travels up through functools.wraps)."""
    setattr(func, _OWNER_ONLY, True)
    return func


def is_owner_route(app: Flask, path: str, method: str) -> bool:
    """Whether the route `path` leads to (by any of its methods when not by `method`) is declared
    @owner_only."""
    adapter = app.url_map.bind("localhost")
    try:
        try:
            endpoint, _ = adapter.match(path, method)
        except MethodNotAllowed as refused:
            endpoint, _ = adapter.match(path, sorted(refused.valid_methods or ["GET"])[0])
    except HTTPException:  # no such route (or a redirect): not the owner's
        return False
    return declared_owner_only(app.view_functions.get(endpoint))


def declared_owner_only(view: object) -> bool:
    """Whether this view function was declared @owner_only."""
    return bool(getattr(view, _OWNER_ONLY, False))


def rate_limited(setting: str) -> Callable:
    """Declare a per-client-address rate limit on a route: the app's setting `setting` (a flask-limiter
    string such as "30 per minute", read at each request), counted by the app's Limiter
    (service/http/limits.py; a refused call is 429). Place it right under @blp.route, so the limit
    is checked before the token and the body."""

    def decorate(func: Callable) -> Callable:
        limited: "WeakKeyDictionary[Any, Callable]" = WeakKeyDictionary()  # limiter -> func under its limit
        lock = threading.Lock()

        def under_limit() -> Callable:
            limiter = services().limiter
            if limiter is None:
                return func
            with lock:  # once per limiter: flask-limiter counts each registration of the limit
                found = limited.get(limiter)
                if found is None:
                    found = limited[limiter] = limiter.limit(lambda: str(current_app.config[setting]))(func)
            return found

        @functools.wraps(func)
        def checked(*args: Any, **kwargs: Any) -> Any:
            return under_limit()(*args, **kwargs)

        setattr(checked, _RATE_LIMIT, setting)
        return checked

    return decorate


def declared_rate_limit(view: object) -> str | None:
    """The setting of the rate limit this view function was declared with, if any."""
    found = getattr(view, _RATE_LIMIT, None)
    return found if isinstance(found, str) else None
