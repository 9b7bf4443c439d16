"""HTTP benchmark: accepted actions/s and latency of `tilefold serve` beside a bare Flask+SQLite append;
then the same service on PostgreSQL with one node and with two nodes (clients split between them),
beside SQLite in the same run (a throwaway PostgreSQL cluster, fsync on; --no-postgres skips it)."""

# Run: python bench/http.py [--seconds 8] [--rounds 3] [--clients 16] [--repeats 3]. About four minutes.
from __future__ import annotations

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]  # this file is not stdlib `http`
sys.path.insert(0, os.path.dirname(_HERE))

import argparse  # noqa: E402
import random  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import sqlite3  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

import orjson  # noqa: E402
import requests  # noqa: E402

#: both servers: gunicorn with these workers and worker class (`tilefold serve`'s default class);
#: threads count only under gthread
WORKERS, THREADS, WORKER_CLASS = 2, 4, "gevent"
#: both servers: TILEFOLD_SYNCHRONOUS as the service reads it (DURABLE, its default: SQLite commits
#: with NORMAL, then the WAL is fsynced outside the write lock, shared by the commits meanwhile)
SYNCHRONOUS = os.environ.get("TILEFOLD_SYNCHRONOUS", "DURABLE").upper()


# -- servers ---------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(cmd: list[str], env: dict, probe: str) -> subprocess.Popen:
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120  # a slow start on a busy machine is not a failure
    while time.monotonic() < deadline:
        try:
            requests.get(probe, timeout=5)
            return proc
        except (requests.ConnectionError, requests.Timeout):
            time.sleep(0.1)
    stop(proc)
    raise SystemExit(f"server did not start: {cmd}")


def stop(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)


def start_postgres():
    """(folder, URL) of a throwaway PostgreSQL cluster (fsync on), or None without server binaries."""
    from tests import pgserver

    if pgserver.binaries() is None:
        print("PostgreSQL phases skipped: no server binaries (apt-get install postgresql)")
        return None
    folder = pgserver.new_folder()
    url = pgserver.start(folder, fsync=True)
    from events import PostgresEventStore

    PostgresEventStore.initialise(url).close()
    return folder, url


def pg_ports(nodes: list[subprocess.Popen]) -> list[int]:
    return [node.port for node in nodes]


def start_service(db: str, port: int) -> subprocess.Popen:
    script = os.path.join(os.path.dirname(sys.executable), "tilefold")
    launcher = [script] if os.path.exists(script) else [sys.executable, "-m", "service.cli"]
    cmd = launcher + ["serve", "--bind", f"127.0.0.1:{port}", "--workers", str(WORKERS), "--threads", str(THREADS)]
    cmd += ["--worker-class", WORKER_CLASS]
    proc = start(
        cmd, dict(os.environ, TILEFOLD_DB=db, TILEFOLD_RATE_LIMITS="0"), f"http://127.0.0.1:{port}/api/matches"
    )
    proc.port = port  # type: ignore[attr-defined]
    return proc


def start_bare(db: str, port: int) -> subprocess.Popen:
    cmd = [sys.executable, os.path.abspath(__file__), "--serve-bare", str(port), db]
    return start(cmd, dict(os.environ), f"http://127.0.0.1:{port}/ping")


def serve_bare(port: int, db: str) -> None:
    """The baseline: Flask + gunicorn (same workers, worker class and threads) appending one SQLite
    row per POST, with the service's durability: under DURABLE (its default) SQLite commits with
    NORMAL and the WAL is then fsynced outside the write lock by the service's own group sync
    (events.connection.WalSync), so the row is on disk before the answer, as an action is."""
    from flask import Flask, jsonify, request
    from gunicorn.app.base import BaseApplication

    from events.connection import WalSync

    durable = SYNCHRONOUS == "DURABLE"
    synchronous = "NORMAL" if durable else SYNCHRONOUS
    database_file = os.path.realpath(db)
    setup = sqlite3.connect(db)
    setup.execute("PRAGMA journal_mode=WAL")
    setup.execute("CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, stream TEXT, body TEXT)")
    setup.commit()
    setup.close()
    local = threading.local()

    def conn() -> sqlite3.Connection:
        if getattr(local, "conn", None) is None:
            local.conn = sqlite3.connect(db, timeout=30, isolation_level=None)
            local.conn.execute(f"PRAGMA synchronous={synchronous}")
        return local.conn

    app = Flask("bare")

    @app.get("/ping")
    def ping():
        return "ok"

    @app.post("/append")
    def append():
        body = request.get_json()
        c = conn()
        c.execute("BEGIN IMMEDIATE")
        cur = c.execute("INSERT INTO rows (stream, body) VALUES (?, ?)", [body["stream"], str(body)])
        c.execute("COMMIT")
        if durable:
            WalSync.of(database_file).sync()  # after the commit, outside SQLite's write lock
        return jsonify({"id": cur.lastrowid})

    class Bare(BaseApplication):
        def load_config(self):
            for key, value in {
                "bind": f"127.0.0.1:{port}",
                "workers": WORKERS,
                "threads": THREADS,
                "worker_class": WORKER_CLASS,
            }.items():
                self.cfg.set(key, value)

        def load(self):
            return app

    Bare().run()


