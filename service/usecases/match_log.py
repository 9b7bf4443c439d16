"""Match logs: ndjson/json/text export, verification (hash chain + engine audit) and import."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from engine import variants
from engine.audit import AuditReport, audit
from engine.tiles import ZH_NAMES, kind
from events import NewEvent, Problem, canonical_json, verify_chain

from . import signing
from ..model import catalogue, room as rooms, signatures
from ..model.errors import Conflict, Invalid, Rejected
from ..model.json_text import encodable, parse_int as strict_int
from ..infra.repository import Loaded, MatchRepository, stream_of

IMPORT_PREFIX = "import-"
IMPORTED = catalogue.IMPORTED
ROW_FIELDS = ("stream", "version", "type", "schema_version", "payload", "recorded_at", "hash")
FORMATS = ("ndjson", "json", "text")


class LogError(ValueError):
    """A log that cannot be read (not ndjson, not a JSON list of rows)."""


# -- ndjson -------------------------------------------------------------------------
def row_line(row: dict) -> str:
    """One exported row as one ndjson line: fixed field order, payload as canonical (sorted) JSON."""

    def text(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    return (
        f'{{"stream":{text(row["stream"])},"version":{int(row["version"])},"type":{text(row["type"])},'
        f'"schema_version":{int(row["schema_version"])},"payload":{canonical_json(row["payload"])},'
        f'"recorded_at":{text(row["recorded_at"])},"hash":{text(row["hash"])}}}'
    )


def to_ndjson(rows: Iterable[dict]) -> str:
    return "".join(row_line(row) + "\n" for row in rows)


def parse_log(text: str) -> list[dict]:
    """Rows from ndjson (one JSON object a line) or from a JSON list of rows (signatures left out)."""
    return read_log(text)[0]


def read_log(text: str) -> tuple[list[dict], list[dict]]:
    """(rows, signatures) from ndjson (one JSON object a line) or from a JSON list of rows; a
    `{"signature": {...}}` line or element is a signed head (docs/AUDIT.md, "Signed records")."""
    text = text.strip()
    if not text:
        raise LogError("the log is empty")
    if text.startswith("["):
        try:
            rows = json.loads(text, parse_int=strict_int)
        except ValueError as exc:
            raise LogError(f"not a JSON list: {exc}") from None
    else:
        rows = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line, parse_int=strict_int))
            except ValueError as exc:
                raise LogError(f"line {number} is not JSON: {exc}") from None
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise LogError("the log must be a list of row objects")
    signed = [r["signature"] for r in rows if signatures.is_signature_line(r)]
    rows = [r for r in rows if not signatures.is_signature_line(r)]
    for number, row in enumerate(rows, start=1):
        missing = [f for f in ROW_FIELDS if f not in row]
        if missing:
            raise LogError(f"row {number} lacks {', '.join(missing)}")
        if isinstance(row["payload"], str):
            row["payload"] = _loads(row["payload"])
    if not encodable(rows) or not encodable(signed):
        raise LogError("a string holds a lone surrogate (not valid Unicode text)")
    return rows, signed


def signature_line(record: dict) -> str:
    return canonical_json({"signature": {f: record.get(f) for f in signatures.FIELDS}})


def _loads(text: str) -> Any:
    """json.loads with the request bodies' limit on integers (service/http/strict_json.py): LogError beyond."""
    try:
        return json.loads(text, parse_int=strict_int)
    except ValueError as exc:
        raise LogError(f"not JSON: {exc}") from None


