"""Scoring of one 含山 win: legality (H-1, H-3), the 25 patterns (H-6..H-9), extra score and payments (H-5, H-10)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any, Callable, Iterable, Iterator, NamedTuple, Optional

from engine.hand import PAIR, SEQ, TRIPLET, Block, decompositions, is_complete, is_sets_only, lowest_blocks
from engine.win import Meld, WinContext
from engine.tiles import NUM_KINDS, WHITE, is_honour, rank_of, to_counts

SELF_DRAWN = ("self_draw", "kong_draw")
DISCARD_WINS = ("discard", "rob_kong")  # G-7: robbing a kong is a discard win by the konger
PEIZI_HANDS = ("peizizan", "peizizan_peizi", "shuangpeijia", "peizijia_peizi")  # H-8


# ---------------------------------------------------------------- the facts of one win


def white_stand_in(wild: Optional[int]) -> Optional[tuple[int, int]]:
    """H-2: 白板 may also play the 配子's kind, unless 白 is itself the 配子 (then it is only wild).
    The one H-2 rule: the table (engine/variants/hanshan/hooks.py) and scoring both use it."""
    if wild is None or wild == WHITE:
        return None
    return (WHITE, wild)


@dataclass(frozen=True)
class Win:
    """What holds for every reading of the win: the context, its 配子 and the H-8 配子 hand."""

    ctx: WinContext

    @property
    def wild(self) -> Optional[int]:
        return self.ctx.wild

    @cached_property
    def sets(self) -> int:
        """Sets to find in the concealed hand: four minus the declared melds (G-4)."""
        return 4 - len(self.ctx.melds)

    @cached_property
    def stand_in(self) -> Optional[tuple[int, int]]:
        return white_stand_in(self.wild)

    @cached_property
    def wilds_held(self) -> int:
        """配子 tiles in the concealed hand after the win (the winning tile included)."""
        return sum(1 for k in self.ctx.concealed if k == self.wild)

    @cached_property
    def naturals(self) -> list[int]:
        """34 counts of the concealed tiles that are not 配子 (the winning tile included)."""
        return to_counts(k for k in self.ctx.concealed if k != self.wild)

    @cached_property
    def meld_tiles(self) -> list[int]:
        """Every tile in the declared pungs and kongs."""
        return [m.tile for m in self.ctx.melds for _ in range(_meld_size(m))]

    @cached_property
    def colours(self) -> tuple[frozenset[int], bool]:
        """(suits present, honours present) counting neither 配子 nor 白板: H-9 colour neutrality."""
        kinds = {*self.ctx.concealed, *(m.tile for m in self.ctx.melds)} - {self.wild, WHITE}
        suits = frozenset(k // 9 for k in kinds if not is_honour(k))  # suit_of of a suit tile
        return suits, any(is_honour(k) for k in kinds)

    @cached_property
    def peizi_hands(self) -> frozenset[str]:
        """The H-8 配子 hands this self-draw makes, judged on the hand before the draw."""
        if not self.ctx.self_drawn or self.wild is None:
            return frozenset()
        return frozenset(_peizi_hands(self))

    @cached_property
    def fixed_points(self) -> dict[str, int]:
        """code -> points of the patterns outside READING_PATTERNS: the same in every reading."""
        r = Reading(self, _ANY_FACTS)
        return {p.code: p.points * int(p.check(r)) for p in PATTERNS if p.code not in READING_PATTERNS}

    def complete(self) -> bool:
        """H-1: four sets and a pair; seven pairs never win."""
        return is_complete(self.naturals, self.wilds_held, sets=self.sets, stand_in=self.stand_in)


def _meld_size(meld: Meld) -> int:
    return 4 if meld.type == "kong" else 3


# ---------------------------------------------------------------- H-8: the hand before the draw


def _sets_only(counts: list[int], wilds: int, sets: int, win: Win) -> bool:
    """True when counts plus wilds form exactly `sets` sets and no pair."""
    if wilds < 0 or any(c < 0 for c in counts):
        return False
    return _sets_only_of(tuple(counts), wilds, sets, win.stand_in)


@lru_cache(maxsize=1 << 12)
def _sets_only_of(counts: tuple[int, ...], wilds: int, sets: int, stand_in: Optional[tuple[int, int]]) -> bool:
    """is_sets_only, memoised (bounded): the H-8 hand before the draw is the same for every wait."""
    return is_sets_only(counts, wilds, sets=sets, stand_in=stand_in)


def _minus(counts: list[int], *kinds: int) -> list[int]:
    out = list(counts)
    for k in kinds:
        out[k] -= 1
    return out


def _lone_wild(pre: list[int], wilds: int, win: Win) -> bool:
    """H-8 配子赞 shape: complete sets plus one lone 配子."""
    return wilds >= 1 and _sets_only(pre, wilds - 1, win.sets, win)


def _wild_pair_and_pair(pre: list[int], wilds: int, win: Win) -> bool:
    """H-8 双配夹 shape: sets, a pair of 配子 and one natural pair."""
    if wilds < 2 or win.sets < 1:
        return False
    return any(_sets_only(_minus(pre, k, k), wilds - 2, win.sets - 1, win) for k in range(NUM_KINDS) if pre[k] >= 2)


def _three_wilds_and_single(pre: list[int], wilds: int, win: Win) -> bool:
    """H-8 配子夹配子, second shape: sets, three 配子 and one single tile."""
    if wilds < 3 or win.sets < 1:
        return False
    return any(_sets_only(_minus(pre, k), wilds - 3, win.sets - 1, win) for k in range(NUM_KINDS) if pre[k])


def _peizi_hands(win: Win) -> Iterator[str]:
    """H-8 on the hand before the draw (concealed minus the winning tile); H-6 keeps only the highest."""
    tile = win.ctx.win_tile
    drew_wild = tile == win.wild
    pre = win.naturals if drew_wild else _minus(win.naturals, tile)
    wilds = win.wilds_held - drew_wild
    lone = _lone_wild(pre, wilds, win)
    if drew_wild:
        if lone:
            yield "peizizan_peizi"
        if _wild_pair_and_pair(pre, wilds, win) or _three_wilds_and_single(pre, wilds, win):
            yield "peizijia_peizi"
        return
    if lone:
        yield "peizizan"
    # H-8: 双配夹 needs a drawn suit tile ranked 2-8 (the physical tile: a drawn 白板 is an honour);
    # with a 1, 9 or honour the same hand is only 配子赞 (every 双配夹 shape is also a lone-配子 shape).
    if rank_of(tile) in range(2, 9) and _wild_pair_and_pair(pre, wilds, win):
        yield "shuangpeijia"


# ---------------------------------------------------------------- readings (G-10)

ON_PAIR, CLOSED, OPEN = "pair", "closed", "open"  # where the winning tile sits (H-10 丫当, H-7 全求人)

#: What the reading-dependent patterns see of some blocks of a reading, as a plain tuple (cheap to
#: join): (honour triplets, only 2-8 suit kinds, only honour kinds, only triplets as sets, bitmask
#: of 123/456/789 sequence starts (bit 3 x suit + rank // 3), pair of natural 1s or 9s, role of the
#: winning tile's place: None when it is not in these blocks, else ON_PAIR, CLOSED or OPEN).
Part = tuple[Any, ...]
#: A set of parts kept as a tuple: plain tuples of plain values are not tracked by the garbage
#: collector, so the memoised searches below do not lengthen its full collections.
Parts = tuple[Part, ...]
_EMPTY: Part = (0, True, True, True, 0, False, None)
_STRAIGHT = 0b111  # 123, 456 and 789 of one suit (H-7 tongtian)


class Facts(NamedTuple):
    """What a reading (G-10) shows the patterns beyond the Win: only these differ between readings."""

    honour_sets: int  # concealed honour triplets, 配子-completed ones too (H-7 fengpai)
    simples: bool  # every concealed kind (配子 as played, 白板 as read) is a 2-8 suit kind
    honours: bool  # every concealed kind is an honour
    triplets: bool  # every concealed set is a triplet
    straight: bool  # 123, 456 and 789 of one suit as sequences (H-7 tongtian)
    terminal_pair: bool  # the pair is two natural 1s or 9s (H-7 yaojiutou)
    win_role: str  # ON_PAIR, CLOSED (a closed or edge wait) or OPEN

    @classmethod
    def of(cls, part: Part) -> "Facts":
        honour_sets, simples, honours, triplets, starts, terminal_pair, role = part
        straight = any(starts >> 3 * s & _STRAIGHT == _STRAIGHT for s in range(3))
        return cls(honour_sets, simples, honours, triplets, straight, terminal_pair, role)


@dataclass(frozen=True)
class Reading:
    """One way to read the win (G-10), as far as scoring can tell readings apart."""

    win: Win
    facts: Facts

    @property
    def ctx(self) -> WinContext:
        return self.win.ctx


def _join(a: Part, b: Part) -> Part:
    """The part of the blocks of a and of b together (the winning tile sits in at most one)."""
    return (a[0] + b[0], a[1] and b[1], a[2] and b[2], a[3] and b[3], a[4] | b[4], a[5] or b[5], a[6] or b[6])


def _block_part(block: Block, wild: Optional[int]) -> Part:
    """The part of one block, the winning tile elsewhere (配子 as assigned, 白板 as read)."""
    simples = all(not is_honour(k) and rank_of(k) not in (1, 9) for k in block.kinds)
    honours = is_honour(block.kind)
    if block.shape == PAIR:
        # H-7 yaojiutou: no 配子 in the pair and not 白板 playing the 配子's kind
        terminal = not block.wild_positions and block.kind != wild and rank_of(block.kind) in (1, 9)
        return (0, simples, honours, True, 0, terminal, None)
    if block.shape == TRIPLET:
        return (int(honours), simples, honours, True, 0, False, None)
    starts = 1 << (3 * (block.kind // 9) + block.kind % 9 // 3) if block.kind % 3 == 0 else 0  # a suit seq
    return (0, simples, honours, False, starts, False, None)


def _role(block: Block, pos: int) -> str:
    """H-10: the winning tile at `pos` completes a single (pair), closed or edge wait, or an open one."""
    if block.shape == PAIR:
        return ON_PAIR
    if block.shape != SEQ:
        return OPEN
    first = rank_of(block.kind)
    closed = pos == 1 or (pos == 2 and first == 1) or (pos == 0 and first == 7)
    return CLOSED if closed else OPEN


def _can_sit(tile: int, wild: Optional[int], block: Block, pos: int) -> bool:
    """Can the winning tile be the tile at this place: a 配子 in a wild place, else a natural one of its kind.

    A natural place of the 配子's kind is always a 白板 stand-in (every tile of that kind is wild).
    """
    if tile == wild:
        return pos in block.wild_positions
    if pos in block.wild_positions:
        return False
    kind = block.kinds[pos]
    return kind == tile or (tile == WHITE and kind == wild)


@lru_cache(maxsize=1 << 16)
def _block_parts(block: Block, wild: Optional[int], tile: int) -> tuple[Part, ...]:
    """The block's part without the winning tile, then one per role the winning tile can take in it."""
    base = _block_part(block, wild)
    places = range(len(block.kinds))
    roles = dict.fromkeys(_role(block, p) for p in places if _can_sit(tile, wild, block, p))
    return (base, *(base[:6] + (role,) for role in roles))


