"""The examples of docs/CONTRACTS.md and docs/API.md run: every block marked `<!-- example NAME: ROLE -->`.

ROLE says what the block is: a score `input` and its exact `output`; a scenario `input` and its `result`;
an `input` of POST /api/score; a `problem` body and a webhook `notice` (their fields, as produced).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MARKED = re.compile(r"<!-- example ([\w-]+): (\w+) -->\n```json\n(.*?)```", re.S)


def examples(doc: str) -> dict[str, dict[str, object]]:
    """name -> role -> the parsed JSON of that block."""
    found: dict[str, dict[str, object]] = {}
    for name, role, body in MARKED.findall((ROOT / "docs" / doc).read_text(encoding="utf-8")):
        found.setdefault(name, {})[role] = json.loads(body)
    return found


CONTRACTS, API = examples("CONTRACTS.md"), examples("API.md")


def tilefold(*args: str, stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "service.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=str(ROOT),
        timeout=120,
    )


def test_every_marked_example_is_checked():
    assert set(CONTRACTS) == {"hanshan-win", "koudiandian-win", "scenario"}
    assert set(API) == {"decision-notice", "api-score", "version-conflict"}


@pytest.mark.parametrize("name", ["hanshan-win", "koudiandian-win"])
def test_tilefold_score_prints_the_documented_answer(name):
    example = CONTRACTS[name]
    run = tilefold("score", "-", stdin=json.dumps(example["input"]))
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == example["output"]


def test_tilefold_scenario_plays_the_documented_hand():
    example = CONTRACTS["scenario"]
    run = tilefold("scenario", "-", stdin=json.dumps(example["input"]))
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["result"] == example["result"]


def test_the_score_calculator_answers_the_documented_input(client):
    reply = client.post("/api/score", json=API["api-score"]["input"])
    assert reply.status_code == 200 and "ok" in reply.get_json()


def test_a_version_conflict_is_the_documented_problem(api):
    """Given a started match, when an action names an old version, then the problem has the documented fields."""
    match_id, _, tokens = api.new_match(humans=1)
    view = api.view(match_id, tokens[0]).body
    reply = api.act(match_id, tokens[0], view["legal_actions"][0], view["version"] - 1)
    documented = API["version-conflict"]["problem"]
    assert reply.status == 409 and set(reply.body) == set(documented)
    assert {k: reply.body[k] for k in ("type", "title", "status", "code")} == {
        k: documented[k] for k in ("type", "title", "status", "code")
    }


def test_a_decision_notice_has_the_documented_fields():
    """Given a dealt hand, when its dealer's decision is new, then the notice carries the documented fields."""
    import engine
    from service.infra.notify import notices

    state = engine.fold(
        engine.decide(
            engine.initial_state(),
            {"action": "start_match", "variant": "koudiandian", "options": {}, "first_dealer": 0},
        )
    )
    dealt = engine.decide(state, {"action": "start_hand", "seed": "00" * 32})
    state = engine.fold(dealt, state)
    [notice] = notices("m", 3, [0], dealt, state, [0], {0: "2025-01-01T12:00:00.000000Z"})
    documented = API["decision-notice"]["notice"]
    assert set(notice) == set(documented) and notice["kind"] == documented["kind"]


def test_a_summary_names_the_hand_in_play(api):
    """docs/API.md: the public summary's hand_no is the hand in play (from 1), null before the deal."""
    match_id, owner = api.create("koudiandian", {"hands": 2})
    assert api.call("GET", f"/api/matches/{match_id}").body["hand_no"] is None
    api.join(match_id, "Alice")
    api.bots(match_id, owner)
    assert api.call("GET", f"/api/matches/{match_id}").body["hand_no"] == 1


def test_engine_api_lists_every_export_and_every_phase():
    """docs/ENGINE_API.md: the import block is engine.__all__, and the phase list is the engine's phases."""
    text = (ROOT / "docs" / "ENGINE_API.md").read_text(encoding="utf-8")
    block = re.search(r"from engine import \((.*?)\)", text, re.S)
    assert block is not None
    import engine
    from engine import state

    assert sorted(n.strip() for n in block.group(1).split(",") if n.strip()) == sorted(engine.__all__)
    phases = re.search(r"`state.phase` \((.*?)\), `state.needs_new_hand`", text, re.S)
    assert phases is not None
    listed = set(re.findall(r'`"(\w+)"`', phases.group(1)))
    constants = {v for k, v in vars(state).items() if k.isupper() and isinstance(v, str)}
    assert listed == constants
