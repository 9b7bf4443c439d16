"""Signed records: every hand end and match end signs the match stream's head (docs/AUDIT.md).

The signatures live in their own stream, `sig-<match id>` (one `head_signed` event each), beside the
match stream and outside it, so signing changes no version of the match and the export carries them
after its rows. The key is the keyring's (service/infra/keys.py), never in the database.

Signing is a write, so it happens on the write path only: right after the append that ended a hand
or the match (`sign_if_ended`), and, for a finished match whose ends or head no signature covers (a
worker killed between the append and its signature, a match finished before signing existed), by
the ticker (`sign_unsigned`, service/usecases/ticker.py); never by an export or any other read.
"""

from __future__ import annotations

import logging
from typing import Any, Iterable, Optional

from events import ConcurrencyError

from ..infra.repository import MatchRepository, stream_of
from ..model.catalogue import HEAD_SIGNED, new_event

log = logging.getLogger(__name__)
SIG_PREFIX = "sig-"
SIGNED_ENDS = frozenset({"hand_ended", "match_ended"})


def sign_if_ended(
    repo: MatchRepository, match_id: str, types: Iterable[str], version: int, head_hash: Optional[str], now: str
) -> None:
    """After an append that ended a hand or the match: sign the head it wrote (never fails the append)."""
    if repo.keyring is None or not SIGNED_ENDS.intersection(types):
        return
    try:
        sign_head(repo, match_id, version, head_hash, now)
    except Exception:  # noqa: BLE001 - logged; the ticker signs an unsigned end later (sign_unsigned)
        log.exception("signing the head of %s at version %s failed", match_id, version)


def sign_head(repo: MatchRepository, match_id: str, version: int, head_hash: Optional[str], now: str) -> dict:
    stream = stream_of(match_id)
    if head_hash is None:
        head_hash = repo.store.read(stream, after=version - 1, limit=1)[0].hash
    assert repo.keyring is not None
    record = repo.keyring.sign_head(stream, version, head_hash, now)
    signed = SIG_PREFIX + match_id
    for _ in range(8):
        try:
            repo.store.append(signed, repo.store.current_version(signed), [new_event({"type": HEAD_SIGNED, **record})])
            return record
        except ConcurrencyError:
            continue
    raise RuntimeError(f"cannot append to {signed}: too many simultaneous signatures")


def signatures_of(repo: MatchRepository, match_id: str) -> list[dict[str, Any]]:
    return [dict(e.payload) for e in repo.store.read(SIG_PREFIX + match_id) if e.type == HEAD_SIGNED]


def sign_unsigned(repo: MatchRepository, match_id: str, now: str) -> int:
    """Sign every hand end and match end of a finished match, and its head, that no signature covers
    yet (the ticker's part: a read never signs); how many were signed. Rows come chain-checked."""
    if repo.keyring is None:
        return 0
    signed = {s.get("version") for s in signatures_of(repo, match_id)}
    due = {row.version: row.hash for row in repo.read_types(match_id, tuple(sorted(SIGNED_ENDS)))}
    head = repo.version(match_id)
    if head not in due:
        due[head] = repo.read(match_id, head - 1, until=head)[0].hash
    missing = sorted(set(due) - signed)
    for version in missing:
        sign_head(repo, match_id, version, due[version], now)
    return len(missing)
