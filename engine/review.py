"""A review of one seat's decisions (the replay's 复盘): at each of its own decisions, what the
best bot evaluator its budget allows would discard beside what was discarded and why, and the wins
and pungs it let pass (过胡 on a discard, 漏胡 on its own draw; 碰 passed).

A discard is judged by the function a bot decides with: engine.bot_strong.looked_ahead, which is
engine.bot_normal.score_discards (`normal`'s evaluator) with, as the budget allows, `strong`'s look
one draw ahead (`ahead` discards) and its sampled danger (`samples` hands per declared seat). Each
discard's worth (the chance to win x what the win is worth: scored waits when ready, flush plans,
or the ready hands the next draw makes) less its danger (the expected cost of feeding a declared
hand). The "best" is the discard that bot would make; an entry that differs says why (`reason`,
`why`), with both moves' steps to ready, waits with their unseen copies and value, worth, plan and
danger.

Each decision is judged once, from the state the engine had when the seat decided: a 报听 with a
discard is one command recorded as two events (`ting_declared`, `discarded`) and is judged at the
first, where every discard was still open (at the second the hand is already locked). Events the
engine made on the seat's behalf (`auto`: a locked hand's drawn tile, K-5's win) are no decisions.
A win is flagged only when the engine's legal actions at that decision offered it.

Only what that seat could know at that moment is used: engine.bot_normal.Knowledge reads its own
tiles, the melds, the face-up discards, who declared and the wild - never another hand or the wall.
"""

from __future__ import annotations

from dataclasses import replace

from typing import Any, Callable, Iterable, Optional

from engine import analysis as A
from engine.actions import legal_actions, pending_seats
from engine.bot_normal import DiscardScore, Knowledge, _value_of, best_scored, can_declare, feeding_cost
from engine.bot_strong import NORMAL_BUDGET, Budget, looked_ahead, sampled_danger
from engine.state import TING, MatchState
from engine.table import evolve_in_place, initial_state
from engine.tiles import kind, name
from engine.views import seat_view

_OWN_ACTIONS = frozenset({"discarded", "ting_declared", "responded", "punged", "konged", "kong_declared", "won"})


def review(
    events: Iterable[dict[str, Any]],
    seat: int,
    start: Optional[MatchState] = None,
    budget: Budget = NORMAL_BUDGET,
) -> list[dict[str, Any]]:
    """One entry per decision of `seat`: {"index": the event's index in `events`, "kind", ...};
    `start` is the match before the first of `events` (a page of a paged replay), else its beginning.
    The `budget` (engine.bot_strong.Budget): `samples` 0 judges danger by `normal`'s feeding cost,
    more by `strong`'s sampled danger with that many determinised hands per declared seat; `ahead` 0
    judges as `normal`, more looks one draw ahead at that many discards as `strong`; `waits` 0 scores
    as many waits a decision as `normal`, more as `strong` where the variant caps them; NORMAL_BUDGET
    is `normal`'s evaluator, BUDGET `strong`'s."""
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
            entry = _judge(state, seat, event, made, budget)
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


def _judge(
    state: MatchState,
    seat: int,
    event: dict[str, Any],
    made: Optional[int],
    budget: Budget,
) -> Optional[dict[str, Any]]:
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
    entry = _discard_review(state, seat, acts, made, budget)
    if "hu" in can:  # 漏胡: a legal win on the seat's own draw, discarded instead
        entry.update(kind="missed_hu", differs=True)
    return entry


def _window_tile(state: MatchState) -> Optional[str]:
    window = state.in_hand.window
    return name(window.tile) if window is not None and window.tile is not None else None


def _discard_review(
    state: MatchState, seat: int, acts: list[dict[str, Any]], made: int, budget: Budget
) -> dict[str, Any]:
    know = replace(Knowledge.of(state, seat), waits_scored=budget.waits)
    allowed = sorted({kind(a["tile"]) for a in acts if a["action"] in ("discard", "ting") and "tile" in a} | {made})
    risk = _risk(state, seat, know, budget.samples)
    scores = looked_ahead(know, allowed, risk, budget.ahead, exact=(made,))
    top = best_scored(know, scores)
    best = [top] + [t for t in sorted(scores) if t != top and scores[t].rounded == scores[top].rounded]
    differs = made not in best
    value_of = _value_of(know, live_only=False)
    counts = list(know.counts)
    mine = A.judge_discard(counts, made, know.sets, know.rules, know.hidden, value_of)
    chosen = A.judge_discard(counts, top, know.sets, know.rules, know.hidden, value_of) if top != made else mine
    reason = _reason(know, scores[top], chosen, scores[made], mine) if differs else "same"
    why = _why(reason, scores[top], chosen, scores[made], mine) if differs else _holds(scores[made], mine)
    return {
        "kind": "discard",
        "made": name(made),
        "best": [name(t) for t in best],
        "differs": differs,
        "made_judged": _option(scores[made], mine),
        "best_judged": _option(scores[top], chosen),
        "shanten_before": A.hand_shanten(counts, know.sets, know.rules),
        "evaluator": "strong"
        if (budget.samples and know.threats) or scores[top].ahead or scores[made].ahead
        else "normal",
        "reason": reason,
        "why": why + _danger_note(know, made, scores[made].danger),
        "danger": round(scores[made].danger, 2),
    }


def _risk(state: MatchState, seat: int, know: Knowledge, samples: int) -> Callable[[int], float]:
    """The danger of letting each tile go: `normal`'s feeding cost, or with `samples` `strong`'s
    sampled danger (determinised declared hands, from the seat's view)."""
    if samples:
        return sampled_danger(seat_view(state, seat), know, samples)
    return lambda t: feeding_cost(know, t)


