"""A software passkey for the service tests: it answers WebAuthn options as an authenticator and a
browser would (P-256, "none" attestation, user present and verified), so the use cases and the
routes are tested without a browser; the browser tests use Chromium's virtual authenticator."""

from __future__ import annotations

import base64
import hashlib
import json
import os
from typing import Any, Optional

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

ORIGIN = "http://localhost:5000"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Passkey:
    """One credential on one device; `count` is its signature counter."""

    def __init__(self, rp_id: str = "localhost") -> None:
        self.rp_id = rp_id
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(16)
        self.count = 0
        self.user_handle: Optional[bytes] = None

    @property
    def id(self) -> str:
        return b64(self.credential_id)

    def _client_data(self, kind: str, challenge: str, origin: str) -> bytes:
        return json.dumps({"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": False}).encode()

    def create(self, options: dict, origin: str = ORIGIN, rp_id: Optional[str] = None) -> dict:
        """The credential navigator.credentials.create would give for these options."""
        numbers = self.key.public_key().public_numbers()
        cose = cbor2.dumps({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")})
        attested = bytes(16) + len(self.credential_id).to_bytes(2, "big") + self.credential_id + cose
        auth_data = self._auth_data(0x45, rp_id) + attested
        self.user_handle = unb64(options["user"]["id"])
        client_data = self._client_data("webauthn.create", options["challenge"], origin)
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        return {
            "id": self.id,
            "rawId": self.id,
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(client_data),
                "attestationObject": b64(attestation),
                "transports": ["internal"],
            },
            "clientExtensionResults": {},
        }

    def get(self, options: dict, origin: str = ORIGIN, rp_id: Optional[str] = None) -> dict:
        """The assertion navigator.credentials.get would give for these options."""
        self.count += 1
        auth_data = self._auth_data(0x05, rp_id)
        client_data = self._client_data("webauthn.get", options["challenge"], origin)
        signature = self.key.sign(auth_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))
        response: dict[str, Any] = {
            "clientDataJSON": b64(client_data),
            "authenticatorData": b64(auth_data),
            "signature": b64(signature),
        }
        if self.user_handle is not None:
            response["userHandle"] = b64(self.user_handle)
        return {
            "id": self.id,
            "rawId": self.id,
            "type": "public-key",
            "response": response,
            "clientExtensionResults": {},
        }

    def _auth_data(self, flags: int, rp_id: Optional[str]) -> bytes:
        rp_hash = hashlib.sha256((rp_id or self.rp_id).encode()).digest()
        return rp_hash + bytes([flags]) + self.count.to_bytes(4, "big")
