"""Shared fixtures: a Flask app on a temp database and a small client for the match API."""

from __future__ import annotations

import os
import random
from typing import Any, Optional

import pytest
from hypothesis import HealthCheck, settings

from service.http.services import services

# The machine is shared (other jobs, `-n 2` workers): how fast an example is drawn or run says
# nothing about the code, so no property test fails on a deadline or a slow draw. A failure still
# prints the seed that reproduces it (`@seed(...)`, `--hypothesis-seed`).
settings.register_profile("shared_machine", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("shared_machine")


class Reply:
    """A response from the Flask test client or requests, in one shape."""

    def __init__(self, status: int, body: Any, headers: Any):
        self.status, self.body, self.headers = status, body, headers

    def __repr__(self) -> str:
        return f"Reply({self.status}, {self.body!r})"


class MatchClient:
    """Thin helpers over the HTTP API; `transport(method, path, json, headers)` -> Reply."""

    def __init__(self, transport):
        self.transport = transport

    def call(self, method: str, path: str, json: Any = None, token: Optional[str] = None, **headers) -> Reply:
        headers = {k.replace("_", "-"): v for k, v in headers.items()}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return self.transport(method, path, json, headers)

    def create(self, variant: str = "koudiandian", options: Optional[dict] = None) -> tuple[str, str]:
        reply = self.call("POST", "/api/matches", {"variant": variant, "options": options or {"hands": 2}})
        assert reply.status == 201, reply
        return reply.body["id"], reply.body["owner_token"]

    def join(self, match_id: str, name: str) -> str:
        reply = self.call("POST", f"/api/matches/{match_id}/seats", {"name": name})
        assert reply.status == 201, reply
        return reply.body["token"]

    def bots(self, match_id: str, owner: str) -> Reply:
        reply = self.call("POST", f"/api/matches/{match_id}/bots", {}, token=owner)
        assert reply.status == 200, reply
        return reply

    def view(self, match_id: str, token: str, **headers) -> Reply:
        return self.call("GET", f"/api/matches/{match_id}/view", token=token, **headers)

    def act(self, match_id: str, token: str, command: dict, version: Optional[int] = None, **headers) -> Reply:
        if version is not None:
            headers["If_Match"] = f'"v{version}"'
        return self.call("POST", f"/api/matches/{match_id}/actions", command, token=token, **headers)

    def events(self, match_id: str, token: Optional[str] = None, after: int = 0) -> Reply:
        return self.call("GET", f"/api/matches/{match_id}/events?after={after}", token=token)

    def summary(self, match_id: str) -> dict:
        reply = self.call("GET", f"/api/matches/{match_id}")
        assert reply.status == 200, reply
        return reply.body

    def new_match(
        self, variant: str = "koudiandian", options: Optional[dict] = None, humans: int = 4
    ) -> tuple[str, str, list[str]]:
        """A started match with `humans` joined seats (the rest bots); returns (id, owner, tokens)."""
        match_id, owner = self.create(variant, options)
        tokens = [self.join(match_id, f"player{i}") for i in range(humans)]
        if humans < 4:
            self.bots(match_id, owner)
        return match_id, owner, tokens

    def play_randomly(
        self, match_id: str, tokens: list[str], rng: random.Random, max_steps: int = 20_000, on_reply=None
    ) -> int:
        """Every human seat picks a random legal action until the match is over; returns actions."""
        actions = 0
        for _ in range(max_steps):
            moved = False
            for token in tokens:
                view = self.view(match_id, token)
                assert view.status == 200, view
                if on_reply:
                    on_reply(token, view)
                if view.body["status"] == "over":
                    return actions
                legal = view.body["legal_actions"]
                if not legal:
                    continue
                reply = self.act(match_id, token, rng.choice(legal), view.body["version"])
                if on_reply:
                    on_reply(token, reply)
                assert reply.status in (200, 409), reply
                moved |= reply.status == 200
                actions += reply.status == 200
            if not moved and self.summary(match_id)["status"] == "over":
                return actions
        raise AssertionError("the match did not end")


def flask_transport(client):
    def transport(method, path, json, headers):
        resp = client.open(path, method=method, json=json, headers=headers)
        body = resp.get_json(silent=True) if resp.data else None
        return Reply(resp.status_code, body, resp.headers)

    return transport


def retrying_session():
    """A requests session that resends a GET or HEAD once more when the server closed the kept-alive
    connection just as the request went out (gunicorn closes idle connections after two seconds; a
    client that waited about that long can race it and read a reset). Writes are never resent."""
    import requests
    from requests.adapters import HTTPAdapter
    from urllib3.util.retry import Retry

    session = requests.Session()
    retry = Retry(total=2, connect=2, read=2, status=0, redirect=0, allowed_methods=frozenset({"GET", "HEAD"}))
    session.mount("http://", HTTPAdapter(max_retries=retry))
    return session


def requests_transport(base: str, session=None):
    session = session or retrying_session()

    def transport(method, path, json, headers):
        resp = session.request(method, base + path, json=json, headers=headers, timeout=60)
        body = resp.json() if resp.content else None
        return Reply(resp.status_code, body, resp.headers)

    return transport


@pytest.fixture
def app(tmp_path):
    """The app on a SQLite file; with TILEFOLD_TEST_SERVICE_BACKEND=postgresql, on a fresh PostgreSQL
    schema instead (the whole service suite on the other backend: docs/STORE.md)."""
    yield from new_app(tmp_path)


def on_postgresql() -> bool:
    """Whether the service tests run on PostgreSQL (TILEFOLD_TEST_SERVICE_BACKEND=postgresql)."""
    return os.environ.get("TILEFOLD_TEST_SERVICE_BACKEND") == "postgresql"


def new_app(tmp_path):
    """What the `app` fixture yields, for a module that overrides it (a generator: it closes the app)."""
    from service.app import create_app

    if on_postgresql():
        from tests.backends import PostgresBackend, require_pg

        made = PostgresBackend(require_pg())
        app = create_app({"DATABASE": made.target, "TESTING": True, "KEYS": str(tmp_path / "keys")})
        yield app
        services(app).match.repo.store.close()
        made.close()
        return
    yield create_app({"DATABASE": str(tmp_path / "tilefold.db"), "TESTING": True})


@pytest.fixture
def open_app():
    """create_app for a test that makes its own apps: each app's event store is closed when the test
    ends (a PostgreSQL pool left to the garbage collector stops its workers from one of them, which
    raises "cannot join current thread" as an unraisable exception in whatever test runs then)."""
    from service.app import create_app

    made = []

    def make(settings):
        app = create_app(settings)
        made.append(app)
        return app

    yield make
    for app in made:
        services(app).match.repo.store.close()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def api(client):
    return MatchClient(flask_transport(client))


# -- the event store's two backends (tests/backends.py) -------------------------------------------
@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request, tmp_path):
    """A fresh, empty store target on each backend: SQLite file, or a new PostgreSQL schema."""
    from tests.backends import make_backend

    made = make_backend(request.param, tmp_path)
    yield made
    made.close()


