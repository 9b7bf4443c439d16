"""Applying one event to a state in place; `engine.table.evolve` wraps it in a copy.

A hand's seats are shared between a state and its copies (`HandState.clone`): evolve changes a
seat only through `HandState.seat_to_change`, which first copies a seat the hand does not own.

Evolve only applies data and imports no rules: whatever the rules decided when an event was made —
who is asked in a claim, rob or 报听 window, the waits of a declared hand, whether a pung forfeits a
kong (K-6), whether a pass is 过胡 (K-5) — comes from the `Decisions` the caller passes. Folding a
log passes `recorded` (the decisions the decider recorded under `event["decision"]`), or, for
matches played under rules version 1 (before decisions were recorded), the rules themselves; the
decider passes the rules and records what they decided (engine/decisions.py).

The decisions, by key: `ting` (hand_started: seats asked to 报听, H-4), `waits` (ting_declared or
the declaring discard: the declared hand's waits, K-3), `claims` (discarded: seat -> allowed
answers, G-6), `passed_hu` (responded: does passing a win restrict it, K-5), `forfeits_kong`
(punged: K-6), `robbers` (kong_declared: seats that may rob the kong, G-7).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from engine.state import (
    CLAIM,
    HAND_OVER,
    MATCH_OVER,
    ROB,
    SETTLE,
    TING,
    TURN,
    HandState,
    MatchState,
    Window,
)
from engine.tiles import kind, parse
from engine.versions import DECISION


class Decisions(Protocol):
    """Where an event's decisions come from: `decisions(state, event, key)` is the decision `key`
    (module docstring) of `event`, asked while `event` is being applied to `state`."""

    def __call__(self, state: MatchState, event: dict[str, Any], key: str) -> Any: ...


Handler = Callable[[MatchState, dict[str, Any], Decisions], None]


class CorruptEvent(ValueError):
    """An event that cannot follow the state it is applied to (a tampered or misordered log)."""


def recorded(state: MatchState, event: dict[str, Any], key: str) -> Any:
    """The decisions as the decider recorded them on the event (rules version 2 on)."""
    made = event.get(DECISION)
    if isinstance(made, dict) and key in made:
        return made[key]
    raise CorruptEvent(f"{event.get('type')} lacks its recorded decision {key!r} (rules version {state.rules_version})")


def apply(state: MatchState, event: dict[str, Any], decisions: Decisions) -> None:
    """Apply one event in place, its decisions taken from `decisions`."""
    handler = _HANDLERS.get(event.get("type"))
    if handler is None:
        raise CorruptEvent(f"unknown engine event type {event.get('type')!r}")
    cache = state.cache
    rules = cache.get("rules")  # the match's rule hooks: only match_started changes what they are built from
    cache.clear()
    if rules is not None and handler is not _on_match_started:
        cache["rules"] = rules
    handler(state, event, decisions)
    state.version += 1


def _on_match_started(state: MatchState, e: dict[str, Any], decide: Decisions) -> None:
    state.variant, state.options = e["variant"], dict(e["options"])
    state.first_dealer = state.dealer = e["first_dealer"]
    state.rules_version = e.get("rules_version", 1)
    state.wall_link = e.get("wall_commitment")


def _on_hand_started(state: MatchState, e: dict[str, Any], decide: Decisions) -> None:
    wall = [kind(t) for t in e["wall"]]
    hand = HandState(
        number=e["hand"],
        dealer=e["dealer"],
        wild=kind(e["wild"]) if e["wild"] else None,
        commitment=e["commitment"],
        seed=e["seed"],
        wall=wall,
        wall_parts=e.get("wall_parts"),
        head=0,
        tail=len(wall),
    )
    if hand.wall_parts is not None:
        state.wall_link = hand.wall_parts["server"]  # the next hand's part must hash to this one
    for seat, text in enumerate(e["hands"]):
        for k in parse(text):
            hand.seat_to_change(seat).counts[k] += 1
    hand.turn = e["dealer"]
    hand.drawn = kind(e["dealer_draw"])
    hand.seat_to_change(e["dealer"]).counts[hand.drawn] += 1
    hand.draw_source = "deal"
    state.hand = hand
    asked = decide(state, e, "ting")  # H-4
    if asked:
        hand.window = Window(TING, None, hand.dealer, {s: ["ting", "pass"] for s in asked})
        state.phase = TING
    else:
        state.phase = TURN


def _on_drew(state: MatchState, e: dict[str, Any], decide: Decisions) -> None:
    hand = state.in_hand
    if e["source"] == "kong":  # G-3 杠后补牌 from the tail
        hand.tail -= 1
        tile = hand.wall[hand.tail]
    else:
        tile = hand.wall[hand.head]
        hand.head += 1
    if kind(e["tile"]) != tile:
        raise CorruptEvent(f"drew {e['tile']} but the wall holds {tile} there")
    hand.seat_to_change(e["seat"]).counts[tile] += 1
    hand.turn, hand.drawn, hand.draw_source = e["seat"], tile, e["source"]
    hand.need_draw, hand.window = False, None
    state.phase = TURN


def _on_ting_declared(state: MatchState, e: dict[str, Any], decide: Decisions) -> None:
    hand = state.in_hand
    me = hand.seat_to_change(e["seat"])
    me.ready = True
    if state.phase == TING:
        me.ready_waits = tuple(kind(t) for t in decide(state, e, "waits"))
        _answer(state, e["seat"], "ting", e, decide)
    elif not e.get("with_discard", True):
        hand.dealer_ting_then_hu = True  # H-4: no discard follows; the next action is hu


def _on_discarded(state: MatchState, e: dict[str, Any], decide: Decisions) -> None:
    hand = state.in_hand
    seat, tile = e["seat"], kind(e["tile"])
    me = hand.seat_to_change(seat)
    if me.counts[tile] < 1:
        raise CorruptEvent(f"seat {seat} discarded {e['tile']} without holding it")
    me.counts[tile] -= 1
    me.discards.append({"tile": e["tile"], "face_down": e["face_down"], "claimed": False})
    hand.dealer_ting_then_hu = False
    if me.ready and not me.ready_waits:
        me.ready_waits = tuple(kind(t) for t in decide(state, e, "waits"))
    hand.discard_count += 1
    hand.drawn = None
    claims = decide(state, e, "claims")
    _open_or_pass(state, CLAIM, tile, seat, {int(s): list(a) for s, a in claims.items()})


def _open_or_pass(state: MatchState, kind_: str, tile: int, source: int, allowed: dict[int, list[str]]) -> None:
    hand = state.in_hand
    if allowed:
        hand.window = Window(kind_, tile, source, allowed)
        state.phase = kind_
        return
    hand.window = None
    hand.turn, hand.need_draw, hand.draw_source = (source + 1) % 4, True, "wall_pending"
    state.phase = TURN


def _on_responded(state: MatchState, e: dict[str, Any], decide: Decisions) -> None:
    _answer(state, e["seat"], e["response"], e, decide)


def _answer(state: MatchState, seat: int, response: str, e: dict[str, Any], decide: Decisions) -> None:
    hand = state.in_hand
    window = hand.open_window
    window.responses[seat] = response
    tile = window.tile
    could_win = response != "hu" and "hu" in window.allowed.get(seat, ()) and window.kind in (CLAIM, ROB)
    if could_win and tile is not None and decide(state, e, "passed_hu"):
        hand.seat_to_change(seat).passed_hu.add(tile)  # K-5 过胡 (含山 has none, H-1)
    if window.kind == TING and len(window.responses) == len(window.allowed):
        hand.window = None  # H-4: everyone asked has answered; the dealer acts
        state.phase = TURN


def _on_punged(state: MatchState, e: dict[str, Any], decide: Decisions) -> None:
    hand = state.in_hand
    seat, tile = e["seat"], kind(e["tile"])
    me = hand.seat_to_change(seat)
    could_kong = "kong" in hand.open_window.allowed.get(seat, ())
    if could_kong and decide(state, e, "forfeits_kong"):
        me.forfeited_kongs.add(tile)  # K-6 (扣点点 only, G-5/K-6): pung chosen over kong gives it up
    me.counts[tile] -= 2
    me.melds.append({"type": "pung", "tile": tile, "kong": None, "from": e["from"]})
    _mark_claimed(hand, e["from"])
    hand.window, hand.turn, hand.drawn, hand.draw_source, hand.need_draw = None, seat, None, "claim", False
    state.phase = TURN


def _on_konged(state: MatchState, e: dict[str, Any], decide: Decisions) -> None:
    hand = state.in_hand
    seat, tile, how = e["seat"], kind(e["tile"]), e["kind"]
    me = hand.seat_to_change(seat)
    if how == "added":
        me.counts[tile] -= 1
        at = next(i for i, m in enumerate(me.melds) if m["type"] == "pung" and m["tile"] == tile)
        me.melds[at] = {**me.melds[at], "type": "kong", "kong": "added"}  # melds are never mutated in place
    else:
        me.counts[tile] -= 3 if how == "exposed" else 4
        me.melds.append({"type": "kong", "tile": tile, "kong": how, "from": e["from"]})
    if how == "exposed":
        _mark_claimed(hand, e["from"])
    feeder = e["from"]
    hand.kongs.append(
        {
            "seat": seat,
            "tile": tile,
            "kind": how,
            "fed_by": feeder,
            "feeder_ready": feeder is not None and hand.seats[feeder].ready,
        }
    )
    hand.kong_count += 1
    hand.window, hand.pending_kong = None, None
    hand.turn, hand.drawn, hand.need_draw, hand.draw_source = seat, None, True, "kong_pending"
    state.phase = TURN


def _on_kong_declared(state: MatchState, e: dict[str, Any], decide: Decisions) -> None:
    hand = state.in_hand
    hand.pending_kong = (e["seat"], kind(e["tile"]))
    robbers = decide(state, e, "robbers")  # G-7
    hand.window = Window(ROB, kind(e["tile"]), e["seat"], {s: ["hu", "pass"] for s in robbers})
    state.phase = ROB


def _on_won(state: MatchState, e: dict[str, Any], decide: Decisions) -> None:
    hand = state.in_hand
    seat = e["seat"]
    if e["by"] == "discard":
        hand.seat_to_change(seat).counts[kind(e["tile"])] += 1
        _mark_claimed(hand, e["from"])
    elif e["by"] == "rob_kong":  # G-7: the robbed tile leaves the konger's hand
        hand.seat_to_change(e["from"]).counts[kind(e["tile"])] -= 1
        hand.seat_to_change(seat).counts[kind(e["tile"])] += 1
    hand.win = {"seat": seat, "tile": kind(e["tile"]) if e["tile"] else hand.drawn, "by": e["by"], "from": e["from"]}
    hand.window = None
    state.phase = SETTLE


def _on_hand_ended(state: MatchState, e: dict[str, Any], decide: Decisions) -> None:
    state.scores = list(e["scores"])
    if e["next_dealer"] != state.dealer:
        state.deal_moves += 1
    state.dealer = e["next_dealer"]
    state.hands_played += 1
    state.last_result = e
    state.last_hand = state.hand  # a new hand_started replaces state.hand, so this one is never changed again
    state.phase = MATCH_OVER if e["match_over"] else HAND_OVER


def _on_match_ended(state: MatchState, e: dict[str, Any], decide: Decisions) -> None:
    state.phase = MATCH_OVER


def _mark_claimed(hand: HandState, discarder: int | None) -> None:
    if discarder is not None and hand.seats[discarder].discards:
        if not hand.seats[discarder].discards[-1]["claimed"]:
            discards = hand.seat_to_change(discarder).discards
            discards[-1] = {**discards[-1], "claimed": True}  # discards are never mutated in place


_HANDLERS: dict[str | None, Handler] = {
    "match_started": _on_match_started,
    "hand_started": _on_hand_started,
    "drew": _on_drew,
    "ting_declared": _on_ting_declared,
    "discarded": _on_discarded,
    "responded": _on_responded,
    "punged": _on_punged,
    "konged": _on_konged,
    "kong_declared": _on_kong_declared,
    "won": _on_won,
    "hand_ended": _on_hand_ended,
    "match_ended": _on_match_ended,
}
