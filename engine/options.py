"""Match options of both variants, named as in RULINGS.md, with defaults and validation."""

from __future__ import annotations

from typing import Any, Mapping

VARIANTS = ("koudiandian", "hanshan")


class OptionError(ValueError):
    """An unknown option, a bad value, or a contradictory combination."""


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

_KOUDIANDIAN: dict[str, tuple[Any, Any]] = {
    "wilds": (False, _bool),  # K-13 耗子
    "kong_keeps_waits": (False, _bool),  # K-3 【改变听口不能杠】
    "must_win": (False, _bool),  # K-5 【有胡必胡】
    "feeder_pays_kong": (False, _bool),  # K-9 【点杠包杠】
    "discarder_pays_kongs": (False, _bool),  # K-9 【点炮包杠】
    "dealer_bonus": (False, _bool),  # K-12 【带庄多五分】
    "dealer_rule": ("winner", None),  # K-11
}

_HANSHAN: dict[str, tuple[Any, Any]] = {
    "wild_self_draw_only": (True, _bool),  # H-3 【有配子只能自摸】
    "win_on_discarded_wild": (False, _bool),  # H-3 【见配给胡】
    "discarder_pays_all": (False, _bool),  # H-5 【点炮一家付】
}

SCHEMAS = {"koudiandian": {**_KOUDIANDIAN, **_COMMON}, "hanshan": {**_HANSHAN, **_COMMON}}
DEFAULT_HANDS = 8


def normalise(variant: str, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """Validate options for a variant and fill in defaults; raise OptionError on anything wrong."""
    if variant not in SCHEMAS:
        raise OptionError(f"unknown variant {variant!r}: expected one of {', '.join(VARIANTS)}")
    options = dict(options or {})
    if not isinstance(options, dict):
        raise OptionError("options must be an object")
    schema = SCHEMAS[variant]
    unknown = sorted(set(options) - set(schema))
    if unknown:
        raise OptionError(
            f"unknown option(s) for {variant}: {', '.join(map(repr, unknown))}; "
            f"known: {', '.join(sorted(schema))}"
        )
    out: dict[str, Any] = {}
    for key, (default, check) in schema.items():
        if key in options and options[key] is not None:
            out[key] = check(key, options[key]) if check else options[key]
        else:
            out[key] = default
    _check_length(out)
    if variant == "koudiandian":
        _check_dealer_rule(out, explicit="dealer_rule" in options)
    return out


def _check_length(out: dict[str, Any]) -> None:
    """K-14: a match is either a number of hands or a number of rounds (一圈 = rounds 1)."""
    if out["hands"] is not None and out["rounds"] is not None:
        raise OptionError("give either 'hands' or 'rounds' for the match length, not both")
    if out["hands"] is None and out["rounds"] is None:
        out["hands"] = DEFAULT_HANDS


def _check_dealer_rule(out: dict[str, Any], *, explicit: bool) -> None:
    """K-11: 一圈 or 【带庄多五分】 force the "rotate" dealer rule."""
    rule = out["dealer_rule"]
    if rule not in ("winner", "rotate"):
        raise OptionError(f"option 'dealer_rule' must be \"winner\" or \"rotate\", got {rule!r}")
    forced = out["rounds"] is not None or out["dealer_bonus"]
    if forced and rule == "winner":
        if explicit:
            raise OptionError(
                "dealer_rule \"winner\" cannot be combined with 'rounds' or 'dealer_bonus': "
                "K-11 makes those matches use the \"rotate\" rule"
            )
        out["dealer_rule"] = "rotate"
