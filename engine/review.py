"""A review of one seat's decisions (the replay's 复盘): at each of its own decisions, what the hand
analyser would discard beside what was discarded, the waits and their value when ready, and the
wins and pungs it let pass (过胡 on a discard, 漏胡 on its own draw; 碰 passed).

Each decision is judged once, from the state the engine had when the seat decided: a 报听 with a
discard is one command recorded as two events (`ting_declared`, `discarded`) and is judged at the
first, where every discard was still open (at the second the hand is already locked). Events the
engine made on the seat's behalf (`auto`: a locked hand's drawn tile, K-5's win) are no decisions.
A win is flagged only when the engine's legal actions at that decision offered it.

Only what that seat could know at that moment is used: engine.bot_normal.Knowledge reads its own
tiles, the melds, the face-up discards, who declared and the wild - never another hand or the wall.
"""

from __future__ import annotations

from typing import Any, Iterable, Optional

from engine import analysis as A
from engine.actions import legal_actions, pending_seats
from engine.bot_normal import Knowledge, _value_of, feeding_cost
from engine.state import TING, MatchState
from engine.table import evolve_in_place, initial_state
from engine.tiles import kind, name

_OWN_ACTIONS = frozenset({"discarded", "ting_declared", "responded", "punged", "konged", "kong_declared", "won"})


def review(events: Iterable[dict[str, Any]], seat: int, start: Optional[MatchState] = None) -> list[dict[str, Any]]:
    """One entry per decision of `seat`: {"index": the event's index in `events`, "kind", ...};
    `start` is the match before the first of `events` (a page of a paged replay), else its beginning."""
    state = initial_state() if start is None else start.clone()
    events = list(events)
    out: list[dict[str, Any]] = []
    part_of_decision = -1  # the `discarded` of a 报听 judged with its `ting_declared`
    for i, event in enumerate(events):
        if i != part_of_decision and _decides(state, seat, event):
            following = events[i + 1] if i + 1 < len(events) else None
            made = _discard_made(state, seat, event, following)
            if event["type"] == "ting_declared" and made is not None:
                part_of_decision = i + 1
            entry = _judge(state, seat, event, made)
            if entry is not None:
                out.append({"index": i, **entry})
        evolve_in_place(state, event)
        state.cache.clear()
    return out


def _decides(state: MatchState, seat: int, event: dict[str, Any]) -> bool:
    """True when `event` is the first event of a command `seat` chose (not one the engine made)."""
    if event.get("seat") != seat or event.get("type") not in _OWN_ACTIONS or event.get("auto"):
        return False
    return state.hand is not None and seat in pending_seats(state)


def _discard_made(
    state: MatchState, seat: int, event: dict[str, Any], following: Optional[dict[str, Any]]
) -> Optional[int]:
    """The kind the decision let go: a discard's tile, or the tile of a 报听 with a discard (the
    next event, by the same seat). A 报听 at the deal (H-4) or without a discard lets none go."""
    if event["type"] == "discarded":
        return kind(event["tile"])
    if event["type"] != "ting_declared" or state.phase == TING or not event.get("with_discard", True):
        return None
    if following is None or following.get("type") != "discarded" or following.get("seat") != seat:
        raise ValueError(f"seat {seat}'s 报听 with a discard is not followed by its discard")
    return kind(following["tile"])


def _judge(state: MatchState, seat: int, event: dict[str, Any], made: Optional[int]) -> Optional[dict[str, Any]]:
    acts = legal_actions(state, seat)
    can = {a["action"] for a in acts}
    if event["type"] == "responded" and event["response"] == "pass":
        if "hu" in can:
            return {"kind": "passed_hu", "differs": True, "tile": _window_tile(state)}
        if "pung" in can:
            return {"kind": "passed_pung", "differs": False, "tile": _window_tile(state)}
        return None
    if made is None:
        return None
    entry = _discard_review(state, seat, acts, made)
    if "hu" in can:  # 漏胡: a legal win on the seat's own draw, discarded instead
        entry.update(kind="missed_hu", differs=True)
    return entry


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
    differs = bool(best) and made not in best and mine.key() != top.key()
    return {
        "kind": "discard",
        "made": name(made),
        "best": [name(t) for t in best],
        "differs": differs,
        "made_judged": _option(mine),
        "best_judged": _option(top),
        "shanten_before": A.hand_shanten(counts, know.sets, know.rules),
        "why": (_why(top, mine) if differs else _holds(mine)) + _danger_note(know, made),
        "danger": round(feeding_cost(know, made), 2),
    }


def _holds(o: A.DiscardOption) -> str:
    return f"{name(o.tile)}: {_reading(o)}"


def _danger_note(know: Knowledge, made: int) -> str:
    """Against a declared hand: what letting the tile go risked (the bots' estimate, K-4/K-8)."""
    cost = feeding_cost(know, made)
    if not know.threats or know.ready:
        return ""
    if cost <= 0:
        return f"; {name(made)} was safe against the declared hand (no discard win on it)"
    return f"; {name(made)} risked feeding the declared hand: about {cost:.1f} expected (a discarder not declared pays all)"


def _why(best: A.DiscardOption, made: A.DiscardOption) -> str:
    """Why the analyser's discard is better, in its own measure: steps to ready, then the waits
    (their unseen copies and value), then the unseen tiles that bring the hand nearer."""
    if best.shanten < made.shanten:
        reason = "it is nearer ready"
    elif best.shanten == 0 and best.wait_value != made.wait_value:
        reason = "its waits are worth more (unseen copies x value)"
    else:
        reason = "more unseen tiles bring it nearer ready"
    return f"{name(best.tile)} is better because {reason}: {_holds(best)}; {_holds(made)}"


def _reading(o: A.DiscardOption) -> str:
    if o.shanten < 0:
        return "complete"
    if o.shanten == 0:
        waits = ", ".join(f"{name(t)} ({n} unseen, worth {v})" for t, n, v in o.waits) or "none"
        return f"ready, waits {waits}, expected {o.wait_value:g}"
    return f"{o.shanten} from ready, {o.improving_unseen} unseen tiles improve it"


def _option(o: A.DiscardOption) -> dict[str, Any]:
    return {
        "tile": name(o.tile),
        "shanten": o.shanten,
        "improving": [name(t) for t in o.improving],
        "improving_unseen": o.improving_unseen,
        "waits": [{"tile": name(t), "unseen": n, "value": v} for t, n, v in o.waits],
        "wait_value": o.wait_value,
    }
