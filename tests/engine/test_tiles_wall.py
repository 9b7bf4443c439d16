"""G-1 notation and the G-11 seeded wall: round trips, rejections, determinism, uniformity, verification."""

import hashlib
import re
from collections import Counter

import pytest
from hypothesis import given, strategies as st

from engine import wall as wall_mod
from engine.tiles import TileError, format_hand, full_set, kind, name, parse, points


def test_G1_notation_round_trip_of_a_full_hand():
    text = "123m456p789sEEECC"
    assert format_hand(parse(text)) == text


@given(st.permutations(full_set()), st.integers(min_value=0, max_value=18))
def test_G1_any_multiset_round_trips(shuffled, size):
    tiles = shuffled[:size]
    assert sorted(parse(format_hand(tiles))) == sorted(tiles)


@pytest.mark.parametrize(
    "bad, message",
    [
        ("10m", "rank 0"),
        ("x", "unknown character"),
        ("11111m", "5 copies"),
        ("123", "no suit letter"),
        ("m", "no ranks"),
        ("12E3m", "not followed by a suit"),
        ("EEEEE", "5 copies"),
    ],
)
def test_G1_bad_hand_strings_are_refused_clearly(bad, message):
    with pytest.raises(TileError, match=message):
        parse(bad)


def test_G1_tile_names_and_K1_points():
    assert [name(k) for k in (0, 8, 9, 26, 27, 33)] == ["1m", "9m", "1p", "9s", "E", "P"]
    assert points(kind("6p")) == 6 and points(kind("C")) == 10
    with pytest.raises(TileError):
        kind("0p")


def _seed(i: int) -> bytes:
    return hashlib.sha256(f"test-seed-{i}".encode()).digest()


def test_G11_same_seed_same_wall_and_a_full_set():
    a, b = wall_mod.shuffle_wall(_seed(1)), wall_mod.shuffle_wall(_seed(1))
    assert a == b
    assert sorted(a) == full_set()
    assert wall_mod.shuffle_wall(_seed(2)) != a


def test_G11_walls_are_uniform_chi_square():
    """Kind counts at the middle and the tail of the wall over many seeds, and the wild kind."""
    n = 3000
    middle, tail, wilds = Counter(), Counter(), Counter()
    for i in range(n):
        w = wall_mod.shuffle_wall(_seed(i))
        middle[w[67]] += 1
        tail[w[135]] += 1
        wilds[wall_mod.wild_kind(_seed(i))] += 1
    for counts in (middle, tail):
        expected = n / 34
        assert sum((counts[k] - expected) ** 2 / expected for k in range(34)) < 63.87  # df=33, p=0.001
    expected_w = n / 34
    chi_wild = sum((wilds[k] - expected_w) ** 2 / expected_w for k in range(34))
    assert chi_wild < 63.87  # df=33, p=0.001


def test_G11_head_tile_kind_is_uniform():
    n = 3400
    heads = Counter(wall_mod.shuffle_wall(_seed(10_000 + i))[0] for i in range(n))
    expected = n / 34
    assert sum((heads[k] - expected) ** 2 / expected for k in range(34)) < 63.87


def test_G11_verify_accepts_true_seed_and_rejects_others():
    seed = _seed(7)
    deal = wall_mod.deal_from_seed(seed)
    assert re.fullmatch(r"[0-9a-f]{64}", deal.commitment)
    assert wall_mod.verify(seed.hex(), deal.commitment, deal.wall)
    assert not wall_mod.verify(_seed(8).hex(), deal.commitment, deal.wall)
    changed = deal.wall[:]
    changed[0], changed[1] = changed[1], changed[0]
    if changed != deal.wall:
        assert not wall_mod.verify(seed.hex(), deal.commitment, changed)
    assert not wall_mod.verify("zz", deal.commitment, deal.wall)


def test_G11_commitment_reveals_nothing_without_the_salt():
    seed = _seed(9)
    deal = wall_mod.deal_from_seed(seed)
    bare = hashlib.sha256(" ".join(name(k) for k in deal.wall).encode()).hexdigest()
    assert bare != deal.commitment
