"""A match's replay frames, as the query module hands them out (service/usecases/reads.py, `Reads.replay`).

The steps of the match (or of one hand) as the engine's view for the chosen seat, folded from the
latest snapshot before the page (time and memory bound by the page, not by the match); each answer
carries `index`, every hand with its page and versions. A match in play replays only for its owner
and only as the public sees it, in the public numbering.
"""

from __future__ import annotations

import gzip
import json
from typing import Any, Optional

from engine import variants as engine_variants
from engine.bot_strong import NORMAL_BUDGET, Budget
from engine.wall import SeedError, joint_parts, joint_seed, links_to
from replay_viewer.frames import build_frames, parse_perspective

from . import match_log
from .access import is_owner
from ..infra.repository import MatchRepository
from ..infra.sized_cache import SizedCache
from ..infra.tokens import Tokens
from ..model.errors import Forbidden, Invalid, NotFound, Rejected, Unauthenticated
from ..model.match import Loaded

HAND_MARKS = ("hand_started", "hand_ended")


def perspective_for(tokens: Tokens, loaded: Loaded, owner_token: Optional[str], seat: Optional[str]) -> Any:
    """Whose view the frames show: a match in play only to its owner and as the public sees it
    (None); a finished match to anyone, from `seat` ("all" or 0..3)."""
    if not loaded.over:
        if not owner_token:
            raise Unauthenticated("missing_token", "a match in play replays only for its owner (?owner=<token>)")
        if not is_owner(tokens, loaded, owner_token):
            raise Forbidden("not_owner", "the token is not this match's owner token")
        return None  # hidden information removed while the match is in play
    try:
        return parse_perspective(seat)
    except ValueError as exc:
        raise Invalid("invalid_seat", str(exc)) from None


def page_asked(text: Optional[str]) -> Optional[int]:
    """The page `?hand=` asks for (None: the whole match)."""
    if text is None:
        return None
    if not text.isdigit() or len(text) > 6:
        raise Invalid("invalid_hand", "hand must be a page number 0, 1, 2 ...")
    return int(text)


def frames(
    repo: MatchRepository,
    cache: SizedCache,
    loaded: Loaded,
    perspective: Any,
    page: Optional[int],
    whole: int,
    budget: Budget = NORMAL_BUDGET,
) -> bytes:
    """The gzipped frames of one page (`page` None: the whole match, refused beyond `whole` hands),
    cached by size; a seat's review judges with the evaluator `budget` allows (engine.review)."""
    index = hand_index(repo, cache, loaded)
    if page is None and len(index) > whole:
        raise Rejected(
            "replay_paged",
            f"this match has {len(index)} hands: ask one at a time (?hand=0..{len(index) - 1})",
            pages=pages(index),
        )
    if page is not None and page >= pages(index):
        raise NotFound("no_such_hand", f"this match has {pages(index)} page(s) of frames")
    key = (loaded.match_id, loaded.version, perspective, page, budget)
    body = cache.get(key)
    if body is None:
        body = frames_body(repo, loaded, perspective, index, page, budget)
        cache.put(key, body, len(body))
    return body


def hand_index(repo: MatchRepository, cache: SizedCache, loaded: Loaded) -> list[dict]:
    """Every hand of the match: number, dealer, page, first/last version, scores once ended; read
    from the hand_started/hand_ended events only (two per hand), cached by size."""
    key = (loaded.match_id, loaded.version, "index")
    found = cache.get(key)
    if found is not None:
        return found
    hands: list[dict] = []
    link = loaded.room.wall_commitment  # joint walls: each hand's server part must hash to this
    for item in repo.read_types(loaded.match_id, HAND_MARKS):
        if item.type == "hand_started":
            hands.append(
                {
                    "hand": item.payload["hand"],
                    "dealer": item.payload["dealer"],
                    "page": len(hands),
                    "first": item.version,
                    "last": None,
                    "scores": None,
                    "deltas": None,
                }
            )
        elif hands:
            hands[-1].update(
                last=item.version, scores=list(item.payload["scores"]), deltas=item.payload["settlement"]["deltas"]
            )
            derivation = wall_derivation(item.payload, link)
            if derivation is not None:
                hands[-1]["wall"] = derivation
                link = derivation["server"]
    cache.put(key, hands, 300 * len(hands) + 100)
    return hands


