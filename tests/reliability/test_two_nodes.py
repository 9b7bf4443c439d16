"""Two `tilefold serve` nodes on one PostgreSQL database, clients alternating between them and
racing each other, one node SIGKILLed under load: no acknowledged action lost or doubled, every
chain verifies, every match finishes, every waiter wakes. Bounded: ~6 matches, ~2 minutes at most,
127.0.0.1 only.
"""

from __future__ import annotations

import itertools
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest

requests = pytest.importorskip("requests")

from served import free_port  # noqa: E402

pytestmark = pytest.mark.slow
MATCHES = 6  # one client thread per match, each playing its match to the end
KILL_AFTER_ACKS = 60  # node B is SIGKILLed once this many actions were acknowledged (or after KILL_AFTER_S)
KILL_AFTER_S = 15
PLAY_DEADLINE_S = 150  # every match must be over by then
WAITERS = 6


def wait_until_up(base: str, proc: subprocess.Popen, seconds: float) -> None:
    """A slow start on a busy machine is no failure: refused or timed-out requests mean "not yet"."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"server exited with {proc.returncode}"
        try:
            if requests.get(base + "/api/matches", timeout=10).status_code == 200:
                return
        except (requests.ConnectionError, requests.Timeout):
            pass
        time.sleep(0.2)
    raise AssertionError(f"server did not come up within {seconds} s")


class Node:
    """`tilefold serve --workers 2` on 127.0.0.1 with TILEFOLD_DB = the PostgreSQL URL (and `env`)."""

    def __init__(self, url: str, log: Path, **env: str):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        script = Path(sys.executable).with_name("tilefold")
        launcher = [str(script)] if script.exists() else [sys.executable, "-m", "service.cli"]
        cmd = launcher + ["serve", "--bind", f"127.0.0.1:{self.port}", "--workers", "2", "--threads", "4"]
        self.log = open(log, "wb")
        self.proc = subprocess.Popen(
            cmd,
            env=dict(os.environ, TILEFOLD_DB=url, TILEFOLD_RATE_LIMITS="0", **env),  # every client is 127.0.0.1
            cwd=str(Path(__file__).resolve().parents[2]),
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.alive = True

    def kill(self) -> None:
        self.alive = False
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.alive:
            self.alive = False
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
            except ProcessLookupError:
                pass
        self.log.close()


@pytest.fixture
def two_nodes(pg_url, tmp_path):
    from events import PostgresEventStore

    PostgresEventStore.initialise(pg_url).close()  # what `tilefold serve` does; both then race on the service tables
    nodes = [Node(pg_url, tmp_path / "a.log"), Node(pg_url, tmp_path / "b.log")]
    try:
        for node in nodes:
            wait_until_up(node.base, node.proc, 120)
        yield nodes
    finally:
        for node in nodes:
            node.stop()


class Cluster:
    """Requests alternate between the live nodes; a connection error moves the retry to the next
    node with the same headers and body (an Idempotency-Key makes a retried action safe)."""

    def __init__(self, nodes):
        self.nodes, self.turn = nodes, itertools.count()
        self.lock = threading.Lock()
        self.statuses: Counter = Counter()
        self.acked: list[dict] = []

    def base(self, offset: int = 0) -> str:
        live = [n for n in self.nodes if n.alive] or self.nodes
        return live[(next(self.turn) + offset) % len(live)].base

    def request(self, method: str, path: str, **kwargs):
        give_up = time.monotonic() + 60
        offset = 0
        while True:
            try:
                resp = requests.request(method, self.base(offset) + path, timeout=30, **kwargs)
            except requests.RequestException:
                with self.lock:
                    self.statuses["connection_error"] += 1
                if time.monotonic() > give_up:
                    raise
                offset += 1
                time.sleep(0.05)
                continue
            with self.lock:
                self.statuses[resp.status_code] += 1
            return resp


def new_match(cluster: Cluster, rng: random.Random) -> tuple[str, list[str]]:
    variant = rng.choice(["koudiandian", "hanshan"])
    created = cluster.request("POST", "/api/matches", json={"variant": variant, "options": {"hands": 1}})
    assert created.status_code == 201, created.text
    match_id, owner = created.json()["id"], created.json()["owner_token"]
    tokens = []
    for i in range(2):
        joined = cluster.request("POST", f"/api/matches/{match_id}/seats", json={"name": f"p{i}"})
        assert joined.status_code == 201, joined.text
        tokens.append(joined.json()["token"])
    bots = cluster.request(
        "POST", f"/api/matches/{match_id}/bots", json={}, headers={"Authorization": f"Bearer {owner}"}
    )
    assert bots.status_code == 200, bots.text
    return match_id, tokens


def play_to_the_end(cluster: Cluster, match_id: str, tokens: list[str], rng: random.Random, deadline: float) -> None:
    """Random legal actions from both human seats until the match is over; 30% of actions are raced
    by a second tab on the other node at the same version."""
    while time.monotonic() < deadline:
        views = []
        for token in tokens:
            view = cluster.request("GET", f"/api/matches/{match_id}/view", headers={"Authorization": f"Bearer {token}"})
            assert view.status_code == 200, view.text
            views.append((token, view.json()))
        if views[0][1]["status"] == "over":
            return
        movers = [(t, v) for t, v in views if v["legal_actions"]]
        if not movers:
            time.sleep(0.02)
            continue
        token, state = rng.choice(movers)
        command = rng.choice(state["legal_actions"])
        tries = [uuid.uuid4().hex] + ([uuid.uuid4().hex] if rng.random() < 0.3 else [])
        answers: list = []

        def send(key, state=state, token=token, command=command, answers=answers):
            headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": key, "If-Match": f'"v{state["version"]}"'}
            answers.append(
                (key, cluster.request("POST", f"/api/matches/{match_id}/actions", json=command, headers=headers))
            )

        racers = [threading.Thread(target=send, args=(key,)) for key in tries]
        for racer in racers:
            racer.start()
        for racer in racers:
            racer.join(timeout=90)
        for key, answer in answers:
            assert answer.status_code in (200, 409, 422), (answer.status_code, answer.text)
            if answer.status_code == 200:
                body = answer.json()
                with cluster.lock:
                    cluster.acked.append(
                        {
                            "match": match_id,
                            "seat": state["seat"],
                            "key": key,
                            "first": body["first_version"],
                            "last": body["version"],
                            "if_match": state["version"],
                        }
                    )
    raise AssertionError(f"match {match_id} did not finish in time")


def waiters_wake_across_nodes(cluster: Cluster, nodes) -> None:
    """Long-polls on both nodes (If-None-Match, ?wait=20) all return the new version within a few
    seconds of one action sent to node A."""
    rng = random.Random(5)
    match_id, tokens = new_match(cluster, rng)
    auth = {"Authorization": f"Bearer {tokens[0]}"}
    view = requests.get(f"{nodes[0].base}/api/matches/{match_id}/view", headers=auth, timeout=30)
    results: list = []

    def wait(node):
        started = time.monotonic()
        reply = requests.get(
            f"{node.base}/api/matches/{match_id}/view?wait=20",
            timeout=60,
            headers=dict(auth, **{"If-None-Match": view.headers["ETag"]}),
        )
        results.append(
            (
                reply.status_code,
                reply.json()["version"] if reply.status_code == 200 else None,
                time.monotonic() - started,
            )
        )

    threads = [threading.Thread(target=wait, args=(nodes[i % 2],)) for i in range(WAITERS)]
    for thread in threads:
        thread.start()
    time.sleep(1.0)
    for token in tokens:
        state = requests.get(
            f"{nodes[0].base}/api/matches/{match_id}/view", timeout=30, headers={"Authorization": f"Bearer {token}"}
        ).json()
        if state["legal_actions"] and state["version"] == view.json()["version"]:
            acted = requests.post(
                f"{nodes[0].base}/api/matches/{match_id}/actions",
                json=state["legal_actions"][0],
                timeout=30,
                headers={"Authorization": f"Bearer {token}", "If-Match": f'"v{state["version"]}"'},
            )
            assert acted.status_code == 200, acted.text
            break
    else:
        pytest.fail("nobody could act in the fresh match")
    for thread in threads:
        thread.join(timeout=60)
    assert len(results) == WAITERS, results
    assert all(status == 200 and version > view.json()["version"] and took < 15 for status, version, took in results), (
        results
    )


def numbered(store, stream: str):
    """The stream's per-viewer numbering, from its stored events (service/model/numbering.py)."""
    from service.model.numbering import Numbering

    return Numbering().extended((e.version, e.type, e.payload) for e in store.read(stream))


