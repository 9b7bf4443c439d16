"""Scoring of winning hands for both variants; `score(ctx)` dispatches on the variant."""

from __future__ import annotations

from engine.scoring.context import Meld, WinContext


def score(ctx: WinContext) -> dict:
    """The `tilefold score` contract for one win: {"ok": True, ...} or {"ok": False, "reason": ...}."""
    if ctx.variant == "koudiandian":
        from engine.scoring import koudiandian as variant_scoring
    elif ctx.variant == "hanshan":
        from engine.scoring import hanshan as variant_scoring
    else:
        raise ValueError(f"unknown variant {ctx.variant!r}")
    return variant_scoring.score(ctx)


__all__ = ["Meld", "WinContext", "score"]
