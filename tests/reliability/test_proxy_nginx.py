"""deploy/nginx-tilefold.conf as written, run by Debian's nginx in front of two `tilefold serve` nodes
on one PostgreSQL database: clients play through the proxy only, one node is SIGKILLed under load,
and nothing acknowledged is lost; long-polls and an event stream open through the proxy reconnect
through it and hear the next move; the client's address reaches the nodes from the proxy only.
Bounded: 4 matches, about two minutes at most, 127.0.0.1 only. Skips where nginx is not installed
(.ci/run installs it) or no PostgreSQL server can start.
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
from types import SimpleNamespace

import pytest

requests = pytest.importorskip("requests")

from proxy import SITE, nginx_binary, nginx_in_front  # noqa: E402
from served import free_port  # noqa: E402
from test_graceful_stop import LongPoll, Stream, auth  # noqa: E402
from test_two_nodes import Cluster, Node, audit, new_match, play_to_the_end, wait_until_up  # noqa: E402

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(nginx_binary() is None, reason="nginx is not installed (.ci/run installs Debian's nginx)"),
]
MATCHES = 4
KILL_AFTER_ACKS = 40
KILL_AFTER_S = 15
PLAY_DEADLINE_S = 150
WAITERS = 4


class ThroughProxy(Cluster):
    """Every request goes to the proxy. A 502/504 (the node died with the request) or a cut
    connection is sent again with the same headers and body (an Idempotency-Key makes it safe)."""

    def __init__(self, base: str):
        super().__init__([SimpleNamespace(base=base, alive=True)])

    def request(self, method: str, path: str, **kwargs):
        give_up = time.monotonic() + 60
        while True:
            resp = super().request(method, path, **kwargs)
            if resp.status_code not in (502, 504) or time.monotonic() > give_up:
                return resp
            time.sleep(0.1)


def test_the_site_waits_longer_than_the_service_and_buffers_no_stream():
    """The proxy's read timeout is above the longest wait a node holds (TILEFOLD_MAX_WAIT) and the
    stream heartbeat, and it does not buffer answers (Server-Sent Events, long-polls)."""
    from service.infra.config import from_env

    text, defaults = SITE.read_text(encoding="utf-8"), from_env({})
    read_timeout = int(re.search(r"proxy_read_timeout (\d+)s;", text).group(1))
    assert read_timeout > max(defaults["MAX_WAIT"], defaults["STREAM_HEARTBEAT"])
    assert "proxy_buffering off;" in text and "proxy_set_header X-Forwarded-For $remote_addr;" in text


def test_two_nodes_behind_nginx_one_killed_lose_nothing_and_waiters_reconnect(pg_url, tmp_path):
    from events import PostgresEventStore

    PostgresEventStore.initialise(pg_url).close()
    nodes = []
    for name in ("a", "b"):
        metrics_port = free_port()  # each node's metrics listener (off the proxied port)
        node = Node(
            pg_url,
            tmp_path / f"{name}.log",
            TILEFOLD_TRUSTED_PROXIES="1",
            TILEFOLD_METRICS_BIND=f"127.0.0.1:{metrics_port}",
        )
        node.metrics = f"http://127.0.0.1:{metrics_port}"
        nodes.append(node)
    try:
        for node in nodes:
            wait_until_up(node.base, node.proc, 120)
        with nginx_in_front([f"127.0.0.1:{node.port}" for node in nodes], free_port(), tmp_path / "nginx") as base:
            play_kill_and_audit(base, nodes, pg_url, tmp_path)
    finally:
        for node in nodes:
            node.stop()


def play_kill_and_audit(base: str, nodes, pg_url: str, tmp_path) -> None:
    cluster = ThroughProxy(base)
    # the client's address: written by the proxy (a forged header is dropped), trusted from it
    checked = requests.get(
        f"{base}/api/matches", headers={"X-Forwarded-For": "203.0.113.9", "X-Request-Id": "via-proxy-1"}, timeout=30
    )
    assert checked.status_code == 200 and checked.headers["X-Request-Id"] == "via-proxy-1"
    # waiting clients on a quiet match, through the proxy (spread over both nodes)
    quiet, quiet_tokens = new_match(cluster, random.Random(0))
    quiet_token = quiet_tokens[0]
    etag = cluster.request("GET", f"/api/matches/{quiet}/view", headers=auth(quiet_token)).headers["ETag"]
    polls = [LongPoll(base, quiet, quiet_token, etag, again=True) for _ in range(WAITERS)]
    streams: list[Stream] = []
    for _ in range(8):  # until node B (killed below) holds a stream and a long-poll, node A too
        streams.append(Stream(base, quiet, quiet_token, again=True))
        time.sleep(0.5)
        held = [(waits(node, "stream"), waits(node, "view")) for node in nodes]
        if all(streams_held and polls_held for streams_held, polls_held in held):
            break
    assert all(streams_held and polls_held for streams_held, polls_held in held), held
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

    threads = [threading.Thread(target=client, args=(seed,), daemon=True) for seed in range(1, MATCHES + 1)]
    for thread in threads:
        thread.start()
    kill_at = time.monotonic() + KILL_AFTER_S
    while len(cluster.acked) < KILL_AFTER_ACKS and time.monotonic() < kill_at and not errors:
        time.sleep(0.05)
    acked_before_kill = len(cluster.acked)
    nodes[1].kill()
    for thread in threads:
        thread.join(timeout=max(1.0, deadline - time.monotonic() + 30))
    assert not errors, errors[0]
    assert len(matches) == MATCHES and acked_before_kill > 0 and len(cluster.acked) > acked_before_kill
    for match_id in matches:
        assert cluster.request("GET", f"/api/matches/{match_id}").json()["status"] == "over", match_id
    audit(pg_url, cluster, matches)  # every acknowledged action stored once, at the versions told; chains verify

    # the waits that were on the killed node reconnected through the proxy: all hear the next move
    seen = [stream.last_id() for stream in streams]
    moved = public_move(cluster, quiet, quiet_tokens)
    assert moved.status_code == 200, moved.text
    for poll in polls:
        poll.join(timeout=60)
    assert all(poll.status == 200 for poll in polls), [poll.answers for poll in polls]
    wait_for(
        lambda: all(stream.last_id() != before for stream, before in zip(streams, seen)),
        30,
        "every stream's next event through the proxy",
    )
    for stream in streams:
        stream.close()
    assert any(stream.connections > 1 for stream in streams)  # the killed node's streams came back

    lines = [json.loads(line) for line in (tmp_path / "a.log").read_text().splitlines() if line.startswith("{")]
    lines += [json.loads(line) for line in (tmp_path / "b.log").read_text().splitlines() if line.startswith("{")]
    [via] = [line for line in lines if line.get("request_id") == "via-proxy-1"]
    assert via["remote"] == "127.0.0.1" and via["logger"] == "tilefold.access"  # not the forged 203.0.113.9
    cut = {code: n for code, n in cluster.statuses.items() if code in (502, 504, "connection_error")}
    print(
        f"\nbehind nginx: {len(cluster.acked)} actions acknowledged ({acked_before_kill} before node B was killed), "
        f"statuses {dict(cluster.statuses)}, answered again after a cut: {cut}, "
        f"long-poll answers per client {[len(p.answers) for p in polls]}, "
        f"connections per stream {[stream.connections for stream in streams]}"
    )


def wait_for(predicate, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, f"{what} did not happen within {seconds} s"
        time.sleep(0.1)


def public_move(cluster: ThroughProxy, match_id: str, tokens: list[str]):
    """A discard by whichever human seat is to discard (every seat sees it: every waiter wakes)."""
    for token in tokens:
        view = cluster.request("GET", f"/api/matches/{match_id}/view", headers=auth(token)).json()
        discards = [a for a in view["legal_actions"] if a["action"] == "discard"]
        if discards:
            return cluster.request(
                "POST",
                f"/api/matches/{match_id}/actions",
                json=discards[0],
                headers=dict(auth(token), **{"If-Match": f'"v{view["version"]}"'}),
            )
    raise AssertionError("no human seat is to discard in the quiet match")


def waits(node, kind: str) -> float:
    """How many waits of `kind` the node holds now (its metrics listener, summed over its workers)."""
    text = requests.get(f"{node.metrics}/metrics", timeout=10).text
    found = re.search(rf'^tilefold_waiters{{kind="{kind}"}} ([0-9.e+-]+)$', text, re.M)
    return float(found.group(1)) if found else 0.0
