"""Hostile input: every bad body, header, query or id is a 4xx problem+json and stores nothing."""

from __future__ import annotations

import io
import json
import sqlite3

import pytest
from service.http.services import services

PROBLEM = "application/problem+json"
MARKUP = "<img src=x onerror=alert(1)>"
BIG = 70_000  # over the default TILEFOLD_MAX_BODY of 65,536 bytes


def row_count(app) -> int:
    """Rows in every table of the store (events, idempotency, outbox, meta and anything added later)."""
    path = app.config["DATABASE"]
    with sqlite3.connect(path) as conn:
        tables = [
            r[0]
            for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        ]
        return sum(conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables)


@pytest.fixture
def match(api):
    return api.new_match("koudiandian", {"hands": 1})


def bodies(match_id: str) -> list[tuple[str, str, object, dict, int]]:
    """(method, path, raw body, extra headers, expected status) for each hostile body."""
    deep = "[" * 30_000 + "]" * 30_000  # under the size limit, deeper than json.loads recurses
    deep_obj = '{"a":' * 6_000 + "1" + "}" * 6_000
    create, seats = "/api/matches", f"/api/matches/{match_id}/seats"
    acts, bots, score = f"/api/matches/{match_id}/actions", f"/api/matches/{match_id}/bots", "/api/score"
    out = []
    for path in (create, seats, acts, bots, score, "/api/matches/import"):
        size = BIG if "import" not in path else 16 * 1024 * 1024 + 1  # imports may be up to 16 MiB
        out += [
            ("POST", path, "{" + " " * size + "}", {}, 413),
            ("POST", path, deep, {}, 400),
            ("POST", path, "{not json", {}, 400),
            ("POST", path, b'\xff\xfe{"x": 1}', {}, 400),
        ]
    for path in (create, seats, acts, bots, score):
        out += [("POST", path, doc, {}, 400) for doc in ("[]", '"x"', "null", "1e999", deep_obj)]
        out.append(("POST", path, json.dumps({"unknown_field": 1}), {}, 400))
    out += [
        ("POST", create, json.dumps({"variant": "koudiandian", "colour": "red"}), {}, 400),
        ("POST", create, json.dumps({"variant": 7}), {}, 400),
        ("POST", create, json.dumps({"variant": "hanshan", "options": []}), {}, 400),
        ("POST", create, '{"variant": "hanshan", "options": {"hands": NaN}}', {}, 400),
        ("POST", create, '{"variant": "hanshan", "options": {"hands": Infinity}}', {}, 400),
        ("POST", create, json.dumps({"variant": "hanshan", "options": {"hands": 10**400}}), {}, 400),
        ("POST", create, json.dumps({"variant": "hanshan", "options": {"hands": -1}}), {}, 400),
        ("POST", create, json.dumps({"variant": "hanshan", "options": {"base": 10**30}}), {}, 400),
        ("POST", create, json.dumps({"variant": "hanshan", "options": {MARKUP: 1}}), {}, 400),
        ("POST", create, json.dumps({"variant": "\u202e<script>"}), {}, 400),
        ("POST", create, json.dumps({"variant": "hanshan"}), {"Content-Type": "text/plain"}, 400),
        ("POST", seats, json.dumps({"name": "x" * 41}), {}, 400),
        ("POST", seats, json.dumps({"name": ""}), {}, 400),
        ("POST", seats, json.dumps({"name": 12}), {}, 400),
        ("POST", seats, json.dumps({"name": ["a"]}), {}, 400),
        ("POST", seats, json.dumps({"name": "ok", "seat": 2}), {}, 400),
        ("POST", seats, json.dumps({"name": "ok", "token_hash": "0" * 64}), {}, 400),
        ("POST", seats, json.dumps({"name": "ok", "bot": True}), {}, 400),
        ("POST", acts, json.dumps({"action": "discard", "tile": "10m"}), {}, 400),
        ("POST", acts, json.dumps({"action": "discard", "tile": "1m" * 500}), {}, 400),
        ("POST", acts, json.dumps({"action": "discard", "tile": 5}), {}, 400),
        ("POST", acts, json.dumps({"action": "discard", "tile": "../1m"}), {}, 400),
        ("POST", acts, json.dumps({"action": "DISCARD", "tile": "1m"}), {}, 400),
        ("POST", acts, json.dumps({"action": "discard", "tile": "1m", "seat": 3}), {}, 400),
        ("POST", acts, json.dumps({"action": "pass", "expected_version": -1}), {}, 400),
        ("POST", acts, json.dumps({"action": "pass", "expected_version": "seven"}), {}, 400),
        ("POST", acts, json.dumps({"action": "pass", "expected_version": 10**30}), {}, 409),
        ("POST", acts, json.dumps({"action": "pass", "expected_version": 1.5}), {}, 400),  # not a whole number
        ("POST", acts, json.dumps({"action": "pass"}), {"If-Match": "v7 OR 1=1"}, 400),
        ("POST", acts, json.dumps({"action": "pass"}), {"If-Match": '"v' + "9" * 30 + '"'}, 409),
        ("POST", acts, json.dumps({"action": "pass"}), {"Idempotency-Key": "k" * 129}, 400),
        ("POST", acts, json.dumps({"action": "pass", "expected_version": 3}), {"If-Match": '"v4"'}, 400),
        ("POST", bots, json.dumps({"count": 10**30}), {}, 400),
        ("POST", bots, json.dumps({"count": -1}), {}, 400),
        ("POST", bots, json.dumps({"count": True}), {}, 400),
        (
            "POST",
            score,
            json.dumps(
                {"variant": "hanshan", "seat": 9, "dealer": 0, "hand": "1m", "win_tile": "1m", "win_by": "self_draw"}
            ),
            {},
            400,
        ),
        (
            "POST",
            score,
            json.dumps(
                {
                    "variant": "hanshan",
                    "seat": 0,
                    "dealer": 0,
                    "hand": "1m" * 5000,
                    "win_tile": "1m",
                    "win_by": "self_draw",
                }
            ),
            {},
            400,
        ),
        ("POST", "/api/matches/import", "x" * 100, {}, 400),
        ("POST", "/api/matches/import", '[{"a": 1}]', {}, 400),
    ]
    return out


