"""SSE through `tilefold serve` (gunicorn, 2 gthread workers): reconnecting with Last-Event-ID misses nothing."""

from __future__ import annotations

import json
import random
import threading
import time
from pathlib import Path

import pytest

requests = pytest.importorskip("requests")

from conftest import MatchClient, requests_transport  # noqa: E402
from served import serving  # noqa: E402
import engine  # noqa: E402


@pytest.fixture
def server(tmp_path: Path):
    with serving(
        tmp_path / "served.db",
        TILEFOLD_STREAM_LIFETIME="1.0",
        TILEFOLD_STREAM_HEARTBEAT="0.3",
        TILEFOLD_POLL_INTERVAL="0.02",
    ) as base:
        yield base


class StreamReader(threading.Thread):
    """Reads the SSE stream, reconnecting with Last-Event-ID after each bounded connection."""

    def __init__(self, url: str, token=None):
        super().__init__(daemon=True)
        self.url, self.token = url, token
        self.items, self.connections, self.heartbeats, self.ended = [], 0, 0, False
        self.error = None

    def run(self):
        try:
            last = None
            deadline = time.monotonic() + 90
            while not self.ended and time.monotonic() < deadline:
                headers = {"Accept": "text/event-stream"}
                if self.token:
                    headers["Authorization"] = f"Bearer {self.token}"
                if last is not None:
                    headers["Last-Event-ID"] = str(last)
                with requests.get(self.url, headers=headers, stream=True, timeout=10) as resp:
                    assert resp.status_code == 200 and resp.headers["Content-Type"].startswith("text/event-stream")
                    self.connections += 1
                    event_id, kind = None, None
                    for line in resp.iter_lines(decode_unicode=True):
                        if line.startswith(":"):
                            self.heartbeats += 1
                        elif line.startswith("id: "):
                            event_id = int(line[4:])
                        elif line.startswith("event: "):
                            kind = line[7:]
                        elif line.startswith("data: ") and kind is None:
                            item = json.loads(line[6:])
                            assert item["version"] == event_id
                            self.items.append(item)
                            if event_id is not None:  # as EventSource: a message without id keeps the last one
                                last = event_id
                        elif line == "":
                            if kind == "end":
                                self.ended = True
                            event_id, kind = None, None
        except Exception as exc:  # noqa: BLE001 - reported by the test
            self.error = exc


def test_sse_reconnects_with_last_event_id_and_misses_nothing(server):
    api = MatchClient(requests_transport(server))
    match_id, owner = api.create("koudiandian", {"hands": 2})
    token = api.join(match_id, "human")
    seat_reader = StreamReader(f"{server}/api/matches/{match_id}/stream", token)
    public_reader = StreamReader(f"{server}/api/matches/{match_id}/stream")
    seat_reader.start()
    public_reader.start()
    time.sleep(1.6)  # both streams idle past their lifetime (heartbeats), end and reconnect
    api.bots(match_id, owner)
    rng = random.Random(4)
    for _ in range(400):  # play slowly enough that the streams reconnect mid-match
        view = api.view(match_id, token).body
        if view["status"] == "over":
            break
        if view["legal_actions"]:
            api.act(match_id, token, rng.choice(view["legal_actions"]), view["version"])
        time.sleep(0.03)
    seat_reader.join(60)
    public_reader.join(60)
    assert seat_reader.error is None and public_reader.error is None, (seat_reader.error, public_reader.error)
    assert seat_reader.ended and public_reader.ended
    assert seat_reader.connections >= 2 and public_reader.connections >= 2, "no reconnection happened"
    assert seat_reader.heartbeats > 0 and public_reader.heartbeats > 0
    # Each reader counts in its own numbering (the seat's, the public's): every event it
    # may see, numbered without gaps; once over a seat's feed adds the rest unnumbered
    for reader, viewer_token in ((seat_reader, token), (public_reader, None)):
        full = api.events(match_id, viewer_token).body
        numbered = [e for e in full["events"] if e["version"] is not None]
        assert [e["version"] for e in numbered] == list(range(1, full["version"] + 1))
        assert {e["type"] for e in full["events"] if e["version"] is None} <= engine.MAY_HIDE
        got = [i["version"] for i in reader.items if i["version"] is not None]
        assert got == sorted(set(got))  # in order, never twice
        assert got == [e["version"] for e in numbered]  # nothing missed
        assert [i["type"] for i in reader.items if i["version"] is not None] == [e["type"] for e in numbered]
    # the spectator stream redacts every secret; the seat sees its own hand
    started = [i for i in public_reader.items if i["type"] == "hand_started"]
    assert started and all(i["payload"]["hands"] == [None] * 4 for i in started)
    mine = [i for i in seat_reader.items if i["type"] == "hand_started"]
    assert mine[0]["payload"]["hands"][0] is not None
    # a resumed stream starts exactly after Last-Event-ID
    public = api.events(match_id).body["version"]
    resumed = requests.get(
        f"{server}/api/matches/{match_id}/stream", headers={"Last-Event-ID": str(public - 2)}, stream=True, timeout=10
    )
    ids = [int(line[4:]) for line in resumed.iter_lines(decode_unicode=True) if line.startswith("id: ")]
    assert ids == [public - 1, public]
