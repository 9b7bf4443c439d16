"""A whole match over real HTTP against `tilefold serve` (gunicorn, 2 gthread workers)."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

requests = pytest.importorskip("requests")

from conftest import MatchClient, requests_transport  # noqa: E402
from served import serving  # noqa: E402


@pytest.fixture
def server(tmp_path: Path):
    with serving(tmp_path / "served.db") as base:
        yield base


def test_one_human_three_bots_over_http(server):
    api = MatchClient(requests_transport(server))
    started = time.monotonic()
    match_id, owner = api.create("koudiandian", {"hands": 2})
    token = api.join(match_id, "human")
    api.bots(match_id, owner)
    api.play_randomly(match_id, [token], random.Random(11))
    summary = api.summary(match_id)
    assert summary["status"] == "over" and sum(summary["scores"]) == 0
    assert [s["bot"] for s in summary["seats"]] == [False, True, True, True]
    feed = api.events(match_id, token).body
    # versions per viewer: the seat's feed counts in the seat's numbering, as its view does
    assert feed["viewer"] == "all" and feed["version"] == api.view(match_id, token).body["version"]
    assert [e["version"] for e in feed["events"] if e["version"] is not None] == list(range(1, feed["version"] + 1))
    spec = requests.get(server + "/api/openapi.json", timeout=5).json()
    assert "/api/matches/{match_id}/actions" in spec["paths"]
    missing = requests.get(f"{server}/api/matches/{match_id}/view", timeout=5)
    assert missing.status_code == 401 and missing.headers["Content-Type"].startswith("application/problem+json")
    assert time.monotonic() - started < 120


def test_oversized_chunked_body_is_413_through_gunicorn(server):
    """gunicorn hands a chunked body over without Content-Length; it must not be silently cut to the limit."""
    head = b'{"variant": "koudiandian", "options": {}}'

    def chunks():
        yield head
        for _ in range(20):
            yield b" " * 10_000

    reply = requests.post(
        f"{server}/api/matches", data=chunks(), headers={"Content-Type": "application/json"}, timeout=30
    )
    assert reply.status_code == 413 and reply.json()["code"] == "body_too_large"
    small = requests.post(
        f"{server}/api/matches", data=iter([head]), headers={"Content-Type": "application/json"}, timeout=30
    )
    assert small.status_code == 201
