"""Helpers for the audit, export and replay tests: finished matches by bots, self-play logs, tampering."""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
from typing import Optional

import pytest

import engine
from engine.selfplay import play_match
from engine.wall import CHAIN_LENGTH, chain
from events import compute_hash
import service.usecases.play
import service.usecases.walls
from service.http.services import services

#: where the labels of fixed deals are logged
_SEEDS = logging.getLogger("tests.seeds")
_SEEDS.setLevel(logging.INFO)


def seeded_deals(monkeypatch, label: str) -> None:
    """Every hand the service deals comes from a fixed seed (printed on failure through the label)."""
    _SEEDS.info("seeded_deals: every hand dealt from the seeds of label %r", label)
    counter = iter(range(1_000))
    monkeypatch.setattr(service.usecases.walls, "commitment", lambda *args: None)  # dealt from seeds, not joint walls
    monkeypatch.setattr(
        service.usecases.play,
        "_deal_command",
        lambda *args: {"action": "start_hand", "seed": hashlib.sha256(f"{label}/{next(counter)}".encode()).hexdigest()},
    )


def seeded_walls(monkeypatch, label: str) -> None:
    """Joint walls as the service makes them (G-11: a committed chain, every seat's part), with the
    server's chain grown from a root derived from `label` instead of the key directory's secret and the
    random match id; a match dealt without a commitment gets label-derived seeds. The same label and
    the same moves deal the same match every run."""
    _SEEDS.info("seeded_walls: joint walls from label %r", label)
    links = chain(hashlib.sha256(f"walls/{label}".encode()).digest(), CHAIN_LENGTH)
    monkeypatch.setattr(service.usecases.walls, "_chain", lambda keyring, match_id: links)
    real = service.usecases.play._deal_command

    def deal(keyring, match_id, committed, hand, seat_parts):
        if committed is None or keyring is None:
            return {"action": "start_hand", "seed": hashlib.sha256(f"{label}/{hand}".encode()).hexdigest()}
        return real(keyring, match_id, committed, hand, seat_parts)

    monkeypatch.setattr(service.usecases.play, "_deal_command", deal)


def finished_match(
    app,
    variant: str = "koudiandian",
    options: Optional[dict] = None,
    names: tuple = ("<b>Alice</b> & co",),
    deals: Optional[str] = None,
) -> tuple[str, str]:
    """A match played to the end through the service: humans named `names` (played by the engine's bot), bots
    in the seats left (none when four names are given). The same every run: with `deals`, every hand is
    dealt from seeds derived from that label (no joint walls); without, joint walls whose server chain
    comes from a label made of the arguments (seeded_walls). The label is logged (pytest shows it under a
    failing test's captured log; printing it would mix it into output the tests read)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        if deals is not None:
            _SEEDS.info("finished_match: %s dealt from the seeds of label %r", variant, deals)
            seeded_deals(monkeypatch, deals)
        else:
            label = f"{variant}/{json.dumps(options, sort_keys=True)}/{'|'.join(names)}"
            _SEEDS.info("finished_match: %s on joint walls from label %r", variant, label)
            seeded_walls(monkeypatch, label)
        return _finished_match(app, variant, options, names)


def _finished_match(app, variant: str, options: Optional[dict], names: tuple) -> tuple[str, str]:
    svc = services(app).match
    match_id, owner, _ = svc.create(variant, options or {"hands": 3})
    humans = [svc.join(match_id, name)[0] for name in names]
    if len(humans) < 4:
        svc.add_bots(match_id, owner, None)
    for _ in range(50_000):
        loaded = svc.repo.load(match_id)
        if loaded.over:
            return match_id, owner
        seat = next(s for s in engine.pending_seats(loaded.state) if s in humans)
        svc.act(match_id, seat, engine.bot_action(loaded.state, seat), None)
    raise AssertionError("the match did not end")


def open_match(app, variant: str = "koudiandian") -> tuple[str, str]:
    """A match in play: one human seat (never moving) and three bots."""
    svc = services(app).match
    match_id, owner, _ = svc.create(variant, {"hands": 2})
    svc.join(match_id, "Waiting Wendy")
    svc.add_bots(match_id, owner, None)
    return match_id, owner


def selfplay(variant: str = "koudiandian", options: Optional[dict] = None, label: str = "bench") -> list[dict]:
    """Engine-only self-play with bots to the match's end (deterministic seeds: label/1, label/2, ...)."""
    seeds = (hashlib.sha256(f"{label}/{hand}".encode()).hexdigest() for hand in itertools.count(1))
    return play_match(variant, options or {"hands": 4}, seeds)[1]


def chained_rows(events: list[dict], stream: str = "match-selfplay") -> list[dict]:
    """Engine events as exported rows with a valid hash chain."""
    rows, prev = [], ""
    for version, event in enumerate(events, start=1):
        row = {
            "stream": stream,
            "version": version,
            "type": event["type"],
            "schema_version": 1,
            "payload": {k: v for k, v in event.items() if k != "type"},
            "recorded_at": "2024-05-01T12:00:00.000000Z",
        }
        prev = row["hash"] = compute_hash(prev, row)
        rows.append(row)
    return rows


def rehash(rows: list[dict]) -> list[dict]:
    """What a careful tamperer does: renumber nothing, recompute every hash so the chain is intact."""
    prev = ""
    out = []
    for row in rows:
        row = dict(row)
        prev = row["hash"] = compute_hash(prev, row)
        out.append(row)
    return out


def rows_of(ndjson: str) -> list[dict]:
    """The rows of an exported log (its signed heads, `{"signature": …}` lines, left out)."""
    lines = [json.loads(line) for line in ndjson.splitlines() if line.strip()]
    return [row for row in lines if set(row) != {"signature"}]


def signatures_of(ndjson: str) -> list[dict]:
    """The signed heads an exported log carries."""
    lines = [json.loads(line) for line in ndjson.splitlines() if line.strip()]
    return [row["signature"] for row in lines if set(row) == {"signature"}]


def first(rows: list[dict], type_: str, when=lambda p: True) -> dict:
    return next(r for r in rows if r["type"] == type_ and when(r["payload"]))
