"""The variant registry: one entry per rule set; a toy third variant plays, folds and audits."""

from __future__ import annotations

import difflib
import json
import os
import pathlib
import random
import re
import shutil
import subprocess
import sys

import pytest

import engine
from engine import variants
from engine.audit import audit
from engine.bot import bot_action
from engine.bot_normal import normal_action
from engine.options import OptionError, normalise
from engine.scoring import score
from engine.win import WinContext
from engine.selfplay import play_match, seeds_from
from service.usecases import match_log
from engine_helpers import given, then_refused
from audit_support import rows_of, seeded_deals
from toy_variant import ENTRY as TOY  # tests/engine/toy_variant/: the package, registered here


# ---------------------------------------------------------------- the toy variant registered in the test
@pytest.fixture
def toy():
    variants.register(TOY)
    yield TOY
    variants.unregister("toy")


# ---------------------------------------------------------------- tests


def test_the_built_in_variants_are_registered_with_their_names():
    assert variants.names() == ("koudiandian", "hanshan")
    assert variants.get("hanshan").label == "含山麻将 Hanshan" and variants.get("koudiandian").wild_zh == "耗子"
    display = variants.display_all()
    assert display["hanshan"]["patterns"]["qingyise"] == ["清一色", "full flush"]
    assert display["hanshan"]["extra"]["yadang"] == ["丫当", "yadang"]


def test_an_unknown_variant_is_refused_by_options_and_scoring():
    with pytest.raises(OptionError, match="unknown variant 'toy'"):
        normalise("toy", {})
    with pytest.raises(ValueError):
        variants.get("toy")


@pytest.mark.parametrize("chooser", [bot_action, normal_action], ids=["easy", "normal"])
def test_a_registered_toy_variant_plays_folds_and_audits(toy, chooser):
    # given the toy variant registered (one entry, no other file touched)
    assert "toy" in variants.names() and normalise("toy", {"double": True})["double"] is True
    # when bots of either level play a whole match of it
    state, log = play_match("toy", {"hands": 3, "double": True}, seeds_from("toy"), chooser)
    stored = json.loads(json.dumps(log))
    # then it ends, folds from its stored events, and the audit re-decides every event
    assert state.phase == "match_over" and sum(state.scores) == 0
    assert engine.fold(stored).scores == state.scores
    rows = [
        {"version": i + 1, "type": e["type"], "payload": {k: v for k, v in e.items() if k != "type"}}
        for i, e in enumerate(stored)
    ]
    report = audit(rows)
    assert report.ok and report.finished and report.hands == 3, report.failure
    assert state.hand.wild is None  # uses_wilds: no wild kind


def test_a_refusal_cites_the_toy_variants_own_rule_from_its_entry(toy):
    # given a toy dealer whose 14 dealt tiles are complete on an honour
    hands = ["123m456m789m123pEE", "123456789s111p9p", "23456789s2233p9p", "SSSWWWNNNCCC9s"]
    state = given("toy", hands, "FFF")
    # when it claims the win, then the refusal names T-2 with the toy's words (engine/errors.py names no variant)
    refused = then_refused(state, 0, "hu", rule="T-2", code="honour_win")
    assert refused.message == "an honour never wins"


def test_the_toy_variant_scores_through_the_shared_scoring_entry_point(toy):
    ctx = WinContext(
        variant="toy",
        options=normalise("toy", {"double": True}),
        seat=2,
        dealer=0,
        concealed=(),
        melds=(),
        win_tile=0,
        win_by="self_draw",
    )
    assert score(ctx)["deltas"] == [-2, -2, 6, -2]


def test_the_service_lists_the_registered_variants(client):
    body = client.get("/api/variants").get_json()["variants"]
    assert list(body) == ["koudiandian", "hanshan"]
    assert body["koudiandian"]["label"] == "扣点点 Koudiandian" and body["koudiandian"]["wild"] == "耗子"
    assert body["hanshan"]["options"]["wild_self_draw_only"] is True and body["hanshan"]["options"]["base"] == 1
    assert body["hanshan"]["patterns"]["peizizan"] == ["配子赞", "lone wild wait"]


