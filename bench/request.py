"""The service's own cost per accepted action, in process and load-independent: CPU time
(time.process_time) and SQL statements per action, the app driven straight through WSGI (no
server, no test client: what is left is the app's own request handling, as inside a gunicorn
worker but for gunicorn's HTTP parsing and the worker's ticker).

Two workloads, as bench/http.py plays them: "table" (4 humans: a POST by the seat that may act,
then each seat's own view until one may act: one POST and about one GET per action) and "solo" (1
human + 3 normal bots, one POST per accepted action, the bots moving inside it).

Run: python bench/request.py [--actions 600] [--workload table|solo] [--profile FILE] [--repeats 3]
(A/B: run it with PYTHONPATH at each tree, alternating; the figures are medians of the repeats.)
"""

from __future__ import annotations

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]  # this folder's http.py is not stdlib's
if os.path.dirname(_HERE) not in sys.path and not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, os.path.dirname(_HERE))

import argparse  # noqa: E402
import base64  # noqa: E402
import io  # noqa: E402
import random  # noqa: E402
import secrets  # noqa: E402
import shutil  # noqa: E402
import sqlite3  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import orjson  # noqa: E402

STATEMENTS = [0]  # SQL statements run by every connection opened after `count_statements()`


def count_statements() -> None:
    """Count each statement the app hands SQLite (BEGIN and COMMIT too; a trigger's body is part of
    its statement) on every connection opened from now on."""
    connect = sqlite3.connect

    class Cursor(sqlite3.Cursor):
        def execute(self, *args, **kwargs):
            STATEMENTS[0] += 1
            return super().execute(*args, **kwargs)

        def executemany(self, *args, **kwargs):
            STATEMENTS[0] += 1
            return super().executemany(*args, **kwargs)

    class Connection(sqlite3.Connection):
        def cursor(self, factory=Cursor):  # type: ignore[override]
            return super().cursor(factory)

        def execute(self, *args, **kwargs):
            return self.cursor().execute(*args, **kwargs)

        def executemany(self, *args, **kwargs):
            return self.cursor().executemany(*args, **kwargs)

    def counted(*args, **kwargs):
        return connect(*args, **dict(kwargs, factory=Connection))

    sqlite3.connect = counted  # type: ignore[assignment]


def seeded_tokens(seed: int) -> None:
    """Match ids and tokens from a seeded generator: with the same keys (--keys) every run deals
    the same walls and plays the same actions, so A and B do the very same work."""
    rng = random.Random(seed)

    def token_urlsafe(nbytes: int = 32) -> str:
        return base64.urlsafe_b64encode(rng.randbytes(nbytes)).rstrip(b"=").decode("ascii")

    secrets.token_urlsafe = token_urlsafe  # type: ignore[assignment]


class Wsgi:
    """Calls the app as a WSGI server would: one environ per request, the body read back whole."""

    def __init__(self, app) -> None:
        self.app = app

    def call(self, method: str, path: str, body=None, headers=None) -> tuple[int, dict]:
        data = b"" if body is None else orjson.dumps(body)
        path, _, query = path.partition("?")
        environ = {
            "REQUEST_METHOD": method,
            "SCRIPT_NAME": "",
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "8000",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "REMOTE_ADDR": "127.0.0.1",
            "REMOTE_PORT": "50000",
            "HTTP_HOST": "127.0.0.1:8000",
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(data),
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": False,
            "wsgi.multiprocess": True,
            "wsgi.run_once": False,
        }
        if body is not None:
            environ["CONTENT_TYPE"] = "application/json"
            environ["CONTENT_LENGTH"] = str(len(data))
        for name, value in (headers or {}).items():
            environ["HTTP_" + name.upper().replace("-", "_")] = value
        status = []
        chunks = self.app(environ, lambda s, h, exc_info=None: status.append(s))
        try:
            raw = b"".join(chunks)
        finally:
            if hasattr(chunks, "close"):
                chunks.close()
        return int(status[0].split(" ", 1)[0]), (orjson.loads(raw) if raw else {})


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def new_match(client: Wsgi, humans: int) -> tuple[str, list[str]]:
    _, match = client.call("POST", "/api/matches", {"variant": "koudiandian", "options": {"hands": 4}})
    path = f"/api/matches/{match['id']}"
    tokens = [client.call("POST", f"{path}/seats", {"name": f"p{i}"})[1]["token"] for i in range(humans)]
    if humans < 4:
        client.call("POST", f"{path}/bots", {}, auth(match["owner_token"]))
    return match["id"], tokens


def view(client: Wsgi, match_id: str, token: str) -> dict:
    return client.call("GET", f"/api/matches/{match_id}/view", headers=auth(token))[1]


def act(client: Wsgi, match_id: str, token: str, seen: dict, rng: random.Random) -> tuple[bool, dict]:
    headers = dict(auth(token), **{"If-Match": f'"v{seen["version"]}"'})
    status, body = client.call("POST", f"/api/matches/{match_id}/actions", rng.choice(seen["legal_actions"]), headers)
    if status != 200:
        return False, view(client, match_id, token)
    return True, body["view"]


