"""`tilefold` command line: each subcommand is a small function registered in COMMANDS."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Callable, Optional, Sequence

from .registry import COMMANDS, _read, command


def exit_code(error: Exception) -> int:
    """The exit code of a refusal (service/model/errors.py): 2 for input the command cannot take,
    3 for stored rows that fail their hash chain, 1 for any other refusal."""
    from ..model import errors

    if isinstance(error, errors.IntegrityFailure):
        return 3
    if isinstance(error, errors.Invalid):
        return 2
    return 1


def refusal_text(error: Exception) -> str:
    """What the command line says of a refusal: its detail, and for an integrity failure the row."""
    from ..model import errors

    if isinstance(error, errors.IntegrityFailure):
        return f"{error.detail}: match {error.match_id}: {error.problem}"
    return str(getattr(error, "detail", error))


# -- serve ------------------------------------------------------------------------
def _serve_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bind", default="127.0.0.1:8000", help="host:port (default 127.0.0.1:8000)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes (default 2)")
    parser.add_argument("--threads", type=int, default=4, help="threads per worker (gthread only; default 4)")
    parser.add_argument(
        "--worker-class",
        default="gevent",
        choices=("gevent", "gthread"),
        help="gevent (default: a waiting client costs a greenlet, not a thread) or gthread",
    )
    parser.add_argument(
        "--db",
        default=None,
        help="a postgresql:// (or postgres://) URL or a SQLite file (default $TILEFOLD_DB or ./tilefold.db); "
        "a fresh database gets the schema, an older one only migrations safe beside running nodes",
    )
    parser.add_argument("--timeout", type=int, default=60, help="worker timeout in seconds (default 60)")
    parser.add_argument(
        "--graceful-timeout",
        type=int,
        default=30,
        help="seconds a stopping worker (SIGTERM, HUP) lets its requests in flight finish (default 30); "
        "waiting clients are answered at once and told to reconnect",
    )
    parser.add_argument(
        "--metrics-bind",
        default=os.environ.get("TILEFOLD_METRICS_BIND") or None,
        help="host:port of a Prometheus /metrics listener of its own, off the service's port "
        "(default $TILEFOLD_METRICS_BIND, else none)",
    )


@command("serve", "run the HTTP service under gunicorn (gevent workers)", _serve_args)
def serve(args: argparse.Namespace) -> int:
    from ..infra import logs
    from ..infra.config import from_env
    from .database import open_store_for

    if args.db:
        os.environ["TILEFOLD_DB"] = args.db
    settings = from_env()
    open_store_for(args.db, "serve", synchronous=settings["SYNCHRONOUS"]).close()
    made_metrics_dir = _metrics_dir()
    options = {
        "bind": args.bind,
        "workers": args.workers,
        "threads": args.threads,
        "worker_class": args.worker_class,
        "timeout": args.timeout,
        "accesslog": None,  # the app logs each request itself (logger tilefold.access: service/http/observe.py)
        "logger_class": logs.gunicorn_logger(),  # so gunicorn builds no access line of its own
        "logconfig_dict": logs.logging_config(),
        "graceful_timeout": args.graceful_timeout,
        "worker_tmp_dir": _memory_dir(),
        # gunicorn >= 25.1 opens a control socket at one fixed path per user
        # ($XDG_RUNTIME_DIR/gunicorn.ctl): two servers on one machine would share it
        "control_socket_disable": True,
        "post_worker_init": _worker_started,
        "worker_exit": lambda server, worker: _worker_stopping(worker),
        "child_exit": _forget_worker_metrics,
        "when_ready": _metrics_listener(args.metrics_bind),
    }
    if args.worker_class == "gevent":
        # every open connection is a greenlet: let a worker hold its waiting cap and the players besides
        options["worker_connections"] = settings["MAX_WAITERS"] + 1000
        _raise_open_files(options["worker_connections"] + 256)
    print(banner(settings["DATABASE"], args.bind), flush=True)
    master = os.getpid()
    try:
        gunicorn_app(options).run()
    finally:  # a worker leaves through here too (gunicorn forks inside run): only the master cleans up
        if made_metrics_dir and os.getpid() == master:
            import shutil

            shutil.rmtree(made_metrics_dir, ignore_errors=True)
    return 0


MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"  # as service/infra/metrics.py, which this module must not import


def _metrics_dir() -> Optional[str]:
    """PROMETHEUS_MULTIPROC_DIR for the workers' metric files (service/infra/metrics.py), emptied before
    they start (prometheus-client's rule: files of an earlier run would be counted again); a
    temporary folder when unset (returned, to be removed at exit). Set before anything imports
    prometheus_client: it picks its storage at import."""
    import glob
    import tempfile

    given = os.environ.get(MULTIPROC_ENV)
    if not given:
        made = tempfile.mkdtemp(prefix="tilefold-metrics-")
        os.environ[MULTIPROC_ENV] = made
        return made
    os.makedirs(given, exist_ok=True)
    for stale in glob.glob(os.path.join(given, "*.db")):
        os.remove(stale)
    return None


def _drain_when_stopping(worker: Any) -> None:
    """gunicorn's post_worker_init: once the worker stops (SIGTERM, or HUP's replacement), its
    waiting clients are answered and told to reconnect (WaiterHub.drain) instead of being cut after
    the graceful timeout. At once on SIGTERM (gunicorn's own handler runs first, then the drain on
    a thread of its own: a greenlet under gevent, never in the handler), and for any other stop a
    thread watches the worker's flag."""
    import logging
    import signal
    import threading
    import time

    from ..http.services import services

    hub = services(worker.wsgi).hub
    once = threading.Lock()

    def drain() -> None:
        if not once.acquire(blocking=False):
            return  # already drained
        waiting = hub.waiting
        logging.getLogger("tilefold.worker").info(
            "worker stopping: answering %d waiting clients now",
            waiting,
            extra={"event": "worker_stopping", "waiting": waiting},
        )
        hub.drain()

    def watch() -> None:
        while worker.alive and not hub.draining:
            time.sleep(0.1)
        drain()

    gunicorns = signal.getsignal(signal.SIGTERM)
    if callable(gunicorns):

        def on_term(signum: int, frame: Any) -> None:
            gunicorns(signum, frame)
            later(drain)

        signal.signal(signal.SIGTERM, on_term)
    threading.Thread(target=watch, name="tilefold-drain", daemon=True).start()


