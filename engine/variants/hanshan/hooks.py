"""含山麻将: the table hooks (a `Variant` subclass, engine/variants/base.py)."""

from __future__ import annotations

from typing import Any, Optional

from engine.variants.hanshan import scoring as hanshan_scoring
from engine.state import HandState, MatchState
from engine.variants.base import Variant, hand_facts


class Hanshan(Variant):
    name = "hanshan"
    seven_pairs = False  # H-1
    locked_may_kong = False  # H-4: no pung or kong after 报听

    @staticmethod
    def stand_in_for(wild: Optional[int]) -> Optional[tuple[int, int]]:
        return hanshan_scoring.white_stand_in(wild)  # H-2

    def ting_phase_seats(self, hand: HandState) -> list[int]:
        """H-4: non-dealers whose 13 dealt tiles wait on something are asked 听 or 过 first."""
        return [s for s in range(4) if s != hand.dealer and self.is_ready(hand, hand.seats[s].counts, 4)]

    def is_ready(self, hand: HandState, counts: list[int], sets: int) -> bool:
        """Waiting on something: one more tile (a drawn 配子 at least) would complete the hand."""
        return hand_facts(tuple(counts), sets, hand.wild, self.seven_pairs, self.stand_in(hand)).one_wild_completes()

    def hu_allowed(self, state: MatchState, seat: int, tile: int, by: str, source: Optional[int]) -> bool:
        """H-3 cheap refusals first: a 配子 holder wins only by self-draw; a discarded 配子 needs 见配给胡."""
        hand = state.in_hand
        if by in ("discard", "rob_kong") and hand.wild is not None:
            if tile == hand.wild and not self.options["win_on_discarded_wild"]:
                return False
            if self.options["wild_self_draw_only"] and (hand.seats[seat].counts[hand.wild] or tile == hand.wild):
                return False
        return super().hu_allowed(state, seat, tile, by, source)

    def is_dealer_opening(self, hand: HandState, seat: int) -> bool:
        return seat == hand.dealer and hand.discard_count == 0 and not hand.seats[seat].ready

    def turn_ting_tiles(self, state: MatchState, seat: int) -> list[int]:
        """H-4: the dealer may declare with a discard before the first discard of the hand."""
        hand = state.in_hand
        if not self.is_dealer_opening(hand, seat):
            return []
        me = hand.seats[seat]
        sets = 4 - len(me.melds)
        return self.ready_after(hand, me.counts, sets)

    def may_ting_then_hu(self, state: MatchState, seat: int) -> bool:
        """H-4: a dealer whose first 14 tiles are complete may 听 and then 胡."""
        hand = state.in_hand
        return (
            self.is_dealer_opening(hand, seat)
            and hand.draw_source == "deal"
            and self.is_complete(hand, hand.seats[seat])
        )

    def heavenly(self, hand: HandState, seat: int, by: str) -> bool:
        """H-7 tianhu: the dealer wins on the first 14 tiles, not after a concealed kong."""
        return (
            seat == hand.dealer
            and by == "self_draw"
            and hand.discard_count == 0
            and hand.kong_count == 0
            and hand.draw_source == "deal"
        )

    def dealer_first_discard(self, hand: HandState, seat: int, by: str) -> bool:
        """H-7 dihu: a non-dealer wins on the dealer's first discard."""
        return seat != hand.dealer and by == "discard" and hand.discard_count == 1

    def settle(self, state: MatchState) -> dict[str, Any]:
        """H-5/H-10/H-11: everything is in the winner's score; nothing is paid on 流局."""
        win = state.in_hand.won
        result = hanshan_scoring.score(
            self.win_context(state, win["seat"], win["tile"], win["by"], win["from"], in_hand=True)
        )
        return {
            "deltas": result["deltas"],
            "win_deltas": result["deltas"],
            "kong_deltas": [0, 0, 0, 0],
            "score": result,
        }

    def next_dealer(self, state: MatchState, winner: Optional[int]) -> int:
        """H-12: the dealer keeps the deal on a dealer win or 流局; any other winner passes it on."""
        dealer = state.in_hand.dealer
        return dealer if winner is None or winner == dealer else (dealer + 1) % 4
