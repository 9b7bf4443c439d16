"""The account page's helpers over HTTP (service/http/pages/accounts.py): the session cookie, the CSRF
rule, rate limits, a seat played from two devices of one account through the API as is, /my on
every device, claiming this browser's seats, sign out everywhere, export and delete (docs/WEB.md,
"Accounts"). A software passkey stands in for the authenticator (tests/webauthn_support.py)."""

from __future__ import annotations

import pytest

from service.app import create_app
from webauthn_support import Passkey


def new_app(tmp_path, **settings):
    return create_app({"DATABASE": str(tmp_path / "t.db"), "TESTING": True, **settings})


@pytest.fixture
def app(tmp_path):
    return new_app(tmp_path)


class Device:
    """One browser: its own cookies, its own passkeys."""

    def __init__(self, app) -> None:
        self.client = app.test_client()
        self.client.get("/account")
        self.csrf = self.client.get_cookie("tf_csrf").value

    def post(self, path: str, body=None, **headers):
        return self.client.post(
            path, json=body if body is not None else {}, headers={"X-CSRF-Token": self.csrf, **headers}
        )

    def sign_up(self, name: str = "Ada") -> tuple[Passkey, list[str]]:
        passkey = Passkey()
        options = self.post("/web/account/sign-up/options", {"name": name}).get_json()
        reply = self.post("/web/account/sign-up", {"credential": passkey.create(options)})
        assert reply.status_code == 201, reply.get_json()
        return passkey, reply.get_json()["recovery_codes"]

    def sign_in(self, passkey: Passkey):
        options = self.post("/web/account/sign-in/options").get_json()
        return self.post("/web/account/sign-in", {"credential": passkey.get(options)})


def test_sign_up_sets_an_httponly_session_cookie_and_the_page_greets_the_player(app):
    device = Device(app)
    device.sign_up("Ada")
    cookie = device.client.get_cookie("tf_session")
    assert cookie.http_only and cookie.same_site == "Lax"
    page = device.client.get("/account").get_data(as_text=True)
    assert "Ada" in page and 'id="sign-out-everywhere"' in page


def test_every_account_write_needs_the_csrf_header(app):
    device = Device(app)
    refused = device.client.post("/web/account/sign-up/options", json={"name": "Ada"})
    assert refused.status_code == 403 and refused.get_json()["code"] == "csrf_failed"
    device.sign_up()
    for path in ("/web/account/sign-out-everywhere", "/web/account/delete", "/web/account/claim"):
        assert device.client.post(path, json={}).status_code == 403
    other_site = device.post("/web/account/delete", Origin="https://evil.example")
    assert other_site.status_code == 403
    assert device.client.get("/web/account").status_code == 200  # still signed in