def assert_refused(reply, expected: int, what: str) -> None:
    assert reply.status_code == expected, (what, reply.status_code, reply.get_data(as_text=True)[:300])
    assert reply.content_type.startswith(PROBLEM), (what, reply.content_type)
    assert reply.get_json()["status"] == expected


def test_hostile_bodies_are_refused_and_store_nothing(app, client, match):
    match_id, owner, tokens = match
    auth = {"Authorization": f"Bearer {tokens[0]}"}
    cases = bodies(match_id)
    before = row_count(app)
    for method, path, body, headers, expected in cases:
        headers = dict(auth if "/bots" not in path else {"Authorization": f"Bearer {owner}"}, **headers)
        content_type = headers.pop("Content-Type", "application/json")
        reply = client.open(path, method=method, data=body, content_type=content_type, headers=headers)
        assert_refused(reply, expected, (path, str(body)[:80], headers))
    assert row_count(app) == before, "a refused request stored something"
    print(f"\nhostile bodies: {len(cases)} refused, rows before/after {before}/{row_count(app)}")


def test_oversized_streamed_body_without_length_is_refused(app, client, match):
    """A chunked body has no Content-Length: werkzeug reads at most the limit (then the JSON is cut)."""
    match_id, _, tokens = match
    before = row_count(app)
    reply = client.post(
        f"/api/matches/{match_id}/seats",
        input_stream=io.BytesIO(b'{"name": "' + b"x" * BIG + b'"}'),
        content_type="application/json",
        headers={"Transfer-Encoding": "chunked"},
        environ_overrides={"wsgi.input_terminated": True},
    )
    assert reply.status_code in (400, 413) and reply.content_type.startswith(PROBLEM)
    assert row_count(app) == before


@pytest.mark.parametrize(
    "path",
    [
        "/api/matches/..%2F..%2Fetc%2Fpasswd",
        "/api/matches/%00",
        "/api/matches/x%27%20OR%201=1--",
        "/api/matches/" + "a" * 5000,
        "/api/matches/%E2%80%AE%F0%9F%80%84",
        "/api/matches/*",
        "/api/matches/match-x/view",
        "/api/matches/..",
        "/replay/..%2f..%2fetc%2fpasswd",
        "/replay/static/..%2f..%2fweb.py",
        "/replay/static/../web.py",
        "/replay/%3Cscript%3E",
        "/api/matches/%3Cscript%3Ealert(1)%3C%2Fscript%3E/events",
    ],
)
def test_path_tricks_in_ids_are_404(app, client, match, path):
    _, _, tokens = match
    before = row_count(app)
    reply = client.get(path, headers={"Authorization": f"Bearer {tokens[0]}"})
    assert_refused(reply, 404, path)  # problem+json: an echoed id is a JSON string, never markup
    assert row_count(app) == before


