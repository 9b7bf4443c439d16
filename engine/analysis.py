"""The hand analyser: shanten, improving tiles, waits and their value, best discards (wilds, H-2 白板).

Pure and fast. Definitions (documented in docs/ENGINE_API.md, "Hand analyser"):

- *missing*: the fewest tiles the hand still lacks, i.e. the fewest natural tiles to swap for other
  tiles so that it is complete (G-4 sets and a pair, or K-7 seven pairs). Wilds (G-9) fill any place;
  with 含山's 配子 a 白板 may also play as the wild's kind (H-2). Like the usual definition of shanten
  it ignores the four-copy limit of the tiles still to come.
- *shanten* = missing - 1: -1 complete, 0 ready (听), 1 one tile from ready, ...

The fast path splits the hand by suit: for each suit (and the honours) a memoised frontier gives the
most natural tiles that fit into k partial sets (and optionally the partial pair); the frontiers are
combined under "at most `sets` sets and one pair". `engine.hand.is_complete` is the independent
reference the differential test and bench/analysis.py compare against.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from operator import add
from typing import Any, Callable, Iterator, Optional, Sequence

from engine.tiles import NUM_KINDS

_NEG = -99
_FAR = 10 * _NEG  # below any sum holding a feasible entry: it never wins a max
_GROUPS = ((0, 9), (9, 18), (18, 27), (27, 34))
_SLOTS = 5  # 0..4 partial sets per group
_ALL_KINDS = tuple(range(NUM_KINDS))


# ---------------------------------------------------------------- per-group frontier


def _merge_into(best: list[int], child: tuple[int, ...], dk: int, dp: int, gained: int) -> None:
    """best[k+dk, p+dp] = max(.., child[k, p] + gained) for the child's feasible entries."""
    for k in range(_SLOTS - dk):
        for p in range(2 - dp):
            v = child[k * 2 + p]
            if v > _NEG:
                i = (k + dk) * 2 + p + dp
                if v + gained > best[i]:
                    best[i] = v + gained


@lru_cache(maxsize=None)
def _frontier(key: tuple[int, ...], runs: bool) -> tuple[int, ...]:
    """Most tiles of this group placed into exactly k partial sets and p (0/1) partial pairs.

    Index k*2+p; a partial set is 1-3 tiles of one triplet or one sequence, a partial pair 1-2 tiles
    of one kind. The lowest tile is either left out, or put in a block with it as its lowest natural.
    """
    i = next((n for n, c in enumerate(key) if c), -1)
    if i < 0:
        out = [_NEG] * (_SLOTS * 2)
        out[0] = 0
        return tuple(out)
    best = [_NEG] * (_SLOTS * 2)
    c = key[i]
    less = key[:i] + (c - 1,) + key[i + 1 :]
    _merge_into(best, _frontier(less, runs), 0, 0, 0)  # the tile is left out
    for used in range(1, min(c, 3) + 1):  # a (partial) triplet
        rest = key[:i] + (c - used,) + key[i + 1 :]
        _merge_into(best, _frontier(rest, runs), 1, 0, used)
        if used <= 2:  # a (partial) pair
            _merge_into(best, _frontier(rest, runs), 0, 1, used)
    if runs:
        for extra in _seq_partners(key, i):
            partial = list(less)
            for j in extra:
                partial[j] -= 1
            _merge_into(best, _frontier(tuple(partial), runs), 1, 0, 1 + len(extra))
    return tuple(best)


def _seq_partners(key: tuple[int, ...], i: int) -> list[tuple[int, ...]]:
    """Other naturals that share a sequence with i as its lowest natural: i+1, i+2 or both."""
    out: list[tuple[int, ...]] = []
    if i + 1 < 9 and key[i + 1]:
        out.append((i + 1,))
    if i + 2 < 9 and key[i + 2]:
        out.append((i + 2,))
        if key[i + 1]:
            out.append((i + 1, i + 2))
    return out


