"""An account's API tokens for scripts, over HTTP on both backends (service/http/account_tokens.py,
service/usecases/accounts.py; docs/API.md, "API tokens"): made on a signed-in device and shown
once, stored as a MAC, listed without the secret, revoked; `Authorization: Bearer tfa1_...` acts for
the account's seats, matches and data as its session would, never for what needs a passkey; and the
refusals (another account's seats, a revoked or deleted account's token, a token making tokens,
the routes' rate limits). A software passkey stands in for the authenticator."""

from __future__ import annotations

import pytest

from service.app import create_app
from service.http.services import services
from service.model.errors import Forbidden
from webauthn_support import Passkey


def new_app(backend, tmp_path, **settings):
    return create_app({"DATABASE": backend.target, "TESTING": True, "KEYS": str(tmp_path / "keys"), **settings})


@pytest.fixture
def app(backend, tmp_path):
    app = new_app(backend, tmp_path)
    yield app
    services(app).match.repo.store.close()


class Device:
    """One signed-in browser: its cookies, its passkey."""

    def __init__(self, app, name: str = "Ada") -> None:
        self.client = app.test_client()
        self.client.get("/account")
        self.csrf = self.client.get_cookie("tf_csrf").value
        self.passkey = Passkey()
        options = self.post("/web/account/sign-up/options", {"name": name}).get_json()
        assert self.post("/web/account/sign-up", {"credential": self.passkey.create(options)}).status_code == 201

    def post(self, path: str, body=None, **headers):
        return self.client.post(
            path, json=body if body is not None else {}, headers={"X-CSRF-Token": self.csrf, **headers}
        )

    def new_token(self, name: str = "my script") -> dict:
        made = self.post("/web/account/tokens", {"name": name})
        assert made.status_code == 201, made.get_json()
        return made.get_json()


class Script:
    """A script holding one API token: no cookie, no CSRF token."""

    def __init__(self, app, token: str) -> None:
        self.client, self.token = app.test_client(), token

    def call(self, method: str, path: str, body=None, **headers):
        headers = {"Authorization": f"Bearer {self.token}", **headers}
        return self.client.open(path, method=method, json=body, headers=headers)


def all_rows(backend) -> str:
    if backend.name == "sqlite":
        tables = [r[0] for r in backend.sql("SELECT name FROM sqlite_master WHERE type = 'table'")]
    else:
        sql = "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        tables = [r[0] for r in backend.sql(sql)]
    return "\n".join(repr(backend.sql(f"SELECT * FROM {table}")) for table in tables)


def test_a_token_is_shown_once_stored_as_a_mac_and_listed_without_its_secret(app, backend):
    """Given a signed-in device, when it makes a named token, then the answer shows the token once,
    no table holds it, and the lists (the page's and the API's) give its name, when it was made
    and that it was never used for a change, but never the token."""
    device = Device(app)
    made = device.new_token("nightly export")
    assert made["token"].startswith("tfa1_") and made["name"] == "nightly export"
    assert made["token"] not in all_rows(backend)
    listed = device.client.get("/web/account/tokens").get_json()["tokens"]
    assert listed == [{"id": made["id"], "name": "nightly export", "created": made["created"], "last_used": None}]
    script = Script(app, made["token"])
    assert script.call("GET", "/api/account/tokens").get_json()["tokens"] == listed
    account = script.call("GET", "/api/account").get_json()
    assert account["name"] == "Ada" and account["api_tokens"] == listed
    assert made["token"] not in repr(script.call("GET", "/api/account/export").get_json())


