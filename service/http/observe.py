"""What an operator watches: request ids, the access log, request metrics, /healthz, /readyz, /metrics.

- X-Request-Id: a client's id (1-128 letters, digits, `.`, `_`, `-`) is kept, else a new one is made;
  it is answered in the X-Request-Id header and carried by every log line of the request.
- The access log: one line per request (logger `tilefold.access`) when its answer is made (a
  stream: when it closes) with the request id, method, route, path (never the query string), status,
  duration, match id and seat; /healthz, /readyz and /metrics are logged at DEBUG when they succeed.
- GET /healthz: the process answers (no query). GET /readyz: two queries: the database answers
  with this code's schema version, and the ticker's lease is held (here or by a live ticker
  elsewhere) or can be taken; 503 naming the failing check otherwise (and any check another part
  adds to the readiness list of service/http/services.py's `Services`).
- GET /metrics: the Prometheus exposition, on this port only when TILEFOLD_METRICS_PUBLIC is on
  (`tilefold serve --metrics-bind` serves it on a port of its own instead: docs/OPERATIONS.md).
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from typing import Any, Callable, Optional

from flask import Flask, Response, g, has_request_context, jsonify, request

from ..infra import metrics
from .services import services

access = logging.getLogger("tilefold.access")
log = logging.getLogger(__name__)

_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,128}")
PROBES = frozenset({"/healthz", "/readyz", "/metrics"})
ACTION_ENDPOINT = "actions.act"


def install(app: Flask) -> None:
    app.before_request(_start)
    app.after_request(_finish)
    app.add_url_rule("/healthz", "healthz", healthz, methods=["GET"])
    app.add_url_rule("/readyz", "readyz", readyz, methods=["GET"])
    if app.config.get("METRICS_PUBLIC"):
        app.add_url_rule("/metrics", "metrics", metrics_view, methods=["GET"])


def note_problem(code: str) -> None:
    """The problem code of this request's answer (service/problems.py), for the metrics and the log."""
    if has_request_context():
        g.problem_code = code


def note_seat(seat: Optional[int]) -> None:
    """The seat this request acts or reads as (service/web.py), for the access log."""
    if has_request_context():
        g.seat = seat


def request_id() -> str:
    return str(g.get("request_id", "")) if has_request_context() else ""


def _start() -> None:
    given = request.headers.get("X-Request-Id", "")
    g.request_id = given if _REQUEST_ID.fullmatch(given) else uuid.uuid4().hex
    g.started = time.perf_counter()


def _finish(response: Response) -> Response:
    rid = g.get("request_id") or uuid.uuid4().hex
    response.headers["X-Request-Id"] = rid
    req = request._get_current_object()  # type: ignore[attr-defined]  # one lookup, not one per field
    rule = req.url_rule
    facts = {
        "request_id": rid,
        "method": req.method,
        "route": rule.rule if rule is not None else "unmatched",
        "endpoint": req.endpoint or "",
        "path": req.path,
        "status": response.status_code,
        "match_id": (req.view_args or {}).get("match_id"),
        "seat": g.get("seat"),
        "code": g.get("problem_code"),
        "remote": req.remote_addr,
    }
    started = g.get("started", time.perf_counter())
    if response.is_streamed:  # an event stream (or a file): recorded when it ends
        response.call_on_close(lambda: _record(facts, started))
    else:
        _record(facts, started)
    return response


def _record(facts: dict[str, Any], started: float) -> None:
    duration = time.perf_counter() - started
    try:
        route, status = facts["route"], facts["status"]
        metrics.child(metrics.REQUESTS, route, str(status)).inc()
        metrics.child(metrics.REQUEST_SECONDS, route, facts["method"]).observe(duration)
        if facts["endpoint"] == ACTION_ENDPOINT:
            if status < 400:
                metrics.child(metrics.ACTIONS, "accepted", "ok").inc()
            else:
                metrics.child(metrics.ACTIONS, "refused", facts["code"] or f"http_{status}").inc()
        quiet = facts["path"] in PROBES and status < 400
        fields = {k: v for k, v in facts.items() if v is not None and k != "endpoint"}
        fields["duration_ms"] = round(duration * 1000, 2)
        access.log(
            logging.DEBUG if quiet else logging.INFO,
            "%s %s %s %.1f ms",
            facts["method"],
            facts["path"],
            status,
            duration * 1000,
            extra=fields,
        )
    except Exception:  # noqa: BLE001 - accounting never fails an answer
        log.exception("recording a request failed")


# -- probes ---------------------------------------------------------------------------------
def healthz() -> Response:
    """The process answers: no query, no lock."""
    return jsonify({"status": "ok"})


def readyz() -> Any:
    """Ready when every check of `readiness_checks` passes (one query for the database and schema)."""
    from flask import current_app

    checks: dict[str, str] = {}
    ready = True
    for name, check in readiness_checks(current_app):
        try:
            problem = check()
        except Exception as exc:  # noqa: BLE001 - a probe reports, never raises
            problem = f"{type(exc).__name__}: {exc}"
        checks[name] = problem or "ok"
        ready = ready and problem is None
    body = {"status": "ready" if ready else "not_ready", "checks": checks}
    response = jsonify(body)
    response.status_code = 200 if ready else 503
    response.headers["Cache-Control"] = "no-store"
    return response


def readiness_checks(app: Flask) -> list[tuple[str, Callable[[], Optional[str]]]]:
    """(name, check() -> None when fine, else what is wrong), in order."""
    wired = services(app)
    store = wired.match.repo.store
    ticker = wired.ticker
    found: list[tuple[str, Callable[[], Optional[str]]]] = [
        ("database", lambda: database_problem(store)),
        ("ticker", lambda: ticker_problem(ticker)),
    ]
    found.extend(wired.readiness)
    return found


def database_problem(store: Any) -> Optional[str]:
    """None when the database answers with this code's schema version, else the problem: one query
    on a pooled connection (events/migrations.py records the versions in `schema_version`)."""
    found = store.query("SELECT max(version) FROM schema_version")[0][0] or 0
    latest = latest_schema(store)
    if found == latest:
        return None
    if found > latest:
        return f"the database has schema version {found}, newer than this code's {latest}: upgrade this node"
    return (
        f"the database has schema version {found}, this code needs {latest}: "
        "run `tilefold migrate` (docs/OPERATIONS.md, Upgrading)"
    )


def ticker_problem(ticker: Any) -> Optional[str]:
    """None when the ticker's lease (service/infra/lease.py) is held by this process, held and
    renewed by another worker or node, free, or expired only for about one lease (this worker's
    ticker takes it at its next pass); else the lease has gone unrenewed that long that no ticker
    runs, this worker's included, and overdue deadlines are not being settled. One query, no write."""
    state = ticker.lease.state()
    if state.held or state.holder is None or state.expires_in is None or state.expires_in > 0:
        return None
    stale = -state.expires_in
    if stale <= ticker.lease.ttl + 2 * ticker.interval:
        return None
    return (
        f"the ticker lease expired {stale:.0f} s ago and no ticker renewed it (last holder {state.holder}): "
        "overdue move deadlines are not settled; is this node's ticker running?"
    )


def latest_schema(store: Any) -> int:
    """The schema version this code's store of that kind needs (events/schema.py, events/pg_schema.py)."""
    from events import pg_schema, schema

    return pg_schema.LATEST if getattr(store, "dialect", None) == "postgresql" else schema.LATEST


def metrics_view() -> Response:
    body, content_type = metrics.exposition()
    return Response(body, content_type=content_type)
