"""Re-deciding audit of a match log: every seed against its wall, every action and settlement re-derived."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional, Sequence

from engine.errors import IllegalAction
from engine.event_types import EVENT_TYPES
from engine.evolve import CorruptEvent
from engine.state import TURN, MatchState
from engine.table import initial_state, step_in_place
from engine.tiles import TileError, kind, parse
from engine import versions
from engine.versions import supported, version_of
from engine.wall import SeedError, commitment, salt_for, seed_from_hex, shuffle_wall

#: Event types the engine produces (engine/event_types.py declares them); anything else must be named
#: as a service type or the audit fails.
ENGINE_EVENT_TYPES = frozenset(EVENT_TYPES)


@dataclass
class AuditFailure:
    """The first bad event: its stream version, its type and why."""

    version: Optional[int]
    type: str
    reason: str

    def __str__(self) -> str:
        where = f"event {self.version}" if self.version is not None else "end of log"
        return f"FAIL at {where} ({self.type}): {self.reason}"


@dataclass
class AuditReport:
    """What the engine audit found: counts, and the first failure (None = every check passed)."""

    events: int = 0  # every row looked at (service rows included)
    engine_events: int = 0
    hands: int = 0
    seeds_verified: int = 0
    unverified_deals: list[Any] = field(default_factory=list)  # hand numbers dealt from a preset (no seed, G-11)
    finished: bool = False
    failure: Optional[AuditFailure] = None
    joint_walls: int = 0  # hands whose seed was derived from the server's committed part and the seats' (G-11)
    seat_parts: list[int] = field(default_factory=list)  # per joint hand: how many seats added a part
    #: per dealt hand, what its wall came from: {hand, seed, commitment, parts (joint walls) or None}
    derivations: list[dict[str, Any]] = field(default_factory=list)
    scores: list[int] = field(default_factory=lambda: [0, 0, 0, 0])

    @property
    def ok(self) -> bool:
        return self.failure is None

    @property
    def wall_protocol(self) -> str:
        """Which G-11 protocol the log's hands were dealt under (docs/AUDIT.md, "Joint walls")."""
        if self.joint_walls and self.joint_walls == self.seeds_verified:
            return "joint walls (the server's committed part and every seat's part)"
        if self.joint_walls:
            return "mixed (some hands joint walls, some server seeds)"
        return "server seeds (committed per hand; the server chose each seed)"


def audit(rows: Iterable[dict[str, Any]], service_types: Iterable[str] = ()) -> AuditReport:
    """Replay rows ({"version", "type", "payload"}) by re-deciding each command; stop at the first failure."""
    rows = list(rows)
    skip = frozenset(service_types)
    report = AuditReport(events=len(rows))
    log: list[tuple[Optional[int], dict[str, Any]]] = []
    for row in rows:
        kind_ = row.get("type")
        if kind_ in skip:
            continue
        payload = row.get("payload")
        if kind_ not in ENGINE_EVENT_TYPES or not isinstance(payload, dict):
            report.failure = AuditFailure(
                row.get("version"), str(kind_), "not an engine event nor a known service event"
            )
            return report
        log.append((row.get("version"), {"type": kind_, **payload}))
    report.engine_events = len(log)
    _replay(log, report)
    return report


def _replay(log: Sequence[tuple[Optional[int], dict[str, Any]]], report: AuditReport) -> None:
    state = initial_state()
    i = 0
    while i < len(log):
        version, event = log[i]
        try:
            command = command_for(state, event, log[i + 1][1] if i + 1 < len(log) else None)
        except _NotACommand as exc:
            report.failure = AuditFailure(version, event["type"], str(exc))
            return
        if event["type"] == "match_started" and not supported(version_of(event)):
            report.failure = AuditFailure(version, event["type"], _unsupported(version_of(event)))
            return
        if event["type"] == "hand_started" and event.get("seed") is not None:
            problem = seed_problem(event)
            if problem:
                report.failure = AuditFailure(version, event["type"], problem)
                return
            report.seeds_verified += 1
            parts = event.get("wall_parts")
            report.derivations.append(
                {
                    "hand": event.get("hand"),
                    "seed": event.get("seed"),
                    "commitment": event.get("commitment"),
                    "parts": parts,
                }
            )
            if isinstance(parts, dict):
                report.joint_walls += 1
                report.seat_parts.append(sum(p is not None for p in parts.get("seats") or []))
        elif event["type"] == "hand_started":
            report.unverified_deals.append(event.get("hand"))
        try:
            produced = step_in_place(state, command)  # the audit owns `state`: no copy
        except IllegalAction as exc:
            rule = f" ({exc.rule})" if getattr(exc, "rule", None) else ""
            report.failure = AuditFailure(
                version, event["type"], f"illegal when taken: {exc.code}: {exc.message}{rule}"
            )
            return
        except (CorruptEvent, KeyError, TypeError, ValueError) as exc:
            report.failure = AuditFailure(version, event["type"], f"cannot be decided: {exc!r}")
            return
        for offset, expected in enumerate(produced):
            if i + offset >= len(log):
                report.failure = AuditFailure(
                    None, expected["type"], f"the log ends where the engine produces {expected['type']}"
                )
                return
            got_version, got = log[i + offset]
            if got != expected and _plain(got) != _plain(expected):
                report.failure = AuditFailure(got_version, got["type"], _difference(got, expected))
                return
            if got["type"] == "hand_ended":
                report.hands += 1
                report.scores = list(got["scores"])
            elif got["type"] == "match_ended":
                report.finished = True
        i += len(produced)


