"""Cost of the hash-chain check on a cold load: median cold-load time of one finished match,
with `MatchRepository.check_integrity` and without it, measured in the same run; prints the ratio.

    python bench/integrity.py [HANDS] [ROUNDS]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])  # the repo, not bench/ (bench/http.py would shadow http)

from events import EventStore  # noqa: E402
from service.app import create_app  # noqa: E402
from service.infra.repository import MatchRepository  # noqa: E402
from service.http.services import services  # noqa: E402


def finished_match(db: str, hands: int) -> str:
    app = create_app({"DATABASE": db, "TESTING": True, "WEBHOOK_WORKER": False})
    svc = services(app).match
    match_id, owner, _ = svc.create("koudiandian", {"hands": hands})
    svc.add_bots(match_id, owner, None)
    assert svc.repo.load(match_id).over
    return match_id


def cold_load(db: str, match_id: str, checked: bool) -> float:
    repo = MatchRepository(EventStore(db))
    if not checked:
        repo.check_integrity = lambda match_id: None  # type: ignore[method-assign]
    start = time.perf_counter()
    repo.load(match_id)
    return time.perf_counter() - start


def main() -> None:
    hands = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "bench.db")
        match_id = finished_match(db, hands)
        events = len(EventStore(db).read(f"match-{match_id}"))
        times = {True: [], False: []}
        for _ in range(rounds):  # interleaved, so a busy moment hits both sides
            for checked in (False, True):
                times[checked].append(cold_load(db, match_id, checked))
    plain, checked = statistics.median(times[False]), statistics.median(times[True])
    print(f"cold load of a {hands}-hand match ({events:,} events), median of {rounds}:")
    print(f"  without the chain check: {plain * 1000:.1f} ms")
    print(f"  with the chain check:    {checked * 1000:.1f} ms  (ratio {checked / plain:.2f})")


if __name__ == "__main__":
    main()