def _group_frontier(counts: Sequence[int], g: int) -> tuple[int, ...]:
    lo, hi = _GROUPS[g]
    return _frontier(tuple(counts[lo:hi]), g < 3)


def _combine(frontiers: Sequence[tuple[int, ...]], sets: int) -> int:
    """Most naturals placed into at most `sets` partial sets and one partial pair, over all groups."""
    acc = _convolve(frontiers[0], frontiers[1], sets)
    acc = _convolve(acc, frontiers[2], sets)
    return _best_of(acc, frontiers[3], sets)


@lru_cache(maxsize=65536)
def _convolve(a: tuple[int, ...], b: tuple[int, ...], sets: int) -> tuple[int, ...]:
    out = [_NEG] * (_SLOTS * 2)
    for ka in range(sets + 1):
        for pa in (0, 1):
            va = a[ka * 2 + pa]
            if va <= _NEG:
                continue
            for kb in range(sets + 1 - ka):
                for pb in range(2 - pa):
                    vb = b[kb * 2 + pb]
                    i = (ka + kb) * 2 + pa + pb
                    if vb > _NEG and va + vb > out[i]:
                        out[i] = va + vb
    return tuple(out)


# ---------------------------------------------------------------- missing / shanten


class ImpossibleHand(ValueError):
    """Counts no hand can have (a negative count): refused, never searched."""


def _check_possible(counts: Sequence[int], wilds: int = 0) -> None:
    if wilds < 0 or min(counts, default=0) < 0:
        raise ImpossibleHand(f"impossible hand: negative tile counts {list(counts)} (wilds {wilds})")


def _placed_standard(counts: Sequence[int], sets: int) -> int:
    return _combine([_group_frontier(counts, g) for g in range(4)], sets)


def _placed_seven_pairs(counts: Sequence[int]) -> int:
    """K-7: most naturals fitting seven pairs (four of a kind is two pairs)."""
    pairs, singles = _pairs_singles(counts)
    pairs = min(pairs, 7)
    singles = min(singles, 7 - pairs)
    return 2 * pairs + singles


def _pairs_singles(counts: Sequence[int]) -> tuple[int, int]:
    """(sum of c // 2, sum of c & 1) over non-negative counts, in C-level passes."""
    singles = sum(map((1).__and__, counts))
    return (sum(counts) - singles) // 2, singles


def _variants(counts: Sequence[int], stand_in: Optional[tuple[int, int]]) -> Iterator[Sequence[int]]:
    """The counts as given, and with j 白板 moved to the wild's kind (H-2)."""
    yield counts
    if stand_in is not None:
        src, dst = stand_in
        for j in range(1, counts[src] + 1):
            moved = list(counts)
            moved[src] -= j
            moved[dst] += j
            yield moved


def missing(
    counts: Sequence[int],
    wilds: int = 0,
    *,
    sets: int = 4,
    seven_pairs: bool = False,
    stand_in: Optional[tuple[int, int]] = None,
) -> int:
    """Fewest tiles the hand (natural `counts` plus `wilds`) still lacks to be complete."""
    _check_possible(counts, wilds)
    size = 3 * sets + 2
    best = 0
    for variant in _variants(counts, stand_in):
        placed = _placed_standard(variant, sets)
        if seven_pairs and sets == 4:
            placed = max(placed, _placed_seven_pairs(variant))
        best = max(best, min(placed, size - wilds))
    return max(size - wilds - best, 0)


def shanten(
    counts: Sequence[int],
    wilds: int = 0,
    *,
    sets: int = 4,
    seven_pairs: bool = False,
    stand_in: Optional[tuple[int, int]] = None,
) -> int:
    """Steps to ready: -1 complete, 0 ready (听), n: n tiles from ready (for 3n+1 or 3n+2 tiles)."""
    return missing(counts, wilds, sets=sets, seven_pairs=seven_pairs, stand_in=stand_in) - 1


# ---------------------------------------------------------------- the analyser with a hand's rules


