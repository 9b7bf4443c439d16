"""Webhook notices: computed at append time, written to the outbox in the same transaction,
delivered (HMAC-SHA256 signed) by a lazy per-process daemon thread or by `tilefold tick`.

Delivery claims a row atomically (the store's `outbox_claim`, a lease) so no notice is ever being
delivered twice at once, retries with exponential backoff up to a bounded number of attempts,
and never runs inside a request: an action is never slowed down or failed by a receiver.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import os
import secrets
import threading
import ipaddress
import socket
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Optional, Union
from urllib.parse import unquote, urlsplit

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

import engine

from . import metrics
from .clock import iso, later

log = logging.getLogger(__name__)
SIGNATURE_HEADER = "X-Tilefold-Signature"
GAVE_UP = "9999-12-31T23:59:59.999999Z"  # next_attempt_at of a notice whose attempts are used up
LEASE_SECONDS = 120


# -- webhooks ---------------------------------------------------------------------
def check_url(url: str) -> Optional[str]:
    """Why a webhook URL is refused (None when it is acceptable): http/https with a host only."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "not a URL"
    if parts.scheme not in ("http", "https"):
        return "the URL must start with http:// or https://"
    if not parts.hostname:
        return "the URL needs a host"
    if parts.username or parts.password:
        return "credentials in the URL are not allowed"
    return None


NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))  # RFC 6052, 8215


def public_address(address: Union[ipaddress.IPv4Address, ipaddress.IPv6Address]) -> bool:
    """True for a global unicast address, looking through IPv6 forms that carry an IPv4 one
    (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::a.b.c.d, 6to4 2002::/16, Teredo)."""
    if address.is_multicast or not address.is_global:
        return False
    if isinstance(address, ipaddress.IPv6Address):
        if int(address) >> 32 == 0:  # ::/96, IPv4-compatible (::127.0.0.1; deprecated, RFC 4291): never a target
            return False
        inner = address.ipv4_mapped or address.sixtofour or (address.teredo[1] if address.teredo else None)
        if inner is None and any(address in net for net in NAT64):
            inner = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if inner is not None:
            return public_address(inner)
    return True


def refused_destination(url: str, *, resolve: bool = True) -> Optional[str]:
    """Why sending to this URL is refused (SSRF guard), or None: every address the host resolves to
    must be public — not loopback, private, link-local, multicast, reserved, unspecified, nor an
    IPv6 form of such an IPv4 address. The one check for registration and delivery.

    The host is read as the system reads it (`127.1`, `2130706433`, `0x7f000001`, `017700000001`
    and `0` are IPv4 literals to getaddrinfo), after `_plain_host`: a trailing dot, a percent-escape
    or a zone id never hides a loopback or link-local address, at registration as at delivery. With
    `resolve` False (registration), only a real name that does not resolve (yet) is let through:
    delivery checks it again on every attempt."""
    host = urlsplit(url).hostname or ""
    name = _plain_host(host)
    if name == "localhost" or name.endswith(".localhost"):
        return f"{host!r} is a loopback name; see TILEFOLD_WEBHOOK_ALLOW_PRIVATE"
    try:
        literal = ipaddress.ip_address(name.split("%")[0])
    except ValueError:
        literal = None
    if literal is not None and not public_address(literal):  # no resolver needed, whatever `resolve` says
        return f"{host!r} is a non-public address ({literal}); see TILEFOLD_WEBHOOK_ALLOW_PRIVATE"
    try:
        infos = socket.getaddrinfo(name, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError) as exc:
        return f"cannot resolve {host!r}: {exc}" if resolve else None
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if not public_address(address):
            return f"{host!r} resolves to a non-public address ({address}); see TILEFOLD_WEBHOOK_ALLOW_PRIVATE"
    return None


def _bound(stream: str, seat: int) -> bytes:
    """What a sealed secret is bound to (AES-GCM associated data): moved to another row, it fails."""
    return f"tilefold/webhook-secret/{stream}/{seat}".encode()


def _plain_host(host: str) -> str:
    """The host as every spelling of it means it: percent-escapes decoded (`fe80::1%25lo` is
    `fe80::1%lo`, `127.0.0.1%2e` is `127.0.0.1.`), lower case, without trailing dots (`127.0.0.1.`
    and `localhost.` are the same host as without the dot)."""
    return unquote(host).lower().rstrip(".")


def new_secret() -> str:
    return secrets.token_hex(32)


def sign(secret: str, body: bytes) -> str:
    """The signature header value: sha256=<hex HMAC-SHA256 of the raw body>."""
    return "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def verify(secret: str, body: bytes, header: str) -> bool:
    return hmac.compare_digest(sign(secret, body), header or "")