def _join_into(out: set[Part], parts: tuple[Part, ...], subs: Iterable[Part]) -> None:
    """Add each block part joined with each part of the rest that does not also hold the winning tile."""
    for hon, simples, honours, triplets, starts, terminal, role in parts:  # _join, inlined: the hot loop
        out.update(
            (hon + h, simples and s, honours and o, triplets and t, starts | b, terminal or p, role or r)
            for h, s, o, t, b, p, r in subs
            if role is None or r is None
        )


@lru_cache(maxsize=1 << 12)
def _wild_only_parts(wilds: int, sets: int, pairs: int, wild: Optional[int], tile: int) -> Parts:
    """Parts of the blocks made of wilds alone once no natural tile is left (the same for every hand)."""
    if not sets and not pairs:
        return (_EMPTY,) if not wilds else ()
    out: set[Part] = set()
    for block, _, used in lowest_blocks((0,) * NUM_KINDS, wilds, sets, pairs):
        pair = block.shape == PAIR
        subs = _wild_only_parts(wilds - used, sets - (not pair), pairs - pair, wild, tile)
        if subs:
            _join_into(out, _block_parts(block, wild, tile), subs)
    return tuple(out)


_GROUP_SPANS = ((0, 9), (9, 18), (18, 27), (27, NUM_KINDS))  # sets never cross these (G-4)
_NO_TILE = -1  # the winning tile where it cannot sit: the parts do not depend on it


