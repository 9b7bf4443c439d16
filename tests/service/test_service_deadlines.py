"""Move deadlines: overdue decisions take the engine's default with reason "timeout" (driven clock)."""

from __future__ import annotations

import pytest

import engine
from correspondence_helpers import HOUR, App, preset  # noqa: F401 (fixture)
from service.http.services import services

# 含山 presets from tests/engine/test_hanshan_flow.py: seats 1 and 2 are asked 报听 at the deal; the
# dealer's 5p is a win for 1 and 2 and a pung for 3; ROB builds seat 3's added kong of 5s that
# seat 1 may rob.
HANDS = ["23m5p8899pCCCFFFE", "123m456m789m123s5p", "777m46p111999sEE", "55p234678sSSWWC"]
ROB = ["123456789m99p12s5s", "123p456p789p46sEE", "123m777s888s9s11pF", "55sSSSWWWCCFF7s"]


@pytest.fixture
def t(tmp_path):
    return App(tmp_path)


def tick(t: App) -> None:
    """One pass of the ticker `serve` runs in its workers (service/usecases/ticker.py)."""
    assert services(t.app).ticker.run_once() is not None  # this process holds the lease


def overdue(t: App, match_id: str, token: str) -> dict:
    """Move the clock past the deadline, let the ticker pass, and read the view."""
    t.clock.advance(HOUR + 1)
    tick(t)
    reply = t.api.view(match_id, token)
    assert reply.status == 200, reply
    return reply.body


@pytest.mark.parametrize("value", [0, 60, 3599, 604801, "3600", 3600.5, True])
def test_bad_deadlines_are_400(t, value):
    reply = t.api.call("POST", "/api/matches", {"variant": "koudiandian", "deadline_seconds": value})
    assert reply.status == 400 and reply.body["code"] == "invalid_body", reply
    assert "deadline_seconds" in reply.body["errors"]


def test_deadline_is_stored_in_match_created_and_shown_in_the_view(t):
    match_id, _, tokens = t.match(deadline=7200)
    created = t.stored(match_id)[0]
    assert created.type == "match_created" and created.payload["deadline_seconds"] == 7200
    view = t.api.view(match_id, tokens[0]).body
    [deadline] = view["deadlines"]
    assert deadline["seat"] == 0 == view["view"]["pending"][0]
    from service.infra.clock import parse

    assert (parse(deadline["deadline"]) - parse(deadline["pending_since"])).total_seconds() == 7200
    assert deadline["deadline"].endswith("Z")
    no_limit, _, tokens2 = t.match(deadline=None)
    assert t.api.view(no_limit, tokens2[0]).body["deadlines"] == []


def test_own_turn_timeout_discards_the_drawn_tile(t):
    match_id, _, tokens = t.match()
    before = overdue(t, match_id, tokens[0])
    [discard] = t.reasons(match_id, "timeout")
    started = next(e for e in t.stored(match_id) if e.type == "hand_started")
    assert discard["type"] == "discarded" and discard["seat"] == 0
    assert discard["tile"] == started.payload["dealer_draw"]
    assert before["version"] > started.version


def test_nothing_times_out_before_the_deadline(t):
    match_id, _, tokens = t.match()
    t.clock.advance(HOUR - 1)
    tick(t)
    version = t.api.view(match_id, tokens[0]).body["version"]
    assert t.reasons(match_id, "timeout") == []
    t.clock.advance(1)  # due at exactly the deadline
    tick(t)
    assert t.api.view(match_id, tokens[0]).body["version"] > version


def test_ting_window_and_claim_window_timeouts_pass(t, preset):
    preset(HANDS, "7s7s1p", wild="N")
    match_id, _, tokens = t.match("hanshan")
    view = t.api.view(match_id, tokens[1]).body
    assert view["view"]["phase"] == "ting" and view["view"]["pending"] == [1]  # only itself
    overdue(t, match_id, tokens[0])
    passes = t.reasons(match_id, "timeout")
    assert [(e["type"], e["seat"], e["response"], e["window"]) for e in passes] == [
        ("responded", 1, "pass", "ting"),
        ("responded", 2, "pass", "ting"),
    ]
    # the dealer's own deadline starts when the window closed: it is not overdue yet
    assert t.api.view(match_id, tokens[0]).body["view"]["pending"] == [0]
    t.act(match_id, tokens[0], "discard", "5p")
    assert t.api.view(match_id, tokens[3]).body["view"]["phase"] == "claim"  # seat 3 is asked
    overdue(t, match_id, tokens[0])
    claim = [e for e in t.reasons(match_id, "timeout") if e.get("window") == "claim"]
    assert [(e["seat"], e["response"]) for e in claim] == [(1, "pass"), (2, "pass"), (3, "pass")]
    events = [e.type for e in t.stored(match_id)]
    assert events[-1] == "drew"  # the window closed and play moved on to seat 1


