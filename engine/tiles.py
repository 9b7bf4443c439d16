"""Tile kinds and compact hand notation of G-1: `1m`..`9m`, `1p`..`9p`, `1s`..`9s`, `E S W N C F P`."""

from __future__ import annotations

from collections import Counter
from typing import Iterable

SUITS = "mps"
HONOURS = "ESWNCFP"
NUM_KINDS = 34
COPIES = 4
ALL_TILES = NUM_KINDS * COPIES  # 136 (G-1)

#: Kind index layout: 0-8 = 1m..9m, 9-17 = 1p..9p, 18-26 = 1s..9s, 27-33 = E S W N C F P.
KIND_NAMES: tuple[str, ...] = tuple([f"{r}{s}" for s in SUITS for r in range(1, 10)] + list(HONOURS))
_NAME_TO_KIND = {name: k for k, name in enumerate(KIND_NAMES)}
EAST, SOUTH, WEST, NORTH, RED, GREEN, WHITE = range(27, 34)

ZH_NAMES: tuple[str, ...] = tuple(
    [f"{'一二三四五六七八九'[r]}{s}" for s in "万筒条" for r in range(9)] + ["东", "南", "西", "北", "中", "发", "白"]
)


class TileError(ValueError):
    """A tile or hand string that does not follow the G-1 notation."""


def is_honour(kind: int) -> bool:
    return kind >= 27


def suit_of(kind: int) -> int | None:
    """0 = 万 m, 1 = 筒 p, 2 = 条 s, None for an honour."""
    return None if kind >= 27 else kind // 9


def rank_of(kind: int) -> int | None:
    """1..9 for a suit tile, None for an honour."""
    return None if kind >= 27 else kind % 9 + 1


def is_terminal_or_honour(kind: int) -> bool:
    return kind >= 27 or kind % 9 in (0, 8)


def points(kind: int) -> int:
    """K-1: a suit tile is worth its rank, an honour 10."""
    return 10 if kind >= 27 else kind % 9 + 1


def kind(name: str) -> int:
    """Parse one tile name (`5m`, `E`) to its kind index."""
    try:
        return _NAME_TO_KIND[name]
    except (KeyError, TypeError):
        raise TileError(f"not a tile: {name!r} (expected 1m..9m, 1p..9p, 1s..9s or one of {HONOURS})") from None


def name(k: int) -> str:
    return KIND_NAMES[k]


ASCII_DIGITS = frozenset("0123456789")


def parse(text: str, *, max_copies: int = COPIES) -> list[int]:
    """Parse a compact hand string such as `123m456p789sEEECC` to a list of kinds, in order.

    Raises TileError for unknown characters, a rank outside 1..9, digits without a suit
    letter, or more than four copies of a kind.
    """
    if not isinstance(text, str):
        raise TileError(f"hand must be a string, got {type(text).__name__}")
    out: list[int] = []
    digits: list[str] = []
    for pos, ch in enumerate(text.strip()):
        if ch in ASCII_DIGITS:  # "١23m" or "²23m" are unknown characters, not ranks
            if ch == "0":
                raise TileError(f"rank 0 at position {pos} in {text!r}: ranks run 1..9 (is this '10'?)")
            digits.append(ch)
        elif ch in SUITS:
            if not digits:
                raise TileError(f"suit letter {ch!r} at position {pos} in {text!r} has no ranks before it")
            out.extend(_NAME_TO_KIND[d + ch] for d in digits)
            digits = []
        elif ch in HONOURS:
            if digits:
                raise TileError(f"ranks {''.join(digits)!r} in {text!r} are not followed by a suit letter m/p/s")
            out.append(_NAME_TO_KIND[ch])
        elif ch.isspace():
            continue
        else:
            raise TileError(f"unknown character {ch!r} at position {pos} in {text!r}")
    if digits:
        raise TileError(f"ranks {''.join(digits)!r} at the end of {text!r} have no suit letter")
    check_copies(out, max_copies=max_copies, context=text)
    return out


def check_copies(kinds: Iterable[int], *, max_copies: int = COPIES, context: str = "") -> None:
    for k, n in Counter(kinds).items():
        if n > max_copies:
            where = f" in {context!r}" if context else ""
            raise TileError(f"{n} copies of {KIND_NAMES[k]}{where}: there are only {max_copies} of each kind")


def format_hand(kinds: Iterable[int]) -> str:
    """Print kinds as a compact, sorted hand string (`123m456p789sEEECC`)."""
    ks = sorted(kinds)
    parts: list[str] = []
    for s_index, s in enumerate(SUITS):
        ranks = "".join(str(k % 9 + 1) for k in ks if k // 9 == s_index and k < 27)
        if ranks:
            parts.append(ranks + s)
    parts.extend(HONOURS[k - 27] for k in ks if k >= 27)
    return "".join(parts)


def to_counts(kinds: Iterable[int]) -> list[int]:
    counts = [0] * NUM_KINDS
    for k in kinds:
        counts[k] += 1
    return counts


def full_set() -> list[int]:
    """The 136 tiles of G-1, in kind order."""
    return [k for k in range(NUM_KINDS) for _ in range(COPIES)]