def later(fn: Callable[[], None]) -> None:
    """Run `fn` soon on a thread of its own, from a signal handler: under gevent a greenlet spawned
    without waiting (the handler runs inside the event loop, where starting a thread, which waits
    for it to start, is refused and kills the worker), else a thread."""
    import threading

    try:
        from gevent import monkey
    except ImportError:  # no gevent installed: plain threads
        monkey = None
    if monkey is not None and monkey.is_module_patched("threading"):
        import gevent

        gevent.spawn(fn)
        return
    threading.Thread(target=fn, name="tilefold-drain-now", daemon=True).start()


def _worker_started(worker: Any) -> None:
    """gunicorn's post_worker_init: the drain watch, and this worker's ticker (service/usecases/ticker.py:
    only the worker holding the database lease works, so one in all workers and nodes)."""
    _drain_when_stopping(worker)
    from ..http.services import services

    services(worker.wsgi).ticker.start()


def _worker_stopping(worker: Any) -> None:
    """gunicorn's worker_exit: give the ticker's lease up, so another worker takes it at once."""
    app = getattr(worker, "wsgi", None)
    if app is not None:
        from ..http.services import services

        services(app).ticker.stop()


def _forget_worker_metrics(server: Any, worker: Any) -> None:
    """gunicorn's child_exit: a dead worker's open waits leave the `tilefold_waiters` gauge."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def _metrics_listener(bind: Optional[str]) -> Callable[[Any], None]:
    """gunicorn's when_ready: the Prometheus exposition of all the workers on `bind` (host:port),
    served by the master process, off the service's port; nothing when `bind` is None."""

    def start(server: Any) -> None:
        if not bind:
            return
        from prometheus_client import CollectorRegistry, multiprocess, start_http_server

        host, _, port = bind.rpartition(":")
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        start_http_server(int(port), addr=host.strip("[]") or "127.0.0.1", registry=registry)
        server.log.info("metrics on http://%s/metrics", bind)

    return start


def banner(database: str, bind: str) -> str:
    """Where this server keeps its matches and where to reach it (printed by `tilefold serve`)."""
    from events import is_postgres_url

    from .database import describe

    kind = "PostgreSQL" if is_postgres_url(database) else "SQLite"
    default = "" if os.environ.get("TILEFOLD_DB") else "; TILEFOLD_DB unset: the default"
    base = "http://" + bind
    return (
        f"tilefold: database {describe(database)}  ({kind}{default})\n"
        f"tilefold: API      {base}/api/matches  (OpenAPI: {base}/api/openapi.json)\n"
        f"tilefold: pages    {base}/  (create or join a match; yours at {base}/my, replays at "
        f"{base}/replay/<match id>)"
    )


