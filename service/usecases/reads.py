"""One door for what a viewer reads: every answer in that viewer's own numbering and redaction.

`Reads` is the query side of the service: each read a route or page makes (the view and its
long-poll, the feed, the SSE stream, the spectators' view and feed, a match's summary and the match
list, My matches, the chat, the 报听 helper, a seat's standing orders, the replay frames, the
export, and the ratings: a leaderboard, a player's page, a match's rating changes) is one method
of it, which takes the viewer's credential, resolves the viewer and answers in its terms. A viewer
is a seat (0-3), None (the public: spectators, summaries, the match list) or "all" (the full
record, once a match is over). Whatever a read hands out is counted in the viewer's
numbering (service/model/numbering.py), never the store's global one, so nothing hidden from the
viewer can move it; and every row comes through the repository's `read`, which checks the rows it
hands out against the hash chain (service/infra/repository.py).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Optional, Protocol

import engine
from engine.bot_strong import Budget

from . import match_log, replay
from .access import is_owner, seat_for, seat_in
from .accounts import Accounts
from .chat import Chat, chat_stream
from .correspondence import require_spectating
from .ratings import Ratings
from ..infra.deadlines import Decisions
from ..infra.repository import Loaded, MatchRepository
from ..infra.sized_cache import SizedCache
from ..infra.tokens import Tokens
from ..infra.waiters import DISCONNECT_CHECK, SharedAnswers, WaiterHub, WaitLimits
from ..model import room as rooms
from ..model.errors import Invalid, ServiceError, Unauthenticated
from ..model.match import stream_of
from ..model.numbering import Numbering, hidden_from
from ..model.orders import STANDING_ORDER
from ..model.presenters import private_view, status, summary

#: the engine events a "last move" line may name (never `responded`: who was asked is not public)
MOVES = frozenset(
    {"hand_started", "discarded", "punged", "konged", "ting_declared", "won", "hand_ended", "match_ended"}
)
LOOK_BACK = 12  # events of the viewer's own numbering a "last move" looks back over
SPECTATOR = "spectator"  # the stream's public viewer: always redacted as the public, even once over
MINE_LIMIT = 200  # matches one browser's list looks at


@dataclass(frozen=True)
class Client:
    """Who is waiting, as the waiting caps count it: its address, and whether it has left (its
    connection closed; looked at every second while a wait hears nothing)."""

    address: Optional[str]
    gone: Callable[[], bool] = lambda: False


class Framing(Protocol):
    """How a stream's messages are written on the wire (service/http/stream.py: Server-Sent Events)."""

    def start(self) -> str: ...
    def events(self, items: list[dict]) -> str: ...
    def heartbeat(self) -> str: ...
    def forbidden(self) -> str: ...
    def end(self, version: int) -> str: ...
    def reconnect(self) -> str: ...


@dataclass
class SeatView:
    """A seat's view at `version` (its own numbering). `body()` makes it; `text(dumps)` is the body
    as JSON, made once for every long-poll of that seat woken by the same version."""

    seat: int
    version: int
    body: Callable[[], dict]
    shared_key: Optional[tuple]
    shared: SharedAnswers

    def text(self, dumps: Callable[[Any], str]) -> Optional[str]:
        """The shared JSON of a woken long-poll (None: not woken, answer `body()`)."""
        if self.shared_key is None:
            return None
        return self.shared.get_or_make(self.shared_key, lambda: dumps(self.body()))


@dataclass
class Following:
    """An open stream: its seat (None: the public), its messages, and `close()` to free its waiting
    slot (also when the messages are never read)."""

    seat: Optional[int]
    messages: Iterator[str]
    close: Callable[[], None]


@dataclass
class Mine:
    """One browser's matches (My matches) and the list's tag (its ETag)."""

    matches: list[dict]
    tag: str


@dataclass
class Frames:
    """Replay frames: gzipped JSON, and whether the match is over (a finished match's never change)."""

    gzipped: bytes
    over: bool


# -- the viewer -----------------------------------------------------------------------
def shown_to(loaded: Loaded, viewer: Any) -> Any:
    """Whose redaction a viewer's reads use: its own in play, the full record once the match is over."""
    return "all" if loaded.over else viewer


