"""docs/WEB.md, "Public and private", as the app answers it: with no cookie and no token, the open
tables, a match's summary, the leaderboards and a player's profile answer, and name no account
where the doc says they do not; everything the doc calls private refuses (401)."""

from __future__ import annotations

import json

import pytest

from service.app import create_app
from service.http.services import services
from webauthn_support import Passkey

RULES = {"variant": "hanshan", "options": {"hands": 1}}


@pytest.fixture
def app(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "t.db"), "TESTING": True, "KEYS": str(tmp_path / "keys")})
    yield app
    services(app).match.repo.store.close()


def signed_in_at_a_table(app) -> tuple[str, str, str]:
    """Ada signs up and presses Play now: (her account id, the match id, her API token)."""
    browser = app.test_client()
    browser.get("/")
    csrf = {"X-CSRF-Token": browser.get_cookie("tf_csrf").value}
    options = browser.post("/web/account/sign-up/options", json={"name": "Ada"}, headers=csrf).get_json()
    signed = browser.post("/web/account/sign-up", json={"credential": Passkey().create(options)}, headers=csrf)
    assert signed.status_code == 201
    placed = browser.post("/web/play-now", json={**RULES, "name": "Ada"}, headers=csrf)
    assert placed.status_code == 201
    account = browser.get("/web/account").get_json()["id"]
    token = browser.post("/web/account/tokens", json={"name": "script"}, headers=csrf).get_json()["token"]
    return account, placed.get_json()["id"], token


def test_the_public_pages_answer_anyone_and_name_no_account_at_an_open_table(app):
    """Given Ada at an open table through Play now, when a stranger with no cookie reads the open
    tables, the match and Ada's profile, then each answers; the tables and the match show the
    seat's name as typed, never her account id; her profile lists no match in play."""
    account, match_id, token = signed_in_at_a_table(app)
    stranger = app.test_client()
    listed = stranger.get("/api/matches")
    assert listed.status_code == 200 and match_id in [m["id"] for m in listed.get_json()["matches"]]
    summary = stranger.get(f"/api/matches/{match_id}")
    assert summary.status_code == 200
    assert "Ada" in json.dumps(summary.get_json(), ensure_ascii=False)
    for answer in (listed, summary):
        text = answer.get_data(as_text=True)
        assert account not in text and token not in text
    assert stranger.get("/").status_code == 200
    profile = stranger.get(f"/api/players/{account}")
    assert profile.status_code == 200 and profile.get_json()["name"] == "Ada"
    assert profile.get_json()["matches"] == []  # a match in play is not listed
    assert stranger.get(f"/players/{account}").status_code == 200
    assert stranger.get("/api/leaderboards/hanshan").status_code == 200
    assert stranger.get("/leaderboards", follow_redirects=True).status_code == 200


def test_what_the_doc_calls_private_refuses_a_stranger(app):
    """Given Ada's account, when a stranger with no cookie and no token asks for the account, its
    export, matches, tokens or push subscriptions, then each answers 401."""
    signed_in_at_a_table(app)
    stranger = app.test_client()
    for path in (
        "/web/account",
        "/web/account/export",
        "/web/account/tokens",
        "/api/account",
        "/api/account/matches",
        "/api/account/tokens",
        "/api/account/export",
    ):
        assert stranger.get(path).status_code == 401, path
    assert stranger.get("/web/mine").get_json()["matches"] == []  # no cookie: no match of its own
