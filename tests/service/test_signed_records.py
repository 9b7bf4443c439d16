"""Signed records: every hand end and match end signs the chain head with the server's Ed25519 key
(kept outside the database); `tilefold verify --key` proves a log came unchanged from that server,
and a re-chained forgery of any kind fails with the reason; key rotation keeps old matches
verifiable; an import says whether a key this server trusts signed the log."""

from __future__ import annotations

import json

import pytest

from audit_support import finished_match, rehash, rows_of, signatures_of
from service.cli import main
from service.usecases import match_log
from service.http.services import services


@pytest.fixture
def done(app):
    return finished_match(app, "koudiandian", {"hands": 2}, names=("Alice",))


def _export(client, match_id: str) -> str:
    reply = client.get(f"/api/matches/{match_id}/export?format=ndjson")
    assert reply.status_code == 200
    return reply.get_data(as_text=True)


def _keys(client) -> dict:
    return client.get("/api/keys").get_json()


def _write(tmp_path, name: str, rows: list[dict], signed: list[dict]) -> str:
    path = tmp_path / name
    lines = [match_log.row_line(r) for r in rows] + [match_log.signature_line(s) for s in signed]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def _verify(tmp_path, capsys, path: str, *keys: str) -> tuple[int, str]:
    args = ["verify", path]
    for key in keys:
        args += ["--key", key]
    code = main(args)
    return code, capsys.readouterr().out.strip()


def test_every_hand_end_and_the_match_end_sign_the_chain_head(client, done):
    """Given a finished match of 2 hands, then its export carries a signature at each hand end and
    the match end (the last covering the last row), by the key listed at GET /api/keys."""
    match_id, _ = done
    body = _export(client, match_id)
    rows, signed = rows_of(body), signatures_of(body)
    ends = [r["version"] for r in rows if r["type"] == "hand_ended"]
    assert [s["version"] for s in signed] == ends[:-1] + [rows[-1]["version"]]  # last hand + match end: one append
    by_version = {r["version"]: r["hash"] for r in rows}
    assert all(s["hash"] == by_version[s["version"]] for s in signed)
    keys = _keys(client)["keys"]
    assert len(keys) == 1 and keys[0]["current"] and keys[0]["algorithm"] == "Ed25519"
    assert {s["key_id"] for s in signed} == {keys[0]["id"]}
    json_export = client.get(f"/api/matches/{match_id}/export?format=json").get_json()
    assert json_export["signatures"] == signed


def test_the_key_lives_outside_the_database(app, done):
    """Given a finished match, then no private key material is in the database file."""
    database = open(app.config["DATABASE"], "rb").read() if not app.config["DATABASE"].startswith("postgres") else b""
    assert b"PRIVATE KEY" not in database
    assert services(app).match.repo.keyring.directory.exists()


def test_verify_with_the_key_proves_an_unchanged_log(tmp_path, capsys, client, done):
    match_id, _ = done
    body = _export(client, match_id)
    path = tmp_path / "log.ndjson"
    path.write_text(body, encoding="utf-8")
    keys_file = tmp_path / "keys.json"
    keys_file.write_text(json.dumps(_keys(client)), encoding="utf-8")
    code, out = _verify(tmp_path, capsys, str(path), str(keys_file))
    assert code == 0 and out.startswith("OK: 2 hands") and "every signature valid" in out, out
    raw = _keys(client)["keys"][0]["public_key"]  # the key as text works too
    assert _verify(tmp_path, capsys, str(path), raw)[0] == 0


def _forge(rows: list[dict], kind: str) -> list[dict]:
    rows = [dict(r, payload=json.loads(json.dumps(r["payload"]))) for r in rows]
    if kind == "name":
        joined = next(r for r in rows if r["type"] == "seat_joined" and not r["payload"]["bot"])
        joined["payload"]["name"] = "Mallory"
    elif kind == "timestamp":
        rows[5]["recorded_at"] = "2020-01-01T00:00:00.000000Z"
    elif kind == "discard":
        discard = next(r for r in rows if r["type"] == "discarded")
        discard["payload"]["tile"] = "1m" if discard["payload"]["tile"] != "1m" else "2m"
    elif kind == "score":
        ended = next(r for r in rows if r["type"] == "hand_ended")
        ended["payload"]["scores"] = [s + (30 if i == 0 else -10) for i, s in enumerate(ended["payload"]["scores"])]
    return rehash(rows)


