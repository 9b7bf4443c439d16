"""What a move costs the seat holders' readers: Web Push's delivery (who holds the seat a notice is
for) and the ratings (every finished match with its holders), right after each append.

Run: python bench/seat_index.py [--accounts 100] [--finished 4] [--moves 40] [--pg URL]
     python bench/seat_index.py --against DIR [--rounds 3] [--pg URL]   (A = the tree at DIR, B = this one)

One run (SQLite file in a temporary folder, or with --pg a fresh schema in that PostgreSQL database,
dropped after): N signed-up
accounts, each holding seat 0 of its own match with three bots; F of those played to the end (so the
ratings fold something); then one account's seat plays M moves and after each move the bench times
`push.deliver` of a "your turn" notice for that seat (no device subscribed: the lookup is the cost)
and `ratings.all_finished()`, and counts the store's methods called by each. It prints the medians
(ms, store calls) as one JSON line. With --against, it runs itself alternately from DIR's tree and
from this one, `rounds` times each, niced, and prints both sides' medians over the runs and the
load average before and after (the machine may be shared: read the figures with it).
"""

from __future__ import annotations

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]  # bench/http.py is not stdlib `http`
sys.path.insert(0, os.path.dirname(_HERE))
sys.path.insert(1, os.path.join(os.path.dirname(_HERE), "tests"))  # the software passkey

import argparse  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402

COUNTED = (
    "query",
    "write",
    "read",
    "read_all",
    "appended_since",
    "head_position",
    "streams",
    "streams_newest_first",
    "load_snapshot",
    "current_version",
)


def count_calls(store) -> list:
    """Wrap the store's methods so each call appends its name to the returned list."""
    calls: list = []
    for name in COUNTED:
        real = getattr(store, name)

        def counted(*args, _real=real, _name=name, **kwargs):
            calls.append(_name)
            return _real(*args, **kwargs)

        setattr(store, name, counted)
    return calls


def play_to_end(play, match_id: str, seat: int, moves: int = 5000) -> int:
    import engine

    done = 0
    while done < moves:
        loaded = play.load(match_id)
        if loaded.over:
            break
        play.act(match_id, seat, engine.legal_actions(loaded.state, seat)[0], None, loaded=loaded)
        done += 1
    return done


def run(args) -> dict:
    folder = tempfile.mkdtemp(prefix="tf-bench-seats-")
    database = os.path.join(folder, "t.db")
    if args.pg:
        import psycopg

        schema = "bench_" + uuid.uuid4().hex[:12]
        with psycopg.connect(args.pg, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
        database = f"{args.pg}{'&' if '?' in args.pg else '?'}options=-csearch_path%3D{schema}"
    try:
        return measure(args, database, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if args.pg:
            with psycopg.connect(args.pg, autocommit=True) as conn:
                conn.execute(f"DROP SCHEMA {schema} CASCADE")


def measure(args, database: str, folder: str) -> dict:
    from service.app import create_app
    from service.http.services import services
    from webauthn_support import Passkey

    app = create_app({"DATABASE": database, "TESTING": True, "KEYS": os.path.join(folder, "keys")})
    found = services(app)
    play, accounts, push, ratings = found.match, found.accounts, found.push, found.reads.ratings
    matches = []
    for n in range(args.accounts):
        passkey = Passkey()
        session = accounts.finish_sign_up(passkey.create(accounts.begin_sign_up(f"p{n}")), "bench").session
        match_id, owner, _ = play.create("hanshan", {"hands": 1})
        seat, token, _ = play.join(match_id, f"p{n}")
        accounts.link(session, match_id, seat, token, "joined")
        play.add_bots(match_id, owner, None)
        matches.append((match_id, seat))
    for match_id, seat in matches[1 : 1 + args.finished]:
        play_to_end(play, match_id, seat)
    match_id, seat = matches[0]
    notice = {"match": match_id, "seat": seat, "push": "your_turn"}
    push.deliver(notice), ratings.all_finished()  # warm: the first answer builds whatever it keeps
    calls = count_calls(play.repo.store)
    push_ms, ratings_ms, push_calls, ratings_calls = [], [], [], []
    for _ in range(args.moves):
        if play_to_end(play, match_id, seat, moves=1) == 0:
            break
        del calls[:]
        started = time.perf_counter()
        push.deliver(notice)
        push_ms.append((time.perf_counter() - started) * 1000)
        push_calls.append(len(calls))
        del calls[:]
        started = time.perf_counter()
        ratings.all_finished()
        ratings_ms.append((time.perf_counter() - started) * 1000)
        ratings_calls.append(len(calls))
    play.repo.store.close()
    return {
        "moves": len(push_ms),
        "push_ms": round(statistics.median(push_ms), 3),
        "push_store_calls": statistics.median(push_calls),
        "ratings_ms": round(statistics.median(ratings_ms), 3),
        "ratings_store_calls": statistics.median(ratings_calls),
    }


def against(args) -> None:
    here = os.path.dirname(_HERE)
    trees = {"A": os.path.abspath(args.against), "B": here}
    child = ["--accounts", str(args.accounts), "--finished", str(args.finished), "--moves", str(args.moves)]
    if args.pg:
        child += ["--pg", args.pg]
    results: dict = {"A": [], "B": []}
    print(f"load average before: {os.getloadavg()}", flush=True)
    for n in range(args.rounds):
        for side in ("A", "B"):
            script = os.path.join(trees[side], "bench", os.path.basename(__file__))
            env = dict(os.environ, PYTHONPATH=trees[side])
            out = subprocess.run(
                ["nice", "-n", "10", sys.executable, script, *child], env=env, capture_output=True, text=True
            )
            if out.returncode != 0:
                raise SystemExit(f"{side} failed:\n{out.stderr[-3000:]}")
            line = json.loads(out.stdout.strip().splitlines()[-1])
            results[side].append(line)
            print(f"round {n + 1} {side}: {line}  load {os.getloadavg()[0]:.2f}", flush=True)
    for side in ("A", "B"):
        rows = results[side]
        medians = {key: statistics.median(r[key] for r in rows) for key in rows[0] if key != "moves"}
        print(f"{side} ({trees[side]}): medians over {len(rows)} runs: {medians}")
    print(f"load average after: {os.getloadavg()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--accounts", type=int, default=100)
    parser.add_argument("--finished", type=int, default=4)
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--pg", default=None, help="a PostgreSQL URL: each run fills a fresh schema there")
    parser.add_argument("--against", default=None)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.against:
        against(args)
    else:
        print(json.dumps(run(args)), flush=True)


if __name__ == "__main__":
    main()