def audit(url: str, cluster: Cluster, matches: list[str]) -> None:
    """Every acknowledged action is stored exactly once at the versions it was told; chains verify."""
    from events import PostgresEventStore

    store = PostgresEventStore(url)
    try:
        for match_id in matches:
            assert store.verify_stream(f"match-{match_id}") == [], match_id
        keys = {row[0]: (row[1], row[2]) for row in store.query("SELECT key, stream, result FROM idempotency")}
        spans: dict[str, list[tuple[int, int]]] = {}
        import json

        for act in cluster.acked:
            stored_key = f"match-{act['match']}:seat-{act['seat']}:{act['key']}"
            assert stored_key in keys, f"acknowledged action not in the store: {act}"
            stream, result = keys[stored_key][0], json.loads(keys[stored_key][1])
            # the answer's versions are in the seat's own numbering, the store's are global
            told = numbered(store, stream).range(result["first_version"], result["last_version"], act["seat"])
            assert told == (act["first"], act["last"]), act
            assert act["first"] == act["if_match"] + 1, f"accepted against a stale version: {act}"
            first = store.read(stream, after=result["first_version"] - 1, limit=1)[0]
            assert first.payload.get("seat") == act["seat"], (act, first)
            spans.setdefault(act["match"], []).append((result["first_version"], result["last_version"]))
        for match_id, ranges in spans.items():
            ranges.sort()
            assert all(a[1] < b[0] for a, b in zip(ranges, ranges[1:])), f"an action doubled in {match_id}"
    finally:
        store.close()