@pytest.mark.parametrize("kind", ["name", "timestamp", "discard", "score"])
def test_a_rechained_forgery_fails_with_the_reason(tmp_path, capsys, client, done, kind):
    """Given a signed log, when a forger changes a name, a timestamp, a discard or a score and
    recomputes every hash (the chain is intact), then verify with the server's key fails: the log
    was changed after it was signed."""
    match_id, _ = done
    body = _export(client, match_id)
    forged = _forge(rows_of(body), kind)
    assert not match_log.verify_chain(forged)  # the chain alone cannot tell
    keys_file = tmp_path / "keys.json"
    keys_file.write_text(json.dumps(_keys(client)), encoding="utf-8")
    code, out = _verify(tmp_path, capsys, _write(tmp_path, "f.ndjson", forged, signatures_of(body)), str(keys_file))
    assert code == 1 and out.startswith("FAIL: signature: the log was changed after it was signed"), out


def test_stripped_resigned_or_broken_signatures_fail(tmp_path, capsys, client, done):
    """Given a signed log, then with the server's key: no signatures fails (unsigned), a signature
    by another key fails (not one of the keys given), a corrupted signature fails (not valid), and
    a log cut after its last signature... the rows after it are unsigned."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from service.infra.keys import Keyring

    match_id, _ = done
    body = _export(client, match_id)
    rows, signed = rows_of(body), signatures_of(body)
    key = _keys(client)["keys"][0]["public_key"]
    code, out = _verify(tmp_path, capsys, _write(tmp_path, "a.ndjson", rows, []), key)
    assert code == 1 and "carries no signature" in out, out
    other = Keyring(tmp_path / "forger-keys")
    resigned = [other.sign_head(s["stream"], s["version"], s["hash"], s["signed_at"]) for s in signed]
    code, out = _verify(tmp_path, capsys, _write(tmp_path, "b.ndjson", rows, resigned), key)
    assert code == 1 and "not one of the keys given" in out, out
    broken = [dict(s, value=signed[0]["value"]) for s in signed]  # the first signature under every head
    code, out = _verify(tmp_path, capsys, _write(tmp_path, "c.ndjson", rows, broken), key)
    assert code == 1 and "is not valid" in out, out
    assert Ed25519PrivateKey  # the library the keys come from
    extra = rows + rehash(rows + [dict(rows[-1], version=rows[-1]["version"] + 1)])[-1:]
    code, out = _verify(tmp_path, capsys, _write(tmp_path, "d.ndjson", extra, signed), key)
    assert code == 1 and "are not signed" in out, out


def test_key_rotation_keeps_old_matches_verifiable(tmp_path, capsys, app, client):
    """Given a match signed by the first key, when the key is rotated and another match is played,
    then both keys are listed (the new one current) and each match verifies against the list."""
    first_id, _ = finished_match(app, "koudiandian", {"hands": 1}, names=("Ann",))
    old_id = _keys(client)["keys"][0]["id"]
    new_id = services(app).match.repo.keyring.rotate()
    second_id, _ = finished_match(app, "hanshan", {"hands": 1}, names=("Bo",))
    listed = _keys(client)["keys"]
    assert [(k["id"], k["current"]) for k in listed] == [(new_id, True), (old_id, False)]
    keys_file = tmp_path / "keys.json"
    keys_file.write_text(json.dumps({"keys": listed}), encoding="utf-8")
    for match_id, signer in ((first_id, old_id), (second_id, new_id)):
        body = _export(client, match_id)
        assert {s["key_id"] for s in signatures_of(body)} == {signer}
        path = tmp_path / f"{match_id}.ndjson"
        path.write_text(body, encoding="utf-8")
        code, out = _verify(tmp_path, capsys, str(path), str(keys_file))
        assert code == 0, out


def test_import_says_whether_a_trusted_key_signed_the_log(tmp_path, client, done):
    """Given a signed export, then its import says it is signed by a key this server trusts; the
    same log without signatures imports as not signed by a trusted key; a log carrying this server's
    key id over a changed row is refused."""
    match_id, _ = done
    body = _export(client, match_id)
    signed_import = client.post("/api/matches/import", data=body).get_json()
    assert signed_import["signed_by_trusted_key"] is True, signed_import
    assert "a key this server trusts" in signed_import["verdict"]
    bare = "".join(match_log.row_line(r) + "\n" for r in rows_of(body))
    unsigned_import = client.post("/api/matches/import", data=bare).get_json()
    assert unsigned_import["signed_by_trusted_key"] is False
    assert "not signed by a key this server trusts" in unsigned_import["verdict"]
    forged = _forge(rows_of(body), "name")
    text = "".join(match_log.row_line(r) + "\n" for r in forged)
    text += "".join(match_log.signature_line(s) + "\n" for s in signatures_of(body))
    refused = client.post("/api/matches/import", data=text)
    assert refused.status_code == 422 and "changed after it was signed" in refused.get_json()["detail"]


def _open_keyring(directory: str, answers) -> None:
    from service.infra.keys import Keyring

    keyring = Keyring(directory)
    answers.put((keyring.secret("wall").hex(), keyring.current().key_id))


def test_workers_starting_at_once_agree_on_one_key(tmp_path):
    """Given four processes opening a new key directory at the same moment (gunicorn's workers on
    a first start), then they all get the same master secret and the same signing key."""
    import multiprocessing

    answers: multiprocessing.Queue = multiprocessing.Queue()
    workers = [multiprocessing.Process(target=_open_keyring, args=(str(tmp_path / "keys"), answers)) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(30)
    assert len({answers.get(timeout=5) for _ in workers}) == 1
    assert (tmp_path / "keys" / "master.key").stat().st_mode & 0o077 == 0  # the owner's only


@pytest.fixture
def served(app):
    """The app listening on 127.0.0.1 (a real socket: verify fetches GET /api/keys over HTTP)."""
    import threading

    from werkzeug.serving import make_server

    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()
    thread.join(5)


@pytest.mark.parametrize("kind", ["name", "timestamp", "discard", "score"])
def test_verify_with_the_server_s_key_url_or_a_pem_file(tmp_path, capsys, client, done, served, kind):
    """Given a signed export, then `tilefold verify --key <URL>` with the key fetched from the
    server's GET /api/keys (over HTTP, on 127.0.0.1), or with the key as a PEM file, says OK; and a
    re-chained forgery of each kind, a stripped and a re-signed log each fail with their reason."""
    from cryptography.hazmat.primitives import serialization

    from service.infra.keys import Keyring

    match_id, _ = done
    body = _export(client, match_id)
    path = tmp_path / "log.ndjson"
    path.write_text(body, encoding="utf-8")
    url = f"{served}/api/keys"
    code, out = _verify(tmp_path, capsys, str(path), url)
    assert code == 0 and "every signature valid" in out, out
    pem = tmp_path / "server.pem"
    public = services(client.application).match.repo.keyring.current().public
    pem.write_bytes(public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    assert _verify(tmp_path, capsys, str(path), str(pem))[0] == 0
    rows, signed = rows_of(body), signatures_of(body)
    forged = _write(tmp_path, "forged.ndjson", _forge(rows, kind), signed)
    code, out = _verify(tmp_path, capsys, forged, url)
    assert code == 1 and out.startswith("FAIL: signature: the log was changed after it was signed"), out
    code, out = _verify(tmp_path, capsys, _write(tmp_path, "bare.ndjson", rows, []), url)
    assert code == 1 and "carries no signature" in out, out
    forger, changed = Keyring(tmp_path / "forger-keys"), _forge(rows, kind)  # the forgery signed by its maker
    heads = {r["version"]: r["hash"] for r in changed}
    resigned = [forger.sign_head(s["stream"], s["version"], heads[s["version"]], s["signed_at"]) for s in signed]
    code, out = _verify(tmp_path, capsys, _write(tmp_path, "resigned.ndjson", changed, resigned), url)
    assert code == 1 and "not one of the keys given" in out, out
