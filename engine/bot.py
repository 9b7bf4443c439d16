"""Server-side players at three levels: `easy` (wins when it can, declares ready, keeps connected
tiles), `normal` (engine.bot_normal: the hand analyser, the worth of waits and flushes, caution)
and `strong` (engine.bot_strong: defence by sampling the declared hands, a look one draw ahead)."""

from __future__ import annotations

from typing import Any

from engine.actions import legal_actions, legal_templates
from engine.state import MatchState
from engine.tiles import KIND_NAMES, is_honour, rank_of


LEVELS = ("easy", "normal", "strong")


def bot_action(state: MatchState, seat: int, level: str = "easy") -> dict[str, Any]:
    """Choose among the seat's legal actions using only what that seat can see."""
    if level == "strong":
        from engine.bot_strong import strong_action
        from engine.views import view

        return strong_action(view(state, seat))  # the seat's view alone: what a person there sees
    if level == "normal":
        from engine.bot_normal import normal_action

        return normal_action(state, seat)
    return easy_action(state, seat)


def easy_action(state: MatchState, seat: int) -> dict[str, Any]:
    """Today's simple bot: hu, ting, kong when offered; pungs honours and lone tiles."""
    acts = legal_templates(state, seat)  # the state's own list: the choice is returned as a copy
    if not acts:
        raise ValueError(f"seat {seat} has nothing to decide")
    by_action: dict[str, list[dict[str, Any]]] = {}
    for act in acts:
        found = by_action.get(act["action"])
        if found is None:
            by_action[act["action"]] = [act]
        else:
            found.append(act)
    for wanted in ("hu", "ting", "kong"):
        if wanted in by_action:
            return dict(_ting_choice(state, seat, by_action[wanted]) if wanted == "ting" else by_action[wanted][0])
    if "pung" in by_action and _pung_helps(state, seat):
        return dict(by_action["pung"][0])
    if "pass" in by_action:
        return {"action": "pass"}
    return dict(_best_discard(state, seat, by_action["discard"]))


def default_action(state: MatchState, seat: int) -> dict[str, Any]:
    """What a timeout does: pass a question, or discard the drawn tile (else the last legal discard)."""
    acts = legal_actions(state, seat)
    if {"action": "pass"} in acts:
        return {"action": "pass"}
    hand = state.in_hand
    discards = [a for a in acts if a["action"] == "discard"]
    if hand.drawn is not None:
        from engine.tiles import name

        drawn = {"action": "discard", "tile": name(hand.drawn)}
        if drawn in discards:
            return drawn
    if discards:
        return discards[-1]
    return acts[0]


def _pung_helps(state: MatchState, seat: int) -> bool:
    tile = state.in_hand.open_window.tile
    if tile is None:
        return False
    return is_honour(tile) or _neighbours(state.in_hand.seats[seat].counts, tile) == 0


def _ting_choice(state: MatchState, seat: int, choices: list[dict[str, Any]]) -> dict[str, Any]:
    """H-4: 听 without a discard (a complete dealer hand, 胡 next) beats 听 with a discard."""
    for choice in choices:
        if "tile" not in choice:
            return choice
    return _best_discard(state, seat, choices)


def _best_discard(state: MatchState, seat: int, choices: list[dict[str, Any]]) -> dict[str, Any]:
    """The first choice least worth keeping: wilds are worth most, then pairs, then tiles with suit
    neighbours (a terminal half a point less)."""
    hand = state.in_hand
    counts = hand.seats[seat].counts
    wild = hand.wild
    best, least = choices[0], None
    for choice in choices:
        tile = _KIND[choice["tile"]]
        if tile == wild:
            value = 100.0
        else:
            total = 0.0
            for near, weight in _NEAR[tile]:
                if counts[near]:
                    total += weight
            value = 3.0 * (counts[tile] - 1) + total
            if tile in _TERMINALS:
                value = value - 0.5
        if least is None or value < least:
            best, least = choice, value
    return best


def _neighbours(counts: list[int], tile: int) -> float:
    total = 0.0
    for near, weight in _NEAR[tile]:
        if counts[near]:
            total += weight
    return total


def _near(tile: int) -> tuple[tuple[int, float], ...]:
    rank = rank_of(tile)
    if rank is None:  # an honour
        return ()
    return tuple(
        (tile + delta, weight) for delta, weight in ((-2, 0.5), (-1, 1.0), (1, 1.0), (2, 0.5)) if 1 <= rank + delta <= 9
    )


_NEAR = tuple(_near(k) for k in range(34))
_TERMINALS = frozenset(k for k in range(27) if rank_of(k) in (1, 9))
_KIND = {text: k for k, text in enumerate(KIND_NAMES)}
