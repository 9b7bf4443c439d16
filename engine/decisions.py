"""The rules' decisions, for `engine.evolve.apply`: computed when deciding live (and recorded on the
event), read back from the event when folding, and computed again for logs of rules version 1,
which predate recorded decisions. The keys are listed in engine/evolve.py's docstring."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.actions import variant_of
from engine.evolve import CorruptEvent, recorded
from engine.state import MatchState
from engine.tiles import kind, name
from engine.versions import DECISION, FIRST_DATA_VERSION


def by_rules(state: MatchState, event: dict[str, Any], key: str) -> Any:
    """The decision `key` of `event` as the match's rules (its variant, under its rules version) take it."""
    rule = _RULES.get(key)
    if rule is None:
        raise CorruptEvent(f"no rule decides {key!r}")
    return rule(state, event)


def recorded_else_rules(state: MatchState, event: dict[str, Any], key: str) -> Any:
    """Folding a log: the recorded decision; for a log of rules version 1 (none recorded), the rules'."""
    made = event.get(DECISION)
    if (not isinstance(made, dict) or key not in made) and state.rules_version < FIRST_DATA_VERSION:
        return by_rules(state, event, key)
    return recorded(state, event, key)


class Recording:
    """Deciding live: the rules decide, and every decision is kept for the decider to record on its
    event (from rules version 2 on, `engine.table` writes `made` under `event["decision"]`)."""

    def __init__(self) -> None:
        self.made: dict[str, Any] = {}

    def __call__(self, state: MatchState, event: dict[str, Any], key: str) -> Any:
        value = self.made[key] = by_rules(state, event, key)
        return value


def robbers(state: MatchState, konger: int, tile: int) -> list[int]:
    """G-7: the seats that may rob an added kong of `tile`, nearest 下家 first."""
    rules = variant_of(state)
    return [s for s in after(konger) if rules.hu_allowed(state, s, tile, "rob_kong", konger)]


def after(seat: int) -> list[int]:
    """G-2: the other seats in turn order, nearest 下家 first."""
    return [(seat + i) % 4 for i in (1, 2, 3)]


def _ting(state: MatchState, event: dict[str, Any]) -> list[int]:
    return variant_of(state).ting_phase_seats(state.in_hand)  # H-4


def _waits(state: MatchState, event: dict[str, Any]) -> list[str]:
    """The waits of a declared hand (K-3 `kong_keeps_waits`)."""
    me = state.in_hand.seats[event["seat"]]
    return [name(k) for k in variant_of(state).waits(state.in_hand, me.counts, 4 - len(me.melds))]


def _claims(state: MatchState, event: dict[str, Any]) -> dict[str, list[str]]:
    """G-6: only players with a legal claim are asked (K-2: nobody claims a face-down tile).
    Seats are string keys: the decision is JSON as stored."""
    if event["face_down"]:
        return {}
    discarder, tile = event["seat"], kind(event["tile"])
    rules = variant_of(state)
    hand = state.in_hand
    allowed: dict[str, list[str]] = {}
    for seat in after(discarder):
        options = []
        if rules.hu_allowed(state, seat, tile, "discard", discarder):
            options.append("hu")
        if rules.can_exposed_kong(hand, seat, tile):
            options.append("kong")
        if rules.can_pung(hand, seat, tile):
            options.append("pung")
        if options:
            allowed[str(seat)] = options + ["pass"]
    return allowed


def _passed_hu(state: MatchState, event: dict[str, Any]) -> bool:
    return variant_of(state).pass_restricts_win  # K-5 过胡


def _forfeits_kong(state: MatchState, event: dict[str, Any]) -> bool:
    return variant_of(state).pung_forfeits_kong  # K-6


def _robbers(state: MatchState, event: dict[str, Any]) -> list[int]:
    return robbers(state, event["seat"], kind(event["tile"]))


_RULES: dict[str, Callable[[MatchState, dict[str, Any]], Any]] = {
    "ting": _ting,
    "waits": _waits,
    "claims": _claims,
    "passed_hu": _passed_hu,
    "forfeits_kong": _forfeits_kong,
    "robbers": _robbers,
}
