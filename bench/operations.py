"""What an operator sees on this machine: the metrics of a served node under a small load, and what
one /readyz poll costs. The "normal ranges" of docs/OPERATIONS.md come from here.

    python bench/operations.py [SECONDS] [--db postgresql://...]   (default 30 s, a SQLite file)

Starts `tilefold serve` (2 gevent workers, --metrics-bind), plays matches of one human and three bots
(random legal actions, seeded) from 4 client threads for SECONDS while polling /readyz every second,
then reads the metrics listener: requests and their latency per route (the histogram's buckets:
"p50 <= x" means the bucket holding the median), store append latency, cache hits per cold load,
snapshot writes, open waits; and /readyz's median and worst time. Prints the load average.
"""

from __future__ import annotations

import os
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]  # bench/http.py is no `http`
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import requests  # noqa: E402

from served import free_port, served  # noqa: E402

SEED = 20261202


def play(base: str, seed: int, stop: threading.Event, counts: dict) -> None:
    rng = random.Random(seed)
    session = requests.Session()
    while not stop.is_set():
        created = session.post(
            f"{base}/api/matches", json={"variant": rng.choice(["koudiandian", "hanshan"])}, timeout=30
        )
        match_id, owner = created.json()["id"], created.json()["owner_token"]
        token = session.post(f"{base}/api/matches/{match_id}/seats", json={"name": "p"}, timeout=30).json()["token"]
        session.post(
            f"{base}/api/matches/{match_id}/bots", json={}, headers={"Authorization": f"Bearer {owner}"}, timeout=30
        )
        auth = {"Authorization": f"Bearer {token}"}
        while not stop.is_set():
            view = session.get(f"{base}/api/matches/{match_id}/view", headers=auth, timeout=30).json()
            if view["status"] == "over":
                break
            if not view["legal_actions"]:
                continue
            headers = dict(auth, **{"If-Match": f'"v{view["version"]}"'})
            session.post(
                f"{base}/api/matches/{match_id}/actions",
                json=rng.choice(view["legal_actions"]),
                headers=headers,
                timeout=30,
            )
            counts["actions"] += 1


def samples(text: str, name: str) -> list[tuple[dict, float]]:
    found = []
    for labels, value in re.findall(rf"^{name}(?:{{(.*?)}})? ([0-9.e+-]+)$", text, re.M):
        found.append((dict(re.findall(r'(\w+)="(.*?)"', labels or "")), float(value)))
    return found


def bucket_quantile(text: str, name: str, q: float, **want: str) -> str:
    """The upper bound of the histogram bucket holding quantile q (cumulative buckets)."""
    buckets = [
        (float("inf") if labels["le"] == "+Inf" else float(labels["le"]), value)
        for labels, value in samples(text, name + "_bucket")
        if all(labels.get(k) == v for k, v in want.items())
    ]
    buckets.sort()
    if not buckets or buckets[-1][1] == 0:
        return "-"
    total = buckets[-1][1]
    for bound, count in buckets:
        if count >= q * total:
            return f"<= {bound * 1000:g} ms" if bound != float("inf") else "> the last bucket"
    return "-"


def main() -> None:
    args = sys.argv[1:]
    seconds = float(args[0]) if args and not args[0].startswith("--") else 30.0
    db = args[args.index("--db") + 1] if "--db" in args else str(Path(tempfile.mkdtemp()) / "ops-bench.db")
    metrics_port = free_port()
    with served(Path(db) if "://" not in db else db, "--metrics-bind", f"127.0.0.1:{metrics_port}") as server:
        stop, counts = threading.Event(), {"actions": 0}
        players = [
            threading.Thread(target=play, args=(server.base, SEED + i, stop, counts), daemon=True) for i in range(4)
        ]
        for player in players:
            player.start()
        ready: list[float] = []
        ends = time.monotonic() + seconds
        while time.monotonic() < ends:
            started = time.perf_counter()
            assert requests.get(f"{server.base}/readyz", timeout=10).status_code == 200
            ready.append((time.perf_counter() - started) * 1000)
            time.sleep(1.0)
        stop.set()
        for player in players:
            player.join(timeout=60)
        text = requests.get(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10).text
    print(
        f"database: {'PostgreSQL' if '://' in db else 'SQLite'}; {seconds:g} s, 4 clients; {counts['actions']} actions"
    )
    print(f"/readyz: median {statistics.median(ready):.1f} ms, worst {max(ready):.1f} ms over {len(ready)} polls")
    for route in ("/api/matches/<match_id>/view", "/api/matches/<match_id>/actions", "/api/matches"):
        for method in ("GET", "POST"):
            count = [
                v
                for labels, v in samples(text, "tilefold_request_seconds_count")
                if labels == {"route": route, "method": method}
            ]
            if count and count[0]:
                p50 = bucket_quantile(text, "tilefold_request_seconds", 0.5, route=route, method=method)
                p99 = bucket_quantile(text, "tilefold_request_seconds", 0.99, route=route, method=method)
                print(f"{method} {route}: {count[0]:.0f} requests, p50 {p50}, p99 {p99}")
    appends = [v for _, v in samples(text, "tilefold_store_append_seconds_count")]
    print(
        f"store appends: {appends[0]:.0f}, p50 {bucket_quantile(text, 'tilefold_store_append_seconds', 0.5)}, "
        f"p99 {bucket_quantile(text, 'tilefold_store_append_seconds', 0.99)}"
    )
    loads = {labels["result"]: v for labels, v in samples(text, "tilefold_match_loads_total")}
    print(f"match loads: {loads.get('hit', 0):.0f} hits, {loads.get('cold', 0):.0f} cold")
    print("actions:", {f"{lab['result']}/{lab['code']}": int(v) for lab, v in samples(text, "tilefold_actions_total")})
    print("snapshot writes:", {lab["result"]: int(v) for lab, v in samples(text, "tilefold_snapshot_writes_total")})
    print(
        "statuses:",
        {
            f"{lab['route']} {lab['status']}": int(v)
            for lab, v in samples(text, "tilefold_requests_total")
            if lab["status"] >= "400"
        },
    )
    print(f"load average: {os.getloadavg()}")


if __name__ == "__main__":
    main()
