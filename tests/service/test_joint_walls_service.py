"""G-11 joint walls through the service: the server commits to its chain in match_created, before
any seat can join; each seat's part (sent when it joins) goes into every hand's wall; a seat that
sends none adds nothing and the deal never waits; matches created before joint walls still deal
from server seeds and verify as before; verify shows each hand's derivation."""

from __future__ import annotations

import hashlib

import random

from audit_support import rows_of
from engine.wall import chain_step, joint_seed
from service.cli import main
from service.usecases import match_log
from service.http.services import services


def _join(client, match_id, name, randomness=None):
    body = {"name": name} if randomness is None else {"name": name, "randomness": randomness}
    reply = client.post(f"/api/matches/{match_id}/seats", json=body)
    assert reply.status_code == 201, reply.get_json()
    return reply.get_json()["token"]


def _play_out(app, match_id):
    """Every pending human decision taken by the engine's bot until the match ends."""
    import engine

    svc = services(app).match
    for _ in range(50_000):
        loaded = svc.repo.load(match_id)
        if loaded.over:
            return
        seat = engine.pending_seats(loaded.state)[0]
        svc.act(match_id, seat, engine.bot_action(loaded.state, seat), None)
    raise AssertionError("the match did not end")


def test_G11_seat_parts_go_into_every_hand_and_verify_shows_the_derivation(app, client, tmp_path, capsys):
    """Given a match where two seats send their randomness and two bots add none, then the
    commitment is in match_created (version 1), each hand is dealt from the next link of the
    server's chain with exactly those parts, the server's part is hidden from the seats until the
    hand ends, and verify re-derives and prints every hand's wall."""
    rng = random.Random(27)
    print("seed 27")
    parts = [rng.randbytes(32).hex(), rng.randbytes(32).hex()]
    made = client.post("/api/matches", json={"variant": "koudiandian", "options": {"hands": 2}}).get_json()
    match_id, owner = made["id"], made["owner_token"]
    tokens = [_join(client, match_id, "Ann", parts[0]), _join(client, match_id, "Bo", parts[1])]
    view = client.get(f"/api/matches/{match_id}/view", headers={"Authorization": "Bearer " + tokens[1]}).get_json()
    assert view["randomness"]["seat_part"] == parts[1] and view["randomness"]["protocol"] == "joint"
    client.post(f"/api/matches/{match_id}/bots", json={}, headers={"Authorization": "Bearer " + owner})
    feed = client.get(f"/api/matches/{match_id}/events", headers={"Authorization": "Bearer " + tokens[0]}).get_json()
    seen = next(e for e in feed["events"] if e["type"] == "hand_started")
    assert seen["payload"]["wall_parts"] == {"server": None, "seats": parts + [None, None]}
    _play_out(app, match_id)
    body = client.get(f"/api/matches/{match_id}/export").get_data(as_text=True)
    rows = rows_of(body)
    assert rows[0]["type"] == "match_created"
    previous = rows[0]["payload"]["wall_commitment"]
    started = [r["payload"] for r in rows if r["type"] == "hand_started"]
    assert len(started) == 2
    for number, hand in enumerate(started, start=1):
        server = bytes.fromhex(hand["wall_parts"]["server"])
        assert chain_step(server).hex() == previous  # the next link of the committed chain
        assert hand["wall_parts"]["seats"] == parts + [None, None]
        assert hand["seed"] == joint_seed(server, number, [bytes.fromhex(p) for p in parts] + [None, None]).hex()
        previous = hand["wall_parts"]["server"]
    path = tmp_path / "log.ndjson"
    path.write_text(body, encoding="utf-8")
    capsys.readouterr()
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "walls: joint walls" in out[0]
    assert [line.strip().split(":")[0] for line in out[1:]] == ["hand 1", "hand 2"]
    assert parts[0][:8] in out[1] and "✓" in out[1]


