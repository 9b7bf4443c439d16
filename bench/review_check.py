"""The review check: every seat of all-bot matches of each rule set is reviewed (engine.review), and
each entry is checked against the state the engine had at that seat's decision.

    python bench/review_check.py [MATCHES] [HANDS]     (default 40 matches of 4 hands per rule set)

The matches are played with `normal` and `easy` bots at alternate seats (so that reviews have moves
to disagree with), from fixed seeds (engine.selfplay.seeds_from, labels printed with any failure).
A chooser records the state at every decision; then for every review entry of every seat:

- the entry sits at the first event of one of that seat's decisions, at most one entry per decision;
- a 漏胡 or 过胡 flag names a decision whose legal actions offered "hu";
- a discard entry's move and its "best" are discards the legal actions offered at that decision;
- a flagged "best" is never worse than the move made in the analyser's own measure (fewer steps to
  ready, then the value of the waits, then the unseen improving tiles), and never further from ready
  by engine.analysis.hand_shanten on the decision's hand;
- and no review raises.

tests/engine/test_review_check.py runs a bounded number of these matches.
"""

from __future__ import annotations

import sys
import time
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import analysis as A  # noqa: E402
from engine.actions import legal_actions  # noqa: E402
from engine.bot import bot_action  # noqa: E402
from engine.bot_normal import Knowledge  # noqa: E402
from engine.review import review  # noqa: E402
from engine.selfplay import play_match, seeds_from  # noqa: E402
from engine.state import MatchState  # noqa: E402
from engine.tiles import kind  # noqa: E402

RULE_SETS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("koudiandian", {}),
    ("koudiandian", {"wilds": True}),
    ("hanshan", {}),
)
LEVELS = ("normal", "easy", "normal", "easy")


def _key(judged: dict[str, Any]) -> tuple[Any, ...]:
    return (judged["shanten"], -judged["wait_value"], -judged["improving_unseen"])


def check_match(variant: str, options: dict[str, Any], label: str, hands: int) -> tuple[int, list[str]]:
    """Play one match from the seeds of `label`, review every seat; (entries checked, problems)."""
    decisions: dict[tuple[int, int], MatchState] = {}

    def chooser(state: MatchState, seat: int) -> dict[str, Any]:
        decisions[(seat, state.version)] = state  # step() never changes a state it was given
        return bot_action(state, seat, LEVELS[seat])

    _, log = play_match(variant, {**options, "hands": hands}, seeds_from(label), chooser)
    problems: list[str] = []
    checked = 0
    for seat in range(4):
        where = f"{variant} {options} seeds {label!r} seat {seat}"
        try:
            entries = review(log, seat)
        except Exception:  # noqa: BLE001 - the check reports any exception as a failure
            problems.append(f"{where}: review raised\n{traceback.format_exc()}")
            continue
        seen: set[int] = set()
        for entry in entries:
            checked += 1
            at = entry["index"]
            state = decisions.get((seat, at))
            if state is None or at in seen:
                problems.append(f"{where} event {at}: {entry['kind']} not at a decision of its own, or twice")
                continue
            seen.add(at)
            problems += [f"{where} event {at}: {p}" for p in _entry_problems(state, seat, entry)]
    return checked, problems


def _entry_problems(state: MatchState, seat: int, entry: dict[str, Any]) -> list[str]:
    acts = legal_actions(state, seat)
    out = []
    if entry["kind"] in ("missed_hu", "passed_hu") and {"action": "hu"} not in acts:
        out.append(f"{entry['kind']} flagged, but no win was legal at that decision")
    if "made" not in entry:
        return out
    offered = {a["tile"] for a in acts if a["action"] in ("discard", "ting") and "tile" in a}
    if entry["made"] not in offered or not set(entry["best"]) <= offered:
        out.append(f"made {entry['made']} / best {entry['best']} not among the legal discards {sorted(offered)}")
    if entry["differs"]:
        if _key(entry["best_judged"]) > _key(entry["made_judged"]):
            out.append(f"flagged best {entry['best_judged']} is worse than the move {entry['made_judged']}")
        know = Knowledge.of(state, seat)
        after = {}
        for t in (entry["made"], entry["best"][0]):
            rest = list(know.counts)
            rest[kind(t)] -= 1
            after[t] = A.hand_shanten(rest, know.sets, know.rules)
        if after[entry["best"][0]] > after[entry["made"]]:
            out.append(f"flagged best {entry['best'][0]} is further from ready than {entry['made']}: {after}")
    return out


def check(matches: int, hands: int, label: str = "review-check") -> tuple[int, list[str]]:
    total, problems = 0, []
    for variant, options in RULE_SETS:
        for m in range(matches):
            n, found = check_match(variant, options, f"{label}/{variant}/{sorted(options.items())}/{m}", hands)
            total += n
            problems += found
    return total, problems


def main() -> None:
    matches = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    hands = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    started = time.perf_counter()
    total, problems = check(matches, hands)
    print(
        f"{len(RULE_SETS)} rule sets x {matches} matches of {hands} hands: {total} review entries checked, "
        f"{len(problems)} problems, {time.perf_counter() - started:.0f} s"
    )
    for p in problems[:40]:
        print(" ", p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
