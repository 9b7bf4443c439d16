"""House rules enforced: engine/ stays pure, the packages import one way only, every module has a docstring.

The arrows: service → engine, events (and replay_viewer's frames); replay_viewer → engine; events → nothing
of ours; engine → nothing at all (no I/O, no clock, no randomness but the seeded shuffle).
"""

import ast
import pathlib
import re

import pytest

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


def _module_name(path: pathlib.Path, root: pathlib.Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph(package: str, root: pathlib.Path = ROOT) -> dict[str, set[str]]:
    """module -> the modules of `package` it imports, read as the house tool reads them: every import
    counts, lazy ones inside functions and type-only ones under `if TYPE_CHECKING:` too (a type-only
    import still makes one module's meaning depend on another's). `from a import b` names the
    submodule a.b when there is one, else the module a; importing a.b.c also runs the packages a.b and
    a (unless the importer lives inside them: a package's own modules import each other while it
    initialises), but naming the package itself (`from a import name`) counts from anywhere."""
    modules = {_module_name(p, root): p for p in (root / package).rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        found: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(here[: len(here) - node.level + 1] + ([node.module] if node.module else []))
                named = {f"{base}.{alias.name}" for alias in node.names}
                found |= named & set(modules) if named <= set(modules) else (named & set(modules)) | {base}
        imported = set()
        for target in found & set(modules):
            parts = target.split(".")
            for i in range(1, len(parts)):
                prefix = ".".join(parts[:i])
                if prefix in modules and not (name == prefix or name.startswith(prefix + ".")):
                    imported.add(prefix)
            imported.add(target)
        graph[name] = imported - {name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_import_graph_reader_sees_a_cycle():
    # given two modules importing each other (one lazily), then the reader names them
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]


def test_the_import_graph_reader_counts_type_only_lazy_and_package_imports(tmp_path):
    # given a package whose registry imports the hooks for a type only, whose hooks import scoring
    # lazily, and whose scoring imports the registry's package (which re-exports the registry)
    files = {
        "pkg/__init__.py": "from pkg.registry import get\n",
        "pkg/registry.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.hooks import Hooks\n",
        "pkg/hooks.py": "def settle():\n    from pkg.scoring import score\n",
        "pkg/scoring.py": "from pkg import get\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    # then the reader sees the one cycle through all four
    assert _cycles(_import_graph("pkg", tmp_path)) == [["pkg", "pkg.hooks", "pkg.registry", "pkg.scoring"]]


@pytest.mark.parametrize("package", ["engine", "events", "service", "replay_viewer"])
def test_no_import_cycle(package):
    """Each module can be read (and changed) after the ones it imports: none imports, directly or
    through others, lazily or for a type only, a module that imports it back (the house tool,
    cycles.py, counts the same imports)."""
    assert _cycles(_import_graph(package)) == []


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
    """One place per variant: engine, events, service and the replay viewer (Python, JS and templates)
    look variants up in the registry; only each variant's own package spells its name."""
    from engine.variants.builtin import BUILT_IN

    own = {f"engine/variants/{entry.name}/" for entry in BUILT_IN} | {"engine/variants/builtin.py"}
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
    from engine.variants.builtin import BUILT_IN
    from engine.variants.base import Variant
    from engine.variants.hanshan import scoring as hanshan
    from engine.variants.koudiandian import scoring as koudiandian

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


# -- service/ in layers (docs/ARCHITECTURE.md) ------------------------------------------------------
#: what each layer of service/ may import of service/ (engine/ and events/ are below them all):
#: http and cli → usecases → model and infra, never back; the model imports no adapter.
SERVICE_LAYERS = {
    "model": {"model"},
    "infra": {"infra", "model"},
    "usecases": {"usecases", "model", "infra"},
    "http": {"http", "usecases", "model", "infra"},
    "cli": {"cli", "http", "usecases", "model", "infra", "app"},
}


def _service_module(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _service_imports(path: pathlib.Path) -> set[str]:
    """The service/ modules a file imports (relative imports resolved; lazy imports too), in full."""
    here = _service_module(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "service":
                continue
            for alias in node.names:
                full = f"{target}.{alias.name}"
                as_path = ROOT / full.replace(".", "/")
                found.add(full if as_path.with_suffix(".py").exists() or (as_path / "__init__.py").exists() else target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] == "service")
    return found


def _service_graph() -> dict[str, set[str]]:
    return {_service_module(p): _service_imports(p) for p in (ROOT / "service").rglob("*.py")}


def _layer(module: str) -> str:
    parts = module.split(".")
    return (
        parts[1]
        if len(parts) > 2 or parts[1:] in (["cli"], ["http"], ["model"], ["infra"], ["usecases"])
        else parts[-1]
    )


def test_service_layers_import_downwards_only():
    """http and cli → usecases → model and infra → engine and events: no module imports a layer above its own."""
    upward = {
        module: sorted(t for t in targets if _layer(t) not in SERVICE_LAYERS[_layer(module)])
        for module, targets in _service_graph().items()
        if _layer(module) in SERVICE_LAYERS
    }
    assert {module: targets for module, targets in upward.items() if targets} == {}


def test_no_route_touches_the_repository_or_the_event_store():
    """Routes and pages reach matches through the use cases (MatchService, the chat, the viewer's
    reads): no `.repo` or `.store` attribute, no import of the repository or of the event store."""
    http = ROOT / "service" / "http"
    files = [*(http / "routes").glob("*.py"), *(http / "pages").glob("*.py"), http / "stream.py", http / "web.py"]
    found = {}
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        hits = sorted(
            {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr in ("repo", "store")}
            | {name for name in _service_imports(path) if name.startswith("service.infra.repository")}
            | {name for name in _modules(path) if name == "events"}
        )
        if hits:
            found[str(path.relative_to(ROOT))] = hits
    assert found == {}


# -- explicit wiring (docs/ARCHITECTURE.md) ----------------------------------------------------------
def _python_files(*folders: str) -> list[pathlib.Path]:
    return [path for folder in folders for path in sorted((ROOT / folder).rglob("*.py"))]


def test_the_services_are_read_through_their_typed_accessor_only():
    """One typed object holds what an app runs on (service/http/services.py keeps it under its one
    key): no other module reads or writes `app.extensions[...]` or `.extensions.get(...)`."""
    keeper = ROOT / "service" / "http" / "services.py"
    found = {}
    for path in _python_files("service", "tests", "bench"):
        if path == keeper:
            continue
        hits = [
            node.lineno
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if (
                isinstance(node, ast.Subscript)
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == "extensions"
            )
            or (
                isinstance(node, ast.Attribute)
                and node.attr in ("get", "setdefault", "pop", "update")
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == "extensions"
            )
        ]
        if hits:
            found[str(path.relative_to(ROOT))] = hits
    assert found == {}


def test_no_view_function_is_replaced_after_registration():
    """Routes declare what wraps them (`@owner_only`, `@rate_limited`, service/http/routes/declare.py):
    nothing assigns into `app.view_functions` by endpoint name."""
    found = {}
    for path in _python_files("service"):
        hits = [
            node.lineno
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign))
            and any(
                isinstance(target, ast.Subscript)
                and isinstance(target.value, ast.Attribute)
                and target.value.attr == "view_functions"
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            )
        ]
        if hits:
            found[str(path.relative_to(ROOT))] = hits
    assert found == {}


def test_owner_only_routes_and_rate_limits_are_declared_on_the_routes(tmp_path):
    """The owner's routes and the rate-limited routes are the ones their blueprints declare."""
    from service.app import create_app
    from service.http.routes.declare import declared_owner_only, declared_rate_limit

    views = create_app({"DATABASE": str(tmp_path / "t.db"), "TESTING": True}).view_functions
    assert sorted(endpoint for endpoint, view in views.items() if declared_owner_only(view)) == [
        "invites.reissue",
        "orders.put_spectating",
        "seats.add_bots",
    ]
    assert {endpoint: declared_rate_limit(view) for endpoint, view in views.items() if declared_rate_limit(view)} == {
        "export.import_match": "RATE_LIMIT_IMPORT",
        "matches.create_match": "RATE_LIMIT_CREATE",
        "score.score": "RATE_LIMIT_SCORE",
        "seats.join": "RATE_LIMIT_JOIN",
        "play_now.play_now": "RATE_LIMIT_JOIN",
        **{f"accounts.{door}": "RATE_LIMIT_ACCOUNT" for door in ACCOUNT_DOORS},
    }


# -- one door for what a viewer reads (docs/ARCHITECTURE.md) -----------------------------------------
#: how a route reaches the use cases: service() (what changes a match), reads() (the query module),
#: services().<field> (chat lines, the ticker)
#: the account's doors an attacker can knock on without a session: sign-up, sign-in, recovery, a device link
ACCOUNT_DOORS = (
    "sign_up_options",
    "sign_up",
    "sign_in_options",
    "sign_in",
    "recover_options",
    "recover",
    "linked_passkey_options",
    "linked_passkey",
)
_ACCESSORS = {"service": "match", "reads": "reads"}
_USE_CASE_FIELDS = {"match", "reads", "chat", "ticker", "accounts"}
#: what a route or page module may import of service/usecases/: the query module (its types and
#: reads); export.py also the log format's parser for the import (no read of a stored match)
_HTTP_USECASE_IMPORTS = {"service.usecases.reads"}
_HTTP_USECASE_EXTRA = {"service/http/routes/export.py": {"service.usecases.match_log"}}


def _http_entry_modules() -> list[pathlib.Path]:
    http = ROOT / "service" / "http"
    return sorted([*(http / "routes").glob("*.py"), *(http / "pages").glob("*.py")])


def _use_case_object(node: ast.AST) -> "str | None":
    """Which use-case object an expression is: service() -> match, reads() -> reads,
    services().<field> -> that field; None for anything else."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _ACCESSORS and not node.args:
        return _ACCESSORS[node.func.id]
    if (
        isinstance(node, ast.Attribute)
        and node.attr in _USE_CASE_FIELDS
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "services"
    ):
        return node.attr
    return None


def _pairs(node: ast.Assign) -> list[tuple[ast.expr, ast.expr]]:
    """(target, value) of an assignment, tuples unpacked pairwise (`svc, held = service(), x`)."""
    pairs = []
    for target in node.targets:
        if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
            pairs += list(zip(target.elts, node.value.elts))
        else:
            pairs.append((target, node.value))
    return pairs


def _use_case_calls(tree: ast.Module) -> dict[str, tuple[list[str], list[int]]]:
    """function name -> (the use-case objects its calls go to, counting the calls of the module's
    own functions it calls, transitively; the lines where a use-case object escapes: kept in a name
    and used other than by calling one of its methods, e.g. handed to a helper)."""
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    own: dict[str, tuple[list[str], list[int], set[str]]] = {}
    for name, function in functions.items():
        parents = {id(child): parent for parent in ast.walk(function) for child in ast.iter_child_nodes(parent)}
        bound = {
            target.id: kind
            for node in ast.walk(function)
            if isinstance(node, ast.Assign)
            for target, value in _pairs(node)
            if isinstance(target, ast.Name) and (kind := _use_case_object(value)) is not None
        }
        calls, escapes, helpers = [], [], set()
        for node in ast.walk(function):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                base = node.func.value
                kind = _use_case_object(base) or (bound.get(base.id) if isinstance(base, ast.Name) else None)
                if kind is not None:
                    calls.append(kind)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions:
                helpers.add(node.func.id)
            if isinstance(node, ast.Name) and node.id in bound and isinstance(node.ctx, ast.Load):
                parent = parents.get(id(node))
                called = isinstance(parent, ast.Attribute) and isinstance(parents.get(id(parent)), ast.Call)
                if not called or parents[id(parent)].func is not parent:
                    escapes.append(node.lineno)
        own[name] = (calls, escapes, helpers)

    def total(name: str, seen: frozenset) -> tuple[list[str], list[int]]:
        calls, escapes, helpers = own[name]
        calls, escapes = list(calls), list(escapes)
        for helper in sorted(helpers - seen - {name}):
            more, lost = total(helper, seen | {name})
            calls += more
            escapes += lost
        return calls, escapes

    return {name: total(name, frozenset()) for name in functions}


def _routes(tree: ast.Module) -> dict[str, set[str]]:
    """route function name -> its HTTP methods (from `@<blueprint>.route(..., methods=[...])`)."""
    found = {}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute):
                if decorator.func.attr == "route":
                    methods = {"GET"}
                    for keyword in decorator.keywords:
                        if keyword.arg == "methods":
                            methods = set(ast.literal_eval(keyword.value))
                    found[node.name] = methods
    return found


def test_the_use_case_call_reader_counts_calls_through_helpers_and_sees_escapes():
    # given a route that reads once itself and once more through a helper, and one that hands the
    # match service to a helper
    tree = ast.parse(
        "def helper(x):\n    return reads().summary(x)\n"
        "def route(m):\n    svc = service()\n    svc.load(m)\n    return helper(m)\n"
        "def leaky(m):\n    svc, n = service(), 1\n    return other(svc)\n"
        "def chat(m):\n    return services().chat.post(m)\n"
    )
    # then the reader counts both calls, names their objects and sees the escape
    found = _use_case_calls(tree)
    assert sorted(found["route"][0]) == ["match", "reads"] and found["route"][1] == []
    assert found["leaky"][0] == [] and found["leaky"][1] == [9]
    assert found["chat"][0] == ["chat"]


def test_each_route_and_page_calls_one_use_case_and_reads_through_the_query_module():
    """A route parses its request, calls ONE use case and writes its answer: no route or page function
    (with the module's helpers it calls) calls more than one use-case method, none hands a use-case
    object on, and a GET answers from the query module alone (service/usecases/reads.py, `Reads`):
    the viewer's numbering and redaction are decided there, never composed in a route."""
    found = {}
    for path in _http_entry_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = _use_case_calls(tree)
        for route, methods in _routes(tree).items():
            made, escapes = calls[route]
            wrong = [kind for kind in made if kind != "reads"] if methods <= {"GET", "HEAD"} else []
            if len(made) > 1 or escapes or wrong:
                found[f"{path.relative_to(ROOT)}:{route}"] = {"calls": made, "escapes": escapes, "not_reads": wrong}
    assert found == {}


def test_routes_and_pages_import_the_use_cases_only_through_the_query_module():
    """Of service/usecases/, a route or page module imports only the query module (reads.py, whose
    `Reads` answers every read; the match service comes from `service()`); the viewer's redaction, numbering,
    chat, replay and spectating checks are not theirs to import. Nor does any import the match as
    folded (`service.model.match`, `service.model.numbering`): they never see global versions."""
    found = {}
    for path in _http_entry_modules():
        relative = str(path.relative_to(ROOT))
        allowed = _HTTP_USECASE_IMPORTS | _HTTP_USECASE_EXTRA.get(relative, set())
        imported = _service_imports(path)
        wrong = sorted(
            name
            for name in imported
            if (name.startswith("service.usecases") and name not in allowed)
            or name.startswith(("service.model.match", "service.model.numbering", "service.infra.repository"))
        )
        if wrong:
            found[relative] = wrong
    assert found == {}


def test_pages_and_routes_compute_no_rules():
    """Pages and routes ask the engine's public API (`engine`, its options and variant registry), never
    its rule modules, and read no folded state (`.state`, `.numbering`) themselves."""
    public = {"engine", "engine.options", "engine.variants"}
    found = {}
    for path in _http_entry_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        hits = sorted(
            {name for name in _modules(path) if name.split(".")[0] == "engine" and name not in public}
            | {
                f".{node.attr}"
                for node in ast.walk(tree)
                if isinstance(node, ast.Attribute) and node.attr in ("state", "numbering")
            }
        )
        if hits:
            found[str(path.relative_to(ROOT))] = hits
    assert found == {}
