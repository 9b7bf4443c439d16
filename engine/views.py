"""What one seat (or a spectator) may see: `view(state, seat)` and `redact(event, viewer)`."""

from __future__ import annotations

from typing import Any, Optional, Union

from engine.actions import legal_actions, pending_seats
from engine.state import MatchState
from engine.tiles import format_hand, name
from engine.versions import DECISION

Viewer = Union[int, None, str]  # a seat, None for the public, "all" for the full record


def view(state: MatchState, seat: Optional[int]) -> dict[str, Any]:
    """Everything `seat` may know now (G-11 secrets, other hands and face-down tiles stripped)."""
    hand = state.hand
    out = {
        "variant": state.variant, "options": state.options, "phase": state.phase,
        "hands_played": state.hands_played, "dealer": state.dealer, "scores": list(state.scores),
        "seat": seat, "pending": pending_seats(state) if hand else [],
        "legal_actions": legal_actions(state, seat) if seat is not None and hand else [],
        "last_result": state.last_result and redact(state.last_result, seat),
        "hand": None,
    }
    if hand is not None:
        out["hand"] = _hand_view(state, seat)
    return out


def _hand_view(state: MatchState, seat: Optional[int]) -> dict[str, Any]:
    hand = state.in_hand
    window = hand.window
    return {
        "number": hand.number, "dealer": hand.dealer, "wild": name(hand.wild) if hand.wild is not None else None,
        "commitment": hand.commitment, "wall_count": hand.wall_count, "turn": hand.turn,
        "seats": [_seat_view(state, s, seat) for s in range(4)],
        "window": None if window is None else {
            "kind": window.kind, "tile": name(window.tile) if window.tile is not None else None,
            "source": window.source, "asked": sorted(window.allowed), "answered": sorted(window.responses),
        },
        "drawn": name(hand.drawn) if hand.drawn is not None and seat == hand.turn else None,
    }


def _seat_view(state: MatchState, s: int, viewer: Optional[int]) -> dict[str, Any]:
    me = state.in_hand.seats[s]
    own = viewer == s
    return {
        "seat": s, "ready": me.ready, "concealed_count": sum(me.counts),
        "concealed": format_hand(k for k, n in enumerate(me.counts) for _ in range(n)) if own else None,
        "melds": [{"type": m["type"], "tile": name(m["tile"]), "kong": m["kong"], "from": m["from"]}
                  for m in me.melds],
        "discards": [d.copy() if own or not d["face_down"] else {**d, "tile": None} for d in me.discards],
    }


def redact(event: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
    """The event as `viewer` may see it: a seat sees its own private fields, nobody sees G-11 secrets."""
    if viewer == "all":
        return event
    if DECISION in event:  # who was asked / may rob / the waits: secret while the match runs (issue 13/14)
        event = {k: v for k, v in event.items() if k != DECISION}
    kind_ = event.get("type")
    if kind_ == "hand_started":
        out = {k: v for k, v in event.items() if k not in ("seed", "wall", "hands", "dealer_draw")}
        out["hands"] = [h if s == viewer else None for s, h in enumerate(event["hands"])]
        out["dealer_draw"] = event["dealer_draw"] if viewer == event["dealer"] else None
        return out
    if kind_ == "drew" and event["seat"] != viewer:
        return {**event, "tile": None}
    if kind_ == "discarded" and event["face_down"] and event["seat"] != viewer:
        return {**event, "tile": None}
    return event