# -- verification ---------------------------------------------------------------------
@dataclass
class Verdict:
    """The whole verification: hash chain problems and the engine's re-deciding audit."""

    chain: list[Problem]
    report: AuditReport
    streams: list[str] = field(default_factory=list)
    types: dict = field(default_factory=dict)  # version -> type, to name a chain problem's event
    signed: list[dict] = field(default_factory=list)  # the signed heads the log carries
    signature_problem: Optional[str] = None  # why the signatures do not prove the log (keys given)
    keys_checked: bool = False  # the signatures were checked against given public keys
    trusted: Optional[bool] = None  # import: signed by a key this server trusts
    wall_commitment: Optional[str] = None  # joint walls: the server's chain end, as match_created published it
    wall_problem: Optional[str] = None  # the commitment the engine checked is not the one published at creation

    @property
    def consistent(self) -> bool:
        """Chain intact, signatures good (when keys are given) and every event re-decided (a preset
        deal may still be unproven)."""
        return not self.chain and self.signature_problem is None and self.wall_problem is None and self.report.ok

    @property
    def ok(self) -> bool:
        """Consistent and every hand's deal proven by its revealed seed (G-11): a fair log."""
        return self.consistent and not self.report.unverified_deals

    def text(self) -> str:
        r = self.report
        if self.chain:
            first = self.chain[0]
            version = first.version
            if version not in self.types:  # a gap: name the event found where the missing one should be
                version = min((v for v in self.types if isinstance(v, int) and v > version), default=version)
            kind_ = self.types.get(version, "missing")
            more = f" (+{len(self.chain) - 1} more chain problems)" if len(self.chain) > 1 else ""
            return f"FAIL at event {version} ({kind_}): hash chain: {first.kind}: {first.message}{more}"
        if self.signature_problem is not None:
            return f"FAIL: signature: {self.signature_problem}"
        if self.wall_problem is not None:
            return f"FAIL: walls: {self.wall_problem}"
        if r.failure is not None:
            return str(r.failure)
        finished = "" if r.finished else ", match not finished"
        if r.unverified_deals:
            hands = ", ".join(str(h) for h in r.unverified_deals)
            return (
                f"UNVERIFIED DEAL: hand(s) {hands} dealt from a preset, with no seed or commitment (G-11): "
                f"chain intact and every action legal, but the deal is not proven fair"
            )
        return (
            f"OK: {r.hands:,} hands, {r.events:,} events, chain intact, {r.seeds_verified:,} seeds verified, "
            f"every action legal, every settlement matches{finished}; {self.signature_text()}; "
            f"walls: {r.wall_protocol}"
        )

    def derivation_lines(self) -> list[str]:
        """How each hand's wall was derived, as checked (joint walls: docs/AUDIT.md, "Joint walls")."""
        lines = []
        previous = self.wall_commitment
        for d in self.report.derivations:
            parts = d.get("parts")
            seed = str(d.get("seed"))[:16]
            if not isinstance(parts, dict):
                lines.append(
                    f"hand {d.get('hand')}: seed {seed}… chosen by the server, committed as {str(d.get('commitment'))[:16]}…"
                )
                continue
            seats = ", ".join("—" if p is None else f"{str(p)[:8]}…" for p in parts.get("seats") or [])
            server = str(parts.get("server"))
            lines.append(
                f"hand {d.get('hand')}: server part {server[:16]}… hashes to {str(previous)[:16]}… ✓; "
                f"seats' parts [{seats}]; seed = HMAC(server part, hand {d.get('hand')}, seats' parts) = {seed}… ✓; "
                f"wall and wild from the seed, committed as {str(d.get('commitment'))[:16]}… ✓"
            )
            previous = server
        return lines

    def signature_text(self) -> str:
        if not self.signed:
            return "unsigned" + ("; not signed by a key this server trusts" if self.trusted is not None else "")
        if self.trusted is not None:
            ids = ", ".join(sorted({str(s.get("key_id")) for s in self.signed}))
            return (
                f"signed by this server's key {ids}: a key this server trusts"
                if self.trusted
                else f"signed by key {ids}: not a key this server trusts"
            )
        ids = ", ".join(sorted({str(s.get("key_id")) for s in self.signed}))
        if self.keys_checked:
            return f"signed by key {ids} at {len(self.signed)} hand and match ends, every signature valid"
        return f"signed by key {ids} (not checked: give --key)"


def verify_rows(
    rows: list[dict], signed: Sequence[dict] = (), keys: Optional[Mapping[str, Ed25519PublicKey]] = None
) -> Verdict:
    """Check the hash chain, the signed heads against `keys` (when given), then replay the log
    through the engine (service events skipped)."""
    chain = verify_chain(rows)
    streams = sorted({str(r.get("stream")) for r in rows})
    report = audit(rows, service_types=service_types())
    types = {r.get("version"): r.get("type") for r in rows}
    if len(streams) > 1 and not chain:
        chain = [Problem(streams[1], 1, "malformed", "a match log holds exactly one stream")]
    problem = None if keys is None else signature_problem(rows, signed, keys)
    verdict = Verdict(chain, report, streams, types, list(signed), problem, keys is not None)
    verdict.wall_commitment, verdict.wall_problem = _published_commitment(rows)
    return verdict


