"""What a golden match log (tests/service/golden/) must keep giving: the digests of its fold and replay."""

from __future__ import annotations

import hashlib
import json
from types import SimpleNamespace

import engine
from engine.audit import ENGINE_EVENT_TYPES
from replay_viewer.frames import build_frames
from service.usecases.match_log import service_types


def _digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def digests(rows: list[dict]) -> dict[str, str]:
    """{"fold": the folded match's scores, hands, phase and last settlement; "frames_all", "frames_seat0":
    the replay viewer's frames for everyone and for seat 0, without seat 0's review (advice, not the log)} as SHA-256 of canonical JSON."""
    events = [{"type": r["type"], **r["payload"]} for r in rows if r["type"] in ENGINE_EVENT_TYPES]
    state = engine.fold(events)
    stored = [SimpleNamespace(type=r["type"], payload=r["payload"], version=r["version"]) for r in rows]
    seat0 = build_frames(stored, 0, service_types())
    seat0.pop("review", None)  # the analyser's advice on the seat's decisions: it improves, the log does not
    return {
        "fold": _digest([state.scores, state.hands_played, state.phase, state.rules_version, state.last_result]),
        "frames_all": _digest(build_frames(stored, None, service_types())),
        "frames_seat0": _digest(seat0),
    }
