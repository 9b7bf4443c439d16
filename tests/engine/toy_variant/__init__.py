"""玩具麻将, a toy rule set of the built-in variants' shape (`engine/variants/<name>/`): its registry
entry here, the table hooks in hooks.py, scoring in scoring.py (no explain.py: the replay uses the
generic settlement). Its own rule ids are T-1 (报听 and the locked hand, as the table has them) and
T-2 (an honour never wins); they exist only for the tests.

Imports inside the package are relative, so the same files serve both ways a test adds it: registered
from here (`engine.variants.register(ENTRY)`), or copied into a temporary copy of engine/ as
`engine/variants/toy/` with its name added to `PACKAGES` in builtin.py (the one line,
docs/ENGINE_API.md, "Adding a variant")."""

from __future__ import annotations

from typing import Any, Mapping

from engine.options import boolean
from engine.variants.registry import OptionSpec, VariantEntry

from . import scoring as toy_scoring
from .hooks import Toy

OPTIONS: dict[str, OptionSpec] = {"double": (False, boolean)}  # a self-drawn win counts twice


def _score_lines(score: Mapping[str, Any]) -> list[str]:
    return [f"    value {score['value']}"]


ENTRY = VariantEntry(
    name="toy",
    name_zh="玩具麻将",
    name_en="Toy",
    wild_zh="百搭",
    rules=Toy,
    scoring=toy_scoring,
    options=OPTIONS,
    patterns={"toy_win": ("胡", "a win")},
    rule_ids={"ting": "T-1", "locked": "T-1"},
    reasons={"honour_win": ("T-2", "an honour never wins")},
    uses_wilds=lambda options: False,
    score_lines=_score_lines,
)
