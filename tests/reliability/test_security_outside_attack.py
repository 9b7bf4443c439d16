"""Access and bad input an outside attacker tried: each test fails without its fix."""

from __future__ import annotations

import json

import pytest

import engine
from conftest import MatchClient, flask_transport
from service.cli import main
from service.http.services import services


def make_app(tmp_path, **config):
    from service.app import create_app

    return create_app({"DATABASE": str(tmp_path / "t.db"), "TESTING": True, **config})


def stored_streams(app) -> list[str]:
    return services(app).match.repo.store.streams()


# ---- the owner's spectating switch ---------------------------------------------------------------


@pytest.mark.parametrize("header", ["Basic x", "Bearer ", "Bearer", "garbage", "Bearer not-a-seat-token", "Digest a=b"])
def test_spectating_off_any_authorization_that_is_not_a_seat_token_is_refused(tmp_path, header):
    """Before: any Authorization header skipped the spectating check and got the public feed."""
    app = make_app(tmp_path)
    api = MatchClient(flask_transport(app.test_client()))
    match_id, owner, tokens = api.new_match("koudiandian", {"hands": 1}, humans=1)
    assert api.call("PUT", f"/api/matches/{match_id}/spectating", {"enabled": False}, token=owner).status == 200
    for path in (f"/api/matches/{match_id}/events", f"/api/matches/{match_id}/stream"):
        reply = api.call("GET", path, Authorization=header)
        assert reply.status in (401, 403), (path, header, reply)
        assert "events" not in (reply.body or {})
    assert api.events(match_id, tokens[0]).status == 200  # the seat's own feed still works


# ---- bodies that gave 500 ------------------------------------------------------------------------


