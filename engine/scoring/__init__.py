"""Scoring of winning hands for both variants; `score(ctx)` dispatches on the variant."""
