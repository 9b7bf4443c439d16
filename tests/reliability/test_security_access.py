"""Access: tokens are checked per match and seat, compared in constant time, stored hashed, never logged."""

from __future__ import annotations

import glob
import logging
import random

import pytest

from test_security_input import PROBLEM, row_count


def refused(reply, status: int, code: str) -> None:
    assert reply.status == status, reply
    assert reply.headers["Content-Type"].startswith(PROBLEM) and reply.body["code"] == code, reply


@pytest.fixture
def two(api):
    """Two started matches of four humans each: (id, owner, tokens) twice."""
    return api.new_match("koudiandian", {"hands": 1}), api.new_match("hanshan", {"hands": 1})


def mover(api, match_id, tokens):
    """(token, legal action, version) of a seat that may act now."""
    for token in tokens:
        view = api.view(match_id, token).body
        if view["legal_actions"]:
            return token, view["legal_actions"][0], view["version"]
    raise AssertionError("nobody may act")


def test_every_wrong_token_is_refused_and_stores_nothing(app, api, two):
    (match_id, owner, tokens), (other_id, other_owner, other_tokens) = two
    path = f"/api/matches/{match_id}/actions"
    token, move, version = mover(api, match_id, tokens)
    before = row_count(app)
    refused(api.call("POST", path, move), 401, "missing_token")
    refused(api.call("POST", path, move, Authorization="Basic " + token), 401, "missing_token")
    refused(api.call("POST", path, move, Authorization="Bearer "), 401, "missing_token")
    refused(api.call("POST", path, move, token=token[:-1]), 403, "invalid_token")
    refused(api.call("POST", path, move, token=token + "x"), 403, "invalid_token")
    refused(
        api.call("POST", path, move, token=token.upper() if token != token.upper() else token.lower()),
        403,
        "invalid_token",
    )
    for foreign in other_tokens + [other_owner, owner]:  # another match's seats, the owner is no seat
        refused(api.call("POST", path, move, token=foreign), 403, "invalid_token")
        refused(api.view(match_id, foreign), 403, "invalid_token")
        refused(api.events(match_id, foreign), 403, "invalid_token")
    for seat_token in tokens + other_tokens + [other_owner]:  # seats are not the owner
        refused(api.call("POST", f"/api/matches/{match_id}/bots", {}, token=seat_token), 403, "not_owner")
    # another seat of the same match cannot act for the seat to move: the seat comes from the token
    for wrong in (t for t in tokens if t != token):
        reply = api.act(match_id, wrong, move, version)
        assert reply.status in (422, 409), reply
    assert row_count(app) == before


def test_owner_cannot_act_and_seat_cannot_fill_bots(api):
    match_id, owner = api.create("hanshan", {"hands": 1})
    seat = api.join(match_id, "alice")
    refused(api.call("POST", f"/api/matches/{match_id}/bots", {}, token=seat), 403, "not_owner")
    refused(api.act(match_id, owner, {"action": "pass"}), 403, "invalid_token")
    refused(api.view(match_id, owner), 403, "invalid_token")


def test_frames_of_a_match_in_play_need_the_owner(client, api, two):
    (match_id, owner, tokens), _ = two
    assert client.get(f"/replay/{match_id}/frames.json").status_code == 401
    assert client.get(f"/replay/{match_id}/frames.json?owner={tokens[0]}").status_code == 403
    assert client.get(f"/replay/{match_id}/frames.json?owner={owner}").status_code == 200


def test_idempotency_key_reused_with_another_body_or_by_another_seat(app, api, two):
    (match_id, _, tokens), (other_id, _, other_tokens) = two
    token, move, version = mover(api, match_id, tokens)
    first = api.act(match_id, token, move, version, Idempotency_Key="k-1")
    assert first.status == 200
    rows = row_count(app)
    refused(api.act(match_id, token, {"action": "pass"}, version, Idempotency_Key="k-1"), 422, "idempotency_key_reused")
    refused(api.act(match_id, token, move, version + 1, Idempotency_Key="k-1"), 422, "idempotency_key_reused")
    replay = api.act(match_id, token, move, version, Idempotency_Key="k-1")
    assert replay.status == 200 and replay.headers["Idempotent-Replayed"] == "true" and replay.body == first.body
    assert row_count(app) == rows
    # the same key from another seat or match is a different key (scoped), never the first answer
    other = [t for t in tokens if t != token][0]
    assert api.act(match_id, other, move, version, Idempotency_Key="k-1").headers.get("Idempotent-Replayed") != "true"
    assert (
        api.act(other_id, other_tokens[0], move, None, Idempotency_Key="k-1").headers.get("Idempotent-Replayed")
        != "true"
    )


