"""Scoring of winning hands: `score(ctx)` and `legality(ctx)` dispatch on the variant's registry entry
(each variant's scoring lives in its package, engine/variants/<name>/scoring.py)."""

from __future__ import annotations

from typing import Any, Optional

from engine.variants.registry import Scoring, get
from engine.win import Meld, WinContext


def _module(variant: str) -> Scoring:
    """The variant's scoring, from its registry entry (engine.variants)."""
    return get(variant).scoring  # UnknownVariant is a ValueError


def score(ctx: WinContext) -> dict[str, Any]:
    """The `tilefold score` contract for one win: {"ok": True, ...} or {"ok": False, "reason": ...}."""
    return _module(ctx.variant).score(ctx)


def legality(ctx: WinContext) -> Optional[str]:
    """Why the win is not legal (the same codes as `score`), or None — without scoring it."""
    return _module(ctx.variant).legality(ctx)


__all__ = ["Meld", "WinContext", "legality", "score"]