def test_the_toy_variant_is_served_explained_and_reviewed_over_http(toy, api, client, monkeypatch):
    # given the toy variant registered after the service was imported (no service file names it)
    seeded_deals(monkeypatch, "toy-service")  # two hands of which one is won, every run
    listed = client.get("/api/variants").get_json()["variants"]
    assert listed["toy"]["label"] == "玩具麻将 Toy" and listed["toy"]["options"]["double"] is False
    assert 'value="toy"' in client.get("/").get_data(as_text=True)  # the home page offers it
    # when one player and three bots play a whole match of it through the API
    match_id, _, tokens = api.new_match("toy", {"hands": 2, "double": True}, humans=1)
    api.play_randomly(match_id, tokens, random.Random(3))
    # then it ends, the player's view and the summary agree, and every export verifies
    summary = api.summary(match_id)
    assert summary["status"] == "over" and sum(summary["scores"]) == 0
    assert api.view(match_id, tokens[0]).body["view"]["variant"] == "toy"
    ndjson = client.get(f"/api/matches/{match_id}/export").get_data(as_text=True)
    assert match_log.verify_rows(rows_of(ndjson)).ok
    imported = client.post("/api/matches/import", data=ndjson, content_type="application/x-ndjson")
    assert imported.status_code == 201, imported.get_json()
    text = client.get(f"/api/matches/{match_id}/export?format=text").get_data(as_text=True)
    assert "玩具麻将 Toy" in text
    # and the replay explains each win (the generic reading and payments) and reviews seat 0
    frames = client.get(f"/replay/{match_id}/frames.json?seat=0").get_json()
    assert frames["variants"]["toy"]["wild"] == "百搭"
    explained = [h["explain"] for h in frames["hands"] if h.get("explain")]
    assert explained, "no hand of this seeded match was won"
    for ex in explained:
        assert ex["payment"]["layout"] == "shares" and sum(s["amount"] for s in ex["payment"]["shares"]) > 0
        assert ex["payment"]["lines"][0].startswith("value ")  # the entry's score_lines
        assert ex["blocks"] and sum(t.get("win", False) for b in ex["blocks"] for t in b["tiles"]) == 1
    assert frames["review"] and all("step" in r for r in frames["review"])


# ---------------------------------------------------------------- adding a variant: one new package and one line
ROOT = pathlib.Path(__file__).resolve().parents[2]
TOY_PACKAGE = pathlib.Path(__file__).resolve().parent / "toy_variant"
ENGINE_SEED_LABEL = "toy-package"  # seeds_from(label + "/easy" or "/normal"): the engine's matches
SERVICE_SEED = 5  # random.Random(SERVICE_SEED): the human seat's choices over HTTP

#: run in a subprocess whose `engine` is the temporary copy and whose `service` is this repository's, unedited
PLAY_THE_COPY = """
import json, pathlib, random, sys

import engine, service
from engine import fold, variants
from engine.audit import audit
from engine.bot import bot_action
from engine.bot_normal import normal_action
from engine.selfplay import play_match, seeds_from
from service.app import create_app
from service.usecases import match_log
from audit_support import rows_of
from conftest import MatchClient, flask_transport

copy, database, label, seed = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
report = {
    "engine_from_copy": pathlib.Path(engine.__file__).is_relative_to(copy),
    "service_from_copy": pathlib.Path(service.__file__).is_relative_to(copy),
    "registered": list(variants.names()),
    "levels": {},
}
for level, chooser in (("easy", bot_action), ("normal", normal_action)):
    state, log = play_match("toy", {"hands": 3, "double": True}, seeds_from(f"{label}/{level}"), chooser)
    stored = json.loads(json.dumps(log))
    rows = [{"version": i + 1, "type": e["type"], "payload": {k: v for k, v in e.items() if k != "type"}}
            for i, e in enumerate(stored)]
    audited = audit(rows)
    report["levels"][level] = {
        "phase": state.phase, "scores": state.scores, "folded": fold(stored).scores,
        "audited": audited.ok and audited.finished, "hands": audited.hands,
    }
app = create_app({"DATABASE": database, "TESTING": True})
client = app.test_client()
api = MatchClient(flask_transport(client))
match_id, _, tokens = api.new_match("toy", {"hands": 2, "double": True}, humans=1)
api.play_randomly(match_id, tokens, random.Random(seed))
summary = api.summary(match_id)
ndjson = client.get(f"/api/matches/{match_id}/export").get_data(as_text=True)
report["service"] = {
    "listed": "toy" in client.get("/api/variants").get_json()["variants"],
    "status": summary["status"],
    "scores": summary["scores"],
    "viewed": api.view(match_id, tokens[0]).body["view"]["variant"],
    "verified": match_log.verify_rows(rows_of(ndjson)).ok,
}
print(json.dumps(report))
"""


