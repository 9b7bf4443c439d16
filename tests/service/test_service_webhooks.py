"""Webhook notices: once per pending decision, signed, retried until a failing receiver recovers,
and never on the request path (an action is as fast with the receiver down as up)."""

from __future__ import annotations

import json
import random
import statistics
import threading
import time

import pytest

import engine
from audit_support import seeded_deals
from correspondence_helpers import HOUR, App, Receiver
from service.infra.notify import verify


@pytest.fixture
def receiver():
    server = Receiver()
    yield server
    server.stop()


def register(t: App, match_id: str, token: str, url: str) -> str:
    reply = t.api.call("PUT", f"/api/matches/{match_id}/webhook", {"url": url}, token=token)
    assert reply.status == 200, reply
    assert reply.body["signature_header"] == "X-Tilefold-Signature"
    return reply.body["secret"]


def human_and_bots(t: App, url: str, options=None, deadline=HOUR):
    """Seat 0 human with a webhook registered before the deal, seats 1-3 bots."""
    match_id, owner = t.create("koudiandian", options or {"hands": 1}, deadline=deadline)
    token = t.api.join(match_id, "human")
    secret = register(t, match_id, token, url)
    t.api.bots(match_id, owner)
    return match_id, token, secret


def play_one_action(t: App, match_id: str, token: str, rng: random.Random):
    view = t.api.view(match_id, token).body
    if view["status"] == "over" or not view["legal_actions"]:
        return None
    started = time.perf_counter()
    reply = t.api.act(match_id, token, rng.choice(view["legal_actions"]), view["version"])
    elapsed = time.perf_counter() - started
    assert reply.status == 200, reply
    return view["version"], elapsed


def undelivered(t: App) -> int:
    return t.svc.repo.store.query("SELECT COUNT(*) FROM outbox WHERE delivered_at IS NULL")[0][0]


def all_notices(t: App) -> list[dict]:
    return [json.loads(r[0]) for r in t.svc.repo.store.query("SELECT payload FROM outbox")]


