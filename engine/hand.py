"""Hand analysis shared by both variants: completeness, decompositions and waits (G-4, G-9, H-2)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement
from typing import Any, Iterable, Iterator, Optional, Sequence

NUM_KINDS = 34
HONOUR_START = 27
_INF = 99
StandIn = Optional[tuple[int, int]]  # H-2: (from kind, to kind) — 白板 may also play the 配子's kind

SEQ = "seq"
TRIPLET = "triplet"
PAIR = "pair"
_SHAPE_ORDER = {SEQ: 0, TRIPLET: 1, PAIR: 2}


@dataclass(frozen=True, slots=True)
class Block:
    """One set or pair of a decomposition; wild_positions are the places filled by wilds (G-9)."""

    shape: str  # "seq" | "triplet" | "pair"
    kind: int  # first kind of a seq, or the triplet/pair kind
    wild_positions: tuple[int, ...] = ()

    @property
    def kinds(self) -> tuple[int, ...]:
        """The kinds this block stands for."""
        if self.shape == SEQ:
            return (self.kind, self.kind + 1, self.kind + 2)
        if self.shape == TRIPLET:
            return (self.kind,) * 3
        return (self.kind,) * 2

    @property
    def natural_kinds(self) -> tuple[int, ...]:
        """The kinds played by natural tiles (not by wilds)."""
        return tuple(k for p, k in enumerate(self.kinds) if p not in self.wild_positions)


@dataclass(frozen=True, slots=True)
class Decomposition:
    """A split of the concealed part into sets then the pair (or seven pairs)."""

    blocks: tuple[Block, ...]  # the sets, then the pair LAST; for seven pairs: 7 pair blocks
    seven_pairs: bool = False
    stand_ins: int = 0  # how many 白板 tiles played as the wild's kind (H-2)

    @property
    def sets(self) -> tuple[Block, ...]:
        return self.blocks if self.seven_pairs else self.blocks[:-1]

    @property
    def pair(self) -> Optional[Block]:
        return None if self.seven_pairs else self.blocks[-1]

    @property
    def wilds_used(self) -> int:
        return sum(len(b.wild_positions) for b in self.blocks)


#: a win's reading for its explanation: the decomposition shown and the winning tile's (block, place) in it
Reading = tuple[Optional[Decomposition], Optional[tuple[int, int]]]


# ---------------------------------------------------------------- fast completeness (min wilds)


def _min_wilds_group(counts: tuple[int, ...], runs: bool) -> tuple[int, int]:
    """(min wilds with no pair, min wilds with exactly one pair) to split a group into blocks."""
    return (_min_wilds(counts, runs, False), _min_wilds(counts, runs, True))


@lru_cache(maxsize=None)
def _min_wilds(counts: tuple[int, ...], runs: bool, pair: bool) -> int:
    """Fewest wilds completing one suit (runs=True) or one honour kind into sets (+ one pair)."""
    i = next((k for k, c in enumerate(counts) if c), -1)
    if i < 0:
        return 2 if pair else 0
    best = _INF
    c = counts[i]
    # triplet of i, then pair of i (G-4); natural tiles of the lowest kind go first (exchange argument)
    for size, needs_pair in ((3, False), (2, True)):
        if needs_pair and not pair:
            continue
        used = min(c, size)
        rest = counts[:i] + (c - used,) + counts[i + 1 :]
        sub = _min_wilds(rest, runs, pair and not needs_pair)
        best = min(best, sub + size - used)
    if runs:
        best = min(best, _seq_min(counts, i, pair))
    return best


def _seq_min(counts: tuple[int, ...], i: int, pair: bool) -> int:
    """Fewest wilds when the lowest tile i opens (or sits inside) a sequence."""
    best = _INF
    for start in (i - 2, i - 1, i):
        if start < 0 or start + 2 > 8:
            continue
        rest = list(counts)
        wild = 0
        for k in (start, start + 1, start + 2):
            if rest[k]:
                rest[k] -= 1
            else:
                wild += 1
        best = min(best, _min_wilds(tuple(rest), True, pair) + wild)
    return best


_SUIT_SLICES = ((0, 9), (9, 18), (18, 27))


@lru_cache(maxsize=None)
def _suit_table(key: tuple[int, ...]) -> tuple[int, int]:
    return _min_wilds_group(key, True)


@lru_cache(maxsize=None)
def _honours_table(key: tuple[int, ...]) -> tuple[int, int]:
    """Honours make no sequences: sum per kind, the pair on the cheapest kind."""
    per_kind = [_min_wilds_group((c,), False) for c in key if c]
    base = sum(p[0] for p in per_kind)
    extra = min((p[1] - p[0] for p in per_kind), default=_INF)
    return base, base + extra


def _min_wilds_standard(counts: Sequence[int]) -> int:
    """Fewest wilds making counts into sets plus one pair (the set count follows from tile count)."""
    base = 0
    pair_extra = 2  # a pair of two wilds
    for lo, hi in _SUIT_SLICES:
        key = tuple(counts[lo:hi])
        if any(key):
            no_pair, with_pair = _suit_table(key)
            base += no_pair
            if with_pair - no_pair < pair_extra:
                pair_extra = with_pair - no_pair
    no_pair, with_pair = _honours_table(tuple(counts[27:34]))
    base += no_pair
    return base + min(pair_extra, with_pair - no_pair)


def _complete_no_wild(counts: Sequence[int], size: int) -> bool:
    """Fast path without wilds: honours first (cheap rejects), then each suit, one pair overall."""
    honours = counts[27:34]
    if 1 in honours or 4 in honours:
        return False
    pairs = honours.count(2)
    if pairs > 1:
        return False
    total = sum(honours)
    keys = (tuple(counts[0:9]), tuple(counts[9:18]), tuple(counts[18:27]))
    for key in keys:
        n = sum(key)
        total += n
        r = n % 3
        if r == 1:
            return False
        if r == 2:
            pairs += 1
    if pairs != 1 or total != size:
        return False
    for key in keys:
        if any(key) and _suit_table(key)[sum(key) % 3 == 2]:
            return False
    return True


def _seven_pairs_ok(counts: Sequence[int], wilds: int) -> bool:
    """Seven pairs: every odd count needs one wild; four of a kind is two pairs."""
    if not wilds:
        return all(c in (0, 2, 4) for c in counts)
    return sum(c & 1 for c in counts) <= wilds


def _stand_in_variants(counts: Sequence[int], stand_in: Optional[tuple[int, int]]) -> Iterable[tuple[int, list[int]]]:
    """Yield (j, counts) with j of the from-kind tiles moved to the to-kind (H-2 白板 stand-in)."""
    yield 0, list(counts)
    if stand_in is None:
        return
    src, dst = stand_in
    for j in range(1, counts[src] + 1):
        moved = list(counts)
        moved[src] -= j
        moved[dst] += j
        yield j, moved


def _check_size(counts: Sequence[int], wilds: int, sets: int, extra: int) -> bool:
    return len(counts) == NUM_KINDS and sum(counts) + wilds == 3 * sets + extra


def is_complete(
    counts: Sequence[int], wilds: int = 0, *, sets: int = 4, seven_pairs: bool = False, stand_in: StandIn = None
) -> bool:
    """True when the concealed part (naturals + wilds) forms `sets` sets and a pair (G-4), or seven pairs."""
    if stand_in is not None and not counts[stand_in[0]]:
        stand_in = None  # no 白板 held: nothing can stand in
    if stand_in is None and wilds == 0:
        if _complete_no_wild(counts, 3 * sets + 2):
            return True
        if not seven_pairs or sets != 4 or 1 in counts or 3 in counts:
            return False
        return _check_size(counts, 0, 4, 2)
    if not _check_size(counts, wilds, sets, 2):
        return False
    variants = (counts,) if stand_in is None else (v for _, v in _stand_in_variants(counts, stand_in))
    for variant in variants:
        if _min_wilds_standard(variant) <= wilds:
            return True
        if seven_pairs and sets == 4 and _seven_pairs_ok(variant, wilds):
            return True
    return False


def _group_tables(counts: Sequence[int]) -> list[tuple[int, int]]:
    tables = [_suit_table(tuple(counts[lo:hi])) if any(counts[lo:hi]) else (0, 2) for lo, hi in _SUIT_SLICES]
    return tables + [_honours_table(tuple(counts[27:34]))]


def _combine(tables: Sequence[tuple[int, int]]) -> int:
    return sum(t[0] for t in tables) + min(2, min(t[1] - t[0] for t in tables))


_GROUP_BOUNDS = _SUIT_SLICES + ((27, 34),)


@lru_cache(maxsize=None)
def _removal_tables(key: tuple[int, ...], honours: bool) -> tuple[Optional[tuple[int, int]], ...]:
    """For each position of a group, its (no pair, with pair) table after removing one tile there."""
    out: list[Optional[tuple[int, int]]] = []
    for i, n in enumerate(key):
        if not n:
            out.append(None)
            continue
        after = key[:i] + (n - 1,) + key[i + 1 :]
        out.append(_honours_table(after) if honours else (_suit_table(after) if any(after) else (0, 2)))
    return tuple(out)


def _group_of(kind: int) -> int:
    return 3 if kind >= 27 else kind // 9


def is_sets_only(counts: Sequence[int], wilds: int = 0, *, sets: int, stand_in: StandIn = None) -> bool:
    """True when the naturals plus wilds form exactly `sets` sets and no pair (H-8's hand before the draw)."""
    if sum(counts) + wilds != 3 * sets:
        return False
    if stand_in is not None and not counts[stand_in[0]]:
        stand_in = None
    variants = (counts,) if stand_in is None else (v for _, v in _stand_in_variants(counts, stand_in))
    return any(sum(t[0] for t in _group_tables(v)) <= wilds for v in variants)


def ready_discards(
    counts: Sequence[int], wilds: int = 0, *, sets: int = 4, seven_pairs: bool = False, stand_in: StandIn = None
) -> list[int]:
    """Kinds whose discard leaves a ready hand: is_complete(counts - d, wilds + 1) for each held d.

    One discard changes one group only, so each candidate re-reads a single memoised group table.
    """
    held = [k for k, n in enumerate(counts) if n]
    if stand_in is not None or not _check_size(counts, wilds, sets, 2):
        return [
            d
            for d in held
            if is_complete(_minus_one(counts, d), wilds + 1, sets=sets, seven_pairs=seven_pairs, stand_in=stand_in)
        ]
    tables = _group_tables(counts)
    odd = counts.count(1) + counts.count(3) if isinstance(counts, (list, tuple)) else sum(c & 1 for c in counts)
    pairs_possible = seven_pairs and sets == 4 and odd - 1 <= wilds + 1
    # a discard d lowers the wilds needed by at most 2 (d plus two wilds is a triplet): cheap reject
    if _combine(tables) > wilds + 3 and not pairs_possible:
        return []
    base = sum(t[0] for t in tables)
    spare = [t[1] - t[0] for t in tables]
    out = []
    removals = [_removal_tables(tuple(counts[lo:hi]), g == 3) for g, (lo, hi) in enumerate(_GROUP_BOUNDS)]
    for d in held:
        g = _group_of(d)
        new = removals[g][d - _GROUP_BOUNDS[g][0]]
        assert new is not None  # d is held
        pair_cost = min([2, new[1] - new[0]] + [spare[i] for i in range(4) if i != g])
        if base - tables[g][0] + new[0] + pair_cost <= wilds + 1:
            out.append(d)
        elif pairs_possible and odd + (-1 if counts[d] & 1 else 1) <= wilds + 1:
            out.append(d)
    return out


def _minus_one(counts: Sequence[int], kind: int) -> list[int]:
    out = list(counts)
    out[kind] -= 1
    return out


# ---------------------------------------------------------------- full enumeration


def _block_key(b: Block) -> tuple[int, int, tuple[int, ...]]:
    return (_SHAPE_ORDER[b.shape], b.kind, b.wild_positions)


@lru_cache(maxsize=None)
def _block(shape: str, kind: int, wild_positions: tuple[int, ...]) -> Block:
    return Block(shape, kind, wild_positions)


_ALL_WILD_SETS = tuple(
    [_block(SEQ, s * 9 + r, (0, 1, 2)) for s in range(3) for r in range(7)]
    + [_block(TRIPLET, k, (0, 1, 2)) for k in range(NUM_KINDS)]
)
_ALL_WILD_PAIRS = tuple(_block(PAIR, k, (0, 1)) for k in range(NUM_KINDS))


def _all_wild_blocks(wilds: int, sets_left: int, pairs_left: int) -> set[tuple[Block, ...]]:
    """Blocks made of wilds alone, once the natural tiles are used up (a wild stands for any kind)."""
    if wilds != 3 * sets_left + 2 * pairs_left:
        return set()
    out = set()
    for sets in combinations_with_replacement(_ALL_WILD_SETS, sets_left):
        for pairs in combinations_with_replacement(_ALL_WILD_PAIRS, pairs_left):
            out.add(tuple(sorted(sets + pairs, key=_block_key)))
    return out


def _same_kind_options(
    counts: tuple[int, ...], i: int, wilds: int, sets_left: int, pairs_left: int
) -> Iterator[tuple[Block, tuple[int, ...], int]]:
    """Triplets and pairs holding natural i, with 0.. wilds in the last positions."""
    c = counts[i]
    for shape, size, left in ((TRIPLET, 3, sets_left), (PAIR, 2, pairs_left)):
        if not left:
            continue
        for used in range(1, min(c, size) + 1):
            need = size - used
            if need > wilds:
                continue
            rest = counts[:i] + (c - used,) + counts[i + 1 :]
            yield _block(shape, i, tuple(range(used, size))), rest, need


def _seq_options(
    counts: tuple[int, ...], i: int, wilds: int, sets_left: int
) -> Iterator[tuple[Block, tuple[int, ...], int]]:
    """Sequences holding natural i as their lowest natural tile; other places natural or wild."""
    if not sets_left or i >= HONOUR_START:
        return
    rank = i % 9
    for pos_i in (0, 1, 2):
        start = i - pos_i
        if rank - pos_i < 0 or rank - pos_i + 2 > 8:
            continue
        yield from _seq_fillings(counts, start, pos_i, wilds)


def _seq_fillings(
    counts: tuple[int, ...], start: int, pos_i: int, wilds: int
) -> Iterator[tuple[Block, tuple[int, ...], int]]:
    """Every natural/wild filling of seq `start` in which position pos_i is natural."""
    base_wild = tuple(range(pos_i))  # places below i: no naturals left there
    later = [p for p in (1, 2) if p > pos_i]
    for mask in range(1 << len(later)):
        wild_pos = list(base_wild)
        rest = list(counts)
        rest[start + pos_i] -= 1
        ok = True
        for bit, p in enumerate(later):
            if mask >> bit & 1:
                wild_pos.append(p)
            elif rest[start + p]:
                rest[start + p] -= 1
            else:
                ok = False
                break
        if ok and len(wild_pos) <= wilds:
            yield _block(SEQ, start, tuple(sorted(wild_pos))), tuple(rest), len(wild_pos)


def _enumerate(
    counts: tuple[int, ...], wilds: int, sets_left: int, pairs_left: int, memo: dict[Any, set[tuple[Block, ...]]]
) -> set[tuple[Block, ...]]:
    """All block multisets (sorted tuples) using every natural and every wild exactly."""
    key = (counts, wilds, sets_left, pairs_left)
    if key in memo:
        return memo[key]
    i = next((k for k, c in enumerate(counts) if c), -1)
    if i < 0:
        result = _all_wild_blocks(wilds, sets_left, pairs_left)
    else:
        result = set()
        options = list(_same_kind_options(counts, i, wilds, sets_left, pairs_left))
        options += list(_seq_options(counts, i, wilds, sets_left))
        for block, rest, used in options:
            is_pair = block.shape == PAIR
            subs = _enumerate(rest, wilds - used, sets_left - (not is_pair), pairs_left - is_pair, memo)
            for sub in subs:
                result.add(tuple(sorted(sub + (block,), key=_block_key)))
    memo[key] = result
    return result


def lowest_blocks(
    counts: tuple[int, ...], wilds: int, sets_left: int, pairs_left: int
) -> Iterator[tuple[Block, tuple[int, ...], int]]:
    """(block, counts left, wilds used) for each block holding the lowest natural tile (G-9).

    With no natural tile left, each block made of wilds alone. Taking such blocks one after another
    reaches every decomposition of `decompositions` (the same blocks and wild places).
    """
    i = next((k for k, c in enumerate(counts) if c), -1)
    if i >= 0:
        yield from _same_kind_options(counts, i, wilds, sets_left, pairs_left)
        yield from _seq_options(counts, i, wilds, sets_left)
        return
    if sets_left and wilds >= 3:
        yield from ((b, counts, 3) for b in _ALL_WILD_SETS)
    if pairs_left and wilds >= 2:
        yield from ((b, counts, 2) for b in _ALL_WILD_PAIRS)


def _as_decomposition(blocks: tuple[Block, ...], seven: bool, stand_ins: int) -> Decomposition:
    """Sets first, the pair last (seven pairs keep their sorted order)."""
    if not seven:
        blocks = tuple(b for b in blocks if b.shape != PAIR) + tuple(b for b in blocks if b.shape == PAIR)
    return Decomposition(blocks, seven, stand_ins)


def decompositions(
    counts: Sequence[int], wilds: int = 0, *, sets: int = 4, seven_pairs: bool = False, stand_in: StandIn = None
) -> list[Decomposition]:
    """Every distinct decomposition (G-10 scores the best of them); [] when not complete."""
    if not is_complete(counts, wilds, sets=sets, seven_pairs=seven_pairs, stand_in=stand_in):
        return []
    out: list[Decomposition] = []
    for j, variant in _stand_in_variants(counts, stand_in):
        memo: dict[Any, set[tuple[Block, ...]]] = {}
        key = tuple(variant)
        for blocks in sorted(_enumerate(key, wilds, sets, 1, memo), key=_blocks_key):
            out.append(_as_decomposition(blocks, False, j))
        if seven_pairs and sets == 4 and _seven_pairs_ok(variant, wilds):
            for blocks in sorted(_enumerate(key, wilds, 0, 7, memo), key=_blocks_key):
                out.append(_as_decomposition(blocks, True, j))
    return out


def _blocks_key(blocks: tuple[Block, ...]) -> tuple[tuple[int, int, tuple[int, ...]], ...]:
    return tuple(_block_key(b) for b in blocks)


# ---------------------------------------------------------------- waits (ting)


def _wait_candidates(counts: Sequence[int], wilds: int, stand_in: StandIn) -> Iterable[int]:
    """Without wilds a winning tile must touch a held tile (same kind, or within 2 in its suit)."""
    if wilds or stand_in is not None:
        return range(NUM_KINDS)
    near = set()
    for k, c in enumerate(counts):
        if not c:
            continue
        near.add(k)
        if k < HONOUR_START:
            rank = k % 9
            near.update(k + d for d in (-2, -1, 1, 2) if 0 <= rank + d <= 8)
    return sorted(near)


def waits(
    counts: Sequence[int], wilds: int = 0, *, sets: int = 4, seven_pairs: bool = False, stand_in: StandIn = None
) -> list[int]:
    """Sorted kinds t such that one more natural t (counts[t] < 4) completes the hand (ting)."""
    if not _check_size(counts, wilds, sets, 1):
        return []
    out = []
    work = list(counts)
    for t in _wait_candidates(counts, wilds, stand_in):
        if work[t] >= 4:
            continue
        work[t] += 1
        if is_complete(work, wilds, sets=sets, seven_pairs=seven_pairs, stand_in=stand_in):
            out.append(t)
        work[t] -= 1
    return out
