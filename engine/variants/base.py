"""What both variants share at the table: hand checks, claims, kongs, settlement hooks (G-rulings)."""

from __future__ import annotations

from typing import Any, Optional

from engine import hand as analysis
from engine.scoring import legality
from engine.state import HandState, MatchState, SeatHand
from engine.versions import RULES_VERSION
from engine.win import Meld, WinContext


class Variant:
    """Rule hooks of one variant. Subclasses override what differs; the table flow calls these."""

    name = ""
    seven_pairs = False  # K-7 qixiaodui wins in 扣点点; H-1 never in 含山
    locked_may_kong = False  # K-3 allows kongs after 报听; H-4 does not
    face_down_ting = False  # K-2 lays the declaring discard face down
    pung_forfeits_kong = False  # K-6 (a 扣点点 rule only, G-5/K-6 clarification)
    pass_restricts_win = False  # K-5 过胡 (含山 has none, H-1)

    def __init__(self, options: dict[str, Any], rules_version: int = RULES_VERSION):
        self.options = options
        self.rules_version = rules_version
        if rules_version < 2:
            self.pung_forfeits_kong = True  # version 1 forfeited in both variants (before G-5/K-6)

    # ---- hand analysis with the hand's wild -------------------------------------------------
    def split(self, hand: HandState, counts: list[int]) -> tuple[list[int], int]:
        """Natural counts and the number of wilds (G-9: every copy of the wild kind is wild)."""
        if hand.wild is None:
            return counts, 0
        natural = counts[:]
        wilds = natural[hand.wild]
        natural[hand.wild] = 0
        return natural, wilds

    def stand_in(self, hand: HandState) -> Optional[tuple[int, int]]:
        return self.stand_in_for(hand.wild)

    @staticmethod
    def stand_in_for(wild: Optional[int]) -> Optional[tuple[int, int]]:
        """(from kind, to kind): a tile that may also play another kind inside the hand (H-2), or None."""
        return None

    def is_complete(self, hand: HandState, seat: SeatHand, extra: Optional[int] = None) -> bool:
        counts = seat.counts if extra is None else _plus(seat.counts, extra)
        natural, wilds = self.split(hand, counts)
        return analysis.is_complete(
            natural, wilds, sets=4 - len(seat.melds), seven_pairs=self.seven_pairs, stand_in=self.stand_in(hand)
        )

    def waits(self, hand: HandState, counts: list[int], sets: int) -> list[int]:
        """Kinds a 3n+1 hand waits on; the wild's own kind is left out (drawing it is drawing a wild)."""
        natural, wilds = self.split(hand, counts)
        found = analysis.waits(natural, wilds, sets=sets, seven_pairs=self.seven_pairs, stand_in=self.stand_in(hand))
        return [k for k in found if k != hand.wild]

    def ready_after(self, hand: HandState, counts: list[int], sets: int) -> list[int]:
        """The discards after which the hand is ready (one more wild would complete it)."""
        natural, wilds = self.split(hand, counts)
        found = analysis.ready_discards(
            natural, wilds, sets=sets, seven_pairs=self.seven_pairs, stand_in=self.stand_in(hand)
        )
        if (
            wilds
            and hand.wild is not None
            and analysis.is_complete(
                natural, wilds, sets=sets, seven_pairs=self.seven_pairs, stand_in=self.stand_in(hand)
            )
        ):
            found.append(hand.wild)  # discarding a wild: the wilds left, plus one more, complete the hand
        return sorted(found)

    # ---- wins ---------------------------------------------------------------------------------
    def win_context(
        self, state: MatchState, seat: int, tile: int, by: str, source: Optional[int], in_hand: bool = False
    ) -> WinContext:
        """The scoring input; `in_hand` when the winning tile is already among the seat's counts."""
        hand = state.in_hand
        me = hand.seats[seat]
        counts = me.counts if in_hand or by in ("self_draw", "kong_draw") else _plus(me.counts, tile)
        concealed = tuple(k for k, n in enumerate(counts) for _ in range(n))
        discarder_ready = source is not None and hand.seats[source].ready
        return WinContext(
            variant=self.name,
            options=state.options,
            seat=seat,
            dealer=hand.dealer,
            concealed=concealed,
            melds=tuple(Meld(m["type"], m["tile"], m.get("kong")) for m in me.melds),
            win_tile=tile,
            win_by=by,
            discarder=source if by in ("discard", "rob_kong") else None,
            discarder_ready=discarder_ready,
            ready=me.ready,
            wild=hand.wild,
            heavenly=self.heavenly(hand, seat, by),
            dealer_first_discard=self.dealer_first_discard(hand, seat, by),
            rules_version=self.rules_version,
        )

    def heavenly(self, hand: HandState, seat: int, by: str) -> bool:
        return False

    def dealer_first_discard(self, hand: HandState, seat: int, by: str) -> bool:
        return False

    def hu_allowed(self, state: MatchState, seat: int, tile: int, by: str, source: Optional[int]) -> bool:
        hand = state.in_hand
        me = hand.seats[seat]
        if not self.is_complete(hand, me, None if by in ("self_draw", "kong_draw") else tile):
            return False
        return self.hu_reason(state, seat, tile, by, source) is None

    def hu_reason(self, state: MatchState, seat: int, tile: int, by: str, source: Optional[int]) -> Optional[str]:
        """None when the win is legal, else the scoring reason code."""
        return legality(self.win_context(state, seat, tile, by, source))

    # ---- claims and kongs ----------------------------------------------------------------------
    def can_pung(self, hand: HandState, seat: int, tile: int) -> bool:
        me = hand.seats[seat]
        return not me.ready and tile != hand.wild and me.counts[tile] >= 2

    def can_exposed_kong(self, hand: HandState, seat: int, tile: int) -> bool:
        me = hand.seats[seat]
        if tile == hand.wild or me.counts[tile] != 3 or hand.wall_count < 1:  # G-5, G-9
            return False
        return not me.ready or (self.locked_may_kong and self.kong_keeps_ready(hand, me, tile, 3))

    def concealed_kongs(self, hand: HandState, seat: int) -> list[int]:
        me = hand.seats[seat]
        if hand.wall_count < 1 or (me.ready and not self.locked_may_kong):
            return []
        return [
            k
            for k, n in enumerate(me.counts)
            if n == 4 and k != hand.wild and (not me.ready or self.kong_keeps_ready(hand, me, k, 4))
        ]

    def added_kongs(self, hand: HandState, seat: int) -> list[int]:
        me = hand.seats[seat]
        if hand.wall_count < 1 or (me.ready and not self.locked_may_kong):
            return []
        return [
            m["tile"]
            for m in me.melds
            if m["type"] == "pung"
            and me.counts[m["tile"]] >= 1
            and m["tile"] not in me.forfeited_kongs
            and (not me.ready or self.kong_keeps_ready(hand, me, m["tile"], 1))
        ]

    def kong_keeps_ready(self, hand: HandState, me: SeatHand, tile: int, removed: int) -> bool:
        return True

    # ---- the rest ------------------------------------------------------------------------------
    def ting_phase_seats(self, hand: HandState) -> list[int]:
        return []

    def turn_ting_tiles(self, state: MatchState, seat: int) -> list[int]:
        return []

    def must_win(self) -> bool:
        """K-5 有胡必胡: is a possible win always taken (the table wins for the seat)? 扣点点's option."""
        return False

    def may_ting_then_hu(self, state: MatchState, seat: int) -> bool:
        """H-4: may the dealer declare without a discard and then win (含山 only)."""
        return False

    def settle(self, state: MatchState) -> dict[str, Any]:
        raise NotImplementedError

    def next_dealer(self, state: MatchState, winner: Optional[int]) -> int:
        raise NotImplementedError


def _plus(counts: list[int], tile: int) -> list[int]:
    out = counts[:]
    out[tile] += 1
    return out


def _minus(counts: list[int], tile: int) -> list[int]:
    out = counts[:]
    out[tile] -= 1
    return out
