"""Every answer is sealed: each HTML page (the replay page and its 404 page included) forbids
framing by CSP frame-ancestors and X-Frame-Options, each API answer carries a policy that loads
nothing, and every answer says `X-Content-Type-Options: nosniff` — checked on named pages and on a
crawl of every route with each of its methods."""

from __future__ import annotations

import pytest

from service.app import create_app


@pytest.fixture
def client(tmp_path):
    return create_app({"DATABASE": str(tmp_path / "t.db"), "TESTING": True}).test_client()


def _finished_match(client) -> tuple[str, str]:
    """Given a match of one hand played out by four bots, and its owner token."""
    made = client.post("/api/matches", json={"variant": "koudiandian", "options": {"hands": 1}}).get_json()
    owner = made["owner_token"]
    client.post(f"/api/matches/{made['id']}/bots", json={}, headers={"Authorization": "Bearer " + owner})
    return made["id"], owner


def _sealed_page(response) -> None:
    assert response.mimetype == "text/html", response.mimetype
    policy = response.headers.get("Content-Security-Policy", "")
    assert "frame-ancestors 'none'" in policy and "script-src 'self'" in policy, policy
    assert response.headers.get("X-Frame-Options") == "DENY"
    assert response.headers.get("X-Content-Type-Options") == "nosniff"


def _sealed_api(response) -> None:
    policy = response.headers.get("Content-Security-Policy", "")
    assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy, policy
    assert response.headers.get("X-Frame-Options") == "DENY"
    assert response.headers.get("X-Content-Type-Options") == "nosniff"


def test_every_html_page_forbids_framing_and_sniffing(client):
    """Given a finished match, when each page is asked for (home, my matches, invite, table, replay,
    the replay's 404 page), then each carries CSP frame-ancestors, X-Frame-Options
    and nosniff."""
    match_id, _ = _finished_match(client)
    html = {"Accept": "text/html"}
    for url, status in (
        ("/", 200),
        ("/my", 200),
        (f"/join/{match_id}", 200),
        (f"/play/{match_id}", 200),
        (f"/replay/{match_id}", 200),
        ("/replay/no-such-match", 404),
    ):
        response = client.get(url, headers=html)
        assert response.status_code == status, url
        _sealed_page(response)


def test_every_api_answer_loads_nothing_and_is_not_sniffed(client):
    """Given a finished match, when JSON, problem+json, exports and frames are asked for, then each
    carries a policy that loads nothing, X-Frame-Options and nosniff."""
    match_id, owner = _finished_match(client)
    for url, status in (
        ("/api/variants", 200),
        (f"/api/matches/{match_id}", 200),
        (f"/api/matches/{match_id}/export?format=ndjson", 200),
        (f"/api/matches/{match_id}/export?format=text", 200),
        (f"/api/matches/{match_id}/export?format=json", 200),
        (f"/replay/{match_id}/frames.json?seat=all", 200),
        ("/api/matches/no-such-match", 404),
        ("/api/openapi.json", 200),
        ("/no/such/page", 404),
    ):
        response = client.get(url)
        assert response.status_code == status, url
        _sealed_api(response)


def test_static_files_are_not_sniffed(client):
    for url in ("/static/pages.js", "/static/pages.css", "/replay/static/viewer.js"):
        response = client.get(url)
        assert response.status_code == 200, url
        assert response.headers.get("X-Content-Type-Options") == "nosniff", url


def _fits(response, where: str) -> str:
    """The headers that fit the answer's kind: nosniff always; a page forbids framing and loads only
    its own; any other document (JSON, problem+json, ndjson, text, CSV, SSE) loads nothing."""
    assert response.headers.get("X-Content-Type-Options") == "nosniff", where
    kind = response.mimetype or ""
    if kind in ("text/javascript", "application/javascript", "text/css") or kind.startswith("image/"):
        return "static"
    assert response.headers.get("X-Frame-Options") == "DENY", where
    policy = response.headers.get("Content-Security-Policy", "")
    if kind == "text/html":
        assert "frame-ancestors 'none'" in policy and "script-src 'self'" in policy, (where, policy)
        return "page"
    assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy, (where, kind, policy)
    return "document"


def test_every_route_and_method_answers_with_the_headers_that_fit(tmp_path):
    """Given a match in play, a finished one and an unknown id, when every route of the app is asked with each of
    its methods (and PATCH, which none takes), without a token, with a seat's and with the owner's,
    HTML and JSON accepted, then every answer — success, problem (403, 404, 405, 409, …), a stream — carries
    nosniff, and every one but a static file forbids framing with the policy that fits it."""
    app = create_app({"DATABASE": str(tmp_path / "t.db"), "TESTING": True, "WEBHOOK_WORKER": False})
    client = app.test_client()
    done, done_owner = _finished_match(client)
    made = client.post("/api/matches", json={"variant": "hanshan", "options": {"hands": 1}}).get_json()
    playing, owner = made["id"], made["owner_token"]
    seat = client.post(f"/api/matches/{playing}/seats", json={"name": "Ann"}).get_json()["token"]
    static = {"static": "/static/pages.js", "replay.static": "/replay/static/viewer.js"}
    kinds: dict[str, int] = {}
    statuses: set[int] = set()
    asked = 0
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        for match_id, tokens in ((playing, [None, seat, owner]), (done, [None, done_owner]), ("no-such-match", [None])):
            path = static.get(rule.endpoint) or rule.rule.replace("<match_id>", match_id)
            path = path.replace("<int:seat>", "0").replace("<seat>", "0")
            path = path.replace("<rule_set>", "hanshan").replace("<player_id>", "nobody")
            path = path.replace("<token_id>", "none").replace("<session_id>", "none")
            if "<" in path:
                raise AssertionError(f"a route this test cannot fill in: {rule.rule}")
            for method in sorted((rule.methods or set()) - {"OPTIONS"}) + ["PATCH"]:
                for token in tokens:
                    for accept in ("text/html", "application/json"):
                        headers = {"Accept": accept, **({"Authorization": f"Bearer {token}"} if token else {})}
                        body = {} if method in ("POST", "PUT", "PATCH") else None
                        reply = client.open(path, method=method, json=body, headers=headers, buffered=False)
                        kind = _fits(reply, f"{method} {path} ({accept}, token: {bool(token)}) {reply.status_code}")
                        kinds[kind] = kinds.get(kind, 0) + 1
                        statuses.add(reply.status_code)
                        reply.close()
                        asked += 1
    assert kinds.get("page") and kinds.get("document") and kinds.get("static"), kinds
    assert {200, 400, 401, 403, 404, 405, 409} <= statuses, statuses
    print(f"{asked} answers: {kinds}, statuses {sorted(statuses)}")