# -- load ------------------------------------------------------------------------------
class Client:
    """A minimal keep-alive HTTP/1.1 JSON client on a socket and orjson.

    The load generator shares the machine's two cores with the server it measures, so it has
    to be cheap: http.client's header parsing alone cost about as much CPU per request as a
    bare endpoint's whole handler. This one writes a request in one send and reads back only
    the status, Content-Length and Connection headers (the servers measured here always send
    Content-Length). Both servers are driven by it alike.
    """

    def __init__(self, base: str):
        host, port = base.rsplit("//", 1)[1].split(":")
        self.address, self.host = (host, int(port)), f"{host}:{port}"
        self.sock: socket.socket | None = None
        self.buffer = b""

    def call(self, method: str, path: str, body=None, headers=None) -> tuple[int, dict]:
        data = b"" if body is None else orjson.dumps(body)
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}"]
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        if body is not None:
            lines += ["Content-Type: application/json", f"Content-Length: {len(data)}"]
        if self.sock is None:
            self.sock = socket.create_connection(self.address, timeout=30)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.buffer = b""
        self.sock.sendall("\r\n".join(lines).encode() + b"\r\n\r\n" + data)
        status, length, close = self._head()
        raw = self._take(length)
        if close:
            self.sock.close()
            self.sock = None
        return status, (orjson.loads(raw) if raw else {})

    def _head(self) -> tuple[int, int, bool]:
        while b"\r\n\r\n" not in self.buffer:
            self._receive()
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        status_line, *header_lines = head.split(b"\r\n")
        length, close = 0, False
        for line in header_lines:
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"connection":
                close = value.strip().lower() == b"close"
        return int(status_line.split(b" ", 2)[1]), length, close

    def _take(self, length: int) -> bytes:
        while len(self.buffer) < length:
            self._receive()
        raw, self.buffer = self.buffer[:length], self.buffer[length:]
        return raw

    def _receive(self) -> None:
        chunk = self.sock.recv(262144)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        self.buffer += chunk


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def group_cpu(pgid: int) -> float:
    """CPU seconds (user + system) used so far by the processes of one process group (a server)."""
    total = 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid:
                total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def run_threads(clients: int, seconds: float, work, server: subprocess.Popen) -> tuple:
    """Run work(deadline, latencies) in `clients` threads.

    Returns (ops, latencies, elapsed, server CPU s, client CPU s): the load generator shares the
    machine's two cores with the server, so both are reported per accepted operation.
    """
    servers = server if isinstance(server, list) else [server]
    server_cpu, client_cpu = sum(group_cpu(s.pid) for s in servers), time.process_time()
    latencies: list[float] = []
    counts: list[int] = []
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def body():
        mine: list[float] = []
        done = work(deadline, mine)
        with lock:
            latencies.extend(mine)
            counts.append(done)

    started = time.monotonic()
    threads = [threading.Thread(target=body) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return (
        sum(counts),
        latencies,
        time.monotonic() - started,
        sum(group_cpu(s.pid) for s in servers) - server_cpu,
        time.process_time() - client_cpu,
    )


def bare_work(base: str):
    def work(deadline, latencies):
        client, done = Client(base), 0
        while time.monotonic() < deadline:
            t = time.perf_counter()
            status, _ = client.call("POST", "/append", {"stream": "s", "n": done})
            latencies.append(time.perf_counter() - t)
            done += status == 200
        return done

    return work


class Player:
    """Plays matches with random legal actions; every action is one POST whose answer has the next view."""

    def __init__(self, base: str, rng: random.Random):
        self.client, self.rng = Client(base), rng

    def new_match(self, options: dict, humans: int) -> tuple[str, list[str]]:
        """A match with `humans` seats taken over HTTP and bots in the others (owner call)."""
        _, match = self.client.call("POST", "/api/matches", {"variant": "koudiandian", "options": options})
        path = f"/api/matches/{match['id']}"
        tokens = [self.client.call("POST", f"{path}/seats", {"name": f"p{i}"})[1]["token"] for i in range(humans)]
        if humans < 4:
            self.client.call("POST", f"{path}/bots", {}, {"Authorization": f"Bearer {match['owner_token']}"})
        return match["id"], tokens

    def view(self, match_id: str, token: str) -> dict:
        return self.client.call("GET", f"/api/matches/{match_id}/view", headers=auth(token))[1]

    def act(self, match_id: str, token: str, view: dict) -> tuple[bool, dict, float]:
        """POST one random legal action; returns (accepted, the seat's next view, seconds)."""
        headers = dict(auth(token), **{"If-Match": f'"v{view["version"]}"'})
        t = time.perf_counter()
        status, body = self.client.call(
            "POST", f"/api/matches/{match_id}/actions", self.rng.choice(view["legal_actions"]), headers
        )
        seconds = time.perf_counter() - t
        if status != 200:
            return False, self.view(match_id, token), seconds
        return True, body["view"], seconds


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def solo_work(base: str, hands: int = 4):
    """One human against three bots per client: one POST per accepted action, no GET in between."""

    def work(deadline, latencies):
        player, done = Player(base, random.Random()), 0
        while time.monotonic() < deadline:
            match_id, (token,) = player.new_match({"hands": hands}, humans=1)
            view = player.view(match_id, token)
            while time.monotonic() < deadline and view["status"] != "over" and view["legal_actions"]:
                accepted, view, seconds = player.act(match_id, token, view)
                latencies.append(seconds)
                done += accepted
        return done

    return work


def split_work(bases: list[str], make=None):
    """Clients spread over several nodes: client i works against node i % len(bases)."""
    make = make or table_work
    works, turn, lock = [make(b) for b in bases], [0], threading.Lock()

    def work(deadline, latencies):
        with lock:
            mine, turn[0] = works[turn[0] % len(works)], turn[0] + 1
        return mine(deadline, latencies)

    return work


def table_work(base: str, hands: int = 4, gets: list[tuple[int, int]] | None = None):
    """Four humans played by one client, each seat learning from its own view whether it may act:
    a POST by the seat that may, then the views of the others in turn order (a GET each) until one
    may act. Outside claim windows the public view names the seat to play, so that is one GET; in a
    window, which seats are asked is private, so each seat asks for itself. `gets` collects (GETs,
    accepted actions) per client run."""

    def work(deadline, latencies):
        player, done, asked = Player(base, random.Random()), 0, 0
        while time.monotonic() < deadline:
            match_id, tokens = player.new_match({"hands": hands}, humans=4)
            seat, view = 0, player.view(match_id, tokens[0])
            asked += 1
            while time.monotonic() < deadline and view["status"] != "over":
                if not view["legal_actions"]:
                    seat, view, n = next_to_act(player, match_id, tokens, seat, view)
                    asked += n
                    if not view["legal_actions"]:
                        break  # nobody may act: the match waits on something else
                accepted, view, seconds = player.act(match_id, tokens[seat], view)
                latencies.append(seconds)
                done += accepted
        if gets is not None:
            gets.append((asked, done))
        return done

    return work


def next_to_act(player: Player, match_id: str, tokens: list[str], seat: int, view: dict) -> tuple[int, dict, int]:
    """(seat, its view, GETs made): the seat the public view names, else each other seat's own view."""
    named = [s for s in view["view"]["pending"] if s != seat]
    order = named + [(seat + i) % 4 for i in (1, 2, 3) if (seat + i) % 4 not in named]
    asked = 0
    for other in order:
        found = player.view(match_id, tokens[other])
        asked += 1
        if found["legal_actions"] or found["status"] == "over":
            return other, found, asked
    return seat, view, asked


# -- long matches ------------------------------------------------------------------------
EARLY, LATE = (0, 200), (1900, 2600)


def advance_to(player: Player, version: int) -> tuple[str, str, dict]:
    """A one-human match played (untimed) until its version reaches `version`."""
    match_id, (token,) = player.new_match({"hands": 64}, humans=1)
    view = player.view(match_id, token)
    while view["version"] < version:
        view = player.act(match_id, token, view)[1]
    return match_id, token, view


def long_match(base: str, samples: int = 300) -> dict[str, list[float]]:
    """POST and GET-view latencies near event 20 and near event 2,000, interleaved in time.

    Early and late requests alternate (one early, one late) over fresh matches kept inside their
    windows, so load spikes from anything else on the machine hit both windows alike.
    """
    player = Player(base, random.Random(7))
    buckets: dict[str, list[float]] = {"early": [], "late": [], "early_view": [], "late_view": []}
    pairs = {"early": None, "late": None}
    while min(len(buckets["early"]), len(buckets["late"])) < samples:
        for name, (low, high) in (("early", EARLY), ("late", LATE)):
            current = pairs[name]
            if current is None or not low <= current[2]["version"] <= high or current[2]["status"] == "over":
                current = advance_to(player, low)  # same connection: no idle keep-alive to time out
            match_id, token, view = current
            t = time.perf_counter()
            view = player.view(match_id, token)
            buckets[f"{name}_view"].append(time.perf_counter() - t)
            accepted, view, seconds = player.act(match_id, token, view)
            if accepted:
                buckets[name].append(seconds)
            pairs[name] = (match_id, token, view)
    return buckets


# -- report ------------------------------------------------------------------------------
def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _rate(run: tuple) -> float:
    ops, _, elapsed, _, _ = run
    return ops / elapsed if elapsed else 0.0


def line(name: str, runs: list[tuple]) -> float:
    """Print one configuration's median rate, pooled p50/p99 latency and CPU per operation."""
    rate = _median([_rate(run) for run in runs])
    latencies = [value for run in runs for value in run[1]]
    ops = sum(run[0] for run in runs)

    def per_op(index: int) -> float:
        return _median([1000 * run[index] / run[0] for run in runs if run[0]])

    print(
        f"{name:<30} {rate:8.1f}/s   p50 {1000 * percentile(latencies, 0.5):7.2f} ms   "
        f"p99 {1000 * percentile(latencies, 0.99):7.2f} ms   (rounds {', '.join(f'{_rate(r):.0f}' for r in runs)}; "
        f"{ops} ops; CPU per op: server {per_op(3):.2f} ms, client {per_op(4):.2f} ms)"
    )
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=8, help="length of each measured load phase")
    parser.add_argument("--warmup", type=float, default=3, help="unmeasured load before each phase")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved bare/4-humans/bots rounds (medians)")
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients (matches)")
    parser.add_argument("--repeats", type=int, default=3, help="long-match repetitions (medians; 0 skips)")
    parser.add_argument("--no-postgres", action="store_true", help="skip the PostgreSQL phases")
    args = parser.parse_args()
    pg = None if args.no_postgres else start_postgres()
    try:
        measure(args, pg)
    finally:
        if pg is not None:  # also when a server failed to start: never leave the cluster running
            from tests import pgserver

            pgserver.stop(pg[0])


