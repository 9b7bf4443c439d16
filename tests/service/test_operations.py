"""What an operator watches, in process: /healthz and /readyz (and what they cost), the Prometheus
metrics, the request id and the access log, the log formats, the trusted proxies, the PostgreSQL
pool settings, and a stopping worker answering its waits (docs/OPERATIONS.md)."""

from __future__ import annotations

import io
import json
import logging
import threading

import pytest
from prometheus_client import REGISTRY

from conftest import MatchClient, flask_transport
from correspondence_helpers import HOUR, App, Receiver
from service.http.services import services


def sample(name: str, **labels: str) -> float:
    """A metric's value in this process (0 when never touched)."""
    return REGISTRY.get_sample_value(name, labels) or 0.0


class CountingStore:
    """The store with every method call counted (a probe's cost, in queries)."""

    def __init__(self, store):
        self._store, self.calls = store, []

    def __getattr__(self, name):
        found = getattr(self._store, name)
        if not callable(found):
            return found

        def counted(*args, **kwargs):
            self.calls.append(name)
            return found(*args, **kwargs)

        return counted


def app_with(tmp_path, **settings):
    from service.app import create_app

    return create_app({"DATABASE": str(tmp_path / "ops.db"), "TESTING": True, **settings})


# -- health and readiness -----------------------------------------------------------------
def test_healthz_answers_without_touching_the_store(app, client):
    svc = services(app).match
    svc.repo.store = counting = CountingStore(svc.repo.store)
    reply = client.get("/healthz")
    assert reply.status_code == 200 and reply.get_json() == {"status": "ok"}
    assert counting.calls == []


def test_readyz_costs_two_queries_per_poll(app, client):
    """Given a ready node (its first request made), when /readyz is polled ten times (as a balancer
    polls it every second), then it is ready each time and the database ran two statements a poll,
    the schema version's and the ticker lease's, and none for /healthz (every statement of the
    request's thread is traced, whoever runs it)."""
    assert client.get("/readyz").status_code == 200  # a worker's first request starts its notice worker
    store = services(app).match.repo.store
    if getattr(store, "dialect", "") != "sqlite":
        pytest.skip("statements are traced on SQLite's connection")
    statements: list[str] = []
    conn, _ = store._db.get()
    conn.set_trace_callback(statements.append)
    try:
        for _ in range(10):
            reply = client.get("/readyz")
            assert reply.status_code == 200, reply.get_json()
            assert reply.get_json() == {"status": "ready", "checks": {"database": "ok", "ticker": "ok"}}
        assert client.get("/healthz").status_code == 200
    finally:
        conn.set_trace_callback(None)
    lease = "SELECT holder, expires_at FROM tf_leases WHERE name = 'ticker'"
    assert statements == ["SELECT max(version) FROM schema_version", lease] * 10


def test_readyz_is_503_naming_a_database_that_does_not_answer(app, client, monkeypatch):
    from events import StorageUnavailable

    def down(*args, **kwargs):
        raise StorageUnavailable("event storage unavailable: PostgreSQL (connection refused)")

    assert client.get("/readyz").status_code == 200  # a worker's first request starts its notice worker
    monkeypatch.setattr(services(app).match.repo.store, "query", down)
    reply = client.get("/readyz")
    assert reply.status_code == 503 and reply.get_json()["status"] == "not_ready"
    assert "connection refused" in reply.get_json()["checks"]["database"]
    assert client.get("/healthz").status_code == 200  # the process still answers


def test_readyz_is_503_when_the_schema_version_is_not_this_codes(app, client):
    """Given a database migrated past this code (or not yet to it), then the node is not ready and
    says which version it found and what to do."""
    from service.http.observe import latest_schema

    store = services(app).match.repo.store
    newer = latest_schema(store) + 1
    store.write(lambda conn: conn.execute("INSERT INTO schema_version VALUES (?, 'ahead', 'now')", [newer]))
    reply = client.get("/readyz")
    assert reply.status_code == 503 and "newer than this code" in reply.get_json()["checks"]["database"]
    store.write(lambda conn: conn.execute("DELETE FROM schema_version"))
    reply = client.get("/readyz")
    assert reply.status_code == 503 and "tilefold migrate" in reply.get_json()["checks"]["database"]


