"""What one seat (or a spectator) may see: `view(state, seat)` and `redact(event, viewer)`.

This module is the one place where secrecy is decided (boardgame.io's playerView at the edge).
Besides hidden tiles and G-11 secrets it hides the *tells* of a decision window (G-6 claims, G-7
robbing a kong, H-4 报听 at the deal): only seats with a legal claim are asked, so naming the
asked seats, their answers, or even the kind of window (a rob window means "someone wins on
this tile") would tell the table about concealed tiles. While a window is open, a seat sees
only its own part of it; everyone else sees that "the table is waiting", naming nobody. After
it closes, only what the table would see remains (the claim that won, a win, a 报听).
"""

from __future__ import annotations

from typing import Any, Optional, Union

from engine.actions import legal_actions, pending_seats, variant_of
from engine.state import CLAIM, ROB, TING, MatchState
from engine.tiles import format_hand, name
from engine.versions import DECISION

Viewer = Union[int, None, str]  # a seat, None for the public, "all" for the full record

WINDOW_PHASES = (CLAIM, ROB, TING)
WAITING = "waiting"  # the phase and window kind shown to anyone not asked in an open window
#: The one key under which an engine event may carry decision data naming seats (who is asked,
#: who may rob, who answered what). Stripped for every viewer but "all" (docs/COORD: secrecy).
DECISION_KEY = DECISION
#: The only event types `redact` may hide from a viewer (`hidden_from`): window answers and the
#: robbable added kong. The service's per-viewer versions read only these (service/model/numbering.py).
MAY_HIDE = frozenset({"kong_declared", "responded", "ting_declared"})


def view(state: MatchState, seat: Viewer) -> dict[str, Any]:
    """Everything `seat` may know now (G-11 secrets, other hands, face-down tiles and tells stripped).

    `seat` "all" shows everything (finished matches' replay)."""
    hand = state.hand
    out = {
        "variant": state.variant,
        "options": state.options,
        "phase": public_phase(state, seat),
        "hands_played": state.hands_played,
        "dealer": state.dealer,
        "scores": list(state.scores),
        "seat": seat,
        "pending": public_pending(state, seat) if hand else [],
        "waiting": table_waiting(state, seat),
        "legal_actions": legal_actions(state, seat) if isinstance(seat, int) and hand else [],
        "last_result": _last_result(state, seat),
        "hand": None,
    }
    if hand is not None:
        out["hand"] = _hand_view(state, seat)
    return out


def seat_view(state: MatchState, seat: Viewer) -> dict[str, Any]:
    """The part of `view` a seat's own decision reads (the bots' `Knowledge`): variant, options, seat
    and the hand, built as `view` builds them, without the match-level parts (the last result's
    explanation, pending, legal actions)."""
    return {
        "variant": state.variant,
        "options": state.options,
        "seat": seat,
        "hand": _hand_view(state, seat) if state.hand is not None else None,
    }


#: G-2's seat winds in table order from the dealer (东南西北), as tile names of G-1
WINDS = ("E", "S", "W", "N")


def seat_winds(dealer: int) -> list[str]:
    """Each seat's wind in a hand dealt by `dealer` (G-2: the dealer sits East, 下家 South …)."""
    return [WINDS[(s - dealer) % 4] for s in range(4)]


def _last_result(state: MatchState, seat: Viewer) -> Optional[dict[str, Any]]:
    """The last hand_ended as `seat` may see it, with that hand's dealer and seat winds (the next
    hand's dealer is `state.dealer`) and its win explained (engine.explain, as the replay shows it)."""
    from engine.explain import explain_settled

    if state.last_result is None:
        return None
    shown = redact(state.last_result, seat)
    if shown is None or state.last_hand is None:
        return shown
    hand = state.last_hand
    return {
        **shown,
        "dealer": hand.dealer,
        "winds": seat_winds(hand.dealer),
        "wild": name(hand.wild) if hand.wild is not None else None,
        "melds": [[_meld_view(m) for m in s.melds] for s in hand.seats],
        "explain": explain_settled(state),
    }


def asked_in_window(state: MatchState, seat: Viewer) -> bool:
    """True when `seat` is one of the seats asked in the open window (only that seat may know it)."""
    hand = state.hand
    if state.phase not in WINDOW_PHASES or hand is None or hand.window is None:
        return False
    return seat == "all" or (isinstance(seat, int) and seat in hand.window.allowed)


def public_phase(state: MatchState, seat: Viewer) -> str:
    """The phase as `seat` may see it: "waiting" in a window it is not asked in."""
    if state.phase in WINDOW_PHASES and not asked_in_window(state, seat):
        return WAITING
    return state.phase


def public_pending(state: MatchState, seat: Viewer) -> list[int]:
    """The pending seats `seat` may know of: in a window only itself (if it still has to answer)."""
    pending = pending_seats(state)
    if state.phase not in WINDOW_PHASES or seat == "all":
        return pending
    return [s for s in pending if s == seat]


def table_waiting(state: MatchState, seat: Viewer) -> bool:
    """True while a window is open on somebody else's answer (named to nobody): for a seat not
    asked, as long as the window is open; for an asked seat, once it has answered. It never depends
    on other seats' answers, so an asked seat does not learn that another one was asked, or
    answered, before the window closes (G-6, G-7, H-4)."""
    if state.phase not in WINDOW_PHASES or state.hand is None or state.hand.window is None:
        return False
    window = state.hand.window
    if seat == "all":
        return any(s not in window.responses for s in window.allowed)
    return not asked_in_window(state, seat) or seat in window.responses