def test_guessing_a_match_id_finds_nothing(api):
    """Ids are 16 url-safe characters (96 random bits): guesses are 404, and tokens guard the seats anyway."""
    match_id, _ = api.create()
    assert len(match_id) == 16
    rng = random.Random(3)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    for _ in range(200):
        guess = "".join(rng.choice(alphabet) for _ in range(16))
        refused(api.call("GET", f"/api/matches/{guess}"), 404, "match_not_found")
    near = match_id[:-1] + ("A" if match_id[-1] != "A" else "B")
    refused(api.call("GET", f"/api/matches/{near}"), 404, "match_not_found")


def test_tokens_are_compared_with_hmac_compare_digest(api, two, monkeypatch):
    from service.infra import tokens as verifiers

    (match_id, owner, tokens), _ = two
    calls = []
    real = verifiers.hmac.compare_digest

    def spy(a, b):
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(verifiers.hmac, "compare_digest", spy)
    assert api.view(match_id, tokens[2]).status == 200
    assert calls and all(len(a) == len(b) == 64 for a, b in calls)  # MACs, not raw tokens
    calls.clear()
    assert api.view(match_id, "forged").status == 403
    assert len(calls) == 5  # every row compared (four seats and the owner), no early exit
    calls.clear()
    assert api.call("POST", f"/api/matches/{match_id}/bots", {}, token="forged").status == 403
    assert calls


def issued_tokens(api, app) -> list[str]:
    match_id, owner = api.create("hanshan", {"hands": 1})
    tokens = [api.join(match_id, f"p{i}") for i in range(3)]
    api.bots(match_id, owner)
    api.play_randomly(match_id, tokens, random.Random(5))
    return [owner] + tokens


def test_tokens_are_stored_only_as_keyed_macs(app, api):
    """Given a played match, then its database files hold neither a token nor a token's SHA-256,
    only a MAC under a key from the key directory (service/infra/tokens.py)."""
    import hashlib

    from service.http.services import services
    from service.infra.tokens import OWNER, digest

    secrets = issued_tokens(api, app)
    files = sorted(glob.glob(app.config["DATABASE"] + "*"))  # the db, its -wal and -shm
    data = b"".join(open(path, "rb").read() for path in files)
    assert data, files
    for token in secrets:
        assert token.encode() not in data, "a raw token is in the database files"
        assert hashlib.sha256(token.encode()).hexdigest().encode() not in data, "a token hash is in the database"
    match_id = api.call("GET", "/api/matches").body["matches"][-1]["id"]
    tokens = services(app).match.tokens
    mac = tokens.verifier(f"match-{match_id}", OWNER, digest(secrets[0]))
    assert mac.encode() in data  # ... its keyed MAC is


def test_token_hashes_never_leave_the_service(app, api, client):
    secrets = issued_tokens(api, app)
    import hashlib

    hashes = [hashlib.sha256(t.encode()).hexdigest() for t in secrets]
    match_id = api.call("GET", "/api/matches").body["matches"][-1]["id"]
    paths = [
        f"/api/matches/{match_id}",
        f"/api/matches/{match_id}/events",
        "/api/matches",
        f"/replay/{match_id}/frames.json",
        f"/api/matches/{match_id}/export?format=text",
        f"/api/matches/{match_id}/export?format=json",
        f"/api/matches/{match_id}/export?format=ndjson",
    ]
    for path in paths:
        text = client.get(path).get_data(as_text=True)
        assert not [t for t in secrets if t in text], path
        leaked = [h for h in hashes if h in text]
        assert "token_hash" not in text and not leaked, path


def test_tokens_are_never_logged(app, api, caplog):
    caplog.set_level(logging.DEBUG)
    secrets = issued_tokens(api, app)
    match_id = api.call("GET", "/api/matches").body["matches"][-1]["id"]
    for token in secrets:  # errors log too: provoke some
        api.act(match_id, token, {"action": "discard", "tile": "1m"})
        api.call("POST", f"/api/matches/{match_id}/bots", {}, token=token)
    from service.infra.logs import RequestContext, _Text
    from pythonjsonlogger.json import JsonFormatter

    as_json, as_text, context = JsonFormatter(), _Text(), RequestContext()
    assert any(r.name == "tilefold.access" for r in caplog.records)  # the access log is among them
    lines = []
    for record in caplog.records:  # each line as written, with every field the access log adds
        context.filter(record)
        lines += [as_json.format(record), as_text.format(record), str(record.exc_text or "")]
    text = "\n".join(lines)
    for token in secrets:
        assert token not in text


def test_gunicorn_access_log_never_includes_authorization():
    from service.cli import gunicorn_app

    options = {
        "bind": "127.0.0.1:0",
        "workers": 1,
        "threads": 1,
        "worker_class": "gthread",
        "timeout": 5,
        "accesslog": None,
    }
    import sys

    argv, sys.argv = sys.argv, ["tilefold"]
    try:
        cfg = gunicorn_app(options).cfg
    finally:
        sys.argv = argv
    assert "authorization" not in cfg.access_log_format.lower()
    assert "{authorization}" not in str(cfg.access_log_format).lower()
