"""The store's registry, by its older name: the event catalogue (events/catalogue.py) is the one
place that declares event types, their versions and their upcasters. `Registry` is `Catalogue`."""

from __future__ import annotations

from .catalogue import MAX_TYPE_NAME, Catalogue, Upcaster, validate_type_name

Registry = Catalogue

#: the catalogue of a store opened without one: it declares nothing (every type passes through)
default_registry = Catalogue()

__all__ = ["MAX_TYPE_NAME", "Registry", "Upcaster", "default_registry", "validate_type_name"]
