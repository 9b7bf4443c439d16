"""The seeded wall of G-11: a deterministic shuffle from a secret seed, its commitment and verification.

The seed is 32 secret bytes; the engine never draws randomness itself. In a match of the joint
protocol (G-11, "joint walls": docs/AUDIT.md) the seed of hand n is `joint_seed`: HMAC-SHA256 keyed
by the server's part for that hand over the hand number and every seat's part, and the server's
parts are the links of a hash chain whose end it committed to before any seat joined
(`chain_step`: each part hashes to the one before it, the first to the commitment). Without the
joint protocol (matches of earlier versions) the service chose the seed itself.

From the seed an HMAC-SHA256 counter stream feeds an unbiased Fisher-Yates shuffle (rejection
sampling, no modulo bias) and the wild kind of G-9. The commitment published at hand start is
SHA-256 over a salt derived from the seed and the wall's tile names, so it reveals nothing about
the wall, yet binds the server to it before the first draw.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from dataclasses import dataclass
from typing import Optional, Sequence

from engine.tiles import KIND_NAMES, NUM_KINDS, full_set

SEED_BYTES = 32
PART_BYTES = 32  # a seat's part and each link of the server's chain
CHAIN_LENGTH = 2048  # hands one commitment covers (a match is capped far below: TILEFOLD_MAX_HANDS)
_DOMAIN = b"tilefold/wall/v1"
_JOINT = b"tilefold/wall/v2"


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
            block = hmac.digest(self._key, self._prefix + self._counter.to_bytes(8, "big"), "sha256")
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

    def shuffle(self, items: list[int]) -> None:
        """Fisher-Yates in place, j = below(i + 1) for i from the last index down to 1 (the same
        draws as calling `below`, read here in one loop: a deal runs it once per hand)."""
        key, prefix, counter, words = self._key, self._prefix, self._counter, self._words
        for i in range(len(items) - 1, 0, -1):
            bound = i + 1
            limit = (1 << 32) - ((1 << 32) % bound)
            while True:
                if not words:
                    block = hmac.digest(key, prefix + counter.to_bytes(8, "big"), "sha256")
                    counter += 1
                    words = list(reversed(struct.unpack(">8I", block)))
                x = words.pop()
                if x < limit:
                    break
            j = x % bound
            items[i], items[j] = items[j], items[i]
        self._counter, self._words = counter, words


def shuffle_wall(seed: bytes) -> list[int]:
    """The 136-tile wall for a seed, head first (G-3, G-11)."""
    wall = full_set()
    _Stream(seed, b"shuffle").shuffle(wall)
    return wall


def wild_kind(seed: bytes) -> int:
    """The hand's wild kind, uniform over the 34 kinds (G-9), from its own stream of the seed."""
    return _Stream(seed, b"wild").below(NUM_KINDS)


def salt_for(seed: bytes) -> bytes:
    return hmac.digest(seed, _DOMAIN + b"/salt", "sha256")


def commitment(salt: bytes, wall: Sequence[int]) -> str:
    """SHA-256 hex over the salt and the wall written as tile names joined by spaces."""
    text = " ".join(map(KIND_NAMES.__getitem__, wall)).encode()  # tile names (engine.tiles.name)
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


# -- joint walls (G-11): the server's committed chain and every seat's part ------------------
def part_from_hex(part_hex: object, what: str = "part") -> bytes:
    try:
        part = bytes.fromhex(part_hex)  # type: ignore[arg-type]  # TypeError below for a non-str
    except (ValueError, TypeError):
        raise SeedError(f"{what} must be hex") from None
    if len(part) != PART_BYTES:
        raise SeedError(f"{what} must be {PART_BYTES} bytes ({2 * PART_BYTES} hex digits)")
    return part


def chain_step(part: bytes) -> bytes:
    """The link before `part` in the server's chain: SHA-256 over a label and the part."""
    return hashlib.sha256(_JOINT + b"/chain/" + part).digest()


def chain(root: bytes, length: int = CHAIN_LENGTH) -> list[bytes]:
    """[commitment, part of hand 1, part of hand 2, …, part of hand `length`] from a secret root:
    the part of hand n is `chain_step` applied length−n times to the root, so each part hashes to
    the one before it and revealing one tells nothing of the next (SHA-256 is one-way)."""
    links = [root]
    for _ in range(length):
        links.append(chain_step(links[-1]))
    return links[::-1]


def links_to(part: bytes, previous_hex: str) -> bool:
    """True when `part` is the link after `previous_hex` (the commitment, or the last hand's part)."""
    return hmac.compare_digest(chain_step(part).hex(), previous_hex)


def joint_seed(server_part: bytes, hand: int, seat_parts: Sequence[Optional[bytes]]) -> bytes:
    """Hand `hand`'s seed: HMAC-SHA256 keyed by the server's part over the hand number and the four
    seats' parts in seat order (a seat without a part is one 0x00 byte; one with a part is 0x01 and
    its 32 bytes), so every part changes the seed and no part can stand in for another."""
    message = _JOINT + b"/seed/" + hand.to_bytes(8, "big")
    for part in seat_parts:
        message += b"\x00" if part is None else b"\x01" + part
    return hmac.new(server_part, message, hashlib.sha256).digest()


def joint_parts(parts: object) -> tuple[bytes, list[Optional[bytes]]]:
    """The server's part and the four seats' parts of a `{"server": hex, "seats": [hex|None × 4]}`."""
    if not isinstance(parts, dict) or not isinstance(parts.get("seats"), list) or len(parts["seats"]) != 4:
        raise SeedError('wall parts must be {"server": hex, "seats": [hex or null, ×4]}')
    server = part_from_hex(parts.get("server"), "the server's part")
    seats = [None if p is None else part_from_hex(p, f"seat {i}'s part") for i, p in enumerate(parts["seats"])]
    return server, seats


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
