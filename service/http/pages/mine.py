"""What the pages compute for one browser: its seats, its matches list, and 报听 choices."""

from __future__ import annotations

import hashlib
from typing import Any, Optional

import engine
from engine.actions import variant_of
from engine.scoring import Meld, WinContext, score
from engine.tiles import kind, name, points

from ...model import room as rooms
from ...model.errors import ServiceError
from ...infra.repository import Loaded, stream_of

#: the engine events a "last move" line may name (never `responded`: who was asked is not public)
MOVES = frozenset(
    {"hand_started", "discarded", "punged", "konged", "ting_declared", "won", "hand_ended", "match_ended"}
)
LOOK_BACK = 12


def seat_in(loaded: Loaded, token: Optional[str]) -> Optional[int]:
    return rooms.seat_of(loaded.room, token) if token else None


def my_matches(svc: Any, held: dict[str, str]) -> tuple[list[dict], dict[str, int]]:
    """One entry per match this browser holds a valid seat in, your turn first, then by deadline;
    and the stored (global) version of each listed match's stream, read by the same loads, for the
    hub to wait past (never sent to the browser, whose numbering leaves out what its seat may not
    see)."""
    out, versions = [], {}
    for match_id, token in list(held.items())[:200]:
        try:
            loaded = svc.repo.load(match_id)
        except ServiceError:
            continue
        seat = seat_in(loaded, token)
        if seat is not None:
            out.append(_entry(svc, loaded, seat))
            versions[stream_of(match_id)] = loaded.version
    order = {"your_turn": 0, "waiting": 1, "open": 2, "over": 3}
    return sorted(out, key=lambda m: (order[m["state"]], m["deadline"] or "~", m["id"])), versions


def list_tag(entries: list[dict]) -> str:
    """The list's ETag: each match and its version in the browser's seat's numbering (whatever the
    seat may see moves it; nothing hidden from the seat does), in the list's order."""
    digest = hashlib.sha256(repr([(m["id"], m["version"]) for m in entries]).encode()).hexdigest()
    return f'"m{digest[:20]}"'


def _entry(svc: Any, loaded: Loaded, seat: int) -> dict:
    state = loaded.state
    pending = engine.pending_seats(state) if loaded.started and not loaded.over else []
    status = (
        "over" if loaded.over else ("open" if not loaded.started else ("your_turn" if seat in pending else "waiting"))
    )
    deadlines = svc.deadlines_for(loaded, seat)  # its own only ([] without move deadlines)
    mine_ = next((d["deadline"] for d in deadlines if d["seat"] == seat), None)
    hand = getattr(state, "hand", None)
    return {
        "id": loaded.match_id,
        "variant": loaded.room.variant,
        "seat": seat,
        "state": status,
        "seats": loaded.room.public_seats(),
        "version": loaded.version_for(seat),
        "deadline": mine_,
        "hand_no": hand.number if hand is not None else None,
        "hands": (loaded.room.options or {}).get("hands"),
        "rounds": (loaded.room.options or {}).get("rounds"),
        "scores": list(state.scores) if loaded.started else None,
        "last_move": _last_move(svc, loaded, seat),
    }


def _last_move(svc: Any, loaded: Loaded, seat: int) -> Optional[dict]:
    from ...usecases.play import public_event

    stored = svc.repo.read(loaded.match_id, max(0, loaded.version - LOOK_BACK), until=loaded.version)
    for event in reversed(stored):
        if event.type in MOVES:
            item = public_event(event, "all" if loaded.over else seat)
            if item is None:
                continue  # engine.redact: not this seat's to see (another seat's window answer, issue 13)
            return {
                "type": item["type"],
                "seat": item["payload"].get("seat"),
                "tile": item["payload"].get("tile"),
                "at": item["recorded_at"],
            }
    return None


def ting_choices(loaded: Loaded, seat: int) -> list[dict]:
    """For each legal `ting` with a tile: the waits after that discard and each wait's points (K-2, H-4).

    Points are what the scorer gives a self-drawn win on that tile (K-1: a tile's points; 含山: the
    hand's value); `tile_points` is the K-1 value of the tile itself.
    """
    if not loaded.started or loaded.over:
        return []
    state = loaded.state
    tiles = [a["tile"] for a in engine.legal_actions(state, seat) if a["action"] == "ting" and "tile" in a]
    if not tiles:
        return []
    rules, hand = variant_of(state), state.hand
    me = hand.seats[seat]
    sets = 4 - len(me.melds)
    out = []
    for tile in tiles:
        counts = list(me.counts)
        counts[kind(tile)] -= 1
        waits = [
            {"tile": name(k), "points": _value(state, seat, counts, k), "tile_points": points(k)}
            for k in rules.waits(hand, counts, sets)
        ]
        out.append({"discard": tile, "waits": waits})
    return out


def _value(state: Any, seat: int, counts: list[int], win: int) -> Optional[int]:
    hand = state.hand
    me = hand.seats[seat]
    concealed = tuple(k for k, n in enumerate(counts) for _ in range(n)) + (win,)
    ctx = WinContext(
        variant=state.variant,
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
    except Exception:  # noqa: BLE001 - a hypothetical win the scorer refuses shows no points
        return None
    return result.get("value") if result.get("ok") else None
