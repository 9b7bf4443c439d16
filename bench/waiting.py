"""Waiting players: 2,000 idle SSE streams + 2,000 idle long-polls while 16 clients play.

Run: python bench/waiting.py [--seconds 10] [--rounds 2] [--streams 2000] [--polls 2000]. About
three minutes. Needs aiohttp (a bench-only dependency: pip install aiohttp).

Against the default server (`tilefold serve`: 2 gevent workers), with one setting raised:
TILEFOLD_MAX_WAITERS_PER_ADDRESS, since every waiter here comes from 127.0.0.1. Each round runs
16 playing clients (one human against three bots each, bench/http.py's solo load) without
waiters, then again with the waiters open; it prints accepted actions/s and p99 action latency
of both and their ratios (targets: >= 0.8x and <= 2x). The waiters are held from one client
process by aiohttp on one asyncio loop (its own thread); the long-polls wait up to
TILEFOLD_MAX_WAIT (30 s) and are asked again at once, as a client would.

It also prints the server's memory per idle connection (the workers' RSS with the waiters open
minus before, divided by their number) and the time for a move to reach 2,000 waiters (1,000
streams and 1,000 long-polls on one match): from the event's recorded_at (the append) to each
waiter's read of it, p50 and p99 over several moves.
"""

from __future__ import annotations

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]  # bench/http.py is not stdlib `http`
sys.path.insert(0, os.path.dirname(_HERE))

import argparse  # noqa: E402
import asyncio  # noqa: E402
import importlib.util  # noqa: E402
import random  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from datetime import datetime  # noqa: E402

import aiohttp  # noqa: E402


