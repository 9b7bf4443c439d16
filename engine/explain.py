"""Explain a scored win for people (the replay's settlement): the hand split into the sets it was
scored as, wilds and 白板 stand-ins as what they stood for, the winning tile's place, and the
payments derived step by step (K-1/K-7/K-8/K-12/K-13 in 扣点点; H-5/H-10 in 含山).

Pure: it re-reads the same decompositions scoring reads (engine.hand, G-10) and picks one reading
that gives the score scoring reported; nothing here changes a score.
"""

from __future__ import annotations

from typing import Any, Optional

from engine.hand import PAIR, Block, Decomposition, decompositions
from engine.scoring import hanshan as hs
from engine.scoring import koudiandian as kdd
from engine.scoring.context import WinContext
from engine.tiles import WHITE, name, points


def explain_win(ctx: WinContext, score: dict[str, Any]) -> dict[str, Any]:
    """{"blocks": [...], "melds": [...], "payment": {...}} for a win scored as `score`."""
    if ctx.variant == "koudiandian":
        decomposition, position = _kdd_reading(ctx, score)
        payment = _kdd_payment(ctx, score)
    else:
        decomposition, position = _hs_reading(ctx, score)
        payment = _hs_payment(ctx, score)
    return {
        "blocks": _blocks(decomposition, position, ctx),
        "seven_pairs": bool(decomposition and decomposition.seven_pairs),
        "melds": [{"type": m.type, "tile": name(m.tile), "kong": m.kong} for m in ctx.melds],
        "payment": payment,
    }


# ---------------------------------------------------------------- the reading


def _wild_of(ctx: WinContext) -> Optional[int]:
    if ctx.variant == "koudiandian":
        return ctx.wild if ctx.options.get("wilds") else None
    return ctx.wild


def _decompositions(ctx: WinContext) -> list[Decomposition]:
    wild = _wild_of(ctx)
    counts, wilds = kdd.split_wilds(ctx.concealed, wild)
    sets = 4 - len(ctx.melds)
    if ctx.variant == "koudiandian":
        return decompositions(counts, wilds, sets=sets, seven_pairs=sets == 4)
    stand_in = (WHITE, wild) if wild is not None and wild != WHITE else None
    return decompositions(counts, wilds, sets=sets, stand_in=stand_in)


def _kdd_reading(ctx: WinContext, score: dict[str, Any]) -> tuple[Optional[Decomposition], Optional[tuple[int, int]]]:
    """G-10 as kdd.score reads it: the first decomposition with the reported patterns."""
    found = _decompositions(ctx)
    wanted = set(score.get("patterns", []))
    for d in found:
        specials = {s.code for s in kdd._patterns(kdd.HandShape(d, ctx.melds))}
        if specials == wanted:
            return d, _first_place(d, ctx.win_tile, _wild_of(ctx))
    return (found[0], _first_place(found[0], ctx.win_tile, _wild_of(ctx))) if found else (None, None)


def _hs_reading(ctx: WinContext, score: dict[str, Any]) -> tuple[Optional[Decomposition], Optional[tuple[int, int]]]:
    """The first decomposition and place of the winning tile whose outcome is the reported one."""
    win = hs.Win(ctx)
    wanted = ({p["code"]: p["points"] for p in score.get("patterns", [])}, score.get("extra") == "yadang")
    found = _decompositions(ctx)
    for d in found:
        for b_index, block in enumerate(d.blocks):
            for pos in range(len(block.kinds)):
                if not hs._can_sit(ctx.win_tile, win.wild, block, pos):
                    continue
                if _hs_outcome(win, d, b_index, pos) == wanted:
                    return d, (b_index, pos)
    return (found[0], _first_place(found[0], ctx.win_tile, win.wild)) if found else (None, None)


def _hs_outcome(win: hs.Win, d: Decomposition, b_index: int, pos: int) -> tuple[dict[str, Any], bool]:
    whole = hs._EMPTY
    for i, block in enumerate(d.blocks):
        part = hs._block_part(block, win.wild)
        if i == b_index:
            part = part[:6] + (hs._role(block, pos),)
        whole = hs._join(whole, part)
    result = hs.outcome(hs.Reading(win, hs.Facts.of(whole)))
    return result.patterns, result.yadang


def _first_place(d: Optional[Decomposition], tile: int, wild: Optional[int]) -> Optional[tuple[int, int]]:
    if d is None:
        return None
    for b_index, block in enumerate(d.blocks):
        for pos, k in enumerate(block.kinds):
            is_wild = pos in block.wild_positions
            if (tile == wild and is_wild) or (
                tile != wild and not is_wild and (k == tile or (tile == WHITE and k == wild))
            ):
                return b_index, pos
    return None


def _blocks(d: Optional[Decomposition], position: Optional[tuple[int, int]], ctx: WinContext) -> list[dict[str, Any]]:
    if d is None:
        return []
    wild = _wild_of(ctx)
    out = []
    for b_index, block in enumerate(d.blocks):
        tiles = [_tile(block, pos, wild) for pos in range(len(block.kinds))]
        if position is not None and position[0] == b_index:
            tiles[position[1]]["win"] = True
        out.append({"shape": block.shape, "pair": block.shape == PAIR, "tiles": tiles})
    return out


def _tile(block: Block, pos: int, wild: Optional[int]) -> dict[str, Any]:
    """The tile at a place: a wild (shown as itself) standing for a kind, a 白板 standing in (H-2), or natural."""
    k = block.kinds[pos]
    if pos in block.wild_positions and wild is not None:
        return {"tile": name(wild), "as": name(k), "wild": True}
    if wild is not None and k == wild:
        return {"tile": name(WHITE), "as": name(k), "stand_in": True}
    return {"tile": name(k)}


# ---------------------------------------------------------------- payments


def _kdd_payment(ctx: WinContext, score: dict[str, Any]) -> dict[str, Any]:
    """K-1 points x K-7 multiplier = value; each other seat pays it (+5 to or from the dealer, K-12),
    all of it on an unready discarder (K-8); 耗子 mode keeps the plain multiplier (K-13)."""
    base = ctx.options.get("base", 1)
    wild = _wild_of(ctx)
    value_tile: Optional[int] = ctx.win_tile
    if wild is not None and ctx.win_tile == wild:
        rest = list(ctx.concealed)
        rest.remove(ctx.win_tile)
        counts, wilds = kdd.split_wilds(rest, wild)
        value_tile = kdd.win_value_tile(counts, wilds, 4 - len(ctx.melds), ctx.win_tile, wild)
    bonus = kdd.DEALER_BONUS if ctx.options.get("dealer_bonus") else 0
    pays_all = kdd._is_unready_discard_win(ctx.win_by, ctx.discarder, ctx.discarder_ready)
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
        "kind": "koudiandian",
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


def _hs_payment(ctx: WinContext, score: dict[str, Any]) -> dict[str, Any]:
    """H-5: each payer pays (pattern score + its H-10 extra) x base; 点炮一家付 puts it on the discarder."""
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
        "kind": "hanshan",
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


def tile_points(tile: int) -> int:
    return points(tile)