@dataclass(frozen=True)
class Rules:
    """What the analysis needs of a hand's rules: the wild kind, 七小对, the 白板 stand-in."""

    wild: Optional[int] = None
    seven_pairs: bool = False
    stand_in: Optional[tuple[int, int]] = None

    @staticmethod
    def of(variant: str, wild: Optional[int]) -> "Rules":
        """From the variant's registry entry: K-7 seven pairs in 扣点点; H-2 白板 stand-in in 含山."""
        from engine.variants import get

        rules = get(variant).rules
        return Rules(wild, rules.seven_pairs, rules.stand_in_for(wild))


def split(counts: Sequence[int], wild: Optional[int]) -> tuple[list[int], int]:
    natural = list(counts)
    if wild is None:
        return natural, 0
    wilds = natural[wild]
    natural[wild] = 0
    return natural, wilds


def hand_missing(counts: Sequence[int], sets: int, rules: Rules) -> int:
    return _hand_missing(tuple(counts), sets, rules.wild, rules.seven_pairs, rules.stand_in)


@lru_cache(maxsize=1 << 13)
def _hand_missing(
    counts: tuple[int, ...], sets: int, wild: Optional[int], seven_pairs: bool, stand_in: Optional[tuple[int, int]]
) -> int:
    """Memoised (bounded): the bots judge the same hands again across discards and turns. The key
    holds plain values only, which the garbage collector stops tracking (shorter full collections)."""
    natural, wilds = split(counts, wild)
    return missing(natural, wilds, sets=sets, seven_pairs=seven_pairs, stand_in=stand_in)


def hand_shanten(counts: Sequence[int], sets: int, rules: Rules) -> int:
    return hand_missing(counts, sets, rules) - 1


def improving_tiles(counts: Sequence[int], sets: int, rules: Rules) -> list[int]:
    """Kinds whose draw lowers the missing count of a 3n+1 hand (for a ready hand: its waits)."""
    before, draws = _missing_now_and_after_each_draw(counts, sets, rules)
    return [t for t, after in enumerate(draws) if after < before]


def waits(counts: Sequence[int], sets: int, rules: Rules) -> list[int]:
    """Kinds completing a 3n+1 hand (the wild's own kind included: drawing it is drawing a wild)."""
    return [t for t, after in enumerate(_missing_after_each_draw(counts, sets, rules)) if after == 0]


def _missing_after_each_draw(counts: Sequence[int], sets: int, rules: Rules) -> tuple[int, ...]:
    return _after_each_draw(tuple(counts), sets, (rules.wild, rules.seven_pairs, rules.stand_in))[1]


def _missing_now_and_after_each_draw(counts: Sequence[int], sets: int, rules: Rules) -> tuple[int, tuple[int, ...]]:
    """(hand_missing(counts), hand_missing(counts + t) for every kind t), from one pass."""
    return _after_each_draw(tuple(counts), sets, (rules.wild, rules.seven_pairs, rules.stand_in))


def _pass_start(
    counts: tuple[int, ...], sets: int, fields: tuple[Optional[int], bool, Optional[tuple[int, int]]]
) -> tuple[Rules, list[int], int, int, bool, Optional[tuple[int, int]]]:
    """What the draw and discard passes start from: the rules, the naturals and wilds (an impossible
    hand refused), the hand's size, whether seven pairs count, and the 白板 stand-in if one is held."""
    rules = Rules(*fields)
    natural, wilds = split(counts, rules.wild)
    _check_possible(natural, wilds)
    stand = rules.stand_in if rules.stand_in is not None and natural[rules.stand_in[0]] else None
    return rules, natural, wilds, 3 * sets + 2, rules.seven_pairs and sets == 4, stand


