"""What checks a seat's or the owner's token: a keyed MAC in `tf_tokens`, never in the events.

A token (192 random bits, shown once) is never stored. Its **verifier** is: HMAC-SHA256, under the
key directory's `token-verifier` key (service/infra/keys.py, outside the database), over a label,
the match stream, the seat (`OWNER`, -1, for the owner) and the token's SHA-256. It is written in
the same transaction as the event that hands the token out (`match_created`, `seat_joined`,
`seat_reissued`), in the `tf_tokens` row of that stream and seat, which it replaces (a re-invite
makes the old token stop working). Those events carry no token hash, so neither an export nor a
dump of the event tables tells anything about a token; a dump of `tf_tokens` holds MACs that only
the key directory can check (docs/STORE.md, "Tokens").

The MAC is over the token's SHA-256 rather than the token itself so that the token hashes of
matches made before verifiers existed (their events carry them) become verifiers without the
tokens: the migration that made `tf_tokens` MACs them (service/usecases/sealing.py).
"""

from __future__ import annotations

import hashlib
import hmac
import threading
import time
from collections import OrderedDict
from typing import Any, Callable, Optional

OWNER = -1  # the owner's row in tf_tokens (seats are 0..3)
KEY_LABEL = "token-verifier"  # the key directory's key for verifiers (Keyring.secret)
CACHED = 4096  # streams whose verifiers a worker keeps
LABEL = b"tilefold/token-verifier/v1\n"
DELEGATED = "tfd1."  # a seat token minted for a signed-in account's request (see `delegate`)
DELEGATED_LABEL = b"tilefold/delegated-seat/v1\n"
CHECK_LABEL = b"tilefold/seat-link-check/v1\n"
DELEGATED_SECONDS = 900  # how long a minted token works (it never leaves the server)


