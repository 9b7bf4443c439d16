"""The Decider: `decide(state, command) -> events`, `evolve(state, event) -> state`, `fold`."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Optional

from engine.actions import legal_templates, self_draw_kind, variant_of
from engine.decisions import Recording, after, recorded_else_rules, robbers
from engine.errors import IllegalAction, explain
from engine.event_types import (
    Discarded,
    Drew,
    HandEnded,
    HandStarted,
    KongDeclared,
    Konged,
    MatchEnded,
    MatchStartedV1,
    Punged,
    Responded,
    DrawSource,
    TingDeclared,
    WinBy,
    Won,
    event_of,
)
from engine.evolve import apply
from engine.options import OptionError, normalise
from engine.state import CLAIM, LOBBY, ROB, SETTLE, TURN, MatchState
from engine.tiles import KIND_NAMES, TileError, format_hand, kind, name, parse
from engine import versions
from engine.variants import get
from engine.wall import SeedError, deal_from_seed, joint_parts, joint_seed, links_to, part_from_hex, seed_from_hex


def initial_state() -> MatchState:
    return MatchState()


def evolve(state: MatchState, event: dict[str, Any]) -> MatchState:
    """Pure: the state after one event (the input state is not changed)."""
    new = state.clone()
    evolve_in_place(new, event)
    return new


def evolve_in_place(state: MatchState, event: dict[str, Any]) -> None:
    """One event of a log folded into `state` itself: its decisions as recorded (for a log of rules
    version 1, which recorded none, as the rules take them)."""
    apply(state, event, recorded_else_rules)


def fold(events: Iterable[dict[str, Any]], state: Optional[MatchState] = None) -> MatchState:
    """Replay: evolve over many events, copying the starting state once."""
    current = state.clone() if state is not None else initial_state()
    for event in events:
        apply(current, event, recorded_else_rules)
    return current


def decide(state: MatchState, command: dict[str, Any]) -> list[dict[str, Any]]:
    """The events a command produces, with every automatic consequence up to the next decision."""
    return step(state, command)[0]


def step(state: MatchState, command: dict[str, Any]) -> tuple[list[dict[str, Any]], MatchState]:
    """`decide` and the state after its events at once (equal to `fold(events, state)`, computed once)."""
    first = _command_events(state, command)  # validated against the (cached) state as given
    scratch = state.clone()
    return _apply_with_consequences(scratch, first), scratch


def step_in_place(state: MatchState, command: dict[str, Any]) -> list[dict[str, Any]]:
    """`decide`, applying the events to `state` itself (for a replay that owns its state, e.g. the audit)."""
    return _apply_with_consequences(state, _command_events(state, command))


def _apply_with_consequences(state: MatchState, first: list[dict[str, Any]]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []

    def emit(event: dict[str, Any]) -> None:
        events.append(event)
        decisions = Recording()
        apply(state, event, decisions)
        if decisions.made and state.rules_version >= versions.FIRST_DATA_VERSION:
            event[versions.DECISION] = decisions.made  # what the rules decided, for folding to read back

    for event in first:
        emit(event)
    _run_automatic(state, emit)
    return events


def _command_events(state: MatchState, command: dict[str, Any]) -> list[dict[str, Any]]:
    if not isinstance(command, dict):
        raise IllegalAction("bad_command", "a command must be an object")
    action = command.get("action")
    if action == "start_match":
        return [_start_match(state, command)]
    if action == "start_hand":
        return [_start_hand(state, command)]
    seat = command.get("seat")
    if isinstance(seat, bool) or seat not in (0, 1, 2, 3):
        raise IllegalAction("bad_seat", f"seat must be 0..3, got {seat!r}")
    wanted = {k: command[k] for k in ("action", "tile") if command.get(k) is not None}
    if wanted not in legal_templates(state, seat):
        raise explain(state, seat, wanted)
    events = _action_events(state, seat, wanted)
    if command.get("reason"):
        events[0]["reason"] = str(command["reason"])
    return events


def _start_match(state: MatchState, command: dict[str, Any]) -> dict[str, Any]:
    if state.variant is not None:
        raise IllegalAction("match_started", "the match has already started")
    try:
        options = normalise(command.get("variant"), command.get("options"))
    except OptionError as exc:
        raise IllegalAction("bad_option", str(exc)) from None
    first = command.get("first_dealer", 0)
    if first not in (0, 1, 2, 3):
        raise IllegalAction("bad_seat", "first_dealer must be 0..3")
    version = command.get("rules_version", versions.RULES_VERSION)  # the audit re-decides a log under its version
    if not versions.supported(version):
        raise IllegalAction(
            "unsupported_rules_version",
            f"this engine plays rules versions "
            f"{versions.OLDEST_RULES_VERSION} to {versions.RULES_VERSION}, not {version!r}",
        )
    fields: MatchStartedV1 = {"variant": command["variant"], "options": options, "first_dealer": first}
    if version > 1:
        fields["rules_version"] = version  # version 1 logs predate the field
    if command.get("wall_commitment") is not None:  # joint walls (G-11): the server's chain, committed
        try:
            part_from_hex(command["wall_commitment"], "the wall commitment")
        except SeedError as exc:
            raise IllegalAction("bad_seed", str(exc)) from None
        fields["wall_commitment"] = command["wall_commitment"]
    return event_of("match_started", fields)


def _start_hand(state: MatchState, command: dict[str, Any]) -> dict[str, Any]:
    if not state.needs_new_hand or state.phase == LOBBY and state.variant is None:
        raise IllegalAction("no_hand_to_start", "a new hand starts only after match_started or hand_ended")
    if "preset" in command:
        return _preset_hand(state, command["preset"])
    parts = command.get("wall")
    if state.wall_link is not None and parts is None:
        raise IllegalAction("wall_parts_required", "this match deals joint walls (G-11): send the parts, not a seed")
    try:
        if parts is not None:
            seed = _joint_seed(state, parts)
        else:
            seed = seed_from_hex(command.get("seed"))
        deal = deal_from_seed(seed)
    except SeedError as exc:
        raise IllegalAction("bad_seed", str(exc)) from None
    dealer = state.dealer
    order = [(dealer + i) % 4 for i in range(4)]
    hands: list[list[int]] = [[], [], [], []]
    for i, seat in enumerate(order):
        hands[seat] = deal.wall[13 * i : 13 * i + 13]
    dealer_draw = deal.wall[52]  # G-3: the dealer's 14th tile
    wild = deal.wild if _uses_wilds(state) else None
    fields = _hand_started(state, hands, dealer_draw, deal.wall[53:], wild, deal.commitment, deal.seed_hex)
    if parts is not None:
        fields["wall_parts"] = {"server": parts["server"], "seats": list(parts["seats"])}
    return event_of("hand_started", fields)


def _joint_seed(state: MatchState, parts: Any) -> bytes:
    """G-11 joint walls: the server's part must be the next link of its committed chain."""
    if state.wall_link is None:
        raise SeedError("this match committed to no server chain: deal it from a seed")
    server, seats = joint_parts(parts)
    if not links_to(server, state.wall_link):
        raise SeedError("the server's part does not hash to its last revealed link (its commitment)")
    return joint_seed(server, state.hands_played + 1, seats)


