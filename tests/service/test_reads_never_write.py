"""A read never writes: every GET and HEAD of the API (its OpenAPI document) and of the pages, over
matches with an overdue move deadline, a deal left half-written and a finished match whose head no
signature covers yet, changes no row of any table (nor the set of tables), in a worker that has the
matches cached and in a fresh one on a database without snapshots (every load cold); the ticker
(service/usecases/ticker.py) then settles the deadline, writes the deal, signs the head and keeps the
snapshots the cold loads folded. Both backends."""

from __future__ import annotations

import hashlib
import re
import sqlite3

import pytest

import engine
from conftest import MatchClient, flask_transport
from correspondence_helpers import HOUR
from test_import_integrity import played

from service.infra.clock import ManualClock
from service.http.pages import auth
from service.usecases import signing
from service.usecases.ticker import Ticker
from service.http.services import services


SNAPSHOT_EVERY = 10  # so that a cold load of any match here folds more events than one snapshot's worth


def _app(backend, tmp_path, clock):
    from service.app import create_app

    return create_app(
        {
            "DATABASE": backend.target,
            "TESTING": True,
            "CLOCK": clock,
            "WEBHOOK_WORKER": False,
            "KEYS": str(tmp_path / "keys"),
            "STREAM_LIFETIME": 0.3,
            "STREAM_HEARTBEAT": 0.1,
            "SNAPSHOT_EVERY": SNAPSHOT_EVERY,
        }
    )


@pytest.fixture
def app(backend, tmp_path):
    made = _app(backend, tmp_path, ManualClock())
    yield made
    services(made).match.repo.store.close()


def _tables(backend) -> dict[str, tuple[int, str]]:
    """Every table of the store: name -> (rows, SHA-256 over its rows in a fixed order), read
    directly (not through the store, whose reads are what is under test)."""
    if backend.name == "sqlite":
        conn = sqlite3.connect(backend.target)
        try:
            names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            contents = {name: conn.execute(f'SELECT * FROM "{name}"').fetchall() for name in names}
        finally:
            conn.close()
    else:
        import psycopg

        with psycopg.connect(backend.target) as conn:
            names = [
                r[0]
                for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()").fetchall()
            ]
            contents = {name: conn.execute(f'SELECT * FROM "{name}"').fetchall() for name in names}
    return {
        name: (len(rows), hashlib.sha256("\n".join(sorted(repr(r) for r in rows)).encode()).hexdigest())
        for name, rows in contents.items()
    }


def _changed(before: dict, after: dict) -> dict:
    return {
        name: (before.get(name), after.get(name))
        for name in set(before) | set(after)
        if before.get(name) != after.get(name)
    }


def _drop_snapshots(backend) -> None:
    """Every snapshot gone (a database from before snapshots, or of an older rules version)."""
    if backend.name == "sqlite":
        conn = sqlite3.connect(backend.target, isolation_level=None)
        try:
            conn.execute("DELETE FROM snapshots")
        finally:
            conn.close()
    else:
        backend.sql("DELETE FROM snapshots")


def _finished_unsigned(app) -> tuple[str, str, str]:
    """A finished match whose last append was never signed (the worker killed between the append
    and its signature, or a match finished before signing existed)."""
    repo = services(app).match.repo
    keyring, repo.keyring = repo.keyring, None
    try:
        return played(app)
    finally:
        repo.keyring = keyring


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


def _crawl(app, matches: list[tuple[str, list[str]]]) -> int:
    """GET and HEAD every route of `app` for each match, with no token and with each of its tokens
    (a seat's also as its cookie); the number of requests."""
    routes = _get_routes(app)
    asked = 0
    for match_id, tokens in matches:
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
    return asked


def test_a_crawl_of_every_get_route_changes_no_table_and_the_ticker_settles(app, backend, tmp_path):
    """Given a match whose dealer's deadline is overdue, a match whose next deal was never written,
    a finished match, a finished match whose head no signature covers and an imported match, when every GET route (API
    and pages) is asked with GET and HEAD for each of them, with no token, a seat's token (and its
    cookie) and the owner's, first by a fresh worker on the database without its snapshots (every
    load cold) and then by the worker that played them, then no table changes at all (its rows and
    their checksum, and no table appears); and when the ticker passes, the deadline is settled, the
    deal written, the finished match's head signed and the folded matches' snapshots kept."""
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
    unsigned, unsigned_owner, unsigned_token = _finished_unsigned(app)
    log = app.test_client().get(f"/api/matches/{done}/export").get_data()
    imported = app.test_client().post("/api/matches/import", data=log).get_json()["id"]  # a finished, read-only match
    clock.advance(HOUR + 1)
    assert svc.decisions.any_overdue(f"match-{late}", svc.now())
    assert svc.repo.load(half).state.needs_new_hand
    head = svc.repo.version(unsigned)
    assert head not in {s["version"] for s in signing.signatures_of(svc.repo, unsigned)}

    spec = app.test_client().get("/api/openapi.json").get_json()
    api_gets = {re.sub(r"\{(\w+)\}", r"<\1>", path) for path, ops in spec["paths"].items() if "get" in ops}
    assert api_gets <= set(_get_routes(app)), api_gets - set(_get_routes(app))  # the document's GETs are crawled
    matches = [
        (late, [late_tokens[0], late_owner]),
        (half, []),
        (done, [done_token, done_owner]),
        (unsigned, [unsigned_token, unsigned_owner]),
        (imported, []),
    ]

    _drop_snapshots(backend)
    before = _tables(backend)
    assert before["snapshots"][0] == 0 and before["events"][0] > 4 * SNAPSHOT_EVERY
    cold = _app(backend, tmp_path, clock)  # a worker started on the database: nothing cached
    try:
        asked = _crawl(cold, matches)
        changed = _changed(before, _tables(backend))
        assert not changed, f"a GET or HEAD of a fresh worker changed {sorted(changed)}: {changed}"
        asked += _crawl(app, matches)
        assert asked > 200
        changed = _changed(before, _tables(backend))
        assert not changed, f"a GET or HEAD changed {sorted(changed)}: {changed}"
        assert svc.decisions.any_overdue(f"match-{late}", svc.now())
        assert svc.repo.load(half).state.needs_new_hand

        cold_svc = services(cold).match
        report = Ticker(cold_svc, grace=0.0).run_once()
    finally:
        services(cold).match.repo.store.close()
    assert report is not None and report["matches_settled"] == 1
    assert not svc.decisions.any_overdue(f"match-{late}", svc.now())
    assert not svc.repo.load(half).state.needs_new_hand and svc.repo.load(half).state.hand.number == 2
    timeouts = [e for e in svc.repo.read(late) if e.payload.get("reason") == "timeout"]
    assert len(timeouts) == 1
    assert head in {s["version"] for s in signing.signatures_of(svc.repo, unsigned)}  # exports carry it
    assert signing.signatures_of(svc.repo, imported) == []  # an import keeps the signatures it came with
    exported = app.test_client().get(f"/api/matches/{unsigned}/export").get_data(as_text=True)
    assert f'"version":{head}' in exported.splitlines()[-1].replace(" ", "")
    kept = {row[0] for row in backend.sql("SELECT DISTINCT stream FROM snapshots")}
    assert {f"match-{done}", f"match-{unsigned}", f"match-{imported}"} <= kept  # the cold folds, kept by the ticker