REASONS = (
    "same",
    "safer",
    "flush",
    "nearer_ready",
    "waits_worth_more",
    "more_improving",
    "cannot_declare",
    "waits_poor",
    "few_improving",
    "ready_hands_worth_more",
    "ready_hands_poor",
)


def _reason(know: Knowledge, best: DiscardScore, b: A.DiscardOption, made: DiscardScore, m: A.DiscardOption) -> str:
    """What made the evaluator prefer `best` (see REASONS and docs/API.md, the review)."""
    if best.danger < made.danger and best.worth <= made.worth:
        return "safer"  # defence: the move made was worth as much or more, but riskier
    if best.flush is not None:
        return "flush"
    if b.shanten < m.shanten:
        return "nearer_ready"
    if b.shanten == m.shanten == 1 and (best.ahead or made.ahead):
        return "ready_hands_worth_more"  # judged one draw ahead: the ready hands the next draw makes
    if m.shanten == 1 and made.ahead:
        return "ready_hands_poor"  # the move made kept a hand a step nearer, whose next draws make poor ready hands
    if b.shanten == m.shanten == 0:
        return "waits_worth_more"
    if b.shanten == m.shanten:
        return "more_improving"
    if m.shanten == 0 and not can_declare(know, [t for t, _, _ in m.waits]):
        return "cannot_declare"  # K-2: a ready hand with no wait worth 6 or more cannot declare, so cannot win
    if m.shanten == 0:
        return "waits_poor"  # the move made was ready, on waits worth less than the hand a step back
    return "few_improving"  # a step nearer, but so few unseen tiles improve it that a wider hand is worth more


_SAYS = {
    "safer": "it is safer against the declared hand, and the move made was worth no more",
    "flush": "the flush it keeps is worth more",
    "nearer_ready": "it is nearer ready",
    "waits_worth_more": "its waits are worth more (live copies x value, and the ways they may come)",
    "more_improving": "more unseen tiles bring it nearer ready",
    "cannot_declare": "the ready hand kept by the move made cannot declare 听 (K-2: no wait worth 6 or more), so it cannot win",
    "waits_poor": "the ready hand kept by the move made waits on tiles worth less (few live copies or little value) than this hand one step further",
    "few_improving": "the hand kept by the move made is nearer ready but so few unseen tiles improve it that this wider hand is likelier to win",
    "ready_hands_worth_more": "one draw ahead, the ready hands its improving draws would make are worth more (their waits' live copies x value)",
    "ready_hands_poor": (
        "the hand kept by the move made is nearer ready, but one draw ahead the ready hands its improving draws "
        "would make are worth less than this hand"
    ),
}


def _why(reason: str, best: DiscardScore, b: A.DiscardOption, made: DiscardScore, m: A.DiscardOption) -> str:
    """Why the evaluator's discard is better, in its own measure (worth less danger)."""
    return f"{name(best.tile)} is better because {_SAYS[reason]}: {_holds(best, b)}; {_holds(made, m)}"


def _holds(s: DiscardScore, o: A.DiscardOption) -> str:
    plan = f" keeping {_plan_name(s.flush)}" if s.flush is not None else (" one draw ahead" if s.ahead else "")
    danger = f", danger {s.danger:.2f}" if s.danger else ""
    return f"{name(o.tile)}: {_reading(o)}, worth {s.worth:.3g}{plan}{danger}"


_SUIT_NAMES = ("m", "p", "s")


def _plan_name(keep: frozenset[int]) -> str:
    """A flush plan by the kinds it keeps: a half flush (混一色) keeps the honours, a full one (清一色) not."""
    suit = next(i for i in range(3) if all(k in keep for k in range(9 * i, 9 * i + 9)))
    half = all(k in keep for k in range(27, 34))
    return f"a {_SUIT_NAMES[suit]} {'half flush (混一色)' if half else 'full flush (清一色)'}"


def _plan_code(keep: Optional[frozenset[int]]) -> Optional[str]:
    if keep is None:
        return None
    suit = next(i for i in range(3) if all(k in keep for k in range(9 * i, 9 * i + 9)))
    return f"{'half_flush' if all(k in keep for k in range(27, 34)) else 'full_flush'}:{_SUIT_NAMES[suit]}"


def _danger_note(know: Knowledge, made: int, cost: float) -> str:
    """Against a declared hand: what letting the tile go risked (the evaluator's estimate, K-4/K-8)."""
    if not know.threats or know.ready:
        return ""
    if cost <= 0:
        return f"; {name(made)} was safe against the declared hand (no discard win on it)"
    return f"; {name(made)} risked feeding the declared hand: about {cost:.1f} expected (a discarder not declared pays all)"


def _reading(o: A.DiscardOption) -> str:
    if o.shanten < 0:
        return "complete"
    if o.shanten == 0:
        waits = ", ".join(f"{name(t)} ({n} unseen, worth {v})" for t, n, v in o.waits) or "none"
        return f"ready, waits {waits}"
    return f"{o.shanten} from ready, {o.improving_unseen} unseen tiles improve it"


def _option(s: DiscardScore, o: A.DiscardOption) -> dict[str, Any]:
    return {
        "tile": name(o.tile),
        "shanten": o.shanten,
        "improving": [name(t) for t in o.improving],
        "improving_unseen": o.improving_unseen,
        "waits": [{"tile": name(t), "unseen": n, "value": v} for t, n, v in o.waits],
        "wait_value": o.wait_value,
        "worth": round(s.worth, 4),
        "danger": round(s.danger, 4),
        "net": round(s.worth - s.danger, 4),
        "plan": _plan_code(s.flush),
        "ahead": s.ahead,
    }