def digest(token: str) -> str:
    """The token's SHA-256 (hex): what a verifier MACs, and what older events carried."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class Tokens:
    """The `tf_tokens` rows through the event store (`query`, and `write(conn)` in an append).

    A worker keeps the rows it read per stream under the match's `generation` (the room's count of
    tokens handed out, folded from the events: `Room.token_grants`); a re-invite changes the
    generation, so rows read before it are never used after the worker has seen it (as the room
    itself, a worker that has not yet seen another worker's re-invite still knows the old token).
    Under a generation the rows are fixed, so what a token opens is too: the worker keeps that for
    a token that opens some row (`holders`; never for one that opens none, so made-up tokens cannot
    crowd the ones in use out), keyed by the token's SHA-256, as it keeps the rows."""

    def __init__(self, store: Any, key: bytes) -> None:
        self.store = store
        self._key = key
        self._rows: OrderedDict[tuple[str, int], list[tuple[int, str]]] = OrderedDict()
        self._opened: OrderedDict[tuple[str, int, str], frozenset[int]] = OrderedDict()  # see the class
        self._lock = threading.Lock()

    def verifier(self, stream: str, seat: int, token_digest: str) -> str:
        """The verifier of a token (given as its `digest`) for one stream and seat."""
        message = LABEL + f"{stream}\n{seat}\n{token_digest}".encode("utf-8")
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()

    def writer(self, stream: str, seat: int, token: str, now: str) -> Callable[[Any], None]:
        """`write(conn)` giving `seat` (OWNER: the owner) of `stream` this token, in an append."""
        return self.digest_writer(stream, seat, digest(token), now)

    def digest_writer(self, stream: str, seat: int, token_digest: str, now: str) -> Callable[[Any], None]:
        """As `writer`, from the token's SHA-256 (what the migration has of older tokens)."""
        verifier = self.verifier(stream, seat, token_digest)

        def write(conn: Any) -> None:
            conn.execute("DELETE FROM tf_tokens WHERE stream = ? AND seat = ?", [stream, seat])
            conn.execute(
                "INSERT INTO tf_tokens (stream, seat, verifier, created_at) VALUES (?, ?, ?, ?)",
                [stream, seat, verifier, now],
            )

        return write

    def _verifiers(self, stream: str, generation: Optional[int]) -> list[tuple[int, str]]:
        """The stream's (seat, verifier) rows: one indexed read, or the ones read under `generation`."""
        if generation is not None:
            with self._lock:
                kept = self._rows.get((stream, generation))
                if kept is not None:
                    self._rows.move_to_end((stream, generation))
                    return kept
        sql = "SELECT seat, verifier FROM tf_tokens WHERE stream = ?"
        rows = [(int(seat), str(verifier)) for seat, verifier in self.store.query(sql, [stream])]
        if generation is not None:
            with self._lock:
                self._rows[(stream, generation)] = rows
                while len(self._rows) > CACHED:
                    self._rows.popitem(last=False)
        return rows

    # -- seats held through an account (service/usecases/accounts.py) ----------------------------
    def check(self, stream: str, seat: int, token: Optional[str], generation: Optional[int] = None) -> Optional[str]:
        """A keyed fingerprint of the verifier that `token` opens in `seat` of `stream` (None: it opens
        none). An account's seat link keeps it: the link holds while the seat's verifier is the same,
        and a re-invite of the seat (a new verifier) ends it."""
        if not token or seat not in self.holders(stream, token, generation):
            return None
        for row_seat, verifier in self._verifiers(stream, generation):
            if row_seat == seat:
                return self._check_of(stream, seat, verifier)
        return None

    def _check_of(self, stream: str, seat: int, verifier: str) -> str:
        message = CHECK_LABEL + f"{stream}\n{seat}\n{verifier}".encode("utf-8")
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()

    def delegate(self, stream: str, seat: int, check: str, generation: Optional[int] = None) -> Optional[str]:
        """A short-lived token opening `seat` of `stream` for a request of an account that linked the
        seat with `check`, or None when the seat's verifier has changed since (a re-invite). The
        token holds no secret of the seat: a MAC over the stream, the seat, its expiry and the seat's
        current verifier; the http layer puts it in the request's Authorization and never sends it
        out, so every use case that takes a seat token serves the account's devices unchanged."""
        for row_seat, verifier in self._verifiers(stream, generation):
            if row_seat == seat and hmac.compare_digest(self._check_of(stream, seat, verifier), check):
                expires = int(time.time()) + DELEGATED_SECONDS
                return f"{DELEGATED}{seat}.{expires}.{self._delegated_mac(stream, seat, expires, verifier)}"
        return None

    def linked(self, stream: str, seat: int, check: str, generation: Optional[int] = None) -> bool:
        """Whether a seat link made with `check` still holds: the seat's verifier is the one it was
        linked under (a re-invite ends it). Who holds a seat for ratings (service/usecases/accounts.py)."""
        return any(
            row_seat == seat and hmac.compare_digest(self._check_of(stream, seat, verifier), check)
            for row_seat, verifier in self._verifiers(stream, generation)
        )

    def _delegated_mac(self, stream: str, seat: int, expires: int, verifier: str) -> str:
        message = DELEGATED_LABEL + f"{stream}\n{seat}\n{expires}\n{verifier}".encode("utf-8")
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()

    def _delegated_holders(self, stream: str, token: str, generation: Optional[int]) -> set[int]:
        parts = token[len(DELEGATED) :].split(".")
        if len(parts) != 3 or not parts[0].lstrip("-").isdigit() or not parts[1].isdigit():
            return set()
        seat, expires = int(parts[0]), int(parts[1])
        if expires < time.time():
            return set()
        return {
            row_seat
            for row_seat, verifier in self._verifiers(stream, generation)
            if row_seat == seat and hmac.compare_digest(self._delegated_mac(stream, seat, expires, verifier), parts[2])
        }

    def holders(self, stream: str, token: Optional[str], generation: Optional[int] = None) -> set[int]:
        """Which rows of `stream` this token opens (seats, and OWNER), every row compared in
        constant time; `generation`: see the class. A delegated token (`delegate`) opens its one row."""
        if not token:
            return set()
        if token.startswith(DELEGATED):
            return self._delegated_holders(stream, token, generation)
        presented = digest(token)
        key = None if generation is None else (stream, generation, presented)
        if key is not None:
            with self._lock:
                kept = self._opened.get(key)
                if kept is not None:
                    self._opened.move_to_end(key)
                    return set(kept)
        opened = {
            seat
            for seat, stored in self._verifiers(stream, generation)
            if hmac.compare_digest(self.verifier(stream, seat, presented), stored)
        }
        if key is not None and opened:
            with self._lock:
                self._opened[key] = frozenset(opened)
                while len(self._opened) > CACHED:
                    self._opened.popitem(last=False)
        return opened

    def seat_of(self, stream: str, token: Optional[str], generation: Optional[int] = None) -> Optional[int]:
        """The seat (0..3) this token belongs to, or None."""
        seats = sorted(seat for seat in self.holders(stream, token, generation) if seat != OWNER)
        return seats[0] if seats else None

    def is_owner(self, stream: str, token: Optional[str], generation: Optional[int] = None) -> bool:
        return OWNER in self.holders(stream, token, generation)