def _preset_hand(state: MatchState, preset: dict[str, Any]) -> dict[str, Any]:
    try:
        hands = [parse(h) for h in preset["hands"]]
        rest = parse(preset.get("wall", ""))
        wild = kind(preset["wild"]) if preset.get("wild") else None
    except (TileError, KeyError, TypeError) as exc:
        raise IllegalAction("bad_preset", f"bad preset hand: {exc}") from None
    if len(hands) != 4 or any(len(h) != (14 if s == state.dealer else 13) for s, h in enumerate(hands)):
        raise IllegalAction("bad_preset", "preset hands: four hands, the dealer's of 14 tiles, others of 13")
    from engine.tiles import check_copies

    try:
        check_copies([k for h in hands for k in h] + rest)
    except TileError as exc:
        raise IllegalAction("bad_preset", str(exc)) from None
    if _uses_wilds(state) and wild is None:
        raise IllegalAction("bad_preset", 'this variant/option set needs a "wild" kind')
    dealer_draw = hands[state.dealer].pop()
    fields = _hand_started(state, hands, dealer_draw, rest, wild if _uses_wilds(state) else None, "", None)
    return event_of("hand_started", fields)


def _uses_wilds(state: MatchState) -> bool:
    return get(state.variant).uses_wilds(state.options)  # G-9: does each hand have a wild kind


