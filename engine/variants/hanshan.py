"""含山麻将 table hooks: 配子 with the 白板 stand-in, 报听 at the deal only, 天胡/地胡, dealer rule."""

from __future__ import annotations

from typing import Any, Mapping, Optional

from engine import hand as analysis
from engine.explain import Reading, first_place
from engine.hand import Decomposition
from engine.options import boolean
from engine.scoring import hanshan as hanshan_scoring
from engine.scoring.context import WinContext
from engine.state import HandState, MatchState
from engine.variants.base import Variant
from engine.variants.registry import OptionSpec, VariantEntry


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
        natural, wilds = self.split(hand, counts)
        return analysis.is_complete(natural, wilds + 1, sets=sets, stand_in=self.stand_in(hand))

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


OPTIONS: dict[str, OptionSpec] = {
    "wild_self_draw_only": (True, boolean),  # H-3 【有配子只能自摸】
    "win_on_discarded_wild": (False, boolean),  # H-3 【见配给胡】
    "discarder_pays_all": (False, boolean),  # H-5 【点炮一家付】
}

EXTRA_NAMES = {"pinghu": ("平胡", "plain win"), "yadang": ("丫当", "yadang")}  # H-10


def _score_lines(score: Mapping[str, Any]) -> list[str]:
    """H-6/H-10: the pattern score and 平胡 or 丫当."""
    zh, en = EXTRA_NAMES.get(score.get("extra") or "", (score.get("extra"), score.get("extra")))
    return [f"    番数 pattern score {score['pattern_score']}, {zh} {en}"]


# ---------------------------------------------------------------- the replay's settlement (engine.explain)


def _explain_reading(ctx: WinContext, score: dict[str, Any], found: list[Decomposition]) -> Reading:
    """The first decomposition and place of the winning tile whose outcome is the reported one (G-10)."""
    hs = hanshan_scoring
    win = hs.Win(ctx)
    wanted = ({p["code"]: p["points"] for p in score.get("patterns", [])}, score.get("extra") == "yadang")
    for d in found:
        for b_index, block in enumerate(d.blocks):
            for pos in range(len(block.kinds)):
                if not hs._can_sit(ctx.win_tile, win.wild, block, pos):
                    continue
                if _outcome(win, d, b_index, pos) == wanted:
                    return d, (b_index, pos)
    return (found[0], first_place(found[0], ctx.win_tile, win.wild)) if found else (None, None)


def _outcome(win: hanshan_scoring.Win, d: Decomposition, b_index: int, pos: int) -> tuple[dict[str, Any], bool]:
    hs = hanshan_scoring
    whole = hs._EMPTY
    for i, block in enumerate(d.blocks):
        part = hs._block_part(block, win.wild)
        if i == b_index:
            part = part[:6] + (hs._role(block, pos),)
        whole = hs._join(whole, part)
    result = hs.outcome(hs.Reading(win, hs.Facts.of(whole)))
    return result.patterns, result.yadang


def _explain_payment(ctx: WinContext, score: dict[str, Any]) -> dict[str, Any]:
    """H-5: each payer pays (pattern score + its H-10 extra) x base; 点炮一家付 puts it on the discarder."""
    hs = hanshan_scoring
    base = ctx.options["base"]
    yadang = score.get("extra") == "yadang"
    extra = hs.extras(ctx, yadang)
    pays_all = bool(ctx.options.get("discarder_pays_all")) and ctx.win_by in hs.DISCARD_WINS
    row = hs.EXTRA_TABLE[(ctx.seat == ctx.dealer, ctx.self_drawn)]
    shares = [
        {
            "seat": p,
            "dealer": p == ctx.dealer,
            "extra": e,
            "amount": (score["pattern_score"] + e) * base,
            "paid_by": ctx.discarder if pays_all else p,
        }
        for p, e in sorted(extra.items())
    ]
    return {
        "layout": "patterns",  # the replay viewer's H-10 table rendering
        "pattern_score": score["pattern_score"],
        "yadang": yadang,
        "base": base,
        "winner_dealer": ctx.seat == ctx.dealer,
        "self_drawn": ctx.self_drawn,
        "pays_all": pays_all,
        "discarder": ctx.discarder,
        "shares": shares,
        "table": {"pinghu": list(row[0]), "yadang": list(row[1])},  # (non-dealer payer, dealer payer)
    }


ENTRY = VariantEntry(
    name="hanshan",
    name_zh="含山麻将",
    name_en="Hanshan",
    wild_zh="配子",
    rules=Hanshan,
    scoring=hanshan_scoring,
    options=OPTIONS,
    patterns={p.code: (p.name_zh, p.name_en) for p in hanshan_scoring.PATTERNS},
    rule_ids={"ting": "H-4", "locked": "H-4"},
    uses_wilds=lambda options: True,  # H-2: every hand has a 配子
    score_lines=_score_lines,
    ting_at_deal_only=True,
    extra=EXTRA_NAMES,
    summary=(
        "含山麻将",
        "Hanshan — a 配子 wild each hand (白板 stands in for it); 报听 only at the deal; 25 patterns, paid by all three",
    ),
    option_names={
        "wild_self_draw_only": ("有配子只能自摸", "a hand holding a 配子 wins only by self-draw (H-3)"),
        "win_on_discarded_wild": ("见配给胡", "a discarded 配子 may be won on (H-3)"),
        "discarder_pays_all": ("点炮一家付", "the discarder pays the whole win alone (H-5)"),
    },
    reasons={
        "not_ready_after_discard": ("H-4", "报听 needs a discard after which the hand is ready"),
        "discarded_wild": ("G-9", "nobody may win on a discarded 配子 without 见配给胡 (H-3)"),
        "wild_self_draw_only": ("H-3", "a player holding a 配子 may win only by self-draw"),
    },
    explain_reading=_explain_reading,
    explain_payment=_explain_payment,
    bot_scored_waits=6,  # scoring one win (25 patterns over every reading) costs 0.1-1 ms; a lone 配子 waits on 34 kinds
)
