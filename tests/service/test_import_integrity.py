"""Import and audit integrity: malformed service events, unverified deals, read-only imports,
rows edited inside the database file."""

from __future__ import annotations

import json
import logging
import shutil
import sqlite3

import pytest

import engine
from conftest import new_app, on_postgresql
from service.app import create_app
from service.usecases import match_log as service_audit
from service.cli import main
from audit_support import first, rehash, rows_of, seeded_walls
from service.http.services import services

DATABASE = "tilefold.db"  # the file name conftest's `app` uses, and its key directory's (.tilefold.db.keys)


def played(app, variant="koudiandian", options=None):
    """A finished match with one human (played by the bot): (id, owner token, seat token). The same
    match every run: joint walls whose server chain comes from a label (logged), so that what a test
    reads in it (its 20th row, its first discard) never hangs on a random deal."""
    svc = services(app).match
    with pytest.MonkeyPatch.context() as monkeypatch:
        seeded_walls(monkeypatch, f"played/{variant}/{json.dumps(options, sort_keys=True)}")
        match_id, owner, _ = svc.create(variant, options or {"hands": 1})
        seat, token, _ = svc.join(match_id, "Alice")
        svc.add_bots(match_id, owner, None)
        for _ in range(50_000):
            loaded = svc.repo.load(match_id)
            if loaded.over:
                return match_id, owner, token
            svc.act(match_id, seat, engine.bot_action(loaded.state, seat), None)
    raise AssertionError("the match did not end")


@pytest.fixture(scope="session")
def played_once(tmp_path_factory):
    """One match `played` to the end once per worker, kept as its database file and key directory
    (the keys open its tokens and seals): (that folder, what `played` returned)."""
    folder = tmp_path_factory.mktemp("played-once")
    app = create_app({"DATABASE": str(folder / DATABASE), "TESTING": True})
    done = played(app)
    services(app).match.repo.store.close()
    return folder, done


def _copies_played_once(request) -> bool:
    return "done" in request.fixturenames and not on_postgresql()


@pytest.fixture
def app(request, tmp_path):
    """conftest's `app`; for a test given a finished match (`done`), an app of its own on a copy of
    `played_once`'s database and keys (copying a file is cheaper than playing a match)."""
    if not _copies_played_once(request):
        yield from new_app(tmp_path)
        return
    folder, _ = request.getfixturevalue("played_once")
    source, target = sqlite3.connect(folder / DATABASE), sqlite3.connect(tmp_path / DATABASE)
    with source, target:
        source.backup(target)  # the whole database as committed (the played app's store is closed)
    source.close()
    target.close()
    shutil.copytree(folder / f".{DATABASE}.keys", tmp_path / f".{DATABASE}.keys")
    yield create_app({"DATABASE": str(tmp_path / DATABASE), "TESTING": True})


@pytest.fixture
def done(request, app):
    """A finished match with one human (played by the bot): (id, owner token, seat token)."""
    return request.getfixturevalue("played_once")[1] if _copies_played_once(request) else played(app)


def exported(client, match_id) -> list[dict]:
    return rows_of(client.get(f"/api/matches/{match_id}/export").get_data(as_text=True))


def import_(client, rows) -> tuple[int, dict]:
    reply = client.post("/api/matches/import", data=service_audit.to_ndjson(rehash(rows)))
    return reply.status_code, reply.get_json()


def edited(rows, type_, change, when=lambda p: True):
    out = [dict(r, payload=dict(r["payload"])) for r in rows]
    change(first(out, type_, when))
    return out


