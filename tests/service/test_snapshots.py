"""Snapshots: snapshot + tail == full fold; stale rules versions are ignored and rebuilt."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import engine
from engine.selfplay import play_match, seeds_from
from events import EventStore
from service.model import room as rooms
from service.infra import snapshots
from service.infra.repository import MatchRepository, engine_events, stream_of, to_new_event
from service.model.numbering import Numbering
from service.http.services import services

_MATCHES: dict = {}


def bot_match(variant: str, hands: int, label: str) -> list[dict]:
    """A whole bot-played match's engine events (memoised: hypothesis draws the same ones again)."""
    key = (variant, hands, label)
    if key not in _MATCHES:
        _MATCHES[key] = play_match(variant, {"hands": hands}, seeds_from(label))[1]
    return _MATCHES[key]


def stored_match(store: EventStore, match_id: str, events: list[dict], variant: str) -> None:
    created = {"type": rooms.MATCH_CREATED, "variant": variant, "options": {"hands": 1}, "owner_token_hash": "0" * 64}
    rows = [to_new_event(created)] + [to_new_event(e) for e in events]
    store.append(stream_of(match_id), 0, rows)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    variant=st.sampled_from(["koudiandian", "hanshan"]),
    hands=st.integers(1, 3),
    label=st.sampled_from(["a", "b", "c", "d"]),
    cut=st.floats(0, 1),
)
def test_snapshot_plus_tail_is_the_full_fold(variant, hands, label, cut):
    """Given a random bot-played match and a random cut point, when the state at the cut is
    snapshotted (encoded, decoded) and the rest folded onto it, then it equals the full fold."""
    events = bot_match(variant, hands, label)
    at = int(cut * len(events))
    full = engine.fold(events)
    state, room, _ = snapshots.decode(snapshots.encode(engine.fold(events[:at]), rooms.Room()))
    assert engine.fold(events[at:], state) == full
    assert engine.view(engine.fold(events[at:], state), 0) == engine.view(full, 0)
    assert room == rooms.Room()


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(label=st.sampled_from(["e", "f"]), every=st.integers(1, 200), cut=st.floats(0, 1))
def test_a_cold_load_from_the_stored_snapshot_equals_the_full_fold(tmp_path_factory, label, every, cut):
    """Given a stored match with a snapshot saved at a random version, when a fresh repository
    (nothing cached) loads it, then it is the full fold, read from that snapshot plus the tail."""
    store = EventStore.initialise(str(tmp_path_factory.mktemp("snap") / "s.db"))
    events = bot_match("koudiandian", 2, label)
    stored_match(store, "m", events, "koudiandian")
    warm = MatchRepository(store, snapshot_every=every)
    at = max(1, int(cut * (len(events) + 1)))
    mid = warm.at("m", at)
    warm.snapshots.save(stream_of("m"), at, mid.state, mid.room, numbering=mid.numbering)
    cold = MatchRepository(store, snapshot_every=10**9)
    assert cold._from_snapshot("m").version == at
    loaded = cold.load("m")
    assert loaded.version == len(events) + 1
    assert loaded.state == engine.fold(engine_events(store.read(stream_of("m"))))
    assert loaded.room == rooms.fold(store.read(stream_of("m")))
    # The per-viewer numbering (events hidden from each viewer) comes with the snapshot
    assert loaded.numbering == Numbering().extended((e.version, e.type, e.payload) for e in store.read(stream_of("m")))


def test_snapshots_are_written_at_hand_ends_and_every_n_events_through_the_service(app, api):
    """Given a match played over the API with snapshots every 50 events, then snapshots exist at
    hand ends and every 50 events, and each equals the fold of the events up to its version."""
    repo = services(app).match.repo
    repo.snapshots.every = 50
    import random

    match_id, _, tokens = api.new_match("hanshan", {"hands": 2}, humans=1)
    api.play_randomly(match_id, tokens, random.Random(3))
    store = repo.store
    rows = store.query("SELECT version, key FROM snapshots WHERE stream = ? ORDER BY version", [stream_of(match_id)])
    assert rows and all(key == snapshots.format_key() for _, key in rows)
    stored = store.read(stream_of(match_id))
    ends = [e.version for e in stored if e.type == "hand_ended"]
    versions = [v for v, _ in rows]
    for end in ends:  # the append that ended a hand left a snapshot at or after its end
        assert any(v >= end for v in versions)
    for version in versions:
        version_, state, room, _ = repo.snapshots.load(stream_of(match_id), version)
        assert version_ == version
        assert state == engine.fold(engine_events(stored[:version]))
        assert room == rooms.fold(stored[:version])