def test_a_token_acts_for_the_accounts_matches_and_seats_as_its_session_would(app):
    """Given an account's token, when a script creates a match, joins it, fills it with bots and plays
    a move with the token alone, then the match and seat are the account's (its browser lists
    and plays them too), and the move is the token's last use; reads leave it unchanged."""
    device = Device(app)
    script = Script(app, device.new_token()["token"])
    created = script.call("POST", "/api/matches", {"variant": "hanshan", "options": {"hands": 1}})
    assert created.status_code == 201
    match_id = created.get_json()["id"]
    joined = script.call("POST", f"/api/matches/{match_id}/seats", {"name": "Ada's bot"})
    assert joined.status_code == 201
    assert script.call("POST", f"/api/matches/{match_id}/bots", {"count": 3}).status_code == 200  # the owner's right
    assert [m["id"] for m in script.call("GET", "/api/account/matches").get_json()["matches"]] == [match_id]
    view = script.call("GET", f"/api/matches/{match_id}/view")
    assert view.status_code == 200 and view.get_json()["seat"] == joined.get_json()["seat"]
    last_used = script.call("GET", "/api/account/tokens").get_json()["tokens"][0]["last_used"]
    assert last_used is not None  # the bots were a change
    assert script.call("GET", "/api/account/tokens").get_json()["tokens"][0]["last_used"] == last_used  # reads: not
    action = view.get_json()["legal_actions"][0]
    acted = script.call("POST", f"/api/matches/{match_id}/actions", action, If_Match=f'"v{view.get_json()["version"]}"')
    assert acted.status_code == 200, acted.get_json()
    assert script.call("GET", "/api/account/tokens").get_json()["tokens"][0]["last_used"] > last_used
    assert [m["id"] for m in device.client.get("/web/mine").get_json()["matches"]] == [match_id]


def test_a_token_of_one_account_neither_reads_nor_acts_for_another(app):
    """Given Ada's and Bob's tokens and Bob's match, when Ada's token asks for Bob's seat, owner right,
    account or tokens, then each is refused and Bob's data stays out of Ada's answers."""
    ada, bob = Device(app, "Ada"), Device(app, "Bob")
    ada_script, bob_script = Script(app, ada.new_token()["token"]), Script(app, bob.new_token()["token"])
    bob_token_id = bob_script.call("GET", "/api/account/tokens").get_json()["tokens"][0]["id"]
    match_id = bob_script.call("POST", "/api/matches", {"variant": "hanshan", "options": {"hands": 1}}).get_json()["id"]
    bob_script.call("POST", f"/api/matches/{match_id}/seats", {"name": "Bob"})
    assert ada_script.call("POST", f"/api/matches/{match_id}/bots", {"count": 3}).status_code == 403
    assert bob_script.call("POST", f"/api/matches/{match_id}/bots", {"count": 3}).status_code == 200
    assert ada_script.call("GET", f"/api/matches/{match_id}/view").status_code == 403
    refused = ada_script.call("POST", f"/api/matches/{match_id}/actions", {"action": "discard", "tile": "1m"})
    assert refused.status_code == 403
    assert ada_script.call("GET", "/api/account").get_json()["name"] == "Ada"
    assert ada_script.call("GET", "/api/account/matches").get_json()["matches"] == []
    assert match_id not in ada_script.call("GET", "/api/account/export").get_data(as_text=True)
    assert ada_script.call("DELETE", f"/api/account/tokens/{bob_token_id}").status_code == 404
    assert bob_script.call("GET", "/api/account").status_code == 200


def test_a_revoked_token_and_a_deleted_accounts_token_are_refused(app):
    """Given two tokens, when one is revoked (by the API) and the account is later deleted, then the
    revoked one is refused at once and, after the deletion, the other too."""
    device = Device(app)
    first, second = device.new_token("a"), device.new_token("b")
    script, other = Script(app, first["token"]), Script(app, second["token"])
    assert other.call("DELETE", f"/api/account/tokens/{first['id']}").status_code == 204
    refused = script.call("GET", "/api/account")
    assert refused.status_code == 401 and refused.get_json()["code"] == "not_signed_in"
    assert script.call("GET", "/api/account/matches").status_code == 401
    assert [t["name"] for t in device.client.get("/web/account/tokens").get_json()["tokens"]] == ["b"]
    assert other.call("GET", "/api/account").status_code == 200
    assert device.post("/web/account/delete").status_code == 200
    assert other.call("GET", "/api/account").status_code == 401
    assert other.call("POST", "/api/matches", {"variant": "hanshan", "options": {"hands": 1}}).status_code == 201
    # (anyone may create a match; a deleted account's token just makes it no one's)


