"""Tilefold rules engine: a pure Decider (decide / evolve / fold) for both variants."""
