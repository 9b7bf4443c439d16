"""Notifications with no tab open (service/usecases/push.py), on both backends: a signed-in player's
device subscribes; "your turn", "hand ended" and "match ended" reach it through a push endpoint this
test runs on 127.0.0.1, which checks the VAPID signature and decrypts what it receives (aes128gcm,
with the device's own keys, as a browser would); no payload carries a tile, a deleted account's
device gets nothing, an unsubscribed one neither. Delivery is a ticker pass called directly."""

from __future__ import annotations

import base64
import http.server
import json
import re
import threading

import http_ece
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02

import engine
from service.app import create_app
from service.http.pages import auth
from service.http.services import services
from service.infra.clock import ManualClock
from engine.tiles import KIND_NAMES
from service.infra.webpush import PAYLOAD_BYTES
from webauthn_support import Passkey

CHINESE_TILE = re.compile(r"[一二三四五六七八九][万条筒饼]|[东南西北中發白]")


def tile_codes(text: str) -> set[str]:
    """The engine's tile codes (1m..9s, E S W N C F P) that appear as words in `text`."""
    return set(re.findall(r"[A-Za-z0-9]+", text)) & set(KIND_NAMES)


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


class Device:
    """A browser's push subscription: its own P-256 key and auth secret, as PushManager makes them."""

    def __init__(self, endpoint: str) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = bytes(range(16))
        self.endpoint = endpoint
        self.received: list[dict] = []
        self.sizes: list[int] = []

    def subscription(self) -> dict:
        public = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": b64(public), "auth": b64(self.auth)},
        }


class PushService:
    """A push service on 127.0.0.1: each device's endpoint is /push/<n>; a request is taken (201) only
    with a valid VAPID signature of the server's key, and decrypted with the device's private key."""

    def __init__(self) -> None:
        self.devices: dict[str, Device] = {}
        self.refused: list[str] = []
        self.gone: set[str] = set()
        self.vapid_public: str = ""
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                device = outer.devices.get(self.path)
                status = outer.take(device, self.path, body, self.headers)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def device(self) -> Device:
        path = f"/push/{len(self.devices)}"
        self.devices[path] = Device(self.base + path)
        return self.devices[path]

    def take(self, device, path: str, body: bytes, headers) -> int:
        if device is None or path in self.gone:
            return 410
        authorization = headers.get("Authorization", "")
        key = dict(part.split("=", 1) for part in authorization.split(" ", 1)[1].split(","))["k"]
        if key != self.vapid_public or not Vapid02.verify(authorization):
            self.refused.append(path)
            return 401
        assert headers.get("Content-Encoding") == "aes128gcm" and int(headers.get("TTL", "0")) > 0
        plain = http_ece.decrypt(body, private_key=device.key, auth_secret=device.auth, version="aes128gcm")
        device.sizes.append(len(plain))
        device.received.append(json.loads(plain))
        return 201

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def pushes():
    service = PushService()
    yield service
    service.stop()


@pytest.fixture
def app_on(backend, tmp_path, pushes):
    app = create_app(
        {
            "DATABASE": backend.target,
            "TESTING": True,
            "KEYS": str(tmp_path / "keys"),
            "CLOCK": ManualClock(),
            "WEBHOOK_WORKER": False,  # delivered by the ticker pass the test calls
            "WEBHOOK_ALLOW_PRIVATE": True,  # the push endpoint is on 127.0.0.1
        }
    )
    pushes.vapid_public = services(app).push.public_key
    yield app
    services(app).match.repo.store.close()


PASSKEYS: dict[str, Passkey] = {}


def signed_up(app, name="Ada"):
    accounts = services(app).accounts
    passkey = Passkey()
    signed = accounts.finish_sign_up(passkey.create(accounts.begin_sign_up(name)), "phone")
    PASSKEYS[signed.account_id] = passkey
    return signed


def signed_in_again(app, signed):
    """The account's passkey's answer to a new sign-in challenge."""
    return PASSKEYS[signed.account_id].get(services(app).accounts.begin_sign_in())


def seat_for(app, session, variant="hanshan", hands=1):
    """A match with the account's seat 0 and three bots (the deal asks seat 0 to discard)."""
    play = services(app).match
    match_id, owner, _ = play.create(variant, {"hands": hands})
    seat, token, _ = play.join(match_id, "Ada")
    services(app).accounts.link(session, match_id, seat, token, "joined")
    play.add_bots(match_id, owner, None)
    return match_id, seat, token


def deliver(app) -> dict:
    return services(app).ticker.run_once(leased=False)


