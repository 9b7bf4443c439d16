"""The rule sets this server plays, from the engine's variant registry (names, wild, options, pattern names)."""

from __future__ import annotations

from typing import Any

from flask import jsonify
from flask.typing import ResponseReturnValue

from engine import variants as registry
from engine.options import schema

from .declare import Blueprint

blp = Blueprint(
    "variants",
    __name__,
    url_prefix="/api/variants",
    description="The rule sets this server plays (the engine's variant registry).",
)


def describe() -> dict[str, Any]:
    """name -> display names, the wild's name, option defaults and pattern names (中文, English)."""
    out = registry.display_all()
    for name, display in out.items():
        display["options"] = {option: default for option, (default, _) in schema(name).items()}
    return out


@blp.route("", methods=["GET"])
@blp.alt_response(200, success=True, description="name -> label, zh, en, wild, options (defaults), patterns, extra")
def variants() -> ResponseReturnValue:
    """The rule sets a match may be created with, for pages and tools (no authentication)."""
    return jsonify({"variants": describe()})
