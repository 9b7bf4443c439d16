"""HTTP blueprints, one per resource, and a decorator documenting their error responses."""
from __future__ import annotations

import functools
import http
from typing import Callable, Optional

import flask_smorest
from flask import request
from marshmallow import ValidationError


class Blueprint(flask_smorest.Blueprint):
    """flask-smorest's Blueprint, minus per-request cost where a decorator only documents.

    `alt_response` and `doc` record OpenAPI data and, upstream, also wrap the view in a function
    that only calls it (through `ensure_sync`); with a dozen such decorators per operation that
    was a measurable share of a hot request. Here they record the same data on the view itself.
    `arguments` gets a schema instance, built once, instead of a class webargs would instantiate
    on every request, and loads plain input (no query string; a JSON object body) with the
    schema directly: what webargs would produce, without its machinery (`_plain_input`). An
    empty query string loads to the query schema's defaults, computed on first use (they are
    constants; body schemas, whose defaults may be fresh lists or dicts, always load).
    """

    def alt_response(self, *args, **kwargs) -> Callable:
        return _doc_only(super().alt_response(*args, **kwargs))

    @staticmethod
    def doc(**kwargs) -> Callable:
        return _doc_only(flask_smorest.Blueprint.doc(**kwargs))

    def arguments(self, schema, *args, **kwargs) -> Callable:
        instance = schema() if isinstance(schema, type) else schema
        parse = super().arguments(instance, *args, **kwargs)
        location = kwargs.get("location", "json")

        def decorate(func: Callable) -> Callable:
            parsed = parse(func)
            defaults: dict = {}  # what a query schema loads from no arguments (constants; loaded once)

            @functools.wraps(parsed)
            def direct(*f_args, **f_kwargs):
                data = _plain_input(location)
                if data is None:
                    return parsed(*f_args, **f_kwargs)
                if not data and "values" in defaults:  # only ever set for a query schema
                    return func(*f_args, dict(defaults["values"]), **f_kwargs)
                try:
                    values = instance.load(data)
                except ValidationError:  # webargs words the 400 (and parses again, only on errors)
                    return parsed(*f_args, **f_kwargs)
                if not data and location == "query":
                    defaults["values"] = dict(values)
                return func(*f_args, values, **f_kwargs)
            return direct
        return decorate


def _plain_input(location: str) -> Optional[dict]:
    """The arguments as webargs would hand them to the schema, when that is plain to see, else None.

    No query string → {} (webargs excludes unknown query keys, so that is all it would load); a
    JSON body that parses to an object → that object (unknown keys then fail the schema, as with
    webargs). Anything else (a query string, a non-JSON or malformed body) goes through webargs.
    """
    if location == "query":
        return None if request.query_string else {}
    if location == "json" and request.is_json:
        body = request.get_json(silent=True)
        return body if isinstance(body, dict) else None
    return None


def _doc_only(decorator: Callable) -> Callable:
    """Keep the `_apidoc` a flask-smorest decorator computes; drop the wrapper it returns."""
    def apply(func: Callable) -> Callable:
        setattr(func, "_apidoc", getattr(decorator(func), "_apidoc"))  # noqa: B009, B010 - flask-smorest's private name
        return func
    return apply


def errors(blp: Blueprint, *statuses: int) -> Callable:
    """Document problem+json responses for these statuses on a view."""
    def decorate(func: Callable) -> Callable:
        for status in statuses:
            func = blp.alt_response(status, response=http.HTTPStatus(status).name)(func)
        return func
    return decorate


_HEADERS = {
    "If-Match": "ETag \"v<version>\" of the state the action was chosen on; stale → 409",
    "If-None-Match": "ETag \"v<version>\" already held; unchanged → 304 (with ?wait=, long-poll)",
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
    return blp.doc(parameters=[{"in": "header", "name": n, "required": False, "schema": {"type": "string"},
                                "description": _HEADERS[n]} for n in names])


def blueprints() -> list[Blueprint]:
    from . import (actions, chat, events, export, invites, matches, orders, replay, score, seats, spectate, stream,
                   variants, view, webhooks)
    return [matches.blp, seats.blp, view.blp, actions.blp, events.blp, score.blp, export.blp, replay.blp,
            orders.blp, webhooks.blp, spectate.blp, stream.blp, invites.blp, chat.blp, variants.blp]
