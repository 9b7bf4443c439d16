"""Canonical JSON, the per-stream SHA-256 hash chain and its verification."""

from __future__ import annotations

import hashlib
import hmac
import json
from json.encoder import encode_basestring
from typing import Any, Iterable, Mapping, NamedTuple

from .errors import ChainMismatch, ForgedSnapshot

HASHED_FIELDS = ("stream", "version", "type", "schema_version", "payload", "recorded_at")


#: json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False), built
#: once (an encoder keeps no state between calls: safe to share between threads)
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def canonical_json(obj: Any) -> str:
    """Serialise obj deterministically (sorted keys, no spaces, UTF-8, no NaN)."""
    return _CANONICAL.encode(obj)


def compute_hash(prev_hash: str, row: Mapping[str, Any]) -> str:
    """SHA-256 hex of the canonical JSON of the row's hashed fields plus the previous hash.

    row["payload"] may be the payload object or its JSON text (exports carry either).
    """
    payload = row["payload"]
    if isinstance(payload, (str, bytes)):
        payload = json.loads(payload)
    body = {field: row[field] for field in HASHED_FIELDS}
    body["payload"] = payload
    body["prev"] = prev_hash or ""
    return hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()


def hash_new_row(
    prev_hash: str, stream: str, version: int, type_name: str, schema_version: int, payload_json: str, recorded_at: str
) -> str:
    """compute_hash for a row about to be written, reusing its payload's canonical JSON text.

    The canonical JSON of the hashed body is spliced together in its sorted key order around
    `payload_json` (itself canonical_json of the payload, and JSON nests verbatim), so the
    digest is byte for byte the one compute_hash gives (tests/events/test_store.py proves it on random
    rows) without serialising the payload a second time.
    """
    text = encode_basestring  # what json.dumps(value, ensure_ascii=False) does with a str

    body = (
        f'{{"payload":{payload_json},"prev":{text(prev_hash or "")},"recorded_at":{text(recorded_at)},'
        f'"schema_version":{int(schema_version)},"stream":{text(stream)},"type":{text(type_name)},'
        f'"version":{int(version)}}}'
    )
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def check_imported_chain(prev_hash: str, stream: str, rows: Iterable[Mapping[str, Any]]) -> None:
    """ChainMismatch unless every imported row chains from `prev_hash` (the stored head) and the
    rows before it: rows of another history never follow a stream's head."""
    for row in rows:
        payload = row["payload"] if isinstance(row["payload"], str) else canonical_json(row["payload"])
        digest = hash_new_row(
            prev_hash, stream, row["version"], row["type"], row["schema_version"], payload, row["recorded_at"]
        )
        if digest != row["hash"]:  # a payload stored in another spelling: hash it the long way
            digest = compute_hash(prev_hash, {**row, "stream": stream})
        if digest != row["hash"]:
            reason = "does not follow on from the stored head (its hash chains from another history)"
            raise ChainMismatch(stream, row["version"], reason)
        prev_hash = digest


class Problem(NamedTuple):
    """One integrity problem found in a stream; str() gives a readable line."""

    stream: str
    version: int
    kind: str  # "hash", "chain", "gap", "order", "truncated", "position", "malformed"
    message: str

    def __str__(self) -> str:
        return f"{self.stream} v{self.version}: {self.kind}: {self.message}"


def verify_chain(rows: Iterable[Mapping[str, Any]]) -> list[Problem]:
    """Check exported rows (in file order, any number of streams); [] means intact."""
    by_stream: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        by_stream.setdefault(str(row.get("stream")), []).append(row)
    problems: list[Problem] = []
    for stream, stream_rows in by_stream.items():
        problems.extend(_verify_one_stream(stream, stream_rows))
    return problems


def _verify_one_stream(stream: str, rows: list[Mapping[str, Any]]) -> list[Problem]:
    problems: list[Problem] = []
    prev_hash, expected = "", 1
    for row in rows:
        version = row.get("version")
        if not _well_formed(row):
            problems.append(Problem(stream, _int_or(version, expected), "malformed", "row lacks fields"))
            expected += 1
            continue
        version = row["version"]
        sequence_ok = _check_sequence(stream, version, expected, problems)
        _check_hash(stream, row, prev_hash, sequence_ok, problems)
        prev_hash, expected = row["hash"], version + 1
    return problems


def _check_sequence(stream: str, version: int, expected: int, problems: list[Problem]) -> bool:
    if version == expected:
        return True
    if version > expected:
        missing = f"{expected}" if version == expected + 1 else f"{expected}..{version - 1}"
        problems.append(Problem(stream, expected, "gap", f"version(s) {missing} missing before v{version}"))
    else:
        problems.append(Problem(stream, version, "order", f"v{version} appears where v{expected} was expected"))
    return False


def _check_hash(
    stream: str, row: Mapping[str, Any], prev_hash: str, sequence_ok: bool, problems: list[Problem]
) -> None:
    try:
        recomputed = compute_hash(prev_hash, row)
    except (TypeError, ValueError) as exc:
        problems.append(Problem(stream, row["version"], "malformed", f"cannot hash row: {exc}"))
        return
    if recomputed == row["hash"]:
        return
    if sequence_ok:
        message = "content does not match its hash (row edited or chain rewritten)"
        problems.append(Problem(stream, row["version"], "hash", message))
    else:
        message = "hash does not follow the previous row (row dropped or reordered)"
        problems.append(Problem(stream, row["version"], "chain", message))


def _well_formed(row: Mapping[str, Any]) -> bool:
    needed = HASHED_FIELDS + ("hash",)
    return all(field in row for field in needed) and isinstance(row["version"], int)


def _int_or(value: Any, default: int) -> int:
    return value if isinstance(value, int) else default


# -- snapshot seals (a snapshot row checked against the chain before it is used) -------------------
def snapshot_seal(stream: str, version: int, key: str, chain_hash: str, data: bytes) -> str:
    """SHA-256 hex binding a snapshot's bytes to its stream, version, format key and the hash of the
    event row at that version (the chain hash): an edited blob, version or hash no longer matches."""
    digest = hashlib.sha256(canonical_json(["tilefold-snapshot", stream, int(version), key, chain_hash]).encode())
    digest.update(b"\n")
    digest.update(data)
    return digest.hexdigest()


def checked_snapshot(stream: str, key: str, row: tuple[Any, Any, Any, Any, Any]) -> tuple[int, bytes]:
    """(version, data) of a snapshot row (version, data, chain_hash, seal, hash of the event row at
    that version) whose seal and chain hash hold; ForgedSnapshot otherwise (before anything reads
    the bytes: they may be a pickle)."""
    version, data, chain_hash, seal, event_hash = row
    data = bytes(data)
    if not chain_hash or not seal:
        raise ForgedSnapshot(stream, version, "it carries no seal")
    if event_hash is None:
        raise ForgedSnapshot(stream, version, "no event row at its version")
    if event_hash != chain_hash:
        raise ForgedSnapshot(stream, version, "the event row at its version has another hash")
    if not hmac.compare_digest(snapshot_seal(stream, version, key, chain_hash, data), seal):
        raise ForgedSnapshot(stream, version, "its bytes, version or chain hash do not match its seal")
    return version, data
