"""Match use cases: create, join, fill with bots, act, run bots, deal hands, event feeds."""
from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass, replace
from typing import Any, NamedTuple, Optional

import engine
from engine.options import normalise
from events import AppendResult, ConcurrencyError

from . import room as rooms
from .problems import ApiError
from .repository import Loaded, MatchRepository

log = logging.getLogger(__name__)
JOIN_ATTEMPTS = 20
DEFAULT_BOT_LEVEL = "normal"  # POST /bots without a level (engine.bot.LEVELS)
ADVANCE_LIMIT = 100_000
PROBE_VERSION = 2**62  # never a real version: an append there only looks up an idempotency key


@dataclass(frozen=True)
class Acted:
    """A seat's accepted action: what the store returned, and its own engine events when just written."""

    result: AppendResult
    events: Optional[list[dict]]


class Written(NamedTuple):
    """An event as this request wrote it (what public_event reads of a stored event)."""

    version: int
    type: str
    payload: dict
    recorded_at: str


class MatchService:
    """The application layer between HTTP views and the engine/event store (no game rules here)."""

    def __init__(self, repo: MatchRepository, bot_delay: float = 0.0) -> None:
        self.repo = repo
        self.bot_delay = bot_delay

    # -- rooms ------------------------------------------------------------------
    def create(self, variant: str, options: Optional[dict]) -> tuple[str, str, Loaded]:
        """A new match (options validated by the engine); returns (id, owner token, match)."""
        normalised = normalise(variant, options)
        match_id, owner_token = rooms.new_match_id(), rooms.new_token()
        event = {"type": rooms.MATCH_CREATED, "variant": variant, "options": normalised,
                 "owner_token_hash": rooms.token_hash(owner_token)}
        self.repo.append(match_id, 0, [event])
        return match_id, owner_token, self.repo.load(match_id)

    def join(self, match_id: str, name: str) -> tuple[int, str, Loaded]:
        """Take the next free seat; returns (seat, seat token, match after bots/deal)."""
        token = rooms.new_token()
        seat = self._take_seat(match_id, name, bot=False, token_hash=rooms.token_hash(token))
        return seat, token, self.advance(match_id)

    def add_bots(self, match_id: str, owner_token: Optional[str], count: Optional[int],
                 level: str = DEFAULT_BOT_LEVEL) -> tuple[list[int], Loaded]:
        """The owner fills `count` (default: every) empty seat with bots of `level` (engine.bot.LEVELS)."""
        loaded = self.repo.load(match_id)
        self.check_owner(loaded, owner_token)
        free = sum(1 for seat in loaded.room.seats if seat is None)
        if free == 0:
            raise ApiError(409, "match_full", "every seat is taken")
        wanted = free if count is None else min(count, free)
        seats = [self._take_seat(match_id, None, bot=True, token_hash=None, level=level) for _ in range(wanted)]
        return seats, self.advance(match_id)

    @staticmethod
    def check_owner(loaded: Loaded, owner_token: Optional[str]) -> None:
        if not owner_token:
            raise ApiError(401, "missing_token", "this needs the owner token as a Bearer token",
                           {"WWW-Authenticate": 'Bearer realm="tilefold"'})
        if not rooms.matches(owner_token, loaded.room.owner_token_hash):
            raise ApiError(403, "not_owner", "the token is not this match's owner token")

    def _take_seat(self, match_id: str, name: Optional[str], *, bot: bool, token_hash: Optional[str],
                   level: Optional[str] = None) -> int:
        """Append seat_joined for the next free seat; a bot is named after its seat (Bot 1 = seat 0)."""
        for _ in range(JOIN_ATTEMPTS):
            loaded = self.repo.load(match_id)
            seat = loaded.room.free_seat()
            if seat is None:
                raise ApiError(409, "match_full", "every seat is taken")
            joined = {"type": rooms.SEAT_JOINED, "seat": seat, "name": name or f"Bot {seat + 1}", "bot": bot,
                      "token_hash": token_hash}
            events = [{**joined, "level": level} if bot else joined]
            if seat == rooms.SEATS - 1:
                events += self._start_events(loaded)
            try:
                self.repo.append_on(loaded, events)
                return seat
            except ConcurrencyError:
                continue
        raise ApiError(503, "busy", "too many simultaneous joins, retry", {"Retry-After": "1"})

    @staticmethod
    def _start_events(loaded: Loaded) -> list[dict]:
        """start_match then the first start_hand (seat 0, the first to join, deals first: K-11)."""
        start = {"action": "start_match", "variant": loaded.room.variant,
                 "options": loaded.room.options, "first_dealer": 0}
        started = engine.decide(loaded.state, start)
        state = engine.fold(started, loaded.state)
        return started + engine.decide(state, _deal_command())

    # -- play -------------------------------------------------------------------
    def act(self, match_id: str, seat: int, command: dict, expected_version: Optional[int],
            idempotency_key: Optional[str] = None, fingerprint: Optional[str] = None,
            loaded: Optional[Loaded] = None) -> Acted:
        """Decide and append one seat's command, then let bots and the dealer move.

        `loaded` is the match as the caller just loaded it (saves a read; a stale one only conflicts).
        """
        key = None if idempotency_key is None else f"match-{match_id}:seat-{seat}:{idempotency_key}"
        try:
            loaded = loaded or self.repo.load(match_id)
            acted = self._decide_and_append(loaded, seat, command, expected_version, key, fingerprint)
        except (ApiError, engine.IllegalAction):
            prior = self._prior_result(match_id, key, fingerprint)
            if prior is None:
                raise
            acted = Acted(prior, None)
        # also on a retry: the first attempt may have died (worker killed) before the bots/deal;
        # after a fresh append, start from the state it cached (no re-read when nothing is due)
        self.advance(match_id, None if acted.result.replayed else self.repo.latest(match_id))
        return acted

    def own_events(self, match_id: str, acted: Acted) -> list:
        """The action's own stored events (version, type, payload, recorded_at): as just written
        after a fresh append, read back for an Idempotency-Key replay."""
        result = acted.result
        if acted.events is None or result.recorded_at is None:
            return self.repo.read(match_id, result.first_version - 1, until=result.last_version)
        return [Written(version, event["type"], {k: v for k, v in event.items() if k != "type"}, result.recorded_at)
                for version, event in enumerate(acted.events, start=result.first_version)]

    def _decide_and_append(self, loaded, seat, command, expected_version, key, fingerprint) -> Acted:
        if not loaded.started:
            raise ApiError(409, "match_not_started", "the match starts when four seats are taken")
        if expected_version is not None and expected_version != loaded.version:
            raise version_conflict(loaded.version)
        events, state = engine.step(loaded.state, {**command, "seat": seat})  # decide, and the state after
        follow, state = self._follow_ups(loaded, events, state, key is not None and fingerprint is None)
        try:
            result = self.repo.append_on(loaded, events + follow, state, key, fingerprint, own=len(events))
        except ConcurrencyError as exc:
            raise version_conflict(exc.current_version) from None
        return Acted(result, None if result.replayed else events)

    def _follow_ups(self, loaded: Loaded, events: list[dict], state: Any, alone: bool) -> tuple[list[dict], Any]:
        """The bot moves after a seat's `events`, appended with them (one transaction).

        `state` is the match after `events`. They stop at the next deal (advance() deals, as on a
        retry after a crash). None with a bot delay (bots then move one by one) or when `alone`
        (the store fingerprints a keyed append without a fingerprint by its events: bot moves
        must not be part of it).
        """
        if self.bot_delay or alone:
            return [], state
        after = replace(loaded, version=loaded.version + len(events), state=state)
        follow, end = self._automatic_events(after, deals=False)
        return follow, (end if follow else state)

    def _prior_result(self, match_id: str, key: Optional[str], fingerprint: Optional[str]) -> Optional[AppendResult]:
        """The first result for a retried Idempotency-Key, or None (nothing is ever written)."""
        if key is None:
            return None
        probe = [{"type": "idempotency_probe"}]
        try:
            return self.repo.append(match_id, PROBE_VERSION, probe, key, fingerprint)
        except ConcurrencyError:
            return None

    def advance(self, match_id: str, start: Optional[Loaded] = None) -> Loaded:
        """Deal new hands and play every bot decision until a human must decide (or the end).

        The decisions are computed in memory and appended in one transaction (one fsync); a
        concurrent append makes the whole batch be recomputed on the new state. With a bot
        delay each bot move is appended on its own, so others see the bots play one by one.
        `start`: the match as this worker just wrote it; when nothing is due there, nothing is
        read (whoever appended anything newer advances from their own append).
        """
        for _ in range(ADVANCE_LIMIT):
            loaded, start = start or self.repo.load(match_id), None
            events, state = self._automatic_events(loaded)
            if not events:
                return loaded
            try:
                self.repo.append_on(loaded, events, state)
            except ConcurrencyError:
                continue
        return self.repo.load(match_id)

    def _automatic_events(self, loaded: Loaded, deals: bool = True) -> tuple[list[dict], Any]:
        """Every deal (unless not `deals`) and bot decision from `loaded` on, and the state after them."""
        events: list[dict] = []
        for _ in range(ADVANCE_LIMIT):
            command = self._automatic_command(loaded)
            if command is None or (not deals and "seat" not in command):
                break
            if self.bot_delay and "seat" in command:
                if events:
                    break
                time.sleep(self.bot_delay)
            try:
                new, state = engine.step(loaded.state, command)
            except engine.IllegalAction as exc:
                log.error("automatic command %r refused in %s: %s", command, loaded.match_id, exc)
                break
            events += new
            loaded = replace(loaded, version=loaded.version + len(new), state=state)
        return events, loaded.state

    @staticmethod
    def _automatic_command(loaded: Loaded) -> Optional[dict]:
        """The next command nobody human has to choose: a deal, or a bot's decision."""
        if not loaded.started or loaded.over:
            return None
        state = loaded.state
        if state.needs_new_hand:
            return _deal_command()
        for seat in engine.pending_seats(state):
            if loaded.room.is_bot(seat):
                return {**engine.bot_action(state, seat, loaded.room.bot_level(seat)), "seat": seat}
        return None

    # -- reading ----------------------------------------------------------------
    def feed(self, loaded: Loaded, viewer: Optional[int], after: int) -> tuple[Loaded, list[dict]]:
        """Events after `after` as `viewer` may see them (everything once the match is over)."""
        match_id = loaded.match_id
        who: Any = "all" if loaded.over else viewer
        items = [public_event(e, who) for e in self.repo.read(match_id, after, until=loaded.version)]
        return loaded, items


def public_event(stored, viewer: Any) -> dict:
    """One stored event as {version, type, payload, recorded_at}, redacted for viewer."""
    if stored.type in rooms.SERVICE_EVENT_TYPES:
        payload = rooms.public_payload(stored.payload)
    else:
        redacted = engine.redact({"type": stored.type, **stored.payload}, viewer)
        payload = {key: value for key, value in redacted.items() if key != "type"}
    return {"version": stored.version, "type": stored.type, "payload": payload,
            "recorded_at": stored.recorded_at}


def version_conflict(current: int) -> ApiError:
    return ApiError(409, "version_conflict", f"the match is at version {current}; reload and retry",
                    {"ETag": f'"v{current}"'}, current_version=current)


def _deal_command() -> dict:
    return {"action": "start_hand", "seed": secrets.token_hex(32)}