def test_readyz_asks_whether_a_ticker_holds_or_can_take_its_lease(app, client):
    """Given the ticker lease held and renewed by another node, or expired for about one lease, the
    node is ready (one worker of one node ticks; this one takes over when it expires); given a lease
    nobody renewed for an hour, no ticker runs anywhere: 503 naming the ticker."""
    import time

    ticker = services(app).ticker
    store = services(app).match.repo.store
    assert client.get("/readyz").status_code == 200  # no lease taken yet: free

    def lease(holder: str, expires_at: float) -> None:
        store.write(lambda conn: conn.execute("DELETE FROM tf_leases WHERE name = 'ticker'"))
        store.write(lambda conn: conn.execute("INSERT INTO tf_leases VALUES ('ticker', ?, ?)", [holder, expires_at]))

    lease("node-b:4242:abcd", time.time() + 30)
    assert client.get("/readyz").status_code == 200
    lease("node-b:4242:abcd", time.time() - ticker.lease.ttl / 2)
    assert client.get("/readyz").status_code == 200
    lease("node-b:4242:abcd", time.time() - 3600)
    reply = client.get("/readyz")
    assert reply.status_code == 503 and reply.get_json()["checks"]["database"] == "ok"
    assert "no ticker renewed it (last holder node-b:4242:abcd)" in reply.get_json()["checks"]["ticker"]
    assert ticker.run_once() is not None  # this worker's ticker takes the lease at its next pass
    assert client.get("/readyz").status_code == 200


def test_readyz_is_503_when_a_readiness_check_fails(app, client):
    services(app).readiness.append(("ticker", lambda: "the ticker lease is held by another node and stale"))
    reply = client.get("/readyz")
    assert reply.status_code == 503 and reply.get_json()["checks"]["ticker"].startswith("the ticker lease")


# -- metrics ---------------------------------------------------------------------------------
def test_metrics_are_off_the_public_port_unless_the_setting_says_so(tmp_path):
    assert app_with(tmp_path).test_client().get("/metrics").status_code == 404
    reply = app_with(tmp_path, METRICS_PUBLIC=True).test_client().get("/metrics")
    assert reply.status_code == 200 and reply.content_type.startswith("text/plain")
    assert "# TYPE tilefold_actions_total counter" in reply.get_data(as_text=True)


def test_actions_are_counted_accepted_and_refused_by_code(tmp_path):
    app = app_with(tmp_path, METRICS_PUBLIC=True)
    api = MatchClient(flask_transport(app.test_client()))
    match_id, _, tokens = api.new_match(humans=1)
    accepted, conflicts = (
        sample("tilefold_actions_total", result="accepted", code="ok"),
        sample("tilefold_actions_total", result="refused", code="version_conflict"),
    )
    view = api.view(match_id, tokens[0]).body
    assert api.act(match_id, tokens[0], view["legal_actions"][0], view["version"] - 1).status == 409
    assert api.act(match_id, tokens[0], view["legal_actions"][0], view["version"]).status == 200
    assert sample("tilefold_actions_total", result="accepted", code="ok") == accepted + 1
    assert sample("tilefold_actions_total", result="refused", code="version_conflict") == conflicts + 1
    text = app.test_client().get("/metrics").get_data(as_text=True)
    assert 'tilefold_actions_total{code="version_conflict",result="refused"}' in text


def test_requests_loads_appends_and_snapshots_are_counted(tmp_path):
    app = app_with(tmp_path, SNAPSHOT_EVERY=5)
    api = MatchClient(flask_transport(app.test_client()))
    route = "/api/matches/<match_id>/view"
    before = {
        "views": sample("tilefold_request_seconds_count", route=route, method="GET"),
        "ok": sample("tilefold_requests_total", route=route, status="200"),
        "appends": sample("tilefold_store_append_seconds_count"),
        "snapshots": sample("tilefold_snapshot_writes_total", result="ok"),
        "hits": sample("tilefold_match_loads_total", result="hit"),
        "cold": sample("tilefold_match_loads_total", result="cold"),
    }
    match_id, _, tokens = api.new_match(humans=1)
    api.view(match_id, tokens[0])
    services(app).match.repo.cache = type(services(app).match.repo.cache)(8)  # forget it
    api.view(match_id, tokens[0])
    assert sample("tilefold_request_seconds_count", route=route, method="GET") == before["views"] + 2
    assert sample("tilefold_requests_total", route=route, status="200") == before["ok"] + 2
    assert sample("tilefold_store_append_seconds_count") > before["appends"]
    assert sample("tilefold_snapshot_writes_total", result="ok") > before["snapshots"]
    assert sample("tilefold_match_loads_total", result="hit") > before["hits"]
    assert sample("tilefold_match_loads_total", result="cold") >= before["cold"] + 1


def test_open_waits_are_counted_by_kind():
    from service.infra.waiters import WaitLimits

    limits, before = WaitLimits(per_address=4, total=8), sample("tilefold_waiters", kind="chat")
    slots = [limits.acquire("a", "chat"), limits.acquire("b", "chat")]
    assert sample("tilefold_waiters", kind="chat") == before + 2
    for slot in slots:
        slot.release()
        slot.release()  # idempotent: counted down once
    assert sample("tilefold_waiters", kind="chat") == before