def _sources(folder: pathlib.Path) -> dict[str, str]:
    """path under `folder` -> text, for every source file (not the interpreter's caches)."""
    return {
        str(p.relative_to(folder)): p.read_text(encoding="utf-8")
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_a_variant_is_one_new_package_and_one_line_in_builtin(tmp_path):
    # given a copy of engine/ with the toy's package added as engine/variants/toy/ and its name
    # added to PACKAGES in engine/variants/builtin.py, which is the one line edited
    copy = tmp_path / "copy"
    caches = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "engine", copy / "engine", ignore=caches)
    shutil.copytree(TOY_PACKAGE, copy / "engine" / "variants" / "toy", ignore=caches)
    builtin = copy / "engine" / "variants" / "builtin.py"
    text, edits = re.subn(
        r"^PACKAGES = \((.*)\)", r'PACKAGES = (\1, "toy")', builtin.read_text(encoding="utf-8"), flags=re.M
    )
    assert edits == 1, "builtin.py lists its packages on one line"
    builtin.write_text(text, encoding="utf-8")
    original, changed = _sources(ROOT / "engine"), _sources(copy / "engine")
    assert sorted(set(changed) - set(original)) == [f"variants/toy/{name}" for name in sorted(_sources(TOY_PACKAGE))]
    assert [path for path in original if changed.get(path) != original[path]] == ["variants/builtin.py"]
    lines = original["variants/builtin.py"].splitlines(), changed["variants/builtin.py"].splitlines()
    edited = [d for d in difflib.ndiff(*lines) if d[:2] in ("- ", "+ ")]
    assert [d[:2] for d in edited] == ["- ", "+ "] and '"hanshan", "toy")' in edited[1], edited
    # when the copy's engine, under this repository's unedited service, plays seeded matches of it:
    # both bot levels in the engine, then one human seat and three bots over HTTP from create to over
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(copy), str(ROOT), str(ROOT / "tests")])}
    args = [str(copy), str(tmp_path / "tilefold.db"), ENGINE_SEED_LABEL, str(SERVICE_SEED)]
    done = subprocess.run(
        [sys.executable, "-c", PLAY_THE_COPY, *args], cwd=copy, env=env, capture_output=True, text=True, timeout=600
    )
    seeds = f"engine seeds {ENGINE_SEED_LABEL}/easy|normal, service seed {SERVICE_SEED}"
    assert done.returncode == 0, f"{seeds}\n{done.stderr}"
    report = json.loads(done.stdout.splitlines()[-1])
    # then the toy is registered beside the built-in ones, plays, folds and re-decides at both levels,
    # and the service lists, creates, plays, views and verifies it with no file of its own edited
    assert report["engine_from_copy"] and not report["service_from_copy"], report
    assert report["registered"] == ["koudiandian", "hanshan", "toy"], report
    for level, played in report["levels"].items():
        assert played["phase"] == "match_over" and sum(played["scores"]) == 0, (seeds, level, played)
        assert played["folded"] == played["scores"] and played["audited"] and played["hands"] == 3, (
            seeds,
            level,
            played,
        )
    served = report["service"]
    assert served["listed"] and served["status"] == "over" and sum(served["scores"]) == 0, (seeds, served)
    assert served["viewed"] == "toy" and served["verified"], (seeds, served)