def deadlines_for(decisions: Decisions, loaded: Loaded, viewer: Optional[int] = None) -> list[dict]:
    """The pending decisions' starts and deadlines `viewer` may know of (in a window only its own:
    engine.public_pending; [] without move deadlines or a claim timer)."""
    if not loaded.room.timed or not loaded.started or loaded.over:
        return []
    return decisions.for_view(stream_of(loaded.match_id), engine.public_pending(loaded.state, viewer))


def seat_view(decisions: Decisions, loaded: Loaded, seat: int) -> dict:
    """What one seat sees (service/model/presenters.py) and its own deadlines (correspondence play)."""
    body = private_view(loaded, seat)
    body["deadlines"] = deadlines_for(decisions, loaded, seat)  # in a window its own only
    return body


# -- events as a viewer sees them -------------------------------------------------------
def numbered_since(repo: MatchRepository, loaded: Loaded, viewer: Any, since: int, redaction: Any) -> list[dict]:
    """The events after global version `since` as `redaction` may see them, each numbered in
    `viewer`'s numbering (service/model/numbering.py). `redaction` is "all" for a finished match's
    feed: the events `viewer` could not see in play then come too, with `version` null (they have no
    number in its numbering, which stays the one it counted in play)."""
    stored = repo.read(loaded.match_id, since, until=loaded.version)
    return renumbered(visible_events(stored, redaction), loaded.numbering, viewer)


def items_since(repo: MatchRepository, loaded: Loaded, viewer: Any, since: int) -> list[dict]:
    """The events after global version `since` as `viewer` follows them: a seat as on its feed
    (everything once the match is over), SPECTATOR always as the public."""
    if viewer == SPECTATOR:
        return numbered_since(repo, loaded, None, since, None)
    return numbered_since(repo, loaded, viewer, since, shown_to(loaded, viewer))


def items_after(repo: MatchRepository, loaded: Loaded, viewer: Any, after: int) -> list[dict]:
    """As `items_since`, from `after` in the viewer's own numbering."""
    return items_since(repo, loaded, viewer, loaded.numbering.to_global(after, viewer))


def recent(repo: MatchRepository, loaded: Loaded, viewer: Any, count: int) -> list[dict]:
    """The last `count` events `viewer` may see (in its own numbering: events hidden from it neither
    count nor show), oldest first, as public_event dicts with global versions."""
    last = loaded.version_for(viewer)
    since = loaded.numbering.to_global(max(0, last - count), viewer)
    stored = repo.read(loaded.match_id, since, until=loaded.version)
    redaction = shown_to(loaded, viewer)
    out = []
    for event in stored:
        if loaded.numbering.is_hidden(event.version, viewer) and not loaded.over:
            continue
        item = public_event(event, redaction)
        if item is not None:
            out.append(item)
    return out


def last_move(repo: MatchRepository, loaded: Loaded, viewer: Any) -> Optional[dict]:
    """The latest move `viewer` may see among its last LOOK_BACK events (its own numbering): its
    type, seat, tile and time; None when none of those is a move."""
    for item in reversed(recent(repo, loaded, viewer, LOOK_BACK)):
        if item["type"] in MOVES:
            return {
                "type": item["type"],
                "seat": item["payload"].get("seat"),
                "tile": item["payload"].get("tile"),
                "at": item["recorded_at"],
            }
    return None


def ting_choices(loaded: Loaded, seat: int) -> list[dict]:
    """The seat's 报听 choices (K-2, H-4) as the engine gives them; none outside play."""
    if not loaded.started or loaded.over:
        return []
    return engine.ting_choices(loaded.state, seat)


def visible_events(stored, viewer: Any) -> list[dict]:
    """The stored events `viewer` may see, each redacted (engine.redact drops window answers and tells)."""
    items = (public_event(e, viewer) for e in stored)
    return [item for item in items if item is not None]


