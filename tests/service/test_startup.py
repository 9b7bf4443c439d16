"""Start-up: which database a command opens, and one line with the cause and the fix (exit 2, no
traceback, no 30 s of pool retries) when it cannot; a read-only role can export (no DDL for reads)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid

import pytest

from service.cli import main
from tests.ports import free_port

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True)
def no_server(monkeypatch):
    """serve must refuse before it starts gunicorn: reaching it is a failure of the test."""
    import service.cli

    def reached(options):
        raise AssertionError("serve went on to start gunicorn")

    monkeypatch.setattr(service.cli, "gunicorn_app", reached)
    for name in ("TILEFOLD_DB", "TILEFOLD_REQUIRE_DB", "DATABASE_URL", "PGHOST", "PGDATABASE", "PGSERVICE"):
        monkeypatch.delenv(name, raising=False)


def refused(argv: list[str], capsys) -> str:
    """Run the command; it must exit 2 within 15 s with exactly one line on stderr, no traceback."""
    started = time.monotonic()
    assert main(argv) == 2
    assert time.monotonic() - started < 15
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith(f"tilefold {argv[0]}: ")
    return lines[0]


def server(url: str) -> str:
    """scheme://user@host:port of the test server's URL."""
    return url.split("/tilefold_test")[0]


def test_a_server_that_is_down_is_named_with_the_fix(capsys):
    line = refused(["serve", "--db", f"postgresql://postgres@127.0.0.1:{free_port()}/tilefold"], capsys)
    assert "nothing answers at postgresql://postgres@127.0.0.1:" in line and "start PostgreSQL or fix the URL" in line


def test_refused_credentials_are_named_with_the_fix(pg_url, capsys):
    host = server(pg_url).split("@")[1]
    line = refused(["serve", "--db", f"postgresql://nobody:s3cret@{host}/tilefold_test"], capsys)
    assert "refused the credentials of role nobody" in line and "fix the user and password" in line
    assert "s3cret" not in line


def test_a_missing_database_and_a_wrong_url_are_named_with_the_fix(pg_url, capsys):
    line = refused(["export", "m", "--db", f"{server(pg_url)}/no_such_db_here"], capsys)
    assert "there is no database 'no_such_db_here'" in line and "createdb" in line
    line = refused(["serve", "--db", f"{server(pg_url)}/tilefold_test?sslmode=sometimes"], capsys)
    assert "the PostgreSQL URL is not valid" in line and "postgresql://USER:PASSWORD@HOST:5432/DATABASE" in line


def test_a_missing_sqlite_folder_is_named_with_the_fix(tmp_path, capsys):
    line = refused(["serve", "--db", str(tmp_path / "no" / "such" / "m.db")], capsys)
    assert "its folder does not exist" in line


def test_a_schema_newer_than_the_code_is_refused_with_the_fix(pg_url, capsys):
    from events import PostgresEventStore

    PostgresEventStore.initialise(pg_url).close()
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("INSERT INTO schema_version (version, name, applied_at) VALUES (99, 'future', 'x')")
    for command in (["serve"], ["export", "m"], ["migrate"], ["tick"]):
        line = refused([*command, "--db", pg_url], capsys)
        assert "schema version 99, this tilefold knows only up to" in line and "run the newer tilefold" in line


def test_missing_privileges_are_named_with_the_fix(pg_url, capsys):
    """A role that may connect but not create tables in an empty schema: serve cannot make the schema."""
    import psycopg

    role = "tf_noprivs_" + uuid.uuid4().hex[:8]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN")
        schema = conn.execute("SELECT current_schema()").fetchone()[0]
        conn.execute(f"GRANT USAGE ON SCHEMA {schema} TO {role}")
    try:
        url = pg_url.replace("postgresql://postgres@", f"postgresql://{role}@")
        line = refused(["serve", "--db", url], capsys)
        assert f"the database role {role} lacks a privilege" in line and "tilefold migrate" in line
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f"DROP OWNED BY {role}")
            conn.execute(f"DROP ROLE {role}")


