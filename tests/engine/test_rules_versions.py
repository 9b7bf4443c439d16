"""Rules versions: a match keeps the rules it was played under; old logs fold, verify, replay."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from audit_support import finished_match, rows_of

import engine
from engine import versions
from engine.audit import audit
from engine.options import normalise
from engine.variants.hanshan import scoring as hanshan_scoring
from engine.variants.koudiandian import scoring as kdd_scoring
from engine.win import WinContext
from engine.selfplay import play_match, seeds_from
from engine.tiles import kind, parse
from engine.variants.hanshan import Hanshan
from events import Catalogue
from service.usecases import match_log as service_audit


def _rows(log: list[dict]) -> list[dict]:
    return [
        {"version": i + 1, "type": e["type"], "payload": {k: v for k, v in e.items() if k != "type"}}
        for i, e in enumerate(log)
    ]


def test_a_new_match_records_the_rules_version_it_is_played_under():
    started = engine.decide(engine.initial_state(), {"action": "start_match", "variant": "hanshan", "options": {}})
    assert started[0]["rules_version"] == engine.RULES_VERSION == 2


def test_a_version_1_log_folds_and_verifies_under_version_1():
    # given a log played under version 1: no rules_version, no recorded decisions (the old shape)
    log = _v1_log("hanshan", {"hands": 2}, "v1")
    assert "rules_version" not in log[0] and not any(engine.DECISION in e for e in log)
    # then it folds (evolve's fallback decides the version-1 events) and the audit re-decides it as it was
    state = engine.fold(log)
    assert state.phase == "match_over" and state.rules_version == 1
    report = audit(_rows(log))
    assert report.ok and report.finished, report.failure
    # and the catalogue's upcaster gives its match_started (schema version 1) an explicit rules_version
    payload = {k: v for k, v in log[0].items() if k != "type"}
    assert Catalogue(engine.EVENT_TYPES).upcast("match_started", 1, payload) == (2, {**payload, "rules_version": 1})
    assert "rules_version" not in log[0]


def _v1_log(variant: str, options: dict, label: str) -> list[dict]:
    """A whole bot match decided under rules version 1 (as the engine wrote logs before version 2)."""
    state = engine.initial_state()
    log: list[dict] = []
    seeds = seeds_from(label)
    events, state = engine.step(
        state, {"action": "start_match", "variant": variant, "options": options, "rules_version": 1}
    )
    log.extend(events)
    while state.phase != "match_over":
        command = (
            {"action": "start_hand", "seed": next(seeds)}
            if state.needs_new_hand
            else dict(engine.bot_action(state, engine.pending_seats(state)[0]), seat=engine.pending_seats(state)[0])
        )
        events, state = engine.step(state, command)
        log.extend(events)
    return json.loads(json.dumps(log))


def test_version_1_keeps_its_rules_where_K13_and_G5_K6_changed_them():
    # K-13: under version 1 a self-drawn wild (9m) scored as the wild's own kind, 9 x 2; since version 2, 6 x 2
    ctx = WinContext(
        variant="koudiandian",
        options=normalise("koudiandian", {"wilds": True}),
        seat=0,
        dealer=1,
        concealed=tuple(parse("123sEEE456p44p78m9m")),
        melds=(),
        win_tile=kind("9m"),
        win_by="self_draw",
        ready=True,
        wild=kind("9m"),
    )
    assert kdd_scoring.score(ctx)["value"] == 12
    assert kdd_scoring.score(replace(ctx, rules_version=1))["value"] == 18
    # G-5/K-6: version 1 forfeited the kong after a pung in both variants
    assert Hanshan({}, rules_version=1).pung_forfeits_kong and not Hanshan({}, rules_version=2).pung_forfeits_kong


def test_the_audit_says_clearly_when_it_cannot_re_decide_a_version():
    log = json.loads(json.dumps(play_match("hanshan", {"hands": 1}, seeds_from("v9"))[1]))
    log[0]["rules_version"] = 9
    report = audit(_rows(log))
    assert not report.ok and report.failure.version == 1
    assert "rules version 9" in report.failure.reason and "cannot re-decide" in report.failure.reason


def test_an_old_match_folds_exports_verifies_and_replays_identically_under_a_later_version(client, app, monkeypatch):
    # given a match played and stored under today's rules (version 2)
    match_id, _ = finished_match(app, "hanshan", {"hands": 2})
    export = client.get(f"/api/matches/{match_id}/export?format=ndjson").get_data(as_text=True)
    text = client.get(f"/api/matches/{match_id}/export?format=text").get_data(as_text=True)
    frames = client.get(f"/replay/{match_id}/frames.json?seat=all").get_json()
    log = [{"type": r["type"], **r["payload"]} for r in rows_of(export) if r["type"] in engine_types()]
    folded = engine.fold(log)
    # when a later rules version 3 changes the rules: 含山 scores double and 报听 is asked of nobody
    monkeypatch.setattr(versions, "RULES_VERSION", 3)
    real_score, real_ting = hanshan_scoring.score, Hanshan.ting_phase_seats

    def doubled(ctx):
        result = real_score(ctx)
        return {**result, "deltas": [2 * d for d in result["deltas"]]} if ctx.rules_version >= 3 else result

    monkeypatch.setattr(hanshan_scoring, "score", doubled)
    monkeypatch.setattr(Hanshan, "ting_phase_seats", lambda self, hand: pytest.fail("folding ran a rule"))
    # then new matches are played under version 3 ...
    started = engine.decide(engine.initial_state(), {"action": "start_match", "variant": "hanshan", "options": {}})
    assert started[0]["rules_version"] == 3
    # ... and the old match still folds, exports, verifies and replays exactly as before
    again = engine.fold(log)
    assert (again.scores, again.last_result, again.rules_version) == (folded.scores, folded.last_result, 2)
    assert client.get(f"/api/matches/{match_id}/export?format=ndjson").get_data(as_text=True) == export
    assert client.get(f"/api/matches/{match_id}/export?format=text").get_data(as_text=True) == text
    assert client.get(f"/replay/{match_id}/frames.json?seat=all").get_json() == frames
    monkeypatch.setattr(Hanshan, "ting_phase_seats", real_ting)  # the audit re-decides: it runs the rules
    assert service_audit.verify_rows(rows_of(export)).ok  # ... of version 2, so the scores are not doubled


def engine_types() -> frozenset[str]:
    from engine.audit import ENGINE_EVENT_TYPES

    return ENGINE_EVENT_TYPES


def test_recorded_decisions_are_secret_until_the_full_record_is_asked_for():
    # given a discard some seats could claim: its event names them under "decision"
    from engine_helpers import given, when

    state = given(
        "hanshan",
        ["13579m2468s5pEWFC", "1357m555p9p2468sS", "1357m1379p1357sW", "2468m2468p9sEEFF"],
        "9m9m7p7p",
        wild="N",
    )
    _, events = when(state, 0, "discard", "5p")
    discarded = events[0]
    assert discarded[engine.DECISION] == {"claims": {"1": ["kong", "pung", "pass"]}}
    # then every viewer but "all" sees the event without it
    for viewer in (None, 0, 1, 2, 3):
        shown = engine.redact(discarded, viewer)
        assert shown is None or engine.DECISION not in shown
    assert engine.redact(discarded, "all")[engine.DECISION] == discarded[engine.DECISION]
