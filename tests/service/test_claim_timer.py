"""The claim timer: a match option for the time a seat has to answer a claim or rob window (G-6, G-7),
apart from the move deadline; only the asked seat sees its countdown (the others see "waiting",
no tell of who is asked). Driven clock, preset deals."""

from __future__ import annotations

import pytest

from correspondence_helpers import App, preset  # noqa: F401 (fixture)
from service.infra.clock import parse
from service.http.services import services

# 扣点点: the dealer (seat 0) holds a lone C it can discard; seat 1 holds CC (a pung); 2 and 3 no C.
HANDS = ["23456m456p789pEEC", "1112223334pCCS", "5556667778889s", "FFFPPPWWWNNNS"]


@pytest.fixture
def t(tmp_path):
    return App(tmp_path)


def tick(t: App) -> None:
    assert services(t.app).ticker.run_once() is not None


@pytest.mark.parametrize("value", [0, 4, 604801, "20", 20.5, True])
def test_bad_claim_timers_are_400(t, value):
    reply = t.api.call("POST", "/api/matches", {"variant": "koudiandian", "claim_seconds": value})
    assert reply.status == 400 and "claim_seconds" in reply.body["errors"], reply


def test_G6_the_asked_seat_alone_sees_the_claim_timer_and_its_end_passes(t, preset):
    """Given a 扣点点 match with a 20-second claim timer and no move deadline, when the dealer
    discards C and seat 1 (holding CC) is asked, then seat 1's view has a deadline 20 s after the
    window opened, the dealer and seat 2 see none (phase "waiting"), the dealer's own turn had no
    deadline; and when 21 s pass the ticker answers pass for seat 1 (reason timeout)."""
    preset(HANDS, "")
    reply = t.api.call("POST", "/api/matches", {"variant": "koudiandian", "options": {"hands": 1}, "claim_seconds": 20})
    assert reply.status == 201, reply
    match_id = reply.body["id"]
    tokens = [t.api.join(match_id, f"p{i}") for i in range(4)]
    assert t.stored(match_id)[0].payload["claim_seconds"] == 20
    assert t.api.view(match_id, tokens[0]).body["deadlines"] == [{**_first(t, match_id, tokens[0]), "deadline": None}]
    t.act(match_id, tokens[0], "discard", "C")
    asked = t.api.view(match_id, tokens[1]).body
    assert asked["view"]["phase"] == "claim" and {"action": "pung"} in asked["legal_actions"]
    [mine] = asked["deadlines"]
    assert mine["seat"] == 1 and (parse(mine["deadline"]) - parse(mine["pending_since"])).total_seconds() == 20
    for other in (0, 2):
        seen = t.api.view(match_id, tokens[other]).body
        assert seen["view"]["phase"] == "waiting" and seen["deadlines"] == [], (other, seen["deadlines"])
    t.clock.advance(21)
    tick(t)
    assert t.api.view(match_id, tokens[1]).body["view"]["phase"] != "claim"  # the window closed
    [timed_out] = t.reasons(match_id, "timeout")
    assert timed_out["type"] == "responded" and timed_out["seat"] == 1 and timed_out["response"] == "pass"


def _first(t: App, match_id: str, token: str) -> dict:
    [row] = t.api.view(match_id, token).body["deadlines"]
    return {"seat": row["seat"], "pending_since": row["pending_since"]}
