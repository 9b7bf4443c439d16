"""Audit: verify accepts honest logs and names the first bad event of tampered ones (chain and engine)."""

from __future__ import annotations

import copy

import pytest

from engine.audit import audit
from service.usecases import match_log as service_audit
from service.cli import main
from audit_support import chained_rows, finished_match, first, rehash, rows_of, selfplay
from service.http.services import services


@pytest.fixture(scope="module")
def kdd_rows():
    return chained_rows(selfplay("koudiandian", {"hands": 4}, "kdd"))


@pytest.fixture(scope="module")
def hanshan_rows():
    return chained_rows(selfplay("hanshan", {"hands": 4}, "hs"))


def verdict(rows):
    return service_audit.verify_rows(copy.deepcopy(rows))


@pytest.mark.parametrize("which", ["kdd_rows", "hanshan_rows"])
def test_honest_log_passes(request, which):
    rows = request.getfixturevalue(which)
    v = verdict(rows)
    assert v.ok, v.text()
    assert v.report.hands == 4 and v.report.seeds_verified == 4 and v.report.finished
    assert v.text().startswith(f"OK: 4 hands, {len(rows):,} events, chain intact, 4 seeds verified")


def _changed_tile(rows):
    row = first(rows, "discarded", lambda p: not p["auto"])
    row["payload"]["tile"] = "1m" if row["payload"]["tile"] != "1m" else "2m"
    return row


def _dropped_event(rows):
    row = first(rows, "drew", lambda p: True)
    at = rows.index(row)
    del rows[at]
    return rows[at]  # the event that now stands where the engine expects the dropped one


def _changed_score(rows):
    row = first(rows, "hand_ended")
    row["payload"]["scores"][1] += 10
    return row


def _swapped_seed(rows):
    starts = [r for r in rows if r["type"] == "hand_started"]
    a, b = starts[0]["payload"], starts[1]["payload"]
    a["seed"], b["seed"] = b["seed"], a["seed"]
    return starts[0]


TAMPERING = {
    "changed tile": _changed_tile,
    "dropped event": _dropped_event,
    "changed score": _changed_score,
    "swapped seed": _swapped_seed,
}


@pytest.mark.parametrize("kind", sorted(TAMPERING))
@pytest.mark.parametrize("which", ["kdd_rows", "hanshan_rows"])
def test_tampering_breaks_the_chain_and_is_named(request, which, kind):
    rows = copy.deepcopy(request.getfixturevalue(which))
    bad = TAMPERING[kind](rows)
    v = verdict(rows)
    assert not v.ok
    text = v.text()
    assert text.startswith(f"FAIL at event {bad['version']} ({bad['type']}):"), text


@pytest.mark.parametrize("kind", sorted(TAMPERING))
@pytest.mark.parametrize("which", ["kdd_rows", "hanshan_rows"])
def test_tampering_with_a_rewritten_chain_is_caught_by_the_engine(request, which, kind):
    rows = copy.deepcopy(request.getfixturevalue(which))
    bad = TAMPERING[kind](rows)
    for number, row in enumerate(rows, start=1):
        row["version"] = number  # a dropped event renumbered away, too
    rows = rehash(rows)
    v = verdict(rows)
    assert not v.chain, "the tamperer rewrote the chain"
    assert not v.ok
    failure = v.report.failure
    assert failure.type == bad["type"]
    assert failure.version == next(
        r["version"] for r in rows if r["payload"] == bad["payload"] and r["type"] == bad["type"]
    )
    reasons = {
        "changed tile": "illegal when taken",
        "changed score": "scores: log",
        "swapped seed": "seed",
        "dropped event": "drew",
    }
    assert reasons[kind] in failure.reason, failure.reason


def test_truncated_log_is_named():
    rows = chained_rows(selfplay("koudiandian", {"hands": 2}, "trunc"))
    v = verdict(rows[:-1])  # match_ended dropped: the chain cannot see it, the engine can
    assert not v.chain and not v.ok
    assert v.text() == "FAIL at end of log (match_ended): the log ends where the engine produces match_ended"


def test_unknown_event_type_fails():
    rows = rehash([dict(r) for r in chained_rows(selfplay("koudiandian", {"hands": 1}, "x"))])
    rows[3]["type"] = "mystery"
    report = audit(rows)
    assert report.failure.version == 4 and "not an engine event" in report.failure.reason


def test_swapped_events_fail():
    rows = copy.deepcopy(chained_rows(selfplay("koudiandian", {"hands": 1}, "swap")))
    rows[5]["payload"], rows[6]["payload"] = rows[6]["payload"], rows[5]["payload"]
    rows[5]["type"], rows[6]["type"] = rows[6]["type"], rows[5]["type"]
    assert not verdict(rehash(rows)).ok


def test_cli_verify_ok_and_fail(tmp_path, app, capsys):
    match_id, _ = finished_match(app, "koudiandian", {"hands": 2})
    ndjson, _ = service_audit.export(services(app).match.repo, match_id, "ndjson")
    good = tmp_path / "good.ndjson"
    good.write_text(ndjson, encoding="utf-8")
    assert main(["verify", str(good)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("OK: 2 hands,") and "chain intact, 2 seeds verified, every action legal" in out
    rows = rows_of(ndjson)
    row = first(rows, "hand_ended")
    row["payload"]["scores"][0] += 1
    bad = tmp_path / "bad.ndjson"
    bad.write_text(service_audit.to_ndjson(rehash(rows)), encoding="utf-8")
    assert main(["verify", str(bad)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"FAIL at event {row['version']} (hand_ended): ") and "scores" in out
    (tmp_path / "junk.ndjson").write_text("not json\n")
    assert main(["verify", str(tmp_path / "junk.ndjson")]) == 2
