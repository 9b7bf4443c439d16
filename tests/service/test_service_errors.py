"""Error answers are problem+json with stable codes; concurrency and idempotency rules."""

from __future__ import annotations

import threading

import pytest
from service.http.services import services

PROBLEM = "application/problem+json"


def assert_problem(reply, status: int, code: str) -> dict:
    assert reply.status == status, reply
    assert reply.headers["Content-Type"].startswith(PROBLEM)
    body = reply.body
    assert body["status"] == status and body["code"] == code
    assert {"type", "title", "detail"} <= set(body)
    return body


@pytest.fixture
def match(api):
    match_id, owner, tokens = api.new_match("koudiandian", {"hands": 1})
    return match_id, owner, tokens


def test_missing_token_is_401(api, match):
    match_id, _, _ = match
    reply = api.call("GET", f"/api/matches/{match_id}/view")
    assert_problem(reply, 401, "missing_token")
    assert reply.headers["WWW-Authenticate"].startswith("Bearer")
    assert_problem(api.act(match_id, None, {"action": "pass"}), 401, "missing_token")


def test_other_matchs_token_is_403(api, match):
    match_id, _, _ = match
    _, _, other_tokens = api.new_match("hanshan", {"hands": 1})
    assert_problem(api.view(match_id, other_tokens[0]), 403, "invalid_token")
    assert_problem(api.act(match_id, other_tokens[0], {"action": "pass"}), 403, "invalid_token")
    assert_problem(api.events(match_id, other_tokens[0]), 403, "invalid_token")


def test_owner_token_needed_for_bots(api):
    match_id, owner = api.create()
    assert_problem(api.call("POST", f"/api/matches/{match_id}/bots", {}), 401, "missing_token")
    assert_problem(api.call("POST", f"/api/matches/{match_id}/bots", {}, token="nope"), 403, "not_owner")


def test_unknown_match_and_route_are_404(api, match):
    _, _, tokens = match
    assert_problem(api.view("no-such-match", tokens[0]), 404, "match_not_found")
    assert_problem(api.call("GET", "/api/matches/no-such-match"), 404, "match_not_found")
    assert_problem(api.call("GET", "/api/nothing-here"), 404, "not_found")
    assert_problem(api.call("DELETE", "/api/matches"), 405, "method_not_allowed")


def test_big_body_is_413(client):
    reply = client.post("/api/matches", data="{" + " " * 70_000 + "}", content_type="application/json")
    assert reply.status_code == 413
    assert reply.content_type.startswith(PROBLEM) and reply.get_json()["code"] == "body_too_large"


def test_bad_json_unknown_field_bad_tile_bad_option_are_400(client, api, match):
    match_id, _, tokens = match
    reply = client.post("/api/matches", data="{not json", content_type="application/json")
    assert reply.status_code == 400 and reply.get_json()["code"] == "invalid_json"
    assert_problem(api.call("POST", "/api/matches", {"variant": "koudiandian", "colour": "red"}), 400, "invalid_body")
    assert_problem(api.call("POST", "/api/matches", {"variant": "riichi"}), 400, "invalid_body")
    assert_problem(
        api.call("POST", "/api/matches", {"variant": "hanshan", "options": {"wilds": True}}), 400, "invalid_option"
    )
    body = assert_problem(api.act(match_id, tokens[0], {"action": "discard", "tile": "10m"}), 400, "invalid_body")
    assert "tile" in body["errors"]
    assert_problem(api.act(match_id, tokens[0], {"action": "discard", "tile": "1m", "seat": 2}), 400, "invalid_body")
    assert_problem(api.call("POST", f"/api/matches/{match_id}/seats", {}), 400, "invalid_body")


def test_illegal_action_is_422_naming_the_rule(api, match):
    match_id, _, tokens = match
    view = api.view(match_id, tokens[1]).body  # seat 1 waits for the dealer's discard
    assert view["legal_actions"] == []
    body = assert_problem(api.act(match_id, tokens[1], {"action": "discard", "tile": "1m"}), 422, "illegal_action")
    assert body["reason"] == "not_your_turn" and "rule" in body


