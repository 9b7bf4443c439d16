"""What a seat may do now: `legal_actions(state, seat)`, and the variant hooks lookup."""

from __future__ import annotations

from typing import Any

from engine.event_types import WinBy
from engine.state import CLAIM, ROB, TING, TURN, MatchState
from engine.tiles import name
from engine.variants import get
from engine.variants.base import Variant

#: Every action a command may name (the service validates against this list too).
ACTIONS = ("discard", "pung", "kong", "hu", "pass", "ting")


def variant_of(state: MatchState) -> Variant:
    """The rule hooks of the variant the state names, under its options and rules version (built
    from the registry entry once; kept among the state's derived answers, across events and copies)."""
    rules = state.cache.get("rules")
    if rules is None:
        rules = state.cache["rules"] = get(state.variant).rules(state.options, state.rules_version)
    assert isinstance(rules, Variant)
    return rules


def self_draw_kind(state: MatchState) -> WinBy:
    return "kong_draw" if state.in_hand.draw_source == "kong" else "self_draw"


_DISCARDS = tuple({"action": "discard", "tile": name(k)} for k in range(34))


def legal_actions(state: MatchState, seat: int) -> list[dict[str, Any]]:
    """Every command `seat` may send now, as dicts without the seat (`[]` if nothing is pending)."""
    return [dict(a) for a in legal_templates(state, seat)]


def legal_templates(state: MatchState, seat: int) -> list[dict[str, Any]]:
    """`legal_actions` without the copies, kept until the next event: read it, never change it."""
    key = ("legal", seat)
    found = state.cache.get(key)
    if found is None:
        found = state.cache[key] = _legal_actions(state, seat)
    return found


def _legal_actions(state: MatchState, seat: int) -> list[dict[str, Any]]:
    hand = state.hand
    if hand is None or hand.win is not None:
        return []
    if state.phase in (CLAIM, ROB, TING):
        window = hand.open_window
        if seat in window.allowed and seat not in window.responses:
            return [{"action": a} for a in window.allowed[seat]]
        return []
    if state.phase == TURN and seat == hand.turn and not hand.need_draw:
        return turn_actions(state, seat)
    return []


def pending_seats(state: MatchState) -> list[int]:
    """Seats whose decision the game is waiting for."""
    hand = state.hand
    if hand is None or hand.win is not None:
        return []
    if state.phase in (CLAIM, ROB, TING):
        window = hand.open_window
        return sorted(s for s in window.allowed if s not in window.responses)
    if state.phase == TURN and not hand.need_draw:
        return [hand.turn]
    return []


def turn_actions(state: MatchState, seat: int) -> list[dict[str, Any]]:
    hand = state.in_hand
    rules = variant_of(state)
    me = hand.seats[seat]
    if hand.dealer_ting_then_hu:  # H-4: declared on a complete hand, now 胡
        return [{"action": "hu"}]
    out: list[dict[str, Any]] = []
    if hand.drawn is not None and rules.hu_allowed(state, seat, hand.drawn, self_draw_kind(state), None):
        out.append({"action": "hu"})
    kongs = sorted(set(rules.concealed_kongs(hand, seat)) | set(rules.added_kongs(hand, seat)))
    out.extend({"action": "kong", "tile": name(k)} for k in kongs)
    if me.ready and hand.drawn is not None:  # K-3 / H-4 locked hand: only the drawn tile goes
        out.append({"action": "discard", "tile": name(hand.drawn)})
        return out
    if rules.may_ting_then_hu(state, seat):
        out.append({"action": "ting"})
    out.extend({"action": "ting", "tile": name(k)} for k in rules.turn_ting_tiles(state, seat))
    out += [_DISCARDS[k] for k, n in enumerate(me.counts) if n]  # shared templates: callers get copies
    return out
