"""山西扣点点: the table hooks (a `Variant` subclass, engine/variants/base.py)."""

from __future__ import annotations

from typing import Any, Optional

from engine import hand as analysis
from engine.variants.koudiandian import scoring as kdd_scoring
from engine.state import HandState, MatchState, SeatHand
from engine.tiles import NUM_KINDS, points
from engine.variants.base import Variant, hand_facts, _minus

_SIX_OR_MORE = tuple(k for k in range(NUM_KINDS) if points(k) >= kdd_scoring.READY_MIN_POINTS)  # K-2


class Koudiandian(Variant):
    name = "koudiandian"
    seven_pairs = True  # K-7 七小对 and its richer forms win
    locked_may_kong = True  # K-3
    face_down_ting = True  # K-2: the declaring discard lies face down
    pung_forfeits_kong = True  # K-6: choosing pung when kong was possible gives that kong up
    pass_restricts_win = True  # K-5 过胡

    def turn_ting_tiles(self, state: MatchState, seat: int) -> list[int]:
        """K-2: discards after which the hand waits on at least one tile worth 6 or more."""
        hand = state.in_hand
        me = hand.seats[seat]
        if me.ready:
            return []
        sets = 4 - len(me.melds)
        facts = hand_facts(tuple(me.counts), sets, hand.wild, self.seven_pairs, self.stand_in(hand))
        found = facts.answers.get("ting")
        if found is None:
            found = facts.answers["ting"] = tuple(
                tile
                for tile in facts.ready_after()
                if _waits_on_six_or_more(_minus(list(facts.counts), tile), sets, hand.wild)
            )
        return list(found)

    def _waits_on_six_or_more(self, hand: HandState, counts: list[int], sets: int) -> bool:
        return _waits_on_six_or_more(list(counts), sets, hand.wild)

    def hu_allowed(self, state: MatchState, seat: int, tile: int, by: str, source: Optional[int]) -> bool:
        me = state.in_hand.seats[seat]
        if not me.ready:  # K-2: only a declared hand wins
            return False
        if by in ("discard", "rob_kong") and tile in me.passed_hu:  # K-5 过胡
            return False
        return super().hu_allowed(state, seat, tile, by, source)

    def must_win(self) -> bool:
        """K-5 【有胡必胡】 (the must_win option)."""
        return bool(self.options.get("must_win"))

    def kong_keeps_ready(self, hand: HandState, me: SeatHand, tile: int, removed: int) -> bool:
        """K-3: after a kong the locked hand must still be ready; with kong_keeps_waits, on the same waits."""
        counts = me.counts[:]
        counts[tile] -= removed
        sets = 4 - len(me.melds) - (0 if removed == 1 else 1)
        if sum(counts) != 3 * sets + 1:
            return False
        waits = tuple(self.waits(hand, counts, sets))
        if not waits:
            return False
        return not self.options.get("kong_keeps_waits") or waits == me.ready_waits

    def settle(self, state: MatchState) -> dict[str, Any]:
        """K-8/K-12 win payment from scoring, plus K-9/K-10 kong payments (only when someone won)."""
        hand = state.in_hand
        win = hand.won
        result = kdd_scoring.score(
            self.win_context(state, win["seat"], win["tile"], win["by"], win["from"], in_hand=True)
        )
        source = win["from"]
        kong_deltas = kdd_scoring.kong_payments(
            hand.kongs,
            win["seat"],
            None,
            state.options,
            discarder=source,
            discarder_ready=source is not None and hand.seats[source].ready,
        )
        deltas = [a + b for a, b in zip(result["deltas"], kong_deltas)]
        return {"deltas": deltas, "win_deltas": result["deltas"], "kong_deltas": kong_deltas, "score": result}

    def next_dealer(self, state: MatchState, winner: Optional[int]) -> int:
        """K-11, both dealer rules."""
        dealer = state.in_hand.dealer
        if state.options["dealer_rule"] == "winner":
            return (dealer + 1) % 4 if winner is None else winner
        if winner is None:
            return (dealer + 1) % 4 if state.in_hand.kongs else dealer
        return dealer if winner == dealer else (dealer + 1) % 4


def _waits_on_six_or_more(counts: list[int], sets: int, wild: Optional[int]) -> bool:
    """K-2/K-13: some tile worth 6+ (not the wild's own kind) completes the hand; stops at the first.
    `counts` (wilds included) is the caller's own copy: it is changed."""
    natural = counts
    wilds = 0
    if wild is not None:
        wilds, natural[wild] = natural[wild], 0
    for kind_ in _SIX_OR_MORE:
        if kind_ == wild or natural[kind_] >= 4:
            continue
        natural[kind_] += 1
        done = analysis.is_complete(natural, wilds, sets=sets, seven_pairs=True)
        natural[kind_] -= 1
        if done:
            return True
    return False
