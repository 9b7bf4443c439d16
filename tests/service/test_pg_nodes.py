"""Several service nodes on one PostgreSQL database, in one process: two Flask apps on one schema.

Move deadlines are settled once when every node ticks; webhook notices are delivered once when
every node delivers; a node's cached state is never older than what a client already saw from
another node (ETag / If-Match); appends on one node wake watchers on the other (LISTEN/NOTIFY).
The same over real processes, with a node SIGKILLed: tests/reliability/test_two_nodes.py.
"""

from __future__ import annotations

import threading
import time

import pytest

from audit_support import seeded_deals
from correspondence_helpers import HOUR, App, Receiver
from service.http.services import services


@pytest.fixture
def nodes(tmp_path, pg_url):
    first = App(tmp_path, DATABASE=pg_url)
    second = App(tmp_path, DATABASE=pg_url, CLOCK=first.clock)
    yield first, second
    for node in (first, second):
        node.svc.repo.store.close()


def together(*calls):
    """Run the calls at once (a barrier in front of each); return their results in order."""
    barrier, results = threading.Barrier(len(calls)), [None] * len(calls)

    def run(i, call):
        barrier.wait(timeout=60)
        results[i] = call()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return results


def test_every_node_ticks_and_each_deadline_is_settled_once(nodes):
    first, second = nodes
    late = [first.match()[0] for _ in range(3)]
    first.clock.advance(HOUR + 1)
    settled = together(first.svc.tick, second.svc.tick, first.svc.tick, second.svc.tick)
    assert 3 <= sum(r["matches_settled"] for r in settled)
    for match_id in late:
        assert len(first.reasons(match_id, "timeout")) == 1, match_id
        assert first.svc.repo.store.verify_stream(f"match-{match_id}") == []


def test_every_node_delivers_and_each_notice_arrives_once(nodes):
    first, second = nodes
    receiver = Receiver()
    try:
        match_id, owner = first.create("koudiandian", {"hands": 1}, deadline=HOUR)
        token = first.api.join(match_id, "human")
        reply = second.api.call("PUT", f"/api/matches/{match_id}/webhook", {"url": receiver.url}, token=token)
        assert reply.status == 200, reply
        first.api.bots(match_id, owner)
        for _ in range(6):  # timeouts on alternating nodes make notices; both nodes deliver at once
            first.clock.advance(HOUR + 1)
            together(first.svc.tick, second.svc.tick)
        together(first.svc.tick, second.svc.tick, first.svc.tick)
        ids = [notice["notice_id"] for notice in receiver.ok()]
        assert ids and len(ids) == len(set(ids)), sorted(ids)
        pending = first.svc.repo.store.outbox_pending("9000-01-01T00:00:00.000000Z")
        assert [item for item in pending if item.attempts == 0] == []
    finally:
        receiver.stop()


def test_a_node_never_serves_a_state_older_than_the_client_saw(nodes, monkeypatch):
    """Each node caches folded matches; a client that saw v(n) on node 1 gets >= v(n) on node 2, and
    its If-Match at v(n) is accepted on node 2 (the cache is checked against the stream's head)."""
    first, second = nodes
    seeded_deals(monkeypatch, "nodes-versions")  # a hand that lasts the twelve rounds, every run
    match_id, _, tokens = first.match(deadline=None)
    for round_ in range(12):
        acting, other = (first, second) if round_ % 2 == 0 else (second, first)
        seen = other.api.view(match_id, tokens[0])  # warms `other`'s cache at the old version
        for token in tokens:
            view = acting.api.view(match_id, token)
            if view.body["legal_actions"]:
                reply = acting.api.act(match_id, token, view.body["legal_actions"][0], view.body["version"])
                assert reply.status == 200, reply
                break
        # versions are per seat: the acting seat's view on the other node is the one its
        # answer told it, though that node's cache held the match from before the action
        now = other.api.view(match_id, token, If_None_Match=view.headers["ETag"])
        assert now.status == 200 and now.body["version"] == reply.body["view"]["version"] > view.body["version"]
        assert now.headers["ETag"] == reply.headers["ETag"]
        assert other.api.view(match_id, tokens[0]).body["version"] >= seen.body["version"]
        stale = other.api.act(match_id, token, view.body["legal_actions"][0], view.body["version"])
        assert stale.status == 409, stale


