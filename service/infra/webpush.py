"""Web Push (RFC 8030) to a device's push service: the payload encrypted for the device (RFC 8291,
aes128gcm, pywebpush's `WebPusher.encode`), the request signed with the server's VAPID key (RFC 8292,
py_vapid; the key in the key directory: service/infra/keys.py), posted like a webhook notice (no
proxy, no redirect, the SSRF guard of service/infra/notify.py unless private addresses are allowed).

What is sent is built by the caller (service/usecases/push.py); this module only checks a
subscription's shape, pads the payload to one fixed length and delivers it.
"""

from __future__ import annotations

import base64
import json
import time
import urllib.error
import urllib.request
from typing import Any, Optional
from urllib.parse import urlsplit

from py_vapid import Vapid02

from .notify import _NoRedirect, refused_destination

PAYLOAD_BYTES = 192  # every payload is padded to this many bytes: its length says nothing
TTL_SECONDS = 24 * 3600  # a device offline for a day still gets it
MAX_ENDPOINT = 1024
GONE = "gone"  # the push service says the subscription has ended (404/410): forget it


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def check_subscription(subscription: Any, allow_private: bool = False) -> Optional[str]:
    """Why a browser's PushSubscription (its toJSON(): endpoint, keys.p256dh, keys.auth) is refused,
    or None."""
    if not isinstance(subscription, dict) or not isinstance(subscription.get("keys"), dict):
        return "send the browser's PushSubscription as JSON: endpoint and keys"
    endpoint, keys = subscription.get("endpoint"), subscription["keys"]
    if not isinstance(endpoint, str) or not 0 < len(endpoint) <= MAX_ENDPOINT:
        return "the subscription needs an endpoint URL"
    parts = urlsplit(endpoint)
    if parts.scheme != "https" and not (allow_private and parts.scheme == "http"):
        return "a push endpoint must be an https:// URL"
    if not parts.hostname or parts.username or parts.password:
        return "the push endpoint needs a host and no credentials"
    if not allow_private and refused_destination(endpoint, resolve=False):
        return "the push endpoint is not a public address"
    try:
        p256dh, auth = _unb64(str(keys.get("p256dh", ""))), _unb64(str(keys.get("auth", "")))
    except ValueError:
        return "the subscription's keys are not base64url"
    if len(p256dh) != 65 or p256dh[0] != 4 or len(auth) != 16:
        return "the subscription's keys are not a P-256 point and a 16-byte secret"
    return None


def pad(payload: dict) -> bytes:
    """The payload as JSON, padded with spaces to PAYLOAD_BYTES (longer: refused)."""
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    if len(text) > PAYLOAD_BYTES:
        raise ValueError(f"a push payload is at most {PAYLOAD_BYTES} bytes")
    return text + b" " * (PAYLOAD_BYTES - len(text))


class PushSender:
    """Posts encrypted payloads to push services, signed with one VAPID key."""

    def __init__(self, vapid_pem: bytes, subject: str, timeout: float = 5.0, allow_private: bool = False) -> None:
        self.vapid = Vapid02.from_pem(vapid_pem)
        self.subject, self.timeout, self.allow_private = subject, timeout, allow_private
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())

    def send(self, subscription: dict, data: bytes) -> Optional[str]:
        """Deliver `data` (padded already) to one device: None when the push service took it, GONE
        when the subscription has ended, else why it failed (to retry)."""
        endpoint = str(subscription["endpoint"])
        error = None if self.allow_private else refused_destination(endpoint)
        if error:
            return error
        from pywebpush import WebPusher  # here, at the first push: it imports aiohttp, a quarter of a worker's start-up

        body = WebPusher(subscription).encode(data, "aes128gcm")["body"]
        parts = urlsplit(endpoint)
        claims = {"sub": self.subject, "aud": f"{parts.scheme}://{parts.netloc}", "exp": int(time.time()) + 12 * 3600}
        headers = {
            "Content-Type": "application/octet-stream",
            "Content-Encoding": "aes128gcm",
            "TTL": str(TTL_SECONDS),
            "Urgency": "normal",
            "User-Agent": "tilefold-push/1",
            **self.vapid.sign(claims),
        }
        request = urllib.request.Request(endpoint, data=body, method="POST", headers=headers)
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                response.read(65536)
                return None if 200 <= response.status < 300 else f"HTTP {response.status}"
        except urllib.error.HTTPError as exc:
            return GONE if exc.code in (404, 410) else f"HTTP {exc.code}"
        except (OSError, ValueError) as exc:
            return f"{type(exc).__name__}: {exc}"
