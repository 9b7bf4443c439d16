"""The ports test servers get: never one the kernel may give an outgoing connection meanwhile (a
server that then dies with "Address already in use" fails a test that did nothing wrong), never the
same one in two xdist workers."""

from __future__ import annotations

import socket

from tests import ports


def test_every_worker_has_its_own_block_below_the_ephemeral_range():
    # given Linux's default ephemeral range, starting at 32768
    low = 32768
    # when the controller and sixteen workers take their blocks
    blocks = [ports.block_of(None, low)] + [ports.block_of(f"gw{i}", low) for i in range(16)]
    # then each lies below the range, from LOWEST up, and no two share a port
    assert all(b is not None and ports.LOWEST <= b.start and b.stop <= low for b in blocks)
    taken = [port for b in blocks if b is not None for port in b]
    assert len(taken) == len(set(taken))
    assert min(len(b) for b in blocks if b is not None) >= 700


def test_a_seventeenth_worker_shares_a_block_rather_than_fail():
    assert ports.block_of("gw16", 32768) == ports.block_of("gw0", 32768)


def test_no_room_below_the_ephemeral_range_falls_back_to_what_the_kernel_gives():
    assert ports.block_of("gw0", ports.LOWEST + 100) is None


def test_a_free_port_is_below_the_ephemeral_range_and_skips_a_held_one():
    # given the machine's ephemeral range
    low = ports.ephemeral_low()
    # when a port is taken and held by a listener
    first = ports.free_port()
    with socket.socket() as held:
        held.bind(("127.0.0.1", first))
        held.listen()
        following = [ports.free_port() for _ in range(50)]
    # then no port handed out lies in the ephemeral range, and the held one is not handed out again
    if ports.block_of(None, low) is not None:
        assert all(port < low for port in [first, *following])
    assert first not in following
    assert len(set(following)) == len(following)


def test_the_range_is_read_from_the_kernel_or_defaults_to_linuxs(tmp_path):
    (tmp_path / "range").write_text("40000\t60999\n")
    assert ports.ephemeral_low(str(tmp_path / "range")) == 40000
    assert ports.ephemeral_low(str(tmp_path / "missing")) == 32768
