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
    private = (
        "_register_error_handlers",
        "_register_responses",
        "_init_spec",
        "register_views_in_doc",
        "_apidoc",
        "flask_smorest.utils",
        "flask_smorest.spec",
    )
    users = {
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if any(name in p.read_text(encoding="utf-8") for name in private)
    }
    assert users == {"smorest_adapter.py"}


def _document(tmp_path, monkeypatch, api_class) -> tuple[bytes, list[str]]:
    """/api/openapi.json as an app built with `api_class` serves it, and the app's CLI commands."""
    import service.app

    monkeypatch.setattr(service.app, "TilefoldApi", api_class)
    app = service.app.create_app({"DATABASE": str(tmp_path / f"{api_class.__name__}.db"), "TESTING": True})
    reply = app.test_client().get("/api/openapi.json")
    assert reply.status_code == 200 and reply.mimetype == "application/json"
    return reply.data, sorted(app.cli.commands)


class _EagerApi(TilefoldApi):
    """The adapter's Api with upstream's eager document: built as the app is, blueprint by blueprint."""

    spec = None  # a plain attribute again, as upstream has it
    _init_spec = flask_smorest.Api._init_spec
    register_blueprint = flask_smorest.Api.register_blueprint


def test_the_lazily_built_document_is_upstreams_eager_one_byte_for_byte(tmp_path, monkeypatch):
    """Given two apps, one documenting its blueprints as upstream does (as they register) and one with
    the adapter's lazy document, when each serves /api/openapi.json, then the bytes are the same, and
    both apps have upstream's `flask openapi` commands."""
    eager, eager_commands = _document(tmp_path, monkeypatch, _EagerApi)
    lazy, lazy_commands = _document(tmp_path, monkeypatch, TilefoldApi)
    assert lazy == eager
    assert lazy_commands == eager_commands and "openapi" in lazy_commands


def test_an_app_builds_its_document_once_and_only_when_it_is_read(app, monkeypatch):
    """Given a fresh app, when nothing reads its document, then it is not built; when two threads read
    it at once and then again, then it was built once and both served the same bytes."""
    import threading

    builds = []
    build = TilefoldApi._build_spec
    monkeypatch.setattr(TilefoldApi, "_build_spec", lambda api: builds.append(api) or build(api))
    client = app.test_client()
    assert client.get("/api/variants").status_code == 200 and builds == []
    served: list[bytes] = []
    readers = [
        threading.Thread(target=lambda: served.append(app.test_client().get("/api/openapi.json").data))
        for _ in range(2)
    ]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join()
    served.append(client.get("/api/openapi.json").data)
    assert len(builds) == 1 and len(served) == 3 and len(set(served)) == 1


def test_upstream_still_documents_a_blueprint_as_it_registers_it_through_spec():
    """The lazy document relies on upstream's `register_blueprint` writing the blueprint's documentation
    only through `self.spec` (`register_views_in_doc`, then `spec.tag`) and on `_init_spec` building
    the whole `APISpec` and adding the `openapi` CLI group."""
    register = inspect.getsource(flask_smorest.Api.register_blueprint)
    assert "blp.register_views_in_doc(" in register and "self.spec.tag(" in register
    init_spec = inspect.getsource(flask_smorest.Api._init_spec)
    assert "self.spec = apispec.APISpec(" in init_spec and "add_command(openapi_cli)" in init_spec
    assert {"spec", "register_blueprint", "_init_spec"} <= set(vars(TilefoldApi))
    assert "register_views_in_doc" in vars(Blueprint)
