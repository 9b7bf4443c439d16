"""The `normal` bot: tile efficiency from engine.analysis, waits valued by the variant's scoring,
and caution against a declared-ready opponent in 扣点点 (its 报听 is public, K-2).

It reads only what its seat may know (`Knowledge.of`): its own concealed tiles, every meld, the
face-up discards (its own face-down one too), who has declared ready, the hand's wild and the wall
count. Never another hand, a face-down discard of another seat, or the wall.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Collection, Mapping, Optional, Sequence

from engine import analysis as A
from engine import variants
from engine.actions import legal_actions
from engine.scoring import Meld, WinContext, legality, score
from engine.state import MatchState
from engine.tiles import kind, name, parse, points
from engine.views import seat_view

_DISCARD_WIN_MIN = 6  # K-4: a tile worth less never wins on a discard in 扣点点


@dataclass(frozen=True)
class _SeatSeen:
    """A seat as the view shows it: declared or not, concealed tile count, melds (kinds), river."""

    ready: bool
    concealed: int
    melds: tuple[dict[str, Any], ...]
    discards: tuple[dict[str, Any], ...]

    @staticmethod
    def of(seen: dict[str, Any]) -> "_SeatSeen":
        melds = tuple({**m, "tile": kind(m["tile"])} for m in seen["melds"])
        return _SeatSeen(bool(seen["ready"]), seen["concealed_count"], melds, tuple(seen["discards"]))


@dataclass(frozen=True)
class Knowledge:
    """Everything the seat's decision may use."""

    variant: str
    options: dict[str, Any]
    seat: int
    dealer: int
    counts: tuple[int, ...]
    melds: tuple[dict[str, Any], ...]
    hidden: tuple[int, ...]  # unseen copies per kind, from this seat's point of view
    rules: A.Rules
    ready: bool
    threats: tuple[int, ...]  # other seats that declared ready
    safe_against: frozenset[int]  # kinds a threat discarded face up after declaring
    wall: int = 0  # tiles left to draw (public)
    passed_by_threats: frozenset[int] = frozenset()  # kinds discarded face up since every threat declared
    table: tuple["_SeatSeen", ...] = ()  # every seat as this seat sees it
    waits_scored: int = 0  # waits a decision may score where the variant caps fewer (`strong`'s budget); 0: the cap

    @staticmethod
    def of(state: MatchState, seat: int) -> "Knowledge":
        """What `seat` knows now: read off the seat's view (engine.views.seat_view, the hand part of its
        `view`), never the state itself."""
        return Knowledge.of_view(seat_view(state, seat))

    @staticmethod
    def of_view(seen: dict[str, Any]) -> "Knowledge":
        """From a seat's view (engine.views.view): the same redacted document a person gets."""
        hand = seen["hand"]
        seat = seen["seat"]
        seats = [_SeatSeen.of(s) for s in hand["seats"]]
        me = seats[seat]
        counts = [0] * 34
        for k in parse(hand["seats"][seat]["concealed"] or ""):
            counts[k] += 1
        visible = [0] * 34
        for s, other in enumerate(seats):
            for m in other.melds:
                visible[m["tile"]] += 4 if m["type"] == "kong" else 3
            for d in other.discards:
                if d.get("claimed") or d.get("tile") is None or (d.get("face_down") and s != seat):
                    continue
                visible[_kind_of(d["tile"])] += 1
        threats = tuple(s for s in range(4) if s != seat and seats[s].ready)
        safe = frozenset(k for s in threats for k in _after_declaring(seats[s].discards))
        variant = seen["variant"] or ""
        wild = kind(hand["wild"]) if hand["wild"] else None
        return Knowledge(
            variant,
            seen["options"],
            seat,
            hand["dealer"],
            tuple(counts),
            tuple(me.melds),
            tuple(A.unseen(counts, visible)),
            A.Rules.of(variant, wild),
            bool(me.ready),
            threats,
            safe,
            hand["wall_count"],
            _passed_since(seats, threats),
            tuple(seats),
        )

    @property
    def sets(self) -> int:
        return 4 - len(self.melds)


def _after_declaring(discards: Sequence[dict[str, Any]]) -> list[int]:
    """Face-up discards after the face-down declaring one (K-2): the locked hand let them go."""
    out: list[int] = []
    declared = False
    for d in discards:
        if d.get("face_down"):
            declared = True
        elif declared and d.get("tile") is not None:
            out.append(_kind_of(d["tile"]))
    return out


