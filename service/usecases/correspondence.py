"""Correspondence play's part of an append: deadlines, notices; and who may spectate.

`plan(before, events, state_after, now)` is what an append of a match writes besides its events
(MatchService._append passes it to the repository, one transaction): the rows of the decisions
pending after it (when the match has move deadlines), the webhook notices it causes (for the
seats with a webhook) and, when some account has a push subscription (`push`), the push notices of
its human seats (service/usecases/push.py: delivered only to a seat an account holds). Overdue
decisions are settled by the ticker (service/usecases/ticker.py),
never by a request that reads.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Optional

from engine.state import CLAIM, ROB

from ..model import room as rooms
from ..infra.clock import later
from ..infra.deadlines import Decisions, new_decisions
from ..infra.notify import notices, push_notices
from ..model.errors import Forbidden
from ..infra.repository import NO_EFFECTS, Effects, Loaded, room_after, stream_of

log = logging.getLogger(__name__)


def plan(before: Loaded, events: list[dict], state_after: Any, now: str, push: bool = False) -> Effects:
    """The deadline rows and notices of appending `events` on `before` (`state_after`: the engine state after them)."""
    room = room_after(before.room, events)
    hooked = [seat for seat in range(rooms.SEATS) if room.webhooks[seat]]
    humans = [seat for seat, taken in enumerate(room.seats) if taken is not None and not taken.bot] if push else []
    if not room.timed and not hooked and not humans:
        return NO_EFFECTS
    fresh = [event for event in events if event["type"] not in rooms.SERVICE_EVENT_TYPES]
    pending, new = new_decisions(before.state, state_after, fresh)
    version = before.version + len(events)
    writes: tuple[Callable[[Any], None], ...] = ()
    window = getattr(state_after, "phase", None) in (CLAIM, ROB)  # the pending seats answer a claim or rob window
    seconds = {seat: room.seconds_for(window) for seat in pending}
    if room.timed:
        writes = (Decisions.writer(stream_of(before.match_id), pending, new, now, seconds, version),)
    due = {seat: _due(now, seconds[seat]) for seat in new}
    # each seat's notices carry the version in its own numbering (service/model/numbering.py)
    numbering = before.numbering.extended(
        (number, event["type"], event) for number, event in enumerate(events, start=before.version + 1)
    )
    versions = {seat: numbering.local(version, seat) for seat in hooked}
    found = notices(before.match_id, versions, hooked, fresh, state_after, new, due)
    found += push_notices(before.match_id, version, humans, fresh, new)
    return Effects(tuple(found), writes)


def _due(now: str, limit: Optional[int]) -> Optional[str]:
    return later(now, limit) if limit else None


# -- reads ----------------------------------------------------------------------------
def require_spectating(loaded: Loaded) -> None:
    """403 spectating_disabled when the owner turned spectating off (until the match is over)."""
    if not loaded.room.spectating and not loaded.over:
        raise Forbidden("spectating_disabled", "the owner has turned spectating off for this match")