def _unsupported(rules_version: Any) -> str:
    return (
        f"cannot re-decide this log: it was played under rules version {rules_version!r}, and this "
        f"engine decides rules versions {versions.OLDEST_RULES_VERSION} to {versions.RULES_VERSION} only"
    )


class _NotACommand(ValueError):
    """An event that no command starts (an automatic consequence out of place, or a bad field)."""


def command_for(state: MatchState, event: dict[str, Any], following: Optional[dict[str, Any]]) -> dict[str, Any]:
    """The command that must have produced `event` (the first event of a decide) in `state`."""
    kind_ = event["type"]
    extra = {"reason": event["reason"]} if event.get("reason") else {}
    if kind_ == "match_started":  # re-decided under the rules version the match was played under
        return {
            "action": "start_match",
            "variant": event.get("variant"),
            "options": event.get("options"),
            "first_dealer": event.get("first_dealer"),
            "rules_version": version_of(event),
            **({"wall_commitment": event["wall_commitment"]} if "wall_commitment" in event else {}),
        }
    if kind_ == "hand_started":
        if event.get("wall_parts") is not None:  # joint walls: the engine re-derives the seed (G-11)
            return {"action": "start_hand", "wall": event["wall_parts"]}
        if event.get("seed") is not None:
            return {"action": "start_hand", "seed": event["seed"]}
        return {"action": "start_hand", "preset": _preset_of(event)}
    seat = event.get("seat")
    if kind_ == "discarded" and event.get("auto") is False:
        return {"seat": seat, "action": "discard", "tile": event.get("tile"), **extra}
    if kind_ == "ting_declared":
        if event.get("with_discard"):
            if not following or following.get("type") != "discarded":
                raise _NotACommand("报听 with a discard is not followed by its discard")
            return {"seat": seat, "action": "ting", "tile": following.get("tile"), **extra}
        return {"seat": seat, "action": "ting", **extra}
    if kind_ == "responded" and event.get("auto") is not True:
        return {"seat": seat, "action": event.get("response"), **extra}
    if kind_ == "won" and event.get("by") in ("self_draw", "kong_draw") and not event.get("auto"):
        return {"seat": seat, "action": "hu", **extra}
    if kind_ == "kong_declared":
        return {"seat": seat, "action": "kong", "tile": event.get("tile"), **extra}
    if (
        kind_ == "konged"
        and event.get("kind") in ("concealed", "added")
        and state.phase == TURN
        and state.hand is not None
        and state.hand.turn == seat
    ):
        return {"seat": seat, "action": "kong", "tile": event.get("tile"), **extra}
    raise _NotACommand(
        "no command produces this event here (an automatic event out of place, "
        "or the event that should precede it is missing)"
    )


def _preset_of(event: dict[str, Any]) -> dict[str, Any]:
    hands = list(event.get("hands") or [])
    dealer = event.get("dealer")
    if isinstance(dealer, int) and 0 <= dealer < len(hands):
        hands[dealer] = f"{hands[dealer]}{event.get('dealer_draw') or ''}"
    return {"hands": hands, "wall": "".join(event.get("wall") or []), "wild": event.get("wild")}


def seed_problem(event: dict[str, Any]) -> Optional[str]:
    """None when the hand's seed derives its commitment, its deal and its wall (G-11), else why not."""
    seed = event.get("seed")
    try:
        derived = shuffle_wall(seed_from_hex(seed))
    except SeedError as exc:
        return f"bad seed: {exc}"
    try:
        wall = _played_wall(event, derived)
    except (TileError, KeyError, TypeError, ValueError) as exc:
        return f"unreadable deal: {exc}"
    if wall is None:
        return "the wall played is not the wall the seed derives"
    if wall != derived or commitment(salt_for(seed_from_hex(seed)), wall) != (event.get("commitment") or ""):
        return "the seed and the wall played do not match the published commitment"
    return None


def _played_wall(event: dict[str, Any], derived: list[int]) -> Optional[list[int]]:
    """The 136-tile wall as the deal took it (engine/table.py _start_hand), or None if the deal disagrees.

    Hands are recorded sorted, so each seat's 13 tiles are checked as a multiset and the block is
    taken in the derived order; the dealer's 14th tile and the rest of the wall are checked in order.
    """
    dealer = event["dealer"]
    wall: list[int] = []
    for i in range(4):
        seat = (dealer + i) % 4
        block = derived[13 * i : 13 * i + 13]
        if sorted(parse(event["hands"][seat])) != sorted(block):
            return None
        wall.extend(block)
    wall.append(kind(event["dealer_draw"]))
    wall.extend(kind(t) for t in event["wall"])
    if len(wall) != len(derived):
        return None
    return wall


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, sort_keys=True))


def _difference(got: dict[str, Any], expected: dict[str, Any]) -> str:
    if got.get("type") != expected.get("type"):
        return f"the engine produces {expected.get('type')} here, the log has {got.get('type')}"
    diffs: list[str] = []
    _diff_into(_plain(got), _plain(expected), "", diffs)
    return "does not match the engine's: " + "; ".join(diffs[:4])


def _diff_into(got: Any, expected: Any, path: str, out: list[str]) -> None:
    if isinstance(got, dict) and isinstance(expected, dict):
        for key in sorted(set(got) | set(expected)):
            _diff_into(got.get(key), expected.get(key), f"{path}.{key}" if path else key, out)
    elif got != expected:
        out.append(f"{path}: log {_short(got)}, engine {_short(expected)}")


def _short(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[:limit] + "…"


__all__ = ["AuditFailure", "AuditReport", "ENGINE_EVENT_TYPES", "audit", "command_for", "seed_problem"]