def _bench_http():
    spec = importlib.util.spec_from_file_location("bench_http", os.path.join(_HERE, "http.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


H = _bench_http()
IDLE_MATCHES = 20


def raise_open_files(wanted: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


LOG = os.path.join(tempfile.gettempdir(), "bench-waiting-server.log")


def start_server(db: str, port: int) -> subprocess.Popen:
    script = os.path.join(os.path.dirname(sys.executable), "tilefold")
    launcher = [script] if os.path.exists(script) else [sys.executable, "-m", "service.cli"]
    # every client is 127.0.0.1: the per-address caps and rate limits would refuse the bench itself
    env = dict(os.environ, TILEFOLD_DB=db, TILEFOLD_MAX_WAITERS_PER_ADDRESS="100000", TILEFOLD_RATE_LIMITS="0")
    with open(LOG, "w") as log:  # the server's own log: worker restarts show there
        proc = subprocess.Popen(
            launcher + ["serve", "--bind", f"127.0.0.1:{port}"],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            H.requests.get(f"http://127.0.0.1:{port}/api/matches", timeout=5)
            return proc
        except (H.requests.ConnectionError, H.requests.Timeout):
            time.sleep(0.2)
    H.stop(proc)
    raise SystemExit("the server did not start")


def group_rss(pgid: int) -> int:
    """Resident bytes of the server's worker processes (the group, less its arbiter)."""
    total = 0
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != pgid:
            try:
                with open(f"/proc/{name}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
                if int(fields[2]) == pgid:
                    total += int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
            except OSError:
                continue
    return total


def epoch(recorded_at: str) -> float:
    return datetime.fromisoformat(recorded_at.replace("Z", "+00:00")).timestamp()


# -- the waiters (asyncio, one thread) -------------------------------------------------------
class Waiters:
    """Idle SSE streams and long-polls on an asyncio loop of their own; arrivals are recorded."""

    def __init__(self, base: str):
        self.base = base
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.session = self.call(self._session())
        self.tasks: list = []
        self.open_streams = 0
        self.arrivals: dict[tuple, list[float]] = {}  # (kind, version) -> read times
        self.errors: list[str] = []

    def call(self, coroutine, timeout: float = 600):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    async def _session(self):
        return aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0, force_close=False),
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=60),
        )

    def open(self, targets: list[tuple[str, str]], streams: int, polls: int) -> None:
        """`streams` SSE streams and `polls` long-polls spread over targets (match id, seat token)."""

        async def start():
            for i in range(streams):
                self.tasks.append(asyncio.ensure_future(self._stream(*targets[i % len(targets)], i % 2 == 0)))
            for i in range(polls):
                self.tasks.append(asyncio.ensure_future(self._poll(*targets[i % len(targets)])))
                if i % 200 == 199:
                    await asyncio.sleep(0.05)

        self.call(start())
        deadline = time.monotonic() + 120
        while self.open_streams < streams and time.monotonic() < deadline:
            time.sleep(0.2)

    def close(self) -> None:
        async def stop():
            for task in self.tasks:
                task.cancel()
            await asyncio.gather(*self.tasks, return_exceptions=True)
            self.tasks = []

        self.call(stop())
        self.open_streams = 0

    async def _stream(self, match_id: str, token: str, as_seat: bool) -> None:
        headers = {"Authorization": f"Bearer {token}"} if as_seat else {}
        url = f"{self.base}/api/matches/{match_id}/stream"
        while True:
            try:
                async with self.session.get(url, headers=headers) as resp:
                    if resp.status != 200:
                        self.errors.append(f"stream {resp.status}")
                        await asyncio.sleep(1)
                        continue
                    self.open_streams += 1
                    try:
                        async for line in resp.content:
                            if line.startswith(b"id: "):
                                self.arrivals.setdefault(("sse", int(line[4:])), []).append(time.time())
                    finally:
                        self.open_streams -= 1
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - counted and retried
                self.errors.append(f"stream {type(exc).__name__}")
                await asyncio.sleep(1)

    async def _poll(self, match_id: str, token: str) -> None:
        url = f"{self.base}/api/matches/{match_id}/view?wait=30"
        headers = {"Authorization": f"Bearer {token}"}
        etag = None
        while True:
            try:
                if etag:
                    headers["If-None-Match"] = etag
                async with self.session.get(url, headers=headers) as resp:
                    body = await resp.read()
                    if resp.status == 200:
                        now = time.time()
                        version = int(resp.headers["ETag"].strip('"')[1:])
                        if etag is not None:
                            self.arrivals.setdefault(("poll", version), []).append(now)
                        etag = resp.headers["ETag"]
                    elif resp.status != 304:
                        self.errors.append(f"poll {resp.status} {body[:80]!r}")
                        await asyncio.sleep(1)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - counted and retried
                self.errors.append(f"poll {type(exc).__name__}")
                await asyncio.sleep(1)


# -- phases ------------------------------------------------------------------------------------
def seat_matches(base: str, count: int) -> list[tuple[str, str, dict]]:
    """`count` matches, each with one human seat (and three bots) waiting for that human."""
    player = H.Player(base, random.Random(1))
    out = []
    for _ in range(count):
        match_id, (token,) = player.new_match({"hands": 4}, humans=1)
        out.append((match_id, token, player.view(match_id, token)))
    return out


def play(base: str, server, seconds: float) -> tuple[float, float, int]:
    ops, latencies, elapsed, _, _ = H.run_threads(16, seconds, H.solo_work(base), server)
    return ops / elapsed, H.percentile(latencies, 0.99), ops


def fan_out(base: str, waiters: Waiters, moves: int = 5) -> list[float]:
    """Seconds from each move's append (recorded_at) to each of the 2,000 waiters' reads of it."""
    ((match_id, token, view),) = seat_matches(base, 1)
    waiters.open([(match_id, token)], 1000, 1000)
    time.sleep(3)  # the long-polls reach their wait
    player, delays = H.Player(base, random.Random(2)), []
    for _ in range(moves):
        if view["status"] == "over" or not view["legal_actions"]:
            break
        headers = dict(H.auth(token), **{"If-Match": f'"v{view["version"]}"'})
        player.client = H.Client(base)  # the last one idled past the server's keep-alive
        status, body = player.client.call(
            "POST", f"/api/matches/{match_id}/actions", random.choice(view["legal_actions"]), headers
        )
        if status != 200:
            player.client = H.Client(base)
            view = player.view(match_id, token)
            continue
        first = body["events"][0]
        appended = epoch(first["recorded_at"])
        time.sleep(5)  # every waiter has read it (or is late: counted as missing)
        polls_version = body["view"]["version"]
        reads = waiters.arrivals.get(("sse", first["version"]), []) + waiters.arrivals.get(("poll", polls_version), [])
        delays += [t - appended for t in reads]
        print(f"  move to v{polls_version}: {len(reads)} reads")
        waiters.arrivals.clear()
        view = body["view"]
    waiters.close()
    return delays


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--streams", type=int, default=2000)
    parser.add_argument("--polls", type=int, default=2000)
    args = parser.parse_args()
    raise_open_files(args.streams + args.polls + 2000)
    with tempfile.TemporaryDirectory() as tmp:
        port = H.free_port()
        base = f"http://127.0.0.1:{port}"
        server = start_server(os.path.join(tmp, "waiting.db"), port)
        try:
            run(base, server, args)
        finally:
            H.stop(server)


def run(base: str, server, args) -> None:
    waiters = Waiters(base)
    idle = [(m, t) for m, t, _ in seat_matches(base, IDLE_MATCHES)]
    rows = []
    play(base, server, 3)  # warm-up
    for round_ in range(args.rounds):
        alone = play(base, server, args.seconds)
        before = group_rss(server.pid)
        opened = time.monotonic()
        waiters.open(idle, args.streams, args.polls)
        time.sleep(3)
        rss = group_rss(server.pid) - before
        took = time.monotonic() - opened
        crowded = play(base, server, args.seconds)
        print(
            f"round {round_ + 1}: without waiters {alone[0]:.1f} actions/s p99 {alone[1] * 1e3:.1f} ms; "
            f"with {waiters.open_streams} streams + {args.polls} long-polls {crowded[0]:.1f} actions/s "
            f"p99 {crowded[1] * 1e3:.1f} ms; opened in {took:.1f} s, {rss / (args.streams + args.polls) / 1024:.1f}"
            f" KiB per idle connection",
            flush=True,
        )
        rows.append((alone, crowded, rss))
        waiters.close()
    throughput = statistics.median(c[0] / a[0] for a, c, _ in rows)
    p99 = statistics.median(c[1] / a[1] for a, c, _ in rows)
    memory = statistics.median(r for _, _, r in rows) / (args.streams + args.polls)
    print(
        f"\nactions/s with/without waiters: {throughput:.2f}x (target >= 0.8); "
        f"p99 action latency with/without: {p99:.2f}x (target <= 2)"
    )
    print(f"server memory per idle connection: {memory / 1024:.1f} KiB (workers' RSS)")
    delays = fan_out(base, waiters)
    if delays:
        print(
            f"move -> 2,000 waiters: {len(delays)} reads, p50 {H.percentile(delays, 0.5) * 1e3:.0f} ms, "
            f"p99 {H.percentile(delays, 0.99) * 1e3:.0f} ms (from the append's recorded_at)"
        )
    if waiters.errors:
        print(f"waiter errors: {len(waiters.errors)}, e.g. {sorted(set(waiters.errors))[:5]}")
    with open(LOG) as log:
        boots = sum("Booting worker" in line for line in log)
    print(f"server workers booted: {boots} (2 = none restarted); its log: {LOG}")


if __name__ == "__main__":
    main()
