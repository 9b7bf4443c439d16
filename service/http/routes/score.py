"""The score calculator: the same JSON in and out as `tilefold score`."""

from __future__ import annotations

from flask import jsonify

from ..calculator import CalculatorInputError, context_from_fields, score_context
from ..problems import ApiError
from ..schemas import ScoreInputSchema, ScoreResultSchema
from .declare import Blueprint, errors, rate_limited

blp = Blueprint("score", __name__, url_prefix="/api/score", description="Score one claimed win (no match needed).")


@blp.route("", methods=["POST"])
@rate_limited("RATE_LIMIT_SCORE")
@blp.arguments(ScoreInputSchema, error_status_code=400)
@blp.alt_response(
    200, schema=ScoreResultSchema, success=True, description="the score; `ok` is false when the hand is not a legal win"
)
@errors(blp, 413)
def score(data):
    """Score a win described by hand, melds, winning tile and how it was won."""
    try:
        ctx = context_from_fields(data)
        return jsonify(score_context(ctx))
    except (CalculatorInputError, ValueError) as exc:  # the scorer's own checks (a win tile not held …)
        raise ApiError(400, "invalid_input", str(exc)) from None
