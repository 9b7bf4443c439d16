"""The chat long-poll (`GET .../chat?wait=`) waits through the worker's one WaiterHub.

Like the view long-poll and the SSE streams, a chat wait asks the store nothing while it waits (the
hub's watcher asks once per poll for every waiter, or hears a notification), is woken by a line
appended in the same worker or by another process, and counts toward the waiting caps (429 per
address, 503 in all, with Retry-After). PostgreSQL (another node's line): tests/service/test_pg_nodes.py.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

from conftest import MatchClient, flask_transport
from service.http.services import services

ROOT = Path(__file__).resolve().parents[2]
ADDRESS = "10.0.0.7"


def chat_app(tmp_path, **settings):
    """An app (watcher polling every 20 ms), a match with one seated player and that player's token."""
    from service.app import create_app

    app = create_app({"DATABASE": str(tmp_path / "chat.db"), "TESTING": True, "POLL_INTERVAL": 0.02, **settings})
    api = MatchClient(flask_transport(app.test_client()))
    match_id, _ = api.create("koudiandian", {"hands": 1})
    return app, match_id, api.join(match_id, "talker")


def chat_get(app, match_id, token, query):
    return app.test_client().get(
        f"/api/matches/{match_id}/chat?{query}",
        headers={"Authorization": f"Bearer {token}"},
        environ_overrides={"REMOTE_ADDR": ADDRESS},
    )


class ChatWait(threading.Thread):
    """One chat long-poll (?after=0&wait=20) on its own thread; `reply` and `took` once answered."""

    def __init__(self, app, match_id, token):
        super().__init__(daemon=True)
        self.args, self.reply, self.took = (app, match_id, token), None, None
        self.start()

    def run(self):
        started = time.monotonic()
        self.reply = chat_get(*self.args, "after=0&wait=20")
        self.took = time.monotonic() - started


def until(condition, seconds=10.0):
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert condition(), "timed out"


class StoreSpy:
    """Counts the store calls that name the chat stream (a per-client sleep loop would make them)."""

    def __init__(self, store, stream):
        self.calls: list[str] = []
        for name in ("current_version", "read"):
            original = getattr(store, name)

            def spy(target, *args, _name=name, _original=original, **kwargs):
                if target == stream:
                    self.calls.append(_name)
                return _original(target, *args, **kwargs)

            setattr(store, name, spy)


def test_a_chat_long_poll_asks_the_store_nothing_while_it_waits_and_a_line_in_this_worker_wakes_it(tmp_path):
    """Given a seat long-polling the chat, when half a second passes, then nobody asked the store about
    the chat stream meanwhile (the hub's watcher asks once per poll for all waiters); when a line is
    posted in the same worker, then the long-poll answers with it at once."""
    app, match_id, token = chat_app(tmp_path)
    hub = services(app).hub
    spy = StoreSpy(services(app).match.repo.store, f"chat-{match_id}")
    waiting = ChatWait(app, match_id, token)
    until(lambda: hub.waiting == 1 and spy.calls.count("current_version") >= 2)  # the route's and the hub's start
    spy.calls.clear()
    time.sleep(0.5)
    assert spy.calls == [], "a waiting chat client queried the store itself"
    posted = app.test_client().post(
        f"/api/matches/{match_id}/chat", json={"text": "你好 hi"}, headers={"Authorization": f"Bearer {token}"}
    )
    assert posted.status_code == 201
    waiting.join(30)
    assert waiting.reply.status_code == 200
    assert [line["text"] for line in waiting.reply.get_json()["lines"]] == ["你好 hi"]
    assert waiting.took < 10
    assert services(app).wait_limits.open == 0


APPEND_FROM_ELSEWHERE = """
import sys
from events import EventStore, NewEvent
store = EventStore(sys.argv[1])
stream = "chat-" + sys.argv[2]
store.append(stream, store.current_version(stream), [NewEvent("chat_posted", {"seat": 0, "text": "from afar"})])
"""


def test_a_chat_long_poll_is_woken_by_a_line_another_process_appends(tmp_path):
    """Given a seat long-polling the chat, when another process appends a line to the same database
    file (SQLite tells no other process: the hub's watcher finds it in its one poll), then the
    long-poll answers with it within a few seconds."""
    app, match_id, token = chat_app(tmp_path)
    waiting = ChatWait(app, match_id, token)
    until(lambda: services(app).hub.waiting == 1)
    subprocess.run(
        [sys.executable, "-c", APPEND_FROM_ELSEWHERE, app.config["DATABASE"], match_id],
        cwd=ROOT,
        check=True,
        timeout=60,
    )
    waiting.join(30)
    assert waiting.reply.status_code == 200
    assert [line["text"] for line in waiting.reply.get_json()["lines"]] == ["from afar"]
    assert waiting.took < 15


def test_a_chat_long_poll_counts_toward_the_waiting_caps(tmp_path):
    """Given one wait allowed per address, when a chat long-poll waits, then a second chat long-poll
    and a view long-poll from that address are refused 429 with Retry-After, while a chat read that
    does not wait is answered; after it ends the slot is free again."""
    app, match_id, token = chat_app(tmp_path, MAX_WAITERS_PER_ADDRESS=1, WAIT_RETRY_AFTER=9)
    limits = services(app).wait_limits
    waiting = ChatWait(app, match_id, token)
    until(lambda: limits.open == 1)
    refused = chat_get(app, match_id, token, "after=0&wait=5")
    assert refused.status_code == 429 and refused.mimetype == "application/problem+json"
    assert refused.get_json()["code"] == "too_many_waits" and refused.headers["Retry-After"] == "9"
    auth = {"Authorization": f"Bearer {token}"}
    etag = app.test_client().get(f"/api/matches/{match_id}/view", headers=auth).headers["ETag"]
    view = app.test_client().get(
        f"/api/matches/{match_id}/view?wait=5",
        headers={**auth, "If-None-Match": etag},
        environ_overrides={"REMOTE_ADDR": ADDRESS},
    )
    assert view.status_code == 429  # one cap for every kind of wait
    assert chat_get(app, match_id, token, "after=0").status_code == 200  # no wait: no slot
    app.test_client().post(
        f"/api/matches/{match_id}/chat", json={"text": "done"}, headers={"Authorization": f"Bearer {token}"}
    )
    waiting.join(30)
    assert waiting.reply.status_code == 200
    assert limits.open == 0


def test_a_chat_long_poll_over_the_total_cap_answers_503(tmp_path):
    """Given one wait allowed in all, when a chat long-poll waits, then another address's chat
    long-poll is refused 503 `server_waits_full` with Retry-After."""
    app, match_id, token = chat_app(tmp_path, MAX_WAITERS=1)
    limits = services(app).wait_limits
    waiting = ChatWait(app, match_id, token)
    until(lambda: limits.open == 1)
    full = app.test_client().get(
        f"/api/matches/{match_id}/chat?after=0&wait=5",
        headers={"Authorization": f"Bearer {token}"},
        environ_overrides={"REMOTE_ADDR": "10.0.0.8"},
    )
    assert full.status_code == 503 and full.get_json()["code"] == "server_waits_full" and full.headers["Retry-After"]
    app.test_client().post(
        f"/api/matches/{match_id}/chat", json={"text": "done"}, headers={"Authorization": f"Bearer {token}"}
    )
    waiting.join(30)
    assert limits.open == 0