def play_out(app, match_id: str, token: str, seat: int) -> None:
    """Play the human seat's first legal action until the match is over, then one ticker pass
    delivers what the outbox holds."""
    play = services(app).match
    for _ in range(2000):
        loaded = play.load(match_id)
        if loaded.over:
            deliver(app)
            return
        actions = engine.legal_actions(loaded.state, seat)
        assert actions, "the bots move at once: the match waits only for the human seat"
        play.act(match_id, seat, actions[0], None, loaded=loaded)
    raise AssertionError("the match did not end")


def test_a_subscribed_device_is_told_its_turn_then_the_hand_and_match_ends(app_on, pushes, backend):
    """Given a signed-in player's device subscribed and a seat of theirs in a match with bots, when
    the deal asks the seat to act, and the match is played out, then the device receives "your_turn",
    "hand_ended" and "match_ended", decrypted with its own keys, each the same fixed payload: the
    match, its kind, the rule set's public name and the table's link, padded to one length."""
    signed = signed_up(app_on)
    phone = pushes.device()
    services(app_on).push.subscribe(signed.session, phone.subscription())
    match_id, seat, token = seat_for(app_on, signed.session)
    deliver(app_on)
    assert phone.received[:1] == [
        {"kind": "your_turn", "match": match_id, "name": "含山麻将", "url": f"/play/{match_id}"}
    ]
    play_out(app_on, match_id, token, seat)
    kinds = [m["kind"] for m in phone.received]
    assert kinds.count("hand_ended") == 1 and kinds[-2:] == ["hand_ended", "match_ended"]
    assert set(kinds) == {"your_turn", "hand_ended", "match_ended"}
    for message in phone.received:
        assert set(message) == {"kind", "match", "name", "url"} and message["match"] == match_id
    assert set(phone.sizes) == {PAYLOAD_BYTES} and pushes.refused == []


def test_no_payload_ever_carries_a_tile_or_another_seat(app_on, pushes):
    """Given a subscribed device playing a whole match, then no payload names a tile (a code like
    5m or a Chinese tile name), a seat, a score, a phase or an action: only the four fixed fields."""
    signed = signed_up(app_on)
    phone = pushes.device()
    services(app_on).push.subscribe(signed.session, phone.subscription())
    match_id, seat, token = seat_for(app_on, signed.session, variant="koudiandian")
    play_out(app_on, match_id, token, seat)
    assert phone.received
    for message in phone.received:
        text = json.dumps(message, ensure_ascii=False).replace(match_id, "").replace(message["name"], "")
        assert not tile_codes(text) and not CHINESE_TILE.search(text), text
        assert message["name"] in ("山西扣点点", "含山麻将")
        assert set(message) == {"kind", "match", "name", "url"}
        assert message["kind"] in ("your_turn", "hand_ended", "match_ended")
    for (payload,) in services(app_on).match.repo.store.query("SELECT payload FROM outbox"):
        notice = json.loads(payload)
        if "push" in notice:  # what is queued names the seat to reach, nothing of the hand
            assert set(notice) == {"notice_id", "push", "match", "seat"}


def test_a_deleted_accounts_device_gets_nothing_and_its_subscription_is_gone(app_on, pushes, backend):
    """Given a subscribed device whose account holds a seat, when the account is deleted and the seat
    is asked to act again, then the device receives nothing and no subscription row is left."""
    signed = signed_up(app_on)
    other = signed_up(app_on, "Bob")
    phone, bobs = pushes.device(), pushes.device()
    services(app_on).push.subscribe(signed.session, phone.subscription())
    services(app_on).push.subscribe(other.session, bobs.subscription())  # push stays on for the store
    match_id, seat, token = seat_for(app_on, signed.session)
    export = services(app_on).accounts.export(signed.session)
    assert export["push_subscriptions"] == [{"endpoint": phone.endpoint, "keys": phone.subscription()["keys"]}]
    services(app_on).accounts.delete(signed.session)
    assert backend.sql("SELECT count(*) FROM tf_push")[0][0] == 1  # Bob's only
    play_out(app_on, match_id, token, seat)
    assert phone.received == [] and bobs.received == []


def test_an_unsubscribed_device_gets_nothing_and_another_device_still_does(app_on, pushes):
    """Given two devices of one account subscribed, when one unsubscribes, then only the other is
    told; unsubscribing an endpoint the account does not have removes nothing."""
    signed = signed_up(app_on)
    phone, laptop = pushes.device(), pushes.device()
    push = services(app_on).push
    push.subscribe(signed.session, phone.subscription())
    push.subscribe(signed.session, laptop.subscription())
    assert push.unsubscribe(signed.session, phone.endpoint) is True
    assert push.unsubscribe(signed.session, "https://push.example/none") is False
    seat_for(app_on, signed.session)
    deliver(app_on)
    assert phone.received == [] and [m["kind"] for m in laptop.received] == ["your_turn"]


