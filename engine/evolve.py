"""Applying one event to a state in place; `engine.table.evolve` wraps it in a copy.

Evolve only applies data (issue 14): whatever the rules decided when an event was made — who is
asked in a claim, rob or 报听 window, the waits of a declared hand, whether a pung forfeits a kong
(K-6), whether a pass is 过胡 (K-5) — is recorded by the decider under `event["decision"]`, and
folding reads it from there. Only events of matches played under rules version 1 (before the
decisions were recorded) lack it; for them the same rules run as a fallback, under version 1.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
from engine.tiles import kind, name, parse
from engine.versions import DECISION, FIRST_DATA_VERSION, upcast

Handler = Callable[[MatchState, dict[str, Any], bool], None]


class CorruptEvent(ValueError):
    """An event that cannot follow the state it is applied to (a tampered or misordered log)."""


def apply(state: MatchState, event: dict[str, Any], *, deciding: bool = False) -> None:
    """Apply one event in place. `deciding` (engine.table only): compute each decision with the rules
    and record it on the event under `decision`; folding (`deciding=False`) reads it back instead."""
    handler = _HANDLERS.get(event.get("type"))
    if handler is None:
        raise CorruptEvent(f"unknown engine event type {event.get('type')!r}")
    state.cache.clear()
    handler(state, event if deciding else upcast(event), deciding)
    state.version += 1


def _decided(state: MatchState, e: dict[str, Any], key: str, compute: Callable[[], Any], deciding: bool) -> Any:
    """The decision `key` of event `e`: as recorded, or computed (when deciding, or for a version-1 log)."""
    recorded = e.get(DECISION)
    if not deciding and isinstance(recorded, dict) and key in recorded:
        return recorded[key]
    data_version = state.rules_version >= FIRST_DATA_VERSION
    if not deciding and data_version:
        raise CorruptEvent(f"{e.get('type')} lacks its recorded decision {key!r} (rules version {state.rules_version})")
    value = compute()  # the decider, or the fallback for events recorded before decisions were
    if deciding and data_version:
        e.setdefault(DECISION, {})[key] = value
    return value


def _match_started(state: MatchState, e: dict[str, Any], deciding: bool) -> None:
    state.variant, state.options = e["variant"], dict(e["options"])
    state.first_dealer = state.dealer = e["first_dealer"]
    state.rules_version = e.get("rules_version", 1)


def _hand_started(state: MatchState, e: dict[str, Any], deciding: bool) -> None:
    from engine.actions import variant_of

    wall = [kind(t) for t in e["wall"]]
    hand = HandState(
        number=e["hand"],
        dealer=e["dealer"],
        wild=kind(e["wild"]) if e["wild"] else None,
        commitment=e["commitment"],
        seed=e["seed"],
        wall=wall,
        head=0,
        tail=len(wall),
    )
    for seat, text in enumerate(e["hands"]):
        for k in parse(text):
            hand.seats[seat].counts[k] += 1
    hand.turn = e["dealer"]
    hand.drawn = kind(e["dealer_draw"])
    hand.seats[e["dealer"]].counts[hand.drawn] += 1
    hand.draw_source = "deal"
    state.hand = hand
    asked = _decided(state, e, "ting", lambda: variant_of(state).ting_phase_seats(hand), deciding)  # H-4
    if asked:
        hand.window = Window(TING, None, hand.dealer, {s: ["ting", "pass"] for s in asked})
        state.phase = TING
    else:
        state.phase = TURN


def _drew(state: MatchState, e: dict[str, Any], deciding: bool) -> None:
    hand = state.in_hand
    if e["source"] == "kong":  # G-3 杠后补牌 from the tail
        hand.tail -= 1
        tile = hand.wall[hand.tail]
    else:
        tile = hand.wall[hand.head]
        hand.head += 1
    if kind(e["tile"]) != tile:
        raise CorruptEvent(f"drew {e['tile']} but the wall holds {tile} there")
    hand.seats[e["seat"]].counts[tile] += 1
    hand.turn, hand.drawn, hand.draw_source = e["seat"], tile, e["source"]
    hand.need_draw, hand.window = False, None
    state.phase = TURN


def _waits_of(state: MatchState, seat: int) -> Callable[[], list[str]]:
    """The waits of a declared hand (K-3 `kong_keeps_waits`), as a decision to record."""

    def compute() -> list[str]:
        from engine.actions import variant_of

        me = state.in_hand.seats[seat]
        return [name(k) for k in variant_of(state).waits(state.in_hand, me.counts, 4 - len(me.melds))]

    return compute


def _ting_declared(state: MatchState, e: dict[str, Any], deciding: bool) -> None:
    hand = state.in_hand
    me = hand.seats[e["seat"]]
    me.ready = True
    if state.phase == TING:
        me.ready_waits = tuple(kind(t) for t in _decided(state, e, "waits", _waits_of(state, e["seat"]), deciding))
        _answer(state, e["seat"], "ting", e, deciding)
    elif not e.get("with_discard", True):
        hand.dealer_ting_then_hu = True  # H-4: no discard follows; the next action is hu


def _discarded(state: MatchState, e: dict[str, Any], deciding: bool) -> None:
    hand = state.in_hand
    seat, tile = e["seat"], kind(e["tile"])
    me = hand.seats[seat]
    if me.counts[tile] < 1:
        raise CorruptEvent(f"seat {seat} discarded {e['tile']} without holding it")
    me.counts[tile] -= 1
    me.discards.append({"tile": e["tile"], "face_down": e["face_down"], "claimed": False})
    hand.dealer_ting_then_hu = False
    if me.ready and not me.ready_waits:
        me.ready_waits = tuple(kind(t) for t in _decided(state, e, "waits", _waits_of(state, seat), deciding))
    hand.discard_count += 1
    hand.drawn = None
    claims = _decided(state, e, "claims", lambda: _claims(state, seat, tile, e["face_down"]), deciding)
    _open_or_pass(state, CLAIM, tile, seat, {int(s): list(a) for s, a in claims.items()})


def _claims(state: MatchState, discarder: int, tile: int, face_down: bool) -> dict[str, list[str]]:
    """G-6: only players with a legal claim are asked (K-2: nobody claims a face-down tile).
    Seats are string keys: the decision is JSON as stored."""
    from engine.actions import variant_of

    if face_down:
        return {}
    rules = variant_of(state)
    hand = state.in_hand
    allowed: dict[str, list[str]] = {}
    for seat in ((discarder + i) % 4 for i in (1, 2, 3)):
        options = []
        if rules.hu_allowed(state, seat, tile, "discard", discarder):
            options.append("hu")
        if rules.can_exposed_kong(hand, seat, tile):
            options.append("kong")
        if rules.can_pung(hand, seat, tile):
            options.append("pung")
        if options:
            allowed[str(seat)] = options + ["pass"]
    return allowed


def _open_or_pass(state: MatchState, kind_: str, tile: int, source: int, allowed: dict[int, list[str]]) -> None:
    hand = state.in_hand
    if allowed:
        hand.window = Window(kind_, tile, source, allowed)
        state.phase = kind_
        return
    hand.window = None
    hand.turn, hand.need_draw, hand.draw_source = (source + 1) % 4, True, "wall_pending"
    state.phase = TURN


def _responded(state: MatchState, e: dict[str, Any], deciding: bool) -> None:
    _answer(state, e["seat"], e["response"], e, deciding)


def _answer(state: MatchState, seat: int, response: str, e: dict[str, Any], deciding: bool) -> None:
    from engine.actions import variant_of

    hand = state.in_hand
    window = hand.open_window
    window.responses[seat] = response
    tile = window.tile
    could_win = response != "hu" and "hu" in window.allowed.get(seat, ()) and window.kind in (CLAIM, ROB)
    if (
        could_win
        and tile is not None
        and _decided(state, e, "passed_hu", lambda: variant_of(state).pass_restricts_win, deciding)
    ):
        hand.seats[seat].passed_hu.add(tile)  # K-5 过胡 (含山 has none, H-1)
    if window.kind == TING and len(window.responses) == len(window.allowed):
        hand.window = None  # H-4: everyone asked has answered; the dealer acts
        state.phase = TURN


def _punged(state: MatchState, e: dict[str, Any], deciding: bool) -> None:
    from engine.actions import variant_of

    hand = state.in_hand
    seat, tile = e["seat"], kind(e["tile"])
    me = hand.seats[seat]
    could_kong = "kong" in hand.open_window.allowed.get(seat, ())
    if could_kong and _decided(state, e, "forfeits_kong", lambda: variant_of(state).pung_forfeits_kong, deciding):
        me.forfeited_kongs.add(tile)  # K-6 (扣点点 only, G-5/K-6): pung chosen over kong gives it up
    me.counts[tile] -= 2
    me.melds.append({"type": "pung", "tile": tile, "kong": None, "from": e["from"]})
    _mark_claimed(hand, e["from"])
    hand.window, hand.turn, hand.drawn, hand.draw_source, hand.need_draw = None, seat, None, "claim", False
    state.phase = TURN


def _konged(state: MatchState, e: dict[str, Any], deciding: bool) -> None:
    hand = state.in_hand
    seat, tile, how = e["seat"], kind(e["tile"]), e["kind"]
    me = hand.seats[seat]
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


def _kong_declared(state: MatchState, e: dict[str, Any], deciding: bool) -> None:
    from engine.table import _robbers

    hand = state.in_hand
    seat, tile = e["seat"], kind(e["tile"])
    hand.pending_kong = (seat, tile)
    robbers = _decided(state, e, "robbers", lambda: _robbers(state, seat, tile), deciding)  # G-7
    hand.window = Window(ROB, tile, seat, {s: ["hu", "pass"] for s in robbers})
    state.phase = ROB


def _won(state: MatchState, e: dict[str, Any], deciding: bool) -> None:
    hand = state.in_hand
    seat = e["seat"]
    if e["by"] == "discard":
        hand.seats[seat].counts[kind(e["tile"])] += 1
        _mark_claimed(hand, e["from"])
    elif e["by"] == "rob_kong":  # G-7: the robbed tile leaves the konger's hand
        hand.seats[e["from"]].counts[kind(e["tile"])] -= 1
        hand.seats[seat].counts[kind(e["tile"])] += 1
    hand.win = {"seat": seat, "tile": kind(e["tile"]) if e["tile"] else hand.drawn, "by": e["by"], "from": e["from"]}
    hand.window = None
    state.phase = SETTLE


def _hand_ended(state: MatchState, e: dict[str, Any], deciding: bool) -> None:
    state.scores = list(e["scores"])
    if e["next_dealer"] != state.dealer:
        state.deal_moves += 1
    state.dealer = e["next_dealer"]
    state.hands_played += 1
    state.last_result = e
    state.last_hand = state.hand  # a new hand_started replaces state.hand, so this one is never changed again
    state.phase = MATCH_OVER if e["match_over"] else HAND_OVER


def _match_ended(state: MatchState, e: dict[str, Any], deciding: bool) -> None:
    state.phase = MATCH_OVER


def _mark_claimed(hand: HandState, discarder: int | None) -> None:
    if discarder is not None and hand.seats[discarder].discards:
        discards = hand.seats[discarder].discards
        if not discards[-1]["claimed"]:
            discards[-1] = {**discards[-1], "claimed": True}  # discards are never mutated in place


_HANDLERS: dict[str | None, Handler] = {
    "match_started": _match_started,
    "hand_started": _hand_started,
    "drew": _drew,
    "ting_declared": _ting_declared,
    "discarded": _discarded,
    "responded": _responded,
    "punged": _punged,
    "konged": _konged,
    "kong_declared": _kong_declared,
    "won": _won,
    "hand_ended": _hand_ended,
    "match_ended": _match_ended,
}