def test_two_nodes_one_killed_under_load_lose_nothing(two_nodes, pg_url):
    cluster = Cluster(two_nodes)
    waiters_wake_across_nodes(cluster, two_nodes)
    deadline = time.monotonic() + PLAY_DEADLINE_S
    matches, errors = [], []

    def client(seed):
        try:
            rng = random.Random(seed)
            match_id, tokens = new_match(cluster, rng)
            matches.append(match_id)
            play_to_the_end(cluster, match_id, tokens, rng, deadline)
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=client, args=(seed,), daemon=True) for seed in range(MATCHES)]
    for thread in threads:
        thread.start()
    kill_at = time.monotonic() + KILL_AFTER_S
    while len(cluster.acked) < KILL_AFTER_ACKS and time.monotonic() < kill_at and not errors:
        time.sleep(0.05)
    acked_before_kill = len(cluster.acked)
    two_nodes[1].kill()
    for thread in threads:
        thread.join(timeout=max(1.0, deadline - time.monotonic() + 30))
    assert not errors, errors[0]
    assert len(matches) == MATCHES and acked_before_kill > 0
    assert len(cluster.acked) > acked_before_kill  # the load went on through node A
    for match_id in matches:
        summary = requests.get(f"{two_nodes[0].base}/api/matches/{match_id}", timeout=30).json()
        assert summary["status"] == "over", summary
    five = {code: n for code, n in cluster.statuses.items() if isinstance(code, int) and code >= 500}
    assert not five, five
    audit(pg_url, cluster, matches)
    print(
        f"\ntwo nodes: {len(cluster.acked)} actions acknowledged ({acked_before_kill} before node B was "
        f"killed), statuses {dict(cluster.statuses)}"
    )