def test_rob_the_kong_window_timeout_passes_and_the_kong_is_made(t, preset):
    preset(ROB, "9m2m3m5s1s1s", wild="N")
    match_id, _, tokens = t.match("hanshan")
    steps = [
        (1, "pass"),
        (0, "discard", "5s"),
        (1, "pass"),
        (3, "pung"),
        (3, "discard", "7s"),
        (2, "pass"),
        (0, "discard", "9m"),
        (1, "discard", "2m"),
        (2, "discard", "3m"),
        (3, "kong", "5s"),
    ]
    for seat, *command in steps:
        t.act(match_id, tokens[seat], *command)
    view = t.api.view(match_id, tokens[1]).body
    assert view["view"]["phase"] == "rob" and {"action": "hu"} in view["legal_actions"]
    overdue(t, match_id, tokens[3])
    [rob] = t.reasons(match_id, "timeout")
    assert (rob["type"], rob["seat"], rob["response"], rob["window"]) == ("responded", 1, "pass", "rob")
    konged = [e.payload for e in t.stored(match_id) if e.type == "konged"]
    assert konged[-1]["kind"] == "added" and konged[-1]["tile"] == "5s"


def test_reads_never_settle_the_ticker_and_an_action_do(t):
    """Given an overdue decision, when the feed, the summary and the view are read, then nothing is
    settled (a read never writes); when the ticker passes, it is; and an action settles what is
    overdue before it is decided."""
    match_id, _, tokens = t.match()
    t.clock.advance(HOUR + 1)
    t.api.events(match_id, tokens[2])
    t.api.summary(match_id)
    t.api.view(match_id, tokens[0])
    assert t.reasons(match_id, "timeout") == []
    tick(t)
    assert len(t.reasons(match_id, "timeout")) == 1
    t.clock.advance(HOUR + 1)
    t.api.act(match_id, tokens[1], {"action": "pass"})
    assert len(t.reasons(match_id, "timeout")) > 1


def test_deadlines_survive_a_restart(tmp_path):
    first = App(tmp_path)
    match_id, _, tokens = first.match()
    since = first.api.view(match_id, tokens[0]).body["deadlines"][0]
    second = App(tmp_path)  # another process on the same file, knowing nothing in memory
    second.clock.set(first.clock.now())
    assert second.api.view(match_id, tokens[0]).body["deadlines"][0] == since
    second.clock.advance(HOUR + 1)
    assert second.svc.tick()["matches_settled"] == 1
    assert len(second.reasons(match_id, "timeout")) == 1


@pytest.mark.parametrize("variant", ["koudiandian", "hanshan"])
def test_vanished_players_match_ends_by_tick_alone(t, variant):
    match_id, _, tokens = t.match(variant, {"hands": 1})
    for _ in range(2_000):
        if t.api.summary(match_id)["status"] == "over":
            break
        t.clock.advance(HOUR + 1)
        t.svc.tick()
    summary = t.api.summary(match_id)
    assert summary["status"] == "over" and sum(summary["scores"]) == 0
    stored = t.stored(match_id)
    decided = [
        e
        for e in stored
        if e.type in ("discarded", "responded", "ting_declared", "konged", "punged") and not e.payload.get("auto")
    ]
    first_of_batch = {}
    for e in stored:
        first_of_batch.setdefault(e.recorded_at, e)
    human_moves = [e for e in decided if first_of_batch[e.recorded_at] is e]
    assert human_moves and all(e.payload.get("reason") == "timeout" for e in human_moves)
    # the log still audits: every timeout was a legal default
    from service.usecases import match_log

    verdict = match_log.verify_rows(t.svc.repo.store.export_rows(f"match-{match_id}"))
    assert verdict.ok, verdict.text()


def test_tick_settles_every_overdue_match_and_leaves_the_rest(t):
    late = [t.match()[0] for _ in range(3)]
    t.clock.advance(HOUR + 1)
    fresh, _, _ = t.match()
    assert t.svc.tick()["matches_settled"] == 3
    assert all(len(t.reasons(m, "timeout")) == 1 for m in late)
    assert t.reasons(fresh, "timeout") == []
    assert engine.pending_seats(t.svc.repo.load(fresh).state) == [0]


def test_tick_command_line(tmp_path, capsys, monkeypatch):
    from service.cli import main

    t = App(tmp_path)
    t.match()
    monkeypatch.setenv("TILEFOLD_DB", str(tmp_path / "tilefold.db"))
    assert main(["tick"]) == 0
    assert '"matches_settled": 0' in capsys.readouterr().out
