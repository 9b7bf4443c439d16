"""Play now (service/usecases/play.py `MatchService.play_now`, POST /api/play-now, the home page's
button): a signed-in player sits at the oldest open table of the rule set and options, or opens
one; on both backends, with two players racing for the last seat (docs/API.md, "Play now")."""

from __future__ import annotations

import threading

import pytest

from service.app import create_app
from service.http.services import services
from webauthn_support import Passkey

RULES = {"variant": "hanshan", "options": {"hands": 1}}


@pytest.fixture
def app(backend, tmp_path):
    app = create_app({"DATABASE": backend.target, "TESTING": True, "KEYS": str(tmp_path / "keys")})
    yield app
    services(app).match.repo.store.close()


def account_token(app, name: str) -> str:
    """A new account's API token (signed up with a software passkey)."""
    accounts = services(app).accounts
    signed = accounts.finish_sign_up(Passkey().create(accounts.begin_sign_up(name)), "laptop")
    return accounts.create_api_token(signed.session, "script")["token"]


def play_now(app, token, **body):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return app.test_client().post("/api/play-now", json={**RULES, "name": "Ada", **body}, headers=headers)


def open_table(app, **extra) -> str:
    return app.test_client().post("/api/matches", json={**RULES, **extra}).get_json()["id"]


def test_play_now_sits_at_the_oldest_open_table_that_fits(app):
    """Given open tables of the rule set and options (the older first), one of other options and one
    with a move deadline, when a player plays now twice, then the first seat is at the oldest that
    fits and the second at the next (never twice at one table), both the account's."""
    older = open_table(app)
    open_table(app, options={"hands": 2})
    open_table(app, deadline_seconds=3600)
    newer = open_table(app)
    token = account_token(app, "Ada")
    first = play_now(app, token)
    assert first.status_code == 201, first.get_json()
    assert first.get_json()["id"] == older and first.get_json()["opened"] is False
    assert first.get_json()["owner_token"] is None
    assert play_now(app, token).get_json()["id"] == newer
    listed = app.test_client().get("/api/account/matches", headers={"Authorization": f"Bearer {token}"})
    assert sorted(m["id"] for m in listed.get_json()["matches"]) == sorted([older, newer])


def test_play_now_opens_a_table_owned_by_the_account_when_none_fits(app):
    """Given no open table of the options, when a player plays now, then a new table is opened, the
    player sits at seat 0 and, as its owner through the account, fills it with bots."""
    open_table(app, options={"hands": 2})
    token = account_token(app, "Ada")
    placed = play_now(app, token).get_json()
    assert placed["opened"] is True and placed["seat"] == 0 and placed["owner_token"]
    bots = app.test_client().post(
        f"/api/matches/{placed['id']}/bots", json={}, headers={"Authorization": f"Bearer {token}"}
    )
    assert bots.status_code == 200


def test_play_now_needs_a_signed_in_account(app):
    """Given no token, a guessed one or a revoked one, then play now is 401 and opens nothing."""
    token = account_token(app, "Ada")
    accounts = services(app).accounts
    ref = accounts.api_tokens(token)[0]["id"]
    accounts.revoke_api_token(token, ref)
    for sent in (None, "tfa1_" + "x" * 43, token):
        assert play_now(app, sent).status_code == 401
    assert app.test_client().get("/api/matches").get_json()["matches"] == []


@pytest.mark.parametrize("round_no", range(3))
def test_two_players_racing_for_the_last_seat_never_overfill_a_table(app, round_no):
    """Given an open table with one seat left, when two players play now at the same moment (two
    threads), then exactly one takes that seat, which starts the match, and the other is seated
    at a table of its own opening; no seat is taken twice."""
    table = open_table(app)
    for name in ("A", "B", "C"):
        app.test_client().post(f"/api/matches/{table}/seats", json={"name": name})
    tokens = [account_token(app, "Ada"), account_token(app, "Bob")]
    service = services(app).match
    start = threading.Barrier(2)
    placed: dict[int, object] = {}

    def race(n: int) -> None:
        start.wait()
        placed[n] = service.play_now("hanshan", {"hands": 1}, f"P{n}", tokens[n])[0]

    threads = [threading.Thread(target=race, args=(n,)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(placed) == 2, f"a thread failed (round {round_no})"
    at_table = [p for p in placed.values() if p.match_id == table]
    elsewhere = [p for p in placed.values() if p.match_id != table]
    assert len(at_table) == 1 and at_table[0].seat == 3 and at_table[0].owner_token is None
    assert len(elsewhere) == 1 and elsewhere[0].seat == 0 and elsewhere[0].owner_token
    loaded = service.repo.load(table)
    assert loaded.started and [seat.name for seat in loaded.room.seats][:3] == ["A", "B", "C"]


def test_the_home_pages_play_now_button_seats_a_signed_in_browser(app):
    """Given the home page, then it has a "Play now" button; when a signed-out browser asks, it is told
    to sign in (401); signed in, it is seated (a new table here) and its account lists the match."""
    browser = app.test_client()
    page = browser.get("/").get_data(as_text=True)
    assert 'id="play-now-btn"' in page and "Play now" in page
    csrf = {"X-CSRF-Token": browser.get_cookie("tf_csrf").value}
    body = {**RULES, "name": "Ada"}
    assert browser.post("/web/play-now", json=body, headers=csrf).status_code == 401
    passkey = Passkey()
    options = browser.post("/web/account/sign-up/options", json={"name": "Ada"}, headers=csrf).get_json()
    assert (
        browser.post("/web/account/sign-up", json={"credential": passkey.create(options)}, headers=csrf).status_code
        == 201
    )
    placed = browser.post("/web/play-now", json=body, headers=csrf)
    assert placed.status_code == 201 and placed.get_json()["play"] == f"/play/{placed.get_json()['id']}"
    assert [m["id"] for m in browser.get("/web/mine").get_json()["matches"]] == [placed.get_json()["id"]]
    assert browser.post("/web/play-now", json=body).status_code == 403  # the CSRF rule


def test_play_now_counts_against_the_join_limit(backend, tmp_path):
    """Given the join limit at one a minute, when a script plays now twice, then the second is 429."""
    settings = {"RATE_LIMITS": True, "RATE_LIMIT_JOIN": "1 per minute", "KEYS": str(tmp_path / "keys")}
    app = create_app({"DATABASE": backend.target, "TESTING": True, **settings})
    try:
        token = account_token(app, "Ada")
        assert [play_now(app, token).status_code for _ in range(2)] == [201, 429]
    finally:
        services(app).match.repo.store.close()