def _sits_in(counts: tuple[int, ...], wilds: int, wild: Optional[int], tile: int) -> bool:
    """Can the winning tile sit in blocks of these naturals and wilds (its kind held, a 配子 place,
    or a 白板 reading as the 配子's kind)?"""
    if counts[tile] or (tile == wild and wilds):
        return True
    return tile == WHITE and wild is not None and counts[wild] > 0


def _group_parts(counts: tuple[int, ...], wilds: int, sets: int, pairs: int, wild: Optional[int], tile: int) -> Parts:
    """_group_split keyed without what cannot matter (more sharing across wins): the winning tile
    where it cannot sit, and the 配子's kind when no 白板 reads as it here and the tile is no 配子."""
    if not _sits_in(counts, wilds, wild, tile):
        tile = _NO_TILE
    if wild is not None and tile != wild and not counts[wild]:
        wild = None
    return _group_split(counts, wilds, sets, pairs, wild, tile)


@lru_cache(maxsize=1 << 13)
def _group_split(counts: tuple[int, ...], wilds: int, sets: int, pairs: int, wild: Optional[int], tile: int) -> Parts:
    """Parts of every split of one group's naturals into exactly `sets` sets and `pairs` pairs that
    uses exactly `wilds` wilds, each block holding a natural (the block of the lowest tile first)."""
    if not any(counts):
        return (_EMPTY,) if not (wilds or sets or pairs) else ()
    out: set[Part] = set()
    for block, rest, used in lowest_blocks(counts, wilds, sets, pairs):
        pair = block.shape == PAIR
        subs = _group_parts(rest, wilds - used, sets - (not pair), pairs - pair, wild, tile)
        if subs:
            _join_into(out, _block_parts(block, wild, tile), subs)
    return tuple(out)


