"""Match options, named as in docs/RULES.md: the shared ones here, each variant's own in its registry entry."""

from __future__ import annotations

from typing import Any, Mapping, Optional

from engine.variants.registry import UnknownVariant, get


class OptionError(ValueError):
    """An unknown option, a bad value, or a contradictory combination."""


def boolean(name: str, value: Any) -> bool:
    return _bool(name, value)


def _bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise OptionError(f"option {name!r} must be true or false, got {value!r}")
    return value


def _positive_int(name: str, value: Any, upper: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= upper:
        raise OptionError(f"option {name!r} must be a whole number from 1 to {upper}, got {value!r}")
    return value


# name -> (default, validator). `hands`/`rounds` (K-14) and `base` are shared by both variants.
_COMMON: dict[str, tuple[Any, Any]] = {
    "hands": (None, lambda n, v: _positive_int(n, v, 256)),
    "rounds": (None, lambda n, v: _positive_int(n, v, 16)),
    "base": (1, lambda n, v: _positive_int(n, v, 10_000)),
}

DEFAULT_HANDS = 8


def schema(variant: Optional[str]) -> dict[str, Any]:
    """name -> (default, validator) of every option of the variant (raises OptionError if unknown)."""
    try:
        entry = get(variant)
    except UnknownVariant as exc:
        raise OptionError(str(exc)) from None
    return {**entry.options, **_COMMON}


def normalise(variant: Optional[str], options: Mapping[str, Any] | None) -> dict[str, Any]:
    """Validate options for a variant and fill in defaults; raise OptionError on anything wrong."""
    schema_ = schema(variant)
    if options is not None and not isinstance(options, Mapping):  # [1] or "x": not a dict(...) error
        raise OptionError(f"options must be an object, got {type(options).__name__}")
    options = dict(options or {})
    unknown = sorted(set(options) - set(schema_))
    if unknown:
        raise OptionError(
            f"unknown option(s) for {variant}: {', '.join(map(repr, unknown))}; known: {', '.join(sorted(schema_))}"
        )
    out: dict[str, Any] = {}
    for key, (default, check) in schema_.items():
        if key in options and options[key] is not None:
            out[key] = check(key, options[key]) if check else options[key]
        else:
            out[key] = default
    _check_length(out)
    get(variant).check_options(out, set(options))
    return out


def _check_length(out: dict[str, Any]) -> None:
    """K-14: a match is either a number of hands or a number of rounds (一圈 = rounds 1)."""
    if out["hands"] is not None and out["rounds"] is not None:
        raise OptionError("give either 'hands' or 'rounds' for the match length, not both")
    if out["hands"] is None and out["rounds"] is None:
        out["hands"] = DEFAULT_HANDS
