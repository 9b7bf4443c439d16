"""Replay pages: time to the first frame and peak memory for 4-, 64- and 256-hand matches.

Run: python bench/replay.py. About a minute.

Each match is bot-played and stored as play stores it (appended in small batches through the
repository, which keeps a snapshot at every hand end). Then, in a fresh process for each
measurement (so the peak is that request's alone), the first page (`?hand=0`: what the viewer
shows first), the last page, and, for comparison, the whole match (`TILEFOLD_REPLAY_WHOLE_HANDS`
raised so it is served at all) are fetched in process (Flask test client, seat=all, nothing
cached). Printed: seconds to the answer, its size, and the process's peak RSS after the request
(and before it: the app and the match's summary loaded).
The match length cap (TILEFOLD_MAX_HANDS) does not apply: the matches are stored directly.
"""

from __future__ import annotations

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]  # bench/http.py is not stdlib `http`
sys.path.insert(0, os.path.dirname(_HERE))

import json  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from service.http.services import services  # noqa: E402

BATCH = 6


def build(db: str, match_id: str, hands: int) -> int:
    from engine.selfplay import play_match, seeds_from
    from service.model import room as rooms
    from service.app import create_app

    app = create_app({"DATABASE": db, "SYNCHRONOUS": "OFF", "TESTING": True})
    repo = services(app).match.repo
    created = {
        "type": rooms.MATCH_CREATED,
        "variant": "hanshan",
        "options": {"hands": hands},
        "owner_token_hash": "0" * 64,
    }
    repo.append(match_id, 0, [created])
    loaded = repo.load(match_id)
    events = play_match("hanshan", {"hands": hands}, seeds_from(f"replay/{hands}"))[1]
    for i in range(0, len(events), BATCH):
        repo.append_on(loaded, events[i : i + BATCH])
        loaded = repo.cache.get(match_id)
    return loaded.version


def measure(db: str, match_id: str, query: str) -> dict:
    """In this (fresh) process: one GET of the frames; seconds, bytes, peak RSS growth."""
    from service.app import create_app

    app = create_app({"DATABASE": db, "TESTING": True, "REPLAY_WHOLE_HANDS": 10_000})
    client = app.test_client()
    client.get(f"/api/matches/{match_id}")  # the app and the match's summary (not the frames) warm
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    response = client.get(f"/replay/{match_id}/frames.json?seat=all{query}")
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert response.status_code == 200, response.status_code
    return {
        "seconds": seconds,
        "bytes": len(response.data),
        "peak_kib": peak,
        "before_kib": before,
        "steps": len(response.get_json()["steps"]),
        "pages": response.get_json()["pages"],
    }


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--measure":
        print(json.dumps(measure(sys.argv[2], "m", sys.argv[3])))
        return
    with tempfile.TemporaryDirectory() as tmp:
        print(
            f"{'hands':>5} {'events':>7} {'request':>12} {'seconds':>8} {'MiB sent':>8} {'peak RSS MiB (before)':>22}"
        )
        for hands in (4, 64, 256):
            db = os.path.join(tmp, f"r{hands}.db")
            version = build(db, "m", hands)
            for label, query in (("first page", "&hand=0"), ("last page", f"&hand={hands - 1}"), ("whole", "")):
                out = subprocess.run(
                    [sys.executable, os.path.abspath(__file__), "--measure", db, query],
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
                got = json.loads(out.strip().splitlines()[-1])
                print(
                    f"{hands:>5} {version:>7} {label:>12} {got['seconds']:>8.3f} {got['bytes'] / 2**20:>8.2f} "
                    f"{(got['before_kib'] + got['peak_kib']) / 1024:>13.1f} ({got['before_kib'] / 1024:.1f})",
                    flush=True,
                )


if __name__ == "__main__":
    main()