def _passed_since(seats: Sequence[Any], threats: Sequence[int]) -> frozenset[int]:
    """Kinds let go face up since every threat declared, by anyone, and not won on. In 扣点点 (K-5)
    a declared hand that lets a winning discard pass may no longer win on that kind by discard.
    The seats' rivers are not ordered against each other: a seat's last n-1 discards, n the
    threat's discards after its declaring one, surely came after the declaration (one per turn)."""
    if not threats:
        return frozenset()
    common: Optional[set[int]] = None
    for t in threats:
        after = len(_after_declaring(seats[t].discards))
        kinds = set(_after_declaring(seats[t].discards))
        for s, other in enumerate(seats):
            if s == t or after < 2:
                continue
            river = [d for d in other.discards if not d.get("face_down") and d.get("tile") is not None]
            kinds.update(_kind_of(d["tile"]) for d in river[-(after - 1) :])
        common = kinds if common is None else common & kinds
    return frozenset(common or ())


def _kind_of(tile: Any) -> int:
    return tile if isinstance(tile, int) else kind(tile)


def normal_action(state: MatchState, seat: int) -> dict[str, Any]:
    acts = legal_actions(state, seat)
    if not acts:
        raise ValueError(f"seat {seat} has nothing to decide")
    by: dict[str, list[dict[str, Any]]] = {}
    for act in acts:
        by.setdefault(act["action"], []).append(act)
    if "hu" in by:
        return by["hu"][0]
    know = Knowledge.of(state, seat)
    if "ting" in by:
        choice = _ting_choice(know, by["ting"])
        if choice is not None:
            return choice
    if "kong" in by:
        choice = _kong_choice(state, know, by["kong"])
        if choice is not None:
            return choice
    if "pung" in by and _pung_helps(state, know):
        return by["pung"][0]
    if "pass" in by:
        return {"action": "pass"}
    return _discard_choice(know, by["discard"])


# ---------------------------------------------------------------- wait values (K-1 points, 含山 patterns)


_VALUED_DISCARDS = 3  # ready discards whose waits are scored per decision (the most live waits first)


def _value_of(know: Knowledge, live_only: bool = True) -> Callable[[Sequence[int], int], int]:
    """(13 counts, wait) -> what the seat would gain by self-drawing it, by the variant's scoring.

    With `live_only`, a wait with no unseen copy is worth 0 without scoring it (it cannot come)."""
    gains = _gains_of(know, live_only)
    return lambda rest, t: gains(rest, t)[0]


Gains = Callable[[Sequence[int], int], tuple[int, int]]


def _gains_of(know: Knowledge, live_only: bool = True) -> Gains:
    """(13 counts, wait) -> (the seat's gain by self-drawing it, by the variant's scoring; about what
    a win on another seat's discard gains, 0 where that win is not legal: K-2, K-4, H-3).

    With `live_only`, a wait with no unseen copy is worth (0, 0) without scoring it (it cannot come)."""
    try:
        options_key: Optional[tuple[Any, ...]] = tuple(sorted(know.options.items()))
        hash(options_key)
    except TypeError:
        options_key = None

    def gains(rest: Sequence[int], t: int) -> tuple[int, int]:
        if live_only and not know.hidden[t]:
            return 0, 0
        if options_key is None:
            return _win_gains(know, tuple(rest), t)
        key = (
            know.variant,
            options_key,
            know.seat,
            know.dealer,
            know.ready,
            know.rules.wild,
            tuple((m["type"], m["tile"], m.get("kong")) for m in know.melds),
            tuple(rest),
            t,
        )
        return _cached_gains(key, know, tuple(rest), t)

    return gains


_GAINS: dict[tuple[Any, ...], tuple[int, int]] = {}


def _cached_gains(key: tuple[Any, ...], know: Knowledge, rest: tuple[int, ...], t: int) -> tuple[int, int]:
    """Scores are pure in the key: keep up to 50,000 of them (a ready hand is valued again each turn)."""
    if key not in _GAINS:
        if len(_GAINS) >= 50_000:
            _GAINS.clear()
        _GAINS[key] = _win_gains(know, rest, t)
    return _GAINS[key]


