"""Log lines: one JSON object per line (python-json-logger), or readable text in a terminal.

TILEFOLD_LOG_FORMAT = json | text | auto (default: text when standard error is a terminal, JSON
otherwise); TILEFOLD_LOG_LEVEL (default INFO). `tilefold serve` hands `logging_config()` to gunicorn
(its own lines and the workers' go through the same handler); `tilefold tick` calls `configure()`.
Every line made while a request is handled carries that request's id (`RequestContext`); the access
log (logger `tilefold.access`, service/http/observe.py) is one line per request. Tokens are never logged:
no line carries a header, a query string or a body.
"""

from __future__ import annotations

import logging
import logging.config
import os
import sys
from typing import Any

from pythonjsonlogger.json import JsonFormatter
from pythonjsonlogger.orjson import OrjsonFormatter

FORMAT_ENV, LEVEL_ENV = "TILEFOLD_LOG_FORMAT", "TILEFOLD_LOG_LEVEL"
TEXT = "%(asctime)s %(levelname)s %(name)s [%(process)d] %(request_id)s%(message)s"


class RequestContext(logging.Filter):
    """Gives every record its request's id while a request is handled (the worker's request
    context: per greenlet under gevent, per thread under gthread); '' outside a request."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = _current_request_id()
        return True


def _current_request_id() -> str:
    try:
        from flask import g, has_request_context

        return str(g.get("request_id", "")) if has_request_context() else ""
    except Exception:  # noqa: BLE001 - a log line never fails
        return ""


class _Text(logging.Formatter):
    """Readable: time, level, logger, pid, [request id] message, then the extra fields as key=value."""

    _PLAIN = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "request_id", "taskName"}

    def format(self, record: logging.LogRecord) -> str:
        rid = getattr(record, "request_id", "")
        record.request_id = f"[{rid}] " if rid else ""
        try:
            line = super().format(record)
        finally:
            record.request_id = rid
        extras = {k: v for k, v in vars(record).items() if k not in self._PLAIN and v not in (None, "")}
        return line + "".join(f" {k}={v}" for k, v in extras.items())


class _Json(OrjsonFormatter):
    """python-json-logger's line written by orjson: the same object as its standard-library
    formatter's, in about half the time (a line per request), without the spaces after `:` and `,`
    and with non-ASCII text as UTF-8 rather than \\u escapes. What orjson refuses (an integer
    beyond 64 bits) is written by the standard-library formatter instead, so no line is lost."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._fallback = JsonFormatter(**kwargs)

    def jsonify_log_record(self, log_data: Any) -> str:
        try:
            return super().jsonify_log_record(log_data)
        except TypeError:
            return self._fallback.jsonify_log_record(log_data)


def wants_json(env: Any = None) -> bool:
    """JSON unless TILEFOLD_LOG_FORMAT says text, or says auto (the default) and stderr is a terminal."""
    choice = (os.environ if env is None else env).get(FORMAT_ENV, "auto").strip().lower() or "auto"
    if choice not in ("auto", "json", "text"):
        raise ValueError(f"{FORMAT_ENV} must be json, text or auto, not {choice!r}")
    if choice == "auto":
        return not sys.stderr.isatty()
    return choice == "json"


def formatter() -> logging.Formatter:
    """The formatter of every line this process writes (logging.config's factory: "()")."""
    if wants_json():
        return _Json(
            fmt="{levelname}{name}{message}{process}",
            style="{",
            timestamp="time",  # ISO 8601, UTC
            rename_fields={"levelname": "level", "name": "logger", "process": "pid"},
        )
    return _Text(TEXT)


class StandardError(logging.StreamHandler):
    """A handler writing to whatever `sys.stderr` is when a line is written, not when logging was
    configured: a process that swaps its standard error (a daemon's redirect, a test's capture that
    has since closed) never has a line written to a closed stream."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass


def logging_config() -> dict[str, Any]:
    """A logging.config dict: one handler on standard error for the root logger and gunicorn's."""
    level = os.environ.get(LEVEL_ENV, "INFO").strip().upper() or "INFO"
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request": {"()": RequestContext}},
        "formatters": {"tilefold": {"()": formatter}},
        "handlers": {
            "stderr": {
                "class": f"{__name__}.StandardError",
                "formatter": "tilefold",
                "filters": ["request"],
            }
        },
        "root": {"level": level, "handlers": ["stderr"]},
        "loggers": {
            "gunicorn.error": {"level": level, "handlers": [], "propagate": True},
            "gunicorn.access": {"level": "CRITICAL", "handlers": [], "propagate": False},  # ours: tilefold.access
        },
    }


def gunicorn_logger() -> type:
    """gunicorn's Logger without its access log: the app logs each request itself (logger
    `tilefold.access`, service/http/observe.py) and `logging_config` drops `gunicorn.access`, but
    gunicorn would still build each request's log atoms (a dict of some twenty fields, its time
    formatted) before the logger drops the line: a few per cent of a worker's CPU per request."""
    from gunicorn.glogging import Logger

    class AppLogsRequests(Logger):
        def access(self, resp: Any, req: Any, environ: Any, request_time: Any) -> None:
            return None

    return AppLogsRequests


def configure() -> None:
    """Install `logging_config()` in this process (commands run outside gunicorn)."""
    logging.config.dictConfig(logging_config())