def wall_derivation(ended: dict, previous: Optional[str]) -> Optional[dict]:
    """How an ended hand's wall was derived (G-11 joint walls), as the replay shows it: the revealed
    server part, the seats' parts, the seed, and whether the part hashes to the previous link and
    the parts give the seed (engine/wall.py; `tilefold verify` checks the wall itself too)."""
    parts = ended.get("wall_parts")
    if not isinstance(parts, dict) or previous is None:
        return None
    try:
        server, seats = joint_parts(parts)
        links = links_to(server, previous)
        derived = joint_seed(server, int(ended["hand"]), seats).hex() == ended.get("seed")
    except (SeedError, KeyError, TypeError, ValueError):
        links = derived = False
    return {
        "server": parts.get("server"),
        "seats": parts.get("seats"),
        "previous": previous,
        "seed": ended.get("seed"),
        "commitment": ended.get("commitment"),
        "links": links,
        "derived": derived,
    }


def pages(index: list[dict]) -> int:
    return max(1, len(index))


def page_versions(loaded: Loaded, index: list[dict], page: Optional[int]) -> tuple[int, int]:
    """(after, until) versions of a page: hand K's events, the opening ones on page 0, the closing
    ones on the last page; the whole match without a page."""
    if page is None:
        return 0, loaded.version
    after = index[page - 1]["last"] if page > 0 else 0
    last_page = page >= pages(index) - 1
    until = loaded.version if last_page or index[page]["last"] is None else index[page]["last"]
    return after, until


def frames_body(
    repo: MatchRepository,
    loaded: Loaded,
    perspective: Any,
    index: list[dict],
    page: Optional[int],
    budget: Budget = NORMAL_BUDGET,
) -> bytes:
    """The frames of one page, folded from the latest snapshot before it: time and memory bound by
    the page (one hand), not by the match."""
    after, until = page_versions(loaded, index, page)
    start = repo.at(loaded.match_id, after) if after > 0 else None
    stored = repo.read(loaded.match_id, after, until=until)
    out = build_frames(stored, perspective, match_log.service_types(), start.state if start else None, budget)
    out.update(
        {
            "id": loaded.match_id,
            "variant": loaded.room.variant,
            "options": loaded.room.options,
            "status": "over" if loaded.over else "playing",
            "version": loaded.version,
            "seats": loaded.room.public_seats(),
            "names": match_log.pattern_names(),
            "variants": engine_variants.display_all(),  # labels and wild names from the variant registry
            "imported": match_log.import_record(repo, loaded.match_id) is not None,
            "index": index,
            "page": page,
            "pages": pages(index),
            "first_version": after + 1,
            "last_version": until,
        }
    )
    if not loaded.over:
        public_numbers(out, loaded)
    raw = json.dumps(out, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return gzip.compress(raw, compresslevel=6, mtime=0)  # cached compressed; inflated for a client without gzip


def public_numbers(out: dict, loaded: Loaded) -> None:
    """A match in play replays as the public sees it, so its versions are in the public numbering
    too (service/model/numbering.py: no gap where a hidden window answer was); a finished match's replay
    shows everything, in the stream's own numbering."""
    numbering = loaded.numbering

    def public(version):
        return None if version is None else numbering.local(version, None)

    for step in out["steps"]:
        step["version"] = public(step["version"])
    out["version"] = public(out["version"])
    out["first_version"] = public(out["first_version"] - 1) + 1
    out["last_version"] = public(out["last_version"])
    out["index"] = [{**hand, "first": public(hand["first"]), "last": public(hand["last"])} for hand in out["index"]]