def test_sign_up_sign_in_and_recovery_are_rate_limited(tmp_path):
    app = new_app(tmp_path, RATE_LIMITS=True, RATE_LIMIT_ACCOUNT="3 per minute")
    device = Device(app)
    codes = [device.post("/web/account/sign-in/options").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    guesses = [
        device.post("/web/account/recover/options", {"code": "aaaa-bbbb-cccc-dddd"}).status_code for _ in range(4)
    ]
    assert guesses == [403, 403, 403, 429]  # guessing recovery codes: each door counts per address
    names = [device.post("/web/account/sign-up/options", {"name": "A"}).status_code for _ in range(4)]
    assert names == [200, 200, 200, 429]


def test_a_seat_is_played_from_two_devices_and_listed_on_both(app):
    """Given a signed-in laptop that joins a match, when a phone signs in to the same account, then the
    phone lists the match at /my, opens the table as that seat and acts through the API with no token
    of its own; after sign out everywhere neither device holds the seat."""
    laptop, phone = Device(app), Device(app)
    passkey, _ = laptop.sign_up()
    made = laptop.post("/web/matches", {"variant": "hanshan", "options": {"hands": 1}}).get_json()
    match_id = made["id"]
    joined = laptop.post(f"/web/matches/{match_id}/join", {"name": "Ada"})
    assert joined.status_code == 201
    assert phone.post(f"/api/matches/{match_id}/bots").status_code == 401  # not signed in yet
    assert phone.sign_in(passkey).status_code == 200
    assert phone.post(f"/api/matches/{match_id}/bots").status_code == 200  # the owner right, through the account
    assert [m["id"] for m in phone.client.get("/web/mine").get_json()["matches"]] == [match_id]
    assert 'data-seat="0"' in phone.client.get(f"/play/{match_id}").get_data(as_text=True)
    view = phone.client.get(f"/api/matches/{match_id}/view").get_json()
    action = view["legal_actions"][0]
    acted = phone.post(f"/api/matches/{match_id}/actions", action, If_Match=f'"v{view["version"]}"')
    assert acted.status_code == 200, acted.get_json()
    assert phone.client.post(f"/api/matches/{match_id}/actions", json=action).status_code == 403  # no CSRF header
    assert laptop.post("/web/account/sign-out-everywhere").get_json()["sessions_ended"] == 2
    assert laptop.client.get_cookie(f"tfs_{match_id}") is None  # signed out, the laptop drops the seat too
    stolen = phone.client.get_cookie("tf_session").value
    for device in (laptop, phone):
        assert device.client.get("/web/mine").get_json()["matches"] == []
        assert device.client.get(f"/api/matches/{match_id}/view").status_code in (401, 403)
    thief = app.test_client()
    thief.set_cookie("tf_session", stolen)
    assert thief.get("/web/account").status_code == 401


def test_claiming_moves_this_browsers_seats_into_the_account(app):
    """Given a browser that played anonymously, when it signs up and claims, then its seat and owner
    right are the account's (its cookies dropped) and another device of the account holds them."""
    laptop = Device(app)
    made = laptop.post("/web/matches", {"variant": "hanshan", "options": {"hands": 1}}).get_json()
    match_id = made["id"]
    laptop.post(f"/web/matches/{match_id}/join", {"name": "Ada"})
    laptop.client.set_cookie("tfs_forged", "not-a-token")
    passkey, _ = laptop.sign_up()
    claimed = laptop.post("/web/account/claim").get_json()["claimed"]
    assert sorted(c["seat"] for c in claimed) == [-1, 0]
    assert laptop.client.get_cookie(f"tfs_{match_id}") is None and laptop.client.get_cookie(f"tfo_{match_id}") is None
    phone = Device(app)
    phone.sign_in(passkey)
    assert [m["id"] for m in phone.client.get("/web/mine").get_json()["matches"]] == [match_id]
    assert phone.post(f"/api/matches/{match_id}/bots").status_code == 200


def test_export_is_a_json_download_and_delete_signs_out(app):
    device = Device(app)
    device.sign_up("Ada")
    exported = device.client.get("/web/account/export")
    assert exported.status_code == 200 and "attachment" in exported.headers["Content-Disposition"]
    assert exported.get_json()["account"]["name"] == "Ada"
    assert device.post("/web/account/delete").get_json() == {"deleted": True}
    assert device.client.get("/web/account").status_code == 401
    assert device.client.get("/web/account/export").status_code == 401


def test_a_device_link_adds_another_devices_passkey_once(app):
    laptop, phone = Device(app), Device(app)
    laptop.sign_up()
    code = laptop.post("/web/account/device-link").get_json()["code"]
    passkey = Passkey()
    options = phone.post("/web/account/linked-passkey/options", {"code": code}).get_json()
    assert phone.post("/web/account/linked-passkey", {"credential": passkey.create(options)}).status_code == 201
    assert phone.client.get("/web/account").get_json()["passkeys"] == 2
    assert phone.post("/web/account/linked-passkey/options", {"code": code}).status_code == 403  # used