def test_posting_to_a_guessed_or_tricky_id_stores_nothing(app, client, match):
    _, owner, tokens = match
    before = row_count(app)
    for match_id in ("..%2Fx", "a" * 300, "%00", "match-", "AAAAAAAAAAAAAAAA"):
        assert_refused(client.post(f"/api/matches/{match_id}/seats", json={"name": "x"}), 404, match_id)
        assert_refused(
            client.post(
                f"/api/matches/{match_id}/actions",
                json={"action": "pass"},
                headers={"Authorization": f"Bearer {tokens[0]}"},
            ),
            404,
            match_id,
        )
        assert_refused(
            client.post(f"/api/matches/{match_id}/bots", json={}, headers={"Authorization": f"Bearer {owner}"}),
            404,
            match_id,
        )
    assert row_count(app) == before


@pytest.mark.parametrize(
    "query,status",
    [
        ("events?after=-1", 400),
        ("events?after=x", 400),
        ("events?after=" + "9" * 30, 200),
        ("view?wait=nan", 400),
        ("view?wait=inf", 400),
        ("view?wait=-1", 400),
        ("view?wait=1e400", 400),
        ("export?format=../../etc/passwd", 400),
        ("view?wait=0&wait=1", 200),
    ],
)
def test_hostile_query_strings(client, match, query, status):
    match_id, _, tokens = match
    reply = client.get(f"/api/matches/{match_id}/{query}", headers={"Authorization": f"Bearer {tokens[0]}"})
    if query.startswith("export"):
        status = 400
    assert reply.status_code == status, (query, reply.get_data(as_text=True)[:200])
    if status >= 400:
        assert reply.content_type.startswith(PROBLEM)


def test_405_names_the_allowed_methods(client):
    reply = client.delete("/api/matches")
    assert_refused(reply, 405, "DELETE")
    assert set(reply.headers["Allow"].replace(" ", "").split(",")) >= {"GET", "POST"}


# -- names with markup are data, shown inertly --------------------------------------------------
@pytest.fixture
def finished_with_markup(app):
    from audit_support import finished_match

    return finished_match(app, "koudiandian", {"hands": 1}, names=(MARKUP, "\u202eevil\u0000", "名" * 40))


def test_markup_in_names_is_stored_verbatim_and_never_served_as_html(app, client, finished_with_markup):
    match_id, _ = finished_with_markup
    summary = client.get(f"/api/matches/{match_id}")
    assert summary.content_type == "application/json"
    assert [s["name"] for s in summary.get_json()["seats"][:3]] == [MARKUP, "\u202eevil\u0000", "名" * 40]
    page = client.get(f"/replay/{match_id}")
    html = page.get_data(as_text=True)
    assert page.content_type.startswith("text/html")
    assert "<img" not in html and "onerror" not in html  # names are not in the page; frames.json brings them
    frames = client.get(f"/replay/{match_id}/frames.json")
    assert frames.content_type.startswith("application/json")
    assert frames.get_json()["seats"][0]["name"] == MARKUP
    for fmt in ("ndjson", "json", "text"):
        exported = client.get(f"/api/matches/{match_id}/export?format={fmt}")
        assert exported.status_code == 200
        assert not exported.content_type.startswith("text/html"), (fmt, exported.content_type)
    for path in (f"/api/matches/{match_id}/events", "/api/matches"):
        assert client.get(path).content_type == "application/json"


def test_match_id_in_the_replay_page_is_escaped(app, client, monkeypatch, finished_with_markup):
    """The page template echoes the id: even an id with markup (never issued) comes out escaped."""
    match_id, _ = finished_with_markup
    repo = services(app).match.repo
    real_load = repo.load
    monkeypatch.setattr(repo, "load", lambda _id: real_load(match_id))
    html = client.get("/replay/%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E").get_data(as_text=True)
    assert MARKUP not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