def _win_gains(know: Knowledge, rest: Sequence[int], t: int) -> tuple[int, int]:
    concealed = tuple(k for k, n in enumerate(rest) for _ in range(n)) + (t,)
    ctx = WinContext(
        variant=know.variant,
        options=know.options,
        seat=know.seat,
        dealer=know.dealer,
        concealed=concealed,
        melds=tuple(Meld(m["type"], m["tile"], m.get("kong")) for m in know.melds),
        win_tile=t,
        win_by="self_draw",
        ready=True if variants.get(know.variant).ting_to_win else know.ready,  # K-2
        wild=know.rules.wild,
    )
    own = _gain(know, ctx)
    if not own:
        return 0, 0
    fed = replace(ctx, win_by="discard", discarder=(know.seat + 1) % 4, discarder_ready=False)
    # the discard win checked (legality, no pattern search) and valued at half: K-7 halves every
    # multiplier on a discard; in 含山 a self-draw adds H-10's larger extras and 万事
    return own, (own // 2 if legality(fed) is None else 0)


def _gain(know: Knowledge, ctx: WinContext) -> int:
    try:
        result = score(ctx)
    except (ValueError, KeyError):
        return 0
    return result["deltas"][know.seat] if result.get("ok") else 0


# ---------------------------------------------------------------- decisions


def _ting_choice(know: Knowledge, choices: list[dict[str, Any]]) -> Optional[dict[str, Any]]:
    """K-2 / H-4: declare; with a discard, the one whose live waits are worth the most."""
    for choice in choices:
        if "tile" not in choice:
            return choice  # H-4 dealer declaring on a complete hand, 胡 next
    if not choices:
        return None
    tiles = [kind(c["tile"]) for c in choices]
    options = _valued_options(know, tiles)
    return {"action": "ting", "tile": name(options[0].tile)}


def _kong_choice(state: MatchState, know: Knowledge, choices: list[dict[str, Any]]) -> Optional[dict[str, Any]]:
    """A kong when the hand gets no further from ready (a locked hand's kong keeps it ready, K-3)."""
    counts = list(know.counts)
    before = A.hand_shanten(counts, know.sets, know.rules)
    for choice in choices:
        tile = kind(choice["tile"]) if "tile" in choice else _window_tile(state)
        held = counts[tile]
        after = counts[:]
        after[tile] = 0
        sets = know.sets - (0 if held == 1 else 1)  # an added kong upgrades an existing pung
        if know.ready or A.hand_shanten(after, sets, know.rules) <= before:
            return choice
    return None


def _window_tile(state: MatchState) -> int:
    """The tile of the claim window in play (a claim window always has one)."""
    tile = state.in_hand.open_window.tile
    if tile is None:
        raise ValueError("no tile in this window")
    return tile


def _pung_helps(state: MatchState, know: Knowledge) -> bool:
    """Pung when the hand after it (and its best discard) is nearer ready than now."""
    tile = _window_tile(state)
    counts = list(know.counts)
    before = A.hand_shanten(counts, know.sets, know.rules)
    counts[tile] -= 2
    return A.hand_shanten(counts, know.sets - 1, know.rules) < before


def _discard_choice(know: Knowledge, choices: list[dict[str, Any]]) -> dict[str, Any]:
    tiles = [kind(c["tile"]) for c in choices]
    if len(tiles) == 1:
        return choices[0]
    return {"action": "discard", "tile": name(best_discard(know, tiles))}


def best_discard(know: Knowledge, tiles: Sequence[int], danger: Optional[Callable[[int], float]] = None) -> int:
    """The discard worth the most: the hand's chance to win (improving tiles by unseen copies, the
    draws left) times what the win is worth (the ready hand's waits scored; before that the
    variant's `bot_plans`, flushes included), less the expected cost of feeding a declared hand."""
    risk = danger or (lambda t: feeding_cost(know, t))
    return best_scored(know, score_discards(know, tiles, risk))


def best_scored(know: Knowledge, scores: Mapping[int, "DiscardScore"]) -> int:
    """The discard `best_discard` takes among `scores`: the most worth less danger (to 6 places);
    ties: in 扣点点 the fewer points, then the lower kind."""
    caution = variants.get(know.variant).points_caution
    return max(scores, key=lambda t: (scores[t].rounded, -points(t) if caution else 0, -t))


@dataclass(frozen=True)
class DiscardScore:
    """One discard as the `normal` evaluator judges it (the bot decides by these numbers and the
    review explains with them)."""

    tile: int
    worth: float  # the hand's worth after letting it go: the chance to win x what the win is worth
    plain: float  # the worth of its plain plan alone (no flush)
    flush: Optional[frozenset[int]]  # the kinds kept by the flush plan that gave `worth`, if one did
    danger: float  # the expected cost of letting it go (feeding a declared hand)
    ahead: bool = False  # `worth` was judged one draw ahead (engine.bot_strong.looked_ahead)

    @property
    def rounded(self) -> float:
        """worth less danger, to 6 places: how the bot compares discards."""
        return round(self.worth - self.danger, 6)


def discard_worths(
    know: Knowledge, tiles: Sequence[int], risk: Optional[Callable[[int], float]] = None
) -> dict[int, float]:
    """tile -> the hand's worth after letting it go (see `score_discards`)."""
    return {t: s.worth for t, s in score_discards(know, tiles, risk).items()}


def score_discards(
    know: Knowledge,
    tiles: Sequence[int],
    risk: Optional[Callable[[int], float]] = None,
    exact: Collection[int] = (),
) -> dict[int, DiscardScore]:
    """tile -> its score (see `best_discard`), for the tiles that may be the best one less their
    `risk` (none: no risk), and for each of `exact` in full. The work is bounded like a search: a
    tile's plain plan, and each flush plan, is judged only when the most its steps from ready allow
    (every unseen tile that could help, helping) reaches the best worth already found; so a tile that
    cannot be the best is left out, and one whose flush cannot beat the best carries its plain worth
    alone (the tiles of `exact` are judged whatever the bound: that changes no choice)."""
    draws = max(1, know.wall // 4)
    pool = max(1, sum(know.hidden))
    plans = variants.get(know.variant).bot_plans
    plain = plans.get("plain", 1.0)
    flushes = _flush_plans(know, plans)
    cost = risk or (lambda t: 0.0)
    kinds = sorted(set(tiles))
    steps = steps_after(know, kinds)
    ready = [t for t in kinds if steps[t] == 0]
    options = {o.tile: o for o in _valued_options(know, ready, judge_all=True)} if ready else {}
    counts = list(know.counts)
    judged: dict[tuple[int, tuple[int, ...]], Optional[float]] = {}  # one decision: a kept hand is judged once
    out: dict[int, DiscardScore] = {}
    best: Optional[float] = None
    for t in sorted(kinds, key=lambda t: (steps[t] != 0, steps[t], t)):
        bounded = t not in exact
        danger = cost(t)
        reach = []  # (the most this flush could be worth, plan index, kept hand)
        for i, (value, keep, kept) in enumerate(flushes):
            whole = kept
            if t in keep:
                kept = kept[:t] + (kept[t] - 1,) + kept[t + 1 :]
            if sum(kept) >= 8:
                if t in keep:  # the plan's table of discards, one per decision
                    missing = A.missing_after_each_discard(whole, know.sets, know.rules)[t]
                else:
                    missing = A.hand_missing(kept, know.sets, know.rules)
                most = chance(missing - 1, _unseen_in(know, keep), draws)
                reach.append((most * value, i, kept))
        if t in options:
            own = _plain_worth(know, options[t], draws, pool, plans)
        else:
            own = chance(max(steps[t], 0), pool, draws) * plain  # at most
        if bounded and best is not None and _below(max([own] + [r[0] for r in reach]) - danger, best):
            continue
        if t not in options:
            own = _plain_worth(know, A.judge_discard(counts, t, know.sets, know.rules, know.hidden), draws, pool, plans)
        worth = own
        flush: Optional[frozenset[int]] = None
        for most, i, kept in reach:
            if bounded and best is not None and _below(most - danger, max(best, worth - danger)):
                continue
            if (i, kept) not in judged:
                judged[i, kept] = _flush_plan_worth(know, kept, flushes[i][1], flushes[i][0], draws)
            found = judged[i, kept]
            if found is not None and found > worth:
                worth, flush = found, flushes[i][1]
        out[t] = DiscardScore(t, worth, own, flush, danger)
        best = worth - danger if best is None else max(best, worth - danger)
    return out


def _below(most: float, best: float) -> bool:
    """`most` cannot reach `best` (compared as `best_discard` compares worths, to 6 places)."""
    return round(most, 6) < round(best, 6)


def _unseen_in(know: Knowledge, keep: frozenset[int]) -> int:
    return sum(know.hidden[k] for k in keep)


def steps_after(know: Knowledge, tiles: Sequence[int]) -> dict[int, int]:
    """tile -> the hand's steps from ready after letting it go (one memoised table per hand)."""
    table = A.missing_after_each_discard(know.counts, know.sets, know.rules)
    return {t: table[t] - 1 for t in tiles}


def _plain_worth(know: Knowledge, o: A.DiscardOption, draws: int, pool: int, plans: Mapping[str, float]) -> float:
    if o.shanten == 0 and o.waits:
        if o.wait_value > 0 and not (variants.get(know.variant).points_caution and not _declarable(know, o)):
            return o.wait_value
        return chance(1, o.improving_unseen, draws) * plans.get("plain", 1.0)
    return chance(max(o.shanten, 0), o.improving_unseen, draws) * plans.get("plain", 1.0)


def _declarable(know: Knowledge, o: A.DiscardOption) -> bool:
    return can_declare(know, [t for t, _, _ in o.waits])


def can_declare(know: Knowledge, waits: Sequence[int]) -> bool:
    """K-2 (扣点点): a ready hand may declare (and so win) only with a wait worth 6 or more; a
    variant without that rule (含山 H-4) always may."""
    if not variants.get(know.variant).points_caution:
        return True
    return know.ready or any(points(t) >= _DISCARD_WIN_MIN and t != know.rules.wild for t in waits)


def hand_worth(know: Knowledge, counts: list[int]) -> float:
    """The worth of a 3n+1 hand as it stands (as `discard_worths` judges the hand after a discard)."""
    draws = max(1, know.wall // 4)
    pool = max(1, sum(know.hidden))
    plans = variants.get(know.variant).bot_plans
    o = A.judge_hand(counts, know.sets, know.rules, know.hidden)
    if o.shanten == 0:
        o = _valued(know, counts, o, _gains_of(know), waits_cap(know))
    return max(_plain_worth(know, o, draws, pool, plans), _flush_worth(know, counts, draws, pool, plans))


_SUITS = ((0, 9), (9, 18), (18, 27))


def _flush_worth(know: Knowledge, rest: list[int], draws: int, pool: int, plans: Mapping[str, float]) -> float:
    """The best flush to aim at: the hand without the tiles outside one suit (and the honours for a
    full flush) judged like a hand, its improving tiles only those of the flush."""
    best = 0.0
    for value, keep, _ in _flush_plans(know, plans):
        kept = tuple(n if k in keep else 0 for k, n in enumerate(rest))
        worth = _flush_plan_worth(know, kept, keep, value, draws)
        if worth is not None:
            best = max(best, worth)
    return best


def _flush_plans(know: Knowledge, plans: Mapping[str, float]) -> list[tuple[float, frozenset[int], tuple[int, ...]]]:
    """The flushes the melds still allow: (the plan's value, the kinds it keeps, the seat's concealed
    tiles of those kinds)."""
    out = []
    for plan, honours in (("half_flush", True), ("full_flush", False)):
        value = plans.get(plan)
        if value is None:
            continue
        for lo, hi in _SUITS:
            keep = _flush_kinds(know, lo, hi, honours)
            if any(m["tile"] not in keep for m in know.melds):
                continue
            out.append((value, keep, tuple(n if k in keep else 0 for k, n in enumerate(know.counts))))
    return out


def _flush_plan_worth(
    know: Knowledge, kept: tuple[int, ...], keep: frozenset[int], value: float, draws: int
) -> Optional[float]:
    """One flush's worth for the hand's kept tiles; None when too far to be worth judging."""
    if sum(kept) < 8:
        return None
    missing = A.hand_missing(kept, know.sets, know.rules)
    k = sum(know.hidden[t] for t in A.improving_tiles(kept, know.sets, know.rules) if t in keep)
    return chance(missing - 1, k, draws) * value


def _flush_kinds(know: Knowledge, lo: int, hi: int, honours: bool) -> frozenset[int]:
    kinds = set(range(lo, hi))
    if honours:
        kinds.update(range(27, 34))
    if know.rules.wild is not None:
        kinds.add(know.rules.wild)
    if know.rules.stand_in is not None:
        kinds.add(know.rules.stand_in[0])  # H-9: a 白板 leaves a flush a flush
    return frozenset(kinds)


_STEP = 0.3  # each further step from ready leaves about this share of the chance to win
_READY_HALF = 8  # a ready hand with this many live waits unseen wins about half the time
_STEP_HALF = 20  # a hand short of ready with this many improving tiles unseen takes its next step about half the time


def chance(shanten: int, k: int, draws: int) -> float:
    """A rough chance to win from `shanten` steps with `k` unseen tiles that help, `draws` draws left."""
    if draws <= shanten or k <= 0:
        return 0.0
    if shanten <= 0:
        return k / (k + _READY_HALF)
    return _STEP**shanten * k / (k + _STEP_HALF)


# The chance that one declared hand waits on a tile it may win on (6+ points, not safe), as all-greedy
# self-play measured it (bench/greedy.py, 扣点点 and 耗子, a discarder not declared, one declared hand):
# suit tiles 10-11%, honours 2-5%. With no copy unseen a suit tile can still complete a sequence wait;
# an honour cannot be waited on (the declared hand would hold a copy).
_FEED_CHANCE = {True: (0.05, 0.10), False: (0.0, 0.04)}  # suit / honour: (no copy unseen, some unseen)


def feeding_cost(know: Knowledge, tile: int) -> float:
    """扣点点: what letting `tile` go costs on average against the declared hands (K-8: a discarder
    who has not declared pays all three shares; K-4: under 6 points never wins on a discard)."""
    if not know.threats or know.ready or not variants.get(know.variant).points_caution:
        return 0.0
    if _danger(know, tile) == 0:
        return 0.0
    chance = _FEED_CHANCE[tile < 27][know.hidden[tile] > 0]
    return len(know.threats) * chance * 3 * points(tile)


def _valued_options(know: Knowledge, tiles: list[int], judge_all: bool = False) -> list[A.DiscardOption]:
    """Discards judged by efficiency; when some make the hand ready, the few with the most live
    waits get their waits valued by the variant's scoring (bounded work per decision: the
    variant's entry may cap the waits scored, `bot_scored_waits`, shared among those discards)."""
    counts = list(know.counts)
    if judge_all:
        options = [A.judge_discard(counts, t, know.sets, know.rules, know.hidden) for t in sorted(set(tiles))]
        options.sort(key=A.DiscardOption.key)
    else:
        options = A.discard_options(counts, know.sets, know.rules, know.hidden, None, tiles)
    ready = [o for o in options if o.shanten == 0][:_VALUED_DISCARDS]
    if not ready:
        return options
    gains = _gains_of(know)
    cap = waits_cap(know)
    share = None if cap is None else max(1, cap // len(ready))
    valued = [_with_values(know, counts, o, gains, share) for o in ready]
    rest = [o for o in options if o not in ready]
    return sorted(valued, key=A.DiscardOption.key) + rest


def waits_cap(know: Knowledge) -> Optional[int]:
    """The waits one decision scores at most: the variant's `bot_scored_waits` (None: all of them), or
    more where the seat's budget allows more (`Knowledge.waits_scored`)."""
    cap = variants.get(know.variant).bot_scored_waits
    return cap if cap is None or know.waits_scored <= cap else know.waits_scored


def _with_values(
    know: Knowledge, counts: list[int], o: A.DiscardOption, gains: Gains, budget: Optional[int]
) -> A.DiscardOption:
    """A ready discard with its live waits valued. With a `budget`, only that many are scored, those
    with the most unseen copies (ties: kind order); any others count at the mean of those."""
    rest = list(counts)
    rest[o.tile] -= 1
    return _valued(know, rest, o, gains, budget)


def _valued(
    know: Knowledge, rest: list[int], o: A.DiscardOption, gains: Gains, budget: Optional[int]
) -> A.DiscardOption:
    """A ready 3n+1 hand's judgement with its live waits valued (see `_with_values`): each wait with
    its self-draw gain, and the hand's worth (`_ready_worth`) as its `wait_value`."""
    live = sorted((t for t in o.improving if know.hidden[t]), key=lambda t: (-know.hidden[t], t))
    scored = live if budget is None else live[:budget]
    values = {t: gains(rest, t) for t in scored}
    if len(scored) < len(live):
        mean = tuple(round(sum(v[i] for v in values.values()) / len(values)) for i in (0, 1))
        values.update((t, (mean[0], mean[1])) for t in live[len(scored) :])
    found = tuple((t, know.hidden[t], values.get(t, (0, 0))[0]) for t in o.improving)
    worth = _ready_worth([(t, know.hidden[t], *values[t]) for t in live])
    return A.DiscardOption(o.tile, 0, o.improving, o.improving_unseen, found, worth)


def ready_worth(know: Knowledge, counts: Sequence[int]) -> float:
    """The worth of the best ready hand a 3n+2 hand makes by one discard, as `best_discard` judges a
    ready hand (its live waits scored; 扣点点: one that cannot declare, K-2, only as one step from
    ready); 0 when no discard leaves it ready."""
    draws = max(1, know.wall // 4)
    pool = max(1, sum(know.hidden))
    plans = variants.get(know.variant).bot_plans
    held = [k for k, n in enumerate(counts) if n]
    table = A.missing_after_each_discard(counts, know.sets, know.rules)
    ready = [t for t in held if table[t] == 1]
    if not ready:
        return 0.0
    options = _valued_options(replace(know, counts=tuple(counts)), ready, judge_all=True)
    return max(_plain_worth(know, o, draws, pool, plans) for o in options if o.shanten == 0)


def next_step_chance(improving_unseen: int, draws: int) -> float:
    """The chance that a hand one step short of ready, with this many unseen tiles that improve it
    and `draws` draws left, takes that step in time to win (`chance`'s figure for a step, without
    its guess at the steps after it)."""
    if improving_unseen <= 0 or draws <= 1:
        return 0.0
    return improving_unseen / (improving_unseen + _STEP_HALF)


_DISCARD_ROUTE = 1.5  # a live copy winnable on a discard comes this much more often than by one's own draw
_REACH_HALF = 20  # a ready hand whose live copies weigh this much (1 per self-draw-only copy) wins about half the time


def _tossed(t: int) -> float:
    """How readily the other seats let a kind go, relative to a 2 or 8: all-greedy self-play
    (bench/greedy.py, 扣点点 and 含山) discarded a drawn honour or 1/9 at once 53% of the time, a 2/8
    40%, a 3-7 33%."""
    if t >= 27 or t % 9 in (0, 8):
        return 1.33
    return 1.0 if t % 9 in (1, 7) else 0.83


def _ready_worth(waits: Sequence[tuple[int, int, int, int]]) -> float:
    """A ready hand's worth from its live waits (kind, unseen copies, self-draw gain, discard-win
    gain): the chance to win, from its copies weighted by the ways they may come (one's own draws;
    also the three others' discards where a win on them is legal, the more so for the kinds they
    let go readily), times the mean gain of a win by those ways (K-7: a discard win is worth less
    than a self-draw; K-4, H-3: some waits win by self-draw only)."""
    reach = 0.0
    total = 0.0
    for t, n, own, fed in waits:
        if n and own > 0:
            route = _DISCARD_ROUTE * _tossed(t) if fed > 0 else 0.0
            reach += n * (1 + route)
            total += n * (own + route * fed)
    if not reach:
        return 0.0
    return reach / (reach + _REACH_HALF) * total / reach


def _kdd_key(know: Knowledge, o: A.DiscardOption) -> tuple[Any, ...]:
    """扣点点: a ready hand that cannot declare (no wait worth 6+, K-2) counts as one step further;
    against a declared hand, when not ready, safe tiles first (K-8: an unready discarder pays all)."""
    shanten = o.shanten
    if shanten == 0 and not any(points(t) >= _DISCARD_WIN_MIN and t != know.rules.wild for t, _, _ in o.waits):
        shanten = 1
    danger = _danger(know, o.tile) if know.threats and shanten >= 1 else 0
    return (danger, shanten) + o.key()[1:]


def _danger(know: Knowledge, tile: int) -> int:
    """扣点点 against a declared hand: 0 safe (K-4 under 6 points, a discarded 耗子 K-13, or a tile
    the declarer let go after declaring), else 1 (a discarder who is not ready pays all three, K-8)."""
    if points(tile) < _DISCARD_WIN_MIN or tile in know.safe_against or tile in know.passed_by_threats:
        return 0
    if know.rules.wild is not None and tile == know.rules.wild:
        return 0
    return 1
