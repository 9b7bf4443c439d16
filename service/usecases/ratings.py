"""History and ratings: the finished matches read from the store, folded into ratings and figures.

Each finished match is read once through the repository (its `hand_ended` and `match_ended` rows,
checked against the chain as `read_types` reads them, and the engine's fold for the final scores
and the room): nothing here recomputes a settlement, a payment or a winner. Who held each seat
comes from a `SeatHolders` (service/model/ratings.py), the accounts' record; the fold itself is
`service.model.ratings.fold` and `figures`, pure. A finished match's events never change, so what
was read of it is kept (its seat holders are asked again each time: an account may claim a seat
later).

What changed is followed through the store's feed (service/infra/feed.py: one query a read, as
asking for the store's head would be), not read again after every append: the first read looks at
every match; later, only a match appended to since is looked at again (from this worker's cache
when it holds the match at that version: no query), to see whether it ended. The matches are folded
again only when one ended, an account's stream moved (a seat linked or claimed, an account deleted)
or a finished match's stream did, and then only if some match or holder differs from the last fold.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any, Mapping, Optional

from . import match_log
from ..infra.feed import StoreFeed
from ..infra.repository import STREAM_PREFIX, MatchRepository
from ..model import ratings as model
from ..model.accounts import PREFIX as ACCOUNT_PREFIX
from ..model.errors import NotFound

ENDS = ("hand_ended", "match_ended")


class Ratings:
    """Ratings, leaderboards and a player's figures and history, over every finished match."""

    def __init__(self, repo: MatchRepository, holders: model.SeatHolders, feed: Optional[StoreFeed] = None) -> None:
        self.repo, self.holders = repo, holders
        self.feed = feed or StoreFeed(repo.store)  # shared with the seat index when it is the holders
        self._lock = threading.RLock()
        self._read: dict[str, model.FinishedMatch] = {}  # finished matches as read (players left empty)
        self._looked = False  # every match looked at once (after the feed's position was fixed)
        self._appended: dict[str, int] = {}  # match -> the version appended to since it was looked at
        self._moved = False  # an account's stream moved since the last fold
        self._folded: Optional[tuple[list[model.FinishedMatch], model.Standings]] = None
        self.folds = 0  # how many times the matches were folded (a bench and the tests count them)
        self.feed.subscribe(self._note)

    # -- reading -------------------------------------------------------------------------
    def finished(self, match_id: str) -> Optional[model.FinishedMatch]:
        """The match as the fold reads it, with its seat holders; None while it is not over."""
        self._current()
        with self._lock:
            return self._finished(match_id)

    def _finished(self, match_id: str) -> Optional[model.FinishedMatch]:
        found = self._read.get(match_id)
        if found is None:
            found = self._read_finished(match_id)
            if found is None:
                return None
            self._read[match_id] = found
        held = self.holders.players_of(match_id)
        return replace(found, players=tuple(held.get(seat) for seat in range(model.SEATS)))

    def _read_finished(self, match_id: str, version: Optional[int] = None) -> Optional[model.FinishedMatch]:
        loaded = self.repo.cached(match_id, version) if version is not None else None
        if loaded is None:
            loaded = self.repo.load(match_id)
        if not loaded.over:
            return None
        rows = self.repo.read_types(match_id, ENDS)
        ended = next(row for row in reversed(rows) if row.type == "match_ended")
        room = loaded.room
        return model.FinishedMatch(
            match_id=match_id,
            position=ended.position,
            rule_set=model.rule_set(room.variant or "", room.options or {}),
            over=True,
            imported=match_log.import_record(self.repo, match_id) is not None,
            bots=tuple(room.is_bot(seat) for seat in range(model.SEATS)),
            players=(None,) * model.SEATS,
            scores=tuple(loaded.state.scores),
            hands=tuple(model.HandResult.of(row.payload) for row in rows if row.type == "hand_ended"),
            ended_at=ended.recorded_at,
        )

    def all_finished(self) -> list[model.FinishedMatch]:
        """Every finished match of the store, in the fold's order."""
        return self._current()[0]

    def _note(self, streams: Mapping[str, int]) -> None:
        """The feed's appends (called under its lock: only noted here)."""
        with self._lock:
            for stream, version in streams.items():
                if stream.startswith(STREAM_PREFIX):
                    self._appended[stream[len(STREAM_PREFIX) :]] = version
                elif stream.startswith(ACCOUNT_PREFIX):
                    self._moved = True  # the seat holders' record

    def _current(self) -> tuple[list[model.FinishedMatch], model.Standings]:
        """The finished matches and their fold, brought up to date with the feed (see the module's doc)."""
        self.feed.poll()
        with self._lock:
            changed = self._moved
            if not self._looked:
                self._appended.clear()
                for match_id in self.repo.match_ids():
                    self._finished(match_id)
                self._looked = changed = True
            for match_id, version in self._appended.items():
                if match_id in self._read:
                    changed = True  # a finished match's stream moved (its ends signed): its holders asked again
                    continue
                try:
                    found = self._read_finished(match_id, version)
                except NotFound:
                    continue
                if found is not None:
                    self._read[match_id] = found
                    changed = True
            self._appended.clear()
            self._moved = False
            if changed or self._folded is None:
                matches = model.fold_order(
                    replace(kept, players=tuple(self.holders.players_of(match_id).get(s) for s in range(model.SEATS)))
                    for match_id, kept in self._read.items()
                )
                if self._folded is None or matches != self._folded[0]:
                    self._folded = (matches, model.fold(matches))
                    self.folds += 1
            assert self._folded is not None
            return self._folded

    # -- answers ------------------------------------------------------------------------
    def standings(self) -> model.Standings:
        return self._current()[1]

    def leaderboard(self, rule_set: str, limit: int = 100) -> dict[str, Any]:
        """A rule set's rated players, highest rating first."""
        known(rule_set)
        standings = self.standings()
        board = standings.leaderboard(rule_set)[:limit]
        return {
            "rule_set": rule_set,
            "label": model.rule_set_label(rule_set),
            "rule_sets": [{"rule_set": key, "label": model.rule_set_label(key)} for key in sorted(standings.ratings)],
            "players": [
                {"place": n, "player": player, "name": self.holders.name_of(player), **rating_json(r)}
                for n, (player, r) in enumerate(board, 1)
            ],
        }

    def player(self, player_id: str) -> dict[str, Any]:
        """A player's rating and figures per rule set, and their finished matches, newest first;
        NotFound for an id that names no account (nor a deleted one: its profile goes with it)."""
        name = self.holders.name_of(player_id)
        if name is None:
            raise NotFound("no_such_player", f"no player {player_id!r}")
        matches, standings = self._current()
        per_rule_set = model.figures(matches)
        sets = sorted({m.rule_set for m in matches if player_id in m.players})
        history = []
        for match in reversed(matches):
            if player_id not in match.players:
                continue
            seat = match.players.index(player_id)
            change = next((c for c in standings.changes.get(match.match_id, ()) if c.seat == seat), None)
            history.append(
                {
                    "match": match.match_id,
                    "rule_set": match.rule_set,
                    "label": model.rule_set_label(match.rule_set),
                    "ended_at": match.ended_at,
                    "seat": seat,
                    "score": match.scores[seat],
                    "place": match.places()[seat],
                    "figures": figures_json(model.seat_figures(match, seat)),
                    "rated": change is not None,
                    "rating_change": None if change is None else round(change.delta, 2),
                }
            )
        return {
            "player": player_id,
            "name": name,
            "rule_sets": [
                {
                    "rule_set": key,
                    "label": model.rule_set_label(key),
                    "rating": _maybe(standings.rating(key, player_id)),
                    "figures": figures_json(per_rule_set.get(key, {}).get(player_id, model.Figures())),
                }
                for key in sets
            ],
            "matches": history,
        }

    def settlement(self, match_id: str) -> dict[str, Any]:
        """A finished match's rating changes per seat, or why it is not rated (NotFound while it
        is not over)."""
        match = self.finished(match_id)  # brought up to date: standings() below polls nothing new
        if match is None:
            raise NotFound("match_not_finished", "a match in play has no rating changes yet")
        why = model.unrated_because(match)
        changes = self.standings().changes.get(match_id, ()) if why is None else ()
        return {
            "match": match_id,
            "rule_set": match.rule_set,
            "rated": why is None,
            "unrated_because": why,
            "seats": [
                {
                    "seat": c.seat,
                    "player": c.player,
                    "name": self.holders.name_of(c.player),
                    "place": c.place,
                    "before": rating_json(c.before),
                    "after": rating_json(c.after),
                    "change": round(c.delta, 2),
                }
                for c in changes
            ],
        }


def known(rule_set: str) -> None:
    """NotFound unless `rule_set` names a rule set (service/model/ratings.py, `rule_set`)."""
    try:
        model.rule_set_label(rule_set)
    except ValueError:
        raise NotFound("no_such_rule_set", f"no rule set {rule_set!r}") from None


def rating_json(rating: model.Rating) -> dict[str, Any]:
    return {
        "rating": round(rating.ordinal, 2),
        "mu": round(rating.mu, 4),
        "sigma": round(rating.sigma, 4),
        "matches": rating.matches,
    }


def _maybe(rating: Optional[model.Rating]) -> Optional[dict[str, Any]]:
    return None if rating is None else rating_json(rating)


def figures_json(figures: model.Figures) -> dict[str, Any]:
    average = figures.average_points
    return {
        "matches": figures.matches,
        "hands": figures.hands,
        "hands_won": figures.hands_won,
        "dealt_in": figures.dealt_in,
        "points": figures.points,
        "average_points": None if average is None else round(average, 2),
        "longest_streak": figures.longest_streak,
        "first_places": figures.first_places,
    }
