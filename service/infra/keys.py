"""The server's keys, kept in a directory outside the database (never in the event tables).

* **Signing keys** (Ed25519, `cryptography`): `signing/<key id>.pem`, one per generation; the file
  `current` names the one that signs now. `rotate()` makes a new one current; the old ones stay,
  so their public keys are still listed (`GET /api/keys`) and old matches still verify. A key id is
  the first 16 hex digits of SHA-256 over the raw 32-byte public key.
* **The master secret** (`master.key`, 32 random bytes): never used directly; `secret(label)`
  derives one key per purpose from it (HMAC-SHA256): sealing webhook secrets, the server's part of
  each match's walls. Losing it loses those (registered webhooks must be registered again; a match
  in play cannot deal its next hand); it is not rotated with the signing key.
* **The VAPID key** (`vapid.pem`, ECDSA P-256): signs Web Push requests (RFC 8292); browsers
  subscribe with its public key (`vapid_public`). Losing it ends every push subscription (devices
  subscribe again from the account page).

The directory is TILEFOLD_KEYS (default: beside a SQLite file, `.<file name>.keys`; `tilefold-keys` for
PostgreSQL). Every node of a deployment must share it. It is created on first start (mode 0700,
files 0600); two processes starting at once agree on one key (files are created exclusively).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ..model import signatures

MASTER = "master.key"
VAPID = "vapid.pem"
CURRENT = "current"
SIGNING = "signing"


def default_directory(database: str) -> str:
    """Where the keys live when TILEFOLD_KEYS is unset: beside a SQLite file, else ./tilefold-keys."""
    if database.startswith(("postgresql://", "postgres://")) or database in ("", ":memory:"):
        return "tilefold-keys"
    folder, name = os.path.split(database)
    return os.path.join(folder, f".{name}.keys")


def keyring_for(settings: dict) -> "Keyring":
    """The keyring of a configuration (Flask config keys KEYS and DATABASE)."""
    return Keyring(settings.get("KEYS") or default_directory(str(settings["DATABASE"])))


@dataclass(frozen=True)
class SigningKey:
    key_id: str
    private: Ed25519PrivateKey

    @property
    def public(self) -> Ed25519PublicKey:
        return self.private.public_key()


class Keyring:
    """The keys in one directory; created on first use."""

    def __init__(self, directory: str | os.PathLike) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        (self.directory / SIGNING).mkdir(mode=0o700, exist_ok=True)
        self._master = self._master_secret()
        self._signing: dict[str, SigningKey] = {}
        if self._current_id() is None:
            self._new_current()

    # -- the master secret and what is derived from it ----------------------------------
    def _master_secret(self) -> bytes:
        path = self.directory / MASTER
        _create_exclusive(path, secrets.token_hex(32).encode())
        return bytes.fromhex(path.read_text().strip())

    def secret(self, label: str) -> bytes:
        """A 32-byte key for one purpose, derived from the master secret."""
        return hmac.new(self._master, b"tilefold/key/" + label.encode(), hashlib.sha256).digest()

    # -- the VAPID key (Web Push) ------------------------------------------------------
    def vapid_pem(self) -> bytes:
        """The VAPID private key (PKCS#8 PEM), made on first use."""
        path = self.directory / VAPID
        if not path.exists():
            key = ec.generate_private_key(ec.SECP256R1())
            pem = key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
            _create_exclusive(path, pem)
        return path.read_bytes()

    def vapid_public(self) -> str:
        """The VAPID public key as browsers take it (`applicationServerKey`): base64url of the
        uncompressed P-256 point."""
        private = serialization.load_pem_private_key(self.vapid_pem(), password=None)
        assert isinstance(private, ec.EllipticCurvePrivateKey)
        raw = private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")

    # -- signing keys -----------------------------------------------------------------
    def _current_id(self) -> Optional[str]:
        path = self.directory / CURRENT
        return path.read_text().strip() if path.exists() else None

    def _new_key(self) -> str:
        key = Ed25519PrivateKey.generate()
        key_id = signatures.key_id(key.public_key())
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        _create_exclusive(self.directory / SIGNING / f"{key_id}.pem", pem)
        return key_id

    def _new_current(self) -> None:
        """The first start: a key becomes current, unless another process made one meanwhile."""
        key_id = self._new_key()
        _create_exclusive(self.directory / CURRENT, (key_id + "\n").encode())
        if self._current_id() != key_id:
            (self.directory / SIGNING / f"{key_id}.pem").unlink()

    def rotate(self) -> str:
        """A new signing key becomes current; the old ones stay for verifying. Returns the new id."""
        key_id = self._new_key()
        tmp = self.directory / f".{CURRENT}.{secrets.token_hex(4)}"
        tmp.write_text(key_id + "\n")
        os.replace(tmp, self.directory / CURRENT)
        return key_id

    def signing_key(self, key_id: Optional[str] = None) -> SigningKey:
        key_id = key_id or self._current_id()
        if key_id is None:
            raise KeyError("no signing key")
        if key_id not in self._signing:
            pem = (self.directory / SIGNING / f"{key_id}.pem").read_bytes()
            private = serialization.load_pem_private_key(pem, password=None)
            assert isinstance(private, Ed25519PrivateKey)
            self._signing[key_id] = SigningKey(key_id, private)
        return self._signing[key_id]

    def current(self) -> SigningKey:
        return self.signing_key()

    def public_keys(self) -> dict[str, Ed25519PublicKey]:
        """Every signing key's public key by id: the current one and every rotated-out one."""
        return {
            path.stem: self.signing_key(path.stem).public for path in sorted((self.directory / SIGNING).glob("*.pem"))
        }

    def describe(self) -> list[dict]:
        """The public keys as `GET /api/keys` lists them (current first)."""
        current = self._current_id()
        keys = self.public_keys()
        order = sorted(keys, key=lambda k: (k != current, k))
        return [
            {
                "id": key_id,
                "algorithm": "Ed25519",
                "public_key": signatures.public_text(keys[key_id]),
                "current": key_id == current,
            }
            for key_id in order
        ]

    def sign_head(self, stream: str, version: int, head_hash: str, signed_at: str) -> dict:
        """A signature record over a stream's head (docs/AUDIT.md, "Signed records")."""
        key = self.current()
        value = key.private.sign(signatures.message(stream, version, head_hash))
        return {
            "stream": stream,
            "version": version,
            "hash": head_hash,
            "key_id": key.key_id,
            "algorithm": "Ed25519",
            "signed_at": signed_at,
            "value": base64.b64encode(value).decode("ascii"),
        }


def _create_exclusive(path: Path, data: bytes) -> None:
    """Write `data` to a new file readable by its owner only; leave an existing file alone. The
    file appears whole or not at all (written aside, then linked into place), so a process starting
    at the same moment never reads it half written."""
    if path.exists():
        return
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    try:
        os.link(tmp, path)  # fails if another process linked its file first: theirs stands
    except FileExistsError:
        pass
    finally:
        tmp.unlink()
