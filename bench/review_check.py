"""The review check: every seat of all-bot matches of each rule set is reviewed (engine.review), and
each entry is checked against the state the engine had at that seat's decision.

    python bench/review_check.py [MATCHES] [HANDS]     (default 40 matches of 4 hands per rule set)

The matches are played with `normal` and `easy` bots at alternate seats (so that reviews have moves
to disagree with), from fixed seeds (engine.selfplay.seeds_from, labels printed with any failure).
A chooser records the state at every decision; then for every review entry of every seat:

- the entry sits at the first event of one of that seat's decisions, at most one entry per decision;
- a 漏胡 or 过胡 flag names a decision whose legal actions offered "hu";
- a discard entry's move and its "best" are discards the legal actions offered at that decision;
- the "best" is the discard the `strong` bot's evaluator takes at that decision (the review's budget
  here is `strong`'s own, engine.bot_strong.BUDGET), recomputed here from the state the chooser saw
  (engine.bot_strong.looked_ahead over the legal discards, every one judged in full, with the sampled
  danger of that seat's view; best_scored), and the move made is in "best" exactly when it scores as
  well (worth less danger, to 6 places); and `normal`'s bounded search (engine.bot_normal.
  score_discards, which leaves out the discards that cannot be best) takes the discard its full
  judging of every discard takes;
- a flagged "best" is strictly better than the move made in the evaluator's own measure, and the
  figures the entry shows for both (worth, danger) are the evaluator's;
- a flagged "best" is never further from ready (engine.analysis.hand_shanten on the decision's hand)
  unless the entry says what justified it, and that holds: defence ("safer": less danger, the move
  made worth as much or more), a flush plan ("flush": the best's worth is its flush plan's), a
  ready hand that may not declare (K-2, "cannot_declare": no wait of the move made worth 6 or more),
  a ready hand on poor waits ("waits_poor": the move made was ready and worth less), a narrow
  hand ("few_improving": the move made not ready, worth less, with fewer unseen improving tiles), or
  poor ready hands one draw ahead ("ready_hands_poor": the move made a step from ready, judged one
  draw ahead and worth less);
- and no review raises.

tests/engine/test_review_check.py runs a bounded number of these matches.
"""

from __future__ import annotations

from dataclasses import replace

import sys
import time
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import analysis as A  # noqa: E402
from engine.actions import legal_actions  # noqa: E402
from engine.bot import bot_action  # noqa: E402
from engine.bot_normal import Knowledge, best_scored, can_declare, score_discards  # noqa: E402
from engine.bot_strong import BUDGET, looked_ahead, sampled_danger  # noqa: E402
from engine.review import review  # noqa: E402
from engine.selfplay import play_match, seeds_from  # noqa: E402
from engine.state import MatchState  # noqa: E402
from engine.tiles import kind  # noqa: E402
from engine.views import seat_view  # noqa: E402

RULE_SETS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("koudiandian", {}),
    ("koudiandian", {"wilds": True}),
    ("hanshan", {}),
)
LEVELS = ("normal", "easy", "normal", "easy")


# the reasons that may take a step back from ready
JUSTIFIED = ("safer", "flush", "cannot_declare", "waits_poor", "few_improving", "ready_hands_poor")


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
            entries = review(log, seat, budget=BUDGET)
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
    know = replace(Knowledge.of(state, seat), waits_scored=BUDGET.waits)
    made, best = kind(entry["made"]), kind(entry["best"][0])
    danger = sampled_danger(seat_view(state, seat), know, BUDGET.samples)
    tiles = sorted({kind(t) for t in offered})
    scores = looked_ahead(know, tiles, danger, BUDGET.ahead, exact=(made,))
    bounded = best_scored(know, score_discards(know, tiles, danger))
    if bounded != best_scored(know, score_discards(know, tiles, danger, exact=range(34))):
        out.append(f"normal's bounded search takes {bounded}, not the discard its full judging takes")
    top = best_scored(know, scores)
    if best != top:
        out.append(f"best {entry['best'][0]} is not the evaluator's choice {top}")
    if (made in {kind(t) for t in entry["best"]}) != (scores[made].rounded == scores[top].rounded):
        out.append(f"made {entry['made']} in best {entry['best']} disagrees with the evaluator's scores")
    for side, t in (("made_judged", made), ("best_judged", best)):
        shown = entry[side]
        if abs(shown["worth"] - scores[t].worth) > 1e-4 or abs(shown["danger"] - scores[t].danger) > 1e-4:
            out.append(f"{side} {shown} does not show the evaluator's worth/danger {scores[t]}")
    if entry["differs"]:
        if not scores[best].rounded > scores[made].rounded:
            out.append(f"flagged best {scores[best]} is not better than the move {scores[made]}")
        after = {}
        for t in (made, best):
            rest = list(know.counts)
            rest[t] -= 1
            after[t] = A.hand_shanten(rest, know.sets, know.rules)
        if after[best] > after[made] and not _justified(know, entry, scores[best], scores[made], after[made]):
            out.append(
                f"flagged best {entry['best'][0]} is further from ready than {entry['made']}: {after}, {entry['why']}"
            )
    return out


def _justified(know: Knowledge, entry: dict[str, Any], best: Any, made: Any, made_steps: int) -> bool:
    """A step back from ready is explained by the entry, and its reason holds in the evaluator's figures."""
    reason = entry["reason"]
    if reason not in JUSTIFIED:
        return False
    if reason == "safer":
        return best.danger < made.danger and best.worth <= made.worth
    if reason == "flush":
        return best.flush is not None and best.worth > best.plain
    if reason == "cannot_declare":
        waits = [kind(w["tile"]) for w in entry["made_judged"]["waits"]]
        return made_steps == 0 and not can_declare(know, waits)
    if reason == "waits_poor":
        return made_steps == 0 and made.worth < best.worth
    if reason == "ready_hands_poor":
        return made_steps == 1 and made.ahead and made.worth < best.worth
    improving = entry["best_judged"]["improving_unseen"] > entry["made_judged"]["improving_unseen"]
    return made_steps > 0 and made.worth < best.worth and improving


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
