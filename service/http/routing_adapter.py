"""Every use of Werkzeug's private routing surface, in one place (tests/service/test_routing_adapter.py checks it).

Werkzeug compiles two URL builders for each rule as the rule is added (`Rule.compile` calls
`Rule._compile_builder` twice; each makes Python source from an AST and compiles it). That was about
two fifths of building an app (`service.app.create_app`), while an app builds URLs (`url_for`) for a
handful of its ninety-odd rules at most. `LazyBuildRule` compiles each builder the first time it is
called, from the same rule state, and keeps it: the URLs are Werkzeug's own, only built later.
"""

from __future__ import annotations

from typing import Any, Callable

from flask import Flask
from werkzeug.routing import Rule


class LazyBuildRule(Rule):
    """A Werkzeug rule whose URL builders are compiled on their first use instead of when it is added."""

    def _compile_builder(self, append_unknown: bool = True) -> Callable[..., tuple[str, str]]:
        attribute = "_build_unknown" if append_unknown else "_build"

        def build_on_first_use(rule: Rule, /, **values: Any) -> tuple[str, str]:
            # `rule` is positional-only (Werkzeug's own builder names it `.self`): a URL value may be
            # called `rule`. `compile` binds what this returns to the rule (`__get__`), as it binds Werkzeug's builder
            built = Rule._compile_builder(rule, append_unknown).__get__(rule, None)
            setattr(rule, attribute, built)  # two threads racing here compile the same builder
            return built(**values)

        return build_on_first_use


class LazyRoutingFlask(Flask):
    """Flask, with its URL rules compiling their builders on first use (`LazyBuildRule`)."""

    url_rule_class = LazyBuildRule
