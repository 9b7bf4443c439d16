"""Load and crashes through gunicorn: many clients, SIGKILLed workers; nothing lost, nothing doubled."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest

requests = pytest.importorskip("requests")

from served import free_port, wait_until_up  # noqa: E402

pytestmark = pytest.mark.slow
CLIENTS = 10  # one thread per match, driving its four human seats
LOAD_SECONDS = 20  # each test's load phase at least; the whole module stays well under two minutes when quiet
LOAD_ACKED = 120  # ... and until this many actions are acknowledged (a loaded machine answers fewer a second)
LOAD_CAP_SECONDS = 240  # never longer than this: the floor below then fails with the figures
CHAOS_SECONDS = 20
# How long a client waits for one answer, and keeps retrying one request across crashes. Generous:
# these tests are about what is stored, not how fast; on a loaded machine a respawned worker takes
# tens of seconds to import the app, and requests queue behind it meanwhile.
ANSWER_SECONDS = 120
RETRY_SECONDS = 180


class Server:
    """`tilefold serve --workers 2` on 127.0.0.1 with its stderr kept (to scan for tokens)."""

    def __init__(self, tmp: Path):
        self.db = str(tmp / "load.db")
        self.log = tmp / "server.log"
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, TILEFOLD_DB=self.db, TILEFOLD_RATE_LIMITS="0")  # every client is 127.0.0.1
        script = Path(sys.executable).with_name("tilefold")
        launcher = [str(script)] if script.exists() else [sys.executable, "-m", "service.cli"]
        cmd = launcher + ["serve", "--bind", f"127.0.0.1:{self.port}", "--workers", "2", "--threads", "4"]
        self.log_file = open(self.log, "wb")
        self.proc = subprocess.Popen(
            cmd,
            env=env,
            cwd=str(Path(__file__).resolve().parents[2]),
            stdout=self.log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_until_up(self.base, self.proc)

    def workers(self) -> list[int]:
        try:
            with open(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children") as fh:
                return [int(pid) for pid in fh.read().split()]
        except OSError:
            return []

    def stop(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        except ProcessLookupError:
            pass
        self.log_file.close()


@pytest.fixture
def server(tmp_path):
    srv = Server(tmp_path)
    yield srv
    srv.stop()


class Ledger:
    """What clients were told: acknowledged actions and every status seen (thread-safe)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.acked: list[dict] = []
        self.statuses: Counter = Counter()
        self.retries = 0
        self.tokens: set[str] = set()
        self.matches: list[str] = []

    def status(self, code) -> None:
        with self.lock:
            self.statuses[code] += 1


def request(ledger: Ledger, base: str, method: str, path: str, deadline_s: float = RETRY_SECONDS, **kwargs):
    """Send, retrying on connection errors (a killed worker) with the same headers and body."""
    give_up = time.monotonic() + deadline_s
    while True:
        try:
            resp = requests.request(method, base + path, timeout=ANSWER_SECONDS, **kwargs)
        except requests.RequestException:
            ledger.status("connection_error")
            with ledger.lock:
                ledger.retries += 1
            if time.monotonic() > give_up:
                raise
            time.sleep(0.05)
            continue
        ledger.status(resp.status_code)
        return resp


def new_match(ledger: Ledger, base: str, rng: random.Random) -> tuple[str, list[str]]:
    variant = rng.choice(["koudiandian", "hanshan"])
    created = request(ledger, base, "POST", "/api/matches", json={"variant": variant, "options": {"hands": 1}})
    assert created.status_code == 201, created.text
    match_id, tokens = created.json()["id"], []
    with ledger.lock:
        ledger.tokens.add(created.json()["owner_token"])
        ledger.matches.append(match_id)
    for i in range(4):  # a join retried after a crash may take a second seat: fine, use what we got
        joined = request(ledger, base, "POST", f"/api/matches/{match_id}/seats", json={"name": f"p{i}"})
        if joined.status_code == 409:
            break
        assert joined.status_code == 201, joined.text
        tokens.append(joined.json()["token"])
    with ledger.lock:
        ledger.tokens.update(tokens)
    return match_id, tokens