def test_stale_version_is_409_with_current_version(api, match):
    match_id, _, tokens = match
    view = api.view(match_id, tokens[0]).body
    body = assert_problem(
        api.act(match_id, tokens[0], view["legal_actions"][0], view["version"] - 1), 409, "version_conflict"
    )
    assert body["current_version"] == view["version"]
    stale = dict(view["legal_actions"][0], expected_version=view["version"] - 1)
    assert_problem(api.act(match_id, tokens[0], stale), 409, "version_conflict")


def test_joining_a_full_match_is_409(api, match):
    match_id, _, _ = match
    assert_problem(api.call("POST", f"/api/matches/{match_id}/seats", {"name": "late"}), 409, "match_full")


def test_two_clients_same_version_one_wins_one_409(app, match):
    from conftest import MatchClient, flask_transport

    match_id, _, tokens = match
    clients = [MatchClient(flask_transport(app.test_client())) for _ in range(2)]
    view = clients[0].view(match_id, tokens[0]).body
    move, version = view["legal_actions"][0], view["version"]
    barrier, replies = threading.Barrier(2), []

    def post(client):
        barrier.wait()
        replies.append(client.act(match_id, tokens[0], move, version))

    threads = [threading.Thread(target=post, args=(c,)) for c in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(r.status for r in replies) == [200, 409]
    assert [r for r in replies if r.status == 409][0].body["code"] == "version_conflict"


def test_retried_idempotency_key_returns_the_first_answer_and_appends_nothing(api, match):
    match_id, _, tokens = match
    view = api.view(match_id, tokens[0]).body
    move = view["legal_actions"][0]
    first = api.act(match_id, tokens[0], move, view["version"], Idempotency_Key="abc-1")
    assert first.status == 200 and first.headers["Idempotent-Replayed"] == "false"
    after_first = api.summary(match_id)["version"]
    retry = api.act(match_id, tokens[0], move, view["version"], Idempotency_Key="abc-1")
    assert retry.status == 200 and retry.headers["Idempotent-Replayed"] == "true"
    assert retry.body == first.body
    assert api.summary(match_id)["version"] == after_first
    other = dict(move, tile="E" if move.get("tile") != "E" else "S")
    assert_problem(
        api.act(match_id, tokens[0], other, view["version"], Idempotency_Key="abc-1"), 422, "idempotency_key_reused"
    )
    assert api.summary(match_id)["version"] == after_first


def test_storage_fault_is_503(app, api, match, monkeypatch):
    from events import StorageUnavailable

    match_id, _, _ = match

    def broken(*args, **kwargs):
        raise StorageUnavailable("disk I/O error")

    monkeypatch.setattr(services(app).match.repo.store, "read", broken)
    services(app).match.repo.cache = type(services(app).match.repo.cache)(4)
    assert_problem(api.call("GET", f"/api/matches/{match_id}"), 503, "storage_unavailable")


def test_openapi_documents_every_status(client):
    spec = client.get("/api/openapi.json").get_json()
    assert spec["openapi"].startswith("3.")
    actions = spec["paths"]["/api/matches/{match_id}/actions"]["post"]["responses"]
    assert {"200", "400", "401", "403", "404", "409", "413", "422", "503"} <= set(actions)
    assert "ProblemSchema" in str(spec["components"]) or "Problem" in str(spec["components"])
    responses = spec["components"]["responses"]
    assert "application/problem+json" in responses["CONFLICT"]["content"]
    for path in (
        "/api/matches",
        "/api/matches/{match_id}/view",
        "/api/matches/{match_id}/events",
        "/api/matches/{match_id}/seats",
        "/api/matches/{match_id}/bots",
        "/api/score",
    ):
        assert path in spec["paths"]


def test_calculator_rejects_malformed_input_with_400(api):
    assert_problem(api.call("POST", "/api/score", {"variant": "koudiandian"}), 400, "invalid_body")
    bad_hand = {"variant": "hanshan", "seat": 0, "dealer": 0, "hand": "123x", "win_tile": "1m", "win_by": "self_draw"}
    assert_problem(api.call("POST", "/api/score", bad_hand), 400, "invalid_body")
