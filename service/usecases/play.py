"""Match use cases: create, join, fill with bots, act, run bots, deal hands, event feeds."""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass, replace
from typing import Any, Callable, NamedTuple, Optional

import engine
from engine.options import normalise
from engine.state import TING
from events import AppendResult, ConcurrencyError, canonical_json

from . import correspondence, match_log, reads, signing, walls
from .access import is_owner, seat_for, seat_in
from .accounts import Accounts
from .reads import renumbered, visible_events
from ..infra import metrics
from ..model import orders, room as rooms
from ..infra.clock import Clock, iso
from ..infra.deadlines import Decisions
from ..infra.notify import Notifier, Webhooks, new_secret
from ..infra.tokens import OWNER, Tokens
from ..model.errors import Busy, Conflict, Forbidden, NotFound, ServiceError, Unauthenticated, VersionConflict
from ..model.presenters import summary
from ..infra.repository import NO_EFFECTS, STREAM_PREFIX, Effects, Loaded, MatchRepository, stream_of

log = logging.getLogger(__name__)
JOIN_ATTEMPTS = 20
DEFAULT_BOT_LEVEL = "normal"  # POST /bots without a level (engine.bot.LEVELS)
ADVANCE_LIMIT = 100_000
PLAY_NOW_SCAN = 500  # the newest matches "play now" looks through for an open table


class PlayNow(NamedTuple):
    """Where "play now" seated a player: the match, the seat, its token (shown once) and, when it
    opened the table, the owner token (else None)."""

    match_id: str
    seat: int
    token: str
    owner_token: Optional[str]


@dataclass(frozen=True)
class Acted:
    """A seat's accepted action: what the store returned, and its own engine events when just written."""

    result: AppendResult
    events: Optional[list[dict]]


@dataclass(frozen=True)
class Answered:
    """A seat's accepted action as its answer: the seat, the body (its fresh view, the events it may
    see), whether it replays an Idempotency-Key's first answer, and the version (the seat's numbering)."""

    seat: int
    body: dict
    replayed: bool
    version: int


class Written(NamedTuple):
    """An event as this request wrote it (what public_event reads of a stored event)."""

    version: int
    type: str
    payload: dict
    recorded_at: str


