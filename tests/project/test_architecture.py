"""House rules enforced: engine/ stays pure, the packages import one way only, every module has a docstring.

The arrows: service → engine, events (and replay_viewer's frames); replay_viewer → engine; events → nothing
of ours; engine → nothing at all (no I/O, no clock, no randomness but the seeded shuffle).
"""

import ast
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
FORBIDDEN = {
    "flask",
    "marshmallow",
    "sqlite3",
    "sqlite_utils",
    "events",
    "service",
    "replay_viewer",
    "secrets",
    "time",
    "datetime",
    "random",
    "apispec",
    "flask_smorest",
    "psycopg",
    "psycopg_pool",
}
OURS = {"engine", "events", "service", "replay_viewer", "bench", "tests"}


def _modules(path: pathlib.Path) -> set[str]:
    """Every absolute module name the file imports, anywhere in it (lazy imports too), in full."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _imports(path: pathlib.Path) -> set[str]:
    return {name.split(".")[0] for name in _modules(path)}


def _package_imports(package: str) -> dict[str, set[str]]:
    """file -> the top-level packages it imports (of any package's files)."""
    return {str(p.relative_to(ROOT)): _imports(p) for p in (ROOT / package).rglob("*.py")}


def _offenders(package: str, forbidden: set[str]) -> dict[str, list[str]]:
    return {path: sorted(names & forbidden) for path, names in _package_imports(package).items() if names & forbidden}


def test_engine_imports_nothing_impure():
    offenders = {
        str(p.relative_to(ROOT)): sorted(_imports(p) & FORBIDDEN)
        for p in (ROOT / "engine").rglob("*.py")
        if _imports(p) & FORBIDDEN
    }
    assert offenders == {}


def test_events_never_import_engine_or_service_or_flask():
    assert _offenders("events", OURS - {"events"} | {"flask", "marshmallow"}) == {}


def test_engine_imports_none_of_our_other_packages():
    assert _offenders("engine", OURS - {"engine"}) == {}


def test_service_imports_engine_and_events_never_the_other_way():
    assert _offenders("service", {"bench", "tests"}) == {}
    for package in ("engine", "events"):
        assert _offenders(package, {"service"}) == {}, package


def test_evolve_applies_data_and_imports_no_rules():
    """The Decider's evolve half takes its decisions from its caller: it imports the state, the tiles
    and the versions, never the variants, scoring, hand analysis or the table that decides."""
    allowed = {"__future__", "collections.abc", "typing", "engine.state", "engine.tiles", "engine.versions"}
    assert _modules(ROOT / "engine" / "evolve.py") - allowed == set()


def test_the_deciders_halves_name_no_private_function_alike():
    """decide (engine/table.py), evolve (engine/evolve.py) and the rules' decisions (engine/decisions.py):
    a private name means one thing (a builder of an event is not a handler of it)."""
    seen: dict[str, str] = {}
    clashes = []
    for name in ("table", "evolve", "decisions"):
        tree = ast.parse((ROOT / "engine" / f"{name}.py").read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("_"):
                if node.name in seen:
                    clashes.append((node.name, seen[node.name], name))
                seen[node.name] = name
    assert clashes == []


def test_service_uses_the_event_store_only_through_its_public_surface():
    """No events.connection, no schema module: connections, DDL, SQL dialects and leases are the store's."""
    internal = {
        "events.connection",
        "events.schema",
        "events.pg_schema",
        "events.side_tables",
        "events.postgres",
        "events.store",
    }
    private = {str(p.relative_to(ROOT)): sorted(_modules(p) & internal) for p in (ROOT / "service").rglob("*.py")}
    assert {path: names for path, names in private.items() if names} == {}


def test_replay_viewer_and_service_import_one_way_only():
    """service → replay_viewer (its frames and assets); replay_viewer imports the engine only (no service, no Flask)."""
    assert _offenders("replay_viewer", OURS - {"replay_viewer", "engine"} | {"flask", "flask_smorest"}) == {}


def test_service_writes_no_sql_of_the_event_store_tables():
    """The outbox, events and idempotency tables are events/' own: service/ has no UPDATE/INSERT/DELETE on them."""
    pattern = re.compile(
        r"\b(UPDATE|INSERT\s+INTO|DELETE\s+FROM)\s+(outbox|events|idempotency|stream_heads|meta)\b", re.I
    )
    found = {
        str(p.relative_to(ROOT)): pattern.findall(p.read_text(encoding="utf-8"))
        for p in (ROOT / "service").rglob("*.py")
    }
    assert {path: hits for path, hits in found.items() if hits} == {}


def test_no_code_outside_a_variants_own_modules_names_a_variant():
    """One place per variant (issue 14): engine, events, service and the replay viewer (Python, JS and
    templates) look variants up in the registry; only each variant's own modules spell its name."""
    from engine.variants import BUILT_IN

    own = {"engine/variants/", *(f"engine/scoring/{entry.name}.py" for entry in BUILT_IN)}
    quoted = re.compile(r"[\"'`](%s)[\"'`]" % "|".join(re.escape(entry.name) for entry in BUILT_IN))
    found = {}
    for folder in ("engine", "events", "service", "replay_viewer"):
        for p in (ROOT / folder).rglob("*"):
            path = str(p.relative_to(ROOT))
            if p.suffix not in (".py", ".js", ".html") or any(path.startswith(o) for o in own):
                continue
            hits = [n for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if quoted.search(line)]
            if hits:
                found[path] = hits
    assert found == {}


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
    raise AssertionError("folding ran a rule: evolve must only apply recorded data")


def test_folding_never_runs_scoring_or_hand_analysis(monkeypatch):
    # given whole recorded matches of both variants (wilds, claims, kongs, 报听 at the deal)
    import engine
    from engine import analysis, hand, scoring
    from engine.variants import BUILT_IN
    from engine.scoring import hanshan, koudiandian
    from engine.variants.base import Variant

    logs = [
        _recorded_match("koudiandian", {"hands": 4, "wilds": True}, "arch/kdd"),
        _recorded_match("koudiandian", {"hands": 4}, "arch/kdd-plain"),
        _recorded_match("hanshan", {"hands": 4}, "arch/hs"),
    ]
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
