"""`tilefold copy SRC DST`: SQLite → PostgreSQL and back, every chain verified, resumable."""

import json

from events import EventStore, NewEvent, PostgresEventStore, Registry
from events.copy import copy_store
from service.cli import main


def fill(store, streams=5, appends=12):
    for s in range(streams):
        version = 0
        for n in range(appends):
            events = [NewEvent("move", {"s": s, "n": n, "k": k, "ü": "é"}) for k in range(1 + n % 3)]
            version = store.append(
                f"match-{s}", version, events, idempotency_key=f"key-{s}-{n}" if n % 5 == 0 else None
            ).last_version
    store.meta_set("answer", {"value": 42})


def same_streams(a, b):
    assert a.streams() == b.streams()
    for stream in a.streams():
        mine = [(r["version"], r["type"], r["payload"], r["recorded_at"], r["hash"]) for r in a.export_rows(stream)]
        theirs = [(r["version"], r["type"], r["payload"], r["recorded_at"], r["hash"]) for r in b.export_rows(stream)]
        assert mine == theirs, stream
        assert b.verify_stream(stream) == []


def test_copy_sqlite_to_postgres_and_back(tmp_path, pg_url, capsys):
    source_path, back_path = str(tmp_path / "source.db"), str(tmp_path / "back.db")
    source = EventStore.initialise(source_path, registry=Registry())
    fill(source)
    assert main(["copy", source_path, pg_url]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["verified"] and report["streams"] == 5 and report["rows_written"] == report["rows_read"]
    pg = PostgresEventStore(pg_url, registry=Registry())
    same_streams(source, pg)
    feed = [(e.stream, e.version) for e in pg.read_all()]
    assert feed == [(e.stream, e.version) for e in source.read_all()]  # the feed keeps the source's order
    assert pg.meta_get("answer") == {"value": 42}
    assert pg.idempotent_result("key-1-5") == source.idempotent_result("key-1-5")
    assert pg.append("match-0", pg.current_version("match-0"), [NewEvent("move", {})]).replayed is False
    assert main(["copy", pg_url, back_path]) == 0
    back = EventStore(back_path, registry=Registry())
    assert back.verify_stream("match-0") == [] and back.current_version("match-0") == pg.current_version("match-0")
    pg.close()


def test_an_interrupted_copy_resumes(tmp_path, pg_url):
    source = EventStore.initialise(str(tmp_path / "source.db"), registry=Registry())
    fill(source)
    destination = PostgresEventStore.initialise(pg_url, registry=Registry())

    class Interrupted(Exception):
        pass

    def stop_after_first_page(report):
        raise Interrupted

    try:
        copy_store(source, destination, page=17, progress=stop_after_first_page)
    except Interrupted:
        pass
    assert 0 < len(destination.read_all()) < len(source.read_all())
    report = copy_store(source, destination, page=17)
    assert report.ok and report.rows_written == len(source.read_all()) - 17
    same_streams(source, destination)
    again = copy_store(source, destination)
    assert again.ok and again.rows_written == 0
    destination.close()


def test_copy_refuses_a_missing_source(tmp_path, capsys):
    assert main(["copy", str(tmp_path / "nope.db"), str(tmp_path / "dst.db")]) == 2


def test_copy_carries_the_service_tables(tmp_path, pg_url, capsys):
    """A SQLite deployment with a webhook and a pending deadline, copied to PostgreSQL."""
    from correspondence_helpers import App

    t = App(tmp_path)
    match_id, owner = t.create("koudiandian", {"hands": 1}, deadline=3600)
    token = t.api.join(match_id, "human")
    assert (
        t.api.call("PUT", f"/api/matches/{match_id}/webhook", {"url": "https://example.org/h"}, token=token).status
        == 200
    )
    t.api.bots(match_id, owner)
    assert main(["copy", str(tmp_path / "tilefold.db"), pg_url]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["verified"]
    pg = PostgresEventStore(pg_url)
    assert pg.query("SELECT url FROM tf_webhooks") == [("https://example.org/h",)]
    assert pg.query("SELECT count(*) FROM tf_decisions")[0][0] >= 1
    pg.close()
