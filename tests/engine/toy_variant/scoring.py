"""玩具麻将's scoring: every win is worth 1 (× base) from each other player; `double` doubles a self-draw."""

from __future__ import annotations

from typing import Any, Optional

from engine.tiles import kind
from engine.win import WinContext


def legality(ctx: WinContext) -> Optional[str]:
    """T-2: an honour never wins (completeness is checked by the table)."""
    return "honour_win" if ctx.win_tile >= kind("E") else None


def score(ctx: WinContext) -> dict[str, Any]:
    value = ctx.options["base"] * (2 if ctx.options["double"] and ctx.self_drawn else 1)
    deltas = [-value] * 4
    deltas[ctx.seat] = 3 * value
    return {"ok": True, "value": value, "patterns": ["toy_win"], "deltas": deltas}
