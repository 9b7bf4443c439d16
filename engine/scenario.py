"""Playing one preset hand from a scenario (the `tilefold scenario` contract)."""

from __future__ import annotations

from typing import Any, Optional

from engine.actions import legal_actions
from engine.errors import IllegalAction
from engine.state import CLAIM, ROB, TING, MatchState
from engine.table import decide, fold, initial_state


class ScenarioError(ValueError):
    """The scenario file itself is malformed (exit status 2)."""


class ScenarioActionError(Exception):
    """An action of the scenario is illegal (exit status 1); names its index."""

    def __init__(self, index: int, error: IllegalAction):
        super().__init__(error.message)
        self.index, self.error = index, error

    def as_dict(self) -> dict[str, Any]:
        return {"error": "illegal_action", "index": self.index, **self.error.as_dict()}


def run_scenario(spec: dict[str, Any]) -> dict[str, Any]:
    """Play the preset hand and the listed actions; return {"events": [...], "result": ...}."""
    state, events = _start(spec)
    for index, action in enumerate(_actions(spec)):
        if state.phase in ("hand_over", "match_over"):
            raise ScenarioActionError(index, IllegalAction("hand_over", "the hand is already over"))
        seat = action["seat"]
        state = _pass_others(state, events, seat)
        command = {k: action[k] for k in ("seat", "action", "tile") if action.get(k) is not None}
        try:
            new = decide(state, command)
        except IllegalAction as exc:
            raise ScenarioActionError(index, exc) from None
        events.extend(new)
        state = fold(new, state)
    return {"events": events, "result": _result(events)}


def _start(spec: dict[str, Any]) -> tuple[MatchState, list[dict[str, Any]]]:
    if not isinstance(spec, dict):
        raise ScenarioError("a scenario is a JSON object")
    dealer = spec.get("dealer", 0)
    if isinstance(dealer, bool) or dealer not in (0, 1, 2, 3):
        raise ScenarioError("dealer must be 0..3")
    state = initial_state()
    events: list[dict[str, Any]] = []
    preset = {"hands": spec.get("hands"), "wall": spec.get("wall", ""), "wild": spec.get("wild")}
    commands = [
        {
            "action": "start_match",
            "variant": spec.get("variant"),
            "options": spec.get("options") or {},
            "first_dealer": dealer,
        },
        {"action": "start_hand", "preset": preset},
    ]
    for command in commands:
        try:
            new = decide(state, command)
        except IllegalAction as exc:
            raise ScenarioError(exc.message) from None
        events.extend(new)
        state = fold(new, state)
    return state, events


def _actions(spec: dict[str, Any]) -> list[dict[str, Any]]:
    actions = spec.get("actions", [])
    if not isinstance(actions, list):
        raise ScenarioError("actions must be a list")
    for i, a in enumerate(actions):
        if not isinstance(a, dict) or not isinstance(a.get("action"), str):
            raise ScenarioError(f'action {i} must be an object with an "action"')
        if isinstance(a.get("seat"), bool) or a.get("seat") not in (0, 1, 2, 3):
            raise ScenarioError(f"action {i}: seat must be 0..3")
    return actions


def _pass_others(state: MatchState, events: list[dict[str, Any]], seat: int) -> MatchState:
    """Players asked in a window who are not named by the next action are taken to pass."""
    while state.phase in (CLAIM, ROB, TING):
        others = [s for s in sorted(state.in_hand.open_window.allowed) if s != seat and legal_actions(state, s)]
        if not others:
            break
        new = decide(state, {"seat": others[0], "action": "pass"})
        events.extend(new)
        state = fold(new, state)
    return state


def _result(events: list[dict[str, Any]]) -> Optional[dict[str, Any]]:
    ended = next((e for e in events if e["type"] == "hand_ended"), None)
    if ended is None:
        return None
    settlement = ended["settlement"]
    score = settlement.get("score") or {}
    return {
        "outcome": ended["outcome"],
        "winner": ended["winner"],
        "win_by": ended["win"]["by"] if ended["win"] else None,
        "patterns": score.get("patterns", []),
        "deltas": settlement["deltas"],
    }