class MatchService:
    """The one application layer between HTTP views and the engine/event store (no game rules here).

    Every append of a match is written with its `Effects` in the same transaction: the pending
    decisions' deadlines and the webhook notices it causes (correspondence.plan computes them from
    the match before and after the append). Deadlines are settled by `settle` (before a request
    naming the match) and `tick` (every match, `tilefold tick`); notices are delivered by `notifier`.
    """

    def __init__(
        self,
        repo: MatchRepository,
        *,
        decisions: Decisions,
        webhooks: Webhooks,
        notifier: Notifier,
        clock: Clock,
        tokens: Tokens,
        bot_delay: float = 0.0,
        accounts: Optional[Accounts] = None,
        push: Optional[Callable[[], bool]] = None,
    ) -> None:
        self.repo = repo
        self.push_wanted = push  # whether an append plans push notices (service/usecases/push.py)
        self.tokens = tokens
        self.accounts = accounts  # a signed-in player's joins and created matches are the account's
        self.decisions, self.webhooks, self.notifier = decisions, webhooks, notifier
        self.clock = clock
        self.bot_delay = bot_delay

    def now(self) -> str:
        return iso(self.clock.now())

    # -- the match as this worker knows it (the viewer's reads: service/usecases/reads.py) --------
    def load(self, match_id: str) -> Loaded:
        """The match at its latest version (NotFound when there is none)."""
        return self.repo.load(match_id)

    def import_log(self, rows: list[dict], match_id: str, signed: Any, *, check: Any) -> tuple[Any, dict]:
        """Verify a log and store it as the finished match `match_id` (match_log.import_rows): the
        verdict and the new match's public summary (no table)."""
        verdict = match_log.import_rows(self.repo, rows, match_id, signed, check=check)
        return verdict, summary(self.repo.load(match_id), table=False)

    @property
    def keyring(self) -> Any:
        """The server's signing keys (service/infra/keys.py), or None."""
        return self.repo.keyring

    # -- rooms ------------------------------------------------------------------
    def create(
        self,
        variant: str,
        options: Optional[dict],
        deadline_seconds: Optional[int] = None,
        claim_seconds: Optional[int] = None,
        session: Optional[str] = None,
    ) -> tuple[str, str, Loaded]:
        """A new match (options validated by the engine); returns (id, owner token, match).

        `deadline_seconds` (correspondence play: time per decision) and `claim_seconds` (the time to
        answer a claim or rob window, instead of the move deadline) go into its match_created event.
        """
        match_id, owner_token, _ = self._create(variant, options, deadline_seconds, claim_seconds, session)
        return match_id, owner_token, self.repo.load(match_id)

    def create_in_browser(
        self,
        variant: str,
        options: Optional[dict],
        deadline_seconds: Optional[int],
        claim_seconds: Optional[int],
        session: Optional[str],
    ) -> tuple[str, Optional[str]]:
        """`create` from a page: (id, the owner token for the browser's cookie), the token None when
        the signed-in account holds the owner right (the device uses it through its session, so no
        cookie outlives the session: docs/WEB.md, "Accounts")."""
        match_id, owner_token, held = self._create(variant, options, deadline_seconds, claim_seconds, session)
        return match_id, None if held else owner_token

    def _create(
        self,
        variant: str,
        options: Optional[dict],
        deadline_seconds: Optional[int],
        claim_seconds: Optional[int],
        session: Optional[str],
    ) -> tuple[str, str, bool]:
        """(id, owner token, whether the session's account now holds the owner right)."""
        normalised = normalise(variant, options)
        match_id, owner_token = rooms.new_match_id(), rooms.new_token()
        created: rooms.MatchCreated = {
            "variant": variant,
            "options": normalised,
        }
        committed = walls.commitment(self.repo.keyring, match_id)
        if committed is not None:  # joint walls (G-11): published before any seat can join
            created["wall_commitment"] = committed
        if deadline_seconds is not None:
            created["deadline_seconds"] = deadline_seconds
        if claim_seconds is not None:
            created["claim_seconds"] = claim_seconds
        owner = self.tokens.writer(stream_of(match_id), OWNER, owner_token, self.now())
        self.repo.append(match_id, 0, [{"type": rooms.MATCH_CREATED, **created}], effects=Effects(writes=(owner,)))
        return match_id, owner_token, self._keep(session, match_id, OWNER, owner_token, "created")

    def _keep(self, session: Optional[str], match_id: str, seat: int, token: str, how: str) -> bool:
        """With a signed-in browser's session, record the seat (or owner right) as its account's
        (service/usecases/accounts.py); a session that signs nothing in changes nothing. Whether
        the account holds it now."""
        if session and self.accounts is not None and self.accounts.account_of(session) is not None:
            self.accounts.link(session, match_id, seat, token, how)
            return True
        return False

    def join(
        self, match_id: str, name: str, randomness: Optional[str] = None, session: Optional[str] = None
    ) -> tuple[int, str, Loaded]:
        """Take the next free seat; returns (seat, seat token, match after bots/deal). `randomness`
        (64 hex digits) is the seat's part of every hand's wall (G-11 joint walls); `session`: a
        signed-in browser's, whose account then holds the seat."""
        seat, token, _ = self._join(match_id, name, randomness, session)
        return seat, token, self.advance(match_id)

    def join_in_browser(
        self, match_id: str, name: str, randomness: Optional[str], session: Optional[str]
    ) -> tuple[int, Optional[str]]:
        """`join` from a page: (seat, the seat token for the browser's cookie), the token None when
        the signed-in account holds the seat (the device plays it through its session, so no cookie
        outlives the session: signing out everywhere ends it on a lost device too)."""
        seat, token, held = self._join(match_id, name, randomness, session)
        self.advance(match_id)
        return seat, None if held else token

    def _join(
        self, match_id: str, name: str, randomness: Optional[str], session: Optional[str]
    ) -> tuple[int, str, bool]:
        token = rooms.new_token()
        seat = self._take_seat(match_id, name, bot=False, token=token, randomness=randomness)
        return seat, token, self._keep(session, match_id, seat, token, "joined")

    def play_now(
        self, variant: str, options: Optional[dict], name: str, session: Optional[str], randomness: Optional[str] = None
    ) -> tuple["PlayNow", Loaded]:
        """Seat the signed-in player (a session, or an API token) at the oldest open table of this
        rule set and these options (not yet started, a seat free, no move deadline, none of the
        account's seats there), else open one (its owner: that account) and seat them there. Safe
        against a race for the last seat: a table filled meanwhile (`match_full`) is passed over
        for the next one, or a new table."""
        if self.accounts is None or (account := self.accounts.account_of(session)) is None:
            raise Unauthenticated("not_signed_in", "sign in first: play now seats an account")
        normalised = normalise(variant, options)
        seated = {match_id for match_id, seat in account.links if seat != OWNER}
        for match_id in reversed(self.repo.match_ids_newest_first(None, PLAY_NOW_SCAN)):
            if match_id in seated:
                continue
            try:
                found = self.repo.load(match_id)
            except NotFound:
                continue
            room = found.room
            if found.started or room.full or room.timed or room.variant != variant or room.options != normalised:
                continue
            try:
                seat, token, loaded = self.join(match_id, name, randomness, session=session)
            except Conflict:  # filled (or ended) meanwhile: the next table
                continue
            return PlayNow(match_id, seat, token, None), loaded
        match_id, owner_token, _ = self.create(variant, normalised, session=session)
        seat, token, loaded = self.join(match_id, name, randomness, session=session)
        return PlayNow(match_id, seat, token, owner_token), loaded

    def keep_seat(self, match_id: str, token: str, session: Optional[str]) -> tuple[Optional[int], bool]:
        """The seat a play link's token holds (None: none), recorded as the signed-in account's, and
        whether that account holds it now (then the browser keeps no cookie of it)."""
        seat = seat_in(self.tokens, self.repo.load(match_id), token)
        if seat is None:
            return None, False
        return seat, self._keep(session, match_id, seat, token, "claimed")

    def add_bots(
        self,
        match_id: str,
        owner_token: Optional[str],
        count: Optional[int],
        level: str = DEFAULT_BOT_LEVEL,
        levels: Optional[list[str]] = None,
    ) -> tuple[list[int], Loaded]:
        """The owner fills `count` (default: every) empty seat with bots of `level` (engine.bot.LEVELS),
        or with `levels`, one per bot in the order the empty seats are taken (lowest first)."""
        loaded = self.repo.load(match_id)
        self.check_owner(loaded, owner_token)
        refuse_if_over(loaded)
        free = sum(1 for seat in loaded.room.seats if seat is None)
        if free == 0:
            raise Conflict("match_full", "every seat is taken")
        wanted = free if count is None else min(count, free)
        seats: list[int] = []
        for n in range(wanted):
            try:
                chosen = levels[n] if levels is not None and n < len(levels) else level
                seats.append(self._take_seat(match_id, None, bot=True, level=chosen))
            except Conflict:
                if not seats:
                    raise
                break  # joins took the remaining seats meanwhile: answer with the bots seated
        return seats, self.advance(match_id)

    def check_owner(self, loaded: Loaded, owner_token: Optional[str]) -> None:
        if not owner_token:
            raise Unauthenticated("missing_token", "this needs the owner token as a Bearer token")
        if not is_owner(self.tokens, loaded, owner_token):
            raise Forbidden("not_owner", "the token is not this match's owner token")

    def _take_seat(
        self,
        match_id: str,
        name: Optional[str],
        *,
        bot: bool,
        token: Optional[str] = None,
        level: Optional[str] = None,
        randomness: Optional[str] = None,
    ) -> int:
        """Append seat_joined for the next free seat, with its `token`'s verifier (a human seat); a
        bot is named after its seat (Bot 1 = seat 0)."""
        for _ in range(JOIN_ATTEMPTS):
            loaded = self.repo.load(match_id)
            refuse_if_over(loaded)
            seat = loaded.room.free_seat()
            if seat is None:
                raise Conflict("match_full", "every seat is taken")
            joined: rooms.SeatJoined = {
                "seat": seat,
                "name": name or f"Bot {seat + 1}",
                "bot": bot,
            }
            if randomness is not None and not bot:
                joined["randomness"] = randomness
            if bot:
                joined["level"] = level
            events: list[dict] = [{"type": rooms.SEAT_JOINED, **joined}]
            state = loaded.state
            if seat == rooms.SEATS - 1:
                parts = loaded.room.seat_parts()
                parts[seat] = randomness if not bot else None
                started, state = self._start_events(loaded, parts)
                events += started
            held = () if token is None else (self.tokens.writer(stream_of(match_id), seat, token, self.now()),)
            try:
                self._append(loaded, events, state, effects=Effects(writes=held))
                return seat
            except ConcurrencyError:
                continue
        raise Busy("busy", "too many simultaneous joins, retry", retry_after=1)

    def _start_events(self, loaded: Loaded, seat_parts: list[Optional[str]]) -> tuple[list[dict], Any]:
        """start_match then the first start_hand (seat 0, the first to join, deals first: K-11), and
        the state after them."""
        start: dict[str, Any] = {
            "action": "start_match",
            "variant": loaded.room.variant,
            "options": loaded.room.options,
            "first_dealer": 0,
        }
        if loaded.room.wall_commitment is not None:
            start["wall_commitment"] = loaded.room.wall_commitment
        started, state = engine.step(loaded.state, start)
        dealt, state = engine.step(state, self._deal_command(loaded, state, seat_parts))
        return started + dealt, state

    def _deal_command(self, loaded: Loaded, state: Any, seat_parts: list[Optional[str]]) -> dict:
        """The next hand's deal: the server's committed part and every seat's (G-11 joint walls)."""
        committed = loaded.room.wall_commitment
        return _deal_command(self.repo.keyring, loaded.match_id, committed, state.hands_played + 1, seat_parts)

    # -- settings of a match (correspondence play) ----------------------------------
    def set_orders(self, match_id: str, token: str, auto_pass: bool, auto_discard: bool) -> dict:
        """Replace the token's seat's standing orders (an `orders_set` event); they apply at once.
        The seat's orders as they now stand."""
        seat = seat_for(self.tokens, self.repo.load(match_id), token)
        orders: rooms.OrdersSet = {"seat": seat, "auto_pass": auto_pass, "auto_discard": auto_discard}
        return reads.orders_of(self._append_service_event(match_id, {"type": rooms.ORDERS_SET, **orders}), seat)

    def set_spectating(self, match_id: str, owner_token: Optional[str], enabled: bool) -> Loaded:
        """The owner turns the public view, feed and stream on or off (a `spectating_set` event)."""
        self.check_owner(self.repo.load(match_id), owner_token)
        spectating: rooms.SpectatingSet = {"enabled": enabled}
        return self._append_service_event(match_id, {"type": rooms.SPECTATING_SET, **spectating})

    def reissue_seat(self, match_id: str, owner_token: Optional[str], seat: int) -> tuple[str, Loaded]:
        """The owner's new token for a human seat (a `seat_reissued` event; its verifier replaces the
        old one in the same transaction), returned: the seat's old token stops working."""
        loaded = self.repo.load(match_id)
        self.check_owner(loaded, owner_token)
        if not 0 <= seat < rooms.SEATS or loaded.room.seats[seat] is None:
            raise NotFound("no_such_seat", "nobody sits in that seat yet: share the invite link instead")
        if loaded.room.is_bot(seat):
            raise Conflict("bot_seat", "a bot plays that seat")
        token = rooms.new_token()
        held = self.tokens.writer(stream_of(match_id), seat, token, self.now())
        reissued: rooms.SeatReissued = {"seat": seat}
        event = {"type": rooms.SEAT_REISSUED, **reissued}
        return token, self._append_service_event(match_id, event, Effects(writes=(held,)))

    def set_webhook(self, match_id: str, token: str, url: Optional[str]) -> tuple[int, Optional[str], Loaded]:
        """Register (url given: a new signing secret, returned) or remove the token's seat's webhook."""
        seat = seat_for(self.tokens, self.repo.load(match_id), token)
        secret = new_secret() if url is not None else None
        row = self.webhooks.writer(stream_of(match_id), seat, url, secret, self.now())
        registered: rooms.WebhookSet = {"seat": seat, "registered": url is not None}
        loaded = self._append_service_event(match_id, {"type": rooms.WEBHOOK_SET, **registered}, Effects(writes=(row,)))
        if url is not None:
            self.notifier.ensure_worker()
        return seat, secret, loaded

    def _append_service_event(self, match_id: str, event: dict, effects: Effects = NO_EFFECTS) -> Loaded:
        """Append one service event at the latest version (retrying on conflicts), then advance."""
        for _ in range(JOIN_ATTEMPTS):
            loaded = self.repo.load(match_id)
            if loaded.over:
                raise Conflict("match_over", "the match is over")
            try:
                self._append(loaded, [event], loaded.state, effects=effects)
                return self.advance(match_id)
            except ConcurrencyError:
                continue
        raise Busy("busy", "too many simultaneous changes, retry", retry_after=1)

    # -- appending --------------------------------------------------------------
    def _append(
        self,
        loaded: Loaded,
        events: list[dict],
        state: Any,
        key: Optional[str] = None,
        fingerprint: Optional[str] = None,
        own: Optional[int] = None,
        effects: Effects = NO_EFFECTS,
    ) -> AppendResult:
        """Append `events` on `loaded` (`state`: the engine state after them) with what they cause
        in the same transaction: the pending decisions' deadlines and the webhook notices."""
        effects = effects + self._consequences(loaded, events, state)
        result = self.repo.append_on(loaded, events, state, key, fingerprint, own, effects)
        if effects.notices and not result.replayed:
            self.notifier.wake()
        if not result.replayed:
            types = [e["type"] for e in events]
            head = loaded.version + len(events)  # the result may cover only the first `own` rows
            signing.sign_if_ended(self.repo, loaded.match_id, types, head, None, self.now())
        return result

    def _consequences(self, loaded: Loaded, events: list[dict], state: Any) -> Effects:
        """correspondence.plan for this append (never fails an action over a notice)."""
        try:
            return correspondence.plan(loaded, events, state, self.now(), self._push_wanted())
        except Exception:  # noqa: BLE001 - logged; the action itself stands
            log.exception("planning deadlines/notices for %s failed", loaded.match_id)
            return NO_EFFECTS

    def _push_wanted(self) -> bool:
        """Whether this append plans push notices (a failure to tell plans none, and never costs the
        append its deadlines)."""
        try:
            return self.push_wanted is not None and self.push_wanted()
        except Exception:  # noqa: BLE001 - logged; the action and its deadlines stand
            log.exception("reading the push subscriptions failed")
            return False

    # -- play -------------------------------------------------------------------
    def act(
        self,
        match_id: str,
        seat: int,
        command: dict,
        expected_version: Optional[int],
        idempotency_key: Optional[str] = None,
        fingerprint: Optional[str] = None,
        loaded: Optional[Loaded] = None,
    ) -> Acted:
        """Decide and append one seat's command, then let bots and the dealer move.

        `loaded` is the match as the caller just loaded it (saves a read; a stale one only conflicts).
        `fingerprint` tells a retry of the same request under `idempotency_key` from another one
        (by default the seat, command and expected version).
        """
        key = None if idempotency_key is None else f"match-{match_id}:seat-{seat}:{idempotency_key}"
        if key is not None and fingerprint is None:
            fingerprint = command_fingerprint(seat, {**command, "expected_version": expected_version})
        if self.settle(match_id):  # a write settles what is overdue first (reads never do: the ticker)
            loaded = None
        try:
            loaded = loaded or self.repo.load(match_id)
            acted = self._decide_and_append(loaded, seat, command, expected_version, key, fingerprint)
        except (ServiceError, engine.IllegalAction):
            prior = None if key is None else self.repo.prior_result(match_id, key, fingerprint)
            if prior is None:
                raise
            acted = Acted(prior, None)
        # also on a retry: the first attempt may have died (worker killed) before the bots/deal;
        # after a fresh append, start from the state it cached (no re-read when nothing is due)
        self.advance(match_id, None if acted.result.replayed else self.repo.latest(match_id))
        return acted

    def act_as(
        self,
        match_id: str,
        token: str,
        command: dict,
        expected_version: Optional[int],
        idempotency_key: Optional[str] = None,
    ) -> Answered:
        """The token's seat acts (`act`); the answer carries the seat's fresh view and the events it
        may see, numbered in its own numbering (service/usecases/reads.py), so the next action needs
        no read."""
        loaded = self.repo.load(match_id)
        seat = seat_for(self.tokens, loaded, token)
        acted = self.act(match_id, seat, command, expected_version, idempotency_key, None, loaded)
        result, stored = acted.result, self.own_events(match_id, acted)
        fresh = self.repo.latest(match_id)  # cached by the appends: no re-read, no re-fold
        # versions in the seat's numbering (service/model/numbering.py); hidden events only grow at the
        # end, so an Idempotency-Key replay maps the stored result to the same numbers
        first, last = fresh.numbering.range(result.first_version, result.last_version, seat)
        # as the feed shows them: everything once the match is over
        events = renumbered(visible_events(stored, reads.shown_to(fresh, seat)), fresh.numbering, seat)
        body = {
            "accepted": True,
            "first_version": first,
            "version": last,
            "events": events,
            "view": reads.seat_view(self.decisions, fresh, seat),  # as GET view shows it
        }
        return Answered(seat, body, result.replayed, fresh.version_for(seat))

    def own_events(self, match_id: str, acted: Acted) -> list:
        """The action's own stored events (version, type, payload, recorded_at): as just written
        after a fresh append, read back for an Idempotency-Key replay."""
        result = acted.result
        if acted.events is None or result.recorded_at is None:
            return self.repo.read(match_id, result.first_version - 1, until=result.last_version)
        return [
            Written(version, event["type"], {k: v for k, v in event.items() if k != "type"}, result.recorded_at)
            for version, event in enumerate(acted.events, start=result.first_version)
        ]

    def _decide_and_append(self, loaded, seat, command, expected_version, key, fingerprint) -> Acted:
        """`expected_version` is in the seat's own numbering (service/model/numbering.py): an event hidden
        from the seat (another seat's answer in an open window) never makes it stale, and an append
        racing this one that the seat may not see is not a conflict either: decided again on top of it."""
        for _ in range(JOIN_ATTEMPTS):
            if not loaded.started:
                raise Conflict("match_not_started", "the match starts when four seats are taken")
            refuse_if_over(loaded)
            seen = loaded.version_for(seat)
            if expected_version is not None and expected_version != seen:
                raise version_conflict(seen)
            events, state = engine.step(loaded.state, {**command, "seat": seat})  # decide, and the state after
            events = window_marked(loaded.state, events, state)
            follow, state = self._follow_ups(loaded, events, state)
            try:
                result = self._append(loaded, events + follow, state, key, fingerprint, own=len(events))
            except ConcurrencyError:
                loaded = self.repo.load(loaded.match_id)
                if loaded.version_for(seat) != seen:
                    raise version_conflict(loaded.version_for(seat)) from None
                continue  # only what the seat may not see was appended meanwhile: not a conflict
            return Acted(result, None if result.replayed else events)
        raise Busy("busy", "too many simultaneous changes, retry", retry_after=1)

    def _follow_ups(self, loaded: Loaded, events: list[dict], state: Any) -> tuple[list[dict], Any]:
        """The bot moves after a seat's `events`, appended with them (one transaction).

        `state` is the match after `events`. They stop at the next deal (advance() deals, as on a
        retry after a crash). None with a bot delay (bots then move one by one).
        """
        if self.bot_delay:
            return [], state
        after = replace(loaded, version=loaded.version + len(events), state=state)
        follow, end = self._automatic_events(after, deals=False)
        return follow, (end if follow else state)

    def advance(self, match_id: str, start: Optional[Loaded] = None) -> Loaded:
        """Deal new hands and play every automatic decision (bots, standing orders, overdue
        deadlines) until a human must decide (or the end).

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
                self._append(loaded, events, state)
            except ConcurrencyError:
                continue
        return self.repo.load(match_id)

    def heal(self, match_id: str) -> None:
        """Advance a match whose deal or bot moves were never written (a worker killed between its
        two appends), and sign a finished match's ends and head that no signature covers (killed
        between its last append and the signature): the ticker's part, never a read's.
        Costs a cached load and a look at the state when nothing is due."""
        loaded = self.repo.load(match_id)
        if loaded.over:
            if self.repo.keyring is not None and match_log.import_record(self.repo, match_id) is None:
                signing.sign_unsigned(self.repo, match_id, self.now())
            return
        if not loaded.started:
            return
        state = loaded.state
        bots = any(loaded.room.is_bot(seat) for seat in engine.pending_seats(state))
        due = state.needs_new_hand or orders.automatic(loaded, []) is not None
        if due or (bots and not self.bot_delay):  # a bot delay would sleep inside a read
            self.advance(match_id, loaded)

    def _automatic_events(self, loaded: Loaded, deals: bool = True) -> tuple[list[dict], Any]:
        """Every deal (unless not `deals`) and automatic decision from `loaded` on, and the state after them."""
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
            new = window_marked(loaded.state, new, state)
            events += new
            loaded = replace(loaded, version=loaded.version + len(new), state=state)
        return events, loaded.state

    def _automatic_command(self, loaded: Loaded) -> Optional[dict]:
        """The next command nobody human has to choose: a deal, a bot's decision, then a standing
        order or an overdue decision's default (orders.automatic)."""
        if not loaded.started or loaded.over:
            return None
        state = loaded.state
        if state.needs_new_hand:
            return self._deal_command(loaded, state, loaded.room.seat_parts())
        for seat in engine.pending_seats(state):
            if loaded.room.is_bot(seat):
                return {**engine.bot_action(state, seat, loaded.room.bot_level(seat)), "seat": seat}
        overdue: list[int] = []
        if loaded.room.timed:
            overdue = self.decisions.overdue(stream_of(loaded.match_id), loaded.version, self.now())
        return orders.automatic(loaded, overdue)

    # -- deadlines (correspondence play) ----------------------------------------------
    def settle(self, match_id: str) -> bool:
        """Take every overdue decision of the match (then bots and deals go on); True if any was due."""
        cached = self.repo.cache.get(match_id)
        if cached is not None and not cached.room.timed:
            return False  # fixed at creation: a match without move deadlines never has any due
        if not self.decisions.any_overdue(stream_of(match_id), self.now()):
            return False
        self.advance(match_id)
        metrics.DEADLINES_SETTLED.inc()
        return True

    def keep_snapshots(self) -> int:
        """Write the snapshots this worker's cold loads folded without one (the ticker's part: a
        load never writes) and the rolling snapshots of the matches it appended to; how many."""
        return self.repo.keep_folded()

    def tick(self) -> dict:
        """Settle every overdue decision of every match, then deliver the due notices."""
        settled = 0
        for stream in self.decisions.due_streams(self.now()):
            try:
                settled += self.settle(stream[len(STREAM_PREFIX) :])
            except Exception:  # noqa: BLE001 - one broken match must not stop the others
                log.exception("settling %s failed", stream)
        delivered = 0
        while True:
            attempted = self.notifier.deliver_due()
            delivered += attempted
            if attempted == 0:
                break
        return {"matches_settled": settled, "notices_attempted": delivered}


