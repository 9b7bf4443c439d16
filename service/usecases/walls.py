"""Joint walls (G-11, docs/AUDIT.md "Joint walls"): the server's part of every hand's wall.

When a match is created the server commits to a hash chain (engine.wall.chain) whose secret root is
derived from a key outside the database and the match id, and publishes its end in
`match_created.wall_commitment` before any seat joins. Hand n is dealt from the chain's n-th link and
every seat's part (taken when the seat joins; bots and seats that sent none add nothing). The
randomness is made here, in the service; the engine only hashes (engine/wall.py).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from collections import OrderedDict
from typing import Any, Optional, Sequence

from engine.wall import CHAIN_LENGTH, chain

from ..infra.keys import Keyring

_CACHE_SIZE = 64
_chains: OrderedDict[tuple[str, str], list[bytes]] = OrderedDict()
_lock = threading.Lock()


def _chain(keyring: Keyring, match_id: str) -> list[bytes]:
    """The match's chain (commitment first), kept for the last few matches dealt in this worker."""
    key = (str(keyring.directory), match_id)
    with _lock:
        found = _chains.get(key)
        if found is not None:
            _chains.move_to_end(key)
            return found
    root = hmac.new(keyring.secret("wall"), b"match/" + match_id.encode(), hashlib.sha256).digest()
    links = chain(root, CHAIN_LENGTH)
    with _lock:
        _chains[key] = links
        while len(_chains) > _CACHE_SIZE:
            _chains.popitem(last=False)
    return links


def commitment(keyring: Optional[Keyring], match_id: str) -> Optional[str]:
    """The match's published commitment (None without a keyring: walls from server seeds)."""
    return None if keyring is None else _chain(keyring, match_id)[0].hex()


def deal_command(
    keyring: Optional[Keyring], match_id: str, committed: Optional[str], hand: int, seat_parts: Sequence[Optional[str]]
) -> dict[str, Any]:
    """The command that deals hand `hand`: joint walls when the match committed to a chain (its
    `match_created` says so), else a fresh server seed (matches created before joint walls)."""
    if committed is None or keyring is None:
        return {"action": "start_hand", "seed": secrets.token_hex(32)}
    links = _chain(keyring, match_id)
    if links[0].hex() != committed:
        raise RuntimeError("the wall key is not the one this match committed with (TILEFOLD_KEYS changed?)")
    if hand >= len(links):
        raise RuntimeError(f"hand {hand} is past the {CHAIN_LENGTH} hands one wall commitment covers")
    return {"action": "start_hand", "wall": {"server": links[hand].hex(), "seats": list(seat_parts)}}


def new_part() -> str:
    """A part the server makes for a client that asked it to (never used for a seat silently)."""
    return secrets.token_hex(32)
