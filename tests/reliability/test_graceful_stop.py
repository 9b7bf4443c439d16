"""`tilefold serve` stopped (SIGTERM) and reloaded (HUP) with clients waiting and playing, over real
HTTP: waits are answered with the current state and streams told to reconnect instead of being cut;
a reload loses no acknowledged action and no waiter for longer than its reconnect. The metrics
listener (--metrics-bind) sums the workers' metrics and says when the waits are open.
Bounded: one server, two matches, about half a minute each.
"""

from __future__ import annotations

import json
import os
import re
import signal
import threading
import time
import uuid

import pytest

requests = pytest.importorskip("requests")

from served import free_port, served  # noqa: E402

pytestmark = pytest.mark.slow
SEED = 28  # the actor picks its actions with random.Random(SEED)
# How long a client waits for one answer. Generous: these tests are about what is answered and kept,
# not how fast; on a loaded machine new workers take tens of seconds to import the app after a HUP.
ANSWER_SECONDS = 120


def started_match(base: str) -> tuple[str, str]:
    """A koudiandian match of one hand: one human (seat 0) and three bots; returns (id, token)."""
    created = requests.post(
        f"{base}/api/matches", json={"variant": "koudiandian", "options": {"hands": 1}}, timeout=ANSWER_SECONDS
    )
    assert created.status_code == 201, created.text
    match_id, owner = created.json()["id"], created.json()["owner_token"]
    joined = requests.post(f"{base}/api/matches/{match_id}/seats", json={"name": "human"}, timeout=ANSWER_SECONDS)
    assert joined.status_code == 201, joined.text
    bots = requests.post(
        f"{base}/api/matches/{match_id}/bots",
        json={},
        headers={"Authorization": f"Bearer {owner}"},
        timeout=ANSWER_SECONDS,
    )
    assert bots.status_code == 200, bots.text
    return match_id, joined.json()["token"]


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def metric(metrics_base: str, name: str, **labels: str) -> float:
    """One sample of the metrics listener's exposition (summed over the workers), 0 when absent."""
    text = requests.get(f"{metrics_base}/metrics", timeout=ANSWER_SECONDS).text
    wanted = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    pattern = re.escape(name + (f"{{{wanted}}}" if labels else "")) + r" ([0-9.e+-]+)"
    found = re.search(r"^" + pattern + r"$", text, re.M)
    return float(found.group(1)) if found else 0.0