def play(ledger: Ledger, base: str, seed: int, stop: threading.Event, finish: bool = False) -> int:
    """Drive matches with random legal actions until `stop` (or, with finish, until one match ends)."""
    rng = random.Random(seed)
    match_id, tokens = new_match(ledger, base, rng)
    while not stop.is_set():
        moved = False
        views = []
        for token in tokens:
            auth = {"Authorization": f"Bearer {token}"}
            view = request(ledger, base, "GET", f"/api/matches/{match_id}/view", headers=auth)
            assert view.status_code == 200, view.text
            views.append((token, view.json()))
        if views[0][1]["status"] == "over":
            if finish:
                return 1
            match_id, tokens = new_match(ledger, base, rng)
            continue
        for token, state in views:
            if not state["legal_actions"]:
                continue
            command = rng.choice(state["legal_actions"])
            key = uuid.uuid4().hex
            headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": key, "If-Match": f'"v{state["version"]}"'}
            rival = None
            if rng.random() < 0.3:  # a second tab races the same move at the same version
                rival_key = uuid.uuid4().hex
                rival_headers = dict(headers, **{"Idempotency-Key": rival_key})
                rival_out: list = []
                rival = threading.Thread(
                    target=lambda out=rival_out, key=rival_key, path=match_id, body=command, sent=rival_headers: (
                        out.append(
                            (
                                key,
                                request(ledger, base, "POST", f"/api/matches/{path}/actions", json=body, headers=sent),
                            )
                        )
                    )
                )
                rival.start()
            reply = request(ledger, base, "POST", f"/api/matches/{match_id}/actions", json=command, headers=headers)
            answers = [(key, reply)]
            if rival is not None:
                rival.join()
                answers += rival_out
            for sent_key, answer in answers:
                assert answer.status_code in (200, 409, 422), (answer.status_code, answer.text)
                if answer.status_code == 200:
                    body = answer.json()
                    with ledger.lock:
                        ledger.acked.append(
                            {
                                "match": match_id,
                                "seat": state["seat"],
                                "key": sent_key,
                                "first": body["first_version"],
                                "last": body["version"],
                                "if_match": state["version"],
                                "command": command,
                            }
                        )
                    moved = True
            break  # views are stale after an answer: look again
        if not moved and all(not s["legal_actions"] for _, s in views):
            time.sleep(0.01)
            stuck = getattr(play, "stuck", Counter())
            stuck[match_id] += 1
            play.stuck = stuck
            assert stuck[match_id] < 500, f"match {match_id} waits for nobody (version {views[0][1]['version']})"
    return 0


def run_clients(ledger: Ledger, base: str, seconds: float, chaos=None, acked: int = 0) -> None:
    """Ten clients for `seconds` (under `chaos`, if given); with `acked`, also until that many actions
    are acknowledged, within LOAD_CAP_SECONDS."""
    stop, errors = threading.Event(), []

    def client(seed):
        try:
            play(ledger, base, seed, stop)
        except BaseException as exc:  # surfaced below
            errors.append(exc)
            stop.set()

    threads = [threading.Thread(target=client, args=(seed,), daemon=True) for seed in range(CLIENTS)]
    for thread in threads:
        thread.start()
    if chaos is not None:
        chaos(stop, seconds)
    else:
        stop.wait(seconds)
        cap = time.monotonic() + LOAD_CAP_SECONDS - seconds
        while len(ledger.acked) < acked and time.monotonic() < cap and not stop.wait(0.5):
            pass
    stop.set()
    for thread in threads:
        thread.join(timeout=RETRY_SECONDS + 60)
    assert not errors, errors[0]


def numbered(store, stream: str):
    """The stream's per-viewer numbering, from its stored events (service/model/numbering.py)."""
    from service.model.numbering import Numbering

    return Numbering().extended((e.version, e.type, e.payload) for e in store.read(stream))


