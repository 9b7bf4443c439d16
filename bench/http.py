"""HTTP benchmark: accepted actions/s and latency of `tilefold serve` beside a bare Flask+SQLite append."""
# Run: python bench/http.py [--seconds 20] [--clients 16]. Bounded to about two minutes.
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
    """Plays 4-human matches with random legal actions; times each accepted action POST."""

    def __init__(self, base: str, rng: random.Random):
        self.client, self.rng = Client(base), rng

    def new_match(self, options: dict) -> tuple[str, list[str]]:
        _, match = self.client.call("POST", "/api/matches", {"variant": "koudiandian", "options": options})
        tokens = [self.client.call("POST", f"/api/matches/{match['id']}/seats", {"name": f"p{i}"})[1]["token"]
                  for i in range(4)]
        return match["id"], tokens

    def step(self, match_id: str, tokens: list[str], record) -> str:
        """One pass over the seats; returns the match status."""
        for token in tokens:
            auth = {"Authorization": f"Bearer {token}"}
            _, view = self.client.call("GET", f"/api/matches/{match_id}/view", headers=auth)
            if view["status"] == "over":
                return "over"
            if not view["legal_actions"]:
                continue
            headers = dict(auth, **{"If-Match": f'"v{view["version"]}"'})
            t = time.perf_counter()
            status, _ = self.client.call("POST", f"/api/matches/{match_id}/actions",
                                         self.rng.choice(view["legal_actions"]), headers)
            if status == 200:
                record(view["version"], time.perf_counter() - t)
        return "playing"


def service_work(base: str):
    def work(deadline, latencies):
        player, done = Player(base, random.Random()), [0]

        def record(version, seconds):
            latencies.append(seconds)
            done[0] += 1

        while time.monotonic() < deadline:
            match_id, tokens = player.new_match({"hands": 2})
            while time.monotonic() < deadline and player.step(match_id, tokens, record) != "over":
                pass
        return done[0]
    return work


def long_match(base: str, seconds: float = 60, samples: int = 400) -> dict[str, list[float]]:
    """One long match: view-load and action latencies near event 20 and near event 2,000."""
    player = Player(base, random.Random(5))
    match_id, tokens = player.new_match({"hands": 64})
    buckets: dict[str, list[float]] = {"early": [], "late": [], "early_view": [], "late_view": []}

    def record(version, latency):
        if version <= 120:
            buckets["early"].append(latency)
        elif 1950 <= version <= 2100:
            buckets["late"].append(latency)

    def time_views(into: str) -> None:
        auth = {"Authorization": f"Bearer {tokens[0]}"}
        for _ in range(50):  # warm both workers' caches first
            player.client.call("GET", f"/api/matches/{match_id}/view", headers=auth)
        for _ in range(samples):
            t = time.perf_counter()
            player.client.call("GET", f"/api/matches/{match_id}/view", headers=auth)
            buckets[into].append(time.perf_counter() - t)

    time_views("early_view")
    deadline = time.monotonic() + seconds
    version = 0
    while time.monotonic() < deadline and version <= 2100:
        if player.step(match_id, tokens, record) == "over":
            break
        version = player.client.call("GET", f"/api/matches/{match_id}")[1]["version"]
        if 1950 <= version and not buckets["late_view"]:
            time_views("late_view")
    return buckets


# -- report ------------------------------------------------------------------------------
def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def line(name: str, ops: int, latencies: list[float], elapsed: float) -> float:
    rate = ops / elapsed if elapsed else 0.0
    print(f"{name:<28} {rate:8.1f}/s   p50 {1000 * percentile(latencies, 0.5):7.2f} ms   "
          f"p99 {1000 * percentile(latencies, 0.99):7.2f} ms   ({ops} in {elapsed:.1f} s)")
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=20, help="length of each load phase")
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients (matches)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bare_port, service_port = free_port(), free_port()
        bare = start_bare(os.path.join(tmp, "bare.db"), bare_port)
        try:
            bare_ops, bare_lat, bare_elapsed = run_threads(
                args.clients, args.seconds, bare_work(f"http://127.0.0.1:{bare_port}"))
        finally:
            stop(bare)
        service = start_service(os.path.join(tmp, "tilefold.db"), service_port)
        base = f"http://127.0.0.1:{service_port}"
        try:
            ops, lat, elapsed = run_threads(args.clients, args.seconds, service_work(base))
            buckets = long_match(base)
        finally:
            stop(service)
    print(f"gunicorn {WORKERS} workers x {THREADS} threads (gthread), {args.clients} concurrent clients")
    bare_rate = line("bare Flask + SQLite append", bare_ops, bare_lat, bare_elapsed)
    rate = line("tilefold accepted actions", ops, lat, elapsed)
    print(f"throughput ratio: {rate / bare_rate:.2f} of the bare endpoint (target >= 0.50)")
    for kind, early, late in (("GET view", buckets["early_view"], buckets["late_view"]),
                              ("POST action", buckets["early"], buckets["late"])):
        p99_early, p99_late = percentile(early, 0.99), percentile(late, 0.99)
        print(f"long match {kind:<11}: p99 near event 20 {1000 * p99_early:6.2f} ms ({len(early)}), "
              f"near event 2,000 {1000 * p99_late:6.2f} ms ({len(late)}), ratio {p99_late / p99_early:.2f} "
              f"(target <= 1.5); p50 {1000 * _median(early):.2f} / {1000 * _median(late):.2f} ms")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--serve-bare":
        serve_bare(int(sys.argv[2]), sys.argv[3])
    else:
        main()
