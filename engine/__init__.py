"""Tilefold rules engine: a pure Decider (decide / evolve / fold) for both variants."""

from engine.variants import builtin as _builtin  # registers the built-in variants  # noqa: F401
from engine.actions import legal_actions, pending_seats
from engine.bot import bot_action, default_action
from engine.errors import IllegalAction
from engine.hints import ting_choices
from engine.evolve import CorruptEvent
from engine.state import MatchState
from engine.table import decide, evolve, fold, initial_state, step
from engine.event_types import EVENT_TYPES
from engine.versions import DECISION, RULES_VERSION
from engine.views import MAY_HIDE, hidden_from, public_pending, public_phase, redact, table_waiting, view

__all__ = [
    "DECISION",
    "EVENT_TYPES",
    "MAY_HIDE",
    "RULES_VERSION",
    "CorruptEvent",
    "IllegalAction",
    "MatchState",
    "bot_action",
    "decide",
    "default_action",
    "evolve",
    "fold",
    "hidden_from",
    "initial_state",
    "legal_actions",
    "pending_seats",
    "public_pending",
    "public_phase",
    "redact",
    "step",
    "table_waiting",
    "ting_choices",
    "view",
]
