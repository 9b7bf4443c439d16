"""Correspondence play's part of an append: deadlines, notices; and who may spectate.

`plan(before, events, state_after, now)` is what an append of a match writes besides its events
(MatchService._append passes it to the repository, one transaction): the rows of the decisions
pending after it (when the match has move deadlines) and the webhook notices it causes (for the
seats with a webhook). Overdue decisions are settled by the ticker (service/usecases/ticker.py),
never by a request that reads.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

from ..model import room as rooms
from ..infra.clock import later
from ..infra.deadlines import Decisions, new_decisions
from ..infra.notify import notices
from ..model.errors import Forbidden
from ..infra.repository import NO_EFFECTS, Effects, Loaded, room_after, stream_of

log = logging.getLogger(__name__)


def plan(before: Loaded, events: list[dict], state_after: Any, now: str) -> Effects:
    """The deadline rows and notices of appending `events` on `before` (`state_after`: the engine state after them)."""
    room = room_after(before.room, events)
    hooked = [seat for seat in range(rooms.SEATS) if room.webhooks[seat]]
    if not room.deadline_seconds and not hooked:
        return NO_EFFECTS
    fresh = [event for event in events if event["type"] not in rooms.SERVICE_EVENT_TYPES]
    pending, new = new_decisions(before.state, state_after, fresh)
    version = before.version + len(events)
    writes: tuple[Callable[[Any], None], ...] = ()
    if room.deadline_seconds:
        writes = (Decisions.writer(stream_of(before.match_id), pending, new, now, room.deadline_seconds, version),)
    due = {seat: later(now, room.deadline_seconds) if room.deadline_seconds else None for seat in new}
    # each seat's notices carry the version in its own numbering (service/model/numbering.py)
    numbering = before.numbering.extended(
        (number, event["type"], event) for number, event in enumerate(events, start=before.version + 1)
    )
    versions = {seat: numbering.local(version, seat) for seat in hooked}
    return Effects(tuple(notices(before.match_id, versions, hooked, fresh, state_after, new, due)), writes)


# -- reads ----------------------------------------------------------------------------
def require_spectating(loaded: Loaded) -> None:
    """403 spectating_disabled when the owner turned spectating off (until the match is over)."""
    if not loaded.room.spectating and not loaded.over:
        raise Forbidden("spectating_disabled", "the owner has turned spectating off for this match")
