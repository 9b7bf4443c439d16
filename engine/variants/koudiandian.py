"""山西扣点点 table hooks: 报听 with a face-down discard, the locked hand, K-4/K-5, kong payments."""

from __future__ import annotations

from typing import Any, Mapping, Optional

from engine import hand as analysis
from engine.explain import Reading, first_place, wild_of
from engine.hand import Decomposition
from engine.options import OptionError, boolean
from engine.scoring import koudiandian as kdd_scoring
from engine.scoring.context import WinContext
from engine.state import HandState, MatchState, SeatHand
from engine.tiles import NUM_KINDS, name, points
from engine.variants.base import Variant, _minus
from engine.variants.registry import OptionSpec, VariantEntry

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
        return [
            tile
            for tile in self.ready_after(hand, me.counts, sets)
            if self._waits_on_six_or_more(hand, _minus(me.counts, tile), sets)
        ]

    def _waits_on_six_or_more(self, hand: HandState, counts: list[int], sets: int) -> bool:
        """K-2/K-13: some tile worth 6+ (not the wild's own kind) completes the hand; stops at the first."""
        natural, wilds = self.split(hand, counts)
        for kind_ in _SIX_OR_MORE:
            if kind_ == hand.wild or natural[kind_] >= 4:
                continue
            natural[kind_] += 1
            done = analysis.is_complete(natural, wilds, sets=sets, seven_pairs=True)
            natural[kind_] -= 1
            if done:
                return True
        return False

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


OPTIONS: dict[str, OptionSpec] = {
    "wilds": (False, boolean),  # K-13 耗子
    "kong_keeps_waits": (False, boolean),  # K-3 【改变听口不能杠】
    "must_win": (False, boolean),  # K-5 【有胡必胡】
    "feeder_pays_kong": (False, boolean),  # K-9 【点杠包杠】
    "discarder_pays_kongs": (False, boolean),  # K-9 【点炮包杠】
    "dealer_bonus": (False, boolean),  # K-12 【带庄多五分】
    "dealer_rule": ("winner", None),  # K-11, checked by _check_dealer_rule
}


def _check_dealer_rule(out: dict[str, Any], given: set[str]) -> None:
    """K-11: 一圈 or 【带庄多五分】 force the "rotate" dealer rule."""
    rule = out["dealer_rule"]
    if rule not in ("winner", "rotate"):
        raise OptionError(f'option \'dealer_rule\' must be "winner" or "rotate", got {rule!r}')
    forced = out["rounds"] is not None or out["dealer_bonus"]
    if forced and rule == "winner":
        if "dealer_rule" in given:
            raise OptionError(
                "dealer_rule \"winner\" cannot be combined with 'rounds' or 'dealer_bonus': "
                'K-11 makes those matches use the "rotate" rule'
            )
        out["dealer_rule"] = "rotate"


def _score_lines(score: Mapping[str, Any]) -> list[str]:
    """K-7: points × multiplier."""
    return [f"    点数 points {score.get('points')} × 倍数 multiplier {score.get('multiplier')} = {score.get('value')}"]


# ---------------------------------------------------------------- the replay's settlement (engine.explain)


def _explain_reading(ctx: WinContext, score: dict[str, Any], found: list[Decomposition]) -> Reading:
    """G-10 as kdd_scoring.score reads it: the first decomposition with the reported K-7 patterns."""
    wanted = set(score.get("patterns", []))
    for d in found:
        specials = {s.code for s in kdd_scoring._patterns(kdd_scoring.HandShape(d, ctx.melds))}
        if specials == wanted:
            return d, first_place(d, ctx.win_tile, wild_of(ctx))
    return (found[0], first_place(found[0], ctx.win_tile, wild_of(ctx))) if found else (None, None)


def _points_tile(ctx: WinContext, wild: Optional[int]) -> Optional[int]:
    """K-1/K-13: the tile whose points count — the winning tile, or for a drawn 耗子 the best wait."""
    if wild is None or ctx.win_tile != wild:
        return ctx.win_tile
    rest = list(ctx.concealed)
    rest.remove(ctx.win_tile)
    counts, wilds = kdd_scoring.split_wilds(rest, wild)
    return kdd_scoring.win_value_tile(counts, wilds, 4 - len(ctx.melds), ctx.win_tile, wild)


