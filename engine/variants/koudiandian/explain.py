"""山西扣点点: the replay's settlement explained (engine.explain's `explain_reading` / `explain_payment`)."""

from __future__ import annotations

from typing import Any, Optional

from engine.explain import first_place, wild_of
from engine.hand import Reading
from engine.hand import Decomposition
from engine.variants.koudiandian import scoring as kdd_scoring
from engine.win import WinContext
from engine.tiles import NUM_KINDS, name, points

_SIX_OR_MORE = tuple(k for k in range(NUM_KINDS) if points(k) >= kdd_scoring.READY_MIN_POINTS)  # K-2


def explain_reading(ctx: WinContext, score: dict[str, Any], found: list[Decomposition]) -> Reading:
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


def explain_payment(ctx: WinContext, score: dict[str, Any]) -> dict[str, Any]:
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
