"""`tilefold copy SRC DST`: SQLite → PostgreSQL and back, every chain verified, resumable; a
destination whose history differs from the source's is refused and left as it was."""

import json

import pytest

from events import ChainMismatch, EventStore, NewEvent, PostgresEventStore, Registry
from events.copy import CopyRefused, copy_store
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
    assert main(["copy", source_path, pg_url, "--live"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["verified"] and report["streams"] == 5 and report["rows_written"] == report["rows_read"]
    pg = PostgresEventStore(pg_url, registry=Registry())
    same_streams(source, pg)
    feed = [(e.stream, e.version) for e in pg.read_all()]
    assert feed == [(e.stream, e.version) for e in source.read_all()]  # the feed keeps the source's order
    assert pg.meta_get("answer") == {"value": 42}
    assert pg.idempotent_result("key-1-5") == source.idempotent_result("key-1-5")
    assert pg.append("match-0", pg.current_version("match-0"), [NewEvent("move", {})]).replayed is False
    assert main(["copy", pg_url, back_path, "--live"]) == 0
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


def test_copy_carries_the_service_tables(tmp_path, pg_url, capsys, open_app):
    """A SQLite deployment with a webhook, a pending deadline and its tokens' verifiers, copied to
    PostgreSQL: a node there with the same key directory knows the seat's and the owner's tokens."""
    from conftest import MatchClient, flask_transport
    from correspondence_helpers import App

    t = App(tmp_path)
    match_id, owner = t.create("koudiandian", {"hands": 1}, deadline=3600)
    token = t.api.join(match_id, "human")
    assert (
        t.api.call("PUT", f"/api/matches/{match_id}/webhook", {"url": "https://example.org/h"}, token=token).status
        == 200
    )
    t.api.bots(match_id, owner)
    assert main(["copy", str(tmp_path / "tilefold.db"), pg_url, "--live"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["verified"]
    pg = PostgresEventStore(pg_url)
    assert pg.query("SELECT url FROM tf_webhooks") == [("https://example.org/h",)]
    assert pg.query("SELECT count(*) FROM tf_decisions")[0][0] >= 1
    verifiers = "SELECT stream, seat, verifier, created_at FROM tf_tokens ORDER BY stream, seat"
    assert pg.query(verifiers) == t.svc.repo.store.query(verifiers) and len(pg.query(verifiers)) == 2
    pg.close()
    keys = str(tmp_path / ".tilefold.db.keys")  # the SQLite deployment's key directory (beside its file)
    node = MatchClient(flask_transport(open_app({"DATABASE": pg_url, "TESTING": True, "KEYS": keys}).test_client()))
    assert node.view(match_id, token).body["seat"] == 0
    assert node.call("PUT", f"/api/matches/{match_id}/spectating", {"enabled": False}, token=token).status == 403
    assert node.call("PUT", f"/api/matches/{match_id}/spectating", {"enabled": False}, token=owner).status == 200


# -- a destination that is not a prefix of the source: refused, nothing written ----------------
def contents(store):
    """Everything a copy could write: events, heads and the store's side tables."""
    tables = {
        "events": "SELECT stream, version, hash, recorded_at FROM events ORDER BY stream, version",
        "heads": "SELECT stream, version, hash FROM stream_heads ORDER BY stream",
        "idempotency": "SELECT key, stream FROM idempotency ORDER BY key",
        "meta": "SELECT key, value FROM meta ORDER BY key",
        "outbox": "SELECT stream, payload FROM outbox ORDER BY id",
        "decisions": "SELECT stream, seat, version FROM tf_decisions ORDER BY stream, seat",
    }
    return {name: [tuple(row) for row in store.query(sql)] for name, sql in tables.items()}


@pytest.fixture
def split(tmp_path, backend):
    """A source (SQLite) copied once to the destination (each backend); then both took an append
    to match-0 that the other lacks (the old server and the new node both accepted a move)."""
    source = EventStore.initialise(str(tmp_path / "source.db"), registry=Registry())
    fill(source, streams=3, appends=4)
    destination = backend.store(registry=Registry())
    assert copy_store(source, destination).ok
    version = source.current_version("match-0")
    source.append("match-0", version, [NewEvent("move", {"by": "old server"})])
    destination.append("match-0", version, [NewEvent("move", {"by": "new node"})])
    source.append("match-1", source.current_version("match-1"), [NewEvent("move", {"by": "old server"})])
    return source, destination, backend


def test_a_copy_onto_a_destination_that_took_writes_is_refused_and_writes_nothing(split):
    source, destination, _ = split
    before = contents(destination)
    with pytest.raises(CopyRefused) as refused:
        copy_store(source, destination)
    assert refused.value.differences == [refused.value.differences[0]]
    assert refused.value.differences[0].startswith("match-0: v8 differs")
    assert "diverged" in str(refused.value) and "nothing written" in str(refused.value)
    assert contents(destination) == before  # match-1's new row was not copied either


def test_the_copy_command_says_what_differs_and_exits_2(split, capsys):
    source, destination, backend = split
    before = contents(destination)
    assert main(["copy", source.path, backend.target, "--live"]) == 2
    err = capsys.readouterr().err
    assert "refused, nothing written" in err and "match-0: v8 differs" in err
    assert contents(destination) == before


def test_a_copy_with_its_arguments_swapped_is_refused(tmp_path, backend, capsys):
    """After a first copy the old database took one more move; the catch-up copy is typed the
    wrong way round (new → old): the destination is ahead of the source. Or the source is empty
    and the destination is not."""
    source = EventStore.initialise(str(tmp_path / "source.db"), registry=Registry())
    fill(source, streams=2, appends=3)
    destination = backend.store(registry=Registry())
    assert copy_store(source, destination).ok
    source.append("match-1", source.current_version("match-1"), [NewEvent("move", {})])
    before = contents(source)
    assert main(["copy", backend.target, source.path, "--live"]) == 2
    assert "match-1: the destination is at v7, the source only at v6" in capsys.readouterr().err
    assert contents(source) == before
    empty = EventStore.initialise(str(tmp_path / "empty.db"), registry=Registry())
    with pytest.raises(CopyRefused, match="the source holds no events"):
        copy_store(empty, destination)
    assert empty.streams() == []


def test_a_copy_into_an_unrelated_database_is_refused(tmp_path, backend):
    source = EventStore.initialise(str(tmp_path / "source.db"), registry=Registry())
    fill(source, streams=2, appends=3)
    destination = backend.store(registry=Registry())
    destination.append("match-0", 0, [NewEvent("move", {"other": "deployment"})])
    destination.append("elsewhere", 0, [NewEvent("move", {})])
    before = contents(destination)
    with pytest.raises(CopyRefused) as refused:
        copy_store(source, destination)
    assert refused.value.differences[0].startswith("elsewhere: only in the destination (v1)")
    assert refused.value.differences[1].startswith("match-0: v1 differs")
    assert contents(destination) == before


def test_import_rows_refuses_rows_of_another_history(tmp_path, backend):
    """The store itself checks that imported rows chain from its head (a copy's last guard)."""
    other = EventStore.initialise(str(tmp_path / "other.db"), registry=Registry())
    other.append("match-0", 0, [NewEvent("move", {"n": 1}), NewEvent("move", {"n": 2})])
    store = backend.store(registry=Registry())
    store.append("match-0", 0, [NewEvent("move", {"n": "mine"})])
    with pytest.raises(ChainMismatch, match="v2: does not follow on from the stored head"):
        store.import_rows("match-0", other.export_rows("match-0"))
    assert store.current_version("match-0") == 1 and store.verify_stream("match-0") == []


def test_copy_refuses_a_source_written_moments_ago(tmp_path, capsys):
    source = EventStore.initialise(str(tmp_path / "source.db"), registry=Registry())
    fill(source, streams=1, appends=2)
    destination = str(tmp_path / "dst.db")
    assert main(["copy", source.path, destination]) == 2
    assert "a server may still be writing to it; stop it first" in capsys.readouterr().err
    assert EventStore(destination, registry=Registry()).streams() == []


# -- side tables follow the events -------------------------------------------------------------------
def test_a_catch_up_copy_leaves_working_deadlines(tmp_path, backend, capsys):
    """The old server took a move after the first copy: the catch-up copy replaces the match's
    pending-deadline rows with the source's, so the deadline fires once on the new database."""
    from correspondence_helpers import HOUR, App

    old = App(tmp_path)
    match_id, _, tokens = old.match()
    destination = backend.store()
    assert main(["copy", str(tmp_path / "tilefold.db"), backend.target, "--live"]) == 0
    mover = next(t for t in tokens if old.api.view(match_id, t).body["legal_actions"])
    discard = next(a for a in old.api.view(match_id, mover).body["legal_actions"] if a["action"] == "discard")
    old.act(match_id, mover, "discard", discard["tile"])
    assert main(["copy", str(tmp_path / "tilefold.db"), backend.target, "--live"]) == 0
    stream = f"match-{match_id}"
    rows = "SELECT seat, since, due_at, version FROM tf_decisions WHERE stream = ? ORDER BY seat"
    assert destination.query(rows, [stream]) == old.svc.repo.store.query(rows, [stream])
    new = App(tmp_path, DATABASE=backend.target)
    new.clock.set(old.clock.now())
    new.clock.advance(HOUR + 1)
    assert new.svc.tick()["matches_settled"] == 1
    assert len(new.reasons(match_id, "timeout")) == 1
    assert new.svc.tick()["matches_settled"] == 0  # nothing stale left due


def test_copy_carries_pending_webhook_notices_once(tmp_path, backend, capsys):
    """A receiver is down: its notices are pending at the source; the copy carries them (the
    destination's nodes deliver them), and a catch-up copy does not add them twice."""
    from correspondence_helpers import App

    old = App(tmp_path)
    match_id, owner = old.create("koudiandian", {"hands": 1}, deadline=3600)
    token = old.api.join(match_id, "human")
    hook = {"url": "http://127.0.0.1:9/hook"}  # nothing listens on port 9
    assert old.api.call("PUT", f"/api/matches/{match_id}/webhook", hook, token=token).status == 200
    old.api.bots(match_id, owner)
    pending = old.svc.repo.store.query("SELECT stream, payload FROM outbox WHERE delivered_at IS NULL ORDER BY id")
    assert pending
    destination = backend.store()
    for _ in range(2):
        assert main(["copy", str(tmp_path / "tilefold.db"), backend.target, "--live"]) == 0
        report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        assert report["verified"]
        got = destination.query("SELECT stream, payload FROM outbox WHERE delivered_at IS NULL ORDER BY id")
        assert got == pending


def test_a_source_written_during_the_copy_is_caught_up_or_reported(tmp_path, backend):
    """Appends to the source while the copy reads it: the copy goes round again and ends equal;
    a source that moves in every round is reported (`source_moved`), never claimed verified."""
    source = EventStore.initialise(str(tmp_path / "source.db"), registry=Registry())
    fill(source, streams=2, appends=3)
    destination = backend.store(registry=Registry())
    writes = iter(range(1))

    def write_once(report):  # after the round's last page: the next round copies it
        if report.rows_read == 12:
            for n in writes:
                source.append("match-0", source.current_version("match-0"), [NewEvent("move", {"late": n})])

    report = copy_store(source, destination, page=5, progress=write_once)
    assert report.ok and report.rounds == 2 and not report.source_moved
    same_streams(source, destination)

    def write_always(report):
        source.append("match-1", source.current_version("match-1"), [NewEvent("move", {"again": True})])

    report = copy_store(source, destination, page=5, progress=write_always, rounds=2)
    assert report.source_moved and not report.ok and report.rounds == 2
    assert destination.verify_stream("match-1") == [] and report.mismatched == []
