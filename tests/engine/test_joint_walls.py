"""G-11 joint walls: each hand's wall comes from the server's committed part (a link of a hash
chain whose end was published before any seat joined) and every seat's part together; anyone can
recompute it after the hand; the engine refuses a server part that does not link, and a bare seed
in a match that committed to a chain. Known-answer vectors pin the derivation."""

from __future__ import annotations

import pytest

from engine import IllegalAction
from engine.actions import pending_seats
from engine.audit import audit
from engine.bot import bot_action
from engine.table import initial_state, step
from engine.tiles import name
from engine.views import redact
from engine.wall import chain, chain_step, joint_seed, shuffle_wall, wild_kind

SERVER = bytes.fromhex("11" * 32)
SEAT0 = bytes.fromhex("22" * 32)
SEAT3 = bytes.fromhex("33" * 32)


def test_G11_known_answer_vectors():
    """Given fixed parts, then the chain step, the hand seed, its wall and its wild are these."""
    assert chain_step(bytes(32)).hex() == "d2acd575d1a3d7470212c07ba9c9d5001373f54dc7ee3b4f7adc1ff6059055b7"
    seed = joint_seed(SERVER, 1, [SEAT0, None, None, SEAT3])
    assert seed.hex() == "67e82c3f684a38b1a4023fc7fdb14836ddc97a31020ddc4d77130f51c9625dfc"
    assert [name(k) for k in shuffle_wall(seed)[:8]] == ["F", "5s", "5s", "W", "8m", "1m", "6p", "4s"]
    assert name(wild_kind(seed)) == "4m"
    assert chain(bytes.fromhex("44" * 32), 3)[0].hex() == (
        "a1ac3fdcbae057aa4361b9219b69a35b718e4e1034027dc69f8bfe06cd7b19c1"
    )


def test_G11_the_chain_links_backwards_so_a_revealed_part_hides_the_next():
    """Given a chain, then each hand's part hashes to the one before it (the first to the
    commitment), so a part can be checked when revealed; the next part is its preimage."""
    links = chain(bytes.fromhex("55" * 32), 5)
    assert len(links) == 6
    for before, part in zip(links, links[1:]):
        assert chain_step(part) == before


@pytest.mark.parametrize("who", ["server", "hand", "seat 0", "seat 1", "seat 2", "seat 3"])
def test_G11_every_party_s_part_changes_the_wall(who):
    """Given a hand's parts, when any one party's part (or the hand number) changes, then the
    seed and the wall change."""
    seats = [SEAT0, None, bytes.fromhex("66" * 32), SEAT3]
    base = joint_seed(SERVER, 3, seats)
    other = bytes.fromhex("77" * 32)
    if who == "server":
        changed = joint_seed(other, 3, seats)
    elif who == "hand":
        changed = joint_seed(SERVER, 4, seats)
    else:
        index = int(who[-1])
        altered = list(seats)
        altered[index] = other if seats[index] is None or seats[index] != other else SEAT0
        changed = joint_seed(SERVER, 3, altered)
    assert changed != base and shuffle_wall(changed) != shuffle_wall(base)


def test_G11_a_withheld_part_is_not_a_zero_part():
    """Given a seat that sent no part, then it adds nothing (marked absent), which is not the same
    as a part of zero bytes: no seat can pass its part off as missing or the other way round."""
    assert joint_seed(SERVER, 1, [None] * 4) != joint_seed(SERVER, 1, [bytes(32), None, None, None])


def _parts(links, hand, seats=(None, None, None, None)):
    return {"server": links[hand].hex(), "seats": list(seats)}


def _started(links):
    state = initial_state()
    command = {"action": "start_match", "variant": "koudiandian", "options": {"hands": 2}}
    events, state = step(state, {**command, "wall_commitment": links[0].hex()})
    assert events[0]["wall_commitment"] == links[0].hex()
    return events, state


def test_G11_the_engine_deals_only_the_next_link():
    """Given a match that committed to a chain, then a bare seed is refused, a part that does not
    link is refused, and hand 1 deals from link 1 with the seats' parts; the hand's event hides the
    server's part from every seat and its end reveals it."""
    links = chain(bytes.fromhex("88" * 32), 8)
    _, state = _started(links)
    with pytest.raises(IllegalAction) as refused:
        step(state, {"action": "start_hand", "seed": "ab" * 32})
    assert refused.value.code == "wall_parts_required"
    with pytest.raises(IllegalAction) as wrong:
        step(state, {"action": "start_hand", "wall": _parts(links, 2)})  # skips a link
    assert wrong.value.code == "bad_seed"
    seats = [SEAT0.hex(), None, None, SEAT3.hex()]
    events, state = step(state, {"action": "start_hand", "wall": _parts(links, 1, seats)})
    started = events[0]
    assert started["seed"] == joint_seed(links[1], 1, [SEAT0, None, None, SEAT3]).hex()
    seen = redact(started, 0)
    assert seen["wall_parts"] == {"server": None, "seats": seats} and "seed" not in seen
    assert state.wall_link == links[1].hex()


def _play_joint(links, seats=(None, None, None, None)) -> list[dict]:
    events, state = _started(links)
    log = list(events)
    while state.phase != "match_over":
        if state.needs_new_hand:
            command = {"action": "start_hand", "wall": _parts(links, state.hands_played + 1, seats)}
        else:
            seat = pending_seats(state)[0]
            command = dict(bot_action(state, seat), seat=seat)
        new, state = step(state, command)
        log += new
    return log


def _rows(events):
    return [
        {"version": i, "type": e["type"], "payload": {k: v for k, v in e.items() if k != "type"}}
        for i, e in enumerate(events, start=1)
    ]


def test_G11_the_audit_rederives_every_joint_wall_and_names_the_protocol():
    """Given a match of two hands dealt from joint walls, then the audit re-derives each seed from
    the revealed parts and says so; a changed seat part, a server part off the chain, or a hand
    dealt from a bare seed in the same match fails."""
    links = chain(bytes.fromhex("99" * 32), 8)
    seats = (SEAT0.hex(), None, None, None)
    events = _play_joint(links, seats)
    report = audit(_rows(events))
    assert report.ok and report.joint_walls == 2 and report.seat_parts == [1, 1], report.failure
    assert report.wall_protocol.startswith("joint walls")
    ended = next(e for e in events if e["type"] == "hand_ended")
    assert ended["wall_parts"]["server"] == links[1].hex()  # revealed when the hand ends

    def forged(change) -> str:
        copy = [dict(e, wall_parts=dict(e["wall_parts"])) if e["type"] == "hand_started" else e for e in events]
        change(next(e for e in copy if e["type"] == "hand_started"))
        result = audit(_rows(copy))
        assert not result.ok
        return str(result.failure)

    assert "does not match the engine's" in forged(
        lambda e: e["wall_parts"].update(seats=[SEAT3.hex(), None, None, None])
    )
    assert "bad_seed" in forged(lambda e: e["wall_parts"].update(server=links[2].hex()))
    assert "wall_parts_required" in forged(lambda e: e.pop("wall_parts"))
