"""Tokens are checked against keyed MACs in `tf_tokens`, never against the events; `tilefold migrate`
moves the token hashes of older matches there (MAC'd) and seals webhook secrets registered before
sealing (service/infra/tokens.py, service/usecases/sealing.py; docs/STORE.md, "Tokens")."""

from __future__ import annotations

import base64
import hashlib
import json
import random

import pytest

from conftest import MatchClient, flask_transport
from engine.options import normalise
from events import MigrationNeeded, pg_schema, schema
from service.app import create_app
from service.cli import main
from service.http.services import services
from service.model import room as rooms
from service.usecases import match_log


def sha(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def dump(backend, leave_out: tuple = ()) -> str:
    """Every row of every table (but `leave_out`), as text (what a database dump shows)."""
    if backend.name == "sqlite":
        tables = [row[0] for row in backend.sql("SELECT name FROM sqlite_master WHERE type = 'table'")]
    else:
        tables = [
            row[0]
            for row in backend.sql(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
            )
        ]
    assert "tf_tokens" in tables and "tf_webhooks" in tables and "events" in tables
    shown = sorted(set(tables) - set(leave_out))
    return "\n".join(f"{table}: {backend.sql(f'SELECT * FROM {table}')!r}" for table in shown)


def spellings(secret: str) -> list[str]:
    """A secret as a dump could show it: itself, hex or base64 of its text, base64 of its bytes."""
    raw = bytes.fromhex(secret)
    return [
        secret,
        secret.encode().hex(),
        base64.b64encode(secret.encode()).decode(),
        base64.b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode().rstrip("="),
    ]


def test_a_new_match_puts_no_token_hash_in_any_event(api, app):
    """Given a match created, joined, re-invited and played out, then no event carries a token hash
    (field or value), and each token is checked by its row in tf_tokens."""
    match_id, owner = api.create("koudiandian", {"hands": 1})
    tokens = [api.join(match_id, f"p{i}") for i in range(3)]
    fresh = api.call("POST", f"/api/matches/{match_id}/seats/1/invite", {}, token=owner).body["token"]
    api.bots(match_id, owner)
    stored = services(app).match.repo.store.read(f"match-{match_id}")
    text = json.dumps([e.payload for e in stored])
    assert "token_hash" not in text
    assert not [t for t in [owner, fresh, *tokens] if sha(t) in text or t in text]
    assert api.view(match_id, tokens[1]).status == 403  # the re-invited seat's old token stopped working
    assert api.view(match_id, fresh).body["seat"] == 1 and api.view(match_id, tokens[2]).body["seat"] == 2


def test_migrate_moves_older_token_hashes_out_of_reach_and_seals_older_webhook_secrets(
    backend, tmp_path, monkeypatch, capsys
):
    """Given a database from before tf_tokens (a match whose events carry its token hashes, one seat
    re-invited, and a webhook secret stored in plain text), then a node refuses to start until
    `tilefold migrate`; after it, the old tokens work (the re-invited seat's newest only), the owner
    can fill the match with bots, no table holds the webhook secret in any spelling nor a token hash
    outside the events, notices are still signed with the seat's secret, and the match's events and
    export still carry the legacy hashes (immutable, hash-chained: docs/STORE.md, "Tokens")."""
    monkeypatch.setenv("TILEFOLD_KEYS", str(tmp_path / "keys"))
    settings = {"DATABASE": backend.target, "TESTING": True, "WEBHOOK_WORKER": False}
    old = services(create_app(settings)).match
    match_id, stream = "older-match", "match-older-match"
    owner, first, second, second_again = (rooms.new_token() for _ in range(4))
    created = {"type": rooms.MATCH_CREATED, "variant": "koudiandian", "options": normalise("koudiandian", {"hands": 1})}
    old.repo.append(match_id, 0, [{**created, "owner_token_hash": sha(owner)}])
    joined = [
        {"type": rooms.SEAT_JOINED, "seat": 0, "name": "Ann", "bot": False, "token_hash": sha(first)},
        {"type": rooms.SEAT_JOINED, "seat": 1, "name": "Bo", "bot": False, "token_hash": sha(second)},
        {"type": rooms.SEAT_REISSUED, "seat": 1, "token_hash": sha(second_again)},
    ]
    old.repo.append(match_id, 1, joined)
    secret = "ab" * 32
    old.repo.store.write(
        lambda conn: conn.execute(
            "INSERT INTO tf_webhooks (stream, seat, url, secret, created_at) VALUES (?, ?, ?, ?, ?)",
            [stream, 0, "https://example.org/hook", secret, "2026-01-01T00:00:00.000000Z"],
        )
    )
    latest = (pg_schema if backend.name == "postgresql" else schema).LATEST
    token_migration = next(
        m.version for m in (pg_schema if backend.name == "postgresql" else schema).MIGRATIONS if m.step
    )
    backend.script(["DROP TABLE tf_tokens", f"DELETE FROM schema_version WHERE version >= {token_migration}"])
    with pytest.raises(MigrationNeeded, match="tilefold migrate"):
        create_app(settings)

    assert main(["migrate", "--db", backend.target]) == 0, capsys.readouterr().err
    assert json.loads(capsys.readouterr().out)["schema_version"] == latest

    node = create_app(settings)
    api = MatchClient(flask_transport(node.test_client()))
    assert api.view(match_id, first).body["seat"] == 0
    assert api.view(match_id, second).status == 403  # re-invited before the migration: only the newest works
    assert api.view(match_id, second_again).body["seat"] == 1
    assert api.call("POST", f"/api/matches/{match_id}/bots", {}, token=first).status == 403
    assert api.call("POST", f"/api/matches/{match_id}/bots", {}, token=owner).status == 200

    table_dump = dump(backend)
    for spelling in spellings(secret):
        assert spelling not in table_dump, spelling
    beside_events = dump(backend, leave_out=("events",))
    for token in (owner, first, second, second_again):
        assert token not in table_dump and sha(token) not in beside_events
    verifiers = [row[0] for row in backend.sql("SELECT verifier FROM tf_tokens")]
    assert len(verifiers) == 3 and not {sha(t) for t in (owner, first, second_again)} & set(verifiers)
    assert services(node).match.webhooks.get(stream, 0)["secret"] == secret  # still signs with it
    [(sealed,)] = backend.sql("SELECT secret FROM tf_webhooks")
    assert sealed.startswith("sealed:v1:")
    legacy = json.dumps([e.payload for e in services(node).match.repo.store.read(stream)])
    assert sha(first) in legacy  # the old match's events keep what they carried (say so: docs/STORE.md)


def test_migrate_leaves_an_imported_match_without_token_holders(backend, tmp_path, monkeypatch):
    """Given an older log imported (its events carry the original server's token hashes), then the
    migration gives its seats no verifier: the original tokens hold nothing in the copy."""
    from events import NewEvent
    from service.usecases.sealing import legacy_token_hashes

    monkeypatch.setenv("TILEFOLD_KEYS", str(tmp_path / "keys"))
    old = services(create_app({"DATABASE": backend.target, "TESTING": True})).match
    options = normalise("koudiandian", {"hands": 1})
    for match_id, digest in (("own", "1" * 64), ("copy", "2" * 64)):
        created = {"type": rooms.MATCH_CREATED, "variant": "koudiandian", "options": options}
        old.repo.append(match_id, 0, [{**created, "owner_token_hash": digest}])
    old.repo.store.append(match_log.IMPORT_PREFIX + "copy", 0, [NewEvent("imported", {})])
    assert old.repo.store.write(legacy_token_hashes) == {("match-own", -1): "1" * 64}


def test_a_dump_of_every_table_shows_no_token_no_token_hash_and_no_webhook_secret(backend, tmp_path, monkeypatch):
    """Given matches made, joined, re-invited, with a webhook registered and played to the end, on
    either backend, then a dump of every table holds no token, no token's SHA-256 and no webhook
    secret in any spelling (hex or base64 of its text or bytes), and neither does any export."""
    monkeypatch.setenv("TILEFOLD_KEYS", str(tmp_path / "keys"))
    app = create_app({"DATABASE": backend.target, "TESTING": True, "WEBHOOK_WORKER": False})
    api = MatchClient(flask_transport(app.test_client()))
    match_id, owner = api.create("koudiandian", {"hands": 1})
    tokens = [api.join(match_id, f"p{i}") for i in range(2)]
    tokens.append(api.call("POST", f"/api/matches/{match_id}/seats/1/invite", {}, token=owner).body["token"])
    hook = api.call("PUT", f"/api/matches/{match_id}/webhook", {"url": "https://example.org/h"}, token=tokens[0])
    secret = hook.body["secret"]
    api.bots(match_id, owner)
    api.play_randomly(match_id, [tokens[0], tokens[2]], random.Random(27))
    client = app.test_client()
    exports = [
        client.get(f"/api/matches/{match_id}/export?format={f}").get_data(as_text=True)
        for f in ("ndjson", "json", "text")
    ]
    assert "match_ended" in exports[0], "seed 27: the match did not end"
    everything = dump(backend) + "".join(exports)
    for token in (owner, *tokens):
        assert token not in everything and sha(token) not in everything
    for spelling in spellings(secret):
        assert spelling not in everything, spelling


def test_a_worker_reads_a_match_s_verifiers_again_only_after_a_token_is_handed_out(api, app, monkeypatch):
    """Given a match with a seat, when the seat's token is checked many times, then tf_tokens is read
    once; when the owner re-invites the seat, it is read again and the old token is refused."""
    tokens = services(app).match.tokens
    reads = []
    real = tokens.store.query

    def counted(sql, params=()):
        if "tf_tokens" in sql:
            reads.append(sql)
        return real(sql, params)

    monkeypatch.setattr(tokens.store, "query", counted)
    match_id, owner = api.create("koudiandian", {"hands": 1})
    token = api.join(match_id, "Ann")
    for _ in range(5):
        assert api.view(match_id, token).body["seat"] == 0
    assert len(reads) == 1, reads
    fresh = api.call("POST", f"/api/matches/{match_id}/seats/0/invite", {}, token=owner).body["token"]
    assert api.view(match_id, token).status == 403 and api.view(match_id, fresh).body["seat"] == 0
    assert len(reads) == 2, reads  # the owner was checked on the rows already read; after the re-invite, read again