@lru_cache(maxsize=1 << 12)
def _join_sets(a: Parts, b: Parts) -> Parts:
    """Each part of a joined with each part of b, the winning tile in at most one of them."""
    out: set[Part] = set()
    _join_into(out, a, b)
    return tuple(out)


Options = tuple[tuple[int, int, int, Parts], ...]  # (wilds used, sets, pairs, parts)
State = tuple[tuple[tuple[int, int, int], Parts], ...]  # (wilds used, sets, pairs) -> parts
_START: State = (((0, 0, 0), (_EMPTY,)),)


@lru_cache(maxsize=1 << 12)
def _group_options(key: tuple[int, ...], n: int, wilds: int, sets: int, wild: Optional[int], tile: int) -> Options:
    """Every (wilds used, sets, pairs) one group's n naturals can take, with the parts of each."""
    out = []
    for pairs in (0, 1):
        for used in range(wilds + 1):
            blocks, left = divmod(n + used - 2 * pairs, 3)
            if left or blocks > sets:
                continue
            found = _group_parts(key, used, blocks, pairs, wild, tile)
            if found:
                out.append((used, blocks, pairs, found))
    return tuple(out)


@lru_cache(maxsize=1 << 12)
def _fold(state: State, options: Options, wilds: int, sets: int) -> State:
    """The state after one more group: every combination within the wilds, the sets and one pair."""
    step: dict[tuple[int, int, int], set[Part]] = {}
    for (w, s, p), parts in state:
        for used, blocks, pairs, found in options:
            at = (w + used, s + blocks, p + pairs)
            if at[0] > wilds or at[1] > sets or at[2] > 1:
                continue
            step.setdefault(at, set()).update(_join_sets(parts, found))
    return tuple((at, tuple(parts)) for at, parts in step.items())


def _natural_parts(win: Win, counts: tuple[int, ...], wilds: int, sets: int) -> State:
    """(wilds used, sets, pairs) -> parts of the blocks holding naturals, group by group.

    The groups where the winning tile cannot sit come first: their state is the same for every
    winning tile of that kind of hand, so the memoised folds share it."""
    wild, tile = win.wild, win.ctx.win_tile
    later = []
    state = _START
    for lo, hi in _GROUP_SPANS:
        n = sum(counts[lo:hi])
        if not n:
            continue
        key = (0,) * lo + counts[lo:hi] + (0,) * (NUM_KINDS - hi)
        if _sits_in(key, wilds, wild, tile):
            later.append((key, n))
        else:
            state = _fold(state, _group_options(key, n, wilds, sets, wild, _NO_TILE), wilds, sets)
    for key, n in later:
        state = _fold(state, _group_options(key, n, wilds, sets, wild, tile), wilds, sets)
    return state


