"""含山麻将: the replay's settlement explained (engine.explain's `explain_reading` / `explain_payment`)."""

from __future__ import annotations

from typing import Any

from engine.explain import first_place
from engine.hand import Reading
from engine.hand import Decomposition
from engine.variants.hanshan import scoring as hanshan_scoring
from engine.win import WinContext


def explain_reading(ctx: WinContext, score: dict[str, Any], found: list[Decomposition]) -> Reading:
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


def explain_payment(ctx: WinContext, score: dict[str, Any]) -> dict[str, Any]:
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
