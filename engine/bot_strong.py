"""The `strong` bot: the `normal` bot's worth of a hand (efficiency by unseen tiles, the value of the
waits and of the flushes worth aiming at), with defence read from the table and claims by worth.

It decides from the seat's view alone (`strong_action(view)`, the document engine.views gives a
person in that seat): its own tiles, the melds, the face-up discards, who declared, the wild.

- Defence (扣点点, K-2/K-4/K-8): for each declared hand it samples concealed hands consistent with
  what it has seen (determinisation): ready hands drawn from the unseen tiles that may declare
  (a wait of 6 points or more) and that would have won on no discard let pass since the declaration.
  The chance that a tile feeds a declared hand is the share of samples waiting on it; the cost of
  feeding it is the win a discarder who has not declared pays alone (three shares). A poor hand
  therefore lets safe tiles go against a likely big win, and a good one keeps pushing.
- A look one draw ahead (`looked_ahead`): of the discards `normal`'s evaluator ranks highest, those
  that leave the hand one step from ready (and aim at no flush) are ranked again by the ready hands
  their improving draws would make: the chance of that step times the mean worth of those ready
  hands (their waits scored), where `normal` takes a fixed share of a typical win for any of them.
- Claims: a pung or kong only when the hand is worth more after it.
- More waits scored where the variant caps `normal`'s (含山: 6 a decision where `normal` scores 3, the
  others at their mean): a ready hand's worth nearer its true value.

The work per decision is bounded by `Budget` (sampled hands per declared seat, discards looked ahead,
waits scored);
the sampling is seeded from the view, so the same view always gets the same decision.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from typing import Any, Callable, Collection, Sequence

from engine import analysis as A
from engine import variants
from engine.bot_normal import (
    DiscardScore,
    Knowledge,
    _danger,
    best_discard,
    best_scored,
    discard_worths,
    hand_worth,
    next_step_chance,
    ready_worth,
    score_discards,
    steps_after,
)
from engine.tiles import kind, name, points

_DISCARD_WIN_MIN = 6  # K-4


@dataclass(frozen=True)
class Budget:
    """The work one decision may do (the setting behind its time; see bench/bots.py for the p99)."""

    samples: int = 200  # determinised hands per declared seat
    ahead: int = 4  # discards judged again one draw ahead (the best by `normal`'s measure)
    waits: int = 6  # waits scored a decision where the variant caps `normal` lower (含山: 3)


BUDGET = Budget()
NORMAL_BUDGET = Budget(samples=0, ahead=0, waits=0)  # `normal`'s evaluator: its feeding cost, no look ahead, its waits


def strong_action(seen: dict[str, Any], budget: Budget = BUDGET) -> dict[str, Any]:
    """Choose among the view's legal actions, from the view alone."""
    acts = seen["legal_actions"]
    if not acts:
        raise ValueError(f"seat {seen['seat']} has nothing to decide")
    by: dict[str, list[dict[str, Any]]] = {}
    for act in acts:
        by.setdefault(act["action"], []).append(act)
    if "hu" in by:
        return by["hu"][0]
    know = replace(Knowledge.of_view(seen), waits_scored=budget.waits)
    if "ting" in by:
        bare = [c for c in by["ting"] if "tile" not in c]
        if bare:
            return bare[0]  # H-4: declared on a complete hand, 胡 next
        tiles = [kind(c["tile"]) for c in by["ting"]]  # K-2: the declaring discard lies face down
        return {"action": "ting", "tile": name(best_discard(know, tiles, danger=lambda t: 0.0))}
    window = seen["hand"]["window"]
    claimed = kind(window["tile"]) if window and window.get("tile") else None
    for claim in ("kong", "pung"):
        for choice in by.get(claim, []):
            tile = kind(choice["tile"]) if "tile" in choice else claimed
            if tile is not None and (know.ready or _claim_pays(know, tile, claim == "kong")):
                return choice
    if "pass" in by:
        return {"action": "pass"}
    tiles = [kind(c["tile"]) for c in by["discard"]]
    if len(tiles) == 1:
        return by["discard"][0]
    danger = sampled_danger(seen, know, budget.samples)
    return {"action": "discard", "tile": name(best_scored(know, looked_ahead(know, tiles, danger, budget.ahead)))}


# ---------------------------------------------------------------- one draw ahead