def until(predicate, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, f"{what} did not happen within {seconds} s"
        time.sleep(0.1)


class LongPoll(threading.Thread):
    """A client long-polling GET .../view?wait=30 with If-None-Match, as a page does: asked again
    after a 304 (or a cut connection) until the view changes (`again`), else once. `answers`: each
    answer's status (or error) and when it came."""

    def __init__(self, base: str, match_id: str, token: str, etag: str, again: bool = False):
        super().__init__(daemon=True)
        self.args = (f"{base}/api/matches/{match_id}/view?wait=30", dict(auth(token), **{"If-None-Match": etag}))
        self.again = again
        self.answers: list[tuple[object, float]] = []
        self.start()

    def run(self) -> None:
        url, headers = self.args
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                status: object = requests.get(url, headers=headers, timeout=ANSWER_SECONDS).status_code
            except requests.RequestException as exc:
                status = exc
            self.answers.append((status, time.monotonic()))
            if not self.again or status == 200:
                return
            time.sleep(0.05)

    @property
    def status(self) -> object:
        return self.answers[-1][0] if self.answers else None


class Stream(threading.Thread):
    """An SSE client as a browser's EventSource: every line it receives; after `event: reconnect`
    (or a cut connection) it connects again with Last-Event-ID, until `event: end` or `close()`."""

    def __init__(self, base: str, match_id: str, token: str, again: bool = False):
        super().__init__(daemon=True)
        self.url, self.token, self.again = f"{base}/api/matches/{match_id}/stream", token, again
        self.lines: list[str] = []
        self.connections, self.errors = 0, []
        self.ended_at = 0.0
        self.closed = threading.Event()
        self.start()

    def run(self) -> None:
        while not self.closed.is_set():
            headers = auth(self.token)
            if self.last_id():
                headers["Last-Event-ID"] = self.last_id()
            self.connections += 1
            try:
                with requests.get(self.url, headers=headers, stream=True, timeout=ANSWER_SECONDS) as reply:
                    for line in reply.iter_lines(decode_unicode=True):
                        self.lines.append(line)
                        if self.closed.is_set():
                            return
            except requests.RequestException as exc:
                self.errors.append(exc)
            self.ended_at = time.monotonic()
            if not self.again or "event: end" in self.lines:
                return
            time.sleep(1.0)  # the stream's retry: 1000

    def close(self) -> None:
        self.closed.set()

    def last_id(self) -> str:
        ids = [line[4:] for line in self.lines if line.startswith("id: ")]
        return ids[-1] if ids else ""

    def reconnects(self) -> int:
        return self.lines.count("event: reconnect")


def told_to_reconnect(stream: Stream) -> bool:
    return stream.lines[-3:] == ["event: reconnect", 'data: {"reason": "server_stopping"}', ""] and "retry: 1000" in (
        stream.lines
    )


def test_sigterm_answers_the_waits_and_tells_the_streams_to_reconnect(tmp_path):
    """Given a seat long-polling and streaming a match where nobody moves, when the server gets
    SIGTERM, then the long-poll is answered (304, the state it holds) and the stream's last message
    says reconnect, both long before the wait's 30 s, and the server exits (it used to cut both
    after a fixed 10 s, with no answer)."""
    metrics_port = free_port()
    with served(tmp_path / "stop.db", "--metrics-bind", f"127.0.0.1:{metrics_port}") as server:
        metrics_base = f"http://127.0.0.1:{metrics_port}"
        match_id, token = started_match(server.base)
        first = requests.get(
            f"{server.base}/api/matches/{match_id}/view",
            headers=dict(auth(token), **{"X-Request-Id": "probe-7"}),
            timeout=ANSWER_SECONDS,
        )
        etag = first.headers["ETag"]
        assert first.headers["X-Request-Id"] == "probe-7"
        assert requests.get(f"{server.base}/metrics", timeout=ANSWER_SECONDS).status_code == 404  # off the public port
        poll, stream = LongPoll(server.base, match_id, token, etag), Stream(server.base, match_id, token)
        until(
            lambda: (
                metric(metrics_base, "tilefold_waiters", kind="view") == 1
                and metric(metrics_base, "tilefold_waiters", kind="stream") == 1
            ),
            30,
            "both waits open",
        )
        stopped_at = time.monotonic()
        os.kill(server.proc.pid, signal.SIGTERM)
        server.proc.wait(timeout=60)
        poll.join(timeout=ANSWER_SECONDS + 10)
        stream.join(timeout=ANSWER_SECONDS + 10)
        assert poll.status == 304, poll.status
        assert told_to_reconnect(stream) and not stream.errors, (stream.lines[-5:], stream.errors)
        assert poll.answers[0][1] - stopped_at < 20 and stream.ended_at - stopped_at < 20  # not held to the wait's end
        assert server.proc.returncode == 0
        lines = [json.loads(line) for line in server.lines() if line.startswith("{")]  # JSON: no terminal
        stopping = [line for line in lines if line.get("event") == "worker_stopping"]
        # the workers holding the waits said so (an idle one may exit before its watcher looks)
        assert sum(line["waiting"] for line in stopping) == 2, server.lines()[-10:]
        [access] = [line for line in lines if line.get("request_id") == "probe-7"]
        assert (access["logger"], access["status"], access["match_id"], access["seat"]) == (
            "tilefold.access",
            200,
            match_id,
            0,
        )
        assert access["route"] == "/api/matches/<match_id>/view" and access["duration_ms"] > 0


def test_a_reload_loses_no_acknowledged_action_and_no_waiter(tmp_path):
    """Given a seat playing one match (an Idempotency-Key on each action, retried on a cut
    connection) and another seat long-polling and streaming a quiet match as a page does, when the
    server reloads (HUP: new workers, the old ones stopped), then every acknowledged action is
    stored (its key answers the same versions again), the waits were answered early and told to
    reconnect, and once reconnected they hear the next move of the quiet match."""
    import random

    metrics_port = free_port()
    with served(tmp_path / "reload.db", "--metrics-bind", f"127.0.0.1:{metrics_port}") as server:
        base, metrics_base = server.base, f"http://127.0.0.1:{metrics_port}"
        busy, busy_token = started_match(base)
        quiet, quiet_token = started_match(base)
        quiet_view = requests.get(f"{base}/api/matches/{quiet}/view", headers=auth(quiet_token), timeout=ANSWER_SECONDS)
        acked: list[tuple[dict, dict, dict]] = []
        errors: list[object] = []
        stop = threading.Event()

        def actor() -> None:
            rng = random.Random(SEED)
            while not stop.is_set():
                try:
                    view = requests.get(
                        f"{base}/api/matches/{busy}/view", headers=auth(busy_token), timeout=ANSWER_SECONDS
                    ).json()
                    if view["status"] == "over":
                        return
                    if not view["legal_actions"]:
                        time.sleep(0.02)
                        continue
                    command, key = rng.choice(view["legal_actions"]), uuid.uuid4().hex
                    headers = dict(auth(busy_token), **{"Idempotency-Key": key, "If-Match": f'"v{view["version"]}"'})
                    for _ in range(50):  # a cut connection: the same key again (never a second action)
                        try:
                            reply = requests.post(
                                f"{base}/api/matches/{busy}/actions",
                                json=command,
                                headers=headers,
                                timeout=ANSWER_SECONDS,
                            )
                            break
                        except (requests.ConnectionError, requests.Timeout):
                            time.sleep(0.1)
                    assert reply.status_code in (200, 409), reply.text
                    if reply.status_code == 200:
                        acked.append((headers, command, reply.json()))
                except (requests.ConnectionError, requests.Timeout):
                    time.sleep(0.1)
                except BaseException as exc:  # surfaced below
                    errors.append(exc)
                    return

        playing = threading.Thread(target=actor, daemon=True)
        playing.start()
        poll = LongPoll(base, quiet, quiet_token, quiet_view.headers["ETag"], again=True)
        stream = Stream(base, quiet, quiet_token, again=True)
        until(
            lambda: (
                metric(metrics_base, "tilefold_waiters", kind="stream") == 1
                and metric(metrics_base, "tilefold_waiters", kind="view") == 1
            ),
            30,
            "the waits open",
        )
        until(lambda: len(acked) >= 3 or errors, 60, "three acknowledged actions")
        before_reload = len(acked)
        reloaded_at = time.monotonic()
        os.kill(server.proc.pid, signal.SIGHUP)
        until(lambda: poll.answers and stream.reconnects(), 30, "the waits answered")
        assert poll.answers[0][0] == 304 and poll.answers[0][1] - reloaded_at < 25  # not held to its 30 s
        until(lambda: len(acked) >= before_reload + 3 or errors or not playing.is_alive(), 60, "play after the reload")
        stop.set()
        playing.join(timeout=ANSWER_SECONDS + 10)
        assert not errors, errors[0]
        # the reconnected waits are held by the new workers: they hear the quiet match's next move
        until(lambda: metric(metrics_base, "tilefold_waiters", kind="view") == 1, 30, "the long-poll open again")
        until(lambda: metric(metrics_base, "tilefold_waiters", kind="stream") == 1, 30, "the stream open again")
        seen = stream.last_id()
        legal = requests.get(
            f"{base}/api/matches/{quiet}/view", headers=auth(quiet_token), timeout=ANSWER_SECONDS
        ).json()
        moved = requests.post(
            f"{base}/api/matches/{quiet}/actions",
            json=legal["legal_actions"][0],
            headers=dict(auth(quiet_token), **{"If-Match": f'"v{legal["version"]}"'}),
            timeout=ANSWER_SECONDS,
        )
        assert moved.status_code == 200, moved.text
        poll.join(timeout=ANSWER_SECONDS + 10)
        assert poll.status == 200, poll.answers  # the reconnected long-poll heard the move
        until(lambda: stream.last_id() != seen, 30, "the resumed stream's next event")
        assert int(stream.last_id()) == moved.json()["version"] or int(stream.last_id()) > int(seen)
        stream.close()
        for headers, command, answer in acked:  # every acknowledged action is stored: its key answers it again
            replay = requests.post(
                f"{base}/api/matches/{busy}/actions", json=command, headers=headers, timeout=ANSWER_SECONDS
            )
            assert replay.status_code == 200 and replay.headers["Idempotent-Replayed"] == "true", replay.text
            assert (replay.json()["first_version"], replay.json()["version"]) == (
                answer["first_version"],
                answer["version"],
            )
        print(
            f"\nreload: {len(acked)} actions acknowledged ({before_reload} before the HUP), all stored; "
            f"long-poll answers {[a for a, _ in poll.answers]}, stream connections {stream.connections}"
        )


def test_sigterm_lets_an_action_in_flight_finish_and_keeps_it(tmp_path):
    """Given an action whose request runs for seconds (each bot move after it waits
    TILEFOLD_BOT_DELAY), when the server gets SIGTERM while it runs, then the action is answered
    200 and, the server started again on the same database, the match is at least at that version."""
    db = tmp_path / "inflight.db"
    with served(db, TILEFOLD_BOT_DELAY="0.7") as server:
        match_id, token = started_match(server.base)
        view = requests.get(
            f"{server.base}/api/matches/{match_id}/view", headers=auth(token), timeout=ANSWER_SECONDS
        ).json()
        discard = next(a for a in view["legal_actions"] if a["action"] == "discard")
        answer: list = []

        def act() -> None:
            headers = dict(auth(token), **{"If-Match": f'"v{view["version"]}"'})
            try:
                answer.append(
                    requests.post(
                        f"{server.base}/api/matches/{match_id}/actions",
                        json=discard,
                        headers=headers,
                        timeout=ANSWER_SECONDS,
                    )
                )
            except requests.RequestException as exc:
                answer.append(exc)

        acting = threading.Thread(target=act)
        acting.start()
        time.sleep(0.5)  # the request is in flight: its bots are waiting out their delay
        os.kill(server.proc.pid, signal.SIGTERM)
        acting.join(timeout=ANSWER_SECONDS + 10)
        server.proc.wait(timeout=60)
        assert answer and getattr(answer[0], "status_code", None) == 200, (answer, server.lines()[-8:])
        told = answer[0].json()["version"]
    with served(db) as again:
        now = requests.get(
            f"{again.base}/api/matches/{match_id}/view", headers=auth(token), timeout=ANSWER_SECONDS
        ).json()
        assert now["version"] >= told
