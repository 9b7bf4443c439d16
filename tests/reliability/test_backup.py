"""`tilefold backup` during play, then `tilefold restore` on another store and another node: every
action acknowledged before the backup began is there, every chain verifies; restore refuses a
database that is not empty."""

from __future__ import annotations

import json
import random
import threading

import pytest

from conftest import MatchClient, flask_transport
from service.cli import main

SEED = 2804


def test_a_backup_taken_during_play_restores_every_acknowledged_action(
    backend, tmp_path, monkeypatch, capsys, open_app
):
    monkeypatch.setenv("TILEFOLD_KEYS", str(tmp_path / "keys"))
    app = open_app({"DATABASE": backend.target, "TESTING": True})
    api = MatchClient(flask_transport(app.test_client()))
    matches = []
    for _ in range(3):
        match_id, owner = api.create("koudiandian", {"hands": 1})
        tokens = [api.join(match_id, f"p{seat}") for seat in range(4)]
        matches.append((match_id, tokens))
    acknowledged: list[tuple[str, int]] = []
    stop, rng = threading.Event(), random.Random(SEED)

    def play() -> None:
        """Random legal moves on every match until told to stop; each 200 is an acknowledged version."""
        while not stop.is_set():
            for match_id, tokens in matches:
                for token in tokens:
                    view = api.view(match_id, token).body
                    if view["status"] == "over" or not view["legal_actions"]:
                        continue
                    reply = api.act(match_id, token, rng.choice(view["legal_actions"]), view["version"])
                    if reply.status == 200:
                        acknowledged.append((f"match-{match_id}", reply.body["version"]))

    player = threading.Thread(target=play, daemon=True)
    player.start()
    try:
        while len(acknowledged) < 20 and player.is_alive():
            threading.Event().wait(0.05)
        before = list(acknowledged)  # acknowledged before the backup began
        file = str(tmp_path / "backup.db")
        assert main(["backup", file, "--db", backend.target]) == 0, f"seed {SEED}"
        report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        assert report["verified"] and report["streams"] >= 3, report
        during = len(acknowledged) - len(before)
    finally:
        stop.set()
        player.join(30)
    assert before, f"seed {SEED}: no move was acknowledged before the backup"
    other = str(tmp_path / "restored.db") if backend.name == "postgresql" else _pg_target()
    assert main(["restore", file, other]) == 0, capsys.readouterr().err
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["verified"]
    from events import Registry, open_store

    restored = open_store(other, registry=Registry())
    for stream, version in before:
        assert restored.current_version(stream) >= version, (f"seed {SEED}", stream, version, during)
    assert all(restored.verify_stream(stream) == [] for stream in restored.streams())
    node = open_app({"DATABASE": other, "TESTING": True})  # another node on the restored database
    other_api = MatchClient(flask_transport(node.test_client()))
    for match_id, tokens in matches:  # the tokens' verifiers came along (tf_tokens): every seat is known
        assert [other_api.view(match_id, token).body["seat"] for token in tokens] == [0, 1, 2, 3]
    assert restored.query("SELECT count(*) FROM tf_tokens")[0][0] == 3 * 5  # four seats and the owner each
    restored.close()


_made: list = []


def _pg_target() -> str:
    from tests.backends import PostgresBackend, require_pg

    made = PostgresBackend(require_pg())
    _made.append(made)
    return made.target


@pytest.fixture(autouse=True)
def _drop_made_schemas():
    yield
    while _made:
        _made.pop().close()


def test_restore_refuses_a_database_that_is_not_empty(tmp_path, backend, capsys):
    from events import NewEvent, Registry

    store = backend.store(registry=Registry())
    store.append("match-x", 0, [NewEvent("move", {"n": 1})])
    file = str(tmp_path / "backup.db")
    assert main(["backup", file, "--db", backend.target]) == 0
    capsys.readouterr()
    assert main(["restore", file, backend.target]) == 2
    assert "the destination must be empty" in capsys.readouterr().err
    assert store.current_version("match-x") == 1
    assert main(["backup", file, "--db", backend.target]) == 2  # never overwrites
    assert "never overwrites" in capsys.readouterr().err