def _stand_in_counts(win: Win) -> Iterator[tuple[int, ...]]:
    """The natural counts with 0, 1, ... of the 白板 tiles read as the 配子's kind (H-2)."""
    yield tuple(win.naturals)
    if win.stand_in is not None:
        for j in range(1, win.naturals[WHITE] + 1):
            moved = list(win.naturals)
            moved[win.stand_in[0]] -= j
            moved[win.stand_in[1]] += j
            yield tuple(moved)


def all_facts(win: Win) -> set[Facts]:
    """The distinct facts of every reading: decomposition x 配子 assignment x 白板 reading x winning-tile place.

    The blocks holding naturals are searched group by group (memoised per group, so wins that share
    a suit share its search), then joined with the blocks made of 配子 alone."""
    parts: set[Part] = set()
    for counts in _stand_in_counts(win):
        for (w, s, p), natural in _natural_parts(win, counts, win.wilds_held, win.sets):
            rest = _wild_only_parts(win.wilds_held - w, win.sets - s, 1 - p, win.wild, win.ctx.win_tile)
            if rest:
                parts.update(_join_sets(natural, rest))
    return {Facts.of(p) for p in parts if p[6] is not None}


def readings(win: Win) -> Iterator[Reading]:
    """Every reading in the order of hand.decompositions, block by block and place by place (G-10 ties)."""
    tile = win.ctx.win_tile
    for d in decompositions(win.naturals, win.wilds_held, sets=win.sets, stand_in=win.stand_in):
        whole = _EMPTY
        for block in d.blocks:
            whole = _join(whole, _block_part(block, win.wild))
        for block in d.blocks:
            for pos in range(len(block.kinds)):
                if _can_sit(tile, win.wild, block, pos):
                    yield Reading(win, Facts.of(whole[:6] + (_role(block, pos),)))


def is_yadang(r: Reading) -> bool:
    """H-10 丫当: the winning tile completes a closed, an edge or a single (pair) wait; every H-8 hand is 丫当."""
    return bool(r.win.peizi_hands) or r.facts.win_role != OPEN


# ---------------------------------------------------------------- the 25 patterns (H-7, H-8)


@dataclass(frozen=True)
class Pattern:
    """A scoring pattern of H-7: `check` counts how often it applies (0 = not), worth points each."""

    code: str
    name_zh: str
    name_en: str
    points: int
    check: Callable[[Reading], int]


def _honour_sets(r: Reading) -> int:
    """H-7 fengpai: honour triplets (配子-completed too) in the hand plus honour pungs and kongs."""
    return r.facts.honour_sets + sum(1 for m in r.ctx.melds if is_honour(m.tile))


def _kongs(r: Reading, kinds: tuple[str, ...]) -> int:
    return sum(1 for m in r.ctx.melds if m.type == "kong" and m.kong in kinds)


def _duanyao(r: Reading) -> int:
    """H-7: no 1, 9 or honour among the kinds the hand stands for (a 配子 counts as what it plays)."""
    return r.facts.simples and all(not is_honour(k) and rank_of(k) not in (1, 9) for k in r.win.meld_tiles)


def _wanshi(r: Reading) -> int:
    """H-7: self-draw with no pung and no exposed/added kong (concealed kongs allowed)."""
    open_sets = any(m.type == "pung" or m.kong in ("exposed", "added") for m in r.ctx.melds)
    return r.ctx.self_drawn and not open_sets


def _queyimen(r: Reading) -> int:
    """H-7/H-9: exactly one of the three suits missing, 配子 and 白板 colour-neutral."""
    suits, _ = r.win.colours
    return len(suits) == 2


def _yaojiutou(r: Reading) -> int:
    """H-7: the pair is two natural 1s or 9s: no 配子 in it and not 白板 playing the 配子's kind."""
    return r.facts.terminal_pair