def _explain_payment(ctx: WinContext, score: dict[str, Any]) -> dict[str, Any]:
    """K-1 points x K-7 multiplier = value; each other seat pays it (+5 to or from the dealer, K-12),
    all of it on an unready discarder (K-8); 耗子 mode keeps the plain multiplier (K-13)."""
    base = ctx.options.get("base", 1)
    wild = wild_of(ctx)
    value_tile = _points_tile(ctx, wild)
    bonus = kdd_scoring.DEALER_BONUS if ctx.options.get("dealer_bonus") else 0
    pays_all = kdd_scoring._is_unready_discard_win(ctx.win_by, ctx.discarder, ctx.discarder_ready)
    shares = []
    for seat in range(4):
        if seat == ctx.seat:
            continue
        extra = bonus if ctx.dealer in (seat, ctx.seat) else 0
        shares.append(
            {
                "seat": seat,
                "value": score["value"],
                "dealer_bonus": extra,
                "amount": (score["value"] + extra) * base,
                "paid_by": ctx.discarder if pays_all else seat,
            }
        )
    return {
        "layout": "points",  # the replay viewer's K-1 x K-7 rendering
        "points": score["points"],
        "points_tile": name(value_tile) if value_tile is not None else None,
        "wild_drawn": wild is not None and ctx.win_tile == wild,
        "multiplier": score["multiplier"],
        "self_drawn": ctx.self_drawn,
        "value": score["value"],
        "wilds_mode": wild is not None,
        "patterns": score.get("patterns", []),
        "base": base,
        "pays_all": pays_all,
        "discarder": ctx.discarder,
        "discarder_ready": ctx.discarder_ready,
        "shares": shares,
    }


ENTRY = VariantEntry(
    name="koudiandian",
    name_zh="扣点点",
    name_en="Koudiandian",
    wild_zh="耗子",
    rules=Koudiandian,
    scoring=kdd_scoring,
    options=OPTIONS,
    patterns={h.code: (h.name_zh, h.name_en) for h in kdd_scoring.SPECIAL_HANDS},
    rule_ids={"ting": "K-2", "locked": "K-3"},
    uses_wilds=lambda options: bool(options.get("wilds")),  # K-13
    score_lines=_score_lines,
    check_options=_check_dealer_rule,
    explain_reading=_explain_reading,
    explain_payment=_explain_payment,
    summary=("山西扣点点", "Shanxi Koudiandian — win only after declaring ready (报听); points by the winning tile"),
    option_names={
        "wilds": ("耗子", "each hand one tile kind is wild (K-13)"),
        "kong_keeps_waits": ("改变听口不能杠", "after 报听 a kong must keep exactly the same waits (K-3)"),
        "must_win": ("有胡必胡", "a possible win is always taken (K-5)"),
        "feeder_pays_kong": ("点杠包杠", "whoever fed an exposed kong pays all of it (K-9)"),
        "discarder_pays_kongs": ("点炮包杠", "the discarder of the winning tile pays every kong (K-9)"),
        "dealer_bonus": ("带庄多五分", "5 more points on each share the dealer pays or gets (K-12)"),
    },
    reasons={
        "not_ready": ("K-2", "only a player who declared 报听 may win"),
        "not_ready_after_discard": ("K-2", "报听 needs a discard after which the hand waits on a tile worth 6 or more"),
        "tile_too_low": ("K-4", "a winning tile worth 1 or 2 can never win"),
        "self_draw_only": ("K-4", "a winning tile worth 3 to 5 wins only by self-draw"),
        "discarded_wild": ("G-9", "nobody may win on a discarded wild (K-13)"),
        "passed_hu": ("K-5", "after 过胡 this tile wins only by self-draw"),
        "must_win": ("K-5", "with 有胡必胡 every possible win is taken"),
    },
    ting_to_win=True,  # K-2
    points_caution=True,  # K-2/K-4/K-8
)