def looked_ahead(
    know: Knowledge, tiles: Sequence[int], danger: Callable[[int], float], ahead: int, exact: Collection[int] = ()
) -> dict[int, DiscardScore]:
    """`normal`'s scores of the discards (engine.bot_normal.score_discards, less `danger`), with the
    `ahead` best of them by that measure, and each of `exact`, judged one draw ahead when the hand
    after it is one step from ready and its worth came from no flush plan (`one_draw_ahead`): those
    are ranked among themselves by it, on `normal`'s scale (the one judged best one draw ahead takes
    the highest of their `normal` worths, the others in proportion), so hands at other steps from
    ready are compared with them as `normal` compares them. Every
    discard is judged in full first (the `ahead` best are the same however the search is bounded);
    with no `ahead`, `normal`'s scores as they are."""
    if ahead <= 0:
        return score_discards(know, tiles, danger, exact)
    scores = score_discards(know, tiles, danger, exact=tiles)
    top = sorted(scores.values(), key=lambda s: (-s.rounded, s.tile))[:ahead]
    judged = {s.tile for s in top} | (set(exact) & set(scores))
    steps = steps_after(know, sorted(judged))
    out = dict(scores)
    near = [t for t in sorted(judged) if steps[t] == 1 and scores[t].flush is None]
    ahead_of = {t: one_draw_ahead(know, t) for t in near}
    best_ahead = max(ahead_of.values(), default=0.0)
    if best_ahead <= 0:
        return out
    base = max(scores[t].worth for t in near)  # normal's worth of the best of them: the scale kept
    for t in near:
        out[t] = replace(scores[t], worth=base * ahead_of[t] / best_ahead, ahead=True)
    return out


