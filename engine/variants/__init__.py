"""The rule sets: per-variant hooks for the shared table flow, and the registry listing them.

Adding a rule set: write its package (hooks, scoring, `ENTRY`), then add `ENTRY` to `BUILT_IN` below
(docs/ENGINE_API.md, "Adding a variant").
"""

from engine.variants import hanshan, koudiandian
from engine.variants.registry import UnknownVariant, VariantEntry, display_all, get, names, register, unregister

BUILT_IN = (koudiandian.ENTRY, hanshan.ENTRY)
for _entry in BUILT_IN:
    register(_entry)

__all__ = ["BUILT_IN", "UnknownVariant", "VariantEntry", "display_all", "get", "names", "register", "unregister"]
