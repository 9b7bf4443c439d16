"""Signed chain heads: what the server signs, and how anyone checks it with its public keys.

A signature covers one stream's head: `tilefold/signed-head/v1\n` followed by the canonical JSON of
`{"hash", "stream", "version"}`. The hash of a row covers every row before it (events.chain), so a
signature on the head after a hand proves every row up to it. Public keys are the raw 32 bytes of
an Ed25519 key in base64 (or a PEM file); a key id is the first 16 hex digits of their SHA-256.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from typing import Any, Mapping, Optional

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from events import canonical_json

DOMAIN = b"tilefold/signed-head/v1\n"
FIELDS = ("stream", "version", "hash", "key_id", "algorithm", "signed_at", "value")


class PublicKeyError(ValueError):
    """A public key that cannot be read."""


def _raw(public: Ed25519PublicKey) -> bytes:
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id(public: Ed25519PublicKey) -> str:
    return hashlib.sha256(_raw(public)).hexdigest()[:16]


def public_text(public: Ed25519PublicKey) -> str:
    return base64.b64encode(_raw(public)).decode("ascii")


def load_public(text: str) -> Ed25519PublicKey:
    """A public key from base64 of its 32 raw bytes, or from PEM."""
    text = text.strip()
    if text.startswith("-----BEGIN"):
        try:
            key = serialization.load_pem_public_key(text.encode())
        except ValueError as exc:
            raise PublicKeyError(f"not a PEM public key: {exc}") from None
        if not isinstance(key, Ed25519PublicKey):
            raise PublicKeyError("not an Ed25519 public key")
        return key
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise PublicKeyError("not base64 of a 32-byte Ed25519 public key, nor PEM") from None
    if len(raw) != 32:
        raise PublicKeyError("an Ed25519 public key is 32 bytes")
    return Ed25519PublicKey.from_public_bytes(raw)


def message(stream: str, version: int, head_hash: str) -> bytes:
    return DOMAIN + canonical_json({"hash": head_hash, "stream": stream, "version": version}).encode()


def is_signature_line(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"signature"} and isinstance(value["signature"], dict)


def check(record: Mapping[str, Any], keys: Mapping[str, Ed25519PublicKey]) -> Optional[str]:
    """None when `record` is a valid signature by one of `keys` (by id), else why not."""
    key = keys.get(str(record.get("key_id")))
    if key is None:
        return f"signed by key {record.get('key_id')!r}, which is not one of the keys given"
    try:
        value = base64.b64decode(str(record.get("value")), validate=True)
        key.verify(value, message(str(record.get("stream")), int(record.get("version")), str(record.get("hash"))))  # type: ignore[arg-type]
    except (InvalidSignature, binascii.Error, ValueError, TypeError):
        return f"the signature by key {record.get('key_id')} at version {record.get('version')} is not valid"
    return None
