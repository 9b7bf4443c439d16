"""A review of one seat's decisions (the replay's 复盘): at each of its own decisions, what the hand
analyser would discard beside what was discarded, the waits and their value when ready, and the
wins and pungs it let pass (过胡 on a discard, 漏胡 on its own draw; 碰 passed).

Only what that seat could know at that moment is used: engine.bot_normal.Knowledge reads its own
tiles, the melds, the face-up discards, who declared and the wild - never another hand or the wall.
"""

from __future__ import annotations

from typing import Any, Iterable, Optional

from engine import analysis as A
from engine.actions import legal_actions, pending_seats
from engine.bot_normal import Knowledge, _value_of
from engine.evolve import apply
from engine.state import MatchState
from engine.table import initial_state
from engine.tiles import kind, name

_OWN_ACTIONS = frozenset({"discarded", "ting_declared", "responded", "punged", "konged", "kong_declared", "won"})


def review(events: Iterable[dict[str, Any]], seat: int, start: Optional[MatchState] = None) -> list[dict[str, Any]]:
    """One entry per decision of `seat`: {"index": the event's index in `events`, "kind", ...};
    `start` is the match before the first of `events` (a page of a paged replay), else its beginning."""
    state = initial_state() if start is None else start.clone()
    events = list(events)
    out: list[dict[str, Any]] = []
    for i, event in enumerate(events):
        if event.get("seat") == seat and event.get("type") in _OWN_ACTIONS and _deciding(state, seat):
            entry = _judge(state, seat, event, events[i + 1] if i + 1 < len(events) else None)
            if entry is not None:
                out.append({"index": i, **entry})
        apply(state, event)
        state.cache.clear()
    return out


def _deciding(state: MatchState, seat: int) -> bool:
    return state.hand is not None and seat in pending_seats(state)


def _judge(
    state: MatchState, seat: int, event: dict[str, Any], following: Optional[dict[str, Any]]
) -> Optional[dict[str, Any]]:
    acts = legal_actions(state, seat)
    can = {a["action"] for a in acts}
    kind_ = event["type"]
    if kind_ == "responded" and event["response"] == "pass":
        if "hu" in can:
            return {"kind": "passed_hu", "differs": True, "tile": _window_tile(state)}
        if "pung" in can:
            return {"kind": "passed_pung", "differs": False, "tile": _window_tile(state)}
        return None
    made = event.get("tile")
    if kind_ == "ting_declared" and following is not None and following.get("type") == "discarded":
        made = following["tile"]
    if kind_ in ("discarded", "ting_declared") and made is not None:
        entry = _discard_review(state, seat, acts, kind(made))
        if "hu" in can:  # 漏胡: a legal win on the seat's own draw, discarded instead
            entry.update(kind="missed_hu", differs=True)
        return entry
    return None


def _window_tile(state: MatchState) -> Optional[str]:
    window = state.in_hand.window
    return name(window.tile) if window is not None and window.tile is not None else None


def _discard_review(state: MatchState, seat: int, acts: list[dict[str, Any]], made: int) -> dict[str, Any]:
    know = Knowledge.of(state, seat)
    allowed = sorted({kind(a["tile"]) for a in acts if a["action"] in ("discard", "ting") and "tile" in a})
    value_of = _value_of(know, live_only=False)
    counts = list(know.counts)
    options = A.discard_options(counts, know.sets, know.rules, know.hidden, value_of, allowed)
    best = A.best_discards(options)
    mine = A.judge_discard(counts, made, know.sets, know.rules, know.hidden, value_of)
    top = options[0] if options else mine
    return {
        "kind": "discard",
        "made": name(made),
        "best": [name(t) for t in best],
        "differs": bool(best) and made not in best and mine.key() != top.key(),
        "made_judged": _option(mine),
        "best_judged": _option(top),
        "shanten_before": A.hand_shanten(counts, know.sets, know.rules),
    }


def _option(o: A.DiscardOption) -> dict[str, Any]:
    return {
        "tile": name(o.tile),
        "shanten": o.shanten,
        "improving": [name(t) for t in o.improving],
        "improving_unseen": o.improving_unseen,
        "waits": [{"tile": name(t), "unseen": n, "value": v} for t, n, v in o.waits],
        "wait_value": o.wait_value,
    }