def _ming_sihuo(r: Reading) -> int:
    """H-7: per kind with three tiles in a pung and the fourth in the concealed hand."""
    return sum(1 for m in r.ctx.melds if m.type == "pung" and m.tile in r.ctx.concealed)


def _an_sihuo(r: Reading) -> int:
    """H-7: per kind with all four tiles in the concealed hand, not konged (four 配子 are sipeizi instead)."""
    return sum(1 for c in r.win.naturals if c == 4)


def _hunyise(r: Reading) -> int:
    """H-7/H-9: one suit plus honours (配子 and 白板 neither make nor break it)."""
    suits, honours = r.win.colours
    return len(suits) == 1 and honours


def _qingyise(r: Reading) -> int:
    """H-7/H-9: one suit only, 配子 and 白板 colour-neutral (original text 14(1)-(3))."""
    suits, honours = r.win.colours
    return len(suits) == 1 and not honours


def _duiduihu(r: Reading) -> int:
    """H-7: every set is a triplet, pung or kong."""
    return r.facts.triplets


def _tongtian(r: Reading) -> int:
    """H-7: 123, 456 and 789 of one suit as sequences of the hand."""
    return r.facts.straight


def _quanqiuren(r: Reading) -> int:
    """H-7: four pungs/exposed or added kongs, single wait on the pair, won on a discard."""
    melds = r.ctx.melds
    no_concealed = all(m.kong != "concealed" for m in melds)
    return len(melds) == 4 and no_concealed and r.ctx.win_by in DISCARD_WINS and r.facts.win_role == ON_PAIR


def _peizi_hand(code: str) -> Callable[[Reading], int]:
    return lambda r: code in r.win.peizi_hands


def _tianhu(r: Reading) -> int:
    """H-7: the dealer wins on the first 14 tiles (never after a concealed kong)."""
    return r.ctx.heavenly and r.ctx.seat == r.ctx.dealer and not r.ctx.melds


def _dihu(r: Reading) -> int:
    """H-7: a non-dealer wins on the dealer's first discard, or won having declared 报听 at the deal (H-4)."""
    ctx = r.ctx
    on_first = ctx.dealer_first_discard and ctx.win_by == "discard"
    return ctx.seat != ctx.dealer and (on_first or ctx.ready)


def _fengyise(r: Reading) -> int:
    """H-7: every kind the hand stands for is an honour, still four sets and a pair."""
    return r.facts.honours and all(is_honour(k) for k in r.win.meld_tiles)


def _baoting(r: Reading) -> int:
    """H-7: 30 for a win after 报听, twice that by self-draw."""
    return (2 if r.ctx.self_drawn else 1) if r.ctx.ready else 0


PATTERNS: tuple[Pattern, ...] = (
    Pattern("fengpai", "风牌", "honour pung", 2, _honour_sets),
    Pattern("minggang", "明杠", "exposed kong", 5, lambda r: _kongs(r, ("exposed", "added"))),
    Pattern("angang", "暗杠", "concealed kong", 10, lambda r: _kongs(r, ("concealed",))),
    Pattern("gangshang_kaihua", "杠上开花", "win on a kong replacement", 5, lambda r: r.ctx.win_by == "kong_draw"),
    Pattern("qiangganghu", "抢杠胡", "robbing a kong", 5, lambda r: r.ctx.win_by == "rob_kong"),
    Pattern("duanyao", "断幺", "all simples", 5, _duanyao),
    Pattern("wanshi", "万事", "concealed self-draw", 5, _wanshi),
    Pattern("queyimen", "缺一门", "one suit missing", 5, _queyimen),
    Pattern("yaojiutou", "幺九头", "pair of 1s or 9s", 2, _yaojiutou),
    Pattern("ming_sihuo", "明四活", "pung plus fourth in hand", 5, _ming_sihuo),
    Pattern("an_sihuo", "暗四活", "four in hand, not konged", 10, _an_sihuo),
    Pattern("hunyise", "混一色", "half flush", 30, _hunyise),
    Pattern("duiduihu", "对对胡", "all pungs", 30, _duiduihu),
    Pattern("tongtian", "通天", "pure straight", 30, _tongtian),
    Pattern("qingyise", "清一色", "full flush", 60, _qingyise),
    Pattern("quanqiuren", "全求人", "all melded, single wait on a discard", 90, _quanqiuren),
    Pattern("wupeizi", "无配子", "no wild", 4, lambda r: r.win.wilds_held == 0),
    Pattern("peizizan", "配子赞", "lone wild wait", 30, _peizi_hand("peizizan")),
    Pattern("peizizan_peizi", "配子赞配子", "lone wild wait, wild drawn", 60, _peizi_hand("peizizan_peizi")),
    Pattern("shuangpeijia", "双配夹", "two wilds around a 2-8", 60, _peizi_hand("shuangpeijia")),
    Pattern("peizijia_peizi", "配子夹配子", "wild pair wait, wild drawn", 120, _peizi_hand("peizijia_peizi")),
    Pattern("sipeizi", "四配子", "all four wilds", 60, lambda r: r.win.wilds_held == 4),
    Pattern("tianhu", "天胡", "heavenly hand", 60, _tianhu),
    Pattern("dihu", "地胡", "earthly hand", 30, _dihu),
    Pattern("fengyise", "风一色", "all honours", 120, _fengyise),
    Pattern("baoting", "报听", "declared ready", 30, _baoting),
)
PATTERN_BY_CODE = {p.code: p for p in PATTERNS}