def one_draw_ahead(know: Knowledge, tile: int) -> float:
    """The worth of the hand after letting `tile` go, when that leaves it one step from ready: the
    chance of taking the step (engine.bot_normal.next_step_chance) times the mean, over the unseen
    tiles that would take it (each by its unseen copies), of the worth of the best ready hand that
    draw makes (engine.bot_normal.ready_worth: its waits scored, a round of draws later)."""
    counts = list(know.counts)
    counts[tile] -= 1
    improving = [d for d in A.improving_tiles(counts, know.sets, know.rules) if know.hidden[d]]
    unseen = sum(know.hidden[d] for d in improving)
    if not unseen:
        return 0.0
    total = 0.0
    for d in improving:
        after = counts[:]
        after[d] += 1
        hidden = list(know.hidden)
        hidden[d] -= 1
        drawn = replace(know, counts=tuple(after), hidden=tuple(hidden), wall=max(0, know.wall - 4))
        total += know.hidden[d] * ready_worth(drawn, after)
    return next_step_chance(unseen, max(1, know.wall // 4)) * total / unseen


# ---------------------------------------------------------------- claims


def _claim_pays(know: Knowledge, tile: int, kong: bool) -> bool:
    """A claim when the hand after it (and its best discard) is worth more than the hand now."""
    counts = list(know.counts)
    held = counts[tile]
    now = hand_worth(know, counts) if sum(counts) % 3 == 1 else max(discard_worths(know, _held(counts)).values())
    after = counts[:]
    after[tile] = 0 if kong else held - 2
    meld = {"type": "kong" if kong else "pung", "tile": tile, "kong": None, "from": None}
    melds = know.melds if kong and held == 1 else know.melds + (meld,)
    claimed = _with(know, after, melds)
    if sum(after) % 3 == 1:  # a kong: a replacement tile comes
        return hand_worth(claimed, after) >= now
    return max(discard_worths(claimed, _held(after)).values(), default=0.0) > now


def _held(counts: list[int]) -> list[int]:
    return [k for k, n in enumerate(counts) if n]


def _with(know: Knowledge, counts: list[int], melds: tuple[dict[str, Any], ...]) -> Knowledge:
    from dataclasses import replace

    return replace(know, counts=tuple(counts), melds=melds)


# ---------------------------------------------------------------- defence by determinisation


def sampled_danger(seen: dict[str, Any], know: Knowledge, samples: int) -> Callable[[int], float]:
    """`strong`'s danger of each tile for the seat of `seen` (its view; `know` read from it), from
    `samples` determinised hands per declared seat, seeded from the view (the same view, the same
    figures)."""
    return _sampled_danger(know, samples, _seed(seen))


def _sampled_danger(know: Knowledge, samples: int, seed: int) -> Callable[[int], float]:
    """tile -> expected cost of letting it go: per declared seat, the share of sampled ready hands
    waiting on it, times what a discarder who has not declared pays (K-8: three shares)."""
    if not know.threats or know.ready or not variants.get(know.variant).points_caution:
        return lambda t: 0.0
    rng = _Rng(seed)
    chance = [0.0] * 34
    for threat in know.threats:
        hits = _wait_shares(know, threat, samples, rng)
        for k in range(34):
            chance[k] = 1 - (1 - chance[k]) * (1 - hits[k])

    def cost(t: int) -> float:
        if _danger(know, t) == 0:
            return 0.0
        return chance[t] * 3 * points(t)

    return cost


def _wait_shares(know: Knowledge, threat: int, samples: int, rng: "_Rng") -> list[float]:
    seat = know.table[threat]
    sets = 4 - len(seat.melds)
    passed = know.passed_by_threats | know.safe_against
    wild = know.rules.wild
    hits = [0] * 34
    accepted = 0
    for _ in range(samples * 3):
        if accepted >= samples:
            break
        waits = _ready_waits(list(know.hidden), sets, rng)
        winnable = [t for t in waits if t != wild and points(t) >= _DISCARD_WIN_MIN]
        if not winnable or any(t in passed for t in winnable):
            continue  # K-2: could not have declared; K-5: would have won on a tile let pass
        accepted += 1
        for t in winnable:
            hits[t] += 1
    if not accepted:
        return [0.1 if points(k) >= _DISCARD_WIN_MIN else 0.0 for k in range(34)]
    return [h / accepted for h in hits]


def _ready_waits(pool: list[int], sets: int, rng: "_Rng") -> list[int]:
    """The waits of a random ready hand of 3*sets+1 tiles taken from `pool` (unseen copies): sets-1
    sets, a pair and two tiles of a sequence (or a second pair), or `sets` sets and a lone tile.
    The waits are those of its last block (a hand that reads several ways may wait on more)."""
    hand = [0] * 34
    lone = rng.below(5) == 0
    for _ in range(sets if lone else sets - 1):
        if not _take_set(pool, hand, rng):
            return []
    if lone:
        k = _pick(pool, rng, 1)
        return [k] if k >= 0 else []
    pair = _pick(pool, rng, 2)
    if pair < 0 or not _take(pool, hand, [pair, pair]):
        return []
    if rng.below(4) == 0:
        second = _pick(pool, rng, 2)
        return [pair, second] if second >= 0 else []
    for _ in range(8):
        k = rng.below(27)
        gap = 1 + rng.below(2)
        if k % 9 + gap <= 8 and _take(pool, hand, [k, k + gap]):
            if gap == 2:
                return [k + 1]  # closed wait
            return ([k - 1] if k % 9 >= 1 else []) + ([k + 2] if k % 9 <= 6 else [])  # open or edge wait
    return []


def _take_set(pool: list[int], hand: list[int], rng: "_Rng") -> bool:
    for _ in range(8):
        if rng.below(3):
            k = rng.below(27)
            if k % 9 <= 6 and _take(pool, hand, [k, k + 1, k + 2]):
                return True
        else:
            k = _pick(pool, rng, 3)
            if k >= 0 and _take(pool, hand, [k, k, k]):
                return True
    return False


def _pick(pool: list[int], rng: "_Rng", least: int) -> int:
    """A kind with at least `least` copies in the pool, chosen by its copies; -1 if none."""
    weights = [n if n >= least else 0 for n in pool]
    total = sum(weights)
    if not total:
        return -1
    r = rng.below(total)
    for k, w in enumerate(weights):
        if r < w:
            return k
        r -= w
    return -1


def _take(pool: list[int], hand: list[int], kinds: list[int]) -> bool:
    need: dict[int, int] = {}
    for k in kinds:
        if k < 0:
            return False
        need[k] = need.get(k, 0) + 1
    if any(pool[k] < n for k, n in need.items()):
        return False
    for k, n in need.items():
        pool[k] -= n
        hand[k] += n
    return True


class _Rng:
    """xorshift64*: the sampling's own deterministic generator (the engine uses no global randomness)."""

    def __init__(self, seed: int):
        self.x = seed & 0xFFFFFFFFFFFFFFFF or 0x9E3779B97F4A7C15

    def below(self, n: int) -> int:
        x = self.x
        x ^= (x >> 12) & 0xFFFFFFFFFFFFFFFF
        x ^= (x << 25) & 0xFFFFFFFFFFFFFFFF
        x ^= x >> 27
        self.x = x
        return ((x * 0x2545F4914F6CDD1D) & 0xFFFFFFFFFFFFFFFF) % n


def _seed(seen: dict[str, Any]) -> int:
    hand = seen["hand"]
    text = repr((seen["seat"], hand["number"], hand["wall_count"], hand["seats"]))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
