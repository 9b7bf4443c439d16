"""Old logs keep working: golden match logs of every rules version (tests/service/golden/, written by
its make_logs.py) verify, fold and replay as they did when written, and import then export
byte-identically. A rules fix that changed how a stored match folds, verifies or replays fails here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from audit_support import rows_of
from golden_digests import digests

import engine
from engine.audit import ENGINE_EVENT_TYPES
from service.usecases import match_log

GOLDEN = Path(__file__).resolve().parent / "golden"
LOGS = sorted(path.name for path in GOLDEN.glob("*.ndjson"))
EXPECTED = json.loads((GOLDEN / "digests.json").read_text(encoding="utf-8"))


def test_there_is_a_golden_log_of_every_rules_version_and_variant():
    wanted = {
        f"{variant}-rules{version}.ndjson"
        for variant in engine.variants.names()
        for version in range(engine.versions.OLDEST_RULES_VERSION, engine.RULES_VERSION + 1)
    }
    assert wanted <= set(LOGS) and set(LOGS) == set(EXPECTED)


@pytest.mark.parametrize("log", LOGS)
def test_a_golden_log_verifies_folds_and_replays_as_when_written(log):
    # given a match log written by an earlier engine, under the rules version its name says
    rows = rows_of((GOLDEN / log).read_text(encoding="utf-8"))
    started = next(r["payload"] for r in rows if r["type"] == "match_started")
    assert engine.versions.version_of(started) == int(log.split("rules")[1].split(".")[0])
    # when it is verified (hash chain, every seed, every action and settlement re-decided)
    verdict = match_log.verify_rows(rows)
    # then it passes, and folding and the replay viewer's frames give what they gave then
    assert verdict.ok and verdict.report.finished, verdict.text()
    assert digests(rows) == EXPECTED[log]


@pytest.mark.parametrize("log", LOGS)
def test_a_golden_log_imports_and_exports_byte_identically(client, log):
    # given a golden log as exported then
    body = (GOLDEN / log).read_text(encoding="utf-8")
    # when this service imports it and exports the imported match
    imported = client.post("/api/matches/import", data=body.encode(), content_type="application/x-ndjson")
    assert imported.status_code == 201, imported.get_json()
    exported = client.get(f"/api/matches/{imported.get_json()['id']}/export?format=ndjson")
    # then the export is the file, byte for byte, and its engine events fold to the same match
    assert exported.get_data(as_text=True) == body
    again = [r for r in rows_of(exported.get_data(as_text=True)) if r["type"] in ENGINE_EVENT_TYPES]
    assert engine.fold({"type": r["type"], **r["payload"]} for r in again).phase == "match_over"
