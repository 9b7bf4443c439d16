"""Every use of flask-smorest's private surface, in one place (tests/service/test_smorest_adapter.py checks it).

* `TilefoldApi` overrides `Api._register_error_handlers` and `Api._register_responses`: errors are
  application/problem+json with stable codes (service/http/problems.py), and so are the error responses
  of the OpenAPI document.
* `Blueprint` skips per-request work where a flask-smorest decorator only documents: the
  `_apidoc` its decorators attach is kept on the view itself (`_doc_only`), and plain arguments are
  loaded by the schema directly (`_plain_input`). bench/http.py in A/B (docs/API.md, "Framework
  internals") measured what that saves.
"""

from __future__ import annotations

import functools
import http
from typing import Any, Callable, Optional

import flask_smorest
from flask import request
from flask_smorest.utils import prepare_response
from marshmallow import ValidationError

from . import problems
from .problems import ApiError
from .schemas import ProblemSchema

APIDOC = "_apidoc"  # the attribute flask-smorest's decorators document a view with


class TilefoldApi(flask_smorest.Api):
    """flask-smorest Api whose errors are application/problem+json with stable codes."""

    ERROR_SCHEMA = ProblemSchema

    def _register_error_handlers(self) -> None:
        problems.register(self._app)

    def _register_responses(self) -> None:
        for status in http.HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            if status >= 400:
                response["schema"] = self.ERROR_SCHEMA
            prepare_response(response, self.spec, problems.PROBLEM_TYPE)
            self.spec.components.response(status.name, response, lazy=True)
        default = {"description": "Default error response", "schema": self.ERROR_SCHEMA}
        prepare_response(default, self.spec, problems.PROBLEM_TYPE)
        self.spec.components.response("DEFAULT_ERROR", default, lazy=True)


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
        body_required = location == "json" and kwargs.get("required", True)

        def decorate(func: Callable) -> Callable:
            parsed = parse(func)
            defaults: dict = {}  # what a query schema loads from no arguments (constants; loaded once)

            @functools.wraps(parsed)
            def direct(*f_args, **f_kwargs):
                if body_required and not request.get_data(cache=True):
                    # the OpenAPI document requires a body; none is not "every field at its default"
                    raise ApiError(400, "invalid_body", "this operation needs a JSON object body")
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
        setattr(func, APIDOC, getattr(decorator(func), APIDOC))
        return func

    return apply
