"""House rules enforced: engine/ stays pure, every module has a one-line docstring."""

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
FORBIDDEN = {"flask", "marshmallow", "sqlite3", "sqlite_utils", "events", "service", "secrets", "time",
             "datetime", "random", "apispec", "flask_smorest"}


def _imports(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_engine_imports_nothing_impure():
    offenders = {str(p.relative_to(ROOT)): sorted(_imports(p) & FORBIDDEN)
                 for p in (ROOT / "engine").rglob("*.py") if _imports(p) & FORBIDDEN}
    assert offenders == {}


def test_events_never_import_engine_or_service_or_flask():
    bad = {"engine", "service", "flask", "marshmallow"}
    offenders = {str(p): sorted(_imports(p) & bad) for p in (ROOT / "events").rglob("*.py") if _imports(p) & bad}
    assert offenders == {}


def test_every_module_starts_with_a_docstring():
    missing = []
    for folder in ("engine", "events", "service", "replay_viewer", "bench", "tests"):
        for p in (ROOT / folder).rglob("*.py"):
            tree = ast.parse(p.read_text(encoding="utf-8"))
            if not ast.get_docstring(tree):
                missing.append(str(p.relative_to(ROOT)))
    assert missing == []


def _recorded_match(variant: str, options: dict, label: str) -> list[dict]:
    import json

    from engine.selfplay import play_match, seeds_from
    _, log = play_match(variant, options, seeds_from(label))
    return json.loads(json.dumps(log))  # as stored: JSON (seat keys of recorded claims are strings)


def _raise(*args, **kwargs):
    raise AssertionError("folding ran a rule: evolve must only apply recorded data (issue 14)")


def test_folding_never_runs_scoring_or_hand_analysis(monkeypatch):
    # given whole recorded matches of both variants (wilds, claims, kongs, 报听 at the deal)
    import engine
    from engine import analysis, hand, scoring
    from engine.variants import BUILT_IN
    from engine.scoring import hanshan, koudiandian
    from engine.variants.base import Variant
    logs = [_recorded_match("koudiandian", {"hands": 4, "wilds": True}, "arch/kdd"),
            _recorded_match("koudiandian", {"hands": 4}, "arch/kdd-plain"),
            _recorded_match("hanshan", {"hands": 4}, "arch/hs")]
    expected = [engine.fold(log) for log in logs]
    # when every scoring function, every hand analysis and every rule hook raises
    for module in (hand, analysis):
        for attr, value in vars(module).items():
            if callable(value) and not isinstance(value, type) and getattr(value, "__module__", "") == module.__name__:
                monkeypatch.setattr(module, attr, _raise)
    for module in (scoring, koudiandian, hanshan):
        for attr in ("score", "legality", "kong_payments"):
            if hasattr(module, attr):
                monkeypatch.setattr(module, attr, _raise)
    for cls in (Variant, *(entry.rules for entry in BUILT_IN)):
        for attr, value in list(vars(cls).items()):
            if callable(value) and not attr.startswith("__"):
                monkeypatch.setattr(cls, attr, _raise)
    # then folding the stored events still gives the same states
    for log, state in zip(logs, expected):
        folded = engine.fold(log)
        assert (folded.scores, folded.phase, folded.hands_played) == (state.scores, state.phase, state.hands_played)
        assert folded.last_result == state.last_result
