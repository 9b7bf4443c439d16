"""Refusals: `IllegalAction` with a stable code and the ruling that forbids the action."""

from __future__ import annotations

from typing import Any, Optional

from engine.state import CLAIM, HAND_OVER, LOBBY, MATCH_OVER, ROB, TING, TURN, MatchState
from engine.tiles import TileError, kind
from engine.variants import get


class IllegalAction(Exception):
    """A command the rules do not allow now. `code` is stable; `rule` names a rule id of docs/RULES.md."""

    def __init__(self, code: str, message: str, rule: Optional[str] = None):
        super().__init__(message)
        self.code, self.message, self.rule = code, message, rule

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "rule": self.rule}


#: refusal code -> (rule id, why) shared by every variant; each variant adds its own (VariantEntry.reasons)
_SHARED_REASONS = {
    "discarded_wild": ("G-9", "nobody may win on a discarded wild"),
    "not_complete": ("G-4", "the hand is not four sets and a pair"),
}


def refusal(state: MatchState, code: str) -> IllegalAction:
    """The refusal `code` with the variant's rule id and words (its registry entry), else the shared ones."""
    entry = get(state.variant)
    fallback = ("G-4", "not a winning hand")
    if code == "not_ready_after_discard":
        fallback = (entry.rule_ids["ting"], "报听 needs a discard after which the hand is ready")
    rule, text = entry.reasons.get(code) or _SHARED_REASONS.get(code) or fallback
    return IllegalAction(code, text, rule)


def explain(state: MatchState, seat: int, wanted: dict[str, Any]) -> IllegalAction:
    """Why `wanted` is not among the seat's legal actions, naming the rule where one applies."""
    from engine.actions import ACTIONS, legal_actions

    phase = state.phase
    if phase in (LOBBY, HAND_OVER, MATCH_OVER) or state.hand is None:
        return IllegalAction("no_hand_in_play", f"no hand is in play (phase {phase})")
    legal = legal_actions(state, seat)
    if not legal:
        return IllegalAction("not_your_turn", f"seat {seat} has no decision pending now")
    action = wanted.get("action")
    if action not in ACTIONS:
        return IllegalAction("unknown_action", f"unknown action {action!r}")
    tile = wanted.get("tile")
    if tile is not None:
        try:
            kind(tile)
        except TileError as exc:
            return IllegalAction("bad_tile", str(exc))
    allowed = sorted({a["action"] for a in legal})
    if action in allowed:
        return _wrong_tile(state, seat, wanted)
    return _why_not(state, seat, action, allowed)


def _wrong_tile(state: MatchState, seat: int, wanted: dict[str, Any]) -> IllegalAction:
    me = state.in_hand.seats[seat]
    action, tile = wanted["action"], wanted.get("tile")
    if action == "discard" and me.ready:
        return IllegalAction(
            "hand_locked", "after 报听 only the drawn tile is discarded", get(state.variant).rule_ids["locked"]
        )  # K-3 / H-4
    if action == "discard" and (tile is None or me.counts[kind(tile)] == 0):
        return IllegalAction("tile_not_held", f"seat {seat} does not hold {tile}")
    if action == "ting":
        return refusal(state, "not_ready_after_discard")
    return IllegalAction("illegal_tile", f"{action} with tile {tile!r} is not allowed now")


def _why_not(state: MatchState, seat: int, action: str, allowed: list[str]) -> IllegalAction:
    me = state.in_hand.seats[seat]
    phase = state.phase
    if action == "hu":
        return _why_no_hu(state, seat)
    if action == "pung" and me.ready:
        return IllegalAction("hand_locked", "no pung after 报听", get(state.variant).rule_ids["locked"])
    if action in ("pung", "kong") and phase == TURN:
        return IllegalAction("no_claim", f"{action} is not possible with these tiles now", "G-5")
    if action == "pass" and phase == TURN:
        return IllegalAction("must_discard", "on your own turn you discard (or win, kong, declare)")
    if action == "ting" and get(state.variant).ting_at_deal_only:
        return IllegalAction(
            "ting_only_at_deal", "报听 only at the start of the hand", get(state.variant).rule_ids["ting"]
        )
    if action == "ting" and me.ready:
        return IllegalAction("already_ready", "报听 has already been declared", get(state.variant).rule_ids["ting"])
    if action == "ting":
        return refusal(state, "not_ready_after_discard")
    from engine.actions import variant_of

    if action == "pass" and phase in (CLAIM, ROB) and variant_of(state).must_win():
        return refusal(state, "must_win")
    return IllegalAction(
        "not_allowed_now",
        f"{action} is not allowed now; allowed: {', '.join(allowed)}",
        "G-6" if phase in (CLAIM, ROB, TING) else None,
    )


def _why_no_hu(state: MatchState, seat: int) -> IllegalAction:
    from engine.actions import self_draw_kind, variant_of

    hand = state.in_hand
    me = hand.seats[seat]
    window = hand.window  # None on the seat's own turn
    if state.phase in (CLAIM, ROB) and window is not None and window.tile is not None:
        tile, by, source = window.tile, ("discard" if state.phase == CLAIM else "rob_kong"), window.source
    elif hand.drawn is not None:
        tile, by, source = hand.drawn, self_draw_kind(state), None
    else:
        return IllegalAction("not_complete", "the hand is not complete", "G-4")
    if variant_of(state).pass_restricts_win and by != "self_draw" and tile in me.passed_hu and me.ready:
        return refusal(state, "passed_hu")
    return refusal(state, variant_of(state).hu_reason(state, seat, tile, by, source) or "not_complete")
