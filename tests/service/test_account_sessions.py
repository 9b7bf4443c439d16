"""An account's signed-in devices, over HTTP on both backends (service/usecases/accounts.py,
service/http/pages/accounts.py; docs/WEB.md, "Accounts"): each listed with a public id that is not
its secret, one signed out from another device (recorded as `signed_out_device`), never by an API
token; sessions expiring after their lifetime and their idle timeout (the service's clock, moved by
the test); and a seat taken while signed in belonging to the account, not to a cookie, so signing
out everywhere ends it on a lost device too. A software passkey stands in for the authenticator."""

from __future__ import annotations

import base64

import pytest

from service.app import create_app
from service.http.services import services
from service.infra.clock import ManualClock
from service.model.errors import Forbidden, Unauthenticated
from webauthn_support import Passkey

DAY = 86400


def new_app(backend, tmp_path, **settings):
    return create_app({"DATABASE": backend.target, "TESTING": True, "KEYS": str(tmp_path / "keys"), **settings})


@pytest.fixture
def clock():
    return ManualClock()


@pytest.fixture
def app(backend, tmp_path, clock):
    app = new_app(backend, tmp_path, CLOCK=clock, SESSION_LIFETIME_DAYS=180, SESSION_IDLE_DAYS=30)
    yield app
    services(app).match.repo.store.close()


class Device:
    """One browser: its cookies; `passkey` signs it up (a new account) or in (an existing one)."""

    def __init__(self, app, passkey: Passkey | None = None, name: str = "Ada", agent: str = "Linux") -> None:
        self.client = app.test_client()
        self.client.environ_base["HTTP_USER_AGENT"] = f"Mozilla/5.0 (X11; {agent})"
        self.client.get("/account")
        self.csrf = self.client.get_cookie("tf_csrf").value
        if passkey is None:
            self.passkey = Passkey()
            options = self.post("/web/account/sign-up/options", {"name": name}).get_json()
            assert self.post("/web/account/sign-up", {"credential": self.passkey.create(options)}).status_code == 201
        else:
            self.passkey = passkey
            options = self.post("/web/account/sign-in/options").get_json()
            assert self.post("/web/account/sign-in", {"credential": passkey.get(options)}).status_code == 200

    def post(self, path: str, body=None, **headers):
        return self.client.post(
            path, json=body if body is not None else {}, headers={"X-CSRF-Token": self.csrf, **headers}
        )

    @property
    def session(self) -> str:
        return self.client.get_cookie("tf_session").value

    def devices(self) -> list[dict]:
        answer = self.client.get("/web/account")
        assert answer.status_code == 200, answer.get_json()
        return answer.get_json()["sessions"]

    def signed_in(self) -> bool:
        return self.client.get("/web/account").status_code == 200


def account_events(app, device: Device) -> list[dict]:
    return services(app).accounts.export(device.session)["events"]


# -- signing out one device from another -----------------------------------------------------------
def test_devices_are_listed_by_a_public_id_and_this_one_is_marked(app, backend, clock):
    """Given an account signed in on a laptop and a phone, when the laptop reads its profile, then both
    devices are listed with their label (browser and system), when they signed in and a public id that is neither the
    session's secret nor its stored MAC, and only the laptop's is marked as this device."""
    laptop = Device(app, agent="Linux")
    clock.advance(60)
    phone = Device(app, laptop.passkey, agent="Android 14; Mobile) Gecko/120.0 Firefox/120.0")
    listed = laptop.devices()
    assert [(d["device"], d["current"]) for d in listed] == [("Linux", True), ("Firefox on Android", False)]
    assert [d["current"] for d in phone.devices()] == [False, True]
    stored = {str(row[0]) for row in backend.sql("SELECT id FROM tf_sessions")}
    for found in listed:
        assert found["id"] and found["id"] not in stored and found["since"] and found["last_used"] is None
        assert all(found["id"] not in secret for secret in (laptop.session, phone.session, *stored))