def test_an_integrity_error_is_counted(app, api):
    match_id, _, tokens = api.new_match(humans=1)
    repo = services(app).match.repo
    repo.cache = type(repo.cache)(8)
    before = sample("tilefold_integrity_errors_total", kind="chain")
    repo.store.chain_problem = lambda stream, after: "row 3: hash mismatch (edited)"
    reply = api.view(match_id, tokens[0])
    assert reply.status == 503 and reply.body["code"] == "integrity_error"
    assert sample("tilefold_integrity_errors_total", kind="chain") > before  # once per refused load


def test_settled_deadlines_are_counted(tmp_path):
    t = App(tmp_path)
    match_id, _, tokens = t.match()
    before = sample("tilefold_deadlines_settled_total")
    t.clock.advance(HOUR + 1)
    assert services(t.app).ticker.run_once() is not None  # the ticker settles the overdue turn
    assert t.reasons(match_id, "timeout")
    assert sample("tilefold_deadlines_settled_total") == before + 1


def test_notices_sent_and_failed_are_counted(tmp_path):
    receiver = Receiver()
    try:
        t = App(tmp_path, WEBHOOK_ATTEMPTS=2)
        match_id, owner = t.create("koudiandian", {"hands": 1}, deadline=None)
        token = t.api.join(match_id, "human")
        assert t.api.call("PUT", f"/api/matches/{match_id}/webhook", {"url": receiver.url}, token=token).status == 200
        sent = sample("tilefold_notices_total", result="sent")
        t.api.bots(match_id, owner)
        t.svc.tick()
        assert receiver.ok() and sample("tilefold_notices_total", result="sent") == sent + len(receiver.ok())
    finally:
        receiver.stop()
    failed, gave_up = (
        sample("tilefold_notices_total", result="failed"),
        sample("tilefold_notices_total", result="gave_up"),
    )
    t.api.call("PUT", f"/api/matches/{match_id}/webhook", {"url": "http://127.0.0.1:9/nobody"}, token=token)
    view = t.api.view(match_id, token).body
    t.api.act(match_id, token, view["legal_actions"][0], view["version"])
    for _ in range(3):
        t.clock.advance(HOUR)
        t.svc.tick()
    assert sample("tilefold_notices_total", result="failed") > failed
    assert sample("tilefold_notices_total", result="gave_up") > gave_up


# -- request ids and the access log --------------------------------------------------------------
def access_lines(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "tilefold.access"]


def test_a_request_id_is_kept_or_made_and_answered(api, client, caplog):
    caplog.set_level(logging.INFO, logger="tilefold.access")
    match_id, _, tokens = api.new_match(humans=1)
    caplog.clear()
    reply = client.get(
        f"/api/matches/{match_id}/view", headers={"Authorization": f"Bearer {tokens[0]}", "X-Request-Id": "lb-42.a_b"}
    )
    assert reply.status_code == 200 and reply.headers["X-Request-Id"] == "lb-42.a_b"
    [line] = access_lines(caplog)
    assert (line.request_id, line.match_id, line.seat, line.status, line.method) == (
        "lb-42.a_b",
        match_id,
        0,
        200,
        "GET",
    )
    assert line.route == "/api/matches/<match_id>/view" and line.duration_ms >= 0
    for unfit in ("two words", "x" * 129, "<script>"):
        made = client.get("/healthz", headers={"X-Request-Id": unfit}).headers["X-Request-Id"]
        assert made != unfit and len(made) == 32 and int(made, 16) >= 0


def test_a_request_refused_by_an_earlier_hook_keeps_its_id(tmp_path, caplog):
    """Given a rate limit of one per minute, when a second call is refused (429, by flask-limiter's
    own hook), then its answer and its access line carry the id the client sent."""
    caplog.set_level(logging.INFO, logger="tilefold.access")
    client = app_with(tmp_path, RATE_LIMITS=True, RATE_LIMIT_SCORE="1 per minute").test_client()
    body = {"variant": "koudiandian", "hand": "bad"}
    client.post("/api/score", json=body)
    refused = client.post("/api/score", json=body, headers={"X-Request-Id": "limited-1"})
    assert refused.status_code == 429 and refused.headers["X-Request-Id"] == "limited-1"
    [line] = [r for r in access_lines(caplog) if r.request_id == "limited-1"]
    assert line.status == 429


