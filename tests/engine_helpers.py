"""Given / when / then helpers for engine tests: preset hands written as strings."""

from __future__ import annotations

from typing import Optional

import pytest

from engine import IllegalAction, decide, fold, initial_state, legal_actions
from engine.state import MatchState


def given(
    variant: str,
    hands: list[str],
    wall: str = "",
    *,
    wild: Optional[str] = None,
    options: Optional[dict] = None,
    dealer: int = 0,
) -> MatchState:
    """A match started with `options` and one preset hand dealt (the dealer's string has 14 tiles)."""
    state = fold(
        decide(
            initial_state(),
            {"action": "start_match", "variant": variant, "options": options or {}, "first_dealer": dealer},
        )
    )
    preset = {"hands": hands, "wall": wall, "wild": wild}
    return fold(decide(state, {"action": "start_hand", "preset": preset}), state)


def when(state: MatchState, seat: int, action: str, tile: Optional[str] = None) -> tuple[MatchState, list[dict]]:
    command = {"seat": seat, "action": action}
    if tile is not None:
        command["tile"] = tile
    events = decide(state, command)
    return fold(events, state), events


def play(state: MatchState, *steps) -> tuple[MatchState, list[dict]]:
    """Several `when`s: steps are (seat, action) or (seat, action, tile)."""
    log: list[dict] = []
    for step in steps:
        state, events = when(state, *step)
        log.extend(events)
    return state, log


def then_refused(
    state: MatchState,
    seat: int,
    action: str,
    tile: Optional[str] = None,
    *,
    rule: Optional[str] = None,
    code: Optional[str] = None,
) -> IllegalAction:
    with pytest.raises(IllegalAction) as info:
        when(state, seat, action, tile)
    if rule is not None:
        assert info.value.rule == rule, info.value.as_dict()
    if code is not None:
        assert info.value.code == code, info.value.as_dict()
    return info.value


def types(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


def only(events: list[dict], type_: str) -> list[dict]:
    return [e for e in events if e["type"] == type_]


def actions(state: MatchState, seat: int) -> set[tuple]:
    return {(a["action"], a.get("tile")) for a in legal_actions(state, seat)}