def audit(ledger: Ledger, db: str) -> dict:
    """Every acknowledged action is stored exactly once, every stream's hash chain verifies."""
    from events import EventStore

    store = EventStore(db)
    for match_id in ledger.matches:
        assert store.verify_stream("match-" + match_id) == [], match_id
    conn = sqlite3.connect(db)
    keys = {row[0]: (row[1], json.loads(row[2])) for row in conn.execute("SELECT key, stream, result FROM idempotency")}
    spans: dict[str, list[tuple[int, int]]] = {}
    for act in ledger.acked:
        stored_key = f"match-{act['match']}:seat-{act['seat']}:{act['key']}"
        assert stored_key in keys, f"acknowledged action not in the store: {act}"
        stream, result = keys[stored_key]
        assert stream == "match-" + act["match"]
        # the answer's versions are in the seat's own numbering, the store's are global
        told = numbered(store, stream).range(result["first_version"], result["last_version"], act["seat"])
        assert told == (act["first"], act["last"]), act
        assert act["first"] == act["if_match"] + 1, f"accepted against a stale version: {act}"
        first = store.read(stream, after=result["first_version"] - 1, limit=1)[0]
        assert first.payload.get("seat") == act["seat"], (act, first)
        spans.setdefault(act["match"], []).append((result["first_version"], result["last_version"]))
    for match_id, ranges in spans.items():
        ranges.sort()
        assert all(a[1] < b[0] for a, b in zip(ranges, ranges[1:])), f"overlapping actions in {match_id}"
    # every stored seat action came from exactly one idempotency key (all clients sent one)
    acked_keys = Counter(f"match-{a['match']}:seat-{a['seat']}:{a['key']}" for a in ledger.acked)
    assert max(acked_keys.values(), default=1) == 1
    conn.close()
    return {"matches": len(ledger.matches), "acked": len(ledger.acked), "stored_keys": len(keys)}


def scan_for_tokens(ledger: Ledger, server: Server) -> None:
    text = server.log.read_bytes()
    assert not [t for t in ledger.tokens if t.encode() in text], "a token is in the server's log"
    files = b"".join(Path(p).read_bytes() for p in (server.db, server.db + "-wal") if Path(p).exists())
    assert not [t for t in ledger.tokens if t.encode() in files], "a raw token is in the database"


def test_many_clients_through_gunicorn_lose_nothing(server):
    ledger = Ledger()
    started = time.monotonic()
    run_clients(ledger, server.base, LOAD_SECONDS, acked=LOAD_ACKED)
    figures = audit(ledger, server.db)
    five = {code: n for code, n in ledger.statuses.items() if isinstance(code, int) and code >= 500}
    assert not five, five
    assert figures["acked"] >= LOAD_ACKED, figures
    scan_for_tokens(ledger, server)
    print(
        f"\nload: {sum(ledger.statuses.values())} requests in {time.monotonic() - started:.0f} s, "
        f"statuses {dict(ledger.statuses)}, {figures}"
    )


def test_sigkilled_workers_lose_nothing_and_matches_finish(server):
    ledger, kills = Ledger(), []
    rng = random.Random(99)

    def chaos(stop: threading.Event, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end and not stop.is_set():
            stop.wait(rng.uniform(0.3, 1.5))
            workers = server.workers()
            if workers:
                victim = rng.choice(workers)
                try:
                    os.kill(victim, signal.SIGKILL)
                    kills.append(victim)
                except ProcessLookupError:
                    pass

    started = time.monotonic()
    run_clients(ledger, server.base, CHAOS_SECONDS, chaos)
    assert len(kills) >= 10, kills
    # the chaos is over: a few matches are now driven to their end, through respawned workers
    finished, stop = [], threading.Event()
    threads = [
        threading.Thread(
            target=lambda s=s: finished.append(play(ledger, server.base, 1000 + s, stop, finish=True)), daemon=True
        )
        for s in range(3)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=RETRY_SECONDS + 120)
    stop.set()
    assert sum(finished) == 3, finished
    # and every match the chaos touched can still move (nobody waits for a deal that never came)
    for match_id in list(ledger.matches):
        summary = requests.get(f"{server.base}/api/matches/{match_id}", timeout=ANSWER_SECONDS).json()
        assert summary["status"] in ("open", "playing", "over")
    figures = audit(ledger, server.db)
    five = {code: n for code, n in ledger.statuses.items() if isinstance(code, int) and code >= 500}
    assert not five, five
    scan_for_tokens(ledger, server)
    print(
        f"\nchaos: {len(kills)} SIGKILLs, {ledger.retries} retried requests, "
        f"{sum(ledger.statuses.values())} requests in {time.monotonic() - started:.0f} s, "
        f"statuses {dict(ledger.statuses)}, {figures}"
    )
