"""My matches tells a seat nothing it may not see: `last_move` is read in the seat's own numbering.

The attack: a seat that was not asked in an open window (H-4 报听 at the deal) appends its own
visible rows (PUT .../orders) and watches `GET /web/mine`. If `last_move` looked back a fixed number
of rows in the store's global numbering, the hidden answers of the asked seats would fill part of
that window, and the number of own rows after which the last move drops out would count them.
"""

from __future__ import annotations

import pytest

from correspondence_helpers import App, preset  # noqa: F401 (fixture)
from test_secrecy_tells import HS_HANDS

from service.http.pages import auth

OWN_ROWS = 16  # more than the look-back: the last move drops out, after as many rows in both worlds


@pytest.fixture
def t(tmp_path):
    return App(tmp_path)


def _watch(t, match_id, token) -> list:
    """What seat 3's browser sees of the match on My matches after each of its own orders rows."""
    client = t.app.test_client()
    client.set_cookie(auth.seat_cookie(match_id), token)
    seen = []
    for number in range(OWN_ROWS):
        reply = t.api.call("PUT", f"/api/matches/{match_id}/orders", {"auto_pass": number % 2 == 0}, token=token)
        assert reply.status == 200, reply
        entry = client.get("/web/mine").get_json()["matches"][0]
        seen.append((entry["version"], entry["last_move"]))
    return seen


def test_H4_last_move_on_my_matches_does_not_count_hidden_answers(t, preset):
    """Given 含山 dealt so that seats 1 and 2 are asked 报听 at the deal (H-4) and seat 3 is not:
    when seat 1's pass is hidden from seat 3 in one match and nobody has answered in another, and
    seat 3 appends its own orders rows one by one, then My matches shows seat 3 the same versions
    and the same `last_move` after each row in both matches (the hand's start, until it is further
    back than the look-back in seat 3's own numbering: after the same number of rows in both)."""
    preset(HS_HANDS, "7s7s1p", wild="N")
    answered, _, tokens_a = t.match("hanshan", deadline=None)
    quiet, _, tokens_b = t.match("hanshan", deadline=None)
    t.act(answered, tokens_a[1], "pass")  # hidden from seat 3 (the window stays open: seat 2 is asked too)

    with_answer = _watch(t, answered, tokens_a[3])
    without = _watch(t, quiet, tokens_b[3])
    strip = [(v, m and {k: m[k] for k in ("type", "seat", "tile")}) for v, m in with_answer]
    assert strip == [(v, m and {k: m[k] for k in ("type", "seat", "tile")}) for v, m in without]
    assert with_answer[0][1]["type"] == "hand_started"
