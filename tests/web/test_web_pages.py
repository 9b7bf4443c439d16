"""The browser pages' server side: cookies instead of tokens, CSRF, re-invites, chat, links."""

from __future__ import annotations

import pytest

from service.app import create_app
from service.http.routes.declare import declared_owner_only


@pytest.fixture
def client(tmp_path):
    return create_app({"DATABASE": str(tmp_path / "t.db"), "TESTING": True}).test_client()


def _csrf(client) -> str:
    client.get("/")
    return client.get_cookie("tf_csrf").value


def _seated(client, variant="hanshan"):
    """Given a browser that created a match on / and took seat 0, with three bots."""
    csrf = _csrf(client)
    made = client.post(
        "/web/matches", json={"variant": variant, "options": {"hands": 1}}, headers={"X-CSRF-Token": csrf}
    ).get_json()
    client.post(f"/web/matches/{made['id']}/join", json={"name": "Alice"}, headers={"X-CSRF-Token": csrf})
    assert client.post(f"/api/matches/{made['id']}/bots", json={}, headers={"X-CSRF-Token": csrf}).status_code == 200
    return made["id"], csrf


def test_pages_render(client):
    for url in ("/", "/my"):
        response = client.get(url)
        assert response.status_code == 200 and response.mimetype == "text/html"
        assert "script-src 'self'" in response.headers["Content-Security-Policy"]


def test_seat_cookie_is_httponly_and_samesite(client):
    csrf = _csrf(client)
    made = client.post(
        "/web/matches", json={"variant": "koudiandian", "options": {"hands": 1}}, headers={"X-CSRF-Token": csrf}
    )
    assert made.status_code == 201 and "owner_token" not in made.get_json()
    joined = client.post(
        f"/web/matches/{made.get_json()['id']}/join", json={"name": "A"}, headers={"X-CSRF-Token": csrf}
    )
    cookie = joined.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "token" not in joined.get_json()


def test_writes_need_the_csrf_header(client):
    """Given a seat cookie, when a write comes without the CSRF header (a cross-site form), then 403."""
    match_id, csrf = _seated(client)
    view = client.get(f"/api/matches/{match_id}/view").get_json()  # reads: the cookie is enough
    tile = next(a["tile"] for a in view["legal_actions"] if a["action"] == "discard")
    body = {"action": "discard", "tile": tile}
    refused = client.post(f"/api/matches/{match_id}/actions", json=body)
    assert refused.status_code == 403 and refused.get_json()["code"] == "csrf_failed"
    wrong = client.post(f"/api/matches/{match_id}/actions", json=body, headers={"X-CSRF-Token": "x" + csrf})
    assert wrong.status_code == 403
    other_site = client.post(
        f"/api/matches/{match_id}/actions", json=body, headers={"X-CSRF-Token": csrf, "Origin": "https://evil.example"}
    )
    assert other_site.status_code == 403
    assert client.post(f"/api/matches/{match_id}/actions", json=body, headers={"X-CSRF-Token": csrf}).status_code == 200
    assert client.post("/web/matches", json={"variant": "hanshan"}).status_code == 403


def test_owner_reissues_a_seat(client):
    """Given a seated player, when the owner issues a fresh invite for the seat, then a seat_reissued
    event is recorded, the old token stops working and the new play_url carries the new one."""
    match_id, csrf = _seated(client)
    reissued = client.post(f"/api/matches/{match_id}/seats/0/invite", json={}, headers={"X-CSRF-Token": csrf})
    assert reissued.status_code == 200
    body = reissued.get_json()
    assert body["play_url"].endswith(f"/play/{match_id}#seat={body['token']}")
    assert client.get(f"/api/matches/{match_id}/view").status_code == 403  # the old cookie's token
    fresh = client.get(f"/api/matches/{match_id}/view", headers={"Authorization": "Bearer " + body["token"]})
    assert fresh.status_code == 200
    events = client.get(f"/api/matches/{match_id}/events", headers={"Authorization": "Bearer " + body["token"]})
    kinds = [e for e in events.get_json()["events"] if e["type"] == "seat_reissued"]
    assert kinds and "token_hash" not in kinds[0]["payload"]
    assert (
        client.post(f"/api/matches/{match_id}/seats/1/invite", json={}, headers={"X-CSRF-Token": csrf}).status_code
        == 409
    )
    # the link moves into the cookie: the claim sets it, and the seat works again
    claimed = client.post(
        f"/web/matches/{match_id}/claim", json={"token": body["token"]}, headers={"X-CSRF-Token": csrf}
    )
    assert claimed.status_code == 200 and claimed.get_json()["seat"] == 0
    assert client.get(f"/api/matches/{match_id}/view").status_code == 200