def test_every_line_of_a_request_carries_its_id(client):
    """Given the JSON handler serve installs, when a request logs a line of its own (a body nested
    too deeply is refused with a warning), then that line and the access line carry its id."""
    from service.infra import logs

    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.addFilter(logs.RequestContext())
    handler.setFormatter(logs.formatter())
    root = logging.getLogger()
    root.addHandler(handler)
    level = root.level
    root.setLevel(logging.INFO)  # setLevel, not `root.level =`: it clears the loggers' cached isEnabledFor
    try:
        body = "[" * 20_000 + "]" * 20_000
        reply = client.post(
            "/api/score", data=body, headers={"Content-Type": "application/json", "X-Request-Id": "deep-1"}
        )
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    assert reply.status_code == 400
    lines = [json.loads(line) for line in out.getvalue().splitlines()]  # JSON: the test's stderr is no terminal
    mine = [line for line in lines if line.get("request_id") == "deep-1"]
    assert {line["logger"] for line in mine} >= {"tilefold.access", "service.http.problems"}, lines
    access = next(line for line in mine if line["logger"] == "tilefold.access")
    assert access["status"] == 400 and access["level"] == "INFO" and access["time"].endswith("+00:00")


def test_logs_are_json_unless_written_to_a_terminal(monkeypatch):
    from service.infra import logs

    record = logging.makeLogRecord(
        {"name": "tilefold.access", "levelname": "INFO", "levelno": 20, "msg": "GET /healthz 200", "status": 200}
    )
    record.request_id = "r1"
    monkeypatch.delenv(logs.FORMAT_ENV, raising=False)
    monkeypatch.setattr("sys.stderr.isatty", lambda: False)
    line = json.loads(logs.formatter().format(record))
    assert (line["message"], line["status"], line["request_id"], line["level"]) == (
        "GET /healthz 200",
        200,
        "r1",
        "INFO",
    )
    monkeypatch.setattr("sys.stderr.isatty", lambda: True)
    text = logs.formatter().format(record)
    assert "INFO tilefold.access" in text and "[r1] GET /healthz 200" in text and "status=200" in text
    monkeypatch.setenv(logs.FORMAT_ENV, "json")
    assert json.loads(logs.formatter().format(record))["status"] == 200
    monkeypatch.setenv(logs.FORMAT_ENV, "yaml")
    with pytest.raises(ValueError):
        logs.formatter()


# -- the client's address behind a proxy ------------------------------------------------------
def test_the_client_address_is_trusted_only_from_the_proxy(tmp_path):
    """Given one trusted proxy at 10.0.0.1 and a score limit of one per minute per address, when
    clients behind it call, then each forwarded address has its own limit; a caller that is not the
    proxy cannot pick an address by sending X-Forwarded-For."""
    app = app_with(
        tmp_path,
        TRUSTED_PROXIES=1,
        PROXY_ADDRESSES="10.0.0.1, 192.168.7.0/24",
        RATE_LIMITS=True,
        RATE_LIMIT_SCORE="1 per minute",
    )
    client, body = app.test_client(), {"variant": "koudiandian", "hand": "bad"}

    def score(remote: str, forwarded: str) -> int:
        return client.post(
            "/api/score", json=body, headers={"X-Forwarded-For": forwarded}, environ_base={"REMOTE_ADDR": remote}
        ).status_code

    assert score("10.0.0.1", "203.0.113.9") != 429
    assert score("10.0.0.1", "203.0.113.10") != 429  # another client behind the proxy
    assert score("192.168.7.4", "203.0.113.9") == 429  # the same client through the other proxy
    assert score("172.16.0.5", "198.51.100.1") != 429  # not a proxy: its own address counts
    assert score("172.16.0.5", "198.51.100.2") == 429  # …however it fills the header


def test_without_trusted_proxies_the_header_is_ignored(tmp_path):
    app = app_with(tmp_path, RATE_LIMITS=True, RATE_LIMIT_SCORE="1 per minute")
    client = app.test_client()
    for forwarded, expected in (("203.0.113.9", False), ("203.0.113.10", True)):
        status = client.post(
            "/api/score",
            json={"variant": "koudiandian", "hand": "bad"},
            headers={"X-Forwarded-For": forwarded},
            environ_base={"REMOTE_ADDR": "127.0.0.1"},
        ).status_code
        assert (status == 429) is expected


