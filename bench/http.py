"""HTTP benchmark: accepted actions/s and latency of `tilefold serve` beside a bare Flask+SQLite append."""
# Run: python bench/http.py [--seconds 15] [--clients 16] [--repeats 3]. Bounded to about two minutes.
from __future__ import annotations

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]  # this file is not stdlib `http`
sys.path.insert(0, os.path.dirname(_HERE))

import argparse  # noqa: E402
import http.client  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import sqlite3  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

import requests  # noqa: E402

WORKERS, THREADS = 2, 4


# -- servers ---------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(cmd: list[str], env: dict, probe: str) -> subprocess.Popen:
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            requests.get(probe, timeout=1)
            return proc
        except requests.ConnectionError:
            time.sleep(0.1)
    stop(proc)
    raise SystemExit(f"server did not start: {cmd}")


def stop(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)


def start_service(db: str, port: int) -> subprocess.Popen:
    script = os.path.join(os.path.dirname(sys.executable), "tilefold")
    launcher = [script] if os.path.exists(script) else [sys.executable, "-m", "service.cli"]
    cmd = launcher + ["serve", "--bind", f"127.0.0.1:{port}", "--workers", str(WORKERS),
                      "--threads", str(THREADS)]
    return start(cmd, dict(os.environ, TILEFOLD_DB=db), f"http://127.0.0.1:{port}/api/matches")


def start_bare(db: str, port: int) -> subprocess.Popen:
    cmd = [sys.executable, os.path.abspath(__file__), "--serve-bare", str(port), db]
    return start(cmd, dict(os.environ), f"http://127.0.0.1:{port}/ping")


def serve_bare(port: int, db: str) -> None:
    """The baseline: Flask + gunicorn (same workers/threads) appending one SQLite row per POST."""
    from flask import Flask, jsonify, request
    from gunicorn.app.base import BaseApplication

    synchronous = os.environ.get("TILEFOLD_SYNCHRONOUS", "FULL")
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
        return jsonify({"id": cur.lastrowid})

    class Bare(BaseApplication):
        def load_config(self):
            for key, value in {"bind": f"127.0.0.1:{port}", "workers": WORKERS, "threads": THREADS,
                               "worker_class": "gthread"}.items():
                self.cfg.set(key, value)

        def load(self):
            return app

    Bare().run()


# -- load ------------------------------------------------------------------------------
class Client:
    """A keep-alive JSON client on http.client (cheap, so the servers and not the client are measured)."""

    def __init__(self, base: str):
        host, port = base.rsplit("//", 1)[1].split(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=30)

    def call(self, method: str, path: str, body=None, headers=None) -> tuple[int, dict]:
        data = None if body is None else json.dumps(body)
        hdrs = dict(headers or {})
        if data is not None:
            hdrs["Content-Type"] = "application/json"
        self.conn.request(method, path, body=data, headers=hdrs)
        resp = self.conn.getresponse()
        raw = resp.read()
        return resp.status, (json.loads(raw) if raw else {})


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run_threads(clients: int, seconds: float, work) -> tuple[int, list[float], float]:
    """Run work(session, deadline, latencies) in `clients` threads; returns (ops, latencies, elapsed)."""
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
    return sum(counts), latencies, time.monotonic() - started


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
        status, body = self.client.call("POST", f"/api/matches/{match_id}/actions",
                                        self.rng.choice(view["legal_actions"]), headers)
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


def table_work(base: str, hands: int = 4):
    """Four humans played by one client: a POST, then a GET of the next pending seat's view."""
    def work(deadline, latencies):
        player, done = Player(base, random.Random()), 0
        while time.monotonic() < deadline:
            match_id, tokens = player.new_match({"hands": hands}, humans=4)
            view = player.view(match_id, tokens[0])
            while time.monotonic() < deadline and view["status"] != "over":
                seat = view["seat"] if view["legal_actions"] else view["view"]["pending"][0]
                if seat != view["seat"]:
                    view = player.view(match_id, tokens[seat])
                accepted, view, seconds = player.act(match_id, tokens[seat], view)
                latencies.append(seconds)
                done += accepted
        return done
    return work


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


def line(name: str, ops: int, latencies: list[float], elapsed: float) -> float:
    rate = ops / elapsed if elapsed else 0.0
    print(f"{name:<30} {rate:8.1f}/s   p50 {1000 * percentile(latencies, 0.5):7.2f} ms   "
          f"p99 {1000 * percentile(latencies, 0.99):7.2f} ms   ({ops} in {elapsed:.1f} s)")
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=15, help="length of each load phase")
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients (matches)")
    parser.add_argument("--repeats", type=int, default=3, help="long-match repetitions (medians reported)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bare_port, service_port = free_port(), free_port()
        bare = start_bare(os.path.join(tmp, "bare.db"), bare_port)
        try:
            bare_run = run_threads(args.clients, args.seconds, bare_work(f"http://127.0.0.1:{bare_port}"))
        finally:
            stop(bare)
        service = start_service(os.path.join(tmp, "tilefold.db"), service_port)
        base = f"http://127.0.0.1:{service_port}"
        try:
            solo = run_threads(args.clients, args.seconds, solo_work(base))
            table = run_threads(args.clients, args.seconds * 2 / 3, table_work(base))
            longs = [long_match(base) for _ in range(args.repeats)]
        finally:
            stop(service)
    report(args, bare_run, solo, table, longs)


def report(args, bare_run, solo, table, longs) -> None:
    print(f"gunicorn {WORKERS} workers x {THREADS} threads (gthread), {args.clients} concurrent clients")
    bare_rate = line("bare Flask + SQLite append", *bare_run)
    table_rate = line("tilefold, 4 humans (POST+GET)", *table)
    solo_rate = line("tilefold, 1 human + 3 bots", *solo)
    print(f"throughput ratio (target >= 0.50): 4 humans {table_rate / bare_rate:.2f}, "
          f"1 human + 3 bots {solo_rate / bare_rate:.2f} of the bare endpoint (accepted action = one POST)")
    for kind, early, late in (("GET view", "early_view", "late_view"), ("POST action", "early", "late")):
        ratios = [percentile(b[late], 0.99) / percentile(b[early], 0.99) for b in longs]
        p99s = [(1000 * percentile(b[early], 0.99), 1000 * percentile(b[late], 0.99)) for b in longs]
        p50s = [(1000 * _median(b[early]), 1000 * _median(b[late])) for b in longs]
        print(f"long match {kind:<11}: p99 ratio event 2,000 / event 20 = median {_median(ratios):.2f} "
              f"of {', '.join(f'{r:.2f}' for r in ratios)} (target <= 1.5); "
              f"p99 {'; '.join(f'{e:.2f}/{x:.2f}' for e, x in p99s)} ms; "
              f"p50 {'; '.join(f'{e:.2f}/{x:.2f}' for e, x in p50s)} ms "
              f"({min(len(b[early]) for b in longs)}+ samples per window)")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--serve-bare":
        serve_bare(int(sys.argv[2]), sys.argv[3])
    else:
        main()