def _published_commitment(rows: list[dict]) -> tuple[Optional[str], Optional[str]]:
    """(the wall commitment match_created published, why it does not hold): the engine checks every
    hand against match_started's commitment; this checks that one is what was published before any
    seat joined (G-11 joint walls)."""
    created = next((r["payload"] for r in rows if r.get("type") == rooms.MATCH_CREATED), None)
    started = next((r["payload"] for r in rows if r.get("type") == "match_started"), None)
    published = created.get("wall_commitment") if isinstance(created, dict) else None
    checked = started.get("wall_commitment") if isinstance(started, dict) else None
    if checked is not None and created is not None and published != checked:
        return (
            published,
            "match_started's wall commitment is not the one match_created published before the seats joined",
        )
    if published is not None and started is not None and checked is None:
        return published, "match_created published a wall commitment, but the match was dealt without it"
    return checked, None


def signature_problem(rows: list[dict], signed: Sequence[dict], keys: Mapping[str, Ed25519PublicKey]) -> Optional[str]:
    """None when every signed head is a valid signature by one of `keys` over a row of this log,
    and the last one covers its last row; else why the log is not proven to come from that server."""
    if not rows:
        return "the log is empty"
    if not signed:
        return "the log carries no signature: nothing shows it came from the server whose key was given"
    by_version = {r.get("version"): r for r in rows}
    stream = rows[0].get("stream")
    for record in signed:
        version = record.get("version")
        row = by_version.get(version)
        if record.get("stream") != stream:
            return f"a signature is for stream {record.get('stream')!r}, the log is {stream!r}"
        if row is None:
            return f"a signature covers version {version}, which this log does not have"
        if row.get("hash") != record.get("hash"):
            return (
                f"the log was changed after it was signed: the server signed the chain head at version "
                f"{version} ({row.get('type')}) as {str(record.get('hash'))[:16]}…, this log's row {version} "
                f"hashes to {str(row.get('hash'))[:16]}… (a row at or before it differs)"
            )
        invalid = signatures.check(record, keys)
        if invalid is not None:
            return invalid
    last = max(int(r.get("version") or 0) for r in signed)
    if last != rows[-1].get("version"):
        return f"rows after version {last} are not signed (the log ends at version {rows[-1].get('version')})"
    return None


def service_types() -> frozenset:
    """The types of a log the engine's audit leaves to the service: the room's (and an import record's)."""
    return catalogue.CATALOGUE.names(catalogue.ROOM) | {IMPORTED}


# -- export -------------------------------------------------------------------------
def finished(repo: MatchRepository, match_id: str) -> Loaded:
    """The match, which must be over (409 otherwise)."""
    loaded = repo.load(match_id)
    if not loaded.over:
        raise Conflict("match_not_finished", "only a finished match can be exported")
    return loaded


def import_record(repo: MatchRepository, match_id: str) -> Optional[dict]:
    """The `imported` event of an imported match (original stream, head, per-row time and hash), or None."""
    stored = repo.store.read(IMPORT_PREFIX + match_id, limit=1)
    return stored[0].payload if stored and stored[0].type == IMPORTED else None


def export_signatures(repo: MatchRepository, match_id: str) -> list[dict]:
    """The signed heads of a finished match: an imported one's as they were imported, else the
    server's own as stored. Never signs (a read writes nothing): a head that no signature covers
    yet is signed by the ticker (signing.sign_unsigned)."""
    record = import_record(repo, match_id)
    if record is not None:
        return list(record.get("signatures") or [])
    return signing.signatures_of(repo, match_id)


def export_rows(repo: MatchRepository, match_id: str) -> list[dict]:
    """The rows exactly as stored; an imported match gives back the rows it was imported from.

    Every row handed out is checked against the chain first (the stream's head included): a row
    edited inside the database file raises IntegrityFailure naming it, as the feed and replay do."""
    rows = repo.export_rows(match_id)
    for row in rows:
        row.pop("position", None)
    record = import_record(repo, match_id)
    if record is None:
        return rows
    original = record["original_stream"]
    return [
        {**row, "stream": original, "recorded_at": at, "hash": digest}
        for row, (at, digest) in zip(rows, record["rows"])
    ]


def export(repo: MatchRepository, match_id: str, fmt: str) -> tuple[str, str]:
    """(body, mimetype) of a finished match in one of FORMATS."""
    if fmt not in FORMATS:
        raise Invalid("invalid_format", f"format must be one of {', '.join(FORMATS)}")
    loaded = finished(repo, match_id)
    rows = export_rows(repo, match_id)
    signed = export_signatures(repo, match_id) if fmt != "text" else []
    if fmt == "ndjson":
        return to_ndjson(rows) + "".join(signature_line(r) + "\n" for r in signed), "application/x-ndjson"
    if fmt == "json":
        from ..model.presenters import summary

        body = {
            "match": summary(loaded, table=False),
            "events": [{f: r[f] for f in ROW_FIELDS} for r in rows],
            "signatures": [{f: r.get(f) for f in signatures.FIELDS} for r in signed],
        }
        return json.dumps(body, ensure_ascii=False, indent=1), "application/json"
    return text_log(loaded, rows), "text/plain; charset=utf-8"


