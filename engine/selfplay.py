"""Bots playing every seat: whole matches from given seeds (benchmarks, audit logs, demos)."""

from __future__ import annotations

import hashlib
from typing import Any, Callable, Iterator, Optional

from engine.bot import bot_action
from engine.actions import pending_seats
from engine.state import MatchState
from engine.table import initial_state, step


def seeds_from(label: str) -> Iterator[str]:
    """Deterministic 32-byte hex seeds from a label (for benchmarks and tests only; play uses `secrets`)."""
    n = 0
    while True:
        yield hashlib.sha256(f"{label}/{n}".encode()).hexdigest()
        n += 1


def play_match(
    variant: str,
    options: dict[str, Any],
    seeds: Iterator[str],
    chooser: Optional[Callable[[MatchState, int], dict[str, Any]]] = None,
) -> tuple[MatchState, list[dict[str, Any]]]:
    """Play a whole match with `chooser` (default: the bot) at every seat; return the state and events."""
    choose = chooser or bot_action
    state = initial_state()
    log: list[dict[str, Any]] = []

    def run(command: dict[str, Any]) -> None:
        nonlocal state
        events, state = step(state, command)
        log.extend(events)

    run({"action": "start_match", "variant": variant, "options": options})
    while state.phase != "match_over":
        if state.needs_new_hand:
            run({"action": "start_hand", "seed": next(seeds)})
            continue
        seat = pending_seats(state)[0]
        run(dict(choose(state, seat), seat=seat))
    return state, log