def test_a_device_signed_out_from_another_is_signed_out_and_the_other_stays(app, backend):
    """Given an account on a laptop and a phone, when the laptop signs the phone out by its id, then
    the phone's next request is signed out (its cookie no longer opens the account), the laptop is
    still signed in, one device is listed, and the account's stream records `signed_out_device`
    (its device label sealed, opened in the export)."""
    laptop = Device(app, agent="Linux")
    phone = Device(app, laptop.passkey, agent="Android")
    phone_id = [d["id"] for d in laptop.devices() if not d["current"]][0]
    answer = laptop.post(f"/web/account/sessions/{phone_id}/sign-out")
    assert answer.status_code == 200 and answer.get_json() == {"signed_out": True, "this_device": False}
    assert not phone.signed_in() and phone.client.get("/web/account/export").status_code == 401
    assert laptop.signed_in() and [d["device"] for d in laptop.devices()] == ["Linux"]
    events = account_events(app, laptop)
    assert events[-1]["type"] == "signed_out_device" and events[-1]["device"] == "Android"
    assert "Android" not in repr(backend.sql("SELECT payload FROM events"))  # sealed in the store
    again = laptop.post(f"/web/account/sessions/{phone_id}/sign-out")
    assert again.status_code == 404 and again.get_json()["code"] == "no_such_session"


def test_signing_out_this_device_by_its_id_drops_its_cookie(app):
    laptop = Device(app)
    own = laptop.devices()[0]["id"]
    answer = laptop.post(f"/web/account/sessions/{own}/sign-out")
    assert answer.get_json() == {"signed_out": True, "this_device": True}
    assert laptop.client.get_cookie("tf_session") is None and not laptop.signed_in()


def test_another_accounts_device_an_api_token_and_a_forged_write_cannot_sign_a_device_out(app):
    """Given two accounts, then neither signs out the other's device (404, as for an unknown id), an API
    token cannot sign out any device (403 `needs_session`: only a signed-in device may), and the
    helper needs the CSRF header like every other write."""
    ada, bob = Device(app, name="Ada"), Device(app, name="Bob")
    bob_id = bob.devices()[0]["id"]
    refused = ada.post(f"/web/account/sessions/{bob_id}/sign-out")
    assert refused.status_code == 404 and refused.get_json()["code"] == "no_such_session"
    assert bob.signed_in()
    token = bob.post("/web/account/tokens", {"name": "script"}).get_json()["token"]
    with pytest.raises(Forbidden) as by_token:
        services(app).accounts.sign_out_device(token, bob_id)
    assert by_token.value.code == "needs_session"
    assert bob.client.post(f"/web/account/sessions/{bob_id}/sign-out", json={}).status_code == 403  # no CSRF header
    assert bob.signed_in()
    with pytest.raises(Unauthenticated):
        services(app).accounts.sign_out_device(None, bob_id)


# -- sessions expire --------------------------------------------------------------------------------
def test_a_session_idle_past_the_timeout_is_refused(app, clock):
    """Given a device signed in, when it makes no change for longer than the idle timeout (30 days
    here), then it is refused as if signed out; a device that made a change meanwhile stays."""
    idle, busy = Device(app), Device(app)
    clock.advance(20 * DAY)
    assert busy.post("/web/account/recovery-codes").status_code == 200  # a change: noted as its last use
    assert [d["last_used"] is not None for d in busy.devices()] == [True]
    clock.advance(11 * DAY)  # 31 days after signing in, 11 after the busy device's last change
    assert not idle.signed_in() and idle.client.get("/web/mine").get_json()["matches"] == []
    assert busy.signed_in()
    clock.advance(19 * DAY)  # 30 days and more after the busy device's last change
    assert busy.client.get("/web/account").status_code == 200  # reads are not noted: still 30 days
    clock.advance(1 * DAY + 1)
    assert not busy.signed_in()


def test_a_session_used_every_day_ends_at_its_lifetime(app, clock):
    """Given a device used every day, then it is refused 180 days after it signed in (the absolute
    lifetime), and its passkey signs it in again (the expired session is swept with that sign-in)."""
    device = Device(app)
    for _ in range(179):
        clock.advance(DAY)
        assert device.post("/web/account/claim").status_code == 200
    assert device.signed_in()
    clock.advance(DAY + 1)
    assert not device.signed_in()
    again = Device(app, device.passkey)
    assert [d["current"] for d in again.devices()] == [True]  # the expired one is neither listed nor kept


def test_the_session_cookie_lasts_no_longer_than_the_session(backend, tmp_path):
    app = new_app(backend, tmp_path, SESSION_LIFETIME_DAYS=7)
    try:
        device = Device(app)
        cookie = [h for h in device.client.post("/web/account/sign-in/options").headers.getlist("Set-Cookie")]
        assert cookie == [] or all("tf_session" not in h for h in cookie)
        options = device.post("/web/account/sign-in/options").get_json()
        answer = device.post("/web/account/sign-in", {"credential": device.passkey.get(options)})
        header = [h for h in answer.headers.getlist("Set-Cookie") if h.startswith("tf_session=")][0]
        assert "Max-Age=604800" in header and "HttpOnly" in header
    finally:
        services(app).match.repo.store.close()