def test_reissue_needs_the_owner(client):
    match_id, _ = _seated(client)
    seat_token = client.get_cookie(f"tfs_{match_id}").value
    response = client.post(
        f"/api/matches/{match_id}/seats/0/invite", json={}, headers={"Authorization": "Bearer " + seat_token}
    )
    assert response.status_code == 403


def test_the_owner_cookie_stands_in_on_the_routes_declared_owner_only(client):
    """Given a browser holding the match's owner cookie and a seat cookie, when its page calls the
    routes declared @owner_only (bots, spectating, re-invite), then the owner's token answers them,
    and the seat's token every other route of the match."""
    match_id, csrf = _seated(client)
    owner_only = sorted(
        endpoint for endpoint, view in client.application.view_functions.items() if declared_owner_only(view)
    )
    assert owner_only == ["invites.reissue", "orders.put_spectating", "seats.add_bots"]
    spectating = client.put(
        f"/api/matches/{match_id}/spectating", json={"enabled": True}, headers={"X-CSRF-Token": csrf}
    )
    assert spectating.status_code == 200 and spectating.get_json()["spectating"] is True
    assert client.put(f"/api/matches/{match_id}/spectating", json={"enabled": True}).status_code == 403  # no CSRF
    assert client.get(f"/api/matches/{match_id}/view").get_json()["seat"] == 0  # the seat cookie


def test_chat_is_for_seated_players_only(client):
    """Given a chat line, then seats read it, and neither the public feed nor the public chat holds it."""
    match_id, csrf = _seated(client)
    posted = client.post(f"/api/matches/{match_id}/chat", json={"text": "你好 hello"}, headers={"X-CSRF-Token": csrf})
    assert posted.status_code == 201
    assert [line["text"] for line in client.get(f"/api/matches/{match_id}/chat").get_json()["lines"]] == ["你好 hello"]
    stranger = client.application.test_client()  # no cookies
    assert stranger.get(f"/api/matches/{match_id}/chat").status_code == 401
    assert client.get(f"/api/matches/{match_id}/chat", headers={"Authorization": "Bearer nope"}).status_code == 403
    assert "hello" not in stranger.get(f"/api/matches/{match_id}/events").get_data(as_text=True)
    assert "hello" not in client.get(f"/api/matches/{match_id}/events").get_data(as_text=True)


def test_links_in_api_answers_and_openapi(client):
    made = client.post("/api/matches", json={"variant": "hanshan", "options": {"hands": 1}}).get_json()
    assert made["invite_url"] == f"http://localhost/join/{made['id']}"
    joined = client.post(f"/api/matches/{made['id']}/seats", json={"name": "Bob"}).get_json()
    assert joined["play_url"] == f"http://localhost/play/{made['id']}#seat={joined['token']}"
    spec = client.get("/api/openapi.json").get_json()["components"]["schemas"]
    assert "play_url" in spec["Joined"]["properties"] and "invite_url" in spec["MatchCreated"]["properties"]


def test_my_matches_your_turn_first(client):
    first, _ = _seated(client)
    mine = client.get("/web/mine").get_json()["matches"]
    assert [m["id"] for m in mine] == [first] and mine[0]["state"] == "your_turn" and mine[0]["seat"] == 0


def test_ting_choices_show_waits_and_points(client):
    match_id, _ = _seated(client, "koudiandian")
    answer = client.get(f"/web/matches/{match_id}/ting").get_json()
    for choice in answer["choices"]:
        assert all({"tile", "points"} <= set(w) for w in choice["waits"])


@pytest.mark.parametrize("page", ["play", "join"])
def test_a_page_for_an_unknown_match_answers_html_to_a_browser(client, page):
    """Given no match with an id, when a browser opens its table or invite page, then it gets a 404
    page in HTML (under the pages' security headers) saying so, with a way back; an API client asking
    for JSON keeps the problem+json answer."""
    browser = client.get(f"/{page}/no-such-match", headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    assert browser.status_code == 404 and browser.mimetype == "text/html"
    text = browser.get_data(as_text=True)
    # the pages' own page (with their navigation), not the replay's
    assert "No such match" in text and "no-such-match" in text and "My matches" in text
    assert "script-src 'self'" in browser.headers["Content-Security-Policy"]
    api = client.get(f"/{page}/no-such-match", headers={"Accept": "application/json"})
    assert api.status_code == 404 and api.mimetype == "application/problem+json"
    assert api.get_json()["code"] == "match_not_found"


def test_the_home_page_offers_a_bot_level_for_each_other_seat(client):
    # given the engine's bot levels
    from engine.bot import LEVELS

    # when the home page is rendered
    html = client.get("/").get_data(as_text=True)
    # then each of the three other seats has a select offering every level, normal chosen
    for seat in (2, 3, 4):
        select = html.split(f'<select name="level{seat}">', 1)[1].split("</select>", 1)[0]
        assert [v for v in LEVELS if f'value="{v}"' in select] == list(LEVELS)
        assert '<option value="normal" selected>' in select
