"""Werkzeug's private routing surface that service/http/routing_adapter.py relies on: these fail when the library changes."""

from __future__ import annotations

import inspect
import pathlib

from werkzeug.routing import Rule

from service.http import routing_adapter
from service.http.routing_adapter import LazyBuildRule


def _values(rule: Rule) -> dict[str, str]:
    return {name: "7" for name in rule.arguments}  # "7" converts under every converter the app uses


def test_every_route_of_the_app_builds_the_url_werkzeugs_own_builder_builds(app):
    """Given the app's rules (lazy builders), when each builds a URL with and without unknown values,
    then it is the URL Werkzeug's eager builder makes from the same rule; and afterwards each rule
    holds the compiled builders, not the stubs."""
    rules = list(app.url_map.iter_rules())
    assert len(rules) >= 80 and all(isinstance(rule, LazyBuildRule) for rule in rules)
    for rule in rules:
        values = _values(rule)
        for append_unknown, extra in ((False, {}), (True, {"page": "2", "q": "a b", "rule": "r", "self": "s"})):
            eager = Rule._compile_builder(rule, append_unknown).__get__(rule, None)
            assert rule.build({**values, **extra}, append_unknown) == eager(**values, **extra), rule
        assert "build_on_first_use" not in (rule._build.__name__, rule._build_unknown.__name__)


def test_a_lazy_rule_compiles_its_builder_once_on_first_use():
    """Given a lazy rule just added to a map, when it has built no URL, then its builders are the stubs;
    when it builds one, then the stub is replaced by Werkzeug's compiled builder, kept for the next."""
    from werkzeug.routing import Map

    rule = LazyBuildRule("/m/<match_id>/seats/<int:seat>", endpoint="seat")
    Map([rule])
    assert rule._build.__name__ == rule._build_unknown.__name__ == "build_on_first_use"
    assert rule.build({"match_id": "abc", "seat": 2}, False) == ("", "/m/abc/seats/2")
    built = rule._build
    assert built.__name__ != "build_on_first_use"
    assert rule.build({"match_id": "x", "seat": 3}, False) == ("", "/m/x/seats/3") and rule._build is built
    assert rule.build({"match_id": "x", "seat": 3, "n": 1}, True) == ("", "/m/x/seats/3?n=1")
    fresh = LazyBuildRule("/m/<match_id>", endpoint="m")  # a first build with a value named like the stub's argument
    Map([fresh])
    assert fresh.build({"match_id": "y", "rule": "r"}, True) == ("", "/m/y?rule=r")


def test_werkzeug_still_compiles_the_builders_through_the_hook_the_adapter_overrides():
    """`Rule.compile` assigns `_build` and `_build_unknown` from `_compile_builder(...)` bound to the
    rule, and `Rule.build` calls them: what LazyBuildRule's stub stands in for."""
    compile_source = inspect.getsource(Rule.compile)
    assert "self._build = self._compile_builder(False).__get__(self, None)" in compile_source
    assert "self._build_unknown = self._compile_builder(True).__get__(self, None)" in compile_source
    build_source = inspect.getsource(Rule.build)
    assert "self._build_unknown(**values)" in build_source and "self._build(**values)" in build_source


def test_only_the_adapter_touches_werkzeugs_private_routing_names():
    root = pathlib.Path(routing_adapter.__file__).parents[1]
    users = {
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if any(name in p.read_text(encoding="utf-8") for name in ("_compile_builder", "url_rule_class"))
    }
    assert users == {"http/routing_adapter.py"}
