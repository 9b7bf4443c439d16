"""Chat between a match's seated players, kept as events of its own stream (`chat-<match id>`).

The chat stream is not part of the match's stream, so it never reaches the public feed, the
spectators' stream or a match export. A seated player's token reads them (through
the query module, service/usecases/reads.py, which also waits for a new line) and says one here.
"""

from __future__ import annotations

from typing import Any

from events import ConcurrencyError

from .access import seat_for
from ..infra.repository import MatchRepository
from ..infra.tokens import Tokens
from ..model.catalogue import CHAT_POSTED, new_event
from ..model.errors import Busy

CHAT_PREFIX = "chat-"
CHAT_TYPE = CHAT_POSTED
PAGE = 200  # lines one read hands out


def chat_stream(match_id: str) -> str:
    return CHAT_PREFIX + match_id


class Chat:
    """The chat lines of every match, over the event store."""

    def __init__(self, store: Any, repo: MatchRepository, tokens: Tokens) -> None:
        self.store, self.repo, self.tokens = store, repo, tokens

    def version(self, match_id: str) -> int:
        """The number of lines said in the match's chat (its stream's version)."""
        return int(self.store.current_version(chat_stream(match_id)))

    def lines(self, match_id: str, after: int) -> dict:
        """{version, lines: [{version, seat, text, at}]} of the lines after `after` (at most PAGE)."""
        stream = chat_stream(match_id)
        lines = [
            {"version": e.version, "seat": e.payload["seat"], "text": e.payload["text"], "at": e.recorded_at}
            for e in self.store.read(stream, after=after, limit=PAGE)
        ]
        return {"version": self.version(match_id), "lines": lines}

    def post(self, match_id: str, token: str, text: str) -> tuple[int, dict]:
        """Append one line said by the token's seat; (seat, {version, lines: [the line]}). Busy
        after 20 lost races."""
        seat = seat_for(self.tokens, self.repo.load(match_id), token)
        stream = chat_stream(match_id)
        event = new_event({"type": CHAT_TYPE, "seat": seat, "text": text.strip()})
        for _ in range(20):
            version = self.store.current_version(stream)
            try:
                result = self.store.append(stream, version, [event])
            except ConcurrencyError:
                continue
            line = {
                "version": result.last_version,
                "seat": seat,
                "text": event.payload["text"],
                "at": result.recorded_at,
            }
            return seat, {"version": result.last_version, "lines": [line]}
        raise Busy("busy", "too many simultaneous chat lines, retry", retry_after=1)