@lru_cache(maxsize=1 << 12)
def _after_each_draw(
    counts: tuple[int, ...], sets: int, fields: tuple[Optional[int], bool, Optional[tuple[int, int]]]
) -> tuple[int, tuple[int, ...]]:
    """(hand_missing(counts), hand_missing(counts + t) for every kind t); one group changes per draw,
    the others are reused.

    A drawn wild leaves the naturals as they are (one wild more); a drawn 白板 stand-in (H-2) makes
    the readings "each of the hand's readings plus a 白板" and "the reading with every 白板 moved,
    plus one of the wild's kind": both come from the per-reading draws already found."""
    rules, natural, wilds, size, seven, stand = _pass_start(counts, sets, fields)
    readings = list(_variants(natural, stand))
    per_variant = [_draws(v, sets) for v in readings]
    placed = max(p for p, _ in per_variant)  # the hand as it is, its best reading
    best = per_variant[0][1] if len(per_variant) == 1 else tuple(map(max, *(d for _, d in per_variant)))
    room = size - wilds
    if seven:  # K-7 after drawing t: one more pair if t was odd, else one more single
        placed = max(placed, *map(_placed_seven_pairs, readings))
        pairs, singles = _pairs_singles(natural)
        p_odd, p_even = min(pairs + 1, 7), min(pairs, 7)
        odd = 2 * p_odd + min(singles - 1, 7 - p_odd)
        even = 2 * p_even + min(singles + 1, 7 - p_even)
        best = tuple(max(b, odd if n & 1 else even) for b, n in zip(best, natural))
    out = [room - p if p < room else 0 for p in best]  # max(room - min(p, room), 0)
    if rules.wild is not None:  # the same naturals and one wild more
        out[rules.wild] = room - 1 - placed if placed < room - 1 else 0
    if rules.stand_in is not None:
        src, dst = rules.stand_in
        if seven:  # no rule set has both; judged in full
            work = list(counts)
            work[src] += 1
            out[src] = hand_missing(work, sets, rules)
        else:
            most = max(best[src], per_variant[-1][1][dst])
            out[src] = room - most if most < room else 0
    return (room - placed if placed < room else 0), tuple(out)


def _draws(variant: Sequence[int], sets: int) -> tuple[int, tuple[int, ...]]:
    """(most naturals placed in standard form as the hand stands, the same after drawing each kind t
    for every t)."""
    return _each_kind(variant, sets, _draws_in_group)


def _each_kind(
    variant: Sequence[int],
    sets: int,
    in_group: Callable[[tuple[int, ...], bool, tuple[int, ...], int], tuple[int, ...]],
) -> tuple[int, tuple[int, ...]]:
    """(most naturals placed as the hand stands, `in_group`'s figure for each kind, group by group):
    one group changes per tile drawn or let go, so each group is judged against the other three's
    tables combined once (max-plus convolution: any order, same result)."""
    keys = [tuple(variant[lo:hi]) for lo, hi in _GROUPS]
    f0, f1, f2, f3 = (_frontier(key, g < 3) for g, key in enumerate(keys))
    low, high = _convolve(f0, f1, sets), _convolve(f2, f3, sets)
    others = (_convolve(f1, high, sets), _convolve(f0, high, sets), _convolve(low, f3, sets), _convolve(low, f2, sets))
    return _best_of(low, high, sets), (
        in_group(keys[0], True, others[0], sets)
        + in_group(keys[1], True, others[1], sets)
        + in_group(keys[2], True, others[2], sets)
        + in_group(keys[3], False, others[3], sets)
    )


NOT_HELD = 99  # `missing_after_each_discard` of a kind the hand does not hold


def missing_after_each_discard(counts: Sequence[int], sets: int, rules: Rules) -> tuple[int, ...]:
    """hand_missing(counts - t) for every kind t held (NOT_HELD for the others), from one pass: one
    group changes per discard, the others are reused (the tables of `_draws`, one tile less)."""
    return _after_each_discard(tuple(counts), sets, (rules.wild, rules.seven_pairs, rules.stand_in))


