"""The stable contracts for outside tools: `tilefold scenario` and `tilefold score` exit codes and JSON."""

import json
import subprocess
import sys

import pytest

SCENARIO = {
    "variant": "koudiandian",
    "options": {},
    "dealer": 0,
    "hands": ["123456789m7788pC", "12345678sCCEEW", "13579m1345pSSSE", "2468m2468p2468sN"],
    "wall": "7pFFW",
    "actions": [
        {"seat": 0, "action": "ting", "tile": "C"},
        {"seat": 1, "action": "discard", "tile": "7p"},
        {"seat": 0, "action": "hu"},
    ],
}


def run(args, stdin):
    proc = subprocess.run(
        [sys.executable, "-m", "service.cli", *args], input=stdin, capture_output=True, text=True, timeout=60
    )
    return proc.returncode, proc.stdout, proc.stderr


def test_scenario_plays_a_preset_hand_to_its_result():
    code, out, _ = run(["scenario", "-"], json.dumps(SCENARIO))
    assert code == 0
    result = json.loads(out)["result"]
    assert result == {
        "outcome": "win",
        "winner": 0,
        "win_by": "discard",
        "patterns": ["yitiaolong"],
        "deltas": [42, -42, 0, 0],
    }


def test_scenario_illegal_action_names_its_index_and_rule():
    spec = dict(SCENARIO, actions=[{"seat": 0, "action": "ting", "tile": "C"}, {"seat": 1, "action": "pung"}])
    code, out, _ = run(["scenario", "-"], json.dumps(spec))
    assert code == 1
    error = json.loads(out)
    assert error["index"] == 1 and error["error"] == "illegal_action"


@pytest.mark.parametrize(
    "spec",
    [
        {"variant": "koudiandian", "hands": ["11111m", "", "", ""]},
        {"variant": "mahjong-soul", "hands": SCENARIO["hands"]},
        "not an object",
    ],
)
def test_scenario_malformed_input_exits_2_with_a_message(spec):
    code, _, err = run(["scenario", "-"], json.dumps(spec))
    assert code == 2 and err.strip()


def test_scenario_a_fifth_copy_across_hands_and_wall_is_malformed():
    spec = dict(SCENARIO, wall="7p7p7p")
    code, _, err = run(["scenario", "-"], json.dumps(spec))
    assert code == 2 and "copies of 7p" in err


def test_score_prints_the_contract_and_exit_codes():
    win = {
        "variant": "koudiandian",
        "options": {},
        "seat": 1,
        "dealer": 0,
        "hand": "123456789m77788p",
        "melds": [],
        "win_tile": "7p",
        "win_by": "discard",
        "discarder": 3,
        "discarder_ready": False,
        "ready": True,
    }
    code, out, _ = run(["score", "-"], json.dumps(win))
    assert code == 0
    assert json.loads(out) == {
        "ok": True,
        "points": 7,
        "multiplier": 2,
        "value": 14,
        "patterns": ["yitiaolong"],
        "deltas": [0, 42, 0, -42],
    }
    code, out, _ = run(["score", "-"], json.dumps(dict(win, ready=False)))
    assert code == 1 and json.loads(out) == {"ok": False, "reason": "not_ready"}
    code, _, err = run(["score", "-"], "{not json")
    assert code == 2 and err.strip()


def test_match_ids_never_start_with_a_dash(monkeypatch):
    """`tilefold export -x…` would read a leading '-' as an option: ids are drawn again until they don't."""
    import secrets

    from service.model import room

    draws = iter(["-starts-with-dash", "fine_id"])
    monkeypatch.setattr(secrets, "token_urlsafe", lambda n: next(draws))
    assert room.new_match_id() == "fine_id"
