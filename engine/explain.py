"""Explain a scored win for people (the replay's settlement): the hand split into the sets it was
scored as, wilds and stand-ins as what they stood for, the winning tile's place, and the payments
derived step by step.

Generic over the variant registry: the reading and the payment come from the variant's entry
(`explain_reading`, `explain_payment`: 扣点点's K-1/K-7/K-8/K-12/K-13 steps and 含山's H-5/H-10 table
live in engine/variants/koudiandian/explain.py and hanshan/explain.py); a variant without them gets the first
decomposition and its payments read off the score's `deltas`.

Pure: it re-reads the same decompositions scoring reads (engine.hand, G-10) and picks one reading
that gives the score scoring reported; nothing here changes a score.
"""

from __future__ import annotations

from typing import Any, Optional

from engine.hand import PAIR, Block, Decomposition, Reading, decompositions
from engine.win import WinContext
from engine.state import MatchState
from engine.tiles import NUM_KINDS, WHITE, name
from engine.variants.registry import get

#: the decomposition a win was scored as, and the winning tile's place in it (block index, position)


def explain_win(ctx: WinContext, score: dict[str, Any]) -> dict[str, Any]:
    """{"blocks": [...], "melds": [...], "payment": {...}} for a win scored as `score`."""
    entry = get(ctx.variant)
    found = decompositions_of(ctx)
    reading = entry.explain_reading or first_reading
    decomposition, position = reading(ctx, score, found)
    payment = (entry.explain_payment or shares_payment)(ctx, score)
    return {
        "blocks": _blocks(decomposition, position, ctx),
        "seven_pairs": bool(decomposition and decomposition.seven_pairs),
        "melds": [{"type": m.type, "tile": name(m.tile), "kong": m.kong} for m in ctx.melds],
        "payment": payment,
    }


# ---------------------------------------------------------------- the reading


def wild_of(ctx: WinContext) -> Optional[int]:
    """The hand's wild kind when the variant's options give hands one (G-9), else None."""
    from engine import variants

    return ctx.wild if variants.get(ctx.variant).uses_wilds(ctx.options) else None


def split_wilds(concealed: Any, wild: Optional[int]) -> tuple[list[int], int]:
    """Counts of the natural tiles and the number of wilds (G-9: every copy of the wild kind)."""
    counts = [0] * NUM_KINDS
    for k in concealed:
        counts[k] += 1
    if wild is None:
        return counts, 0
    wilds, counts[wild] = counts[wild], 0
    return counts, wilds


def decompositions_of(ctx: WinContext) -> list[Decomposition]:
    """Every reading of the concealed part with the variant's hooks: seven pairs (K-7) and stand-ins (H-2)."""
    from engine import variants

    rules = variants.get(ctx.variant).rules
    wild = wild_of(ctx)
    counts, wilds = split_wilds(ctx.concealed, wild)
    sets = 4 - len(ctx.melds)
    return decompositions(
        counts, wilds, sets=sets, seven_pairs=rules.seven_pairs and sets == 4, stand_in=rules.stand_in_for(wild)
    )


def first_reading(ctx: WinContext, score: dict[str, Any], found: list[Decomposition]) -> Reading:
    """The default reading: the first decomposition, the winning tile at its first place."""
    return (found[0], first_place(found[0], ctx.win_tile, wild_of(ctx))) if found else (None, None)


def first_place(d: Optional[Decomposition], tile: int, wild: Optional[int]) -> Optional[tuple[int, int]]:
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
    wild = wild_of(ctx)
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


def shares_payment(ctx: WinContext, score: dict[str, Any]) -> dict[str, Any]:
    """The default payment: the score's own lines (the entry's `score_lines`, as in the text export)
    and what each other seat pays, read off the score's `deltas`."""
    from engine import variants

    deltas = score["deltas"]
    return {
        "layout": "shares",
        "lines": [line.strip() for line in variants.get(ctx.variant).score_lines(score)],
        "value": score.get("value"),
        "self_drawn": ctx.self_drawn,
        "discarder": ctx.discarder,
        "base": ctx.options.get("base", 1),
        "shares": [{"seat": s, "amount": -deltas[s], "paid_by": s} for s in range(4) if s != ctx.seat and deltas[s]],
    }


# ---------------------------------------------------------------- the hand just settled


def explain_settled(state: MatchState) -> Optional[dict[str, Any]]:
    """The explanation of the win `state.last_result` settled (the replay's and the table's one
    source), or None after a draw or before any hand ended. Read from `state.last_hand`, the hand as
    it ended (its melds, concealed tiles, wild and win), so it holds after the next deal too."""
    from dataclasses import replace

    from engine.actions import variant_of

    ended, hand = state.last_result, state.last_hand
    if ended is None or hand is None or hand.win is None:
        return None
    score = (ended.get("settlement") or {}).get("score")
    if not score or not score.get("ok"):
        return None
    key = ("explain_settled", ended["hand"])
    if key not in state.cache:
        at_end = replace(state, hand=hand, cache={})
        win = hand.win
        ctx = variant_of(at_end).win_context(at_end, win["seat"], win["tile"], win["by"], win["from"], in_hand=True)
        state.cache[key] = explain_win(ctx, score)
    explained: dict[str, Any] = state.cache[key]
    return explained
