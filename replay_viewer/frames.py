"""Replay frames: fold a match one event at a time and emit the engine's own view of each step."""

from __future__ import annotations

from typing import Any, Iterable, Optional, Union

import engine
from engine.explain import explain_settled
from engine.bot_strong import NORMAL_BUDGET, Budget
from engine.review import review

Perspective = Union[int, str, None]  # a seat 0..3, "all" (everyone's hands open) or None (public)


def everyone_view(state) -> dict:
    """engine.view for the public with each seat's own part taken from that seat's engine.view."""
    base = engine.view(state, "all")  # windows with their asked seats and answers (finished matches)
    seat_views = [engine.view(state, s) for s in range(4)]
    base["seat"] = "all"
    base["legal_actions"] = [v["legal_actions"] for v in seat_views]
    base["last_result"] = state.last_result and engine.redact(state.last_result, "all")
    hand = base["hand"]
    if hand is not None:
        hand["seats"] = [seat_views[s]["hand"]["seats"][s] for s in range(4)]
        turn = hand["turn"]
        hand["drawn"] = seat_views[turn]["hand"]["drawn"] if turn in (0, 1, 2, 3) else None
    return base


def view_for(state, perspective: Perspective) -> dict:
    return everyone_view(state) if perspective == "all" else engine.view(state, perspective)


def event_for(event: dict, perspective: Perspective) -> Optional[dict]:
    """The event for a step; None (no step) only for the public of a match in play.

    A seat's perspective exists only for a finished match, whose whole record is public: an event
    that seat did not see then (another seat's window answer, a kong_declared) is still a step,
    so every perspective has the same steps."""
    shown = engine.redact(event, "all" if perspective == "all" else perspective)
    if shown is None and perspective is not None:
        return event
    return shown


def build_frames(
    stored: Iterable[Any],
    perspective: Perspective,
    service_types: Iterable[str],
    state: Any = None,
    budget: Budget = NORMAL_BUDGET,
) -> dict:
    """Steps (one per engine event: its stream version, the event and the view after it), hands and
    scores; from `state` (the match before the first of `stored`) or the start of the match. A seat's
    frames carry its review, judged by the evaluator `budget` allows (engine.review; NORMAL_BUDGET is
    `normal`'s)."""
    skip = frozenset(service_types)
    state = engine.initial_state() if state is None else state
    begin = state
    steps: list[dict] = []
    hands: list[dict] = []
    events: list[dict] = []
    for item in stored:
        if item.type in skip:
            continue
        event = {"type": item.type, **item.payload}
        events.append(event)
        state = engine.evolve(state, event)
        if item.type == "hand_ended" and hands and state.hand is not None and state.hand.win is not None:
            hands[-1]["explain"] = explain_settled(state)  # the table's settlement reads the same (engine.view)
        view = view_for(state, perspective)
        for constant in ("options", "last_result", "legal_actions"):  # given once / on the hand_ended step / unused
            view.pop(constant, None)
        shown = event_for(event, perspective)
        if shown is None:
            continue  # engine.redact: this perspective does not see the event (a window answer, a tell)
        steps.append({"version": item.version, "event": shown, "view": view})
        if item.type == "hand_started":
            hands.append(
                {"hand": event["hand"], "dealer": event["dealer"], "start": len(steps) - 1, "end": None, "scores": None}
            )
        elif item.type == "hand_ended" and hands:
            hands[-1].update(end=len(steps) - 1, scores=list(event["scores"]), deltas=event["settlement"]["deltas"])
    out = {"perspective": perspective, "steps": steps, "hands": hands}
    if isinstance(perspective, int):  # a seat's frames exist only for finished matches
        out["review"] = [_review_entry(entry, steps) for entry in review(events, perspective, begin, budget)]
    return out


def _review_entry(entry: dict, steps: list[dict]) -> dict:
    """engine.review's entry with its step index and that step's stream version (for paged frames)."""
    at = entry.pop("index")
    return {**entry, "step": at, "version": steps[at]["version"]}


def parse_perspective(text: Optional[str]) -> Perspective:
    """ "all" or a seat number 0..3 (ValueError otherwise)."""
    if text in (None, "", "all"):
        return "all"
    if text in ("0", "1", "2", "3"):
        return int(text)
    raise ValueError("seat must be all or 0..3")