def test_a_name_with_a_lone_surrogate_is_400_and_nothing_is_stored(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    match_id = client.post("/api/matches", json={"variant": "hanshan"}).get_json()["id"]
    before = services(app).match.repo.version(match_id)
    reply = client.post(f"/api/matches/{match_id}/seats", data='{"name": "a\\ud800b"}', content_type="application/json")
    assert reply.status_code == 400 and reply.mimetype == "application/problem+json", reply.get_json()
    assert reply.get_json()["code"] == "invalid_json"
    assert services(app).match.repo.version(match_id) == before
    paired = client.post(
        f"/api/matches/{match_id}/seats", data='{"name": "a\\ud83d\\ude00b"}', content_type="application/json"
    )
    assert paired.status_code == 201  # a surrogate pair is a real character (😀)


@pytest.mark.parametrize(
    "path,body",
    [
        ("/api/matches", '{"variant": "hanshan", "options": {"hands": %s}}'),
        ("/api/score", '{"variant": "hanshan", "seat": %s}'),
        ("/api/matches", '{"variant": "hanshan", "extra": [1, {"x": %s}]}'),
    ],
)
def test_a_json_integer_longer_than_4300_digits_anywhere_is_400(tmp_path, path, body):
    app = make_app(tmp_path)
    reply = app.test_client().post(path, data=body % ("9" * 4301), content_type="application/json")
    assert reply.status_code == 400 and reply.mimetype == "application/problem+json", reply.data[:200]
    assert stored_streams(app) == []


def test_a_score_whose_win_tile_is_not_in_the_hand_is_400_not_500(tmp_path):
    body = {"variant": "hanshan", "seat": 0, "dealer": 0, "hand": "123m", "win_tile": "E", "win_by": "self_draw"}
    reply = make_app(tmp_path).test_client().post("/api/score", json=body)
    assert reply.status_code == 400 and reply.get_json()["code"] == "invalid_input"


@pytest.mark.parametrize("hand", ["١23m456m789m11pEE", "²23m456m789m11pEE"])
def test_a_score_hand_with_non_ascii_digits_is_400(tmp_path, hand):
    app = make_app(tmp_path)
    body = {"variant": "hanshan", "seat": 0, "dealer": 0, "hand": hand, "win_tile": "E", "win_by": "self_draw"}
    reply = app.test_client().post("/api/score", json=body)
    assert reply.status_code == 400 and reply.mimetype == "application/problem+json", reply.get_json()


@pytest.mark.parametrize("value", ["²", "١", "1²", "-1", "1.5", "99999999999999999999999", " ", "0x10"])
def test_a_bad_last_event_id_is_400(tmp_path, value):
    app = make_app(tmp_path, STREAM_LIFETIME=0.0)
    client = app.test_client()
    match_id = client.post("/api/matches", json={"variant": "hanshan"}).get_json()["id"]
    reply = client.get(f"/api/matches/{match_id}/stream", headers={"Last-Event-ID": value})
    assert reply.status_code == 400 and reply.get_json()["code"] == "invalid_last_event_id", value


@pytest.mark.parametrize("options", [[1], "x", 3])
def test_scenario_with_options_that_are_not_an_object_exits_2(tmp_path, capsys, options):
    spec = {
        "variant": "koudiandian",
        "options": options,
        "hands": ["123m456m789m123s55p", "123m456m789m123s5", "123m456m789m123s6", "123m456m789m123s7"],
    }
    path = tmp_path / "s.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    assert main(["scenario", str(path)]) == 2
    err = json.loads(capsys.readouterr().err)
    assert err["error"] == "malformed" and "options must be an object" in err["message"]


# ---- rate limits ---------------------------------------------------------------------------------


def test_rate_limits_answer_429_problem_with_retry_after_per_client_address(tmp_path):
    app = make_app(
        tmp_path,
        RATE_LIMITS=True,
        RATE_LIMIT_CREATE="3 per minute",
        RATE_LIMIT_JOIN="2 per minute",
        RATE_LIMIT_SCORE="2 per minute",
        RATE_LIMIT_IMPORT="1 per minute",
    )
    client = app.test_client()
    made = [client.post("/api/matches", json={"variant": "hanshan"}) for _ in range(4)]
    assert [r.status_code for r in made] == [201, 201, 201, 429]
    refused = made[-1]
    assert refused.mimetype == "application/problem+json" and refused.get_json()["code"] == "too_many_requests"
    assert int(refused.headers["Retry-After"]) > 0
    other = client.post("/api/matches", json={"variant": "hanshan"}, environ_base={"REMOTE_ADDR": "10.9.9.9"})
    assert other.status_code == 201  # per client address
    match_id = made[0].get_json()["id"]
    joins = [client.post(f"/api/matches/{match_id}/seats", json={"name": f"p{i}"}) for i in range(3)]
    assert [r.status_code for r in joins] == [201, 201, 429]
    score = {"variant": "hanshan", "seat": 0, "dealer": 0, "hand": "123m", "win_tile": "E", "win_by": "self_draw"}
    assert [client.post("/api/score", json=score).status_code for _ in range(3)][-1] == 429
    assert [client.post("/api/matches/import", data="x").status_code for _ in range(2)] == [400, 429]
    assert client.get("/api/matches").status_code == 200  # reads are not limited


def test_rate_limits_are_off_in_tests_unless_turned_on(tmp_path):
    client = make_app(tmp_path).test_client()
    assert all(client.post("/api/matches", json={"variant": "hanshan"}).status_code == 201 for _ in range(40))


def test_imports_have_a_smaller_default_body_cap(tmp_path):
    from service.infra.config import from_env

    assert from_env({})["MAX_IMPORT_BYTES"] == 4 * 1024 * 1024 < 16 * 1024 * 1024
    app = make_app(tmp_path)
    reply = app.test_client().post("/api/matches/import", data=b"x" * (4 * 1024 * 1024 + 1))
    assert reply.status_code == 413


# ---- races and stalls ----------------------------------------------------------------------------


def test_bots_racing_joins_never_answer_409_after_seating_a_bot(tmp_path, monkeypatch):
    """A join takes the last seats between two of /bots' seatings: the answer lists the bots seated."""
    app = make_app(tmp_path)
    svc = services(app).match
    client = app.test_client()
    created = client.post("/api/matches", json={"variant": "hanshan"}).get_json()
    match_id, owner = created["id"], created["owner_token"]
    real, calls = svc._take_seat, []

    def racing(mid, name, **kw):
        seat = real(mid, name, **kw)
        calls.append(seat)
        if len(calls) == 1:  # three humans take the other seats right after the first bot sat down
            for i in range(3):
                svc.join(mid, f"human {i}")
        return seat

    monkeypatch.setattr(svc, "_take_seat", racing)
    reply = client.post(f"/api/matches/{match_id}/bots", json={}, headers={"Authorization": f"Bearer {owner}"})
    assert reply.status_code == 200, reply.get_json()
    assert reply.get_json()["seats"] == [0]
    assert (
        client.post(f"/api/matches/{match_id}/bots", json={}, headers={"Authorization": f"Bearer {owner}"}).status_code
        == 409
    )  # none seated: 409


def test_a_match_whose_next_deal_was_never_written_is_dealt_by_the_ticker_never_by_a_read(tmp_path):
    """A worker killed between the hand's last append and the deal: a plain GET answers without
    writing (the deal is still missing), and the ticker's next pass deals it."""
    from service.usecases.ticker import Ticker

    app = make_app(tmp_path)
    svc = services(app).match
    api = MatchClient(flask_transport(app.test_client()))
    match_id, owner = api.create("koudiandian", {"hands": 2})
    real = svc.advance
    svc.advance = lambda mid, start=None: svc.repo.load(mid)  # the killed worker never advances
    try:
        for i in range(4):
            svc.join(match_id, f"p{i}")
        loaded = svc.repo.load(match_id)
        while not loaded.state.needs_new_hand:  # play hand 1 to its end, nothing automatic after
            seat = engine.pending_seats(loaded.state)[0]
            svc.repo.append_on(
                loaded, engine.decide(loaded.state, {**engine.bot_action(loaded.state, seat), "seat": seat})
            )
            loaded = svc.repo.load(match_id)
    finally:
        svc.advance = real
    assert svc.repo.load(match_id).state.needs_new_hand
    version = svc.repo.version(match_id)
    assert api.summary(match_id)["hand_no"] == 1  # a read
    assert svc.repo.version(match_id) == version  # appended nothing
    assert Ticker(svc, grace=0.0).run_once()["matches_healed"] >= 1
    summary = api.summary(match_id)
    assert summary["phase"] in ("turn", "waiting") and summary["hand_no"] == 2
    assert not svc.repo.load(match_id).state.needs_new_hand


# ---- the match list and the summary --------------------------------------------------------------


def test_matches_are_listed_newest_first_with_a_before_cursor(tmp_path):
    app = make_app(tmp_path, LIST_LIMIT=3)
    client = app.test_client()
    ids = [client.post("/api/matches", json={"variant": "hanshan"}).get_json()["id"] for _ in range(7)]
    pages, url = [], "/api/matches"
    while url:
        body = client.get(url).get_json()
        pages.append([m["id"] for m in body["matches"]])
        url = body["next"]
    assert pages == [ids[::-1][0:3], ids[::-1][3:6], ids[::-1][6:]]
    assert client.get("/api/matches?before=nope").status_code == 404


def test_the_public_summary_hand_no_is_the_hand_number(tmp_path):
    app = make_app(tmp_path)
    api = MatchClient(flask_transport(app.test_client()))
    match_id, owner = api.create("koudiandian", {"hands": 2})
    assert api.summary(match_id)["hand_no"] is None
    api.join(match_id, "A")
    api.bots(match_id, owner)
    summary = api.summary(match_id)
    assert summary["hand_no"] == 1 and summary["table"]["hand"]["number"] == 1


ROW = (
    '{"stream": "match-x", "version": %s, "type": "seat_joined", "schema_version": 1, '
    '"payload": {"name": "%s"}, "recorded_at": "", "hash": ""}'
)


@pytest.mark.parametrize("body", [ROW % (1, "a\\ud800b"), ROW % ("9" * 4301, "a"), "[" + ROW % (1, "a\\udfff") + "]"])
def test_an_import_with_a_lone_surrogate_or_a_huge_integer_is_400(tmp_path, body):
    """The import reads its body itself (its own size limit): service/audit.parse_log applies the same checks."""
    app = make_app(tmp_path)
    reply = app.test_client().post("/api/matches/import", data=body, content_type="application/json")
    assert reply.status_code == 400 and reply.get_json()["code"] == "invalid_log", reply.get_json()
    assert "surrogate" in reply.get_json()["detail"] or "digits" in reply.get_json()["detail"]
    assert stored_streams(app) == []