def wait_for(predicate, seconds=15.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_webhook_url_checks_and_removal(tmp_path):
    t = App(tmp_path)
    match_id, _, tokens = t.match(deadline=None)
    url = f"/api/matches/{match_id}/webhook"
    for bad in ("ftp://example.com/x", "example.com/hook", "http://", "http://user:pw@example.com/"):
        reply = t.api.call("PUT", url, {"url": bad}, token=tokens[0])
        assert (reply.status, reply.body["code"]) == (400, "invalid_body"), bad
    assert t.api.call("PUT", url, {"url": "http://127.0.0.1:9/h"}).body["code"] == "missing_token"
    first = register(t, match_id, tokens[0], "https://example.com/hook")
    second = register(t, match_id, tokens[0], "http://127.0.0.1:9/hook")
    assert first != second and len(second) == 64  # a new secret each time
    assert t.api.call("DELETE", url, token=tokens[0]).status == 204
    flags = [e.payload for e in t.stored(match_id) if e.type == "webhook_set"]
    assert flags == [{"seat": 0, "registered": True}] * 2 + [{"seat": 0, "registered": False}]
    assert "secret" not in str([e.payload for e in t.stored(match_id)]) and second not in str(t.stored(match_id))


def test_every_decision_is_notified_once_and_signed(tmp_path, receiver):
    t = App(tmp_path, WEBHOOK_WORKER=True, WEBHOOK_POLL=0.05)
    match_id, token, secret = human_and_bots(t, receiver.url)
    rng, acted, stop = random.Random(3), [], threading.Event()

    def ticker():  # `tilefold tick` racing the worker thread for the same rows
        while not stop.is_set():
            t.svc.tick()
            time.sleep(0.01)

    racer = threading.Thread(target=ticker, daemon=True)
    racer.start()
    try:
        for _ in range(500):
            step = play_one_action(t, match_id, token, rng)
            if step is None and t.api.summary(match_id)["status"] == "over":
                break
            if step:
                acted.append(step[0])
        assert wait_for(lambda: undelivered(t) == 0), "notices left undelivered"
    finally:
        stop.set()
        racer.join(5)
    assert t.api.summary(match_id)["status"] == "over"

    received = receiver.received
    ids = [json.loads(r["body"])["notice_id"] for r in received]
    assert len(ids) == len(set(ids)), "a notice was delivered twice"
    assert sorted(ids) == sorted(n["notice_id"] for n in all_notices(t))
    for r in received:
        assert verify(secret, r["body"], r["headers"]["X-Tilefold-Signature"])
        assert not verify("wrong", r["body"], r["headers"]["X-Tilefold-Signature"])
    notices = [json.loads(r["body"]) for r in received]
    decisions = sorted((n for n in notices if n["kind"] == "decision"), key=lambda n: n["version"])
    assert {n["kind"] for n in notices} == {"decision", "hand_ended", "match_ended"}
    assert all(n["seat"] == 0 and n["match"] == match_id and n["actions"] and n["deadline"] for n in decisions)
    # every action answered a decision that had been notified (after the previous action)
    previous = 0
    for version in acted:
        assert any(previous < n["version"] <= version for n in decisions), version
        previous = version
    # and every notice was a real decision of seat 0 at that version (engine-checked)
    stored = t.stored(match_id)
    numbering = t.svc.repo.load(match_id).numbering
    for n in decisions:  # a notice's version is in the seat's own numbering
        events = [
            {"type": e.type, **e.payload}
            for e in stored[: numbering.to_global(n["version"], 0)]
            if e.type not in ("match_created", "seat_joined", "webhook_set", "orders_set", "spectating_set")
        ]
        assert 0 in engine.pending_seats(engine.fold(events))


def test_a_failing_then_down_receiver_still_gets_every_notice(tmp_path, receiver):
    t = App(tmp_path)  # no worker thread: deliveries only by tick, the clock drives the backoff
    match_id, token, _ = human_and_bots(t, receiver.url, {"hands": 2})
    rng = random.Random(8)
    receiver.mode = "fail"
    for _ in range(4):
        play_one_action(t, match_id, token, rng)
    t.svc.tick()
    assert receiver.received and not receiver.ok()
    port = receiver.port
    receiver.stop()  # now down: connection refused
    for _ in range(3):
        play_one_action(t, match_id, token, rng)
    for _ in range(2):
        t.clock.advance(100)
        t.svc.tick()
    assert undelivered(t) > 0
    back = Receiver(port)
    try:
        for _ in range(6):
            t.clock.advance(2000)
            t.svc.tick()
        delivered = [n["notice_id"] for n in back.ok()]
        assert sorted(delivered) == sorted(n["notice_id"] for n in all_notices(t))
        assert len(delivered) == len(set(delivered)) and undelivered(t) == 0
    finally:
        back.stop()


def test_delivery_gives_up_after_bounded_attempts(tmp_path):
    t = App(tmp_path, WEBHOOK_ATTEMPTS=3)
    human_and_bots(t, "http://127.0.0.1:9/nobody-listens", deadline=None)
    for _ in range(6):
        t.clock.advance(HOUR)
        t.svc.tick()
    rows = t.svc.repo.store.query("SELECT attempts, delivered_at FROM outbox")
    assert rows and all(attempts == 3 and delivered is None for attempts, delivered in rows)
    assert t.svc.notifier.deliver_due() == 0


def test_actions_are_not_slowed_by_a_hanging_or_dead_receiver(tmp_path, receiver, monkeypatch):
    seeded_deals(monkeypatch, "webhook-latencies")  # eight hands that give the human 39 moves, every run
    t = App(tmp_path, WEBHOOK_WORKER=True, WEBHOOK_POLL=0.05, WEBHOOK_TIMEOUT=4.0)
    receiver.hang_seconds = 5.0
    match_id, token, _ = human_and_bots(t, receiver.url, {"hands": 8}, deadline=None)
    rng = random.Random(2)

    def latencies(n):
        out = []
        while len(out) < n:
            step = play_one_action(t, match_id, token, rng)
            assert step is not None, "the match ended too soon"
            out.append(step[1])
        return out

    latencies(3)  # warm up
    up = latencies(12)
    receiver.mode = "hang"  # accepts, then answers after 5 s (beyond the 4 s timeout)
    hanging = latencies(12)
    receiver.stop()  # refused
    down = latencies(12)
    for measured in (hanging, down):
        assert max(measured) < 3.0, measured  # one synchronous delivery would take 4 s (a busy machine: < 1.5 s)
        assert statistics.median(measured) < max(0.25, 4 * statistics.median(up)), (measured, up)


def test_webhook_secrets_are_sealed_not_stored_in_the_clear(tmp_path, receiver):
    """Given a seat that registered a webhook, then its secret is nowhere in the database files in
    the clear (it is sealed with a key outside the database) nor in the match's export, and a
    notice is still signed with the secret the seat was given."""
    import glob

    t = App(tmp_path, WEBHOOK_WORKER=True, WEBHOOK_POLL=0.05)
    match_id, token, secret = human_and_bots(t, receiver.url)
    [(stored,)] = t.svc.repo.store.query("SELECT secret FROM tf_webhooks")
    assert stored.startswith("sealed:v1:") and secret not in stored
    assert wait_for(lambda: receiver.received), "no notice delivered"
    first = receiver.received[0]
    assert verify(secret, first["body"], first["headers"]["X-Tilefold-Signature"])
    files = sorted(glob.glob(t.app.config["DATABASE"] + "*"))  # the db, its -wal and -shm
    data = b"".join(open(path, "rb").read() for path in files)
    assert data and secret.encode() not in data
    assert secret not in str([e.payload for e in t.stored(match_id)])  # nor in the events an export carries
