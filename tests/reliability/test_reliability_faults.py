"""Storage faults (disk full, read-only) answer 503 and heal by themselves; a crash mid-request stalls nothing."""

from __future__ import annotations

import random
import sqlite3
import subprocess
import tempfile

import pytest

from conftest import MatchClient, flask_transport
from test_security_input import PROBLEM, row_count
from service.http.services import services


class Fault:
    """An on_connect hook that breaks every new connection while `mode` is set."""

    def __init__(self):
        self.mode = None

    def __call__(self, conn: sqlite3.Connection) -> None:
        if self.mode == "full":
            pages = conn.execute("PRAGMA page_count").fetchone()[0]
            conn.execute(f"PRAGMA max_page_count = {pages}")
        elif self.mode == "readonly":
            conn.execute("PRAGMA query_only = ON")


def faulty_app(path: str, fault: Fault, monkeypatch):
    """create_app whose event store opens every connection through `fault` (its on_connect hook)."""
    from events import EventStore
    from service.app import create_app

    real = EventStore.initialise.__func__
    monkeypatch.setattr(
        EventStore, "initialise", classmethod(lambda cls, p, **options: real(cls, p, on_connect=fault, **options))
    )
    app = create_app({"DATABASE": path, "TESTING": True})
    return app, services(app).match.repo.store


def drop_connections(store) -> None:
    """Forget this thread's connection, so the next request connects (and meets the fault) anew."""
    store.close()


def mover(api, match_id, tokens):
    token = next(t for t in tokens if api.view(match_id, t).body["legal_actions"])
    view = api.view(match_id, token).body  # reads keep working during the fault
    return token, view["legal_actions"][0], view["version"]


@pytest.mark.parametrize("mode,reason", [("full", "full"), ("readonly", "read-only")])
def test_storage_fault_is_503_loses_nothing_and_heals(tmp_path, mode, reason, caplog, monkeypatch):
    fault = Fault()
    app, store = faulty_app(str(tmp_path / "f.db"), fault, monkeypatch)
    api = MatchClient(flask_transport(app.test_client()))
    match_id, _, tokens = api.new_match("koudiandian", {"hands": 1})
    acked = []

    def act(key):
        token, move, version = mover(api, match_id, tokens)
        reply = api.act(match_id, token, move, version, Idempotency_Key=key)
        if reply.status == 200:
            acked.append((reply.body["first_version"], reply.body["version"]))
        return reply, (token, move, version)

    for i in range(3):
        assert act(f"ok-{i}")[0].status == 200
    fault.mode = mode
    drop_connections(store)
    # the file may not grow (full) or not be written (read-only): play on until a write needs a
    # new page; whatever is answered 200 meanwhile is acknowledged like anything else
    for i in range(300):
        before = row_count(app)
        refused, (token, move, version) = act(f"fault-{i}")
        if refused.status != 200:
            break
    assert refused.status == 503, refused
    assert refused.headers["Content-Type"].startswith(PROBLEM) and refused.headers["Retry-After"] == "1"
    assert refused.body["code"] == "storage_unavailable" and "retry" in refused.body["detail"]
    assert reason in caplog.text  # the log names the cause (disk full / read-only)
    assert api.call("POST", f"/api/matches/{match_id}/seats", {"name": "x"}).status in (409, 503)
    assert row_count(app) == before
    for first, last in acked:  # nothing acknowledged was lost
        assert len(store.read("match-" + match_id, after=first - 1, limit=last - first + 1)) == last - first + 1
    fault.mode = None  # the disk has room again / the file is writable again: no restart needed
    drop_connections(store)
    healed = api.act(match_id, token, move, version, Idempotency_Key=f"fault-{i}")
    assert healed.status == 200 and healed.headers["Idempotent-Replayed"] == "false", healed
    assert store.verify_stream("match-" + match_id) == []