def test_an_append_on_one_node_wakes_watchers_on_the_other(nodes):
    first, second = nodes
    told = threading.Event()
    seen = []

    def watcher(stream, version):
        seen.append((stream, version))
        told.set()

    unwatch = second.svc.repo.store.watch(watcher)
    try:
        match_id, _ = first.create(deadline=None)
        assert told.wait(10), "the other node was not told"
        assert (f"match-{match_id}", 1) in seen
    finally:
        unwatch()


def test_long_poll_on_one_node_wakes_for_an_action_on_the_other(nodes):
    first, second = nodes
    match_id, _, tokens = first.match(deadline=None)
    view = first.api.view(match_id, tokens[0])
    actor = next(t for t in tokens if first.api.view(match_id, t).body["legal_actions"])
    actor_view = first.api.view(match_id, actor)
    woke: list = []

    def wait():
        started = time.monotonic()
        reply = second.api.call(
            "GET", f"/api/matches/{match_id}/view?wait=20", token=tokens[0], If_None_Match=view.headers["ETag"]
        )
        woke.append((reply.status, time.monotonic() - started))

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.3)
    assert first.api.act(match_id, actor, actor_view.body["legal_actions"][0], actor_view.body["version"]).status == 200
    waiter.join(timeout=30)
    assert woke and woke[0][0] == 200 and woke[0][1] < 15, woke


def test_chat_long_poll_on_one_node_wakes_for_a_line_posted_on_the_other(nodes):
    """The chat long-poll waits on the node's WaiterHub, which hears the other node's append
    (LISTEN/NOTIFY, with the change feed as a safety net): the line arrives within a few seconds."""
    first, second = nodes
    match_id, _, tokens = first.match(deadline=None)
    woke: list = []

    def wait():
        started = time.monotonic()
        reply = second.api.call("GET", f"/api/matches/{match_id}/chat?after=0&wait=20", token=tokens[1])
        woke.append((reply.status, reply.body, time.monotonic() - started))

    waiter = threading.Thread(target=wait)
    waiter.start()
    hub = services(second.app).hub
    deadline = time.monotonic() + 10
    while hub.waiting == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert hub.waiting == 1, "the chat long-poll does not wait on the hub"
    assert first.api.call("POST", f"/api/matches/{match_id}/chat", {"text": "你好"}, token=tokens[0]).status == 201
    waiter.join(timeout=30)
    assert woke and woke[0][0] == 200 and woke[0][2] < 15, woke
    assert [line["text"] for line in woke[0][1]["lines"]] == ["你好"]


def test_a_snapshot_edited_in_the_database_is_refused_by_a_cold_node(tmp_path, pg_url, caplog):
    """On PostgreSQL: given a match whose latest snapshot's bytes were replaced inside the
    database (triggers off), when another node loads it cold, then 503 `integrity_error`, logged."""
    import logging

    import psycopg

    first = App(tmp_path, DATABASE=pg_url)
    try:
        match_id, _, _ = first.match(deadline=None)
        first.svc.keep_snapshots()  # the worker's ticker pass: the match's rolling snapshot
        with psycopg.connect(pg_url, autocommit=True) as conn, conn.transaction():
            conn.execute("SET LOCAL session_replication_role = replica")
            edited = conn.execute(
                "UPDATE snapshots SET data = data || '\\x00'::bytea WHERE stream = %s AND version = "
                "(SELECT MAX(version) FROM snapshots WHERE stream = %s)",
                [f"match-{match_id}", f"match-{match_id}"],
            ).rowcount
        assert edited == 1
        cold = App(tmp_path, DATABASE=pg_url)
        with caplog.at_level(logging.ERROR):
            reply = cold.api.call("GET", f"/api/matches/{match_id}")
        cold.svc.repo.store.close()
        assert reply.status == 503 and reply.body["code"] == "integrity_error", reply
        assert any("snapshot" in r.getMessage() for r in caplog.records if r.levelno == logging.ERROR)
    finally:
        first.svc.repo.store.close()
