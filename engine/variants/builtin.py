"""The built-in rule sets, registered: the one module that loads the variants' packages
(`engine/__init__.py` imports it, so any use of the engine finds them in the registry).

A new rule set of the same shape is its package under engine/variants/ and its name here.
"""

from importlib import import_module

from engine.variants.registry import VariantEntry, register

PACKAGES = ("koudiandian", "hanshan")  # engine/variants/<name>/, each with its ENTRY

BUILT_IN: tuple[VariantEntry, ...] = tuple(
    register(import_module(f"engine.variants.{name}").ENTRY) for name in PACKAGES
)
