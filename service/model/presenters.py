"""JSON shapes of a match for the public and for one seat (views come from the engine)."""

from __future__ import annotations

from typing import Any, Optional

import engine

from .match import Loaded


def status(loaded: Loaded) -> str:
    if loaded.over:
        return "over"
    return "playing" if loaded.started else "open"


def summary(loaded: Loaded, table: bool = True) -> dict[str, Any]:
    """Public summary: no hidden tile (the table is engine.view(state, None))."""
    state, started = loaded.state, loaded.started
    out = {
        "id": loaded.match_id,
        "variant": loaded.room.variant,
        "options": loaded.room.options,
        "status": status(loaded),
        "version": loaded.version_for(None),  # the public numbering (service/model/numbering.py)
        "created_at": loaded.room.created_at,
        "seats": loaded.room.public_seats(),
        "phase": engine.public_phase(state, None) if started else None,  # a window shows as "waiting"
        "hand_no": state.hand.number if started and state.hand is not None else None,
        "dealer": getattr(state, "dealer", None) if started else None,
        "scores": _plain(getattr(state, "scores", None)) if started else None,
    }
    if table:
        public = loaded.room.spectating or loaded.over  # the owner may turn spectating off
        out["table"] = engine.view(state, None) if started and public else None
    return out


def private_view(loaded: Loaded, seat: int) -> dict[str, Any]:
    """What one seat sees: the engine's view for that seat, the room and its legal actions."""
    view = engine.view(loaded.state, seat) if loaded.started else None
    return {
        "id": loaded.match_id,
        "version": loaded.version_for(seat),  # the seat's own numbering (service/model/numbering.py)
        "seat": seat,
        "status": status(loaded),
        "seats": loaded.room.public_seats(),
        "view": view,
        "legal_actions": _legal(loaded, seat, view),
        "randomness": wall_randomness(loaded, seat),
    }


def wall_randomness(loaded: Loaded, seat: int) -> dict[str, Any]:
    """What this seat put into the walls (G-11 joint walls: docs/AUDIT.md): the server's published
    commitment and the seat's own part (None: it sent none), taken when it joined."""
    taken = loaded.room.seats[seat]
    return {
        "protocol": "joint" if loaded.room.wall_commitment else "server_seed",
        "commitment": loaded.room.wall_commitment,
        "seat_part": taken.randomness if taken is not None else None,
    }


def _legal(loaded: Loaded, seat: int, view: Optional[dict]) -> list[dict]:
    """The seat's legal actions (the engine's view already carries them; don't compute twice)."""
    if view is None:
        return []
    if isinstance(view.get("legal_actions"), list):
        return view["legal_actions"]
    return engine.legal_actions(loaded.state, seat)


def _plain(value: Optional[Any]) -> Any:
    return list(value) if isinstance(value, tuple) else value