#: H-6 (and H-9 for fengpai): a pattern does not score when any pattern after it scores.
EXCLUDED_BY: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("queyimen", ("hunyise", "qingyise")),  # H-6
    ("duiduihu", ("quanqiuren",)),  # H-6
    *((code, ("quanqiuren",)) for code in PEIZI_HANDS),  # H-6
    ("fengpai", ("qingyise",)),  # H-9: a 清一色 hand scores no fengpai
)
#: H-6: of each group only the highest-scoring pattern counts.
HIGHEST_ONLY: tuple[tuple[str, ...], ...] = (PEIZI_HANDS,)


#: The patterns whose check reads the reading's Facts (G-10); every other one holds for the whole win.
READING_PATTERNS = frozenset({"fengpai", "duanyao", "yaojiutou", "duiduihu", "tongtian", "quanqiuren", "fengyise"})
_ANY_FACTS = Facts(0, False, False, False, False, False, OPEN)  # for the checks that do not read it


def pattern_points(r: Reading) -> dict[str, int]:
    """code -> points of every pattern that scores in this reading, H-6 exclusions applied, table order.

    The patterns that do not read the reading's facts are checked once per win (Win.fixed_points)."""
    fixed = r.win.fixed_points
    raw = {p.code: p.points * int(p.check(r)) if p.code in READING_PATTERNS else fixed[p.code] for p in PATTERNS}
    return apply_exclusions({code: pts for code, pts in raw.items() if pts})


def apply_exclusions(scored: dict[str, int]) -> dict[str, int]:
    """H-6/H-9: drop what HIGHEST_ONLY and EXCLUDED_BY rule out of the patterns that apply."""
    scored = dict(scored)
    for group in HIGHEST_ONLY:
        present = [c for c in group if c in scored]
        for code in sorted(present, key=lambda c: scored[c], reverse=True)[1:]:
            del scored[code]
    for code, excluders in EXCLUDED_BY:
        if code in scored and any(e in scored for e in excluders):
            del scored[code]
    return scored


# ---------------------------------------------------------------- extra score and payment (H-5, H-10)

#: H-10 extra score per payer: (winner is dealer, self-drawn) -> ((平胡 non-dealer, dealer), (丫当 ...)).
EXTRA_TABLE: dict[tuple[bool, bool], tuple[tuple[int, int], tuple[int, int]]] = {
    (False, False): ((2, 5), (4, 10)),  # non-dealer wins on a discard
    (False, True): ((4, 15), (6, 20)),  # non-dealer self-draws
    (True, False): ((5, 5), (10, 10)),  # dealer wins on a discard (every payer is a non-dealer)
    (True, True): ((15, 15), (20, 20)),  # dealer self-draws
}


def extras(ctx: WinContext, yadang: bool) -> dict[int, int]:
    """H-10: payer seat -> extra score, from the 丫当 table when the win is 丫当, else the 平胡 table."""
    row = EXTRA_TABLE[(ctx.seat == ctx.dealer, ctx.self_drawn)][yadang]
    return {p: row[p == ctx.dealer] for p in range(4) if p != ctx.seat}