def test_a_changed_rules_version_ignores_old_snapshots_and_rebuilds_them(tmp_path, monkeypatch):
    """Given a snapshot written under rules version 1 (here deliberately wrong: the state after
    one event stamped as a later version), when the rules version changes, then a cold load
    ignores it (the full fold) and writes nothing, and the ticker's pass (keep_folded) writes a new
    snapshot in the new version's format."""
    store = EventStore.initialise(str(tmp_path / "r.db"))
    events = bot_match("hanshan", 1, "r")
    stored_match(store, "m", events, "hanshan")
    total = len(events) + 1
    bogus = engine.fold(events[:1])
    old_key = snapshots.format_key()
    store.save_snapshot(stream_of("m"), total, old_key, snapshots.encode(bogus, rooms.Room()))
    assert MatchRepository(store).load("m").state == bogus  # the (bogus) snapshot is trusted in its own version

    monkeypatch.setattr(engine, "RULES_VERSION", engine.RULES_VERSION + 1)
    assert snapshots.format_key() != old_key
    repo = MatchRepository(store, snapshot_every=10)
    loaded = repo.load("m")
    assert loaded.state == engine.fold(events)
    assert store.load_snapshot(stream_of("m"), snapshots.format_key()) is None  # a load never writes
    assert repo.keep_folded() == 1 and repo.keep_folded() == 0
    rebuilt = store.load_snapshot(stream_of("m"), snapshots.format_key())
    assert rebuilt is not None and rebuilt[0] == total
    assert snapshots.decode(rebuilt[1])[0] == engine.fold(events)
    assert store.load_snapshot(stream_of("m"), old_key)[0] == total  # the old one stays (never deleted)


def test_an_unreadable_snapshot_is_ignored(tmp_path):
    store = EventStore.initialise(str(tmp_path / "u.db"))
    events = bot_match("hanshan", 1, "u")
    stored_match(store, "m", events, "hanshan")
    store.save_snapshot(stream_of("m"), 5, snapshots.format_key(), b"not a pickle")
    assert MatchRepository(store).load("m").state == engine.fold(events)


@pytest.mark.parametrize(
    "before,after,types,due",
    [
        (10, 20, ["drew"], False),
        (95, 101, ["drew"], True),
        (10, 12, ["hand_ended"], True),
        (10, 12, ["match_ended"], True),
    ],
)
def test_when_a_snapshot_is_due(before, after, types, due):
    assert snapshots.Snapshots(None, 100).due(before, after, types) is due


def test_a_file_from_before_seals_gets_the_columns_and_its_unsealed_snapshots_are_never_read(tmp_path):
    """Given a database whose snapshots table predates seals, holding an unsealed snapshot
    in the old format (here a wrong state), when the store starts, then the seal columns are added,
    the old row is never read (the full fold), and the new snapshot written is sealed."""
    import pickle
    import sqlite3

    path = str(tmp_path / "old.db")
    conn = sqlite3.connect(path)
    conn.execute(
        "CREATE TABLE snapshots (stream TEXT NOT NULL, key TEXT NOT NULL, version INTEGER NOT NULL, "
        "keep INTEGER NOT NULL DEFAULT 1, data BLOB NOT NULL, created_at TEXT NOT NULL, UNIQUE (stream, key, version))"
    )
    conn.commit()
    conn.close()
    store = EventStore.initialise(path)
    conn = sqlite3.connect(path)
    events = bot_match("hanshan", 1, "old")
    stored_match(store, "m", events, "hanshan")
    total = len(events) + 1
    old_key = f"pickle{snapshots.PICKLE_PROTOCOL}-rules{engine.RULES_VERSION}-{snapshots.SHAPE}"
    bogus = pickle.dumps((engine.fold(events[:1]), rooms.Room()), protocol=snapshots.PICKLE_PROTOCOL)
    conn.execute(
        "INSERT INTO snapshots VALUES (?, ?, ?, 1, ?, 'then', NULL, NULL)", [stream_of("m"), old_key, total, bogus]
    )
    conn.commit()
    assert {"chain_hash", "seal"} <= {row[1] for row in conn.execute("PRAGMA table_info(snapshots)")}
    repo = MatchRepository(store, snapshot_every=10)
    assert repo.load("m").state == engine.fold(events)
    repo.keep_folded()  # the ticker's pass
    sealed = conn.execute("SELECT seal FROM snapshots WHERE key = ?", [snapshots.format_key()]).fetchall()
    assert sealed and all(row[0] for row in sealed)
