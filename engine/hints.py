"""Hints for one seat from the rules themselves: what each 报听 discard would leave it waiting on.

`ting_choices(state, seat)`: for each legal `ting` that names a discard (K-2, H-4), the tiles the
hand would wait on after it and what a self-drawn win on each is worth (the variant's own scorer:
K-1 a tile's points, 含山 the hand's value). The pages show it beside the 报听 button; nothing
here is secret from the seat (its own hand and the public melds).
"""

from __future__ import annotations

from typing import Any, Optional

from engine.actions import legal_actions, variant_of
from engine.scoring import Meld, WinContext, score
from engine.state import MatchState
from engine.tiles import kind, name, points


def ting_choices(state: MatchState, seat: int) -> list[dict[str, Any]]:
    """[{discard, waits: [{tile, points, tile_points, refused}]}] for each legal `ting` with a tile; []
    outside a hand or without one. `points` is None when the scorer refuses the hypothetical win, and
    `refused` then says why: {code, rule, message} (the scorer's code with the ruling that forbids it,
    as an IllegalAction names it; e.g. K-4 a tile worth 1–2 never wins), else None."""
    if state.hand is None or state.phase == "match_over":
        return []
    tiles = [a["tile"] for a in legal_actions(state, seat) if a["action"] == "ting" and "tile" in a]
    if not tiles:
        return []
    rules, hand = variant_of(state), state.hand
    me = hand.seats[seat]
    sets = 4 - len(me.melds)
    out = []
    for tile in tiles:
        counts = list(me.counts)
        counts[kind(tile)] -= 1
        waits = []
        for k in rules.waits(hand, counts, sets):
            value, refused = _self_draw_value(state, rules.name, seat, counts, k)
            waits.append({"tile": name(k), "points": value, "tile_points": points(k), "refused": refused})
        out.append({"discard": tile, "waits": waits})
    return out


def _self_draw_value(
    state: MatchState, variant: str, seat: int, counts: list[int], win: int
) -> tuple[Optional[int], Optional[dict[str, Any]]]:
    """(the value of a self-drawn win on `win`, None) or (None, why the scorer refuses it)."""
    from engine.errors import refusal

    hand = state.hand
    assert hand is not None
    me = hand.seats[seat]
    concealed = tuple(k for k, n in enumerate(counts) for _ in range(n)) + (win,)
    ctx = WinContext(
        variant=variant,
        options=state.options,
        seat=seat,
        dealer=hand.dealer,
        concealed=tuple(sorted(concealed)),
        melds=tuple(Meld(m["type"], m["tile"], m.get("kong")) for m in me.melds),
        win_tile=win,
        win_by="self_draw",
        ready=True,
        wild=hand.wild,
    )
    try:
        result = score(ctx)
    except (ValueError, KeyError):  # the scorer's refusal of a hand it cannot read (as the bots take it)
        return None, refusal(state, "not_complete").as_dict()
    if not result.get("ok"):
        return None, refusal(state, str(result.get("reason"))).as_dict()
    value = result.get("value")
    return (int(value), None) if value is not None else (None, None)
