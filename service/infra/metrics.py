"""The service's Prometheus metrics (prometheus-client), one set per process.

Under `tilefold serve` every gunicorn worker writes its values to files in PROMETHEUS_MULTIPROC_DIR
(`serve` sets and empties that folder before the workers start: prometheus-client's multi-process
mode), and an exposition sums them over the workers, live and dead. Without that variable (tests,
`tilefold tick`) the values live in this process. docs/OPERATIONS.md lists the metrics and their
normal ranges; `exposition()` is what GET /metrics and the `--metrics-bind` listener answer.

prometheus-client picks its storage when it is first imported: PROMETHEUS_MULTIPROC_DIR must be set
before this module is imported (`serve` sets it before gunicorn forks the workers).
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager
from typing import Any, Iterator

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

#: seconds: a request answers in milliseconds, a long-poll or a stream holds up to its limit
REQUEST_BUCKETS = (0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
APPEND_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)

ACTIONS = Counter(
    "tilefold_actions",
    "Actions posted to POST /api/matches/<id>/actions: result accepted or refused, code the problem code "
    "(accepted: 'ok'; a replay of an idempotent action: 'replayed')",
    ["result", "code"],
)
REQUESTS = Counter("tilefold_requests", "HTTP requests answered, by route pattern and status", ["route", "status"])
REQUEST_SECONDS = Histogram(
    "tilefold_request_seconds",
    "Time from the request to the end of its answer (a long-poll or a stream: how long it was held), by route",
    ["route", "method"],
    buckets=REQUEST_BUCKETS,
)
WAITERS = Gauge(
    "tilefold_waiters",
    "Open waits by kind: view (long-poll), chat (long-poll), mine (My matches long-poll), stream (SSE)",
    ["kind"],
    multiprocess_mode="livesum",
)
MATCH_LOADS = Counter(
    "tilefold_match_loads",
    "Match loads: 'hit' found the match in the worker's cache, 'cold' read it from the store",
    ["result"],
)
INTEGRITY_ERRORS = Counter(
    "tilefold_integrity_errors",
    "Matches refused with 503 integrity_error: 'chain' (an event row fails the hash chain) or 'snapshot'",
    ["kind"],
)
DEADLINES_SETTLED = Counter("tilefold_deadlines_settled", "Matches whose overdue move deadlines were taken")
NOTICES = Counter(
    "tilefold_notices",
    "Webhook notice deliveries: 'sent', 'failed' (retried later) or 'gave_up' (after the last attempt)",
    ["result"],
)
SNAPSHOT_WRITES = Counter("tilefold_snapshot_writes", "Snapshot writes: 'ok' or 'failed'", ["result"])
APPEND_SECONDS = Histogram(
    "tilefold_store_append_seconds", "Time of one append of a match's events to the store", buckets=APPEND_BUCKETS
)


_CHILDREN: dict[tuple[Any, tuple[str, ...]], Any] = {}


def child(metric: Any, *labels: str) -> Any:
    """`metric.labels(*labels)`, kept: prometheus-client converts and checks the labels and takes
    a lock on every call, a few per request (the children are never removed, so one found stays)."""
    key = (metric, labels)
    found = _CHILDREN.get(key)
    if found is None:
        found = _CHILDREN[key] = metric.labels(*labels)
    return found


@contextmanager
def timed(histogram: Histogram) -> Iterator[None]:
    """Observe how long the block took (also when it raises)."""
    started = time.perf_counter()
    try:
        yield
    finally:
        histogram.observe(time.perf_counter() - started)


def exposition() -> tuple[bytes, str]:
    """The text exposition of every metric (summed over the workers in multi-process mode) and its type."""
    if os.environ.get(MULTIPROC_ENV):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