@lru_cache(maxsize=1 << 12)
def _after_each_discard(
    counts: tuple[int, ...], sets: int, fields: tuple[Optional[int], bool, Optional[tuple[int, int]]]
) -> tuple[int, ...]:
    """See `missing_after_each_discard`. The readings of the hand less a 白板 stand-in (H-2) are the
    hand's readings that still hold a 白板, less it; a wild let go leaves the naturals as they are."""
    rules, natural, wilds, size, seven, stand = _pass_start(counts, sets, fields)
    placed = 0
    best = [_FAR] * NUM_KINDS
    for v in _variants(natural, stand):
        now, after = _discards(v, sets)
        if seven:
            now = max(now, _placed_seven_pairs(v))
            pairs, singles = _pairs_singles(v)
            odd = 2 * min(pairs, 7) + min(singles - 1, 7 - min(pairs, 7))  # a single, or one of three, let go
            even = 2 * min(pairs - 1, 7) + min(singles + 1, 7 - min(pairs - 1, 7))  # one of a pair or four
            after = tuple(max(a, odd if n & 1 else even) if n else a for a, n in zip(after, v))
        placed = max(placed, now)
        best = list(map(max, best, after))
    room = size - wilds
    out = [(room - p if p < room else 0) if n else NOT_HELD for p, n in zip(best, natural)]
    if rules.wild is not None:
        # a wild let go: the same naturals, one wild less (the wild's kind holds no natural)
        out[rules.wild] = (room + 1 - placed if placed < room + 1 else 0) if wilds else NOT_HELD
    return tuple(out)


def _discards(variant: Sequence[int], sets: int) -> tuple[int, tuple[int, ...]]:
    """(most naturals placed in standard form as the hand stands, the same after letting go of each
    kind t held; _FAR for a kind not held)."""
    return _each_kind(variant, sets, _discards_in_group)


@lru_cache(maxsize=1 << 13)
def _discards_in_group(key: tuple[int, ...], runs: bool, others: tuple[int, ...], sets: int) -> tuple[int, ...]:
    """For each place of the group: most naturals placed with one tile less there (_FAR: none held)."""
    room = _room(others, sets)
    return tuple([_FAR if less is None else max(map(add, less, room)) for less in _lessened_frontiers(key, runs)])


@lru_cache(maxsize=1 << 14)
def _lessened_frontiers(key: tuple[int, ...], runs: bool) -> tuple[Optional[tuple[int, ...]], ...]:
    """The group's table of discards: its frontier with one tile less at each place held (None where
    none is held)."""
    return tuple(_frontier(key[:i] + (key[i] - 1,) + key[i + 1 :], runs) if key[i] else None for i in range(len(key)))


@lru_cache(maxsize=1 << 13)
def _draws_in_group(key: tuple[int, ...], runs: bool, others: tuple[int, ...], sets: int) -> tuple[int, ...]:
    """For each place of the group: most naturals placed with one more tile there, `others` the
    combined frontier of the other groups (max-plus: each drawn frontier against `_room(others)`)."""
    room = _room(others, sets)
    return tuple([max(map(add, drawn, room)) for drawn in _drawn_frontiers(key, runs)])


def _room(others: tuple[int, ...], sets: int) -> tuple[int, ...]:
    """Index k*2+p: the most `others` places into at most sets-k partial sets and at most 1-p pairs
    (_FAR for k > sets), so max(a[i] + room[i]) is `_best_of(a, others, sets)`: a frontier's entry
    0 (no tile placed) is always 0, and a sum holding an infeasible entry (_NEG) stays below it."""
    out: list[int] = []
    for k in range(_SLOTS):
        if k > sets:
            out += (_FAR, _FAR)
            continue
        both = others[: (sets - k + 1) * 2]
        out += (max(both), max(both[::2]))  # p = 0: either; p = 1: the others hold no pair
    return tuple(out)


@lru_cache(maxsize=1 << 14)
def _drawn_frontiers(key: tuple[int, ...], runs: bool) -> tuple[tuple[int, ...], ...]:
    """The group's table of draws: its frontier with one more tile at each place, per suit (or the
    honours) alone, so every hand holding the same tiles of that suit shares it."""
    return tuple(_frontier(key[:i] + (key[i] + 1,) + key[i + 1 :], runs) for i in range(len(key)))


