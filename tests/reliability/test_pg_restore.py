"""pg_dump + pg_restore into a FRESH cluster, then play on: feed positions are made of transaction
ids and a new cluster's ids start lower, so the store re-seeds them at start-up (tf_feed.shift,
events/pg_schema.py reseed_feed): 100 new matches answer 201, and the feed skips nothing."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests import pgserver
from tests.backends import drop_schema, new_schema_url, require_pg
from service.http.services import services

MATCHES_BEFORE, MATCHES_AFTER = 5, 100


@pytest.fixture
def fresh_cluster():
    """A second, new PostgreSQL cluster (initdb as the `postgres` user when root), stopped after."""
    if pgserver.binaries() is None:
        pytest.skip("no PostgreSQL server binaries (apt-get install postgresql)")
    folder = pgserver.new_folder()
    try:
        yield pgserver.start(folder)
    finally:
        pgserver.stop(folder)


def create_matches(client, count: int) -> list[int]:
    statuses = []
    for _ in range(count):
        reply = client.post("/api/matches", json={"variant": "koudiandian", "options": {"hands": 1}})
        statuses.append(reply.status_code)
    return statuses


def test_a_dump_restored_into_a_fresh_cluster_takes_new_matches_and_the_feed_skips_nothing(
    fresh_cluster, tmp_path, monkeypatch
):
    from service.app import create_app

    monkeypatch.setenv("TILEFOLD_KEYS", str(tmp_path / "keys"))
    base = require_pg()
    schema, url = new_schema_url(base)
    try:
        old = create_app({"DATABASE": url, "TESTING": True})
        assert create_matches(old.test_client(), MATCHES_BEFORE) == [201] * MATCHES_BEFORE
        services(old).match.repo.store.close()
        dump = str(tmp_path / "tilefold.dump")
        tools = pgserver.binaries()
        run = dict(capture_output=True, text=True, timeout=120, check=True)
        subprocess.run([os.path.join(tools, "pg_dump"), "-Fc", "-n", schema, "-f", dump, "-d", base], **run)
    finally:
        drop_schema(base, schema)
    subprocess.run([os.path.join(tools, "pg_restore"), "--no-owner", "-d", fresh_cluster, dump], **run)
    restored = f"{fresh_cluster}?options=-csearch_path%3D{schema}"

    import psycopg

    with psycopg.connect(restored, autocommit=True) as conn:
        top, xid = conn.execute("SELECT max(position), pg_current_xact_id()::text::bigint FROM events").fetchone()
    assert top >> 20 > xid, "the restored positions must lie above the new cluster's transaction ids"

    new = create_app({"DATABASE": restored, "TESTING": True})  # starts as a node does: re-seeds the feed
    store = services(new).match.repo.store
    passed = store.read_all()[-1].position  # a feed reader that had read everything before the restore
    assert passed == top
    statuses = create_matches(new.test_client(), MATCHES_AFTER)
    assert [s for s in statuses if s >= 500] == [] and statuses == [201] * MATCHES_AFTER
    feed = store.read_all()
    positions = [e.position for e in feed]
    assert positions == sorted(set(positions))  # strictly increasing: no duplicate, no reorder
    stored = {(row[0], row[1]) for row in store.query("SELECT stream, version FROM events")}
    assert {(e.stream, e.version) for e in feed} == stored  # the feed holds every stored event
    later = store.read_all(after_position=passed)
    assert len(later) == len(stored) - len([e for e in feed if e.position <= passed]) > 0
    assert len({e.stream for e in later}) == MATCHES_AFTER  # every new match is past the reader's cursor
    store.close()
