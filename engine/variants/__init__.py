"""The rule sets: the registry (engine/variants/registry.py) and one package per variant
(`engine/variants/<name>/`: its entry, hooks, scoring, explained settlement, rule ids, display names).

This package imports none of the variants: engine/variants/builtin.py registers the built-in ones
(`import engine` does it). Adding a rule set: write its package, then add its name to `PACKAGES`
in builtin.py (docs/ENGINE_API.md, "Adding a variant").
"""

from engine.variants.registry import UnknownVariant, VariantEntry, display_all, get, names, register, unregister

__all__ = ["UnknownVariant", "VariantEntry", "display_all", "get", "names", "register", "unregister"]
