"""One application service: no subclass swapped in at start-up, no proxy around the store, and every
method a route or page calls on the service exists on MatchService (checked in the source)."""

from __future__ import annotations

import ast
import pathlib

from events import EventStore
from service.usecases.play import MatchService
from service.http.services import services

ROOT = pathlib.Path(__file__).resolve().parents[2]
ATTRIBUTES = {
    "repo",
    "accounts",
    "tokens",
    "decisions",
    "webhooks",
    "notifier",
    "clock",
    "bot_delay",
}  # set by MatchService.__init__


def test_the_app_runs_the_match_service_over_the_store_itself(app):
    svc = services(app).match
    assert type(svc) is MatchService
    assert type(svc.repo.store) is EventStore  # no proxy intercepting appends


def _service_calls(path: pathlib.Path) -> set[str]:
    """Names used as `svc.NAME` or `service().NAME` in a module."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Attribute):
            continue
        target = node.value
        if isinstance(target, ast.Name) and target.id == "svc":
            names.add(node.attr)
        elif isinstance(target, ast.Call) and isinstance(target.func, ast.Name) and target.func.id == "service":
            names.add(node.attr)
    return names


def test_routes_and_pages_call_only_what_the_service_has():
    missing = {}
    for folder in ("service/http/routes", "service/http/pages", "replay_viewer", "service"):
        for path in (ROOT / folder).glob("*.py"):
            unknown = {
                name for name in _service_calls(path) if name not in ATTRIBUTES and not hasattr(MatchService, name)
            }
            if unknown:
                missing[str(path.relative_to(ROOT))] = sorted(unknown)
    assert missing == {}