def test_expiry_settings_are_read_from_the_environment(monkeypatch):
    from service.infra.config import from_env

    assert from_env({})["SESSION_LIFETIME_DAYS"] == 180 and from_env({})["SESSION_IDLE_DAYS"] == 30
    found = from_env({"TILEFOLD_SESSION_LIFETIME_DAYS": "90", "TILEFOLD_SESSION_IDLE_DAYS": "7.5"})
    assert (found["SESSION_LIFETIME_DAYS"], found["SESSION_IDLE_DAYS"]) == (90.0, 7.5)


# -- a seat taken while signed in is the account's, not a cookie's -----------------------------------
def test_a_seat_joined_on_a_lost_device_ends_with_sign_out_everywhere(app):
    """Given a phone signed in that creates a match, joins it and opens a play link of another seat,
    then no seat or owner cookie is set (the account holds them, the phone plays them through its
    session); when the laptop signs out everywhere, then the phone (lost: it keeps every cookie it
    was given) can neither view the seats' private view, act, nor fill seats as the owner."""
    laptop = Device(app)
    phone = Device(app, laptop.passkey)
    match_id = phone.post("/web/matches", {"variant": "hanshan", "options": {"hands": 1}}).get_json()["id"]
    assert phone.post(f"/web/matches/{match_id}/join", {"name": "Ada"}).status_code == 201
    friend = services(app).match.join(match_id, "Friend")[1]  # a play link's token, opened on the phone
    assert phone.post(f"/web/matches/{match_id}/claim", {"token": friend}).get_json() == {"seat": 1}
    assert phone.post(f"/api/matches/{match_id}/bots").status_code == 200  # the owner right, through the account
    assert phone.client.get_cookie(f"tfs_{match_id}") is None and phone.client.get_cookie(f"tfo_{match_id}") is None
    view = phone.client.get(f"/api/matches/{match_id}/view")
    assert view.status_code == 200 and view.get_json()["seat"] in (0, 1)
    assert 'data-seat=""' not in phone.client.get(f"/play/{match_id}").get_data(as_text=True)

    assert laptop.post("/web/account/sign-out-everywhere").status_code == 200
    assert phone.client.get(f"/api/matches/{match_id}/view").status_code in (401, 403)
    action = view.get_json()["legal_actions"][0] if view.get_json()["legal_actions"] else {"type": "discard"}
    assert phone.post(f"/api/matches/{match_id}/actions", action).status_code in (401, 403)
    assert phone.post(f"/api/matches/{match_id}/bots").status_code in (401, 403)
    assert phone.client.get("/web/mine").get_json()["matches"] == []
    assert 'data-seat=""' in phone.client.get(f"/play/{match_id}").get_data(as_text=True)
    assert phone.client.get(f"/web/matches/{match_id}/ting").status_code in (401, 403)


def test_a_seat_joined_signed_out_still_gets_its_cookie(app):
    """Given an anonymous browser (or one whose session has ended), when it creates and joins, then the
    seat and owner rights are kept in its HttpOnly cookies as before."""
    browser = app.test_client()
    browser.get("/")
    csrf = browser.get_cookie("tf_csrf").value
    browser.set_cookie("tf_session", "ended-or-forged")
    made = browser.post(
        "/web/matches", json={"variant": "hanshan", "options": {"hands": 1}}, headers={"X-CSRF-Token": csrf}
    )
    match_id = made.get_json()["id"]
    browser.post(f"/web/matches/{match_id}/join", json={"name": "Bo"}, headers={"X-CSRF-Token": csrf})
    assert browser.get_cookie(f"tfs_{match_id}").http_only and browser.get_cookie(f"tfo_{match_id}").http_only


# -- a device's push subscription ends with its session ---------------------------------------------
def subscription(endpoint: str) -> dict:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    public = ec.generate_private_key(ec.SECP256R1()).public_key()
    point = public.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    b64 = lambda data: base64.urlsafe_b64encode(data).decode().rstrip("=")  # noqa: E731
    return {"endpoint": endpoint, "keys": {"p256dh": b64(point), "auth": b64(bytes(16))}}


