"""Export (ndjson/json/text), import and the byte-identical round trip, over HTTP and the CLI."""

from __future__ import annotations

import json

import pytest

from service.usecases import match_log as service_audit
from service.cli import main
from audit_support import finished_match, first, open_match, rehash, rows_of
from service.http.services import services


@pytest.fixture
def done(app):
    return finished_match(app, "koudiandian", {"hands": 2})


def test_round_trip_http_is_byte_identical(client, done):
    match_id, _ = done
    first_export = client.get(f"/api/matches/{match_id}/export?format=ndjson")
    assert first_export.status_code == 200 and first_export.mimetype == "application/x-ndjson"
    assert service_audit.verify_rows(rows_of(first_export.get_data(as_text=True))).ok
    imported = client.post("/api/matches/import", data=first_export.data, content_type="application/x-ndjson")
    assert imported.status_code == 201, imported.get_json()
    new_id = imported.get_json()["id"]
    assert new_id != match_id and imported.get_json()["verdict"].startswith("OK: 2 hands")
    assert imported.get_json()["match"]["status"] == "over"
    second_export = client.get(f"/api/matches/{new_id}/export?format=ndjson")
    assert second_export.data == first_export.data
    # ...and once more, from the import of the import
    again = client.post("/api/matches/import", data=second_export.data).get_json()["id"]
    assert client.get(f"/api/matches/{again}/export").data == first_export.data


def test_import_accepts_a_json_list(client, done):
    match_id, _ = done
    body = client.get(f"/api/matches/{match_id}/export").get_data(as_text=True)
    as_list = json.dumps([json.loads(line) for line in body.splitlines()])  # rows, then signed heads
    reply = client.post("/api/matches/import", data=as_list, content_type="application/json")
    assert reply.status_code == 201
    assert client.get(f"/api/matches/{reply.get_json()['id']}/export").get_data(as_text=True) == body


def test_round_trip_cli_is_byte_identical(tmp_path, app, done, capsys):
    match_id, _ = done
    db = app.config["DATABASE"]
    assert main(["export", match_id, "--db", db]) == 0
    exported = capsys.readouterr().out
    path = tmp_path / "match.ndjson"
    path.write_text(exported, encoding="utf-8")
    assert main(["verify", str(path)]) == 0
    capsys.readouterr()
    other_db = str(tmp_path / "other.db")
    assert main(["import", str(path), "--db", other_db]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("OK: 2 hands")
    assert main(["export", lines[1], "--db", other_db]) == 0
    assert capsys.readouterr().out == exported


def test_imported_match_is_read_only_and_replayable(client, app, done):
    match_id, _ = done
    body = client.get(f"/api/matches/{match_id}/export").data
    new_id = client.post("/api/matches/import", data=body).get_json()["id"]
    summary = client.get(f"/api/matches/{new_id}").get_json()
    assert summary["status"] == "over" and summary["seats"][0]["name"] == "<b>Alice</b> & co"
    assert client.post(f"/api/matches/{new_id}/seats", json={"name": "late"}).status_code == 409
    frames = client.get(f"/replay/{new_id}/frames.json").get_json()
    original = client.get(f"/replay/{match_id}/frames.json").get_json()
    assert frames["imported"] and frames["steps"] == original["steps"]
    record = service_audit.import_record(services(app).match.repo, new_id)
    rows = rows_of(body.decode())
    assert record["original_stream"] == f"match-{match_id}"
    assert record["original_head"] == {"version": rows[-1]["version"], "hash": rows[-1]["hash"]}


def test_export_formats(client, done):
    match_id, _ = done
    text = client.get(f"/api/matches/{match_id}/export?format=text")
    assert text.status_code == 200 and text.mimetype == "text/plain"
    log = text.get_data(as_text=True)
    assert "第1局" in log and "庄家 dealer: 座位0 (<b>Alice</b> & co)" in log and "打出 discards" in log
    assert "结算 settlement" in log and "终局 final scores" in log
    body = client.get(f"/api/matches/{match_id}/export?format=json").get_json()
    assert body["match"]["id"] == match_id and body["match"]["status"] == "over"
    ndjson_rows = rows_of(client.get(f"/api/matches/{match_id}/export").get_data(as_text=True))
    assert body["events"] == ndjson_rows
    assert list(ndjson_rows[0]) == ["stream", "version", "type", "schema_version", "payload", "recorded_at", "hash"]
    assert client.get(f"/api/matches/{match_id}/export?format=xml").status_code == 400


@pytest.mark.parametrize(
    ("variant", "options", "word"), [("koudiandian", {"wilds": True}, "耗子"), ("hanshan", {}, "配子")]
)
def test_the_text_export_names_the_wild_as_its_variant_does_K13_H2(app, client, variant, options, word):
    match_id, _ = finished_match(app, variant, {"hands": 1, **options})
    log = client.get(f"/api/matches/{match_id}/export?format=text").get_data(as_text=True)
    assert any(f"  {word} wild: " in line for line in log.splitlines() if "庄家 dealer" in line)


def test_export_refused_while_in_play(client, app):
    match_id, _ = open_match(app)
    reply = client.get(f"/api/matches/{match_id}/export")
    assert reply.status_code == 409 and reply.get_json()["code"] == "match_not_finished"
    assert client.get("/api/matches/nope/export").status_code == 404


def test_import_rejects_tampered_unfinished_and_junk(client, app, done):
    match_id, _ = done
    rows = rows_of(client.get(f"/api/matches/{match_id}/export").get_data(as_text=True))
    bad = [dict(r, payload=dict(r["payload"])) for r in rows]
    row = first(bad, "hand_ended")
    row["payload"]["scores"] = [s + 1 for s in row["payload"]["scores"]]
    reply = client.post("/api/matches/import", data=service_audit.to_ndjson(rehash(bad)))
    assert reply.status_code == 422
    assert reply.get_json()["detail"].startswith(f"FAIL at event {row['version']} (hand_ended)")
    unfinished = rows[:-3]
    reply = client.post("/api/matches/import", data=service_audit.to_ndjson(unfinished))
    assert reply.status_code == 422
    assert client.post("/api/matches/import", data="{not json").status_code == 400
    assert client.post("/api/matches/import", data="").status_code == 400


def test_import_size_limit(app, client, done):
    app.config["MAX_IMPORT_BYTES"] = 1000
    match_id, _ = done
    body = client.get(f"/api/matches/{match_id}/export").data
    assert client.post("/api/matches/import", data=body).status_code == 413
