"""The greedy baseline the bot levels are measured against (bench/bots.py); not a bot level.

Always wins when it may, always declares ready (报听) when it may, discards to be as few steps from
ready as it can (engine.analysis shanten; ties: the most unseen tiles that bring it nearer, then the
lowest kind), pungs or kongs only when that brings the hand nearer ready (a kong: no further), and
passes everything else. It knows what the seat knows (engine.bot_normal.Knowledge) and nothing of
points, patterns or danger.
"""

from __future__ import annotations

from typing import Any

from engine import analysis as A
from engine.actions import legal_actions
from engine.bot_normal import Knowledge
from engine.state import MatchState
from engine.tiles import kind, name


def greedy_action(state: MatchState, seat: int) -> dict[str, Any]:
    acts = legal_actions(state, seat)
    by: dict[str, list[dict[str, Any]]] = {}
    for act in acts:
        by.setdefault(act["action"], []).append(act)
    if "hu" in by:
        return by["hu"][0]
    know = Knowledge.of(state, seat)
    if "ting" in by:
        bare = [c for c in by["ting"] if "tile" not in c]
        return bare[0] if bare else {"action": "ting", "tile": name(_best(know, by["ting"]))}
    window = state.in_hand.window
    for claim in ("kong", "pung"):
        for choice in by.get(claim, []):
            tile = kind(choice["tile"]) if "tile" in choice else window.tile if window else None
            if tile is not None and _claim_helps(know, tile, claim == "kong"):
                return choice
    if "pass" in by:
        return {"action": "pass"}
    return {"action": "discard", "tile": name(_best(know, by["discard"]))}


def _best(know: Knowledge, choices: list[dict[str, Any]]) -> int:
    tiles = [kind(c["tile"]) for c in choices]
    options = A.discard_options(list(know.counts), know.sets, know.rules, know.hidden, None, tiles)
    return options[0].tile


def _claim_helps(know: Knowledge, tile: int, kong: bool) -> bool:
    counts = list(know.counts)
    before = A.hand_shanten(counts, know.sets, know.rules)
    held = counts[tile]
    counts[tile] = 0 if kong else held - 2
    sets = know.sets - (0 if kong and held == 1 else 1)  # an added kong upgrades a pung already counted
    after = A.hand_shanten(counts, sets, know.rules)
    return after <= before if kong else after < before
