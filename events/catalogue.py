"""The event catalogue: every event type declared once, with its fields, its current schema version
and the upcasters that bring older versions forward.

The catalogue knows no event of its own. A package that emits events declares its types as plain
data, without importing this module (so a pure package can declare its own):

    EVENT_TYPES: dict[str, tuple[type | None, int, Mapping[int, Upcaster]]] = {
        "tile_discarded": (TileDiscarded, 3, {1: v1_to_v2, 2: v2_to_v3}),
    }

`fields` is a TypedDict class naming the payload's keys (`NotRequired[...]` for optional ones) and
their types, or None for "any JSON object"; `upcasters[n]` moves a payload of version n to n + 1
(its shape, never its meaning). Whoever opens a store hands it the catalogue holding the types it
reads (`EventStore(..., registry=catalogue)`): the store writes new events at their current
version and upcasts what it reads, one step at a time.

`Catalogue.check` is what an import asks of each row (a known type, a known version, fields of the
declared types); `Catalogue.new` builds an event through it (the same check on the way in).
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Literal, Mapping, NotRequired, Optional, Required, Union

from .errors import UpcastError

MAX_TYPE_NAME = 64
Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
#: how a package declares one event type: (fields: a TypedDict class or None, current version, upcasters)
Declaration = tuple[Optional[type], int, Mapping[int, Upcaster]]
_Check = Callable[[Any], Optional[str]]


class UnknownEventType(ValueError):
    """A type (or a version of it) the catalogue does not declare."""


class InvalidEvent(ValueError):
    """A payload whose fields are not the ones its type declares."""


def validate_type_name(type_name: Any) -> str:
    """Return type_name if it is a non-empty string of at most 64 characters."""
    if not isinstance(type_name, str) or not type_name.strip():
        raise ValueError(f"event type must be a non-empty string, got {type_name!r}")
    if len(type_name) > MAX_TYPE_NAME:
        raise ValueError(f"event type longer than {MAX_TYPE_NAME} characters: {type_name[:20]!r}...")
    return type_name


def _check_version(version: Any) -> None:
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ValueError(f"schema version must be an integer >= 1, got {version!r}")


@dataclass(frozen=True)
class EventType:
    """One declared event type: its fields (a TypedDict, None: any object), current version and upcasters."""

    name: str
    fields: Optional[type] = None
    version: int = 1
    upcasters: Mapping[int, Upcaster] = field(default_factory=dict)
    group: str = ""  # who declared it (e.g. "engine"): callers tell their own types apart by it

    def __post_init__(self) -> None:
        validate_type_name(self.name)
        _check_version(self.version)
        object.__setattr__(self, "_check", _object_check(self.fields) if self.fields is not None else _any_object)

    def upcast(self, version: int, payload: Any) -> tuple[int, Any]:
        """(current version, payload in its shape); a version newer than the current passes through."""
        while version < self.version:
            step = self.upcasters.get(version)
            if step is None:
                raise UpcastError(f"no upcaster for {self.name!r} from schema version {version} to {version + 1}")
            payload = step(payload)
            version += 1
        return version, payload

    def problem(self, payload: Any) -> Optional[str]:
        """Why a payload of the current version does not have the declared fields (None: it does)."""
        check: _Check = self.__dict__["_check"]
        return check(payload)


class Catalogue:
    """The event types a store reads and writes, by name (the store's `registry`)."""

    def __init__(self, *tables: Mapping[str, Declaration], group: str = "") -> None:
        self._types: dict[str, EventType] = {}
        for table in tables:
            self.declare_all(table, group=group)

    # -- declaring --------------------------------------------------------------------------------
    def declare(
        self,
        name: str,
        fields: Optional[type] = None,
        version: int = 1,
        upcasters: Optional[Mapping[int, Upcaster]] = None,
        *,
        group: str = "",
    ) -> EventType:
        """Declare (or redeclare) one type; its upcasters must cover every version below `version`."""
        declared = EventType(name, fields, version, dict(upcasters or {}), group)
        missing = [v for v in range(1, version) if v not in declared.upcasters]
        if missing:
            raise ValueError(f"{name!r} is at version {version} but has no upcaster from version(s) {missing}")
        self._types[name] = declared
        return declared

    def declare_all(self, table: Mapping[str, Declaration], *, group: str = "") -> None:
        """Declare every type of a package's table (name -> (fields, version, upcasters))."""
        for name, (fields, version, upcasters) in table.items():
            self.declare(name, fields, version, upcasters, group=group)

    # -- asking -----------------------------------------------------------------------------------
    def get(self, name: str) -> Optional[EventType]:
        return self._types.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._types

    def names(self, group: Optional[str] = None) -> frozenset[str]:
        """The declared type names (of one group only, when given)."""
        return frozenset(n for n, t in self._types.items() if group is None or t.group == group)

    def current_version(self, type_name: str) -> Optional[int]:
        """The declared current version of type_name, or None if undeclared."""
        declared = self._types.get(type_name)
        return None if declared is None else declared.version

    def is_registered(self, type_name: str) -> bool:
        return type_name in self._types

    def upcast(self, type_name: str, schema_version: int, payload: Any) -> tuple[int, Any]:
        """The payload moved to its type's current version; undeclared types and versions newer
        than the declared one pass through (the store never drops data)."""
        declared = self._types.get(type_name)
        if declared is None:
            return schema_version, payload
        return declared.upcast(schema_version, payload)

    def check(self, type_name: Any, schema_version: Any, payload: Any) -> dict[str, Any]:
        """The payload in its current shape, if type, version and fields are all declared ones;
        else UnknownEventType (type or version) or InvalidEvent (fields), saying which."""
        declared = self._types.get(type_name) if isinstance(type_name, str) else None
        if declared is None:
            raise UnknownEventType(f"unknown event type {type_name!r}")
        if not isinstance(schema_version, int) or isinstance(schema_version, bool) or schema_version < 1:
            raise UnknownEventType(f"{type_name}: schema version must be an integer >= 1, got {schema_version!r}")
        if schema_version > declared.version:
            raise UnknownEventType(
                f"{type_name}: unknown schema version {schema_version} (this catalogue knows 1 to {declared.version})"
            )
        if not isinstance(payload, dict):
            raise InvalidEvent(f"{type_name}: the payload must be an object")
        try:
            _, current = declared.upcast(schema_version, payload)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InvalidEvent(f"{type_name} v{schema_version}: cannot be upcast: {exc!r}") from None
        problem = declared.problem(current)
        if problem is not None:
            raise InvalidEvent(f"{type_name} v{schema_version}: {problem}")
        return dict(current)

    def new(self, type_name: str, payload: Mapping[str, Any]) -> tuple[str, int, dict[str, Any]]:
        """(type, current version, payload) of a new event, its fields checked against the declaration."""
        declared = self._types.get(type_name)
        if declared is None:
            raise UnknownEventType(f"unknown event type {type_name!r}: declare it in the catalogue")
        payload = dict(payload)
        problem = declared.problem(payload)
        if problem is not None:
            raise InvalidEvent(f"{type_name}: {problem}")
        return type_name, declared.version, payload

    # -- the store registry's older spelling (tests and benches declare types one by one) ---------
    def register(self, type_name: str, version: int = 1) -> str:
        """Declare type_name (any object) at `version`, keeping upcasters declared for it."""
        validate_type_name(type_name)
        _check_version(version)
        old = self._types.get(type_name)
        upcasters = dict(old.upcasters) if old else {}
        self._types[type_name] = EventType(type_name, old.fields if old else None, version, upcasters)
        return type_name

    def upcaster(self, type_name: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
        """Decorator: fn(payload) -> payload moving type_name from `from_version` to the next."""
        validate_type_name(type_name)
        _check_version(from_version)

        def decorate(fn: Upcaster) -> Upcaster:
            old = self._types.get(type_name) or EventType(type_name, None, from_version + 1)
            self._types[type_name] = EventType(
                type_name,
                old.fields,
                max(old.version, from_version + 1),
                {**old.upcasters, from_version: fn},
                old.group,
            )
            return fn

        return decorate


# -- field checks compiled from TypedDict annotations --------------------------------------------
def _any_object(payload: Any) -> Optional[str]:
    return None if isinstance(payload, dict) else "the payload must be an object"


def _object_check(typed: type) -> _Check:
    """A check of a dict against a TypedDict: required keys present, no other keys, each value typed."""
    hints = typing.get_type_hints(typed, include_extras=True)
    total = getattr(typed, "__total__", True)
    # read from the hints, not __required_keys__: under `from __future__ import annotations` Python
    # 3.11's TypedDict cannot see NotRequired in the annotations' text
    required = frozenset(
        key
        for key, hint in hints.items()
        if typing.get_origin(hint) is Required or (total and typing.get_origin(hint) is not NotRequired)
    )
    checks = {key: _check_for(hint) for key, hint in hints.items()}

    def check(value: Any) -> Optional[str]:
        if not isinstance(value, dict):
            return "must be an object"
        missing = required.difference(value)
        if missing:
            return f"lacks {', '.join(sorted(missing))}"
        for key, item in value.items():
            one = checks.get(key)
            if one is None:
                return f"has an undeclared field {key!r}"
            problem = one(item)
            if problem is not None:
                return f"{key}: {problem}"
        return None

    return check


def _check_for(hint: Any) -> _Check:
    """A check of one value against a type hint (the JSON subset events use)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return lambda value: None
    if origin in (Required, NotRequired):
        return _check_for(args[0])
    if hint is None or hint is type(None):
        return lambda value: None if value is None else "must be null"
    if hint is bool:
        return lambda value: None if isinstance(value, bool) else "must be a boolean"
    if hint is int:
        return lambda value: None if isinstance(value, int) and not isinstance(value, bool) else "must be an integer"
    if hint is float:
        return lambda value: (
            None if isinstance(value, (int, float)) and not isinstance(value, bool) else "must be a number"
        )
    if hint is str:
        return lambda value: None if isinstance(value, str) else "must be a string"
    if origin is Literal:
        allowed = frozenset(args)
        return lambda value: (
            None if not isinstance(value, bool) and value in allowed else f"must be one of {sorted(args)}"
        )
    if origin in (Union, types.UnionType):
        options = [_check_for(a) for a in args]
        return lambda value: None if any(o(value) is None for o in options) else _first(options, value)
    if origin in (list, tuple) or hint in (list, tuple):
        item = _check_for(args[0]) if args else (lambda value: None)
        return lambda value: _items(value, item)
    if origin is dict or hint is dict or origin is Mapping:
        item = _check_for(args[1]) if len(args) == 2 else (lambda value: None)
        return lambda value: _values(value, item)
    if typing.is_typeddict(hint):
        return _object_check(hint)
    raise TypeError(f"the catalogue cannot check values of type {hint!r}")


def _first(options: Iterable[_Check], value: Any) -> Optional[str]:
    return " or ".join(p for p in (o(value) for o in options) if p)


def _items(value: Any, item: _Check) -> Optional[str]:
    if not isinstance(value, list):
        return "must be a list"
    for index, element in enumerate(value):
        problem = item(element)
        if problem is not None:
            return f"[{index}] {problem}"
    return None


def _values(value: Any, item: _Check) -> Optional[str]:
    if not isinstance(value, dict):
        return "must be an object"
    for key, element in value.items():
        problem = item(element)
        if problem is not None:
            return f"[{key!r}] {problem}"
    return None


__all__ = [
    "Catalogue",
    "Declaration",
    "EventType",
    "InvalidEvent",
    "UnknownEventType",
    "Upcaster",
    "validate_type_name",
]