def play(client: Wsgi, workload: str, actions: int, rng: random.Random, clock) -> tuple[int, int, float, int]:
    """Play until `actions` accepted actions; (actions, GETs, CPU seconds, statements) of the play
    alone: making matches and taking seats are not counted."""
    done = gets = statements = 0
    cpu = 0.0
    while done < actions:
        match_id, tokens = new_match(client, 4 if workload == "table" else 1)
        started, counted = clock(), STATEMENTS[0]
        seat, seen = 0, view(client, match_id, tokens[0])
        gets += 1
        while done < actions and seen["status"] != "over":
            if not seen["legal_actions"]:
                if workload != "table":
                    break
                seat, seen, asked = next_to_act(client, match_id, tokens, seat, seen)
                gets += asked
                if not seen["legal_actions"]:
                    break
            accepted, seen = act(client, match_id, tokens[seat], seen, rng)
            done += accepted
        cpu += clock() - started
        statements += STATEMENTS[0] - counted
    return done, gets, cpu, statements


def next_to_act(client: Wsgi, match_id: str, tokens: list[str], seat: int, seen: dict) -> tuple[int, dict, int]:
    """As bench/http.py: the seat the public view names, else each other seat's own view."""
    named = [s for s in seen["view"]["pending"] if s != seat]
    order = named + [(seat + i) % 4 for i in (1, 2, 3) if (seat + i) % 4 not in named]
    asked = 0
    for other in order:
        found = view(client, match_id, tokens[other])
        asked += 1
        if found["legal_actions"] or found["status"] == "over":
            return other, found, asked
    return seat, seen, asked


UNDER_CALLGRIND = "TILEFOLD_BENCH_UNDER_CALLGRIND"


def under_callgrind(args: argparse.Namespace) -> int:
    """Run this bench again under callgrind, instrumented only while measuring; print instructions per action."""
    import subprocess

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}"]
        env = dict(os.environ, PYTHONHASHSEED="0", **{UNDER_CALLGRIND: "1"})  # the same dict and set orders
        done = subprocess.run(cmd + [sys.executable, os.path.abspath(__file__)] + sys.argv[1:], env=env)
        with open(out) as handle:
            total = next(int(line.split()[1]) for line in handle if line.startswith("totals:"))
    print(
        f"{args.workload}: instructions per accepted action {total / (args.actions * args.repeats) / 1e6:.3f} M (callgrind)"
    )
    return done.returncode


def instrument(state: str) -> None:
    """Turn callgrind's instrumentation of this process on or off (callgrind_control)."""
    import subprocess

    done = subprocess.run(["callgrind_control", "-i", state, str(os.getpid())], capture_output=True, text=True)
    if "OK" not in done.stdout:
        raise SystemExit(f"callgrind_control: {done.stdout}{done.stderr}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--actions", type=int, default=600, help="accepted actions measured per repeat")
    parser.add_argument("--workload", choices=("table", "solo"), default="table")
    parser.add_argument("--repeats", type=int, default=3, help="measured repeats (medians), after one warm-up")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--profile", help="write a cProfile of the measured repeats to this file")
    parser.add_argument(
        "--callgrind",
        action="store_true",
        help="under `valgrind --tool=callgrind --instr-atstart=no`: instrument only the measured repeats",
    )
    parser.add_argument("--keys", help="the server's keys folder (made on first use, then copied for each run)")
    parser.add_argument("--rate-limits", action="store_true", help="rate limits on (bench/http.py runs without)")
    args = parser.parse_args()
    if args.callgrind and not os.environ.get(UNDER_CALLGRIND):
        raise SystemExit(under_callgrind(args))
    count_statements()
    seeded_tokens(args.seed)
    os.environ.setdefault("TILEFOLD_LOG_FORMAT", "json")  # as `tilefold serve` logs when stderr is not a terminal
    from service.app import create_app
    from service.infra import logs

    logs.configure()  # every request writes its access line, as under `tilefold serve` (to /dev/null here)
    shown, sys.stderr = sys.stderr, open(os.devnull, "w")

    print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        keys = os.path.join(tmp, "keys")
        if args.keys and os.path.isdir(args.keys):
            shutil.copytree(args.keys, keys)
        elif args.keys:
            keys = args.keys
        settings = {"DATABASE": os.path.join(tmp, "tilefold.db"), "KEYS": keys}
        app = create_app(dict(settings, RATE_LIMITS=args.rate_limits))
        client, rng = Wsgi(app), random.Random(args.seed)
        play(client, args.workload, max(50, args.actions // 5), rng, time.process_time)  # warm-up
        profiler = None
        if args.profile:
            import cProfile

            profiler = cProfile.Profile()  # wall time: leave out the wait in fdatasync when reading it
        runs = []
        for _ in range(args.repeats):
            if profiler is not None:
                profiler.enable()
            if args.callgrind:
                instrument("on")
            runs.append(play(client, args.workload, args.actions, rng, time.process_time))
            if args.callgrind:
                instrument("off")
            if profiler is not None:
                profiler.disable()
        if profiler is not None:
            profiler.dump_stats(args.profile)
    sys.stderr = shown
    cpu = statistics.median(1000 * c / n for n, _, c, _ in runs)
    sql = statistics.median(s / n for n, _, _, s in runs)
    gets = sum(g for _, g, _, _ in runs) / sum(n for n, _, _, _ in runs)
    print(
        f"{args.workload}: CPU per accepted action {cpu:.3f} ms (repeats "
        f"{', '.join(f'{1000 * c / n:.3f}' for n, _, c, _ in runs)}); SQL statements per action {sql:.2f}; "
        f"GETs per action {gets:.2f}; {args.actions} actions x {args.repeats}"
    )
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