# -- the PostgreSQL pool ---------------------------------------------------------------------
def test_the_pool_size_and_wait_are_settings(pg_url, monkeypatch):
    from service.app import create_app
    from service.infra.config import from_env

    assert from_env({"TILEFOLD_PG_POOL_SIZE": "3", "TILEFOLD_PG_POOL_TIMEOUT": "2.5"})["PG_POOL_SIZE"] == 3
    assert (from_env({})["PG_POOL_SIZE"], from_env({})["PG_POOL_TIMEOUT"]) == (10, 30.0)
    monkeypatch.setenv("TILEFOLD_PG_POOL_SIZE", "3")
    monkeypatch.setenv("TILEFOLD_PG_POOL_TIMEOUT", "2.5")
    app = create_app({"DATABASE": pg_url, "TESTING": True})
    store = services(app).match.repo.store
    try:
        pool = store.pool()
        assert (pool.max_size, pool.timeout) == (3, 2.5)
        assert app.test_client().get("/readyz").status_code == 200
    finally:
        store.close()


# -- a stopping worker ------------------------------------------------------------------------
def test_a_stopping_worker_answers_its_long_polls_with_the_current_state(app, api, client):
    """Given a seat long-polling (?wait=30) a match where nobody else moves, when the worker starts
    stopping (WaiterHub.drain: serve calls it on SIGTERM or HUP), then the long-poll is answered
    with the state it holds (304: unchanged) instead of being held, and a new one returns at once."""
    match_id, _, tokens = api.new_match(humans=1)
    view = api.view(match_id, tokens[0])
    hub = services(app).hub
    answers: list = []

    def poll():
        reply = client.get(
            f"/api/matches/{match_id}/view?wait=30",
            headers={"Authorization": f"Bearer {tokens[0]}", "If-None-Match": view.headers["ETag"]},
        )
        answers.append(reply.status_code)

    waiting = threading.Thread(target=poll)
    waiting.start()
    until_waiting(hub)
    hub.drain()
    waiting.join(timeout=20)
    assert answers == [304]
    poll()  # a wait that starts on a stopping worker does not wait
    assert answers == [304, 304] and hub.waiting == 0


def test_a_stopping_worker_answers_its_chat_long_polls(app, api, client):
    """Given a seat long-polling the chat (?wait=30) with no new line, when the worker drains, then
    the long-poll is answered (no new line) instead of waiting on, or spinning, until its end."""
    match_id, _, tokens = api.new_match(humans=1)
    hub = services(app).hub
    answers: list = []

    def poll():
        reply = client.get(f"/api/matches/{match_id}/chat?wait=30", headers={"Authorization": f"Bearer {tokens[0]}"})
        answers.append((reply.status_code, reply.get_json()["lines"]))

    waiting = threading.Thread(target=poll)
    waiting.start()
    until_waiting(hub)
    hub.drain()
    waiting.join(timeout=20)
    assert answers == [(200, [])] and hub.waiting == 0


def test_a_stopping_worker_tells_its_streams_to_reconnect(app, api, client):
    """Given an open SSE stream, when the worker drains, then the stream's last message is
    `retry:` and `event: reconnect`, after the events it had, and the stream ends."""
    app.config["STREAM_LIFETIME"] = 30.0  # without the drain the stream would end only then (and fail)
    match_id, _, tokens = api.new_match(humans=1)
    hub = services(app).hub
    reply = client.get(
        f"/api/matches/{match_id}/stream", headers={"Authorization": f"Bearer {tokens[0]}"}, buffered=False
    )
    chunks = iter(reply.response)
    received = ""
    while "id: " not in received:
        received += next(chunks).decode()
    threading.Timer(0.2, hub.drain).start()
    rest = "".join(chunk.decode() for chunk in chunks)  # ends: the generator returned
    reply.close()
    assert rest.endswith('retry: 1000\nevent: reconnect\ndata: {"reason": "server_stopping"}\n\n'), rest[-300:]


def until_waiting(hub, count: int = 1) -> None:
    import time

    deadline = time.monotonic() + 20
    while hub.waiting < count:
        assert time.monotonic() < deadline, "the long-poll never started waiting"
        time.sleep(0.01)


def test_log_lines_go_to_the_standard_error_of_the_moment_never_a_closed_one(monkeypatch):
    """Given logging configured while standard error was one stream (a test's capture, a daemon's
    first descriptor) that has since been closed and replaced, when a server thread logs a line, then
    the line goes to the new standard error and nothing is written to the closed stream."""
    import io
    import logging.config
    import sys

    from service.infra import logs

    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    first = io.StringIO()
    monkeypatch.setattr(sys, "stderr", first)
    try:
        logging.config.dictConfig(logs.logging_config())
        first.close()
        now = io.StringIO()
        monkeypatch.setattr(sys, "stderr", now)
        logging.getLogger("tilefold.access").warning("GET / 200")
        written = now.getvalue()
        assert "GET / 200" in written and "Logging error" not in written, written
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
