"""The variant registry: one entry per rule set, the only place the engine and service look variants up."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Optional, Protocol

if TYPE_CHECKING:
    from engine.hand import Decomposition, Reading
    from engine.win import WinContext

#: option name -> (default, validator(name, value) -> value, or None for values checked elsewhere)
OptionSpec = tuple[Any, Optional[Callable[[str, Any], Any]]]


class Scoring(Protocol):
    """What a variant's scoring module offers (engine/variants/koudiandian/scoring.py, hanshan.py)."""

    def score(self, ctx: WinContext) -> dict[str, Any]: ...

    def legality(self, ctx: WinContext) -> Optional[str]: ...


class Rules(Protocol):
    """What the registry knows of a variant's table hooks: a `Variant` subclass (engine/variants/base.py,
    which this module does not import: the hooks import scoring, and scoring imports the registry)
    builds them for a match's options and rules version; the hand analyser reads two class facts."""

    seven_pairs: bool  # K-7: seven pairs win

    def __call__(self, options: dict[str, Any], rules_version: int = ...) -> object: ...

    def stand_in_for(self, wild: Optional[int]) -> Optional[tuple[int, int]]: ...


def _no_check(options: dict[str, Any], given: set[str]) -> None:
    return None


@dataclass(frozen=True)
class VariantEntry:
    """Everything one rule set adds: names, options, table hooks, scoring, rule ids, settlement text."""

    name: str  # the id in APIs and events (its package's name under engine/variants/)
    name_zh: str  # "扣点点"
    name_en: str  # "Koudiandian"
    wild_zh: str  # what its wild tiles are called ("耗子", "配子")
    rules: Rules  # the engine.variants.base.Variant subclass with the table hooks
    scoring: Scoring  # module with score(ctx) and legality(ctx)
    options: Mapping[str, OptionSpec]  # its own options (K-14's hands/rounds/base are shared)
    patterns: Mapping[str, tuple[str, str]]  # scoring code -> (中文, English), for settlements
    rule_ids: Mapping[str, str]  # "ting" (who may declare), "locked" (the locked hand) -> ruling id
    uses_wilds: Callable[[Mapping[str, Any]], bool]  # does a hand with these options have a wild kind
    score_lines: Callable[[Mapping[str, Any]], list[str]]  # the settlement's score in Chinese and English
    check_options: Callable[[dict[str, Any], set[str]], None] = _no_check  # cross-option rules (K-11)
    ting_at_deal_only: bool = False  # H-4: 报听 only at the start of the hand
    extra: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # further display names (H-10)
    # refusal code (scoring's reasons, "not_ready_after_discard", ...) -> (rule id, why): engine/errors.py
    reasons: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    summary: tuple[str, str] = ("", "")  # the home page's choice: full Chinese name, one English line
    option_names: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # option -> (中文, what it does)
    # the replay's settlement (engine.explain); None: the first decomposition, payments read off `deltas`
    explain_reading: Optional[Callable[[WinContext, dict[str, Any], list[Decomposition]], Reading]] = None
    explain_payment: Optional[Callable[[WinContext, dict[str, Any]], dict[str, Any]]] = None
    # hints for the normal bot (engine/bot_normal.py)
    ting_to_win: bool = False  # K-2: only a declared hand wins, so a wait is valued as a declared hand's
    points_caution: bool = False  # K-2/K-4/K-8: tile points decide who may declare and win on a discard
    bot_scored_waits: Optional[int] = None  # waits it scores per decision at most (None: all of them)
    # the bots' estimate of one win's worth to the winner for each hand shape it may aim at
    # ("plain", "half_flush", "full_flush"; a shape left out is never aimed at): engine/bot_normal.py
    bot_plans: Mapping[str, float] = field(default_factory=lambda: {"plain": 1.0})

    @property
    def label(self) -> str:
        return f"{self.name_zh} {self.name_en}"

    def display(self) -> dict[str, Any]:
        """JSON for pages and the replay viewer: names, the wild's name, pattern and option names."""
        return {
            "label": self.label,
            "zh": self.name_zh,
            "en": self.name_en,
            "wild": self.wild_zh,
            "patterns": {code: list(names) for code, names in self.patterns.items()},
            "extra": {code: list(names) for code, names in self.extra.items()},
            "summary": list(self.summary),
            "option_names": {option: list(names) for option, names in self.option_names.items()},
        }


_REGISTRY: dict[str, VariantEntry] = {}


class UnknownVariant(ValueError):
    """A variant name no entry is registered under."""


def register(entry: VariantEntry) -> VariantEntry:
    if entry.name in _REGISTRY and _REGISTRY[entry.name] is not entry:
        raise ValueError(f"variant {entry.name!r} is already registered")
    _REGISTRY[entry.name] = entry
    return entry


def unregister(name: str) -> None:
    """Remove a variant (tests registering a toy variant clean up with this)."""
    _REGISTRY.pop(name, None)


def get(name: Optional[str]) -> VariantEntry:
    try:
        return _REGISTRY[name or ""]
    except KeyError:
        raise UnknownVariant(f"unknown variant {name!r}: expected one of {', '.join(names())}") from None


def names() -> tuple[str, ...]:
    return tuple(_REGISTRY)


def display_all() -> dict[str, dict[str, Any]]:
    """name -> display JSON of every registered variant."""
    return {name: entry.display() for name, entry in _REGISTRY.items()}