def deltas(ctx: WinContext, pattern_score: int, extra: dict[int, int]) -> list[int]:
    """H-5: each payer pays (pattern score + its extra) x base; 点炮一家付 puts it all on the discarder."""
    base = ctx.options["base"]
    owed = {p: (pattern_score + e) * base for p, e in extra.items()}
    if ctx.options["discarder_pays_all"] and ctx.win_by in DISCARD_WINS and ctx.discarder is not None:
        owed = {ctx.discarder: sum(owed.values())}
    out = [0, 0, 0, 0]
    for payer, amount in owed.items():
        out[payer] -= amount
        out[ctx.seat] += amount
    return out


# ---------------------------------------------------------------- score


@dataclass(frozen=True)
class Outcome:
    """The score of one reading: its patterns, 丫当 or not, and the deltas."""

    patterns: dict[str, int]
    yadang: bool
    deltas: list[int]

    @property
    def total(self) -> int:
        return sum(self.patterns.values())


def outcome(r: Reading) -> Outcome:
    points = pattern_points(r)
    yadang = is_yadang(r)
    return Outcome(points, yadang, deltas(r.ctx, sum(points.values()), extras(r.ctx, yadang)))


def best_outcome(win: Win) -> Outcome:
    """G-10: the outcome of the reading giving the winner most (then the higher pattern score).

    Readings are scored once per distinct Facts. When several different outcomes tie for the best,
    the first reading found in the order of hand.decompositions decides, as a plain search would.
    """
    rank = _ranker(win)
    scored = {facts: outcome(Reading(win, facts)) for facts in all_facts(win)}
    top = max(map(rank, scored.values()))
    tied = {(tuple(o.patterns.items()), o.yadang): o for o in scored.values() if rank(o) == top}
    if len(tied) == 1:
        return next(iter(tied.values()))
    return next(scored[r.facts] for r in readings(win) if rank(scored[r.facts]) == top)


def _ranker(win: Win) -> Callable[[Outcome], tuple[int, int]]:
    """G-10 order of outcomes: what the winner receives, then the pattern score."""
    seat = win.ctx.seat
    return lambda o: (o.deltas[seat], o.total)


def illegal_reason(win: Win) -> Optional[str]:
    """The stable code of docs/CONTRACTS.md when the win is not legal (H-1, H-3), else None."""
    ctx, opts = win.ctx, win.ctx.options
    if not win.complete():
        return "not_complete"
    discard_win = ctx.win_by in DISCARD_WINS
    if discard_win and ctx.win_tile == win.wild and not opts["win_on_discarded_wild"]:
        return "discarded_wild"
    # H-3 【有配子只能自摸】: "holding" = a 配子 in the concealed hand after the win, the winning tile included.
    if discard_win and win.wilds_held and opts["wild_self_draw_only"]:
        return "wild_self_draw_only"
    return None


def legality(ctx: WinContext) -> Optional[str]:
    """The refusal code when the win is not legal (H-1, H-3), else None; no pattern search."""
    _check_context(ctx)
    return illegal_reason(Win(ctx))


def _check_context(ctx: WinContext) -> None:
    if ctx.win_tile not in ctx.concealed:
        raise ValueError("the winning tile must be one of the concealed tiles")
    if ctx.options.get("discarder_pays_all") and ctx.win_by in DISCARD_WINS and ctx.discarder in (None, ctx.seat):
        raise ValueError("a discard win needs the discarder's seat (the konger when robbing a kong)")


def score(ctx: WinContext) -> dict[str, Any]:
    """Score one 含山 win: the contract of docs/CONTRACTS.md ("tilefold score — hanshan").

    G-10: among every decomposition, 配子 assignment, 白板 reading and place of the winning tile,
    the reading that gives the winner the highest total wins — pattern score and extra together,
    i.e. the most the winner receives (ties: higher pattern score, then the first found).
    """
    _check_context(ctx)
    win = Win(ctx)
    reason = illegal_reason(win)
    if reason:
        return {"ok": False, "reason": reason}
    best = best_outcome(win)
    return {
        "ok": True,
        "patterns": [{"code": code, "points": pts} for code, pts in best.patterns.items()],
        "pattern_score": best.total,
        "extra": "yadang" if best.yadang else "pinghu",
        "deltas": best.deltas,
    }