@pytest.fixture
def pg_url(tmp_path):
    """A postgresql:// URL of a fresh, empty schema (skips with the reason when no server can start)."""
    from tests.backends import PostgresBackend, require_pg

    made = PostgresBackend(require_pg())
    yield made.target
    made.close()


LAYERS = ("engine", "events", "service", "web", "reliability", "project")


def pytest_collection_modifyitems(config, items):
    """Each test is marked with its folder's layer (`-m engine`, `-m "not web"`, …)."""
    for item in items:
        parts = item.path.relative_to(config.rootpath).parts
        if len(parts) > 2 and parts[0] == "tests" and parts[1] in LAYERS:
            item.add_marker(getattr(pytest.mark, parts[1]))


@pytest.fixture(autouse=True)
def one_reliability_test_at_a_time(request):
    """The reliability tests (load, killed workers and nodes, restarts, deadlines within seconds) run one
    at a time even when the suite runs in several pytest-xdist workers (`pytest -n 4`): each holds an
    exclusive lock on a file named after the run while it runs, so two of them never load the machine
    at once and a timing test never shares it with a load test. The other workers go on meanwhile."""
    if "reliability" not in request.node.keywords:
        yield
        return
    import fcntl
    import tempfile
    from pathlib import Path

    run = getattr(request.config, "workerinput", {}).get("testrunuid", f"pid{os.getpid()}")
    with open(Path(tempfile.gettempdir()) / f"tilefold-reliability-{run}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