def _hand_started(
    state: MatchState,
    hands: list[list[int]],
    dealer_draw: int,
    rest: list[int],
    wild: Optional[int],
    commitment: str,
    seed: Optional[str],
) -> HandStarted:
    return {
        "hand": state.hands_played + 1,
        "dealer": state.dealer,
        "wild": name(wild) if wild is not None else None,
        "commitment": commitment,
        "wall_count": len(rest),
        "hands": [format_hand(h) for h in hands],
        "dealer_draw": name(dealer_draw),
        "wall": list(map(KIND_NAMES.__getitem__, rest)),  # tile names (engine.tiles.name)
        "seed": seed,
    }


def _action_events(state: MatchState, seat: int, act: dict[str, Any]) -> list[dict[str, Any]]:
    action, tile = act["action"], act.get("tile")
    hand = state.in_hand
    if state.phase in (CLAIM, ROB) or (state.phase == "ting" and action == "pass"):
        answer: Responded = {"seat": seat, "response": action, "window": hand.open_window.kind}
        return [event_of("responded", answer)]
    if state.phase == "ting":  # a non-dealer's 报听 at the deal (H-4)
        at_deal: TingDeclared = {"seat": seat}
        return [event_of("ting_declared", at_deal)]
    if action == "discard":
        return [_discarded_event(seat, kind(act["tile"]), face_down=False)]
    if action == "ting":
        declared: TingDeclared = {"seat": seat, "with_discard": tile is not None}
        if tile is None:
            return [event_of("ting_declared", declared)]
        face_down = variant_of(state).face_down_ting
        return [event_of("ting_declared", declared), _discarded_event(seat, kind(tile), face_down=face_down)]
    if action == "hu":
        won: Won = {
            "seat": seat,
            "tile": name(hand.drawn) if hand.drawn is not None else None,
            "by": self_draw_kind(state),
            "from": None,
        }
        return [event_of("won", won)]
    return [_turn_kong(state, seat, kind(act["tile"]))]


def _discarded_event(seat: int, tile: int, *, face_down: bool, auto: bool = False) -> dict[str, Any]:
    fields: Discarded = {"seat": seat, "tile": name(tile), "face_down": face_down, "auto": auto}
    return event_of("discarded", fields)


def _turn_kong(state: MatchState, seat: int, tile: int) -> dict[str, Any]:
    me = state.in_hand.seats[seat]
    if me.counts[tile] == 4:
        concealed: Konged = {"seat": seat, "tile": name(tile), "kind": "concealed", "from": None}
        return event_of("konged", concealed)
    if robbers(state, seat, tile):
        declared: KongDeclared = {"seat": seat, "tile": name(tile)}
        return event_of("kong_declared", declared)  # G-7 rob window
    added: Konged = {"seat": seat, "tile": name(tile), "kind": "added", "from": None}
    return event_of("konged", added)


# ---- automatic consequences ----------------------------------------------------------------------


def _run_automatic(state: MatchState, emit: Callable[[dict[str, Any]], None]) -> None:
    for _ in range(10_000):
        events = _next_automatic(state)
        if not events:
            return
        for event in events:
            emit(event)
    raise RuntimeError("automatic play did not settle")  # pragma: no cover


def _next_automatic(state: MatchState) -> list[dict[str, Any]]:
    if state.phase == SETTLE:
        return _hand_ended_events(state, state.in_hand.won["seat"])
    if state.phase == TURN:
        return _turn_automatic(state)
    if state.phase in (CLAIM, ROB):
        return _window_automatic(state)
    return []


def _turn_automatic(state: MatchState) -> list[dict[str, Any]]:
    hand = state.in_hand
    seat = hand.turn
    if hand.need_draw:
        if hand.wall_count == 0:
            return _hand_ended_events(state, None)  # G-8 荒庄
        source: DrawSource = "kong" if hand.draw_source == "kong_pending" else "wall"
        tile = hand.wall[hand.tail - 1] if source == "kong" else hand.wall[hand.head]
        drew: Drew = {"seat": seat, "tile": name(tile), "source": source}
        return [event_of("drew", drew)]
    me = hand.seats[seat]
    if not me.ready or hand.drawn is None or hand.dealer_ting_then_hu:
        return []
    acts = legal_templates(state, seat)
    if {"action": "hu"} in acts and variant_of(state).must_win():  # K-5 有胡必胡
        won: Won = {"seat": seat, "tile": name(hand.drawn), "by": self_draw_kind(state), "from": None, "auto": True}
        return [event_of("won", won)]
    if len(acts) == 1:  # K-3 / H-4: the locked hand's drawn tile goes automatically
        return [_discarded_event(seat, hand.drawn, face_down=False, auto=True)]
    return []


