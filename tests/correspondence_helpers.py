"""Helpers for the correspondence-play tests: a driven clock, preset deals and a webhook receiver."""

from __future__ import annotations

import http.server
import json
import threading
import time
from typing import Optional

import pytest

from conftest import MatchClient, flask_transport
from service.http.services import services

HOUR = 3600


class App:
    """A Flask app on a temp database with a ManualClock; `api` is the MatchClient over it."""

    def __init__(self, tmp_path, **config):
        from service.app import create_app
        from service.infra.clock import ManualClock

        self.clock = ManualClock()
        settings = {
            "DATABASE": str(tmp_path / "tilefold.db"),
            "TESTING": True,
            "CLOCK": self.clock,
            "WEBHOOK_WORKER": False,
            "WEBHOOK_ALLOW_PRIVATE": True,
        }
        settings.update(config)
        self.app = create_app(settings)
        self.api = MatchClient(flask_transport(self.app.test_client()))
        self.svc = services(self.app).match

    def create(self, variant="koudiandian", options=None, deadline: Optional[int] = HOUR):
        body = {"variant": variant, "options": options or {"hands": 1}}
        if deadline is not None:
            body["deadline_seconds"] = deadline
        reply = self.api.call("POST", "/api/matches", body)
        assert reply.status == 201, reply
        return reply.body["id"], reply.body["owner_token"]

    def match(self, variant="koudiandian", options=None, humans=4, deadline: Optional[int] = HOUR):
        match_id, owner = self.create(variant, options, deadline)
        tokens = [self.api.join(match_id, f"p{i}") for i in range(humans)]
        if humans < 4:
            self.api.bots(match_id, owner)
        return match_id, owner, tokens

    def stored(self, match_id: str) -> list:
        return self.svc.repo.read(match_id)

    def reasons(self, match_id: str, reason: str) -> list[dict]:
        return [{"type": e.type, **e.payload} for e in self.stored(match_id) if e.payload.get("reason") == reason]

    def act(self, match_id: str, token: str, action: str, tile: Optional[str] = None):
        command = {"action": action} if tile is None else {"action": action, "tile": tile}
        reply = self.api.act(match_id, token, command)
        assert reply.status == 200, reply
        return reply


@pytest.fixture
def preset(monkeypatch):
    """preset(hands, wall, wild): every hand the service deals starts from this preset."""

    def use(hands: list[str], wall: str, wild: Optional[str] = None) -> None:
        import service.usecases.play

        command = {"action": "start_hand", "preset": {"hands": hands, "wall": wall, "wild": wild}}
        monkeypatch.setattr(service.usecases.play, "_deal_command", lambda *args: dict(command))

    return use


class Receiver:
    """An http.server on 127.0.0.1 in a thread recording webhook POSTs; `mode` ok | fail | hang."""

    def __init__(self, port: int = 0):
        self.mode, self.received, self.lock = "ok", [], threading.Lock()
        self.hang_seconds = 3.0
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                mode = receiver.mode
                if mode == "hang":
                    time.sleep(receiver.hang_seconds)
                status = 500 if mode == "fail" else 200
                with receiver.lock:
                    receiver.received.append({"status": status, "body": body, "headers": dict(self.headers)})
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def ok(self) -> list[dict]:
        with self.lock:
            return [json.loads(r["body"]) for r in self.received if r["status"] == 200]

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
