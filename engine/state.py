"""The folded state of a match and of its current hand (plain data, cheap to copy): the state names
its variant (`variant`, a registry name) and carries no behaviour (engine.actions.variant_of)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, TypeVar

from engine.tiles import NUM_KINDS
from engine.versions import RULES_VERSION

LOBBY, TING, TURN, CLAIM, ROB, HAND_OVER, MATCH_OVER = (
    "lobby",
    "ting",
    "turn",
    "claim",
    "rob",
    "hand_over",
    "match_over",
)
SETTLE = "settle"  # only inside one decide: between a win and its hand_ended


@dataclass
class SeatHand:
    """One seat's tiles and declarations during a hand."""

    counts: list[int] = field(default_factory=lambda: [0] * NUM_KINDS)  # concealed, wilds included
    melds: list[dict[str, Any]] = field(default_factory=list)  # {"type", "tile", "kong", "from"}
    discards: list[dict[str, Any]] = field(default_factory=list)  # {"tile", "face_down", "claimed"}
    ready: bool = False  # 报听 declared (K-2, H-4)
    ready_waits: tuple[int, ...] = ()  # waits when declared (K-3 kong_keeps_waits)
    passed_hu: set[int] = field(default_factory=set)  # K-5 过胡: kinds won only by self-draw now
    forfeited_kongs: set[int] = field(default_factory=set)  # K-6: pung chosen over kong

    def clone(self) -> "SeatHand":
        return SeatHand(
            self.counts[:],
            self.melds[:],
            self.discards[:],  # their dicts are replaced, never mutated
            self.ready,
            self.ready_waits,
            set(self.passed_hu),
            set(self.forfeited_kongs),
        )


@dataclass
class Window:
    """An open question to several seats: claims on a discard, robbing a kong, or 报听 at the deal."""

    kind: str  # CLAIM | ROB | TING
    tile: Optional[int]
    source: int  # the discarder / konger (the dealer for 报听 at the deal)
    allowed: dict[int, list[str]] = field(default_factory=dict)  # seat -> allowed responses
    responses: dict[int, str] = field(default_factory=dict)

    def clone(self) -> "Window":
        return Window(
            self.kind, self.tile, self.source, {s: a[:] for s, a in self.allowed.items()}, dict(self.responses)
        )


_owned_note = "_owned"  # a HandState's private note (not a field): the seats it copied and may change in place


@dataclass
class HandState:
    """Everything about the hand in play."""

    number: int
    dealer: int
    wild: Optional[int]
    commitment: str
    seed: Optional[str]
    wall: list[int]  # the whole wall as dealt from, never mutated: draws move `head`, kong draws move `tail`
    head: int = 0
    tail: int = 0
    wall_parts: Optional[dict[str, Any]] = None  # joint walls (G-11): {"server", "seats"} the seed came from
    seats: list[SeatHand] = field(default_factory=lambda: [SeatHand() for _ in range(4)])
    turn: int = 0
    drawn: Optional[int] = None  # the tile just drawn by `turn`, if the turn began with a draw
    draw_source: str = "deal"  # "deal" | "wall" | "kong" | "claim"
    need_draw: bool = False  # `turn` must draw before acting
    window: Optional[Window] = None
    pending_kong: Optional[tuple[int, int]] = None  # (seat, tile) of an added kong under the rob window
    kongs: list[dict[str, Any]] = field(default_factory=list)  # declared kongs, for K-9 settlement
    discard_count: int = 0  # discards so far (天胡/地胡, H-7)
    kong_count: int = 0
    dealer_ting_then_hu: bool = False  # 含山 H-4: the dealer declared without a discard and must hu
    win: Optional[dict[str, Any]] = None  # {"seat", "tile", "by", "from"} once won

    @property
    def wall_count(self) -> int:
        return self.tail - self.head

    @property
    def won(self) -> dict[str, Any]:
        """The win of the hand, for code that runs only once someone won (settlement)."""
        if self.win is None:
            raise ValueError("nobody has won this hand")
        return self.win

    @property
    def open_window(self) -> Window:
        """The window in play, for code that runs only while one is open."""
        if self.window is None:
            raise ValueError("no claim, rob or 报听 window is open")
        return self.window

    def clone(self) -> "HandState":
        """A copy whose seats are shared with this hand until one of the two changes a seat
        (`seat_to_change` copies it first): a command changes one or two seats, not four."""
        new = _shallow(self)
        new.seats = self.seats[:]
        self.__dict__.pop(_owned_note, None)  # the seats are shared now: neither hand may change them in place
        new.__dict__.pop(_owned_note, None)
        new.window = self.window.clone() if self.window else None
        new.kongs = self.kongs[:]
        new.win = dict(self.win) if self.win else None
        return new  # `wall` is never mutated, so copies share it

    def seat_to_change(self, seat: int) -> SeatHand:
        """Seat `seat`'s hand, to be changed in place: copied first unless this hand owns it (a
        seat shared with a copy of the hand is never changed; engine.evolve changes seats this way)."""
        owned: Optional[set[int]] = self.__dict__.get(_owned_note)
        if owned is None:
            owned = self.__dict__[_owned_note] = set()
        if seat not in owned:
            self.seats[seat] = self.seats[seat].clone()
            owned.add(seat)
        return self.seats[seat]


@dataclass
class MatchState:
    """The whole match: options, running scores, dealer, and the hand in play."""

    variant: Optional[str] = None
    options: dict[str, Any] = field(default_factory=dict)
    phase: str = LOBBY
    first_dealer: int = 0
    dealer: int = 0
    hands_played: int = 0
    deal_moves: int = 0  # times the deal passed to the dealer's 下家 (K-14 rounds)
    scores: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    hand: Optional[HandState] = None
    last_result: Optional[dict[str, Any]] = None  # the previous hand's hand_ended payload
    last_hand: Optional[HandState] = None  # the hand `last_result` settled, as it ended (never changed after)
    version: int = 0  # engine events folded so far
    rules_version: int = RULES_VERSION  # the rules the match is played under (match_started; 1 if absent)
    #: joint walls (G-11): the last revealed link of the server's committed chain (the match's
    #: commitment until hand 1 is dealt); None in a match dealt from server seeds alone
    wall_link: Optional[str] = None
    #: derived answers, cleared per event but for the rule hooks ("rules", built from the variant,
    #: options and rules version, which only match_started sets)
    cache: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def in_hand(self) -> HandState:
        """The hand in play, for code that runs only while one is."""
        if self.hand is None:
            raise ValueError("no hand is in play")
        return self.hand

    @property
    def needs_new_hand(self) -> bool:
        return self.phase in (LOBBY, HAND_OVER) and self.variant is not None

    def clone(self) -> "MatchState":
        new = _shallow(self)
        new.scores = self.scores[:]
        rules = self.cache.get("rules")  # the rule hooks (engine.actions.variant_of): the same for the copy
        new.cache = {} if rules is None else {"rules": rules}
        new.hand = self.hand.clone() if self.hand else None
        return new


_T = TypeVar("_T")


def _shallow(obj: _T) -> _T:
    """A shallow copy without copy.copy's generic protocol (clone is on the hot path of every event)."""
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    return new
