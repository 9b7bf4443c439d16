"""Replay frames: the engine's own views per step; secrecy while in play (owner only, public frames)."""

from __future__ import annotations

import engine
from audit_support import finished_match, open_match
from service.http.services import services


def test_frames_everyone_and_one_seat(client, app):
    match_id, _ = finished_match(app, "hanshan", {"hands": 2})
    everyone = client.get(f"/replay/{match_id}/frames.json?seat=all").get_json()
    stored = services(app).match.repo.read(match_id)
    engine_events = [e for e in stored if e.type not in ("match_created", "seat_joined")]
    assert [s["version"] for s in everyone["steps"]] == [e.version for e in engine_events]
    assert len(everyone["hands"]) == 2 and everyone["hands"][1]["scores"] == everyone["steps"][-1]["view"]["scores"]
    state = engine.initial_state()
    for step, stored_event in zip(everyone["steps"], engine_events):
        event = {"type": stored_event.type, **stored_event.payload}
        state = engine.evolve(state, event)
        assert step["event"] == event
        if step["view"]["hand"]:
            for s in range(4):
                assert step["view"]["hand"]["seats"][s] == engine.view(state, s)["hand"]["seats"][s]
    seat1 = client.get(f"/replay/{match_id}/frames.json?seat=1").get_json()
    for step in seat1["steps"]:
        hand = step["view"]["hand"]
        if hand:
            assert [s["concealed"] is not None for s in hand["seats"]] == [False, True, False, False]
        if step["event"]["type"] == "hand_started":
            assert step["event"]["hands"][0] is None and "wall" not in step["event"]
    assert client.get(f"/replay/{match_id}/frames.json?seat=9").status_code == 400
    assert client.get(f"/replay/{match_id}").status_code == 200
    assert client.get("/replay/nope").status_code == 404


def test_in_play_only_owner_and_only_public(client, app):
    match_id, owner = open_match(app)
    assert client.get(f"/replay/{match_id}/frames.json").status_code == 401
    assert client.get(f"/replay/{match_id}/frames.json?owner=wrong").status_code == 403
    for reply in (
        client.get(f"/replay/{match_id}/frames.json?owner={owner}&seat=0"),
        client.get(f"/replay/{match_id}/frames.json?seat=all", headers={"Authorization": f"Bearer {owner}"}),
    ):
        assert reply.status_code == 200
        frames = reply.get_json()
        assert frames["perspective"] is None and frames["status"] == "playing"
        for step in frames["steps"]:
            event = step["event"]
            assert "seed" not in event and "wall" not in event
            if event["type"] == "hand_started":
                assert event["hands"] == [None] * 4 and event["dealer_draw"] is None
            if event["type"] == "drew":
                assert event["tile"] is None
            if step["view"]["hand"]:
                assert all(s["concealed"] is None for s in step["view"]["hand"]["seats"])
                assert step["view"]["hand"]["drawn"] is None


def test_page_escapes_the_match_id(client, app):
    match_id, _ = finished_match(app, "koudiandian", {"hands": 1})
    html = client.get(f"/replay/{match_id}").get_data(as_text=True)
    assert f'data-match="{match_id}"' in html and "viewer.js" in html
    assert client.get("/replay/static/viewer.js").status_code == 200
    assert client.get("/replay/static/viewer.css").status_code == 200