def window_marked(before: Any, new: list[dict], after: Any) -> list[dict]:
    """`new` (engine events taking the match from `before` to `after`) and, when they close the H-4
    报听 window at the deal, a `window_closed` service event after them. The answers in that window
    are hidden from everyone but the seat answering (engine.hidden_from) and no engine event
    follows the last one, so without it nobody else's version would move (service/model/numbering.py)
    and the dealer's long-poll or stream would never learn that it may discard."""
    if before.phase == TING and after.phase != TING:
        closed: rooms.WindowClosed = {"window": "ting"}  # engine.state.TING
        return new + [{"type": rooms.WINDOW_CLOSED, **closed}]
    return new


def command_fingerprint(seat: int, body: dict) -> str:
    """SHA-256 of the canonical JSON of a seat's request (seat included: keys are per seat)."""
    return hashlib.sha256(canonical_json({"seat": seat, "body": body}).encode("utf-8")).hexdigest()


def refuse_if_over(loaded: Loaded) -> None:
    """A finished match (an imported one included) is read-only: 409 match_over."""
    if loaded.over:
        raise Conflict("match_over", "the match is over: it is read-only")


def version_conflict(current: int) -> VersionConflict:
    """The conflict naming the match's version in the acting seat's numbering (`current`)."""
    return VersionConflict(current)


def _deal_command(
    keyring: Any, match_id: str, committed: Optional[str], hand: int, seat_parts: list[Optional[str]]
) -> dict:
    """The deal command (a module function: tests put fixed deals here)."""
    return walls.deal_command(keyring, match_id, committed, hand, seat_parts)