def renumbered(items: list[dict], numbering: Numbering, viewer: Any) -> list[dict]:
    """`items` (public_event dicts, global versions) with each version in `viewer`'s numbering;
    None for an event hidden from `viewer` in play (shown only in a finished match's full feed)."""
    for item in items:
        version = item["version"]
        item["version"] = None if numbering.is_hidden(version, viewer) else numbering.local(version, viewer)
    return items


def public_event(stored, viewer: Any) -> Optional[dict]:
    """One stored event as {version, type, payload, recorded_at}, redacted for viewer (None: not shown)."""
    if stored.type in rooms.SERVICE_EVENT_TYPES:
        if hidden_from({"type": stored.type, **stored.payload}, viewer):
            return None  # another seat's standing orders
        payload = rooms.public_payload(stored.payload)
    else:
        redacted = engine.redact({"type": stored.type, **stored.payload}, viewer)
        if redacted is None:
            return None
        payload = {key: value for key, value in redacted.items() if key != "type"}
        if payload.get("reason") == STANDING_ORDER and viewer != "all" and viewer != payload.get("seat"):
            payload.pop("reason")  # a move made by a standing order looks like any other to the table
    return {"version": stored.version, "type": stored.type, "payload": payload, "recorded_at": stored.recorded_at}


def pattern_names() -> dict[str, dict[str, list[str]]]:
    """The scoring patterns' names (中文, English) per rule set, as the table page shows them."""
    return match_log.pattern_names()


# -- My matches -------------------------------------------------------------------------
def list_tag(entries: list[dict]) -> str:
    """The list's ETag: each match and its version in the browser's seat's numbering (whatever the
    seat may see moves it; nothing hidden from the seat does), in the list's order."""
    digest = hashlib.sha256(repr([(m["id"], m["version"]) for m in entries]).encode()).hexdigest()
    return f'"m{digest[:20]}"'


def _mine_entry(repo: MatchRepository, decisions: Decisions, loaded: Loaded, seat: int) -> dict:
    state = loaded.state
    pending = engine.pending_seats(state) if loaded.started and not loaded.over else []
    status_ = (
        "over" if loaded.over else ("open" if not loaded.started else ("your_turn" if seat in pending else "waiting"))
    )
    deadlines = deadlines_for(decisions, loaded, seat)  # its own only ([] without move deadlines)
    mine_ = next((d["deadline"] for d in deadlines if d["seat"] == seat), None)
    hand = getattr(state, "hand", None)
    return {
        "id": loaded.match_id,
        "variant": loaded.room.variant,
        "seat": seat,
        "state": status_,
        "seats": loaded.room.public_seats(),
        "version": loaded.version_for(seat),
        "deadline": mine_,
        "hand_no": hand.number if hand is not None else None,
        "hands": (loaded.room.options or {}).get("hands"),
        "rounds": (loaded.room.options or {}).get("rounds"),
        "scores": list(state.scores) if loaded.started else None,
        "last_move": last_move(repo, loaded, seat),
    }