MALFORMED = {
    "seat 7": ("seat_joined", lambda r: r["payload"].update(seat=7)),
    "3 MiB name": ("seat_joined", lambda r: r["payload"].update(name="x" * (3 << 20))),
    "payload not an object": ("seat_joined", lambda r: r.update(payload=[1, 2])),
    "unknown field": ("seat_joined", lambda r: r["payload"].update(admin=True)),
    "bot as a string": ("seat_joined", lambda r: r["payload"].update(bot="yes")),
    "seat out of join order": ("seat_joined", lambda r: r["payload"].update(seat=2)),
    "bad variant": ("match_created", lambda r: r["payload"].update(variant="riichi")),
    "unnormalised options": ("match_created", lambda r: r["payload"].update(options={"hands": 1})),
    "unknown type": ("seat_joined", lambda r: r.update(type="seat_stolen")),
    "spectating not a bool": ("seat_joined", lambda r: r.update(type="spectating_set", payload={"enabled": 1})),
    "reissued for an empty seat": (
        "seat_joined",
        lambda r: r.update(type="seat_reissued", payload={"seat": 0, "token_hash": "a" * 64}),
    ),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_service_events_are_refused_with_422_and_nothing_is_stored(app, client, done, case):
    """The live endpoints' schemas on import; before the fix some gave 500 and broke the list."""
    app.config["MAX_IMPORT_BYTES"] = 8 << 20
    match_id, _, _ = done
    type_, change = MALFORMED[case]
    before = services(app).match.repo.store.streams()
    status, body = import_(client, edited(exported(client, match_id), type_, change))
    assert status == 422, body
    assert body["code"] == "log_rejected" and body["type"] and body["title"]
    assert services(app).match.repo.store.streams() == before
    listing = client.get("/api/matches")
    assert listing.status_code == 200 and len(listing.get_json()["matches"]) == 1


def test_a_preset_deal_does_not_pass_verify_as_fair_and_is_refused_on_import(app, client, done, tmp_path, capsys):
    """G-11: a hand without a revealed seed (a preset deal) proves nothing about the shuffle."""
    match_id, _, _ = done
    rows = exported(client, match_id)
    started = first(rows, "hand_started")
    preset = edited(rows, "hand_started", lambda r: r["payload"].update(seed=None, commitment=""))
    first(preset, "hand_started")["payload"].pop("wall_parts", None)  # a preset deal has no wall parts
    ended = first(preset, "hand_ended")
    ended["payload"].update(seed=None, commitment="")
    ended["payload"].pop("wall_parts", None)
    verdict = service_audit.verify_rows(rehash(preset))
    assert verdict.consistent and not verdict.ok, verdict.text()
    assert verdict.text().startswith("UNVERIFIED DEAL: hand(s) 1")
    path = tmp_path / "preset.ndjson"
    path.write_text(service_audit.to_ndjson(rehash(preset)), encoding="utf-8")
    assert main(["verify", str(path)]) == 1
    assert "UNVERIFIED DEAL" in capsys.readouterr().out
    status, body = import_(client, preset)
    assert status == 422 and body["code"] == "unverified_deal", body
    assert started["payload"]["seed"]  # the real log verifies
    assert service_audit.verify_rows(rows).ok


def test_an_imported_match_is_read_only_and_its_stream_stays_byte_identical(app, client, done):
    """Joins, bots, actions, orders, webhooks, spectating on an imported match: 409 match_over, or
    403 for the original match's tokens, which hold no seat here."""
    match_id, owner, token = done
    body = client.get(f"/api/matches/{match_id}/export").data
    new_id = client.post("/api/matches/import", data=body).get_json()["id"]
    seat_auth = {"Authorization": f"Bearer {token}"}
    owner_auth = {"Authorization": f"Bearer {owner}"}
    tries = [
        ("POST", "seats", {"name": "late"}, {}),
        ("POST", "bots", {}, owner_auth),
        ("POST", "actions", {"action": "pass"}, seat_auth),
        ("PUT", "orders", {"auto_pass": True}, seat_auth),
        ("PUT", "webhook", {"url": "https://example.com/hook"}, seat_auth),
        ("DELETE", "webhook", None, seat_auth),
        ("PUT", "spectating", {"enabled": False}, owner_auth),
    ]
    for method, path, payload, headers in tries:
        reply = client.open(f"/api/matches/{new_id}/{path}", method=method, json=payload, headers=headers)
        answer = (reply.status_code, reply.get_json()["code"])
        # the log's tokens open nothing in the imported copy (no verifier is imported: they are the
        # original server's): a call needing a token is refused as 403, any other finds the match over
        assert answer == (
            (403, "not_owner") if headers is owner_auth else (403, "invalid_token") if headers else (409, "match_over")
        ), (path, reply.get_json())
    assert client.get(f"/api/matches/{new_id}/export").data == body


def _edit_row_in_file(db: str, stream: str, version: int, change) -> None:
    """What an attacker with the database file does: drop the guard triggers, edit, restore them."""
    conn = sqlite3.connect(db)
    triggers = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").fetchall()
    for name, _ in triggers:
        conn.execute(f'DROP TRIGGER "{name}"')
    payload = json.loads(
        conn.execute("SELECT payload FROM events WHERE stream = ? AND version = ?", [stream, version]).fetchone()[0]
    )
    change(payload)
    conn.execute(
        "UPDATE events SET payload = ? WHERE stream = ? AND version = ?",
        [json.dumps(payload, sort_keys=True, separators=(",", ":")), stream, version],
    )
    for _, sql in triggers:
        conn.execute(sql)
    conn.commit()
    conn.close()


def test_a_row_edited_inside_the_database_file_is_noticed_on_load(app, tmp_path, caplog):
    """A fresh process loading the match checks each row's hash against the chain → 503."""
    from service.app import create_app

    match_id, _, _ = played(app)
    db = app.config["DATABASE"]
    stored = services(app).match.repo.store.read(f"match-{match_id}")
    ended = next(e for e in stored if e.type == "hand_ended")
    _edit_row_in_file(
        db, f"match-{match_id}", ended.version, lambda p: p.update(scores=[p["scores"][0] + 100] + p["scores"][1:])
    )
    fresh = create_app({"DATABASE": db, "TESTING": True}).test_client()
    with caplog.at_level(logging.ERROR):
        summary = fresh.get(f"/api/matches/{match_id}")
        feed = fresh.get(f"/api/matches/{match_id}/events")
    # The summary folds from the snapshot taken before the edit: never the forged scores.
    assert summary.status_code == 503 or summary.get_json()["scores"] == ended.payload["scores"]
    assert feed.status_code == 503 and feed.get_json()["code"] == "integrity_error"  # the forged row is never served
    assert any("hash chain" in r.getMessage() for r in caplog.records)
    _drop_snapshots(db)  # without a snapshot the load itself folds the edited row: refused
    again = create_app({"DATABASE": db, "TESTING": True}).test_client().get(f"/api/matches/{match_id}")
    assert again.status_code == 503 and again.get_json()["code"] == "integrity_error"


def _edit_snapshot_in_file(db: str, stream: str, change) -> int:
    """The attacker again, on the snapshot a cold load reads (the stream's latest in the current
    format): triggers dropped, `change(conn, version, data)` run, triggers restored; its version."""
    from service.infra import snapshots

    conn = sqlite3.connect(db)
    triggers = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").fetchall()
    for name, _ in triggers:
        conn.execute(f'DROP TRIGGER "{name}"')
    version, data = conn.execute(
        "SELECT version, data FROM snapshots WHERE stream = ? AND key = ? ORDER BY version DESC LIMIT 1",
        [stream, snapshots.format_key()],
    ).fetchone()
    change(conn, version, bytes(data))
    for _, sql in triggers:
        conn.execute(sql)
    conn.commit()
    conn.close()
    return version


def _richer(data: bytes) -> bytes:
    """The snapshot's state with seat 0 100 points richer: a forged state in the genuine format."""
    from service.infra import snapshots

    state, room, numbering = snapshots.decode(data)
    state.scores = [state.scores[0] + 100] + state.scores[1:]
    return snapshots.encode(state, room, numbering)


def _cold_get_refused(db: str, match_id: str, caplog) -> None:
    """A fresh process (nothing cached) asked for the match: 503 integrity_error and a logged error."""
    from service.app import create_app

    fresh = create_app({"DATABASE": db, "TESTING": True}).test_client()
    with caplog.at_level(logging.ERROR):
        summary = fresh.get(f"/api/matches/{match_id}")
        feed = fresh.get(f"/api/matches/{match_id}/events")
    for reply in (summary, feed):
        assert reply.status_code == 503 and reply.get_json()["code"] == "integrity_error", reply.get_json()
    assert any(r.levelno == logging.ERROR and "snapshot" in r.getMessage() for r in caplog.records)


def test_a_snapshot_blob_edited_inside_the_database_file_is_refused_on_load(app, caplog):
    """Given a finished match, when its latest snapshot's bytes are replaced by a forged state
    (seat 0 100 points richer) inside the database file, then a cold load answers 503 with a logged
    error, never the forged scores; without the snapshot the genuine events are served again."""
    match_id, _, _ = played(app)
    db, stream = app.config["DATABASE"], f"match-{match_id}"
    genuine = services(app).match.repo.load(match_id).state.scores
    _edit_snapshot_in_file(
        db,
        stream,
        lambda conn, v, data: conn.execute(
            "UPDATE snapshots SET data = ? WHERE stream = ? AND version = ?", [_richer(data), stream, v]
        ),
    )
    _cold_get_refused(db, match_id, caplog)
    _drop_snapshots(db)  # the operator's way out: snapshots are derived, the events refold
    from service.app import create_app

    again = create_app({"DATABASE": db, "TESTING": True}).test_client().get(f"/api/matches/{match_id}")
    assert again.status_code == 200 and again.get_json()["scores"] == genuine


@pytest.mark.parametrize("edit", ["version", "chain_hash", "seal"])
def test_a_snapshot_version_or_hash_edited_inside_the_database_file_is_refused_on_load(app, caplog, edit):
    """The snapshot's version moved (it would stand for another point of the match), its
    chain hash or its seal changed: each no longer matches the chain or its seal: 503, logged."""
    match_id, _, _ = played(app)
    db, stream = app.config["DATABASE"], f"match-{match_id}"
    flip = "CASE WHEN substr({0}, 1, 1) = 'f' THEN 'e' ELSE 'f' END || substr({0}, 2)"  # one hex digit changed
    changes = {
        "version": "UPDATE snapshots SET version = version - 1 WHERE stream = ? AND version = ?",
        "chain_hash": f"UPDATE snapshots SET chain_hash = {flip.format('chain_hash')} WHERE stream = ? AND version = ?",
        "seal": f"UPDATE snapshots SET seal = {flip.format('seal')} WHERE stream = ? AND version = ?",
    }
    _edit_snapshot_in_file(db, stream, lambda conn, v, data: conn.execute(changes[edit], [stream, v]))
    _cold_get_refused(db, match_id, caplog)


def test_a_resealed_snapshot_pickle_naming_any_other_global_is_refused_unrun(app, caplog, tmp_path):
    """An attacker who also recomputes the seal (it is not keyed) and stores a pickle that
    would run a command is still refused: only the state's own classes may be unpickled; nothing runs."""
    import os
    import pickle

    from events.chain import snapshot_seal
    from service.infra import snapshots

    match_id, _, _ = played(app)
    db, stream = app.config["DATABASE"], f"match-{match_id}"
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    evil = pickle.dumps(Payload())

    def reseal(conn, version, data):
        chain = conn.execute("SELECT hash FROM events WHERE stream = ? AND version = ?", [stream, version]).fetchone()[
            0
        ]
        seal = snapshot_seal(stream, version, snapshots.format_key(), chain, evil)
        conn.execute(
            "UPDATE snapshots SET data = ?, seal = ? WHERE stream = ? AND version = ?", [evil, seal, stream, version]
        )

    _edit_snapshot_in_file(db, stream, reseal)
    _cold_get_refused(db, match_id, caplog)
    assert not marker.exists(), "the forged pickle ran"


def _drop_snapshots(db) -> None:
    conn = sqlite3.connect(db)
    conn.execute("DELETE FROM snapshots")
    conn.commit()
    conn.close()


def test_a_row_deleted_inside_the_database_file_is_noticed_on_load(app):
    """The same with a row removed from the middle (a gap) — the chain check names the missing version."""
    from service.app import create_app

    match_id, _, _ = played(app)
    db = app.config["DATABASE"]
    conn = sqlite3.connect(db)
    triggers = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").fetchall()
    for name, _ in triggers:
        conn.execute(f'DROP TRIGGER "{name}"')
    conn.execute("DELETE FROM events WHERE stream = ? AND version = 20", [f"match-{match_id}"])
    for _, sql in triggers:
        conn.execute(sql)
    conn.commit()
    conn.close()
    store = services(app).match.repo.store
    assert store.chain_problem(f"match-{match_id}").startswith("v20: missing")
    fresh = create_app({"DATABASE": db, "TESTING": True}).test_client()
    assert fresh.get(f"/api/matches/{match_id}/events").status_code == 503
    _drop_snapshots(db)
    assert (
        create_app({"DATABASE": db, "TESTING": True}).test_client().get(f"/api/matches/{match_id}").status_code == 503
    )


@pytest.mark.parametrize("payload,status", [({"window": "ting"}, 201), ({"window": "claim"}, 422), ({}, 422)])
def test_a_window_closed_service_event_imports_only_in_its_live_shape(app, client, done, payload, status):
    """Per-viewer versions: given an exported finished match with a `window_closed` row
    (what the service appends when the H-4 报听 window closes) after its first deal, when it is
    imported, then `{"window": "ting"}` verifies and is stored, any other payload is 422 and nothing
    is stored."""
    match_id, _, _ = done
    rows = exported(client, match_id)
    at = next(i for i, r in enumerate(rows) if r["type"] == "hand_started") + 1
    marker = dict(rows[at], type="window_closed", payload=payload)
    rows = [dict(r, version=n) for n, r in enumerate(rows[:at] + [marker] + rows[at:], start=1)]
    before = services(app).match.repo.store.streams()
    got, body = import_(client, rows)
    assert got == status, body
    if status == 422:
        assert body["code"] == "log_rejected" and services(app).match.repo.store.streams() == before


def test_an_edited_row_is_never_served_by_export_feed_view_replay_or_summary(app, capsys):
    """Given a finished match whose discard row was edited inside the database file (triggers dropped
    and restored), when a fresh process is asked for it through every read, then none serves the
    forged tile: export (every format), the feeds and the replay frames answer 503 integrity_error,
    and a seat's view and the summary either do too or fold from a snapshot taken before the edit
    (never the forged row); a warm worker, which read and cached the match before the edit, checks
    every row it hands out as it reads it and refuses alike; and `tilefold export` exits non-zero
    naming the edited row."""
    from service.app import create_app

    match_id, _, token = played(app)
    db = app.config["DATABASE"]
    stored = services(app).match.repo.store.read(f"match-{match_id}")
    discard = next(e for e in stored if e.type == "discarded")
    forged = "FORGED"
    _edit_row_in_file(db, f"match-{match_id}", discard.version, lambda p: p.update(tile=forged))

    for warm in (False, True):
        client = app.test_client() if warm else create_app({"DATABASE": db, "TESTING": True}).test_client()
        refused = [f"/api/matches/{match_id}/export?format={fmt}" for fmt in ("ndjson", "json", "text")]
        refused += [f"/api/matches/{match_id}/{feed}" for feed in ("events", "spectate/events")]
        refused += [f"/replay/{match_id}/frames.json"]
        for path in refused:
            reply = client.get(path)
            assert reply.status_code == 503, (warm, path, reply.status_code)
            assert reply.get_json()["code"] == "integrity_error", (warm, path)
        for path in (f"/api/matches/{match_id}", f"/api/matches/{match_id}/view"):
            reply = client.get(path, headers={"Authorization": f"Bearer {token}"})
            assert reply.status_code in (200, 503), (warm, path, reply.status_code)
            assert forged not in reply.get_data(as_text=True), (warm, path)

    code = main(["export", match_id, "--db", db])
    err = capsys.readouterr()
    assert code != 0 and forged not in err.out
    assert f"v{discard.version}" in err.err and "hash chain" in err.err, err.err


def _add_row_in_file(db: str, stream: str, type_: str, payload: dict) -> int:
    """What an attacker with the database file does to a live match: drop the guard triggers, add a
    row after the head (its hash made up: it does not chain), restore the triggers. Its version."""
    conn = sqlite3.connect(db)
    triggers = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").fetchall()
    for name, _ in triggers:
        conn.execute(f'DROP TRIGGER "{name}"')
    version, recorded_at = conn.execute(
        "SELECT version, recorded_at FROM events WHERE stream = ? ORDER BY version DESC LIMIT 1", [stream]
    ).fetchone()
    conn.execute(
        "INSERT INTO events (stream, version, type, schema_version, payload, recorded_at, hash) "
        "VALUES (?, ?, ?, 1, ?, ?, ?)",
        [stream, version + 1, type_, json.dumps(payload, separators=(",", ":")), recorded_at, "0" * 64],
    )
    for _, sql in triggers:
        conn.execute(sql)
    conn.commit()
    conn.close()
    return version + 1


def test_a_row_added_inside_the_database_file_is_never_folded_into_a_cached_match(app):
    """Given a match in play that this worker has cached (its summary answered), when a row is added
    after its head inside the database file (a `spectating_set` turning the public table off, whose
    hash does not chain), then the worker's next read of the match refuses it (503 integrity_error)
    instead of folding it into the cached state and answering from it."""
    svc = services(app).match
    match_id, owner, _ = svc.create("koudiandian", {"hands": 1})
    svc.join(match_id, "Alice")
    svc.add_bots(match_id, owner, None)
    client = app.test_client()
    before = client.get(f"/api/matches/{match_id}")
    assert before.status_code == 200 and before.get_json()["table"] is not None
    _add_row_in_file(app.config["DATABASE"], f"match-{match_id}", "spectating_set", {"enabled": False})
    for path in (f"/api/matches/{match_id}", f"/api/matches/{match_id}/spectate"):
        reply = client.get(path)
        assert reply.status_code == 503 and reply.get_json()["code"] == "integrity_error", (path, reply.get_json())
