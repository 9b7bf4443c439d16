"""Every use of flask-smorest's private surface, in one place (tests/service/test_smorest_adapter.py checks it).

* `TilefoldApi` overrides `Api._register_error_handlers` and `Api._register_responses`: errors are
  application/problem+json with stable codes (service/http/problems.py), and so are the error responses
  of the OpenAPI document.
* `TilefoldApi` also overrides `Api._init_spec`, `Api.register_blueprint` and the `spec` attribute, and
  `Blueprint` overrides `register_views_in_doc`: the OpenAPI document is built on its first read,
  not as the app is built (the document served is the same, byte for byte).
* `Blueprint` skips per-request work where a flask-smorest decorator only documents: the
  `_apidoc` its decorators attach is kept on the view itself (`_doc_only`), and plain arguments are
  loaded by the schema directly (`_plain_input`). bench/http.py in A/B (docs/API.md, "Framework
  internals") measured what that saves.
"""

from __future__ import annotations

import functools
import http
import threading
from typing import Any, Callable, Optional

import apispec
import flask_smorest
from flask import request
from flask_smorest.spec import openapi_cli
from flask_smorest.utils import prepare_response
from marshmallow import ValidationError

from . import problems
from .problems import ApiError
from .schemas import ProblemSchema

APIDOC = "_apidoc"  # the attribute flask-smorest's decorators document a view with


class TilefoldApi(flask_smorest.Api):
    """flask-smorest Api whose errors are application/problem+json with stable codes, and whose
    OpenAPI document is built when it is first asked for.

    Upstream builds the document (an apispec `APISpec`: every blueprint's operations, their schemas
    resolved) as the app is built; that was about a third of `service.app.create_app`, paid by every
    app of the test suite while few ever serve the document. Here `_init_spec` only notes its
    arguments and `register_blueprint` registers the routes and notes the blueprint (upstream's own
    `register_blueprint` runs, handed `_LATER` for the document it would write to); the first read
    of `spec` (GET /api/openapi.json, `flask openapi`) builds the document from them, in the same
    order upstream would, under a lock (tests/service/test_smorest_adapter.py compares the two).
    """

    ERROR_SCHEMA = ProblemSchema

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._built: Optional[apispec.APISpec] = None
        self._spec_arguments: Optional[dict[str, Any]] = None
        self._documented: list[tuple[Blueprint, Any, Any]] = []  # (blueprint, name, parameters)
        self._registering = False
        self._complete = False  # every noted blueprint documented in `_built`
        self._building = threading.RLock()
        super().__init__(*args, **kwargs)

    @property
    def spec(self) -> Any:
        if self._registering:
            return _LATER  # upstream's register_blueprint hands it to the blueprint and tags it
        if self._complete or self._spec_arguments is None:
            return self._built
        with self._building:  # another thread waits here for the whole document
            if not self._complete and self._built is None:  # (this thread, building, reads its own)
                try:
                    self._build_spec()
                except BaseException:
                    self._built = None
                    raise
        return self._built

    @spec.setter
    def spec(self, value: Optional[apispec.APISpec]) -> None:
        self._built = value

    def _init_spec(self, **kwargs: Any) -> None:
        self._spec_arguments = kwargs
        self._app.cli.add_command(openapi_cli)  # `flask openapi ...`, as upstream registers it

    def register_blueprint(self, blp, *, parameters=None, **options) -> None:
        """Upstream's, with the blueprint's documentation noted for `_build_spec` instead of built now."""
        if self._built is not None or not isinstance(blp, Blueprint):
            super().register_blueprint(blp, parameters=parameters, **options)  # documented at once
            return
        self._documented.append((blp, options.get("name", blp.name), parameters))
        self._registering = True
        try:
            super().register_blueprint(blp, parameters=parameters, **options)
        finally:
            self._registering = False

    def _build_spec(self) -> None:
        arguments = self._spec_arguments
        assert arguments is not None
        super()._init_spec(**arguments)  # sets `spec` (the setter above), then the lazy responses
        spec = self._built
        assert spec is not None
        for blp, name, parameters in self._documented:  # what upstream's register_blueprint does
            blp.register_views_in_doc(self, self._app, spec, name=name, parameters=parameters)
            spec.tag({"name": name, "description": blp.description})
        self._complete = True

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

    def register_views_in_doc(self, api, app, spec, *, name, parameters) -> None:
        if spec is not _LATER:  # TilefoldApi documents the blueprint when its document is built
            super().register_views_in_doc(api, app, spec, name=name, parameters=parameters)

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


class _Later:
    """What `TilefoldApi.spec` is while a blueprint registers: the document is built later."""

    def tag(self, tag: dict) -> None:
        """Upstream tags the blueprint as it registers it; `_build_spec` tags it when it documents it."""


_LATER = _Later()


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