class Reads:
    """Every read a viewer makes, one method each (the routes and pages call nothing else to read)."""

    def __init__(
        self,
        repo: MatchRepository,
        tokens: Tokens,
        decisions: Decisions,
        chat: Chat,
        hub: WaiterHub,
        limits: WaitLimits,
        shared: SharedAnswers,
        frames: SizedCache,
        ratings: Ratings,
        accounts: Optional[Accounts] = None,
    ) -> None:
        self.repo, self.tokens, self.decisions, self.chat = repo, tokens, decisions, chat
        self.hub, self.limits, self.shared, self.frames = hub, limits, shared, frames
        self.ratings = ratings
        self.accounts = accounts  # a signed-in browser's seats (service/usecases/accounts.py)

    # -- a signed-in browser: its account, and the seats the account holds -------------------------
    def _through(
        self, match_id: str, token: Optional[str], session: Optional[str], owner: bool = False
    ) -> Optional[str]:
        """The browser's own token for a match, else (signed in) the one its account holds there."""
        if token or not session or self.accounts is None:
            return token
        return self.accounts.credential(session, match_id, owner)

    def account(self, session: Optional[str]) -> dict:
        """The signed-in account's page: name, passkeys, sessions, codes left, seats (Unauthenticated)."""
        assert self.accounts is not None
        return self.accounts.profile(session)

    def account_name(self, session: Optional[str]) -> Optional[str]:
        """The display name of the account a session signs in (None: none)."""
        found = self.accounts.account_of(session) if session and self.accounts is not None else None
        return found.name if found is not None else None

    def account_matches(self, session: Optional[str], client: Client) -> list[dict]:
        """The matches the account of a session (or API token) holds a seat in, as /my lists them
        (Unauthenticated when it signs nothing in)."""
        if self.accounts is None or self.accounts.account_of(session) is None:
            raise Unauthenticated("not_signed_in", "sign in first")
        return self.mine({}, wait=0, holds=lambda tag: False, client=client, session=session).matches

    def api_tokens(self, session: Optional[str]) -> list[dict]:
        """The API tokens of the account a session (or API token) signs in, without their secret."""
        assert self.accounts is not None
        return self.accounts.api_tokens(session)

    def account_export(self, session: Optional[str]) -> dict:
        """Everything kept about the signed-in account, as JSON (Unauthenticated)."""
        assert self.accounts is not None
        return self.accounts.export(session)

    # -- a match as the public sees it --------------------------------------------------
    def summary(self, match_id: str) -> dict:
        """A match's public summary: seats, scores and the public table."""
        return summary(self.repo.load(match_id))

    def matches(self, before: Optional[str], limit: int) -> tuple[list[dict], Optional[str]]:
        """A page of match summaries (no table), newest first by creation, and the last one's id
        when more follow; `before` (a match id) must exist (NotFound)."""
        if before is not None:
            self.repo.load(before)
        ids = self.repo.match_ids_newest_first(before, limit + 1)
        page = ids[:limit]
        listed = [summary(self.repo.load(match_id), table=False) for match_id in page]
        return listed, (page[-1] if len(ids) > limit else None)

    def exists(self, match_id: str) -> None:
        """Nothing when the match exists; NotFound otherwise (the replay page)."""
        self.repo.load(match_id)

    def spectate(self, match_id: str) -> dict:
        """The public view and the pending decisions' deadlines (Forbidden when spectating is off)."""
        loaded = self.repo.load(match_id)
        require_spectating(loaded)
        return {
            "id": loaded.match_id,
            "version": loaded.version_for(None),
            "status": status(loaded),
            "seats": loaded.room.public_seats(),
            "view": engine.view(loaded.state, None) if loaded.started else None,
            "deadlines": deadlines_for(self.decisions, loaded),
        }

    def spectate_events(self, match_id: str, after: int) -> dict:
        """The events after `after` (public numbering), each redacted for the public even once over."""
        loaded = self.repo.load(match_id)
        require_spectating(loaded)
        items = items_after(self.repo, loaded, SPECTATOR, after)
        return {"version": loaded.version_for(None), "viewer": None, "events": items}

    # -- a seat, or the public --------------------------------------------------------------
    def feed(self, match_id: str, token: Optional[str], after: int) -> tuple[Optional[int], dict]:
        """(seat, feed): the events after `after` in the caller's numbering, as it may see them;
        without a token the public's (Forbidden when spectating is off); everything once over."""
        loaded = self.repo.load(match_id)
        seat = None if token is None else seat_for(self.tokens, loaded, token)
        if seat is None:
            require_spectating(loaded)  # the public feed, which the owner may turn off
        since = loaded.numbering.to_global(after, seat)
        items = numbered_since(self.repo, loaded, seat, since, shown_to(loaded, seat))
        return seat, {"version": loaded.version_for(seat), "viewer": shown_to(loaded, seat), "events": items}

    def view(self, match_id: str, token: str, *, wait: float, held: Callable[[int], bool], client: Client) -> SeatView:
        """The seat's view; with `wait` seconds and `held(version)` (the caller already has this
        version) a long-poll until the match moves in the seat's numbering."""
        loaded = self.repo.load(match_id)
        seat = seat_for(self.tokens, loaded, token)
        waited = wait > 0 and held(loaded.version_for(seat))
        if waited:
            loaded = self._wait_for_change(loaded, seat, wait, client)
        key = ("view", loaded.match_id, loaded.version, seat) if waited else None
        return SeatView(
            seat, loaded.version_for(seat), lambda: seat_view(self.decisions, loaded, seat), key, self.shared
        )

    def orders(self, match_id: str, token: str) -> dict:
        """The caller's standing orders."""
        loaded = self.repo.load(match_id)
        return orders_of(loaded, seat_for(self.tokens, loaded, token))

    def ting(self, match_id: str, token: Optional[str], session: Optional[str] = None) -> dict:
        """The 报听 helper: the browser's seat's choices (each discard, its waits and their points)."""
        token = self._through(match_id, token, session)
        loaded = self.repo.load(match_id)
        seat = seat_for(self.tokens, loaded, token, "this browser holds no seat in this match")
        return {"version": loaded.version_for(seat), "choices": ting_choices(loaded, seat)}

    def seat_of(self, match_id: str, token: Optional[str], session: Optional[str] = None) -> Optional[int]:
        """The seat a token (or, without one, the signed-in account) holds in the match (None: none);
        NotFound for no such match."""
        loaded = self.repo.load(match_id)
        return seat_in(self.tokens, loaded, self._through(match_id, token, session))

    def table(
        self, match_id: str, seat_token: Optional[str], owner_token: Optional[str], session: Optional[str] = None
    ) -> tuple[Optional[int], bool]:
        """The table page's caller: the seat its cookie (or its account) holds (or None) and whether
        it is the owner."""
        loaded = self.repo.load(match_id)
        seat_token = self._through(match_id, seat_token, session)
        owner_token = self._through(match_id, owner_token, session, owner=True)
        return seat_in(self.tokens, loaded, seat_token), is_owner(self.tokens, loaded, owner_token)

    def follow(
        self,
        match_id: str,
        token: Optional[str],
        after: Optional[int],
        client: Client,
        framing: Framing,
        *,
        lifetime: float,
        heartbeat: float,
        idle: float = 0.0,
    ) -> Following:
        """The stream of the caller's events after `after` (its numbering): a seat's, or without a
        token the spectators' (Forbidden when spectating is off; ended when it is turned off). Counted
        by the waiting caps from now until it is closed. `after` None: the caller's resume point
        (its Last-Event-ID) was unreadable."""
        loaded = self.repo.load(match_id)
        seat = None if token is None else seat_for(self.tokens, loaded, token)
        viewer: Any = seat
        allowed = None
        if seat is None:
            require_spectating(loaded)
            viewer, allowed = SPECTATOR, (lambda current: current.room.spectating or current.over)
        if after is None:
            raise Invalid("invalid_last_event_id", "Last-Event-ID must be an event version (a whole number)")
        slot = self.limits.acquire(client.address, "stream")
        since = loaded.numbering.to_global(after, viewer)  # the stream's cursor: global

        def messages() -> Iterator[str]:
            try:
                yield from self._stream(match_id, viewer, since, framing, lifetime, heartbeat, idle, allowed, client)
            finally:
                slot.release()

        return Following(seat, messages(), slot.release)

    def _stream(
        self,
        match_id: str,
        viewer: Any,
        since: int,
        framing: Framing,
        lifetime: float,
        heartbeat: float,
        idle: float,
        allowed: Optional[Callable[[Loaded], bool]],
        client: Client,
    ) -> Iterator[str]:
        """Messages from global version `since` on until `lifetime` seconds pass, `idle` seconds pass
        without an event (0: never), or the match is over. Between events the stream waits on the
        worker's WaiterHub (no query of its own); a heartbeat goes out every `heartbeat` seconds."""
        yield framing.start()
        started = beat = active = time.monotonic()
        current = self.repo.version(match_id)
        while True:
            if current > since:
                loaded = self.repo.load(match_id)
                if allowed is not None and not allowed(loaded):
                    yield framing.forbidden()
                    return
                text = self._messages(loaded, viewer, since, framing)
                since = max(since, loaded.version)
                if text:  # only events this viewer may see: a hidden one sends nothing, moves no timer
                    yield text
                    beat = active = time.monotonic()
                if loaded.over:
                    yield framing.end(loaded.version_for(None if viewer == SPECTATOR else viewer))
                    return
            if self.hub.draining:  # the worker stops: the client resumes elsewhere
                yield framing.reconnect()
                return
            now = time.monotonic()
            ends = started + lifetime if not idle else min(started + lifetime, active + idle)
            if now >= ends:
                return
            if now - beat >= heartbeat:
                yield framing.heartbeat()
                beat = now
            timeout = max(0.0, min(beat + heartbeat, ends, now + DISCONNECT_CHECK) - now)
            current = self.hub.wait(stream_of(match_id), since, timeout)
            if current <= since and client.gone():
                return  # the client left: its slot is freed now, not at the next heartbeat

    def _messages(self, loaded: Loaded, viewer: Any, since: int, framing: Framing) -> str:
        """The messages of the events after global version `since` for `viewer`: made once for all
        the streams of that viewer woken by the same version, not once per stream."""
        key = ("sse", loaded.match_id, loaded.version, viewer, since)
        return self.shared.get_or_make(key, lambda: framing.events(items_since(self.repo, loaded, viewer, since)))

    # -- a browser's matches ---------------------------------------------------------------
    def mine(
        self,
        held: dict[str, str],
        *,
        wait: float,
        holds: Callable[[str], bool],
        client: Client,
        session: Optional[str] = None,
    ) -> Mine:
        """Every match `held` (match id -> seat token) holds a valid seat in, your turn first, then
        by deadline; with `wait` seconds and `holds(tag)` (the browser has this list already) a
        long-poll until the list changes for this browser. With a signed-in browser's `session`, the
        seats its account holds too (the browser's own cookie first)."""
        if session and self.accounts is not None:
            held = {**self.accounts.held(session), **held}
        listed, known = self._mine(held)
        if wait > 0 and holds(list_tag(listed)):
            listed = self._wait_for_mine(held, listed, known, wait, client)
        return Mine(listed, list_tag(listed))

    def _mine(self, held: dict[str, str]) -> tuple[list[dict], dict[str, int]]:
        """The list, and the stored (global) version of each listed match's stream, read by the same
        loads, for the hub to wait past (never sent to the browser)."""
        out, versions = [], {}
        for match_id, token in list(held.items())[:MINE_LIMIT]:
            try:
                loaded = self.repo.load(match_id)
            except ServiceError:
                continue
            seat = seat_in(self.tokens, loaded, token)
            if seat is not None:
                out.append(_mine_entry(self.repo, self.decisions, loaded, seat))
                versions[stream_of(match_id)] = loaded.version
        order = {"your_turn": 0, "waiting": 1, "open": 2, "over": 3}
        return sorted(out, key=lambda m: (order[m["state"]], m["deadline"] or "~", m["id"])), versions

    def _wait_for_mine(
        self, held: dict[str, str], listed: list[dict], known: dict[str, int], seconds: float, client: Client
    ) -> list[dict]:
        """Wait on the hub for all the browser's matches at once (one condition, no query while
        waiting) until the list changes for this browser or time runs out. The list is read again
        only when one of its streams moved; an event hidden from its seat moves the stream but not
        the list, and the wait goes on as if nothing had happened."""
        slot = self.limits.acquire(client.address, "mine")
        tag = list_tag(listed)
        deadline = time.monotonic() + seconds
        try:
            while (remaining := deadline - time.monotonic()) > 0:
                moved = self.hub.wait_any(known, min(remaining, DISCONNECT_CHECK))
                if moved == known:
                    if self._over(client):
                        break  # stopping, or the client left: its slot is freed now
                    continue
                known = moved
                listed, _ = self._mine(held)
                if list_tag(listed) != tag:
                    break
        finally:
            slot.release()
        return listed

    # -- the chat --------------------------------------------------------------------------
    def chat_lines(self, match_id: str, token: str, after: int, *, wait: float, client: Client) -> tuple[int, dict]:
        """(seat, lines after `after`) of the match's chat, for a seated player only; with `wait`
        seconds a long-poll until a new line is said."""
        seat = seat_for(self.tokens, self.repo.load(match_id), token)
        if wait > 0 and self.chat.version(match_id) <= after:
            self._wait_for_line(chat_stream(match_id), after, wait, client)
        return seat, self.chat.lines(match_id, after)

    def _wait_for_line(self, stream: str, after: int, seconds: float, client: Client) -> None:
        slot = self.limits.acquire(client.address, "chat")
        deadline = time.monotonic() + seconds
        try:
            while (remaining := deadline - time.monotonic()) > 0:
                if self.hub.wait(stream, after, min(remaining, DISCONNECT_CHECK)) > after:
                    return
                if self._over(client):
                    return  # stopping, or the client left: its slot is freed now
        finally:
            slot.release()

    # -- logs and replays -------------------------------------------------------------------
    def export(self, match_id: str, fmt: str) -> tuple[str, str]:
        """(body, mimetype) of a finished match's log, every row checked against the chain."""
        return match_log.export(self.repo, match_id, fmt)

    def replay(
        self,
        match_id: str,
        owner_token: Optional[str],
        seat: Optional[str],
        hand: Optional[str],
        whole: int,
        review_samples: int = 0,
        review_ahead: int = 0,
        review_waits: int = 0,
    ) -> Frames:
        """The replay frames of a match (service/usecases/replay.py): a finished one from any seat's
        side (`seat`: "all" or 0..3), one in play for its owner as the public sees it; `hand` asks
        one page (required beyond `whole` hands); the review's budget (engine.review): `review_samples`
        sampled hands per declared seat, `review_ahead` discards looked one draw ahead, `review_waits`
        waits scored a decision where the variant caps `normal` lower."""
        budget = Budget(samples=review_samples, ahead=review_ahead, waits=review_waits)
        loaded = self.repo.load(match_id)
        perspective = replay.perspective_for(self.tokens, loaded, owner_token, seat)
        page = replay.page_asked(hand)
        return Frames(replay.frames(self.repo, self.frames, loaded, perspective, page, whole, budget), loaded.over)

    # -- players: ratings and figures (service/usecases/ratings.py) --------------------------
    def leaderboard(self, rule_set: str, limit: int) -> dict[str, Any]:
        """A rule set's rated players, highest rating first (public)."""
        return self.ratings.leaderboard(rule_set, limit)

    def player(self, player_id: str) -> dict[str, Any]:
        """A player's rating and figures per rule set and their finished matches (public)."""
        return self.ratings.player(player_id)

    def rating_changes(self, match_id: str) -> dict[str, Any]:
        """A finished match's rating changes per seat, or why it is not rated (public)."""
        return self.ratings.settlement(match_id)

    # -- waiting ------------------------------------------------------------------------------
    def _over(self, client: Client) -> bool:
        """Whether a wait that heard nothing ends now, before its time: the worker is stopping (its
        hub drains) or its client left."""
        return self.hub.draining or client.gone()

    def _wait_for_change(self, loaded: Loaded, seat: int, seconds: float, client: Client) -> Loaded:
        """Wait on the worker's WaiterHub (one store query per poll for all waiters, across workers)
        until the match moves in `seat`'s numbering or time runs out; counted by the waiting caps.
        An event hidden from the seat (another seat's answer in an open window) wakes the hub but not
        the answer: the wait goes on, as if nothing had happened."""
        slot = self.limits.acquire(client.address, "view")
        seen, known = loaded.version_for(seat), loaded.version
        deadline = time.monotonic() + seconds
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return loaded
                version = self.hub.wait(stream_of(loaded.match_id), known, min(remaining, DISCONNECT_CHECK))
                if version <= known:
                    if self._over(client):
                        return loaded  # its slot is freed now, not when the wait would end
                    continue
                known = version
                loaded = self.repo.load(loaded.match_id)
                if loaded.version_for(seat) != seen:
                    return loaded
        finally:
            slot.release()


def orders_of(loaded: Loaded, seat: int) -> dict:
    """A seat's standing orders as the API shows them."""
    auto_pass, auto_discard = loaded.room.orders[seat]
    return {"seat": seat, "auto_pass": auto_pass, "auto_discard": auto_discard, "version": loaded.version_for(seat)}