def _raise_open_files(wanted: int) -> None:
    """Lift the soft limit on open files towards `wanted` (never above the hard limit): each waiting
    client is an open socket, and the usual soft limit of 1,024 would refuse the rest."""
    try:
        import resource
    except ImportError:  # not on this platform
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def _memory_dir() -> Optional[str]:
    """/dev/shm for gunicorn's worker heartbeat file (its docs: a disk-backed one can stall workers)."""
    return "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


def gunicorn_app(options: dict[str, Any]) -> Any:
    """gunicorn with the Flask app built in each worker (the schema already exists); settings this
    gunicorn does not know (an older one has no control socket) are left out."""
    from gunicorn.app.base import BaseApplication

    class GunicornApp(BaseApplication):  # gunicorn ships no type hints: an Any base
        def load_config(self) -> None:
            for key, value in options.items():
                if value is not None and key in self.cfg.settings:
                    self.cfg.set(key, value)

        def load(self) -> Any:
            from ..app import create_app

            return create_app({"INIT_DB": False})

    return GunicornApp()


# -- score ------------------------------------------------------------------------
def _score_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="JSON file describing one win ('-' = stdin)")


@command("score", "score one claimed win from JSON (exit 0 legal win, 1 not a win, 2 malformed)", _score_args)
def score(args: argparse.Namespace) -> int:
    from ..http.calculator import CalculatorInputError, score_json

    try:
        data = json.loads(_read(args.file))
        result = score_json(data)
    except (OSError, ValueError) as exc:  # JSONDecodeError and CalculatorInputError are ValueErrors
        reason = str(exc) if isinstance(exc, CalculatorInputError) else f"cannot read input: {exc}"
        print(f"tilefold score: {reason}", file=sys.stderr)
        return 2
    print(json.dumps(result, ensure_ascii=False, indent=2))
    return 0 if result.get("ok") else 1


# -- export / verify / import (docs/AUDIT.md; the work is in service/usecases/match_log.py) ---------------
def _log_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", help="match id (export) or log file, '-' = stdin (verify, import)")
    parser.add_argument("--format", choices=("ndjson", "json", "text"), default="ndjson", help="export format")
    parser.add_argument(
        "--db", default=None, help="a postgresql:// URL or a SQLite file (default $TILEFOLD_DB or ./tilefold.db)"
    )


def _repo(db: Optional[str], mode: str = "read") -> Any:
    """A MatchRepository on `db` (default: the configured database): "read" runs no DDL (a
    read-only role may export), "serve" applies only migrations safe beside running nodes."""
    from ..infra.config import from_env
    from ..infra.keys import keyring_for
    from ..infra.repository import MatchRepository
    from .database import open_store_for, target

    settings = from_env()
    database = target(db)
    return MatchRepository(open_store_for(db, mode), keyring=keyring_for({**settings, "DATABASE": database}))


def _keys_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("list", "rotate"), help="list the public keys, or rotate the signing key")
    parser.add_argument("--db", default=None, help="the database the keys sit beside (default $TILEFOLD_DB)")


@command("keys", "the server's signing keys (outside the database): list them, or rotate to a new one", _keys_args)
def keys_command(args: argparse.Namespace) -> int:
    from ..infra.config import from_env
    from ..infra.keys import keyring_for

    settings = from_env()
    keyring = keyring_for({**settings, "DATABASE": args.db or settings["DATABASE"]})
    if args.action == "rotate":
        print(f"new signing key {keyring.rotate()}; the old ones still verify the matches they signed")
    print(json.dumps({"keys": keyring.describe()}, indent=1))
    return 0


@command("export", "print a finished match's log (ndjson as stored, json, or a readable text log)", _log_args)
def export_log(args: argparse.Namespace) -> int:
    from ..model.errors import ServiceError
    from ..usecases.match_log import export

    try:
        body, _ = export(_repo(args.db), args.target, args.format)
    except ServiceError as exc:
        print(f"tilefold export: {refusal_text(exc)}", file=sys.stderr)
        return exit_code(exc)
    sys.stdout.write(body)
    return 0


def _verify_args(parser: argparse.ArgumentParser) -> None:
    _log_args(parser)
    parser.add_argument(
        "--key",
        action="append",
        default=None,
        help="the server's public key: base64 of its 32 bytes, a PEM file, a file or URL of its "
        "GET /api/keys answer (repeatable); the log must then be signed by it, unchanged",
    )


