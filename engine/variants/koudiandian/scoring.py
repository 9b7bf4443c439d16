"""Scoring of one 山西扣点点 win and its kong payments (K-1, K-2, K-4, K-7..K-10, K-12..K-14, G-10)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence

from engine.hand import Decomposition, decompositions, is_complete, waits
from engine.win import Meld, WinContext
from engine.tiles import NUM_KINDS, points
from engine.versions import RULES_VERSION

READY_MIN_POINTS = 6  # K-2 / K-4: a declared hand must wait on a tile worth 6 or more
DISCARD_MIN_POINTS = 6  # K-4: 6+ may win by discard
SELF_DRAW_MIN_POINTS = 3  # K-4: 3..5 only by self-draw; 1..2 never
DEALER_BONUS = 5  # K-12 【带庄多五分】
DISCARD_WINS = ("discard", "rob_kong")  # G-7: robbing a kong counts as a discard win

#: Stable failure codes of `score` (docs/CONTRACTS.md, "tilefold score — koudiandian").
REASONS = ("not_complete", "not_ready", "discarded_wild", "tile_too_low", "self_draw_only")


@dataclass(frozen=True)
class HandShape:
    """One reading of the winning hand: a decomposition of the concealed part plus the melds."""

    decomposition: Decomposition
    melds: tuple[Meld, ...]

    @property
    def kinds(self) -> tuple[int, ...]:
        """Every kind the hand stands for (wilds as assigned), concealed and declared."""
        concealed = tuple(k for b in self.decomposition.blocks for k in b.kinds)
        return concealed + tuple(m.tile for m in self.melds)

    @property
    def seven_pairs(self) -> bool:
        return self.decomposition.seven_pairs and not self.melds


def _qingyise(shape: HandShape) -> bool:
    """清一色: one suit only across concealed tiles and melds, no honours."""
    return len({k // 9 if k < 27 else 3 for k in shape.kinds}) == 1 and max(shape.kinds) < 27


def _qixiaodui(shape: HandShape) -> bool:
    """七小对: seven pairs, no melds."""
    return shape.seven_pairs


def _yitiaolong(shape: HandShape) -> bool:
    """一条龙: 123, 456, 789 of one suit as three sequences of the decomposition."""
    starts = {b.kind for b in shape.decomposition.blocks if b.shape == "seq"}
    return any({s * 9, s * 9 + 3, s * 9 + 6} <= starts for s in range(3))


def _haohua(shape: HandShape) -> bool:
    """豪华: seven pairs in which one kind appears four times (two pair blocks, not a kong)."""
    pair_kinds = [b.kind for b in shape.decomposition.blocks]
    return shape.seven_pairs and len(set(pair_kinds)) < len(pair_kinds)


def _huangjin(shape: HandShape) -> bool:
    """黄金七小对: seven pairs all of one suit."""
    return shape.seven_pairs and _qingyise(shape)


@dataclass(frozen=True)
class SpecialHand:
    """A K-7 special hand with its discard / self-draw multipliers."""

    code: str
    name_zh: str
    name_en: str
    discard_multiplier: int
    self_draw_multiplier: int
    check: Callable[[HandShape], bool]

    def multiplier(self, self_drawn: bool) -> int:
        return self.self_draw_multiplier if self_drawn else self.discard_multiplier


PLAIN_DISCARD, PLAIN_SELF_DRAW = 1, 2  # K-7 plain win

#: K-7: the one table of special hands (multipliers do not stack: the single highest applies).
SPECIAL_HANDS: tuple[SpecialHand, ...] = (
    SpecialHand("qingyise", "清一色", "Full flush", 2, 4, _qingyise),
    SpecialHand("qixiaodui", "七小对", "Seven pairs", 2, 4, _qixiaodui),
    SpecialHand("yitiaolong", "一条龙", "Pure straight", 2, 4, _yitiaolong),
    SpecialHand("huangjin_qixiaodui", "黄金七小对", "Golden seven pairs", 4, 8, _huangjin),
    SpecialHand("haohua_qixiaodui", "豪华七小对", "Luxury seven pairs", 8, 16, _haohua),
    SpecialHand(
        "haohua_huangjin_qixiaodui",
        "豪华黄金七小对",
        "Luxury golden seven pairs",
        16,
        32,
        lambda shape: _haohua(shape) and _huangjin(shape),
    ),
)


# ---------------------------------------------------------------- hand helpers (also for the table engine)


def split_wilds(concealed: Iterable[int], wild: Optional[int]) -> tuple[list[int], int]:
    """K-13: counts of the natural tiles and the number of wild tiles (all copies of `wild`)."""
    counts = [0] * NUM_KINDS
    wilds = 0
    for k in concealed:
        if wild is not None and k == wild:
            wilds += 1
        else:
            counts[k] += 1
    return counts, wilds


def ting_waits(counts13: Sequence[int], wilds: int, sets: int, wilds_mode: bool) -> list[int]:
    """Kinds that complete the hand (seven pairs included: 七小对 wins, K-7). Without 耗子 mode
    (K-13 off) `wilds` must be 0."""
    if not wilds_mode and wilds:
        raise ValueError("wilds given outside 耗子 mode (K-13)")
    return waits(counts13, wilds, sets=sets, seven_pairs=sets == 4)


def win_value_tile(
    counts13: Sequence[int],
    wilds: int,
    sets: int,
    win_tile: int,
    wild: Optional[int] = None,
    rules_version: int = RULES_VERSION,
) -> Optional[int]:
    """The kind whose points the win scores (K-1): the winning tile itself, or, for a self-drawn
    wild (K-13), the highest-point wait of the 13 other tiles (None when they wait on nothing).
    K-13 clarification: the wild's own kind is never a wait (a drawn tile of that kind is a wild),
    even where it would complete the hand as a natural tile. `counts13`/`wilds` describe the hand
    without the winning tile."""
    if wild is None or win_tile != wild:
        return win_tile
    found = [k for k in ting_waits(counts13, wilds, sets, wilds_mode=True) if k != wild or rules_version < 2]
    return max(found, key=lambda t: (points(t), -t)) if found else None  # ties: the lowest kind


# ---------------------------------------------------------------- scoring


def _fail(reason: str) -> dict[str, Any]:
    return {"ok": False, "reason": reason}


def _patterns(shape: HandShape) -> list[SpecialHand]:
    return [hand for hand in SPECIAL_HANDS if hand.check(shape)]


def _multiplier(specials: list[SpecialHand], self_drawn: bool) -> int:
    """K-7: the single highest multiplier, or plain."""
    plain = PLAIN_SELF_DRAW if self_drawn else PLAIN_DISCARD
    return max([plain] + [s.multiplier(self_drawn) for s in specials])


def _best_shape(shapes: Iterable[HandShape], self_drawn: bool) -> tuple[int, list[SpecialHand]]:
    """G-10: the reading with the highest multiplier (then the most patterns)."""
    best: tuple[int, int, list[SpecialHand]] = (0, -1, [])
    for shape in shapes:
        specials = _patterns(shape)
        candidate = (_multiplier(specials, self_drawn), len(specials), specials)
        if candidate[:2] > best[:2]:
            best = candidate
    return best[0], best[2]


def _k4_reason(value_points: int, self_drawn: bool) -> Optional[str]:
    """K-4: 1–2 never win; 3–5 only by self-draw."""
    if value_points < SELF_DRAW_MIN_POINTS:
        return "tile_too_low"
    if value_points < DISCARD_MIN_POINTS and not self_drawn:
        return "self_draw_only"
    return None


def _without_one(counts: Sequence[int], wilds: int, tile: int, tile_is_wild: bool) -> tuple[list[int], int]:
    """The 13 other tiles: the hand minus the winning tile."""
    rest = list(counts)
    if tile_is_wild:
        return rest, wilds - 1
    rest[tile] -= 1
    return rest, wilds


def legality(ctx: WinContext) -> Optional[str]:
    """The refusal code when the win is not legal (K-2, K-4, K-13), else None; no pattern search."""
    return _checked(ctx)[0]


def _checked(ctx: WinContext) -> tuple[Optional[str], int]:
    """(refusal code or None, points of the tile the win counts) — the legality part of scoring."""
    wild = ctx.wild if ctx.options.get("wilds") else None
    counts, wilds = split_wilds(ctx.concealed, wild)
    sets = 4 - len(ctx.melds)
    if not is_complete(counts, wilds, sets=sets, seven_pairs=sets == 4):
        return "not_complete", 0
    if not ctx.ready:
        return "not_ready", 0  # K-2
    win_is_wild = wild is not None and ctx.win_tile == wild
    if win_is_wild and not ctx.self_drawn:
        return "discarded_wild", 0  # K-13
    rest, rest_wilds = _without_one(counts, wilds, ctx.win_tile, win_is_wild)
    value_kind = win_value_tile(rest, rest_wilds, sets, ctx.win_tile, wild, ctx.rules_version)
    value_points = points(value_kind) if value_kind is not None else 0
    return _k4_reason(value_points, ctx.self_drawn), value_points


def _may_be_special(counts: Sequence[int], wilds: int, melds: Sequence[Meld], sets: int) -> bool:
    """Whether some reading of a complete hand could be a K-7 special hand, from necessary conditions
    alone (wilds may stand for any kind): 清一色 needs the natural tiles and melds in one suit; the
    七小对 family a concealed hand whose odd counts the wilds can pair; 一条龙 every rank of one suit
    held or filled by a wild. False means every reading is plain."""
    groups = {k // 9 if k < 27 else 3 for k, n in enumerate(counts) if n} | {
        m.tile // 9 if m.tile < 27 else 3 for m in melds
    }
    if len(groups) <= 1 and 3 not in groups:
        return True
    if sets == 4 and not melds and sum(n % 2 for n in counts) <= wilds:
        return True
    return any(sum(1 for r in range(9) if counts[s * 9 + r]) + wilds >= 9 for s in range(3))


def score(ctx: WinContext) -> dict[str, Any]:
    """Score one 扣点点 win (K-2, K-4, K-7, K-8, K-12, K-13, G-10); see docs/CONTRACTS.md."""
    reason, value_points = _checked(ctx)
    if reason:
        return _fail(reason)
    wild = ctx.wild if ctx.options.get("wilds") else None
    counts, wilds = split_wilds(ctx.concealed, wild)
    sets = 4 - len(ctx.melds)
    if _may_be_special(counts, wilds, ctx.melds, sets):
        shapes = (HandShape(d, ctx.melds) for d in decompositions(counts, wilds, sets=sets, seven_pairs=sets == 4))
        multiplier, specials = _best_shape(shapes, ctx.self_drawn)
    else:  # every reading is plain: no need to read them all
        multiplier, specials = _multiplier([], ctx.self_drawn), []
    if wild is not None:
        multiplier = _multiplier([], ctx.self_drawn)  # K-13: special hands win but carry no multiplier
    value = value_points * multiplier
    return {
        "ok": True,
        "points": value_points,
        "multiplier": multiplier,
        "value": value,
        "patterns": [s.code for s in specials],
        "deltas": win_deltas(ctx, value),
    }


def _is_unready_discard_win(win_by: str, discarder: Optional[int], discarder_ready: bool) -> bool:
    return win_by in DISCARD_WINS and discarder is not None and not discarder_ready


def win_deltas(ctx: WinContext, value: int) -> list[int]:
    """K-8 / K-12 / K-14: the win payment alone, × base; sums to zero."""
    base = ctx.options.get("base", 1)
    bonus = DEALER_BONUS if ctx.options.get("dealer_bonus") else 0
    pays_all = _is_unready_discard_win(ctx.win_by, ctx.discarder, ctx.discarder_ready)
    deltas = [0, 0, 0, 0]
    for seat in range(4):
        if seat == ctx.seat:
            continue
        share = value + (bonus if ctx.dealer in (seat, ctx.seat) else 0)  # K-12
        payer = ctx.discarder if pays_all and ctx.discarder is not None else seat  # K-8 点炮包胡
        deltas[payer] -= share * base
        deltas[ctx.seat] += share * base
    return deltas


# ---------------------------------------------------------------- kongs (K-9, K-10)


def _kong_charges(
    kong: Mapping[str, Any], ready_at_kong: Optional[Mapping[int, bool]], options: Mapping[str, Any]
) -> list[tuple[int, int]]:
    """(payer, amount) pairs owed to the konger for one kong (K-9)."""
    seat, v = kong["seat"], points(kong["tile"])
    others = [s for s in range(4) if s != seat]
    if kong["kind"] == "concealed":
        return [(s, 2 * v) for s in others]
    fed_by = kong.get("fed_by")
    feeder_ready = kong.get("feeder_ready")
    if feeder_ready is None and fed_by is not None and ready_at_kong is not None:
        feeder_ready = bool(ready_at_kong.get(fed_by, False))
    if kong["kind"] == "exposed" and options.get("feeder_pays_kong") and fed_by is not None and not feeder_ready:
        return [(fed_by, 3 * v)]  # 【点杠包杠】
    return [(s, v) for s in others]


def kong_payments(
    kongs: Sequence[Mapping[str, Any]],
    winner: int,
    ready_at_kong: Optional[Mapping[int, bool]],
    options: Mapping[str, Any],
    discarder: Optional[int] = None,
    discarder_ready: bool = True,
) -> list[int]:
    """K-9 kong settlement at the end of a won hand (K-10: call only when someone won), × base.

    `discarder`/`discarder_ready`: who fed the winning tile (None for a self-draw). With
    【点炮包杠】 (`discarder_pays_kongs`) a non-ready discarder pays alone everything owed to the
    winner for the winner's kongs."""
    base = options.get("base", 1)
    takes_over = bool(options.get("discarder_pays_kongs")) and discarder is not None and not discarder_ready
    deltas = [0, 0, 0, 0]
    for kong in kongs:
        for payer, amount in _kong_charges(kong, ready_at_kong, options):
            if takes_over and discarder is not None and kong["seat"] == winner:
                payer = discarder
            deltas[payer] -= amount * base
            deltas[kong["seat"]] += amount * base
    return deltas
