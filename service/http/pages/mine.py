"""What the pages compute for one browser: its seats, its matches list, and 报听 choices."""

from __future__ import annotations

import hashlib
from typing import Any, Optional

import engine

from ...usecases import reads
from ...model.errors import ServiceError
from ...model.match import Loaded, stream_of


def seat_in(svc: Any, loaded: Loaded, token: Optional[str]) -> Optional[int]:
    return svc.seat_of(loaded, token) if token else None


def my_matches(svc: Any, held: dict[str, str]) -> tuple[list[dict], dict[str, int]]:
    """One entry per match this browser holds a valid seat in, your turn first, then by deadline;
    and the stored (global) version of each listed match's stream, read by the same loads, for the
    hub to wait past (never sent to the browser, whose numbering leaves out what its seat may not
    see)."""
    out, versions = [], {}
    for match_id, token in list(held.items())[:200]:
        try:
            loaded = svc.load(match_id)
        except ServiceError:
            continue
        seat = seat_in(svc, loaded, token)
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
    return svc.last_move(loaded, seat)


def ting_choices(loaded: Loaded, seat: int) -> list[dict]:
    """For each legal `ting` with a tile: the waits after that discard and each wait's points (K-2, H-4)."""
    return reads.ting_choices(loaded, seat)
