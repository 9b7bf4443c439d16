"""Rules versions: every match records the version of the rules it is played under.

A version names the rules, not the code: a later rules fix raises `RULES_VERSION`, and the engine
keeps deciding (and, for version 1, folding) older matches under the version they recorded, so a
fix never changes how an old match folds, verifies or replays. What differs between versions:

| version | what changed |
|---|---|
| 1 | the first rules (no `rules_version` field on `match_started`; no `decision` on events) |
| 2 | events record the decisions the rules took (`decision`, evolve only applies data); the docs/RULES.md clarifications: 含山 keeps an added kong after a pung (G-5/K-6), a self-drawn wild never scores as the wild's own kind (K-13) |
"""

from __future__ import annotations

from typing import Any

RULES_VERSION = 2  # the version new matches are played under
OLDEST_RULES_VERSION = 1  # the oldest version this engine can still decide
FIRST_DATA_VERSION = 2  # from this version on, events carry their decisions
DECISION = (
    "decision"  # the event key holding the decisions (secret while the match runs: engine.views.redact strips it)
)


class UnsupportedRulesVersion(ValueError):
    """A log played under a rules version this engine cannot decide."""


def supported(version: Any) -> bool:
    return (
        isinstance(version, int) and not isinstance(version, bool) and OLDEST_RULES_VERSION <= version <= RULES_VERSION
    )


def version_of(match_started: dict[str, Any]) -> Any:
    """The rules version a `match_started` event records (version 1 before the field existed)."""
    return match_started.get("rules_version", 1)