# -- text log (Chinese with English names) ----------------------------------------------
BY_NAMES = {
    "self_draw": "自摸 self-draw",
    "kong_draw": "杠上开花 kong replacement",
    "discard": "点炮 on a discard",
    "rob_kong": "抢杠 robbing a kong",
}
RESPONSES = {"pass": "过 pass", "pung": "碰 pung", "kong": "杠 kong", "hu": "胡 hu", "ting": "报听 ting"}
KONG_KINDS = {"exposed": "明杠 exposed kong", "added": "加杠 added kong", "concealed": "暗杠 concealed kong"}


def tile_text(tile: Optional[str]) -> str:
    if not tile:
        return "?"
    return f"{ZH_NAMES[kind(tile)]} ({tile})"


def pattern_names() -> dict[str, dict[str, list[str]]]:
    """variant -> pattern code -> [中文, English], and "extra" (平胡/丫当), from the variant registry."""
    out = {name: display["patterns"] for name, display in variants.display_all().items()}
    out["extra"] = {
        code: names for display in variants.display_all().values() for code, names in display["extra"].items()
    }
    return out


def _variant_label(variant: str) -> str:
    try:
        return variants.get(variant).label
    except variants.UnknownVariant:
        return variant


def _wild_word(variant: str) -> str:
    """What the variant calls its wild tiles (耗子, 配子), from its registry entry."""
    try:
        return variants.get(variant).wild_zh
    except variants.UnknownVariant:
        return "百搭"


def settlement_lines(event: dict, variant: str, seat_name) -> list[str]:
    table = pattern_names().get(variant, {})
    lines = []
    if event.get("outcome") == "draw":
        lines.append("  荒庄 exhausted wall: no winner")
    else:
        win = event.get("win") or {}
        by = str(win.get("by"))
        lines.append(
            f"  {seat_name(event['winner'])} 胡 wins with {tile_text(win.get('tile'))}, {BY_NAMES.get(by, by)}"
        )
        score = (event.get("settlement") or {}).get("score") or {}
        for item in score.get("patterns") or []:
            code, points = (item["code"], item.get("points")) if isinstance(item, dict) else (item, None)
            zh, en = table.get(code, [code, code])
            lines.append(f"    {zh} {en}" + (f": {points}" if points is not None else ""))
        if score and variant in variants.names():
            lines.extend(variants.get(variant).score_lines(score))  # the variant's own settlement text
    deltas = (event.get("settlement") or {}).get("deltas") or [0, 0, 0, 0]
    lines.append("  结算 settlement: " + ", ".join(f"{seat_name(s)} {d:+d}" for s, d in enumerate(deltas)))
    lines.append("  比分 scores: " + ", ".join(f"{seat_name(s)} {v}" for s, v in enumerate(event["scores"])))
    return lines


def text_log(loaded: Loaded, rows: list[dict]) -> str:
    """A readable log of a finished match: 第1局 庄家: 座位0 (Alice) … 座位2 打出 九万 (9m) …"""
    seats = loaded.room.public_seats()

    def seat_name(s: int) -> str:
        seat = seats[s] if s is not None and 0 <= s < 4 else None
        who = seat["name"] if seat else "?"
        return f"座位{s} ({who})"

    variant = loaded.room.variant or ""
    out = [f"Tilefold {loaded.match_id}: {_variant_label(variant)}"]
    out.append("  " + ", ".join(seat_name(s) for s in range(4)))
    for row in rows:
        _, payload = catalogue.CATALOGUE.upcast(row["type"], row["schema_version"], row["payload"])
        line = _event_line({"type": row["type"], **payload}, variant, seat_name)
        if isinstance(line, list):
            out.extend(line)
        elif line:
            out.append(line)
    return "\n".join(out) + "\n"


