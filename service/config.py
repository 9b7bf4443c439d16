"""Service settings, read from TILEFOLD_* environment variables with safe defaults."""
from __future__ import annotations

import os
from typing import Any, Mapping

#: env variable -> (Flask config key, parser, default)
ENV_SETTINGS: dict[str, tuple[str, Any, Any]] = {
    "TILEFOLD_DB": ("DATABASE", str, "tilefold.db"),  # a postgresql:// URL, or a SQLite file
    "TILEFOLD_MAX_BODY": ("MAX_CONTENT_LENGTH", int, 64 * 1024),
    "TILEFOLD_BOT_DELAY": ("BOT_DELAY", float, 0.0),
    "TILEFOLD_MAX_WAIT": ("MAX_WAIT", float, 30.0),
    "TILEFOLD_POLL_INTERVAL": ("POLL_INTERVAL", float, 0.05),
    "TILEFOLD_CACHE_SIZE": ("CACHE_SIZE", int, 512),
    "TILEFOLD_SYNCHRONOUS": ("SYNCHRONOUS", str, "DURABLE"),
    "TILEFOLD_LIST_LIMIT": ("LIST_LIMIT", int, 100),
    # correspondence play (docs/API.md)
    "TILEFOLD_WEBHOOK_TIMEOUT": ("WEBHOOK_TIMEOUT", float, 5.0),
    "TILEFOLD_WEBHOOK_ATTEMPTS": ("WEBHOOK_ATTEMPTS", int, 8),
    "TILEFOLD_WEBHOOK_BACKOFF": ("WEBHOOK_BACKOFF", float, 10.0),
    "TILEFOLD_WEBHOOK_POLL": ("WEBHOOK_POLL", float, 1.0),
    "TILEFOLD_WEBHOOK_WORKER": ("WEBHOOK_WORKER", lambda raw: raw.strip().lower() not in ("0", "false", "no", "off"), True),
    "TILEFOLD_WEBHOOK_ALLOW_PRIVATE": ("WEBHOOK_ALLOW_PRIVATE", lambda raw: raw.strip().lower() in ("1", "true", "yes", "on"), False),
    "TILEFOLD_STREAM_LIFETIME": ("STREAM_LIFETIME", float, 60.0),
    "TILEFOLD_STREAM_HEARTBEAT": ("STREAM_HEARTBEAT", float, 15.0),
}


def from_env(env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Flask config values for every TILEFOLD_* setting (defaults where unset)."""
    env = os.environ if env is None else env
    out: dict[str, Any] = {}
    for name, (key, parse, default) in ENV_SETTINGS.items():
        raw = env.get(name)
        out[key] = default if raw in (None, "") else parse(raw)
    return out