def measure(args, pg) -> None:
    before = load_average()
    with tempfile.TemporaryDirectory() as tmp:
        bare_port, service_port = free_port(), free_port()
        bare = start_bare(os.path.join(tmp, "bare.db"), bare_port)
        service = start_service(os.path.join(tmp, "tilefold.db"), service_port)
        table_gets: list[tuple[int, int]] = []
        base = f"http://127.0.0.1:{service_port}"
        phases = [
            ("bare", bare_work(f"http://127.0.0.1:{bare_port}"), bare),
            ("table", table_work(base, gets=table_gets), service),
            ("solo", solo_work(base), service),
        ]
        nodes = []
        if pg is not None:  # two nodes on one PostgreSQL database; "pg1" uses one of them
            nodes = [start_service(pg[1], port) for port in (free_port(), free_port())]
            bases = [f"http://127.0.0.1:{port}" for port in pg_ports(nodes)]
            phases += [("pg1", table_work(bases[0]), [nodes[0]]), ("pg2", split_work(bases), nodes)]
        try:
            runs: dict[str, list[tuple]] = {name: [] for name, _, _ in phases}
            for turn in range(args.rounds):  # interleaved, so a noisy spell on the VM hits every phase alike;
                # the order flips every round (A B C, then C B A), so no phase always follows the same one
                for name, work, server in phases if turn % 2 == 0 else list(reversed(phases)):
                    run_threads(args.clients, args.warmup, work, server)
                    runs[name].append(run_threads(args.clients, args.seconds, work, server))
            longs = [long_match(base) for _ in range(args.repeats)]
        finally:
            stop(bare)
            stop(service)
            for node in nodes:
                stop(node)
    report(args, runs, longs, table_gets, (before, load_average()))


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def report(args, runs: dict[str, list[tuple]], longs, table_gets: list[tuple[int, int]], loads: tuple) -> None:
    print(f"load average (1, 5, 15 min; {os.cpu_count()} CPUs): before {loads[0]}, after {loads[1]}")
    print(
        f"both servers: gunicorn {WORKERS} workers, worker class {WORKER_CLASS}"
        f"{f' x {THREADS} threads' if WORKER_CLASS == 'gthread' else ''}, durability {SYNCHRONOUS} "
        f"(TILEFOLD_SYNCHRONOUS); {args.clients} concurrent clients, "
        f"{args.rounds} rounds of {args.seconds:g} s (after {args.warmup:g} s warm-up; the phases' order flips "
        "every round), medians"
    )
    rates = {
        name: line(label, runs[name])
        for name, label in (
            ("bare", "bare Flask + SQLite append"),
            ("table", "tilefold, 4 humans (POST+GETs)"),
            ("solo", "tilefold, 1 human + 3 bots"),
        )
    }
    asked, acted = sum(g for g, _ in table_gets), sum(d for _, d in table_gets)
    print(f"4 humans: {asked / max(acted, 1):.2f} GETs of a seat's view per accepted action (warm-ups included)")
    for name, label in (("table", "4 humans"), ("solo", "1 human + 3 bots")):
        per_round = [_rate(mine) / _rate(bare) for mine, bare in zip(runs[name], runs["bare"])]
        print(
            f"throughput ratio, {label}: {rates[name] / rates['bare']:.2f} "
            f"(rounds: {', '.join(f'{r:.2f}' for r in per_round)}); accepted action = one POST"
        )
    if "pg1" in runs:
        print(
            "PostgreSQL (throwaway cluster on this machine, fsync on; each node the same gunicorn setup; "
            f"pool {os.environ.get('TILEFOLD_PG_POOL_SIZE', 'default')} connections a worker; "
            "server CPU excludes PostgreSQL's own):"
        )
        for name, label in (("pg1", "PG, 1 node, 4 humans"), ("pg2", "PG, 2 nodes, 4 humans")):
            rates[name] = line(label, runs[name])
        print(
            f"PG/SQLite (4 humans, POST+GETs): 1 node {rates['pg1'] / rates['table']:.2f}, "
            f"2 nodes {rates['pg2'] / rates['table']:.2f}; 2 nodes / 1 node {rates['pg2'] / rates['pg1']:.2f} "
            f"(2 cores shared by client, nodes and PostgreSQL: a second node cannot add CPU here)"
        )
    for kind, early, late in (("GET view", "early_view", "late_view"), ("POST action", "early", "late")):
        if not longs:
            break
        ratios = [percentile(b[late], 0.99) / percentile(b[early], 0.99) for b in longs]
        p99s = [(1000 * percentile(b[early], 0.99), 1000 * percentile(b[late], 0.99)) for b in longs]
        p50s = [(1000 * _median(b[early]), 1000 * _median(b[late])) for b in longs]
        print(
            f"long match {kind:<11}: p99 ratio event 2,000 / event 20 = median {_median(ratios):.2f} "
            f"of {', '.join(f'{r:.2f}' for r in ratios)} (target <= 1.5); "
            f"p99 {'; '.join(f'{e:.2f}/{x:.2f}' for e, x in p99s)} ms; "
            f"p50 {'; '.join(f'{e:.2f}/{x:.2f}' for e, x in p50s)} ms "
            f"({min(len(b[early]) for b in longs)}+ samples per window)"
        )


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--serve-bare":
        serve_bare(int(sys.argv[2]), sys.argv[3])
    else:
        main()
