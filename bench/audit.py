"""Benchmark: hands verified per second when auditing a large exported log (engine self-play, no HTTP)."""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import itertools
import io
import os
import pstats
import sys
import time

sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # repo root, not bench/ (bench/http.py)

from engine.selfplay import play_match  # noqa: E402
from events import compute_hash  # noqa: E402
from service.usecases.match_log import parse_log, to_ndjson, verify_rows  # noqa: E402


def selfplay(variant: str, hands: int) -> list[dict]:
    seeds = (hashlib.sha256(f"bench/{variant}/{hand}".encode()).hexdigest() for hand in itertools.count(1))
    return play_match(variant, {"hands": hands}, seeds)[1]


def exported(events: list[dict], stream: str) -> str:
    rows, prev = [], ""
    for version, event in enumerate(events, start=1):
        row = {
            "stream": stream,
            "version": version,
            "type": event["type"],
            "schema_version": 1,
            "payload": {k: v for k, v in event.items() if k != "type"},
            "recorded_at": "2024-05-01T12:00:00.000000Z",
        }
        prev = row["hash"] = compute_hash(prev, row)
        rows.append(row)
    return to_ndjson(rows)


REPEATS = 5


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=120)
    parser.add_argument("--profile", action="store_true", help="print the top functions by cumulative time")
    args = parser.parse_args()
    for variant in ("koudiandian", "hanshan"):
        text = exported(selfplay(variant, args.hands), f"match-bench-{variant}")
        rows = parse_log(text)
        verify_rows(rows[:200])  # warm-up
        timings = []
        for _ in range(REPEATS):
            start, wall = time.process_time(), time.perf_counter()
            verdict = verify_rows(rows)
            timings.append((time.process_time() - start, time.perf_counter() - wall))
            assert verdict.ok, verdict.text()
        elapsed, wall = sorted(timings)[len(timings) // 2]  # the median run (by CPU time)
        print(f"{variant}: {verdict.text()}")
        print(
            f"  median of {REPEATS}: {elapsed:.2f} s CPU ({wall:.2f} s wall), "
            f"{verdict.report.hands / elapsed:,.0f} hands/s, "
            f"{len(rows) / elapsed:,.0f} events/s (log {len(text) / 1e6:.1f} MB, parse not timed)"
        )
        if args.profile:
            profile = cProfile.Profile()
            profile.enable()
            verify_rows(rows)
            profile.disable()
            out = io.StringIO()
            pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(14)
            print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