def encode(notice: dict) -> bytes:
    return json.dumps(notice, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


SEALED = "sealed:v1:"  # a webhook secret sealed with AES-GCM under a key outside the database
SEAL_LABEL = "webhook-seal"  # the key directory's key that seals them (Keyring.secret)


class Webhooks:
    """The `tf_webhooks` rows (URL and secret per match stream and seat), through the event store.

    With a `seal_key` (the keyring's, outside the database: service/infra/keys.py) a secret is stored
    sealed — `sealed:v1:` and base64 of a 12-byte nonce and its AES-GCM ciphertext, bound to its
    stream and seat — so a dump of the database or a copy of its file shows no secret. A row stored
    before sealing (plain text) is still read as it is; registering again seals it."""

    def __init__(self, store: Any, seal_key: Optional[bytes] = None) -> None:
        self.store = store
        self._aead = AESGCM(seal_key) if seal_key is not None else None

    def seal(self, stream: str, seat: int, secret: str) -> str:
        if self._aead is None:
            return secret
        nonce = os.urandom(12)
        sealed = self._aead.encrypt(nonce, secret.encode("utf-8"), _bound(stream, seat))
        return SEALED + base64.b64encode(nonce + sealed).decode("ascii")

    def unseal(self, stream: str, seat: int, stored: str) -> str:
        if not stored.startswith(SEALED):
            return stored  # registered before secrets were sealed
        if self._aead is None:
            raise ValueError("a sealed webhook secret needs the key directory it was sealed with (TILEFOLD_KEYS)")
        raw = base64.b64decode(stored[len(SEALED) :])
        return self._aead.decrypt(raw[:12], raw[12:], _bound(stream, seat)).decode("utf-8")

    def writer(
        self, stream: str, seat: int, url: Optional[str], secret: Optional[str], now: str
    ) -> Callable[[Any], None]:
        """`write(conn)` registering (url given) or removing a seat's webhook with its event."""
        stored = None if secret is None else self.seal(stream, seat, secret)

        def write(conn: Any) -> None:
            conn.execute("DELETE FROM tf_webhooks WHERE stream = ? AND seat = ?", [stream, seat])
            if url is not None:
                conn.execute(
                    "INSERT INTO tf_webhooks (stream, seat, url, secret, created_at) VALUES (?, ?, ?, ?, ?)",
                    [stream, seat, url, stored, now],
                )

        return write

    def get(self, stream: str, seat: int) -> Optional[dict]:
        sql = "SELECT url, secret FROM tf_webhooks WHERE stream = ? AND seat = ?"
        rows = self.store.query(sql, [stream, seat])
        return {"url": rows[0][0], "secret": self.unseal(stream, seat, rows[0][1])} if rows else None

    def any(self) -> bool:
        return bool(self.store.query("SELECT 1 FROM tf_webhooks LIMIT 1"))


# -- notices ------------------------------------------------------------------------
def notices(
    match_id: str,
    version: Union[int, Mapping[int, int]],
    seats: Iterable[int],
    engine_events: list[dict],
    after_state: Any,
    new: Iterable[int],
    deadlines: dict[int, Optional[str]],
) -> list[dict]:
    """The notices an append produces for the seats with a webhook, in the order things happened.

    `version`: the match's version after the append, per seat in its own numbering (a mapping seat
    -> version, service/model/numbering.py), or one number for all."""
    seats = sorted(set(seats))
    if not seats:
        return []
    out = []
    for event in engine_events:
        if event["type"] == "hand_ended":
            out += [
                _notice(
                    "hand_ended",
                    match_id,
                    version,
                    seat,
                    hand=event.get("hand"),
                    winner=event.get("winner"),
                    scores=event.get("scores"),
                )
                for seat in seats
            ]
        elif event["type"] == "match_ended":
            out += [_notice("match_ended", match_id, version, seat, scores=event.get("scores")) for seat in seats]
    for seat in sorted(set(new) & set(seats)):
        actions = sorted({act["action"] for act in engine.legal_actions(after_state, seat)})
        out.append(
            _notice(
                "decision",
                match_id,
                version,
                seat,
                phase=after_state.phase,
                actions=actions,
                deadline=deadlines.get(seat),
            )
        )
    return out


PUSH_KINDS = ("your_turn", "hand_ended", "match_ended")


def push_notices(
    match_id: str, version: int, seats: Iterable[int], engine_events: list[dict], new: Iterable[int]
) -> list[dict]:
    """The push notices of an append for these seats (service/usecases/push.py delivers them to the
    devices of the account holding the seat): `your_turn` for a seat newly asked to act, whatever
    the decision is; `hand_ended`, `match_ended` for every seat. Nothing else: no phase, no action."""
    seats = sorted(set(seats))
    out = []
    for event in engine_events:
        if event["type"] in ("hand_ended", "match_ended"):
            out += [_push(event["type"], match_id, version, seat) for seat in seats]
    out += [_push("your_turn", match_id, version, seat) for seat in sorted(set(new) & set(seats))]
    return out


def _push(kind: str, match_id: str, version: int, seat: int) -> dict:
    return {"notice_id": f"{match_id}:{version}:{seat}:push-{kind}", "push": kind, "match": match_id, "seat": seat}


def _notice(kind: str, match_id: str, versions: Union[int, Mapping[int, int]], seat: int, **fields: Any) -> dict:
    version = versions if isinstance(versions, int) else versions[seat]
    return {
        "notice_id": f"{match_id}:{version}:{seat}:{kind}",
        "kind": kind,
        "match": match_id,
        "seat": seat,
        "version": version,
        **fields,
    }


# -- delivery -----------------------------------------------------------------------
@dataclass
class DeliverySettings:
    timeout: float = 5.0  # seconds per HTTP attempt
    attempts: int = 8  # then the notice is given up
    backoff: float = 10.0  # seconds before the 2nd attempt; doubles each time
    max_backoff: float = 3600.0
    poll: float = 1.0  # how often an idle worker looks for due notices
    allow_private: bool = False  # deliver to loopback/private addresses (tests, a private network)


class Notifier:
    """Delivers due outbox notices; one lazy daemon worker thread per process."""

    def __init__(
        self, store: Any, webhooks: Webhooks, clock: Any, settings: DeliverySettings, worker: bool = True
    ) -> None:
        self.store, self.webhooks, self.clock = store, webhooks, clock
        #: delivers a push notice (service/usecases/push.py, set by the app): None when done, else why not
        self.push: Optional[Callable[[dict], Optional[str]]] = None
        self.settings, self.worker_enabled = settings, worker
        self._wake = threading.Event()
        self._worker_pid: Optional[int] = None
        self._lock = threading.Lock()
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())

    # -- the worker ---------------------------------------------------------------
    def ensure_worker(self) -> None:
        """Start this process's delivery thread if it is not running (after fork, too)."""
        if not self.worker_enabled or self._worker_pid == os.getpid():
            return
        with self._lock:
            if self._worker_pid == os.getpid():
                return
            self._worker_pid = os.getpid()
            threading.Thread(target=self._run, name="tilefold-notify", daemon=True).start()

    def wake(self) -> None:
        self.ensure_worker()
        self._wake.set()

    def _run(self) -> None:
        while True:
            try:
                busy = self.deliver_due() > 0
            except Exception:  # noqa: BLE001 - the worker must survive anything
                log.exception("notice delivery failed")
                busy = False
            if not busy:
                self._wake.wait(self.settings.poll)
                self._wake.clear()

    # -- one pass -----------------------------------------------------------------
    def deliver_due(self, limit: int = 50) -> int:
        """Claim and deliver every due notice (up to `limit`); returns how many were attempted."""
        now = iso(self.clock.now())
        attempted = 0
        for item in self.store.outbox_pending(now, limit):
            if not isinstance(item.payload, dict) or "notice_id" not in item.payload:
                continue
            if not self.store.outbox_claim(item.id, now, later(now, LEASE_SECONDS)):
                continue  # another worker is delivering it
            attempted += 1
            self._deliver(item)
        return attempted

    def _deliver(self, item: Any) -> None:
        """Post one claimed notice; marking it delivered or failed ends the lease."""
        notice = item.payload
        if "push" in notice:
            error = self.push(notice) if self.push is not None else None
        else:
            hook = self.webhooks.get(item.stream, notice["seat"])
            if hook is None:  # unregistered since: nothing to deliver
                self.store.outbox_mark_delivered(item.id, self.clock.now())
                return
            body = encode(notice)
            error = None if self.settings.allow_private else refused_destination(hook["url"])
            error = error or self._post(hook["url"], hook["secret"], body, item.id)
        if error is None:
            self.store.outbox_mark_delivered(item.id, self.clock.now())
            metrics.NOTICES.labels("sent").inc()
        else:
            attempts = item.attempts + 1
            metrics.NOTICES.labels("gave_up" if attempts >= self.settings.attempts else "failed").inc()
            if attempts >= self.settings.attempts:
                log.warning("giving up notice %s after %d attempts: %s", notice["notice_id"], attempts, error)
                self.store.outbox_mark_failed(item.id, GAVE_UP)
            else:
                delay = min(self.settings.max_backoff, self.settings.backoff * 2 ** (attempts - 1))
                self.store.outbox_mark_failed(item.id, later(self.clock.now(), delay))

    def _post(self, url: str, secret: str, body: bytes, item_id: int) -> Optional[str]:
        request = urllib.request.Request(
            url,
            data=body,
            method="POST",
            headers={
                "Content-Type": "application/json",
                "User-Agent": "tilefold-webhook/1",
                SIGNATURE_HEADER: sign(secret, body),
                "X-Tilefold-Delivery": str(item_id),
            },
        )
        try:
            with self._opener.open(request, timeout=self.settings.timeout) as response:
                response.read(65536)
                return None if 200 <= response.status < 300 else f"HTTP {response.status}"
        except urllib.error.HTTPError as exc:
            return f"HTTP {exc.code}"
        except (OSError, ValueError) as exc:  # refused, timed out, DNS, bad URL
            return f"{type(exc).__name__}: {exc}"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is a failed delivery (a POST must not silently become a GET elsewhere)."""

    def redirect_request(self, *args, **kwargs):
        return None
