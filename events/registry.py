"""Event types by name and schema version, and the upcasters that migrate old payloads."""

from __future__ import annotations

from typing import Any, Callable

from .errors import UpcastError

MAX_TYPE_NAME = 64
Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


def validate_type_name(type_name: Any) -> str:
    """Return type_name if it is a non-empty string of at most 64 characters."""
    if not isinstance(type_name, str) or not type_name.strip():
        raise ValueError(f"event type must be a non-empty string, got {type_name!r}")
    if len(type_name) > MAX_TYPE_NAME:
        raise ValueError(f"event type longer than {MAX_TYPE_NAME} characters: {type_name[:20]!r}...")
    return type_name


class Registry:
    """Known event types, their current schema versions and step-by-step upcasters."""

    def __init__(self) -> None:
        self._current: dict[str, int] = {}
        self._upcasters: dict[tuple[str, int], Upcaster] = {}

    def register(self, type_name: str, version: int = 1) -> str:
        """Declare type_name with current schema version `version` (re-registering bumps it)."""
        validate_type_name(type_name)
        _check_version(version)
        self._current[type_name] = version
        return type_name

    def upcaster(self, type_name: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
        """Decorator: fn(payload) -> payload migrating type_name from from_version to from_version+1."""
        validate_type_name(type_name)
        _check_version(from_version)

        def decorate(fn: Upcaster) -> Upcaster:
            self._upcasters[(type_name, from_version)] = fn
            return fn

        return decorate

    def current_version(self, type_name: str) -> int | None:
        """The registered schema version of type_name, or None if unregistered."""
        return self._current.get(type_name)

    def is_registered(self, type_name: str) -> bool:
        return type_name in self._current

    def upcast(self, type_name: str, schema_version: int, payload: Any) -> tuple[int, Any]:
        """Migrate payload to the current version; unknown types and newer versions pass through."""
        target = self._current.get(type_name)
        version = schema_version
        while target is not None and version < target:
            step = self._upcasters.get((type_name, version))
            if step is None:
                raise UpcastError(f"no upcaster for {type_name!r} from schema version {version} to {version + 1}")
            payload = step(payload)
            version += 1
        return version, payload


def _check_version(version: Any) -> None:
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ValueError(f"schema version must be an integer >= 1, got {version!r}")


default_registry = Registry()
register = default_registry.register
upcaster = default_registry.upcaster
current_version = default_registry.current_version
upcast = default_registry.upcast
