"""Bounded replays: frames per hand (pages) from the latest snapshot, a size-bounded cache,
the match length cap for new matches."""

from __future__ import annotations

import pytest

from service.infra.sized_cache import SizedCache
from audit_support import finished_match
from service.http.services import services


@pytest.fixture
def small_snapshots(app):
    services(app).match.repo.snapshots.every = 40  # several snapshots inside each hand
    return app


@pytest.mark.parametrize("seat", ["all", "1"])
def test_the_pages_together_are_the_whole_replay(client, small_snapshots, seat):
    """Given a finished 3-hand match, when its frames are fetched hand by hand, then the pages'
    steps, in order, are exactly the whole match's steps, and each page's index is the same."""
    match_id, _ = finished_match(small_snapshots, "hanshan", {"hands": 3})
    whole = client.get(f"/replay/{match_id}/frames.json?seat={seat}").get_json()
    assert whole["pages"] == 3 and len(whole["index"]) == 3
    pages = [client.get(f"/replay/{match_id}/frames.json?seat={seat}&hand={k}").get_json() for k in range(3)]
    assert [p["page"] for p in pages] == [0, 1, 2]
    assert [s for p in pages for s in p["steps"]] == whole["steps"]
    assert all(p["index"] == whole["index"] for p in pages)
    for k, page in enumerate(pages):  # a page holds its hand: hand_started .. hand_ended
        types = [s["event"]["type"] for s in page["steps"]]
        assert types.count("hand_started") == 1 and types.count("hand_ended") == 1
        entry = whole["index"][k]
        assert page["first_version"] <= entry["first"] <= entry["last"] <= page["last_version"]
        assert entry["page"] == k and entry["scores"] is not None
    assert pages[-1]["steps"][-1]["event"]["type"] == "match_ended"


def test_a_long_match_is_served_only_in_pages(client, app):
    """Given more hands than TILEFOLD_REPLAY_WHOLE_HANDS, then the whole replay is 422 replay_paged
    and a page is there; a page past the end is 404, a malformed one 400."""
    app.config["REPLAY_WHOLE_HANDS"] = 1
    match_id, _ = finished_match(app, "koudiandian", {"hands": 2})
    refused = client.get(f"/replay/{match_id}/frames.json")
    assert refused.status_code == 422 and refused.get_json()["code"] == "replay_paged"
    assert refused.get_json()["pages"] == 2
    assert client.get(f"/replay/{match_id}/frames.json?hand=1").status_code == 200
    assert client.get(f"/replay/{match_id}/frames.json?hand=2").status_code == 404
    assert client.get(f"/replay/{match_id}/frames.json?hand=x").status_code == 400


def test_the_frames_cache_is_bounded_by_bytes():
    cache = SizedCache(100)
    cache.put(("a",), b"x" * 60, 60)
    cache.put(("b",), b"y" * 30, 30)
    assert cache.get(("a",)) is not None  # a is now the most recent
    cache.put(("c",), b"z" * 30, 30)  # 120 > 100: the least recent (b) goes
    assert cache.get(("b",)) is None and cache.get(("a",)) and cache.get(("c",))
    assert cache.bytes == 90
    cache.put(("huge",), b"h" * 101, 101)  # larger than the cache: never kept
    assert cache.get(("huge",)) is None and cache.bytes == 90


@pytest.mark.parametrize(
    "options,status", [({"hands": 64}, 201), ({"hands": 65}, 422), ({"rounds": 16}, 201), ({"hands": 4}, 201)]
)
def test_new_matches_are_capped_at_64_hands_by_default(client, options, status):
    reply = client.post("/api/matches", json={"variant": "koudiandian", "options": options})
    assert reply.status_code == status, reply.get_json()
    if status == 422:
        body = reply.get_json()
        assert body["code"] == "match_too_long" and body["max_hands"] == 64
        assert reply.mimetype == "application/problem+json"


def test_the_cap_is_a_setting(client, app):
    app.config["MAX_HANDS"] = 8
    assert client.post("/api/matches", json={"variant": "koudiandian", "options": {"rounds": 3}}).status_code == 422
    assert client.post("/api/matches", json={"variant": "koudiandian", "options": {"rounds": 2}}).status_code == 201
