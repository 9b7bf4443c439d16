"""The score calculator shared by POST /api/score and `tilefold score`: JSON in, JSON out."""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from marshmallow import ValidationError

from engine.options import OptionError, normalise
from engine.win import Meld, WinContext
from engine.tiles import TileError, kind, parse

from .schemas import ScoreInputSchema, flatten_errors


class CalculatorInputError(ValueError):
    """Malformed calculator input; `errors` holds the per-field messages when there are any."""

    def __init__(self, message: str, errors: Any = None):
        super().__init__(message)
        self.errors = errors


def load_context(data: Mapping[str, Any]) -> WinContext:
    """Validate the JSON input and build the engine's WinContext (raises CalculatorInputError)."""
    if not isinstance(data, Mapping):
        raise CalculatorInputError("the input must be a JSON object")
    try:
        fields = ScoreInputSchema().load(data)
    except ValidationError as exc:
        raise CalculatorInputError(f"invalid input: {flatten_errors(exc.messages)}", exc.messages) from None
    return context_from_fields(fields)


def context_from_fields(fields: dict[str, Any]) -> WinContext:
    """WinContext from schema-loaded fields (options and tiles checked by the engine)."""
    try:
        return _context(fields)
    except (OptionError, TileError) as exc:
        raise CalculatorInputError(str(exc)) from None


def _context(f: dict[str, Any]) -> WinContext:
    melds = tuple(Meld(m["type"], kind(m["tile"]), m.get("kong")) for m in f["melds"])
    return WinContext(
        variant=f["variant"],
        options=normalise(f["variant"], f["options"]),
        seat=f["seat"],
        dealer=f["dealer"],
        concealed=tuple(parse(f["hand"])),
        melds=melds,
        win_tile=kind(f["win_tile"]),
        win_by=f["win_by"],
        discarder=f["discarder"],
        discarder_ready=f["discarder_ready"],
        ready=f["ready"],
        wild=None if f["wild"] is None else kind(f["wild"]),
        heavenly=f["heavenly"],
        dealer_first_discard=f["dealer_first_discard"],
    )


def score_json(data: Mapping[str, Any]) -> dict[str, Any]:
    """Score one claimed win from raw JSON input (CalculatorInputError when malformed)."""
    return score_context(load_context(data))


def score_context(ctx: WinContext) -> dict[str, Any]:
    """engine.scoring.score(ctx) as JSON; the result carries `ok` (False: not a legal win)."""
    from engine.scoring import score  # the lead's dispatcher

    return as_json(score(ctx))


def as_json(result: Any) -> dict[str, Any]:
    if hasattr(result, "to_dict"):
        return result.to_dict()
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return dataclasses.asdict(result)
    return dict(result)