def test_G11_a_changed_commitment_or_seat_part_fails_verify(app, client):
    """Given a finished joint-walls match, when match_created's commitment is swapped (the
    published one differs from the one dealt from), or a seat's part is changed in a re-chained
    log, then verify fails naming the walls or the deal."""
    from audit_support import rehash

    made = client.post("/api/matches", json={"variant": "hanshan", "options": {"hands": 1}}).get_json()
    _join(client, made["id"], "Ann", "ab" * 32)
    client.post(f"/api/matches/{made['id']}/bots", json={}, headers={"Authorization": "Bearer " + made["owner_token"]})
    _play_out(app, made["id"])
    rows = rows_of(client.get(f"/api/matches/{made['id']}/export").get_data(as_text=True))
    assert match_log.verify_rows(rows).ok
    swapped = [dict(r, payload=dict(r["payload"])) for r in rows]
    swapped[0]["payload"]["wall_commitment"] = "cd" * 32
    verdict = match_log.verify_rows(rehash(swapped))
    assert not verdict.ok and verdict.text().startswith("FAIL: walls: match_started's wall commitment"), verdict.text()
    changed = [dict(r, payload=dict(r["payload"])) for r in rows]
    started = next(r for r in changed if r["type"] == "hand_started")
    started["payload"]["wall_parts"] = {**started["payload"]["wall_parts"], "seats": ["ef" * 32, None, None, None]}
    verdict = match_log.verify_rows(rehash(changed))
    assert not verdict.ok and "hand_started" in verdict.text(), verdict.text()


def test_G11_bad_randomness_is_refused_and_none_never_stalls_the_deal(client):
    """Given a join with randomness that is not 64 hex digits, then 400; given seats that send none,
    then the match deals at once (nothing waits for a part) and the hand records no seat part."""
    made = client.post("/api/matches", json={"variant": "koudiandian", "options": {"hands": 1}}).get_json()
    bad = client.post(f"/api/matches/{made['id']}/seats", json={"name": "X", "randomness": "zz" * 32})
    assert bad.status_code == 400
    token = _join(client, made["id"], "NoPart")
    client.post(f"/api/matches/{made['id']}/bots", json={}, headers={"Authorization": "Bearer " + made["owner_token"]})
    summary = client.get(f"/api/matches/{made['id']}").get_json()
    assert summary["status"] == "playing" and summary["hand_no"] == 1
    feed = client.get(f"/api/matches/{made['id']}/events", headers={"Authorization": "Bearer " + token}).get_json()
    started = next(e for e in feed["events"] if e["type"] == "hand_started")
    assert started["payload"]["wall_parts"] == {"server": None, "seats": [None] * 4}  # absent, not a zero part


def test_G11_a_match_created_before_joint_walls_still_deals_from_server_seeds(app, client):
    """Given a match whose match_created carries no commitment (created before joint walls), then
    its hands are dealt from server seeds and its log verifies, saying which protocol it used."""
    from engine.options import normalise
    from service.model import room as rooms
    from service.usecases import sealing

    svc = services(app).match
    match_id = "old-protocol-match"
    owner = rooms.new_token()
    svc.repo.append(
        match_id,
        0,
        [
            {
                "type": rooms.MATCH_CREATED,
                "variant": "koudiandian",
                "options": normalise("koudiandian", {"hands": 1}),
                "owner_token_hash": hashlib.sha256(owner.encode()).hexdigest(),  # as matches then were
            }
        ],
    )
    svc.repo.store.write(sealing.keyed_step(svc.tokens, svc.webhooks, svc.now()))  # what `tilefold migrate` did
    svc.join(match_id, "Old")
    svc.add_bots(match_id, owner, None)
    _play_out(app, match_id)
    rows = rows_of(client.get(f"/api/matches/{match_id}/export").get_data(as_text=True))
    started = next(r["payload"] for r in rows if r["type"] == "hand_started")
    assert "wall_parts" not in started and started["seed"]
    verdict = match_log.verify_rows(rows)
    assert verdict.ok and "walls: server seeds" in verdict.text(), verdict.text()
