"""The ticker `tilefold serve` runs (service/usecases/ticker.py): with two workers, one holds the
lease, and an overdue deadline is settled once, within a couple of seconds of falling due, with no
request asking for it. Both backends; a few seconds each. The shortest deadline a match may set is
an hour, so the test moves the decision's due time (its row in `tf_decisions`, the service's own
side table) to a moment just ahead, as an hour passing would."""

from __future__ import annotations

import time
from datetime import datetime, timezone

import pytest
import requests

from events import open_store

from conftest import MatchClient, requests_transport
from served import served

AHEAD = 1.5  # seconds from now at which the dealer's decision falls due


def _iso(moment: float) -> str:
    return datetime.fromtimestamp(moment, timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


@pytest.mark.slow
def test_two_workers_settle_a_deadline_once_within_two_seconds_with_no_request(backend):
    """Given `tilefold serve` with two workers and a match whose dealer's decision falls due in 1.5 s,
    when nobody sends anything, then the dealer's timeout is appended within two seconds of its
    deadline, exactly once, and one worker holds the ticker's lease."""
    with served(backend.target) as server:
        api = MatchClient(requests_transport(server.base))
        body = {"variant": "koudiandian", "options": {"hands": 1}, "deadline_seconds": 3600}
        created = api.call("POST", "/api/matches", body)
        assert created.status == 201, created
        match_id = created.body["id"]
        tokens = [api.join(match_id, f"p{i}") for i in range(4)]
        assert len(api.view(match_id, tokens[0]).body["deadlines"]) == 1
        due = time.time() + AHEAD
        store = open_store(backend.target)
        try:
            sql = "UPDATE tf_decisions SET due_at = ? WHERE stream = ?"
            store.write(lambda conn: conn.execute(sql, [_iso(due), f"match-{match_id}"]))
        finally:
            store.close()

        time.sleep(max(0.0, due - time.time()) + 0.05)
        seen = None
        while time.time() < due + 10:
            feed = api.events(match_id).body["events"]  # a read: it settles nothing itself
            if any(e["payload"].get("reason") == "timeout" for e in feed):
                seen = time.time()
                break
            time.sleep(0.1)
        assert seen is not None, "the overdue deadline was never settled"
        late = seen - due
        print(f"\nsettled {late:.2f} s after the deadline")
        assert late <= 2.5, late
        time.sleep(2)  # any second settling would have happened by now
        timeouts = [e for e in api.events(match_id).body["events"] if e["payload"].get("reason") == "timeout"]
        assert len(timeouts) == 1, timeouts
        store = open_store(backend.target)
        try:
            holders = store.query("SELECT holder, expires_at FROM tf_leases WHERE name = ?", ["ticker"])
        finally:
            store.close()
        assert len(holders) == 1 and float(holders[0][1]) > time.time(), holders  # held, and renewed
        assert requests.get(server.base + "/api/matches", timeout=10).status_code == 200
