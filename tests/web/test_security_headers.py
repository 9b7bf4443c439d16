"""Every answer is sealed: each HTML page (the replay page and its 404 page included) forbids
framing by CSP frame-ancestors and X-Frame-Options, each API answer carries a policy that loads
nothing, and every answer says `X-Content-Type-Options: nosniff`."""

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