def _hand_view(state: MatchState, seat: Viewer) -> dict[str, Any]:
    hand = state.in_hand
    return {
        "number": hand.number,
        "dealer": hand.dealer,
        "winds": seat_winds(hand.dealer),
        "wild": name(hand.wild) if hand.wild is not None else None,
        "stand_in": _stand_in(state, hand.wild),
        "commitment": hand.commitment,
        "wall_count": hand.wall_count,
        "turn": hand.turn,
        "seats": [_seat_view(state, s, seat) for s in range(4)],
        "window": _window_view(state, seat),
        "drawn": name(hand.drawn) if hand.drawn is not None and seat in (hand.turn, "all") else None,
    }


def _stand_in(state: MatchState, wild: Optional[int]) -> Optional[dict[str, str]]:
    """The tile that stands in for another kind this hand (H-2: 白板 plays the 配子's kind), or None."""
    pair = variant_of(state).stand_in_for(wild) if wild is not None else None
    return None if pair is None else {"tile": name(pair[0]), "as": name(pair[1])}


def _window_view(state: MatchState, seat: Viewer) -> Optional[dict[str, Any]]:
    window = state.in_hand.window
    if window is None or state.phase not in WINDOW_PHASES:
        return None
    if not asked_in_window(state, seat):
        return {"kind": WAITING, "tile": None, "source": None, "asked": [], "answered": []}
    mine = (lambda s: True) if seat == "all" else (lambda s: s == seat)
    return {
        "kind": window.kind,
        "tile": name(window.tile) if window.tile is not None else None,
        "source": window.source,
        "asked": sorted(s for s in window.allowed if mine(s)),
        "answered": sorted(s for s in window.responses if mine(s)),
    }


def _seat_view(state: MatchState, s: int, viewer: Viewer) -> dict[str, Any]:
    me = state.in_hand.seats[s]
    own = viewer in (s, "all")
    ready: Optional[bool] = me.ready
    if state.phase == TING and not own:
        ready = None  # H-4: a 报听 at the deal is an answer in the open window; shown once it closes
    return {
        "seat": s,
        "ready": ready,
        "concealed_count": sum(me.counts),
        "concealed": format_hand(k for k, n in enumerate(me.counts) for _ in range(n)) if own else None,
        "melds": [_meld_view(m) for m in me.melds],
        "discards": [d.copy() if own or not d["face_down"] else {**d, "tile": None} for d in me.discards],
    }


def _meld_view(m: dict[str, Any]) -> dict[str, Any]:
    return {"type": m["type"], "tile": name(m["tile"]), "kong": m["kong"], "from": m["from"]}


def redact(event: dict[str, Any], viewer: Viewer) -> Optional[dict[str, Any]]:
    """The event as `viewer` may see it, or None when `viewer` may not see it at all.

    A seat sees its own private fields; nobody sees G-11 secrets, or any decision data
    (`DECISION_KEY`); what `hidden_from` hides is not shown at all."""
    if viewer == "all":
        return event
    if hidden_from(event, viewer):
        return None
    if DECISION in event:  # who was asked / may rob / the waits: secret while the match runs
        event = {k: v for k, v in event.items() if k != DECISION}
    kind_ = event.get("type")
    if kind_ == "hand_started":
        out = {k: v for k, v in event.items() if k not in ("seed", "wall", "hands", "dealer_draw")}
        if "wall_parts" in event:  # the seats' parts are public; the server's part only at hand end (G-11)
            out["wall_parts"] = {**event["wall_parts"], "server": None}
        out["hands"] = [h if s == viewer else None for s, h in enumerate(event["hands"])]
        out["dealer_draw"] = event["dealer_draw"] if viewer == event["dealer"] else None
        return out
    if kind_ == "drew" and event["seat"] != viewer:
        return {**event, "tile": None}
    if kind_ == "discarded" and event["face_down"] and event["seat"] != viewer:
        return {**event, "tile": None}
    return event


def hidden_from(event: dict[str, Any], viewer: Viewer) -> bool:
    """True when `viewer` may not see `event` at all; it depends on the event and the viewer only
    (never on the state), so the service can number each viewer's events (per-viewer versions).

    Hidden: another seat's answer in a window (`responded`, a 报听 in the open H-4 ting window; the
    event that resolves the window shows what the table sees), and a `kong_declared` (G-7: its type
    tells the added kong is robbable) from everyone but the seats it asks to rob, who are asked
    anyway (a log of rules version 1 records no robbers: hidden from all)."""
    kind_ = event.get("type")
    if viewer == "all" or kind_ not in MAY_HIDE:
        return False
    if kind_ == "kong_declared":
        decision = event.get(DECISION)
        robbers = decision.get("robbers") if isinstance(decision, dict) else None
        return not (isinstance(viewer, int) and isinstance(robbers, list) and viewer in robbers)
    return _window_answer(event) and event.get("seat") != viewer


def _window_answer(event: dict[str, Any]) -> bool:
    """An answer given in a window: every `responded`, and a 报听 at the deal (H-4, no `with_discard`)."""
    return event.get("type") == "responded" or "with_discard" not in event