def test_no_silent_sqlite_default_in_a_postgresql_deployment(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PGHOST", "db.internal")
    line = refused(["serve"], capsys)
    assert "TILEFOLD_DB is unset, so this would open the SQLite file" in line and "PGHOST" in line
    assert not (tmp_path / "tilefold.db").exists()
    monkeypatch.delenv("PGHOST")
    monkeypatch.setenv("TILEFOLD_REQUIRE_DB", "postgresql")
    line = refused(["tick", "--db", str(tmp_path / "m.db")], capsys)
    assert "TILEFOLD_REQUIRE_DB says postgresql but the database is sqlite" in line


def test_postgres_scheme_means_postgresql(pg_url, capsys):
    """libpq accepts postgres:// as well as postgresql://, and so does every command."""
    url = "postgres://" + pg_url.split("://", 1)[1]
    assert main(["migrate", "--db", url]) == 0
    assert '"pending": false' in capsys.readouterr().out
    from events import PostgresEventStore, open_store

    store = open_store(url)
    assert isinstance(store, PostgresEventStore) and store.schema_version() >= 2


def test_the_banner_says_which_database_and_whether_it_is_the_default(tmp_path, monkeypatch):
    from service.cli import banner

    assert "(SQLite; TILEFOLD_DB unset: the default)" in banner("tilefold.db", "127.0.0.1:8000")
    monkeypatch.setenv("TILEFOLD_DB", "postgresql://u:pw@db/x")
    text = banner("postgresql://u:pw@db/x", "127.0.0.1:8000")
    assert "(PostgreSQL)" in text and "pw" not in text


def test_the_real_command_prints_one_line_and_no_traceback():
    """The installed entry point, as an operator runs it (a fresh interpreter, its own stderr)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TILEFOLD_", "PG"))}
    env["PYTHONPATH"] = ROOT
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "serve", "--db", f"postgresql://u@127.0.0.1:{free_port()}/x"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 2 and time.monotonic() - started < 20
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr, done.stderr


# -- a read-only role --------------------------------------------------------------------------------
def test_a_read_only_role_can_export(pg_url, tmp_path, monkeypatch, capsys, open_app):
    """A role with SELECT only (a reporting or audit account): export runs no DDL at start-up."""
    import psycopg

    from audit_support import finished_match

    monkeypatch.setenv("TILEFOLD_KEYS", str(tmp_path / "keys"))
    app = open_app({"DATABASE": pg_url, "TESTING": True, "SNAPSHOT_EVERY": 0})
    match_id, _ = finished_match(app, "koudiandian", {"hands": 1})
    assert main(["export", match_id, "--db", pg_url]) == 0
    as_owner = capsys.readouterr().out
    role = "tf_reader_" + uuid.uuid4().hex[:8]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        schema = conn.execute("SELECT current_schema()").fetchone()[0]
        conn.execute(f"CREATE ROLE {role} LOGIN")
        conn.execute(f"GRANT USAGE ON SCHEMA {schema} TO {role}")
        conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {role}")
    try:
        url = pg_url.replace("postgresql://postgres@", f"postgresql://{role}@")
        assert main(["export", match_id, "--db", url]) == 0, capsys.readouterr().err
        assert capsys.readouterr().out == as_owner
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f"DROP OWNED BY {role}")
            conn.execute(f"DROP ROLE {role}")


# -- the privileges docs/OPERATIONS.md lists for a serving node ------------------------------------
def node_grants(schema: str, role: str) -> list[str]:
    """The doc's block of grants (tests/project/test_grants_doc.py: it names every table), for
    this schema and role instead of the doc's example names."""
    import re

    doc = open(os.path.join(ROOT, "docs", "OPERATIONS.md"), encoding="utf-8").read()
    (block,) = re.findall(r"<!-- grants: node -->\n```sql\n(.*?)```", doc, re.S)
    lines = [line.strip().rstrip(";") for line in block.splitlines() if line.strip()]
    return [line.replace("SCHEMA public", f"SCHEMA {schema}").replace("tilefold_node", role) for line in lines]


def an_account_lives_and_goes(app, push_endpoint: str) -> None:
    """Sign up with a passkey, sign in again, renew and use a recovery code, make and use an API
    token, subscribe a device to Web Push, read a leaderboard, sign out everywhere, delete."""
    from webauthn_support import Passkey

    client = app.test_client()
    client.get("/account")
    csrf = client.get_cookie("tf_csrf").value

    def post(path, body=None, **headers):
        reply = client.post(path, json=body or {}, headers={"X-CSRF-Token": csrf, **headers})
        assert reply.status_code in (200, 201), (path, reply.status_code, reply.get_json())
        return reply.get_json()

    passkey = Passkey()
    options = post("/web/account/sign-up/options", {"name": "Ada"})
    post("/web/account/sign-up", {"credential": passkey.create(options)})
    post("/web/account/sign-in", {"credential": passkey.get(post("/web/account/sign-in/options"))})
    code = post("/web/account/recovery-codes")["recovery_codes"][0]
    fresh = Passkey()
    post("/web/account/recover", {"credential": fresh.create(post("/web/account/recover/options", {"code": code}))})
    token = post("/web/account/tokens", {"name": "script"})["token"]
    made = client.post(
        "/api/matches",
        json={"variant": "hanshan", "options": {"hands": 1}},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert made.status_code == 201, made.get_json()
    assert client.get("/web/account/tokens").get_json()["tokens"][0]["last_used"] is not None
    keys = {"p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM"}
    keys["auth"] = "tBHItJI5svbpez7KI4CCXg"
    post("/web/account/push", {"subscription": {"endpoint": push_endpoint, "keys": keys}})
    assert client.get("/api/leaderboards/hanshan").status_code in (200, 404)
    assert client.get("/leaderboards").status_code == 200
    post("/web/account/sign-out-everywhere")
    post("/web/account/sign-in", {"credential": fresh.get(post("/web/account/sign-in/options"))})
    post("/web/account/delete")


def test_a_node_role_with_the_documented_privileges_serves_and_ticks(pg_url, tmp_path, monkeypatch):
    """A role with only the grants of docs/OPERATIONS.md ("The privileges a node needs") starts,
    takes matches, moves, a webhook, snapshots, the ticker's lease and a deadline settled by tick,
    and an account's whole life (passkeys, sessions, recovery, API token, Web Push, deletion)."""
    import psycopg

    from audit_support import seeded_deals
    from correspondence_helpers import HOUR, App
    from events import PostgresEventStore
    from service.http.services import services

    monkeypatch.setenv("TILEFOLD_KEYS", str(tmp_path / "keys"))
    # a first discard that asks at most one seat, so that one tick settles one decision: every run
    seeded_deals(monkeypatch, "node-role-ticks")
    PostgresEventStore.initialise(pg_url).close()  # `tilefold migrate` as the schema's owner
    role = "tf_node_" + uuid.uuid4().hex[:8]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        schema = conn.execute("SELECT current_schema()").fetchone()[0]
        conn.execute(f"CREATE ROLE {role} LOGIN")
        for grant in node_grants(schema, role):
            conn.execute(grant)
    try:
        url = pg_url.replace("postgresql://postgres@", f"postgresql://{role}@")
        t = App(tmp_path, DATABASE=url, SNAPSHOT_EVERY=2)
        match_id, _, tokens = t.match()
        hook = {"url": "http://127.0.0.1:9/hook"}
        assert t.api.call("PUT", f"/api/matches/{match_id}/webhook", hook, token=tokens[1]).status == 200
        mover = next(token for token in tokens if t.api.view(match_id, token).body["legal_actions"])
        discard = next(a for a in t.api.view(match_id, mover).body["legal_actions"] if a["action"] == "discard")
        t.act(match_id, mover, "discard", discard["tile"])
        t.clock.advance(HOUR + 1)
        assert t.svc.tick()["matches_settled"] == 1
        assert len(t.reasons(match_id, "timeout")) == 1
        assert t.svc.repo.store.query("SELECT count(*) FROM snapshots")[0][0] >= 1
        ticker = services(t.app).ticker
        assert ticker.run_once() is not None  # took the lease (tf_leases)
        ticker.stop()  # gives it up
        assert t.app.test_client().get("/readyz").status_code == 200
        an_account_lives_and_goes(t.app, "http://127.0.0.1:9/push/0")
        assert t.svc.repo.store.query("SELECT count(*) FROM tf_account_keys")[0][0] == 0  # deleted
        t.svc.repo.store.close()
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f"DROP OWNED BY {role}")
            conn.execute(f"DROP ROLE {role}")