def _window_automatic(state: MatchState) -> list[dict[str, Any]]:
    window = state.in_hand.open_window
    if variant_of(state).must_win():  # K-5
        for seat in after(window.source):
            if "hu" in window.allowed.get(seat, ()) and seat not in window.responses:
                answer: Responded = {"seat": seat, "response": "hu", "window": window.kind, "auto": True}
                return [event_of("responded", answer)]
    return _resolve_window(state)


def _resolve_window(state: MatchState) -> list[dict[str, Any]]:
    """G-6: a win beats kong/pung, nearest winner first (截胡); pass-all moves play on."""
    hand = state.in_hand
    window = hand.open_window
    if window.tile is None:
        raise ValueError("a claim or rob window without its tile")
    tile = name(window.tile)
    for seat in after(window.source):
        if "hu" in window.allowed.get(seat, ()):
            answer = window.responses.get(seat)
            if answer is None:
                return []
            if answer == "hu":
                by: WinBy = "discard" if window.kind == CLAIM else "rob_kong"
                won: Won = {"seat": seat, "tile": tile, "by": by, "from": window.source}
                return [event_of("won", won)]
    if any(seat not in window.responses for seat in window.allowed):
        return []
    for seat in after(window.source):
        answer = window.responses.get(seat)
        if answer == "pung":
            punged: Punged = {"seat": seat, "tile": tile, "from": window.source}
            return [event_of("punged", punged)]
        if answer == "kong":
            exposed: Konged = {"seat": seat, "tile": tile, "kind": "exposed", "from": window.source}
            return [event_of("konged", exposed)]
    if window.kind == ROB:
        if hand.pending_kong is None:
            raise ValueError("a rob window without its kong")
        konger, kong_tile = hand.pending_kong
        added: Konged = {"seat": konger, "tile": name(kong_tile), "kind": "added", "from": None}
        return [event_of("konged", added)]
    if hand.wall_count == 0:
        return _hand_ended_events(state, None)
    next_seat = (window.source + 1) % 4
    drew: Drew = {"seat": next_seat, "tile": name(hand.wall[hand.head]), "source": "wall"}
    return [event_of("drew", drew)]


def _hand_ended_events(state: MatchState, winner: Optional[int]) -> list[dict[str, Any]]:
    hand = state.in_hand
    rules = variant_of(state)
    if winner is None:
        settlement: dict[str, Any] = {
            "deltas": [0, 0, 0, 0],
            "win_deltas": [0, 0, 0, 0],
            "kong_deltas": [0, 0, 0, 0],
            "score": None,
        }  # K-10 荒庄荒杠, H-11
    else:
        settlement = rules.settle(state)
    scores = [a + b for a, b in zip(state.scores, settlement["deltas"])]
    next_dealer = rules.next_dealer(state, winner)
    moves = state.deal_moves + (1 if next_dealer != hand.dealer else 0)
    over = _match_over(state, moves)
    ended: HandEnded = {
        "hand": hand.number,
        "outcome": "draw" if winner is None else "win",
        "winner": winner,
        "win": _public_win(hand.win),
        "settlement": settlement,
        "scores": scores,
        "revealed": {
            "hands": [format_hand(_concealed(s.counts)) for s in hand.seats],
            "face_down": [[d["tile"] for d in s.discards if d["face_down"]] for s in hand.seats],
        },
        "seed": hand.seed,
        "commitment": hand.commitment,
        "next_dealer": next_dealer,
        "match_over": over,
    }
    if hand.wall_parts is not None:
        ended["wall_parts"] = {"server": hand.wall_parts["server"], "seats": hand.wall_parts["seats"]}
    if not over:
        return [event_of("hand_ended", ended)]
    final: MatchEnded = {"scores": scores, "hands": state.hands_played + 1}
    return [event_of("hand_ended", ended), event_of("match_ended", final)]


def _public_win(win: Optional[dict[str, Any]]) -> Optional[dict[str, Any]]:
    return None if win is None else {**win, "tile": name(win["tile"])}


def _match_over(state: MatchState, deal_moves: int) -> bool:
    """K-14: a number of hands, or rounds (一圈 ends when the deal would return to the first dealer)."""
    if state.options.get("rounds"):
        return bool(deal_moves >= 4 * state.options["rounds"])
    return bool(state.hands_played + 1 >= state.options["hands"])


def _concealed(counts: list[int]) -> list[int]:
    return [k for k, n in enumerate(counts) for _ in range(n)]
