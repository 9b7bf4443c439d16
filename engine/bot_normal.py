"""The `normal` bot: tile efficiency from engine.analysis, waits valued by the variant's scoring,
and caution against a declared-ready opponent in 扣点点 (its 报听 is public, K-2).

It reads only what its seat may know (`Knowledge.of`): its own concealed tiles, every meld, the
face-up discards (its own face-down one too), who has declared ready, the hand's wild and the wall
count. Never another hand, a face-down discard of another seat, or the wall.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence

from engine import analysis as A
from engine import variants
from engine.actions import legal_actions
from engine.scoring import Meld, WinContext, score
from engine.state import MatchState
from engine.tiles import kind, name, points

_DISCARD_WIN_MIN = 6  # K-4: a tile worth less never wins on a discard in 扣点点


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

    @staticmethod
    def of(state: MatchState, seat: int) -> "Knowledge":
        hand = state.in_hand
        me = hand.seats[seat]
        visible = [0] * 34
        for s, other in enumerate(hand.seats):
            for m in other.melds:
                visible[m["tile"]] += 4 if m["type"] == "kong" else 3
            for d in other.discards:
                if d.get("claimed") or d.get("tile") is None or (d.get("face_down") and s != seat):
                    continue
                visible[_kind_of(d["tile"])] += 1
        threats = tuple(s for s in range(4) if s != seat and hand.seats[s].ready)
        safe = frozenset(k for s in threats for k in _after_declaring(hand.seats[s].discards))
        variant = state.variant or ""
        return Knowledge(
            variant,
            state.options,
            seat,
            hand.dealer,
            tuple(me.counts),
            tuple(me.melds),
            tuple(A.unseen(me.counts, visible)),
            A.Rules.of(variant, hand.wild),
            me.ready,
            threats,
            safe,
        )

    @property
    def sets(self) -> int:
        return 4 - len(self.melds)


def _after_declaring(discards: list[dict[str, Any]]) -> list[int]:
    """Face-up discards after the face-down declaring one (K-2): the locked hand let them go."""
    out: list[int] = []
    declared = False
    for d in discards:
        if d.get("face_down"):
            declared = True
        elif declared and d.get("tile") is not None:
            out.append(_kind_of(d["tile"]))
    return out


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
    try:
        options_key: Optional[tuple[Any, ...]] = tuple(sorted(know.options.items()))
        hash(options_key)
    except TypeError:
        options_key = None

    def value(rest: Sequence[int], t: int) -> int:
        if live_only and not know.hidden[t]:
            return 0
        if options_key is None:
            return _win_gain(know, tuple(rest), t)
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
        return _cached_gain(key, know, tuple(rest), t)

    return value


_GAINS: dict[tuple[Any, ...], int] = {}


def _cached_gain(key: tuple[Any, ...], know: Knowledge, rest: tuple[int, ...], t: int) -> int:
    """Scores are pure in the key: keep up to 50,000 of them (a ready hand is valued again each turn)."""
    if key not in _GAINS:
        if len(_GAINS) >= 50_000:
            _GAINS.clear()
        _GAINS[key] = _win_gain(know, rest, t)
    return _GAINS[key]


def _win_gain(know: Knowledge, rest: Sequence[int], t: int) -> int:
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
    options = _valued_options(know, tiles)
    if variants.get(know.variant).points_caution:  # K-2/K-4/K-8
        options = sorted(options, key=lambda o: _kdd_key(know, o))
    return {"action": "discard", "tile": name(options[0].tile)}


def _valued_options(know: Knowledge, tiles: list[int]) -> list[A.DiscardOption]:
    """Discards judged by efficiency; when some make the hand ready, the few with the most live
    waits get their waits valued by the variant's scoring (bounded work per decision: the
    variant's entry may cap the waits scored, `bot_scored_waits`, shared among those discards)."""
    counts = list(know.counts)
    options = A.discard_options(counts, know.sets, know.rules, know.hidden, None, tiles)
    ready = [o for o in options if o.shanten == 0][:_VALUED_DISCARDS]
    if not ready:
        return options
    value_of = _value_of(know)
    cap = variants.get(know.variant).bot_scored_waits
    share = None if cap is None else max(1, cap // len(ready))
    valued = [_with_values(know, counts, o, value_of, share) for o in ready]
    rest = [o for o in options if o not in ready]
    return sorted(valued, key=A.DiscardOption.key) + rest


def _with_values(
    know: Knowledge, counts: list[int], o: A.DiscardOption, value_of: A.ValueOf, budget: Optional[int]
) -> A.DiscardOption:
    """A ready discard with its live waits valued. With a `budget`, only that many are scored, those
    with the most unseen copies (ties: kind order); any others count at the mean of those."""
    rest = list(counts)
    rest[o.tile] -= 1
    live = sorted((t for t in o.improving if know.hidden[t]), key=lambda t: (-know.hidden[t], t))
    scored = live if budget is None else live[:budget]
    values = {t: value_of(rest, t) for t in scored}
    if len(scored) < len(live):
        mean = round(sum(values.values()) / len(values))
        values.update((t, mean) for t in live[len(scored) :])
    found = tuple((t, know.hidden[t], values.get(t, 0)) for t in o.improving)
    expected = float(sum(n * v for _, n, v in found))
    return A.DiscardOption(o.tile, 0, o.improving, o.improving_unseen, found, expected)


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
    if points(tile) < _DISCARD_WIN_MIN or tile in know.safe_against:
        return 0
    if know.rules.wild is not None and tile == know.rules.wild:
        return 0
    return 1