def _public_keys(sources: Sequence[str]) -> dict:
    """{key id: public key} from --key values (text, a file, or an http(s) URL of /api/keys)."""
    from ..model import signatures

    keys: dict = {}
    for source in sources:
        if source.startswith(("http://", "https://")):
            import urllib.request

            with urllib.request.urlopen(source, timeout=10) as answer:  # noqa: S310 - the user's own URL
                text = answer.read().decode("utf-8")
        elif os.path.exists(source):
            text = _read(source)
        else:
            text = source
        stripped = text.strip()
        if stripped.startswith("{"):
            listed = json.loads(stripped).get("keys") or []
            found = [signatures.load_public(str(k.get("public_key"))) for k in listed]
        else:
            found = [signatures.load_public(stripped)]
        keys.update({signatures.key_id(k): k for k in found})
    return keys


@command(
    "verify", "audit an exported ndjson log: hash chain, signatures, seeds, every action and settlement", _verify_args
)
def verify_log(args: argparse.Namespace) -> int:
    from ..model.signatures import PublicKeyError
    from ..usecases.match_log import LogError, read_log, verify_rows

    try:
        rows, signed = read_log(_read(args.target))
    except (OSError, LogError) as exc:
        print(f"FAIL: cannot read the log: {exc}")
        return 2
    try:
        keys = None if args.key is None else _public_keys(args.key)
    except (OSError, ValueError, PublicKeyError) as exc:
        print(f"FAIL: cannot read the key: {exc}")
        return 2
    verdict = verify_rows(rows, signed, keys)
    print(verdict.text())
    if verdict.ok:
        for line in verdict.derivation_lines():  # each hand's wall, as checked (G-11)
            print("  " + line)
    return 0 if verdict.ok else 1


@command("import", "verify a log and store it as a finished, read-only match under a new id", _log_args)
def import_log(args: argparse.Namespace) -> int:
    from ..model.errors import ServiceError
    from ..http.import_check import check_service_events
    from ..usecases.match_log import LogError, import_rows, read_log
    from ..model.room import new_match_id

    try:
        rows, signed = read_log(_read(args.target))
        match_id = new_match_id()
        verdict = import_rows(_repo(args.db, "serve"), rows, match_id, signed, check=check_service_events)
    except (OSError, LogError) as exc:
        print(f"tilefold import: cannot read the log: {exc}", file=sys.stderr)
        return 2
    except ServiceError as exc:
        print(f"tilefold import: rejected: {refusal_text(exc)}", file=sys.stderr)
        return exit_code(exc)
    print(verdict.text())
    print(match_id)
    return 0


# -- tick (correspondence play: service/usecases/correspondence.py) -------------------------------
def _tick_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db", default=None, help="a postgresql:// URL or a SQLite file (default $TILEFOLD_DB or ./tilefold.db)"
    )
    parser.add_argument(
        "--every",
        type=float,
        default=None,
        help="repeat every N seconds instead of running once (e.g. a Procfile clock line)",
    )


@command("tick", "settle every overdue move deadline in every match and deliver due webhook notices", _tick_args)
def tick(args: argparse.Namespace) -> int:
    """Print one JSON line per pass (`svc.tick()`): once, or every `--every` seconds."""
    import time

    from ..app import create_app
    from ..infra import logs
    from .database import open_store_for, target

    logs.configure()
    open_store_for(args.db, "serve").close()  # beside running nodes: never a migration that locks their tables
    app = create_app({"DATABASE": target(args.db), "INIT_DB": False, "WEBHOOK_WORKER": False})
    from ..http.services import services

    ticker = services(app).ticker
    while True:
        print(json.dumps(ticker.run_once(leased=False)), flush=True)
        if not args.every:
            return 0
        time.sleep(args.every)


# -- entry point --------------------------------------------------------------------
def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="tilefold", description="Tilefold mahjong match service")
    subs = top.add_subparsers(dest="command", required=True)
    for name, (configure, run, help_text) in COMMANDS.items():
        sub = subs.add_parser(name, help=help_text, description=help_text)
        configure(sub)
        sub.set_defaults(run=run)
    return top


def main(argv: Optional[Sequence[str]] = None) -> int:
    from . import data, scenario  # noqa: F401  (register their subcommands)
    from .database import Refusal

    args = parser().parse_args(argv)
    try:
        code: int = args.run(args)
    except Refusal as refusal:  # cannot start: the cause and the fix in one line, no traceback
        print(f"tilefold {args.command}: {refusal}", file=sys.stderr)
        return 2
    return code
