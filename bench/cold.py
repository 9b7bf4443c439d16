"""Cold loads: GET /api/matches/<id> of a match in no cache, against the same GET warm.

Run: python bench/cold.py [--repeats 30] [--every N]. About a minute.

For matches of about 20, 2,000 and 20,000 events (bot-played, stored as play stores them: appended
in small batches through the repository, which leaves a snapshot every TILEFOLD_SNAPSHOT_EVERY
events and at every hand end), it times the GET in process (Flask test client, the same on both
sides) with the worker's state cache emptied before each cold GET, and prints medians and the
ratio cold / warm (target: <= 2 at every size), and for scale the same load folding every event.
With --no-head (no rolling snapshot at each append) the match is cut where the tail after its
last snapshot is longest (just before the next one is due): the worst case a cold load meets.
"""

from __future__ import annotations

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]  # bench/http.py is not stdlib `http`
sys.path.insert(0, os.path.dirname(_HERE))

import argparse  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

from engine.selfplay import play_match, seeds_from  # noqa: E402
from service.model import room as rooms  # noqa: E402
from service.app import create_app  # noqa: E402
from service.infra.repository import Loaded, engine_events, stream_of  # noqa: E402
from service.http.services import services  # noqa: E402

BATCH = 6  # events per append, about what one action and its automatic follow-ups write


def bot_events(target: int) -> list[dict]:
    """At least `target` engine events of bot-played hanshan hands (hands cap lifted: stored directly)."""
    hands = max(1, target // 100 + 1)
    events = play_match("hanshan", {"hands": min(256, hands)}, seeds_from(f"cold/{target}"))[1]
    while len(events) < target:  # more than 256 hands' worth: never needed at 20,000
        events += events
    return events


def build(app, match_id: str, target: int) -> int:
    """Store a match of about `target` events as play would; the number of events stored."""
    repo = services(app).match.repo
    created = {
        "type": rooms.MATCH_CREATED,
        "variant": "hanshan",
        "options": {"hands": 256},
        "owner_token_hash": "0" * 64,
    }
    repo.append(match_id, 0, [created])
    loaded = repo.load(match_id)
    events = bot_events(target)[: target - 1]
    every = repo.snapshots.every
    cut = len(events)
    if target > every:  # end just before a snapshot is due: the longest tail a cold load meets
        cut -= (cut + 1) % every + 1
    i = 0
    while i < cut:
        batch = events[i : min(cut, i + BATCH)]
        repo.append_on(loaded, batch)
        loaded = repo.cache.get(match_id)
        i += len(batch)
    repo.keep_folded()  # the worker's next ticker pass: the rolling snapshot of the match's head
    return loaded.version


def time_get(client, url: str, before=None, repeats: int = 30) -> float:
    samples = []
    for _ in range(repeats):
        if before:
            before()
        started = time.perf_counter()
        response = client.get(url)
        samples.append(time.perf_counter() - started)
        assert response.status_code == 200, response.get_json()
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--every", type=int, default=None, help="TILEFOLD_SNAPSHOT_EVERY (default: the service's)")
    parser.add_argument(
        "--no-head",
        action="store_true",
        help="TILEFOLD_SNAPSHOT_HEAD=off: only the snapshots every N events and at hand ends",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        settings = {"DATABASE": os.path.join(tmp, "cold.db"), "SYNCHRONOUS": "OFF", "TESTING": True}
        if args.every:
            settings["SNAPSHOT_EVERY"] = args.every
        settings["SNAPSHOT_HEAD"] = not args.no_head
        app = create_app(settings)
        repo = services(app).match.repo
        client = app.test_client()
        head = "on" if repo.snapshots.head else "off"
        print(
            f"snapshot every {repo.snapshots.every} events, rolling head snapshot {head}; "
            f"GET /api/matches/<id>, medians of {args.repeats}"
        )
        print(f"{'events':>8} {'tail':>5} {'warm ms':>8} {'cold ms':>8} {'no-snap ms':>10} {'cold/warm':>9}")
        for size in (20, 2000, 20000):
            match_id = f"cold{size}"
            version = build(app, match_id, size)
            snap = repo.snapshots.load(stream_of(match_id))
            tail = version - (snap[0] if snap else 0)
            url = f"/api/matches/{match_id}"
            warm = time_get(client, url, repeats=args.repeats)
            cold = time_get(client, url, before=repo.cache._items.clear, repeats=args.repeats)
            full = time_full_fold(repo, match_id, args.repeats)
            print(
                f"{version:>8} {tail:>5} {warm * 1e3:>8.2f} {cold * 1e3:>8.2f} {full * 1e3:>10.2f} {cold / warm:>9.2f}"
            )


def time_full_fold(repo, match_id: str, repeats: int) -> float:
    """For scale: the same cold load without snapshots (read and fold every event)."""
    samples = []
    for _ in range(max(3, repeats // 5)):
        started = time.perf_counter()
        stored = repo.store.read(stream_of(match_id))
        import engine

        Loaded(match_id, stored[-1].version, engine.fold(engine_events(stored)), rooms.fold(stored))
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


if __name__ == "__main__":
    main()
