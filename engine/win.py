"""The facts about one win that scoring needs (the `tilefold score` input, parsed): a leaf module the
registry, the scoring dispatcher (engine/scoring.py) and every variant's scoring read."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from engine.versions import RULES_VERSION

WIN_BY = ("self_draw", "discard", "rob_kong", "kong_draw")
KONG_KINDS = ("exposed", "added", "concealed")


@dataclass(frozen=True)
class Meld:
    """A declared set: `pung`, or `kong` with its kind (G-5)."""

    type: str  # "pung" | "kong"
    tile: int  # kind index (engine.tiles)
    kong: Optional[str] = None  # "exposed" | "added" | "concealed" for a kong, None for a pung


@dataclass(frozen=True)
class WinContext:
    """One claimed win. `concealed` holds every concealed tile *including* the winning tile."""

    variant: str  # a registered variant name (engine.variants), e.g. koudiandian
    options: dict[str, Any]  # normalised (engine.options.normalise)
    seat: int
    dealer: int
    concealed: tuple[int, ...]
    melds: tuple[Meld, ...]
    win_tile: int
    win_by: str  # one of WIN_BY; "kong_draw" = won on a kong replacement (杠上开花)
    discarder: Optional[int] = None  # discard/rob_kong: who fed the tile (the konger when robbed)
    discarder_ready: bool = False
    ready: bool = False  # declared 报听 (K-2; in 含山 declared at the deal, H-4)
    wild: Optional[int] = None  # wild kind of the hand (K-13 耗子 / H-2 配子), None without wilds
    heavenly: bool = False  # 含山: dealer's win on the first 14 tiles (tianhu)
    dealer_first_discard: bool = False  # 含山: won on the dealer's first discard (dihu)
    rules_version: int = RULES_VERSION  # the match's rules version (engine.versions)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def self_drawn(self) -> bool:
        return self.win_by in ("self_draw", "kong_draw")