def test_fault_appearing_on_an_open_connection_is_503_and_heals(tmp_path, monkeypatch):
    """The fault comes while connections are open (no reconnect): the store drops them and reconnects."""
    fault = Fault()
    app, store = faulty_app(str(tmp_path / "g.db"), fault, monkeypatch)
    api = MatchClient(flask_transport(app.test_client()))
    match_id, _ = api.create("hanshan", {"hands": 1})
    conn, _ = store._db.get()
    conn.execute("PRAGMA query_only = ON")  # this very connection turns read-only
    assert api.call("POST", f"/api/matches/{match_id}/seats", {"name": "a"}).status == 503
    assert api.call("POST", f"/api/matches/{match_id}/seats", {"name": "a"}).status == 201  # reconnected


def tiny_tmpfs():
    mount = tempfile.mkdtemp(prefix="tilefold-tmpfs-")
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=600k", "tmpfs", mount], capture_output=True, text=True)
    if result.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {result.stderr.strip()}")
    return mount


def test_real_full_disk_on_a_tiny_tmpfs(tmp_path):
    """A real ENOSPC: a 600 KiB tmpfs holds the database; play until the disk fills, then free space."""
    mount = tiny_tmpfs()
    try:
        from service.app import create_app

        app = create_app({"DATABASE": f"{mount}/t.db", "TESTING": True, "SYNCHRONOUS": "NORMAL"})
        api = MatchClient(flask_transport(app.test_client()))
        filler = f"{mount}/filler"
        with open(filler, "wb") as fh:  # leave only a little room
            try:
                fh.write(b"\0" * 420 * 1024)
            except OSError:
                pass
        statuses, acked = [], 0
        for _ in range(400):
            reply = api.call("POST", "/api/matches", {"variant": "hanshan", "options": {"hands": 1}})
            statuses.append(reply.status)
            if reply.status == 503:
                break
            assert reply.status == 201
            acked += 1
        assert statuses[-1] == 503 and not [s for s in statuses if s == 500], statuses[-3:]
        summary_ok = api.call("GET", "/api/matches")
        assert summary_ok.status in (200, 503)
        subprocess.run(["rm", "-f", filler], check=True)
        healed = api.call("POST", "/api/matches", {"variant": "hanshan", "options": {"hands": 1}})
        assert healed.status == 201, healed
        listed = api.call("GET", "/api/matches?limit=1000")
        assert listed.status == 200
        from events import EventStore

        store = EventStore(f"{mount}/t.db")
        streams = store.streams()
        assert len(streams) == acked + 1  # every acknowledged create is there, the refused one is not
        assert all(store.verify_stream(s) == [] for s in streams)
        store.close()
        print(f"\ntmpfs: {acked} matches created before the disk filled; 503 then; healed after freeing space")
    finally:
        subprocess.run(["umount", "-l", mount], capture_output=True)


def test_crash_between_append_and_deal_does_not_stall_the_match(app, api, monkeypatch):
    """A worker dies after storing the hand's last action, before the next deal; the retry deals."""
    svc = services(app).match
    match_id, _, tokens = api.new_match("koudiandian", {"hands": 2})
    real_advance, crashed = svc.advance, []

    def dies_before_dealing(mid, start=None):
        if not crashed and svc.repo.load(mid).state.needs_new_hand:
            crashed.append(mid)
            raise SystemExit("worker killed")  # like SIGKILL: nothing after the append ran
        return real_advance(mid, start)

    monkeypatch.setattr(svc, "advance", dies_before_dealing)
    rng = random.Random(7)
    for step in range(5000):
        if crashed:
            break
        token = next((t for t in tokens if api.view(match_id, t).body["legal_actions"]), None)
        assert token is not None, "nobody may act"
        view = api.view(match_id, token).body
        move, key = rng.choice(view["legal_actions"]), f"k{step}"
        try:
            reply = api.act(match_id, token, move, view["version"], Idempotency_Key=key)
        except SystemExit:
            retry = api.act(match_id, token, move, view["version"], Idempotency_Key=key)  # the client retries
            assert retry.status == 200 and retry.headers["Idempotent-Replayed"] == "true"
            break
        assert reply.status == 200
    assert crashed, "no hand ended"
    states = [api.view(match_id, t).body for t in tokens]
    assert any(s["legal_actions"] for s in states) or states[0]["status"] == "over", "the match stalled"