def test_a_token_neither_makes_tokens_nor_does_what_needs_a_passkey(app):
    """Given an account's token, when it asks to make another token, add a passkey, link a device,
    renew recovery codes, sign out everywhere or delete the account, then each is refused, over
    HTTP (no session: 401; the token passed off as a session cookie: 403) and in the use cases."""
    device = Device(app)
    token = device.new_token()["token"]
    script = Script(app, token)
    assert script.call("POST", "/web/account/tokens", {"name": "more"}).status_code in (401, 403)
    assert script.call("POST", "/api/account/tokens", {"name": "more"}).status_code == 405
    thief = app.test_client()
    thief.get("/account")
    thief.set_cookie("tf_session", token)
    csrf = {"X-CSRF-Token": thief.get_cookie("tf_csrf").value}
    for path in ("/web/account/tokens", "/web/account/device-link", "/web/account/delete"):
        refused = thief.post(path, json={"name": "more"}, headers=csrf)
        assert refused.status_code == 403 and refused.get_json()["code"] == "needs_session", path
    accounts = services(app).accounts
    for call in (
        lambda: accounts.create_api_token(token, "more"),
        lambda: accounts.begin_add_passkey(token),
        lambda: accounts.new_device_link(token),
        lambda: accounts.renew_recovery_codes(token),
        lambda: accounts.sign_out_everywhere(token),
        lambda: accounts.delete(token),
    ):
        with pytest.raises(Forbidden):
            call()
    assert len(accounts.api_tokens(token)) == 1 and accounts.account_of(token) is not None


def test_sign_out_everywhere_and_recovery_end_every_token(app):
    """Given tokens made by the account (one perhaps by a stolen session), when it signs out
    everywhere, then every token is refused; the same after a recovery."""
    device = Device(app)
    script = Script(app, device.new_token()["token"])
    assert device.post("/web/account/sign-out-everywhere").status_code == 200
    assert script.call("GET", "/api/account").status_code == 401
    accounts = services(app).accounts
    signed = accounts.finish_sign_in(device.passkey.get(accounts.begin_sign_in()), "laptop")
    token = accounts.create_api_token(signed.session, "again")["token"]
    codes = accounts.renew_recovery_codes(signed.session)
    accounts.finish_recovery(Passkey().create(accounts.begin_recovery(codes[0])), "new phone")
    assert accounts.account_of(token) is None


def test_the_routes_rate_limits_hold_for_a_token(backend, tmp_path):
    """Given the match creation limit at two a minute, when a script creates three with its token,
    then the third is refused (429) as any caller's would be."""
    app = new_app(backend, tmp_path, RATE_LIMITS=True, RATE_LIMIT_CREATE="2 per minute")
    try:
        script = Script(app, Device(app).new_token()["token"])
        body = {"variant": "hanshan", "options": {"hands": 1}}
        assert [script.call("POST", "/api/matches", body).status_code for _ in range(3)] == [201, 201, 429]
    finally:
        services(app).match.repo.store.close()


def test_a_malformed_or_foreign_bearer_on_the_account_routes_is_unauthorised(app):
    """Given an account, when /api/account is asked with no token, a guessed API token, or the
    session's own secret as a Bearer token, then each is 401."""
    device = Device(app)
    session = device.client.get_cookie("tf_session").value
    for header in ({}, {"Authorization": "Bearer tfa1_" + "A" * 43}, {"Authorization": f"Bearer {session}"}):
        assert app.test_client().get("/api/account", headers=header).status_code == 401


def test_the_openapi_document_names_the_account_token_scheme(app):
    document = app.test_client().get("/api/openapi.json").get_json()
    assert document["components"]["securitySchemes"]["account_token"]["scheme"] == "bearer"
    for path in ("/api/account", "/api/account/matches", "/api/account/tokens"):
        assert document["paths"][path]["get"]["security"] == [{"account_token": []}]
    assert document["paths"]["/api/account/tokens/{token_id}"]["delete"]["security"] == [{"account_token": []}]
