"""Who holds which seat now, for ratings and Web Push (service/model/ratings.py, `SeatHolders`),
kept up to date by what is appended instead of read again after every append.

The rule: a seat is held by the one account whose seat link names it while the link's fingerprint
is still the seat's token verifier's (a re-invite ends it, service/infra/tokens.py `linked`); a seat
two accounts link is held by neither; a deleted account holds none. This index keeps, from
the store's feed (service/infra/feed.py):

* each account's seat links, folded once, and folded again only when that account's stream is
  appended to (a seat linked or claimed, the account deleted);
* per match some account links, the holders checked under the match's token grants (the room's
  count of tokens given: a join or a re-invite moves it); an append to such a match checks its
  grants again, from this worker's cache when it holds the match at the version appended (no
  query), and its verifiers again only when the grants moved;
* an append to any other stream (a match no account links, a chat, an import record): nothing.

So a move costs no rebuild: `players_of` answers from memory as of the feed's last poll, and
`current` polls first (one query, as asking for the store's head would be).
"""

from __future__ import annotations

import threading
from typing import Mapping, Optional

from ..infra.feed import StoreFeed
from ..infra.repository import STREAM_PREFIX, stream_of as match_stream
from ..model import accounts as model
from ..model.errors import NotFound
from ..model.match import Loaded
from .accounts import ALL_ACCOUNTS, Accounts


class SeatIndex:
    """match -> seat -> account, over every account, followed through the store's feed."""

    def __init__(self, accounts: Accounts, feed: StoreFeed) -> None:
        self.accounts, self.repo, self.tokens, self.feed = accounts, accounts.repo, accounts.tokens, feed
        self._lock = threading.RLock()
        self._built = False
        self._links: dict[str, dict[tuple[str, int], str]] = {}  # account -> (match, seat) -> its link's check
        self._claims: dict[tuple[str, int], dict[str, str]] = {}  # (match, seat) -> account -> check
        self._seats: dict[str, set[int]] = {}  # match -> the seats some account links
        self._held: dict[str, tuple[int, dict[int, str]]] = {}  # match -> (token grants checked under, holders)
        self._changed_accounts: set[str] = set()
        self._appended: dict[str, int] = {}  # linked match -> the version appended to since its check
        feed.subscribe(self._note)
        self.rebuilds = 0  # whole builds (one per process, unless told to start again)

    # -- answers ------------------------------------------------------------------------
    def current(self, match_id: str) -> dict[int, str]:
        """seat -> account for the match, after polling the feed (one query)."""
        self.feed.poll()
        return self.players_of(match_id)

    def players_of(self, match_id: str) -> dict[int, str]:
        """seat -> account for the match, as of the feed's last poll (model.SeatHolders)."""
        self.feed.start()
        with self._lock:
            self._settle()
            if match_id not in self._seats:
                return {}
            version = self._appended.pop(match_id, None)
            found = self._held.get(match_id)
            if found is not None and version is None:
                return dict(found[1])
            loaded = self._loaded(match_id, version)
            if loaded is None:
                self._held[match_id] = (-1, {})
                return {}
            grants = loaded.room.token_grants
            if found is None or found[0] != grants:
                found = (grants, self._check(match_id, grants))
                self._held[match_id] = found
            return dict(found[1])

    def name_of(self, account_id: str) -> Optional[str]:
        return self.accounts.name_of(account_id)

    # -- keeping up -----------------------------------------------------------------------
    def _note(self, streams: Mapping[str, int]) -> None:
        """The feed's appends (called under its lock: only noted here, settled on the next answer)."""
        with self._lock:
            for stream, version in streams.items():
                if stream.startswith(model.PREFIX):
                    self._changed_accounts.add(stream[len(model.PREFIX) :])
                elif stream.startswith(STREAM_PREFIX) and stream[len(STREAM_PREFIX) :] in self._seats:
                    self._appended[stream[len(STREAM_PREFIX) :]] = version

    def _settle(self) -> None:
        if not self._built:
            self._changed_accounts.clear()
            self._appended.clear()
            for stream in self.repo.store.streams_newest_first(model.PREFIX, None, ALL_ACCOUNTS):
                self._relink(stream[len(model.PREFIX) :])
            self._built = True
            self.rebuilds += 1
            return
        while self._changed_accounts:
            self._relink(self._changed_accounts.pop())

    def _relink(self, account_id: str) -> None:
        """Fold the account again and put its seat links in place of the ones it had."""
        account = self.accounts._fold(account_id)  # the accounts' own fold, its sealed fields opened
        links = {(link.match_id, link.seat): link.check for link in account.seats()} if account.exists else {}
        before = self._links.pop(account_id, {})
        for key in before.keys() - links.keys():
            holders = self._claims.get(key, {})
            holders.pop(account_id, None)
            if not holders:
                self._claims.pop(key, None)
                seats = self._seats.get(key[0], set())
                seats.discard(key[1])
                if not seats:
                    self._seats.pop(key[0], None)
        for key, check in links.items():
            self._claims.setdefault(key, {})[account_id] = check
            self._seats.setdefault(key[0], set()).add(key[1])
        if links:
            self._links[account_id] = links
        for match_id in {key[0] for key in before.keys() | links.keys()}:
            self._held.pop(match_id, None)

    def _loaded(self, match_id: str, version: Optional[int]) -> Optional[Loaded]:
        """The match at `version` or later: this worker's cache when it has it there, else a load."""
        if version is not None:
            cached = self.repo.cached(match_id, version)
            if cached is not None:
                return cached
        try:
            return self.repo.load(match_id)
        except NotFound:
            return None

    def _check(self, match_id: str, grants: int) -> dict[int, str]:
        held = {}
        for seat in sorted(self._seats.get(match_id, ())):
            holders = self._claims.get((match_id, seat), {})
            if len(holders) != 1:
                continue
            ((account_id, check),) = holders.items()
            if self.tokens.linked(match_stream(match_id), seat, check, grants):
                held[seat] = account_id
        return held
