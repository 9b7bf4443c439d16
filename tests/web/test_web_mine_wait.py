"""My matches live: `GET /web/mine?wait=` with If-None-Match long-polls on every match the
browser holds a seat in at once, through the worker's one WaiterHub.

A move another seat makes answers it at once with the new list; a time-out is a 304 with the same
ETag; an answer hidden from the browser's seat (another seat's pass in an open window, G-6/H-4)
wakes the hub but not the page (it would tell who was asked); the wait counts toward the
waiting caps like every other long-poll; and nothing is asked of the store while it waits.
"""

from __future__ import annotations

import threading
import time

import pytest

from correspondence_helpers import App, preset  # noqa: F401 (fixture)
from test_secrecy_tells import HS_HANDS
from test_waiting_chat import until

from service.http.pages import auth
from service.http.services import services

ADDRESS = "10.0.0.9"
WAIT = 3.0  # seconds a long-poll may wait when nothing it may see happens


@pytest.fixture
def t(tmp_path):
    return App(tmp_path, POLL_INTERVAL=0.02, MAX_WAIT=30.0)


def browser(t, seats: dict[str, str]):
    """A browser (test client) holding these seat cookies: match id -> seat token."""
    client = t.app.test_client()
    for match_id, token in seats.items():
        client.set_cookie(auth.seat_cookie(match_id), token)
    return client


def mine(client, tag=None, wait=None):
    headers = {"If-None-Match": tag} if tag else {}
    query = f"?wait={wait}" if wait is not None else ""
    return client.get("/web/mine" + query, headers=headers, environ_overrides={"REMOTE_ADDR": ADDRESS})


class Poll(threading.Thread):
    """One My matches long-poll on its own thread; `reply` and `took` once answered."""

    def __init__(self, client, tag, wait=WAIT):
        super().__init__(daemon=True)
        self.client, self.tag, self.wait, self.reply, self.took = client, tag, wait, None, None
        self.start()

    def run(self):
        started = time.monotonic()
        self.reply = mine(self.client, self.tag, self.wait)
        self.took = time.monotonic() - started


def test_the_list_has_an_etag_and_a_wait_with_it_times_out_as_304(t):
    match_id, _, tokens = t.match(deadline=None)
    client = browser(t, {match_id: tokens[2]})
    first = mine(client)
    assert first.status_code == 200 and [m["id"] for m in first.get_json()["matches"]] == [match_id]
    tag = first.headers["ETag"]
    assert mine(client).headers["ETag"] == tag  # the same list, the same tag
    assert mine(client, tag).status_code == 304  # If-None-Match without a wait: at once
    started = time.monotonic()
    timed_out = mine(client, tag, wait=0.5)
    assert timed_out.status_code == 304 and timed_out.headers["ETag"] == tag
    assert time.monotonic() - started >= 0.45
    assert mine(client, '"m-other"', wait=5).status_code == 200  # another tag: the list at once
    assert services(t.app).wait_limits.open == 0


def test_another_seats_move_answers_the_wait_at_once(t):
    """Given a browser with seats in two matches, waiting on its list, when the dealer discards in
    one of them, then the wait is answered at once with that match's new version and last move."""
    first, _, tokens = t.match(deadline=None)
    second, _, others = t.match(deadline=None)
    client = browser(t, {first: tokens[2], second: others[1]})
    listed = mine(client)
    before = {m["id"]: m["version"] for m in listed.get_json()["matches"]}
    hub = services(t.app).hub
    poll = Poll(client, listed.headers["ETag"], wait=20)
    until(lambda: hub.waiting == 2)  # one wait on both matches' streams
    legal = t.api.view(first, tokens[0]).body["legal_actions"]
    tile = next(a["tile"] for a in legal if a["action"] == "discard")
    t.act(first, tokens[0], "discard", tile)
    poll.join(30)
    assert poll.reply.status_code == 200 and poll.took < 10, (poll.reply.status_code, poll.took)
    after = {m["id"]: m for m in poll.reply.get_json()["matches"]}
    assert after[first]["version"] > before[first] and after[second]["version"] == before[second]
    assert after[first]["last_move"]["type"] == "discarded" and after[first]["last_move"]["tile"] == tile
    assert poll.reply.headers["ETag"] != listed.headers["ETag"]
    assert hub.waiting == 0 and services(t.app).wait_limits.open == 0


def test_H4_G6_a_pass_hidden_from_the_seat_does_not_answer_its_wait(t, preset):
    """Given 含山 with seats 1 and 2 asked 报听 at the deal (H-4) and a browser holding seat 3: when
    seat 1 passes (hidden from seat 3), then seat 3's My matches wait is not answered
    before its time is up (304, same ETag); when seat 2 passes and the window closes, then the
    next wait is answered at once (the table sees `window_closed`)."""
    preset(HS_HANDS, "7s7s1p", wild="N")
    match_id, _, tokens = t.match("hanshan", deadline=None)
    client = browser(t, {match_id: tokens[3]})
    tag = mine(client).headers["ETag"]
    poll = Poll(client, tag, wait=WAIT)
    until(lambda: services(t.app).hub.waiting == 1)
    t.act(match_id, tokens[1], "pass")
    poll.join(30)
    assert poll.reply.status_code == 304 and poll.took >= WAIT * 0.9, (poll.reply.status_code, poll.took)
    assert poll.reply.headers["ETag"] == tag == mine(client).headers["ETag"]
    poll = Poll(client, tag, wait=20)
    until(lambda: services(t.app).hub.waiting == 1)
    t.act(match_id, tokens[2], "pass")
    poll.join(30)
    assert poll.reply.status_code == 200 and poll.took < 10, (poll.reply.status_code, poll.took)


def test_a_my_matches_wait_counts_toward_the_waiting_caps(tmp_path):
    """Given one wait allowed per address, when My matches waits, then a second wait from that
    address is refused 429 with Retry-After, and a plain GET of the list is still answered."""
    t = App(tmp_path, POLL_INTERVAL=0.02, MAX_WAITERS_PER_ADDRESS=1, WAIT_RETRY_AFTER=9)
    match_id, _, tokens = t.match(deadline=None)
    client = browser(t, {match_id: tokens[1]})
    tag = mine(client).headers["ETag"]
    poll = Poll(client, tag, wait=2.0)
    until(lambda: services(t.app).wait_limits.open == 1)
    refused = mine(client, tag, wait=5)
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "9"
    assert refused.get_json()["code"] == "too_many_waits"
    assert mine(client).status_code == 200
    poll.join(30)
    assert poll.reply.status_code == 304 and services(t.app).wait_limits.open == 0


@pytest.mark.parametrize("wait", ["x", "-1", "nan", "1e999"])
def test_a_bad_wait_is_400(t, wait):
    reply = browser(t, {}).get(f"/web/mine?wait={wait}")
    assert reply.status_code == 400 and reply.get_json()["code"] == "invalid_body"


def test_a_browser_without_seats_waits_out_its_time(t):
    """No match to wait on: the wait still lasts (no busy loop of instant 304s)."""
    client = browser(t, {})
    tag = mine(client).headers["ETag"]
    started = time.monotonic()
    assert mine(client, tag, wait=0.5).status_code == 304
    assert time.monotonic() - started >= 0.45
