"""What both variants share at the table: hand checks, claims, kongs, settlement hooks (G-rulings)."""

from __future__ import annotations

from functools import lru_cache
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
        sets = 4 - len(seat.melds)
        if extra is not None:  # the seat's concealed tiles plus one: read from the seat's hand facts
            return hand_facts(tuple(seat.counts), sets, hand.wild, self.seven_pairs, self.stand_in(hand)).completes(
                extra
            )
        natural, wilds = self.split(hand, seat.counts)
        return analysis.is_complete(
            natural, wilds, sets=sets, seven_pairs=self.seven_pairs, stand_in=self.stand_in(hand)
        )

    def waits(self, hand: HandState, counts: list[int], sets: int) -> list[int]:
        """Kinds a 3n+1 hand waits on; the wild's own kind is left out (drawing it is drawing a wild)."""
        return list(hand_facts(tuple(counts), sets, hand.wild, self.seven_pairs, self.stand_in(hand)).waits())

    def ready_after(self, hand: HandState, counts: list[int], sets: int) -> list[int]:
        """The discards after which the hand is ready (one more wild would complete it)."""
        return list(hand_facts(tuple(counts), sets, hand.wild, self.seven_pairs, self.stand_in(hand)).ready_after())

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
        if by in ("self_draw", "kong_draw") and me.counts[tile] > 0:  # the drawn tile is among the counts
            rest = _minus(me.counts, tile)
            facts = hand_facts(tuple(rest), 4 - len(me.melds), hand.wild, self.seven_pairs, self.stand_in(hand))
            if not facts.completes(tile):
                return False
        elif not self.is_complete(hand, me, None if by in ("self_draw", "kong_draw") else tile):
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


class HandFacts:
    """What the rules ask again and again of one seat's concealed tiles (its counts, wilds included),
    its number of sets still to make and the hand's wild rules: which one more tile completes it, its
    waits, the discards after which it is ready. A seat's facts change only when its tiles change, so
    they are kept per distinct hand (`hand_facts`, memoised) and each answer is worked out once, when first
    asked, by the same engine.hand functions as before: the answers are the same, only not repeated
    (claims on every discard of the other seats, the turn's 报听 discards, folds and views)."""

    __slots__ = (
        "counts",
        "sets",
        "wild",
        "seven_pairs",
        "stand_in",
        "answers",
        "_plain",
        "_ready",
        "_completes",
        "_waits",
        "_after",
    )

    def __init__(
        self,
        counts: tuple[int, ...],
        sets: int,
        wild: Optional[int],
        seven_pairs: bool,
        stand_in: Optional[tuple[int, int]],
    ) -> None:
        self.counts, self.sets, self.wild, self.seven_pairs, self.stand_in = counts, sets, wild, seven_pairs, stand_in
        self.answers: dict[str, Any] = {}  # a variant's own answers about this hand (扣点点's 报听 discards)
        # no wild and no stand-in tile held: engine.hand's fast path answers a plain tile directly
        self._plain = (wild is None or not counts[wild]) and (stand_in is None or not counts[stand_in[0]])
        self._ready: Optional[bool] = None
        self._completes: dict[int, bool] = {}
        self._waits: Optional[tuple[int, ...]] = None
        self._after: Optional[tuple[int, ...]] = None

    def _split(self, counts: tuple[int, ...] | list[int]) -> tuple[list[int], int]:
        natural = list(counts)
        if self.wild is None:
            return natural, 0
        wilds = natural[self.wild]
        natural[self.wild] = 0
        return natural, wilds

    def _complete(self, natural: list[int], wilds: int) -> bool:
        return analysis.is_complete(
            natural, wilds, sets=self.sets, seven_pairs=self.seven_pairs, stand_in=self.stand_in
        )

    def one_wild_completes(self) -> bool:
        """One more wild would complete the hand. Any one more tile that completes it could be
        played by that wild instead, so when this is False no tile completes it (checked, for every
        tile, by tests/engine/test_hand_facts.py)."""
        if self._ready is None:
            natural, wilds = self._split(self.counts)
            self._ready = self._complete(natural, wilds + 1)
        return self._ready

    def completes(self, tile: int) -> bool:
        """The hand plus one `tile` is complete (a drawn or claimed tile; the wild kind adds a wild)."""
        known = self._completes.get(tile)
        if known is None:
            plain = self._plain and tile != self.wild and (self.stand_in is None or tile != self.stand_in[0])
            known = False
            if plain or self.one_wild_completes():  # without wilds the direct check is the cheaper one
                natural, wilds = self._split(_plus(list(self.counts), tile))
                known = self._complete(natural, wilds)
            self._completes[tile] = known
        return known

    def waits(self) -> tuple[int, ...]:
        """Kinds a 3n+1 hand waits on, the wild's own kind left out (drawing it is drawing a wild)."""
        if self._waits is None:
            natural, wilds = self._split(self.counts)
            found = analysis.waits(natural, wilds, sets=self.sets, seven_pairs=self.seven_pairs, stand_in=self.stand_in)
            self._waits = tuple(k for k in found if k != self.wild)
        return self._waits

    def ready_after(self) -> tuple[int, ...]:
        """The discards after which the hand is ready (one more wild would complete it)."""
        if self._after is None:
            natural, wilds = self._split(self.counts)
            found = analysis.ready_discards(
                natural, wilds, sets=self.sets, seven_pairs=self.seven_pairs, stand_in=self.stand_in
            )
            if wilds and self.wild is not None and self._complete(natural, wilds):
                found.append(self.wild)  # discarding a wild: the wilds left, plus one more, complete the hand
            self._after = tuple(sorted(found))
        return self._after


@lru_cache(maxsize=1 << 13)
def hand_facts(
    counts: tuple[int, ...], sets: int, wild: Optional[int], seven_pairs: bool, stand_in: Optional[tuple[int, int]]
) -> HandFacts:
    """The facts of one distinct hand (bounded memo: the hands of the matches in play)."""
    return HandFacts(counts, sets, wild, seven_pairs, stand_in)
