"""The seeded wall of G-11: a deterministic shuffle from a secret seed, its commitment and verification.

The seed is 32 secret bytes chosen by the service (from `secrets`); the engine never draws
randomness itself. From the seed an HMAC-SHA256 counter stream feeds an unbiased Fisher-Yates
shuffle (rejection sampling, no modulo bias) and the wild kind of G-9. The commitment published
at hand start is SHA-256 over a salt derived from the seed and the wall's tile names, so it
reveals nothing about the wall, yet binds the server to it before the first draw.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from dataclasses import dataclass
from typing import Sequence

from engine.tiles import NUM_KINDS, full_set, name

SEED_BYTES = 32
_DOMAIN = b"tilefold/wall/v1"


class SeedError(ValueError):
    """A seed that is not 32 bytes of hex."""


def seed_from_hex(seed_hex: object) -> bytes:
    try:
        seed = bytes.fromhex(seed_hex)  # type: ignore[arg-type]  # TypeError below for a non-str
    except (ValueError, TypeError):
        raise SeedError("seed must be hex") from None
    if len(seed) != SEED_BYTES:
        raise SeedError(f"seed must be {SEED_BYTES} bytes ({2 * SEED_BYTES} hex digits)")
    return seed


class _Stream:
    """An endless HMAC-SHA256 stream keyed by the seed, for one purpose label, read as 32-bit words.

    Block n is HMAC(seed, domain/label/n); its 32 bytes are eight big-endian words, read in order.
    """

    def __init__(self, seed: bytes, label: bytes):
        self._key = seed
        self._prefix = _DOMAIN + b"/" + label + b"/"
        self._counter = 0
        self._words: list[int] = []

    def _word(self) -> int:
        if not self._words:
            block = hmac.new(self._key, self._prefix + self._counter.to_bytes(8, "big"), hashlib.sha256).digest()
            self._counter += 1
            self._words = list(reversed(struct.unpack(">8I", block)))
        return self._words.pop()

    def below(self, bound: int) -> int:
        """A uniform integer in [0, bound) by rejection sampling on 32-bit draws."""
        limit = (1 << 32) - ((1 << 32) % bound)
        while True:
            x = self._word()
            if x < limit:
                return x % bound


def shuffle_wall(seed: bytes) -> list[int]:
    """The 136-tile wall for a seed, head first (G-3, G-11)."""
    wall = full_set()
    stream = _Stream(seed, b"shuffle")
    for i in range(len(wall) - 1, 0, -1):
        j = stream.below(i + 1)
        wall[i], wall[j] = wall[j], wall[i]
    return wall


def wild_kind(seed: bytes) -> int:
    """The hand's wild kind, uniform over the 34 kinds (G-9), from its own stream of the seed."""
    return _Stream(seed, b"wild").below(NUM_KINDS)


def salt_for(seed: bytes) -> bytes:
    return hmac.new(seed, _DOMAIN + b"/salt", hashlib.sha256).digest()


def commitment(salt: bytes, wall: Sequence[int]) -> str:
    """SHA-256 hex over the salt and the wall written as tile names joined by spaces."""
    text = " ".join(name(k) for k in wall).encode()
    return hashlib.sha256(salt + text).hexdigest()


@dataclass(frozen=True)
class SeededDeal:
    seed_hex: str
    wall: list[int]
    wild: int
    commitment: str


def deal_from_seed(seed: bytes) -> SeededDeal:
    wall = shuffle_wall(seed)
    return SeededDeal(seed.hex(), wall, wild_kind(seed), commitment(salt_for(seed), wall))


def verify(seed_hex: str, published_commitment: str, played_wall: Sequence[int]) -> bool:
    """True only if the seed derives exactly the played wall and matches the commitment."""
    try:
        seed = seed_from_hex(seed_hex)
    except SeedError:
        return False
    wall = shuffle_wall(seed)
    if list(played_wall) != wall:
        return False
    return hmac.compare_digest(commitment(salt_for(seed), wall), published_commitment)
