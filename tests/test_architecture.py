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