def test_a_devices_push_subscription_ends_with_its_session(app, clock):
    """Given a laptop and a phone each subscribed to Web Push, when the laptop signs the phone out,
    then the phone's subscription is gone and the laptop's stays; when the laptop's session expires,
    then its subscription is no longer sent to, and the sign-in that follows sweeps it."""
    laptop = Device(app)
    phone = Device(app, laptop.passkey, agent="Android")
    push, secrets = services(app).push, services(app).accounts.secrets
    push.subscribe(laptop.session, subscription("https://push.example.com/laptop"))
    push.subscribe(phone.session, subscription("https://push.example.com/phone"))
    account = services(app).accounts.account_of(laptop.session).account_id
    endpoints = lambda: sorted(s["endpoint"] for s in secrets.push_subscriptions(account))  # noqa: E731
    assert endpoints() == ["https://push.example.com/laptop", "https://push.example.com/phone"]
    phone_id = [d["id"] for d in laptop.devices() if not d["current"]][0]
    assert laptop.post(f"/web/account/sessions/{phone_id}/sign-out").status_code == 200
    assert endpoints() == ["https://push.example.com/laptop"]

    clock.advance(31 * DAY)  # the laptop idle past its timeout
    live = services(app).accounts.cutoffs()
    assert secrets.push_subscriptions(account, live) == [] and len(endpoints()) == 1
    Device(app, laptop.passkey)  # signs in again: the expired session and what it held are swept
    assert endpoints() == []


def test_the_ticker_removes_expired_sessions_of_accounts_that_never_come_back(app, clock):
    """Given Ada's laptop subscribed to Web Push and left idle past the timeout, and Bob's device in
    use, when the ticker passes, then the laptop's session, its last use and its subscription are
    removed (Ada never signs in again to sweep them) and Bob's stay; the next pass within the sweep
    interval does not look again, the first after it does."""
    from service.usecases.ticker import SESSION_SWEEP, Ticker

    ada = Device(app, name="Ada")
    push, store = services(app).push, services(app).match.repo.store
    push.subscribe(ada.session, subscription("https://push.example.com/laptop"))
    clock.advance(31 * DAY)
    bob = Device(app, name="Bob")
    clock.advance(600)
    assert bob.post("/web/account/recovery-codes").status_code == 200  # noted as its last use
    tables = ("tf_sessions", "tf_session_seen", "tf_push")
    rows = lambda: [store.query(f"SELECT count(*) FROM {t}")[0][0] for t in tables]  # noqa: E731
    assert rows() == [2, 1, 1]
    now = [0.0]
    ticker = Ticker(services(app).match, clock=lambda: now[0])
    # when the ticker passes
    assert ticker.run_once()["sessions_ended"] == 1
    # then the laptop's rows are gone, Bob's device stays signed in
    assert rows() == [1, 1, 0] and bob.signed_in() and not ada.signed_in()
    clock.advance(31 * DAY)  # Bob idle past the timeout too
    now[0] = SESSION_SWEEP - 1
    assert ticker.run_once()["sessions_ended"] == 0 and rows() == [1, 1, 0]
    now[0] = SESSION_SWEEP
    assert ticker.run_once()["sessions_ended"] == 1 and rows() == [0, 0, 0]


def test_a_failed_sweep_is_tried_again_within_a_minute_not_at_the_next_interval(app, clock, monkeypatch):
    """Given a sweep of expired sessions that fails (the database busy), when the ticker passes again,
    then it does not sweep before SESSION_RETRY seconds and does at SESSION_RETRY, long before the
    SESSION_SWEEP interval."""
    from service.usecases.ticker import SESSION_RETRY, SESSION_SWEEP, Ticker

    Device(app, name="Ada")
    clock.advance(31 * DAY)
    accounts = services(app).match.accounts
    real, calls = accounts.end_expired_sessions, []

    def busy_once() -> int:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("database is locked")
        return real()

    monkeypatch.setattr(accounts, "end_expired_sessions", busy_once)
    now = [0.0]
    ticker = Ticker(services(app).match, clock=lambda: now[0])
    assert ticker.run_once()["sessions_ended"] == 0 and len(calls) == 1
    now[0] = SESSION_RETRY - 1
    assert ticker.run_once()["sessions_ended"] == 0 and len(calls) == 1
    now[0] = SESSION_RETRY
    assert SESSION_RETRY < SESSION_SWEEP and ticker.run_once()["sessions_ended"] == 1 and len(calls) == 2
