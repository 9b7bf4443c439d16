"""bench/rollouts.py: decisions judged by playing the rest of the hand from them, on copies of the state."""

from __future__ import annotations

from bench.rollouts import Differing, advantage, differing, player, rollout
from engine.actions import pending_seats
from engine.bot import bot_action
from engine.selfplay import seeds_from
from engine.table import initial_state, step


def _first_decision():
    _, state = step(initial_state(), {"action": "start_match", "variant": "hanshan", "options": {"hands": 1}})
    _, state = step(state, {"action": "start_hand", "seed": next(seeds_from("test-rollouts"))})
    seat = pending_seats(state)[0]
    return state, seat, bot_action(state, seat, "normal")


def test_given_a_decision_when_rolled_out_then_the_state_is_untouched_and_a_shuffle_gives_one_figure():
    state, seat, command = _first_decision()
    wall, head, tail = list(state.in_hand.wall), state.in_hand.head, state.in_hand.tail
    first = rollout(state, seat, command, "shuffle-1")
    assert rollout(state, seat, command, "shuffle-1") == first  # the same shuffle, the same hand
    assert (state.in_hand.wall, state.in_hand.head, state.in_hand.tail) == (wall, head, tail)
    assert state.phase != "match_over"


def test_given_a_choice_against_itself_then_its_advantage_is_zero():
    state, seat, command = _first_decision()
    assert advantage(Differing(state, seat, 1, command, command), 2, "hanshan") == 0.0


def test_given_the_same_player_on_both_sides_then_no_decision_differs():
    found, hands, decisions = differing("kdd", "normal", "normal", "normal", 1)
    assert (found, hands) == ([], 8)
    assert decisions > 0


def test_given_strong_with_a_budget_of_nothing_then_it_is_a_player_that_decides():
    state, seat, _ = _first_decision()
    assert player("strong/samples=0/ahead=0")(state, seat)["action"] in {"discard", "ting", "hu", "kong"}
