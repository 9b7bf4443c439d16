"""玩具麻将: the table hooks (a `Variant` subclass, engine/variants/base.py): only the two every variant gives."""

from __future__ import annotations

from typing import Any, Optional

from engine.state import MatchState
from engine.variants.base import Variant

from . import scoring as toy_scoring


class Toy(Variant):
    name = "toy"

    def settle(self, state: MatchState) -> dict[str, Any]:
        win = state.in_hand.won
        result = toy_scoring.score(
            self.win_context(state, win["seat"], win["tile"], win["by"], win["from"], in_hand=True)
        )
        return {
            "deltas": result["deltas"],
            "win_deltas": result["deltas"],
            "kong_deltas": [0, 0, 0, 0],
            "score": result,
        }

    def next_dealer(self, state: MatchState, winner: Optional[int]) -> int:
        return (state.in_hand.dealer + 1) % 4
