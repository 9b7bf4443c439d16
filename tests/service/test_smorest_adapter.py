"""flask-smorest's private surface that service/http/smorest_adapter.py relies on: these fail when the library changes."""

from __future__ import annotations

import inspect

import flask_smorest
import pytest
from flask import Flask

from service.http import smorest_adapter
from service.http.smorest_adapter import APIDOC, Blueprint, TilefoldApi


def test_api_init_calls_the_two_hooks_the_adapter_overrides():
    """Given an Api subclass overriding the private hooks, when it is initialised, then both run."""
    called = []

    class Probe(flask_smorest.Api):
        def _register_error_handlers(self) -> None:
            called.append("errors")

        def _register_responses(self) -> None:
            called.append("responses")

    app = Flask(__name__)
    app.config.update({"API_TITLE": "t", "API_VERSION": "1", "OPENAPI_VERSION": "3.0.3"})
    Probe(app)
    assert sorted(called) == ["errors", "responses"]
    for name in ("_register_error_handlers", "_register_responses"):
        assert name in vars(TilefoldApi) and callable(getattr(flask_smorest.Api, name))


@pytest.mark.parametrize(
    "decorate",
    [
        lambda blp: blp.alt_response(409, response="CONFLICT"),
        lambda blp: blp.doc(parameters=[{"in": "header", "name": "If-Match", "schema": {"type": "string"}}]),
    ],
    ids=["alt_response", "doc"],
)
def test_documentation_only_decorators_record_what_upstream_records(decorate):
    """Given a flask-smorest decorator, when the adapter applies it, then the view carries the same `_apidoc`
    the upstream wrapper would carry, and no wrapper (the view itself is returned)."""
    upstream = decorate(flask_smorest.Blueprint("up", __name__))

    def fresh():
        """A view."""

    wrapped = upstream(fresh)
    assert wrapped is not fresh and hasattr(wrapped, APIDOC)  # upstream wraps; we rely on its _apidoc

    def mine():
        """A view."""

    kept = decorate(Blueprint("mine", __name__))(mine)
    assert kept is mine and getattr(kept, APIDOC) == getattr(wrapped, APIDOC)


def test_arguments_still_documents_through_upstream():
    """The adapter's `arguments` wraps upstream's: the parameters reach the view's `_apidoc`."""
    from service.http.schemas import JoinSchema

    def join(data):
        """A view."""

    parsed = Blueprint("a", __name__).arguments(JoinSchema, error_status_code=400)(join)
    assert "arguments" in getattr(parsed, APIDOC)
    assert "location" in inspect.signature(flask_smorest.Blueprint.arguments).parameters


def test_the_served_document_keeps_problem_json_error_responses(client):
    spec = client.get("/api/openapi.json").get_json()
    conflict = spec["components"]["responses"]["CONFLICT"]
    assert list(conflict["content"]) == ["application/problem+json"]
    assert "409" in spec["paths"]["/api/matches/{match_id}/actions"]["post"]["responses"]


def test_only_the_adapter_touches_private_names():
    """No other service module names flask-smorest's private hooks or attributes."""
    import pathlib

    root = pathlib.Path(smorest_adapter.__file__).parent
    private = ("_register_error_handlers", "_register_responses", "_apidoc", "flask_smorest.utils")
    users = {
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if any(name in p.read_text(encoding="utf-8") for name in private)
    }
    assert users == {"smorest_adapter.py"}
