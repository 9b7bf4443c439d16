"""Standing orders and timeouts: which automatic command a human seat's decision gets, if any.

No game rules here: the engine says what is legal (`engine.legal_actions`) and what a timeout
does (`engine.default_action`); this module only decides *whether* to answer for the seat.
"""

from __future__ import annotations

from typing import Iterable, Optional

import engine

from .match import Loaded

STANDING_ORDER = "standing_order"
TIMEOUT = "timeout"
MIN_DEADLINE, MAX_DEADLINE = 3600, 604800  # 1 hour .. 7 days


def standing_order(loaded: Loaded, seat: int) -> Optional[dict]:
    """The command a seat's standing orders give for its pending decision, or None.

    * `auto_pass`: a question with `pass` among its answers (a claim window, the rob-the-kong
      window, the 含山 报听 window) is answered `pass`, unless `hu` is among the legal actions.
    * `auto_discard`: on its own turn after a draw, the drawn tile is discarded, unless `hu` is
      legal (kongs and 报听 are forgone: switch the order off to declare them).
    """
    auto_pass, auto_discard = loaded.room.orders[seat]
    if not (auto_pass or auto_discard):
        return None
    acts = engine.legal_actions(loaded.state, seat)
    names = {act["action"] for act in acts}
    if not acts or "hu" in names:
        return None
    if auto_pass and "pass" in names:
        return {"action": "pass", "seat": seat, "reason": STANDING_ORDER}
    if auto_discard and "discard" in names:
        hand = engine.view(loaded.state, seat).get("hand") or {}
        drawn = hand.get("drawn")
        if drawn is not None and {"action": "discard", "tile": drawn} in acts:
            return {"action": "discard", "tile": drawn, "seat": seat, "reason": STANDING_ORDER}
    return None


def timeout(loaded: Loaded, seat: int) -> dict:
    """The engine's default for an overdue decision, recorded with reason `timeout`."""
    return {**engine.default_action(loaded.state, seat), "seat": seat, "reason": TIMEOUT}


def automatic(loaded: Loaded, overdue: Iterable[int]) -> Optional[dict]:
    """Standing orders first (every pending human seat), then the first overdue decision."""
    if not loaded.started or loaded.over or loaded.state.needs_new_hand:
        return None
    pending = [seat for seat in engine.pending_seats(loaded.state) if not loaded.room.is_bot(seat)]
    for seat in pending:
        command = standing_order(loaded, seat)
        if command is not None:
            return command
    late = set(overdue)
    for seat in pending:
        if seat in late:
            return timeout(loaded, seat)
    return None