@lru_cache(maxsize=65536)
def _best_of(a: tuple[int, ...], b: tuple[int, ...], sets: int) -> int:
    return max(_convolve(a, b, sets)[: (sets + 1) * 2])


def unseen(own: Sequence[int], visible: Sequence[int]) -> list[int]:
    """Copies of each kind the seat has not seen (4 - in its hand - public tiles), never below 0."""
    return [max(4 - a - b, 0) for a, b in zip(own, visible)]


@dataclass(frozen=True)
class DiscardOption:
    """One discard judged: shanten after it, improving tiles with unseen copies, waits with values."""

    tile: int
    shanten: int
    improving: tuple[int, ...]
    improving_unseen: int
    waits: tuple[tuple[int, int, int], ...] = ()  # (kind, unseen copies, value)
    wait_value: float = 0.0  # sum of unseen x value over the waits

    def key(self) -> tuple[Any, ...]:
        """Better first: lower shanten, then (ready) more expected value, then more improving tiles."""
        return (self.shanten, -self.wait_value, -self.improving_unseen)


ValueOf = Callable[[Sequence[int], int], int]  # (13 counts, wait kind) -> the win's value


def judge_discard(
    counts: Sequence[int], tile: int, sets: int, rules: Rules, hidden: Sequence[int], value_of: Optional[ValueOf] = None
) -> DiscardOption:
    if counts[tile] < 1:
        raise ImpossibleHand(f"impossible hand: it cannot let go of a tile kind {tile} it does not hold")
    rest = list(counts)
    rest[tile] -= 1
    return judge_hand(rest, sets, rules, hidden, value_of, tile=tile)


def judge_hand(
    rest: Sequence[int],
    sets: int,
    rules: Rules,
    hidden: Sequence[int],
    value_of: Optional[ValueOf] = None,
    tile: int = -1,
) -> DiscardOption:
    """A 3n+1 hand judged as in `judge_discard` (`hidden`: unseen copies from the seat's view)."""
    before, draws = _missing_now_and_after_each_draw(rest, sets, rules)
    sh = before - 1
    better = [t for t, after in enumerate(draws) if after < before]
    seen = sum(hidden[t] for t in better)
    if sh != 0:
        return DiscardOption(tile, sh, tuple(better), seen)
    found = []
    for t in better:
        value = value_of(rest, t) if value_of is not None else 1
        found.append((t, hidden[t], value))
    expected = float(sum(n * v for _, n, v in found))
    return DiscardOption(tile, sh, tuple(better), seen, tuple(found), expected)


def discard_options(
    counts: Sequence[int],
    sets: int,
    rules: Rules,
    hidden: Sequence[int],
    value_of: Optional[ValueOf] = None,
    allowed: Optional[Sequence[int]] = None,
) -> list[DiscardOption]:
    """Allowed discards of a 3n+2 hand, best first (ties keep kind order). Only the discards with
    the lowest shanten are judged in full; the others carry their shanten alone."""
    kinds = sorted(set(allowed if allowed is not None else [k for k, n in enumerate(counts) if n]))
    table = missing_after_each_discard(counts, sets, rules)
    if any(table[t] == NOT_HELD for t in kinds):
        raise ImpossibleHand(f"impossible hand: it cannot let go of a tile kind it does not hold ({kinds})")
    after = {t: table[t] - 1 for t in kinds}
    low = min(after.values(), default=0)
    judged = [
        judge_discard(counts, t, sets, rules, hidden, value_of)
        if after[t] == low
        else DiscardOption(t, after[t], (), 0)
        for t in kinds
    ]
    return sorted(judged, key=DiscardOption.key)


def best_discards(options: Sequence[DiscardOption]) -> list[int]:
    """The kinds tied for best."""
    if not options:
        return []
    top = options[0].key()
    return [o.tile for o in options if o.key() == top]