def test_an_ended_subscription_is_forgotten(app_on, pushes, backend):
    """Given a subscribed device whose push service answers 410 Gone, when a notice is delivered,
    then the subscription is removed (and the notice is not retried)."""
    signed = signed_up(app_on)
    phone = pushes.device()
    services(app_on).push.subscribe(signed.session, phone.subscription())
    pushes.gone.add("/push/0")
    seat_for(app_on, signed.session)
    deliver(app_on)
    assert backend.sql("SELECT count(*) FROM tf_push")[0][0] == 0
    assert services(app_on).match.repo.store.query("SELECT count(*) FROM outbox WHERE delivered_at IS NULL")[0][0] == 0


def test_no_push_notice_is_planned_while_nobody_subscribed(app_on, pushes):
    """Given no account with a subscription, when a match is played, then no push notice enters the
    outbox (an append pays for push only once some device subscribed)."""
    signed = signed_up(app_on)
    seat_for(app_on, signed.session)
    rows = services(app_on).match.repo.store.query("SELECT payload FROM outbox")
    assert not [r for r in rows if "push" in json.loads(r[0])]


def test_subscriptions_are_checked_and_sealed(app_on, pushes, backend):
    """Given a subscription with a malformed key or a non-URL endpoint, then it is refused; a good
    one is stored sealed: neither its endpoint nor its keys appear in the table."""
    from service.model.errors import Invalid, Unauthenticated

    signed = signed_up(app_on)
    push = services(app_on).push
    device = pushes.device()
    bad = device.subscription()
    bad["keys"] = {"p256dh": "AAAA", "auth": bad["keys"]["auth"]}
    with pytest.raises(Invalid):
        push.subscribe(signed.session, bad)
    with pytest.raises(Invalid):
        push.subscribe(signed.session, {**device.subscription(), "endpoint": "ftp://x/y"})
    with pytest.raises(Unauthenticated):
        push.subscribe("no-such-session", device.subscription())
    push.subscribe(signed.session, device.subscription())
    dump = repr(backend.sql("SELECT * FROM tf_push"))
    assert device.endpoint not in dump and device.subscription()["keys"]["p256dh"] not in dump


def test_the_pages_helpers_subscribe_and_unsubscribe(app_on, pushes):
    """Given a signed-in browser, when it asks for the VAPID key and posts its subscription (and
    later its endpoint to remove), then the helpers answer under the CSRF rule."""
    signed = signed_up(app_on)
    client = app_on.test_client()
    client.set_cookie(auth.SESSION_COOKIE, signed.session)
    client.set_cookie(auth.CSRF_COOKIE, "t")
    assert client.get("/web/account/push").get_json()["public_key"] == services(app_on).push.public_key
    device = pushes.device()
    refused = client.post("/web/account/push", json={"subscription": device.subscription()})
    assert refused.status_code == 403
    headers = {auth.CSRF_HEADER: "t"}
    made = client.post("/web/account/push", json={"subscription": device.subscription()}, headers=headers)
    assert made.status_code == 201
    assert len(services(app_on).push.subscriptions(signed.session)) == 1
    removed = client.post("/web/account/push/remove", json={"endpoint": device.endpoint}, headers=headers)
    assert removed.get_json() == {"subscribed": False, "removed": True}
    assert services(app_on).push.subscriptions(signed.session) == []


def test_signing_out_everywhere_ends_every_devices_notifications(app_on, pushes):
    """Given two subscribed devices of an account, when it signs out everywhere (or recovers on a
    new device), then neither device is notified any more."""
    signed = signed_up(app_on)
    push = services(app_on).push
    for device in (pushes.device(), pushes.device()):
        push.subscribe(signed.session, device.subscription())
    again = services(app_on).accounts.finish_sign_in(signed_in_again(app_on, signed), "laptop")
    services(app_on).accounts.sign_out_everywhere(again.session)
    assert services(app_on).push.secrets.push_subscriptions(signed.account_id) == []


def test_the_service_worker_and_the_control(app_on):
    """The service worker is served at the site's root as JavaScript (it shows the message and
    opens the match on a click); the signed-in account page has the control, named by its text."""
    client = app_on.test_client()
    worker = client.get("/push-sw.js")
    assert worker.status_code == 200 and worker.mimetype == "text/javascript"
    text = worker.get_data(as_text=True)
    assert "showNotification" in text and "openWindow" in text and "notificationclick" in text
    signed = signed_up(app_on)
    client.set_cookie(auth.SESSION_COOKIE, signed.session)
    page = client.get("/account").get_data(as_text=True)
    assert re.search(
        r'<button type="button" id="push-toggle"[^>]*>通知我 <small>Notify me on this device</small>', page
    )