def _event_line(e: dict, variant: str, seat_name):
    t = e["type"]
    who = seat_name(e["seat"]) if "seat" in e and isinstance(e.get("seat"), int) else ""
    if t == "hand_started":
        wild = f"  {_wild_word(variant)} wild: {tile_text(e['wild'])}" if e.get("wild") else ""
        lines = [f"第{e['hand']}局 hand {e['hand']}  庄家 dealer: {seat_name(e['dealer'])}{wild}"]
        lines += [f"  {seat_name(s)} 起手 dealt: {h}" for s, h in enumerate(e["hands"])]
        lines.append(f"  {seat_name(e['dealer'])} 第十四张 14th tile: {tile_text(e['dealer_draw'])}")
        return lines
    if t == "drew":
        return f"  {who} 摸 draws {tile_text(e['tile'])}" + (
            "  杠后补牌 from the kong end" if e["source"] == "kong" else ""
        )
    if t == "discarded":
        face = " 扣牌 face down" if e.get("face_down") else ""
        return f"  {who} 打出 discards {tile_text(e['tile'])}{face}" + ("  (auto)" if e.get("auto") else "")
    if t == "ting_declared":
        return f"  {who} 报听 declares ready"
    if t == "responded":
        return f"  {who} {RESPONSES.get(e['response'], e['response'])}" + ("  (auto)" if e.get("auto") else "")
    if t == "punged":
        return f"  {who} 碰 pungs {tile_text(e['tile'])} from {seat_name(e['from'])}"
    if t == "konged":
        return f"  {who} {KONG_KINDS.get(e['kind'], e['kind'])} {tile_text(e['tile'])}"
    if t == "kong_declared":
        return f"  {who} 加杠 declares an added kong of {tile_text(e['tile'])} (抢杠 window)"
    if t == "won":
        return None  # the settlement lines say it
    if t == "hand_ended":
        return settlement_lines(e, variant, seat_name)
    if t == "match_ended":
        return "终局 final scores: " + ", ".join(f"{seat_name(s)} {v}" for s, v in enumerate(e["scores"]))
    return None


# -- import -------------------------------------------------------------------------
def import_rows(
    repo: MatchRepository,
    rows: list[dict],
    match_id: str,
    signed: Sequence[dict] = (),
    *,
    check: Callable[[list[dict]], None],
) -> Verdict:
    """Verify the log, then store it as the finished match `match_id` (see docs/AUDIT.md).

    Every row must be a declared event of a match stream, of a known schema version, with its
    type's fields (the event catalogue, service/model/catalogue.py). `check(rows)` then refuses
    service events the live endpoints could not have written (their request schemas:
    service/http/import_check.py; the room must fold in order), before anything else reads them.

    The verdict says whether a key this server trusts (its own, current or rotated out) signed it.
    A log carrying a signature under one of this server's key ids that does not verify is refused."""
    for number, row in enumerate(rows, start=1):
        if row.get("type") == IMPORTED:
            raise Rejected("log_rejected", "an imported event belongs in an import record, not a match log")
        problem = catalogue.match_row_problem(row)
        if problem is not None:
            raise Rejected("log_rejected", f"row {number} ({row.get('type')}): {problem}")
    check(rows)
    own = repo.keyring.public_keys() if repo.keyring is not None else {}
    verdict = verify_rows(rows)
    verdict.signed = list(signed)
    verdict.trusted = False
    if signed and own:
        verdict.keys_checked = True
        problem = signature_problem(rows, signed, own)
        claims_ours = any(str(s.get("key_id")) in own for s in signed)
        if problem is not None and claims_ours:
            raise Rejected("log_rejected", f"FAIL: signature: {problem}", verdict=f"FAIL: signature: {problem}")
        verdict.trusted = problem is None
    if verdict.consistent and not verdict.ok:
        raise Rejected("unverified_deal", verdict.text(), verdict=verdict.text())
    if not verdict.ok:
        raise Rejected("log_rejected", verdict.text(), verdict=verdict.text())
    if not verdict.report.finished:
        raise Rejected("log_not_finished", "only the log of a finished match can be imported")
    if not any(r["type"] == rooms.MATCH_CREATED for r in rows):
        raise Rejected("log_rejected", "not a Tilefold match log: it has no match_created event")
    record = {
        "match_id": match_id,
        "original_stream": rows[0]["stream"],
        "original_head": {"version": rows[-1]["version"], "hash": rows[-1]["hash"]},
        "rows": [[r["recorded_at"], r["hash"]] for r in rows],
        "signatures": [{f: r.get(f) for f in signatures.FIELDS} for r in signed],
    }
    # The record first: a match stream never exists without it (an orphan record is harmless).
    repo.store.append(IMPORT_PREFIX + match_id, 0, [catalogue.new_event({"type": IMPORTED, **record})])
    repo.store.append(stream_of(match_id), 0, [NewEvent(r["type"], r["payload"], r["schema_version"]) for r in rows])
    return verdict


__all__ = [
    "FORMATS",
    "read_log",
    "signature_problem",
    "LogError",
    "Verdict",
    "export",
    "export_rows",
    "import_rows",
    "parse_log",
    "pattern_names",
    "to_ndjson",
    "verify_rows",
]
