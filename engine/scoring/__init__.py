"""Scoring of winning hands for both variants; `score(ctx)` dispatches on the variant."""

from __future__ import annotations

from typing import Optional

from engine.scoring.context import Meld, WinContext


def _module(variant: str):
    if variant == "koudiandian":
        from engine.scoring import koudiandian as variant_scoring
    elif variant == "hanshan":
        from engine.scoring import hanshan as variant_scoring
    else:
        raise ValueError(f"unknown variant {variant!r}")
    return variant_scoring


def score(ctx: WinContext) -> dict:
    """The `tilefold score` contract for one win: {"ok": True, ...} or {"ok": False, "reason": ...}."""
    return _module(ctx.variant).score(ctx)


def legality(ctx: WinContext) -> Optional[str]:
    """Why the win is not legal (the same codes as `score`), or None — without scoring it."""
    return _module(ctx.variant).legality(ctx)


__all__ = ["Meld", "WinContext", "legality", "score"]
