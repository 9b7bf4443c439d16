"""A read never writes: every GET of the API (its OpenAPI document) and of the pages, over matches
with an overdue move deadline and a deal left half-written, appends nothing; the ticker
(service/usecases/ticker.py) settles them. Both backends."""

from __future__ import annotations

import re

import pytest

import engine
from conftest import MatchClient, flask_transport
from correspondence_helpers import HOUR
from test_import_integrity import played

from service.infra.clock import ManualClock
from service.http.pages import auth
from service.usecases.ticker import Ticker
from service.http.services import services


@pytest.fixture
def app(backend, tmp_path):
    from service.app import create_app

    made = create_app(
        {
            "DATABASE": backend.target,
            "TESTING": True,
            "CLOCK": ManualClock(),
            "WEBHOOK_WORKER": False,
            "KEYS": str(tmp_path / "keys"),
            "STREAM_LIFETIME": 0.3,
            "STREAM_HEARTBEAT": 0.1,
        }
    )
    yield made
    services(made).match.repo.store.close()


def _half_dealt(svc, api) -> str:
    """A two-hand match whose first hand ended and whose next deal was never written (the worker
    killed between the appends): nothing automatic runs while it is played here."""
    match_id, _ = api.create("koudiandian", {"hands": 2})
    real = svc.advance
    svc.advance = lambda mid, start=None: svc.repo.load(mid)
    try:
        for i in range(4):
            svc.join(match_id, f"p{i}")
        loaded = svc.repo.load(match_id)
        while not loaded.state.needs_new_hand:
            seat = engine.pending_seats(loaded.state)[0]
            command = {**engine.bot_action(loaded.state, seat), "seat": seat}
            svc.repo.append_on(loaded, engine.decide(loaded.state, command))
            loaded = svc.repo.load(match_id)
    finally:
        svc.advance = real
    return match_id


def _get_routes(app) -> list[str]:
    """Every GET rule of the app (the API's and the pages'), static files aside."""
    rules = []
    for rule in app.url_map.iter_rules():
        if "GET" in rule.methods and not rule.endpoint.endswith("static") and "<path:" not in rule.rule:
            rules.append(rule.rule)
    return sorted(set(rules))


def test_a_crawl_of_every_get_route_appends_nothing_and_the_ticker_settles(app, backend):
    """Given a match whose dealer's deadline is overdue, a match whose next deal was never written
    and a finished match, when every GET route (API and pages) is asked for each of them, with no
    token, a seat's token (and its cookie) and the owner's, then the store holds exactly the events
    it held before; and when the ticker passes, the deadline is settled and the deal written."""
    svc = services(app).match
    clock = app.config["CLOCK"]
    api = MatchClient(flask_transport(app.test_client()))
    created = api.call(
        "POST", "/api/matches", {"variant": "koudiandian", "options": {"hands": 1}, "deadline_seconds": HOUR}
    )
    late, late_owner = created.body["id"], created.body["owner_token"]
    late_tokens = [api.join(late, f"p{i}") for i in range(4)]
    half = _half_dealt(svc, api)
    done, done_owner, done_token = played(app)
    clock.advance(HOUR + 1)
    assert svc.decisions.any_overdue(f"match-{late}", svc.now())
    assert svc.repo.load(half).state.needs_new_hand

    spec = app.test_client().get("/api/openapi.json").get_json()
    api_gets = {re.sub(r"\{(\w+)\}", r"<\1>", path) for path, ops in spec["paths"].items() if "get" in ops}
    routes = _get_routes(app)
    assert api_gets <= set(routes), api_gets - set(routes)  # the OpenAPI document's GETs are all crawled

    before = backend.count("events")
    asked = 0
    for match_id, tokens in ((late, [late_tokens[0], late_owner]), (half, []), (done, [done_token, done_owner])):
        for rule in routes:
            path = rule.replace("<match_id>", match_id)
            if "<" in path:
                continue
            for token in [None, *tokens]:
                client = app.test_client()
                headers = {"Authorization": f"Bearer {token}"} if token else {}
                if token:
                    client.set_cookie(auth.seat_cookie(match_id), token)
                for method in ("GET", "HEAD"):
                    reply = client.open(path, method=method, headers=headers)
                    reply.get_data()  # a stream runs to its end (STREAM_LIFETIME)
                    assert reply.status_code < 500 or reply.status_code == 503, (path, reply.status_code)
                    asked += 1
    assert asked > 100
    assert backend.count("events") == before, "a GET or HEAD appended events"
    assert svc.decisions.any_overdue(f"match-{late}", svc.now())
    assert svc.repo.load(half).state.needs_new_hand

    report = Ticker(svc, grace=0.0).run_once()
    assert report is not None and report["matches_settled"] == 1
    assert not svc.decisions.any_overdue(f"match-{late}", svc.now())
    assert not svc.repo.load(half).state.needs_new_hand and svc.repo.load(half).state.hand.number == 2
    timeouts = [e for e in svc.repo.read(late) if e.payload.get("reason") == "timeout"]
    assert len(timeouts) == 1
