"""Service settings, read from TILEFOLD_* environment variables with safe defaults."""

from __future__ import annotations

import os
from typing import Any, Mapping

from engine.bot_strong import BUDGET

#: env variable -> (Flask config key, parser, default)
ENV_SETTINGS: dict[str, tuple[str, Any, Any]] = {
    "TILEFOLD_DB": ("DATABASE", str, "tilefold.db"),  # a postgresql:// URL, or a SQLite file
    # PostgreSQL: connections per worker process, and how long a request waits for one (then 503)
    "TILEFOLD_PG_POOL_SIZE": ("PG_POOL_SIZE", int, 10),
    "TILEFOLD_PG_POOL_TIMEOUT": ("PG_POOL_TIMEOUT", float, 30.0),
    # the server's keys, outside the database (service/infra/keys.py): default .<SQLite file name>.keys beside it
    "TILEFOLD_KEYS": ("KEYS", str, None),
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
    "TILEFOLD_WEBHOOK_WORKER": (
        "WEBHOOK_WORKER",
        lambda raw: raw.strip().lower() not in ("0", "false", "no", "off"),
        True,
    ),
    "TILEFOLD_WEBHOOK_ALLOW_PRIVATE": (
        "WEBHOOK_ALLOW_PRIVATE",
        lambda raw: raw.strip().lower() in ("1", "true", "yes", "on"),
        False,
    ),
    # the ticker's pass interval in seconds (service/usecases/ticker.py: deadlines settled within about it)
    "TILEFOLD_TICK_INTERVAL": ("TICK_INTERVAL", float, 1.0),
    "TILEFOLD_STREAM_LIFETIME": ("STREAM_LIFETIME", float, 3600.0),
    "TILEFOLD_STREAM_HEARTBEAT": ("STREAM_HEARTBEAT", float, 15.0),
    # waiting clients (docs/API.md, "Waiting"): caps per worker process, idle stream timeout
    "TILEFOLD_STREAM_IDLE": ("STREAM_IDLE", float, 900.0),
    "TILEFOLD_MAX_WAITERS": ("MAX_WAITERS", int, 5000),
    "TILEFOLD_MAX_WAITERS_PER_ADDRESS": ("MAX_WAITERS_PER_ADDRESS", int, 64),
    "TILEFOLD_WAIT_RETRY_AFTER": ("WAIT_RETRY_AFTER", int, 5),
    # snapshots and bounded replays (docs/STORE.md "Snapshots", docs/API.md "Replay frames")
    "TILEFOLD_SNAPSHOT_EVERY": ("SNAPSHOT_EVERY", int, 100),
    "TILEFOLD_SNAPSHOT_HEAD": (
        "SNAPSHOT_HEAD",
        lambda raw: raw.strip().lower() not in ("0", "false", "no", "off"),
        True,
    ),
    "TILEFOLD_MAX_HANDS": ("MAX_HANDS", int, 64),
    "TILEFOLD_REPLAY_CACHE_BYTES": ("REPLAY_CACHE_BYTES", int, 32 * 1024 * 1024),
    "TILEFOLD_REPLAY_WHOLE_HANDS": ("REPLAY_WHOLE_HANDS", int, 16),
    "TILEFOLD_REVIEW_SAMPLES": ("REVIEW_SAMPLES", int, BUDGET.samples),
    "TILEFOLD_REVIEW_AHEAD": ("REVIEW_AHEAD", int, BUDGET.ahead),
    "TILEFOLD_REVIEW_WAITS": ("REVIEW_WAITS", int, BUDGET.waits),
    # rate limits per client address (service/http/limits.py; None = on, except when TESTING)
    "TILEFOLD_RATE_LIMITS": ("RATE_LIMITS", lambda raw: raw.strip().lower() not in ("0", "false", "no", "off"), None),
    "TILEFOLD_RATE_LIMIT_CREATE": ("RATE_LIMIT_CREATE", str, "30 per minute"),
    "TILEFOLD_RATE_LIMIT_IMPORT": ("RATE_LIMIT_IMPORT", str, "10 per minute"),
    "TILEFOLD_RATE_LIMIT_JOIN": ("RATE_LIMIT_JOIN", str, "60 per minute"),
    "TILEFOLD_RATE_LIMIT_SCORE": ("RATE_LIMIT_SCORE", str, "120 per minute"),
    "TILEFOLD_RATE_LIMIT_ACCOUNT": ("RATE_LIMIT_ACCOUNT", str, "20 per minute"),  # sign-up, sign-in, recovery
    "TILEFOLD_RATE_LIMIT_STORAGE": ("RATE_LIMIT_STORAGE", str, "memory://"),
    # accounts on passkeys (docs/WEB.md, "Accounts"): the WebAuthn relying party's id (a domain) and
    # the origins a ceremony may come from (comma-separated; empty: http://localhost:<any port> for
    # the id localhost, else https://<id>)
    "TILEFOLD_WEBAUTHN_RP_ID": ("WEBAUTHN_RP_ID", str, "localhost"),
    "TILEFOLD_WEBAUTHN_ORIGINS": ("WEBAUTHN_ORIGINS", str, ""),
    # a signed-in device's session: refused this many days after it signed in, or after it last
    # authorised a change (docs/WEB.md, "Accounts")
    "TILEFOLD_SESSION_LIFETIME_DAYS": ("SESSION_LIFETIME_DAYS", float, 180.0),
    "TILEFOLD_SESSION_IDLE_DAYS": ("SESSION_IDLE_DAYS", float, 30.0),
    # Web Push (docs/WEB.md, "Notifications with no tab open"): the VAPID subject push services may contact
    "TILEFOLD_PUSH_SUBJECT": ("PUSH_SUBJECT", str, "mailto:tilefold@localhost"),
    "TILEFOLD_MAX_IMPORT": ("MAX_IMPORT_BYTES", int, 4 * 1024 * 1024),
    # operations (docs/OPERATIONS.md): /metrics on the service's own port; the proxies in front
    "TILEFOLD_METRICS_PUBLIC": ("METRICS_PUBLIC", lambda raw: raw.strip().lower() in ("1", "true", "yes", "on"), False),
    "TILEFOLD_TRUSTED_PROXIES": ("TRUSTED_PROXIES", int, 0),
    "TILEFOLD_PROXY_ADDRESSES": ("PROXY_ADDRESSES", str, "127.0.0.1,::1"),
}


def from_env(env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Flask config values for every TILEFOLD_* setting (defaults where unset)."""
    env = os.environ if env is None else env
    out: dict[str, Any] = {}
    for name, (key, parse, default) in ENV_SETTINGS.items():
        raw = env.get(name)
        out[key] = default if raw in (None, "") else parse(raw)
    return out
