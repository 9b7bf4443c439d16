"""Ratings and figures per rule set: a pure fold over finished matches (no I/O, no clock).

The use case (service/usecases/ratings.py) reads each finished match once into a `FinishedMatch`:
the engine's own results (each hand's `hand_ended`: winner, the win as the table saw it, the
settlement's deltas; the final scores of the engine's fold), the position of its `match_ended`
in the store's global feed, and who held each seat (`SeatHolders`, the accounts' record). From
those alone this module folds

* the **ratings**: openskill's Plackett–Luce model, one rating per player and rule set, updated
  by each rated match (`unrated_because` is the one place the rule lives) in the order of their
  final events in the feed (`fold` sorts them: the order they are handed in does not matter);
* the **figures**: per player and rule set, sums and maxima over their matches (so they do not
  depend on any order at all).

docs/API.md, "Ratings and figures", states the rule and what each figure means.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Optional, Protocol

from openskill.models import PlackettLuce

from engine import options as engine_options
from engine import variants

SEATS = 4
PlayerId = str

#: the rating model and its parameters, fixed here (openskill's defaults, written out: a change of
#: library default must not change the numbers a stored history folds to)
MU, SIGMA = 25.0, 25.0 / 3.0
MODEL = PlackettLuce(
    mu=MU, sigma=SIGMA, beta=25.0 / 6.0, kappa=0.0001, tau=25.0 / 300.0, margin=0.0, limit_sigma=False, balance=False
)


class SeatHolders(Protocol):
    """Who held each seat of a match: the accounts' record of which account holds which seat.
    `players_of(match_id)` answers seat -> player id for the seats an account holds (a seat
    played anonymously, or by a bot, is absent); `name_of(player)` the player's display name (None:
    no such account, or deleted). The service's (service/usecases/seat_index.py) answers
    `players_of` from memory as of the store's feed's last poll: Ratings polls it before asking."""

    def players_of(self, match_id: str) -> Mapping[int, PlayerId]: ...

    def name_of(self, player: PlayerId) -> Optional[str]: ...


# -- rule sets --------------------------------------------------------------------------------
def rule_set(variant: str, options: Mapping[str, object]) -> str:
    """The rule set a match is rated and counted in: its variant, and, where the variant's options
    decide whether hands have a wild kind (扣点点's 耗子, K-13), whether they do: a wild changes
    the game enough to be its own rule set (its key gets `+wilds`). A variant whose wilds do not
    depend on the options (含山's 配子, always in play) is one rule set."""
    entry = variants.get(variant)
    wilds = entry.uses_wilds(options)
    if wilds == entry.uses_wilds(engine_options.normalise(variant, {})):
        return variant
    return f"{variant}+wilds" if wilds else f"{variant}-wilds"


def rule_set_label(key: str) -> str:
    """How pages name a rule set: the variant's names, and its wild's name (耗子) when the rule set
    is the variant with wilds on. ValueError for a key `rule_set` never gives."""
    for bare, suffix in ((key, ""), *(key.rsplit(sign, 1) for sign in "+-" if sign in key)):
        if bare not in variants.names() or suffix not in ("", "wilds"):
            continue
        entry = variants.get(bare)
        if not suffix:
            return f"{entry.name_zh} {entry.name_en}"
        if key.endswith("+wilds"):
            return f"{entry.name_zh} {entry.wild_zh} {entry.name_en} with wilds"
        return f"{entry.name_zh} {entry.name_en} without wilds"
    raise ValueError(f"no rule set {key!r}")


# -- what the fold reads ----------------------------------------------------------------------
@dataclass(frozen=True)
class HandResult:
    """One hand as the engine settled it (its `hand_ended` event), nothing recomputed."""

    winner: Optional[int]  # `winner` (None: 荒庄, a draw)
    fed_by: Optional[int]  # `win.from`: the seat whose discard (or robbed kong, G-7) was won on: 放炮
    deltas: tuple[int, ...]  # `settlement.deltas`: what each seat won or paid

    @classmethod
    def of(cls, ended: Mapping) -> "HandResult":
        """From a `hand_ended` payload (engine/event_types.py, `HandEnded`)."""
        win = ended.get("win") or {}
        return cls(ended.get("winner"), win.get("from"), tuple(ended["settlement"]["deltas"]))


@dataclass(frozen=True)
class FinishedMatch:
    """A match as the ratings and figures read it."""

    match_id: str
    position: int  # its `match_ended` in the store's global feed: the order ratings are folded in
    rule_set: str
    over: bool  # the engine's fold says the match is over
    imported: bool  # imported from a log (tilefold import): played elsewhere
    bots: tuple[bool, ...]  # per seat: a bot held it
    players: tuple[Optional[PlayerId], ...]  # per seat: the account that held it (None: none)
    scores: tuple[int, ...]  # the final scores of the engine's fold
    hands: tuple[HandResult, ...] = ()
    ended_at: str = ""  # when its `match_ended` was recorded (shown, never ordered by)

    def places(self) -> tuple[int, ...]:
        """Each seat's place by final score: 1 for the highest; equal scores share a place."""
        return tuple(1 + sum(other > mine for other in self.scores) for mine in self.scores)


# -- the rule --------------------------------------------------------------------------------
def unrated_because(match: FinishedMatch) -> Optional[str]:
    """Why a match is not rated, or None when it is. The one place the rule lives (docs/API.md,
    "Ratings and figures"): a match is rated when it is over (every hand it was to have was
    played: the engine's `match_ended`), was played here (not imported), every seat was held by a
    person (no bot) signed in to an account, and the four accounts are four different players."""
    if not match.over:
        return "not_finished"
    if match.imported:
        return "imported"
    if any(match.bots):
        return "bot_seat"
    if any(player is None for player in match.players) or len(match.players) != SEATS:
        return "seat_without_account"
    if len(set(match.players)) != SEATS:
        return "same_player_twice"
    return None


def counted(match: FinishedMatch) -> bool:
    """Whether a match counts in its players' figures: over and played here (bots may sit in it)."""
    return match.over and not match.imported


# -- ratings ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float
    matches: int = 0  # rated matches folded into it

    @property
    def ordinal(self) -> float:
        """The shown rating: mu - 3 sigma (openskill's ordinal), what a leaderboard orders by."""
        return self.mu - 3.0 * self.sigma


NEW = Rating(MU, SIGMA)


@dataclass(frozen=True)
class Change:
    """One seat's rating before and after a rated match (shown at its settlement)."""

    seat: int
    player: PlayerId
    place: int
    before: Rating
    after: Rating

    @property
    def delta(self) -> float:
        return self.after.ordinal - self.before.ordinal


@dataclass
class Standings:
    """The fold's answer: ratings per rule set and player, and each rated match's changes."""

    ratings: dict[str, dict[PlayerId, Rating]] = field(default_factory=dict)
    changes: dict[str, tuple[Change, ...]] = field(default_factory=dict)  # match id -> per seat

    def rating(self, rule_set_key: str, player: PlayerId) -> Optional[Rating]:
        return self.ratings.get(rule_set_key, {}).get(player)

    def leaderboard(self, rule_set_key: str) -> list[tuple[PlayerId, Rating]]:
        """Players of a rule set by rating, highest first (ties: more matches, then player id)."""
        rated = self.ratings.get(rule_set_key, {})
        return sorted(rated.items(), key=lambda item: (-item[1].ordinal, -item[1].matches, item[0]))


def fold_order(matches: Iterable[FinishedMatch]) -> list[FinishedMatch]:
    """The order ratings are folded in: by the position of each match's final event in the global
    feed (unique in a store; the match id only breaks ties in hand-made inputs)."""
    return sorted(matches, key=lambda match: (match.position, match.match_id))


def fold(matches: Iterable[FinishedMatch]) -> Standings:
    """Ratings from nothing: every rated match, in `fold_order`, updates its four players'
    ratings in its rule set with Plackett–Luce over their places (equal scores tie)."""
    out = Standings()
    for match in fold_order(matches):
        if unrated_because(match) is None:
            rate(out, match)
    return out


def rate(standings: Standings, match: FinishedMatch) -> None:
    """Fold one rated match into `standings`."""
    table = standings.ratings.setdefault(match.rule_set, {})
    players = [player for player in match.players if player is not None]
    before = [table.get(player, NEW) for player in players]
    places = match.places()
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    rated = MODEL.rate(teams, ranks=[float(place) for place in places])
    changes = []
    for seat, (player, old, team) in enumerate(zip(players, before, rated)):
        new = Rating(team[0].mu, team[0].sigma, old.matches + 1)
        table[player] = new
        changes.append(Change(seat, player, places[seat], old, new))
    standings.changes[match.match_id] = tuple(changes)


# -- figures ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Figures:
    """A player's figures in one rule set (docs/API.md, "Ratings and figures")."""

    matches: int = 0  # counted matches the player held a seat in
    hands: int = 0  # hands played in them
    hands_won: int = 0
    dealt_in: int = 0  # 放炮: hands won on the player's discard (or robbed kong)
    points: int = 0  # the sum of the player's settlement deltas
    longest_streak: int = 0  # most hands won in a row within one match
    first_places: int = 0  # matches ended with the highest score (shared or not)

    @property
    def average_points(self) -> Optional[float]:
        """Points per hand played (None before a first hand)."""
        return self.points / self.hands if self.hands else None

    def plus(self, other: "Figures") -> "Figures":
        return Figures(
            self.matches + other.matches,
            self.hands + other.hands,
            self.hands_won + other.hands_won,
            self.dealt_in + other.dealt_in,
            self.points + other.points,
            max(self.longest_streak, other.longest_streak),
            self.first_places + other.first_places,
        )


def seat_figures(match: FinishedMatch, seat: int) -> Figures:
    """One seat's figures in one match, read off the engine's hand results."""
    streak = longest = 0
    for hand in match.hands:
        streak = streak + 1 if hand.winner == seat else 0
        longest = max(longest, streak)
    return Figures(
        matches=1,
        hands=len(match.hands),
        hands_won=sum(hand.winner == seat for hand in match.hands),
        dealt_in=sum(hand.winner is not None and hand.fed_by == seat for hand in match.hands),
        points=sum(hand.deltas[seat] for hand in match.hands),
        longest_streak=longest,
        first_places=int(match.places()[seat] == 1),
    )


def figures(matches: Iterable[FinishedMatch]) -> dict[str, dict[PlayerId, Figures]]:
    """rule set -> player -> figures, over every counted match (sums and maxima: no order)."""
    out: dict[str, dict[PlayerId, Figures]] = {}
    for match in matches:
        if not counted(match):
            continue
        table = out.setdefault(match.rule_set, {})
        for seat, player in enumerate(match.players):
            if player is not None:
                table[player] = table.get(player, Figures()).plus(seat_figures(match, seat))
    return out
