"""Bots at three levels (easy = the simple bot, normal = engine.bot_normal, strong = engine.bot_strong)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from engine.actions import legal_actions
from engine.bot import bot_action
from engine.bot_normal import Knowledge, normal_action
from engine.selfplay import play_match, seeds_from
from engine.state import TURN
from engine.tiles import kind


@pytest.mark.parametrize("variant", ["koudiandian", "hanshan"])
def test_given_normal_bots_when_they_play_a_match_then_every_choice_is_legal(variant):
    def chooser(state, seat):
        choice = bot_action(state, seat, "normal")
        assert choice in legal_actions(state, seat)
        return choice

    state, _ = play_match(variant, {"hands": 2}, seeds_from(f"bots/{variant}"), chooser)
    assert state.phase == "match_over"


def _mid_hand_states(variant: str, label: str, want: int = 12):
    """States where a seat must discard, from a normal-bot match."""
    found = []

    def chooser(state, seat):
        if state.phase == TURN and len(found) < want and len(legal_actions(state, seat)) > 2:
            found.append((state, seat))
        return bot_action(state, seat, "normal")

    play_match(variant, {"hands": 1}, seeds_from(label), chooser)
    return found


def _scramble_hidden(state, seat, rng):
    """The same state with every tile the seat cannot see moved: other hands and the wall."""
    other = state.clone()
    hand = other.hand
    hidden = [k for s in range(4) if s != seat for k, n in enumerate(hand.seats[s].counts) for _ in range(n)]
    hidden += hand.wall[hand.head : hand.tail]
    rng.shuffle(hidden)
    at = 0
    for s in range(4):
        if s == seat:
            continue
        size = sum(hand.seats[s].counts)
        counts = [0] * 34
        for k in hidden[at : at + size]:
            counts[k] += 1
        hand.seats[s] = dataclasses.replace(hand.seats[s], counts=counts)  # seats are shared with `state`: replaced
        at += size
    wall = list(hand.wall)
    wall[hand.head : hand.tail] = hidden[at:]
    hand.wall = wall
    return other


@pytest.mark.parametrize("variant", ["koudiandian", "hanshan"])
def test_given_hidden_tiles_moved_when_normal_decides_then_the_same_choice(variant):
    """The bot only uses what its seat can know: other hands and the wall do not change its choice."""
    rng = random.Random(18)
    states = _mid_hand_states(variant, f"secrecy/{variant}")
    assert states
    for state, seat in states:
        assert normal_action(_scramble_hidden(state, seat, rng), seat) == normal_action(state, seat)


def test_knowledge_counts_unseen_tiles_from_the_seat_view():
    (state, seat), *_ = _mid_hand_states("koudiandian", "knowledge", 1)
    know = Knowledge.of(state, seat)
    me = state.hand.seats[seat]
    for k in range(34):
        assert 0 <= know.hidden[k] <= 4 - me.counts[k]


def test_given_an_unready_discarder_and_a_declared_hand_then_normal_prefers_a_tile_under_6_K4_K8():
    """扣点点: against a declared hand, a seat two steps from ready throws a tile no discard can win on."""
    from engine.bot_normal import _danger

    know = Knowledge(
        "koudiandian",
        {},
        0,
        0,
        tuple([0] * 34),
        (),
        tuple([4] * 34),
        __import__("engine.analysis", fromlist=["Rules"]).Rules.of("koudiandian", None),
        False,
        (1,),
        frozenset({kind("9p")}),
    )
    assert _danger(know, kind("5m")) == 0  # K-4: 5 points never wins on a discard
    assert _danger(know, kind("9p")) == 0  # let go by the declared hand after declaring
    assert _danger(know, kind("E")) == 1


def test_api_bots_take_a_level_and_name_themselves_after_their_seat(api):
    match_id, owner = api.create("hanshan", {"hands": 1})
    api.join(match_id, "Alice")
    reply = api.call("POST", f"/api/matches/{match_id}/bots", {"level": "easy", "count": 1}, token=owner)
    assert reply.status == 200, reply
    reply = api.call("POST", f"/api/matches/{match_id}/bots", {}, token=owner)
    seats = reply.body["match"]["seats"]
    assert [s["name"] for s in seats[1:]] == ["Bot 2", "Bot 3", "Bot 4"]
    assert [s.get("level") for s in seats] == [None, "easy", "normal", "normal"]


def test_api_rejects_an_unknown_bot_level(api):
    match_id, owner = api.create("hanshan", {"hands": 1})
    reply = api.call("POST", f"/api/matches/{match_id}/bots", {"level": "grandmaster"}, token=owner)
    assert reply.status == 400


def test_given_a_scoring_budget_when_a_ready_discard_has_more_live_waits_then_the_likeliest_are_scored():
    """Bounded work per decision: with a budget of 2, the two waits with the most unseen copies are
    scored (ties: kind order), the other live waits count at their mean, dead waits at 0."""
    from engine import analysis as A
    from engine.bot_normal import _ready_worth, _with_values

    counts = to_counts_of("123m456p789s23sEE1m")  # the hand only carries the counts: the option is given
    hidden = [4] * 34
    hidden[kind("1s")], hidden[kind("4s")], hidden[kind("E")] = 1, 3, 0
    know = Knowledge("test", {}, 0, 0, tuple(counts), (), tuple(hidden), A.Rules(), False, (), frozenset())
    option = A.DiscardOption(kind("1m"), 0, (kind("1s"), kind("4s"), kind("7s"), kind("E")), 10)
    scored = []

    def gains(rest, t):
        scored.append(t)
        own = {kind("4s"): 10, kind("7s"): 20}.get(t, 99)
        return own, (own // 2 if t == kind("7s") else 0)  # only 7s may win on a discard

    judged = _with_values(know, counts, option, gains, 2)
    assert scored == [kind("7s"), kind("4s")]  # 4 and 3 unseen copies before 1s (1 copy); E is dead
    assert judged.waits == ((kind("1s"), 1, 15), (kind("4s"), 3, 10), (kind("7s"), 4, 20), (kind("E"), 0, 0))
    assert judged.wait_value == _ready_worth([(kind("7s"), 4, 20, 10), (kind("4s"), 3, 10, 0), (kind("1s"), 1, 15, 5)])
    assert _with_values(know, counts, option, gains, None).wait_value == _ready_worth(
        [(kind("7s"), 4, 20, 10), (kind("4s"), 3, 10, 0), (kind("1s"), 1, 99, 0)]
    )


def test_given_two_waits_alike_when_only_one_may_win_on_a_discard_then_that_one_is_worth_more():
    """K-4 / H-3: a wait that may also win on another seat's discard comes more often (three seats
    discard) though a discard win gains less than a self-draw (K-7); a dead wait is worth nothing."""
    from engine.bot_normal import _ready_worth

    self_draw_only = _ready_worth([(kind("5m"), 4, 30, 0)])
    also_on_discards = _ready_worth([(kind("5m"), 4, 30, 15)])
    assert also_on_discards > self_draw_only > 0
    assert _ready_worth([(kind("5m"), 0, 30, 15)]) == 0.0


def test_given_two_discard_waits_alike_when_one_is_an_honour_then_it_is_worth_more():
    """Other seats let honours and 1/9 go more readily than middle tiles (measured in self-play), so a
    wait on one is likelier to be fed."""
    from engine.bot_normal import _ready_worth

    assert _ready_worth([(kind("E"), 2, 30, 15)]) > _ready_worth([(kind("5m"), 2, 30, 15)])


def test_given_a_declared_hand_when_an_honour_has_no_copy_unseen_then_feeding_it_costs_nothing():
    """扣点点 K-8 defence: an honour wait needs a copy in the declared hand, so an honour whose copies
    are all seen cannot feed it; a suit tile with no copy unseen still can (a sequence wait)."""
    from engine import analysis as A
    from engine.bot_normal import feeding_cost

    counts = to_counts_of("123m456p789s23sEE9m")
    hidden = [4] * 34
    hidden[kind("E")], hidden[kind("9m")] = 0, 0
    know = Knowledge("koudiandian", {}, 0, 0, tuple(counts), (), tuple(hidden), A.Rules(), False, (1,), frozenset())
    assert feeding_cost(know, kind("E")) == 0.0
    assert 0 < feeding_cost(know, kind("9m")) < feeding_cost(know, kind("9p"))


def test_the_variants_cap_the_waits_the_normal_bot_scores_where_scoring_is_dear():
    """含山 scores a win over 25 patterns and every reading: its entry caps the waits scored per decision;
    扣点点's scoring is cheap and uncapped, so its normal bot values every live wait."""
    from engine.variants import get

    assert get("hanshan").bot_scored_waits == 3
    assert get("koudiandian").bot_scored_waits is None


def to_counts_of(text):
    from engine.tiles import parse, to_counts

    return to_counts(parse(text))


RULE_SETS = [("koudiandian", {}), ("koudiandian", {"wilds": True}), ("hanshan", {})]
RULE_SET_IDS = ["koudiandian", "koudiandian-wilds", "hanshan"]


@pytest.mark.parametrize("variant, options", RULE_SETS, ids=RULE_SET_IDS)
def test_given_strong_bots_when_they_play_a_match_then_every_choice_is_legal(variant, options):
    def chooser(state, seat):
        choice = bot_action(state, seat, "strong")
        assert choice in legal_actions(state, seat)
        return choice

    state, _ = play_match(variant, {**options, "hands": 2}, seeds_from(f"strong/{variant}/{options}"), chooser)
    assert state.phase == "match_over"


def _declared_states(label: str, want: int = 10):
    """扣点点 states where a seat must discard while another seat has declared (the sampling runs)."""
    found = []

    def chooser(state, seat):
        hand = state.hand
        declared = any(hand.seats[s].ready for s in range(4) if s != seat)
        if state.phase == TURN and declared and not hand.seats[seat].ready and len(found) < want:
            found.append((state, seat))
        return bot_action(state, seat, "normal")

    for n in range(8):
        play_match("koudiandian", {"hands": 1}, seeds_from(f"{label}/{n}"), chooser)
        if len(found) >= want:
            break
    return found


@pytest.mark.parametrize("variant", ["koudiandian", "hanshan"])
def test_g11_strong_decides_from_the_seat_view_alone_hidden_tiles_moved_same_choice(variant):
    """The strong bot is handed the seat's view (engine.views.view) and nothing else: with every tile
    the seat cannot see moved (other hands, the wall), the view is the same and so is the choice."""
    from engine.bot_strong import strong_action
    from engine.views import view

    rng = random.Random(25)
    states = _mid_hand_states(variant, f"strong-secrecy/{variant}")
    if variant == "koudiandian":
        states += _declared_states("strong-secrecy-declared")
    assert states
    for state, seat in states:
        moved = _scramble_hidden(state, seat, rng)
        assert view(moved, seat) == view(state, seat)
        assert (
            bot_action(moved, seat, "strong") == bot_action(state, seat, "strong") == strong_action(view(state, seat))
        )


def test_k8_strong_lets_a_safe_tile_go_with_a_poor_hand_against_a_declared_hand():
    """扣点点: the dealer declared; seat 1 is far from ready and holds tiles under 6 points (K-4: no
    discard win on them): it lets one of those go rather than a tile worth 6 or more (K-8)."""
    from engine.bot_strong import strong_action
    from engine.scenario import run_scenario
    from engine.table import fold
    from engine.tiles import points
    from engine.views import view

    events = run_scenario(
        {
            "variant": "koudiandian",
            "hands": ["123m456m789m123p1s9s", "147m258p369sESWN", "258m147p147sESWF", "369m369p258sESWP"],
            "wall": "7p8p9p1m2m3m",
            "actions": [{"seat": 0, "action": "ting", "tile": "1s"}],
        }
    )["events"]
    state = fold(events)
    assert legal_actions(state, 1) and state.hand.seats[0].ready
    choice = strong_action(view(state, 1))
    assert choice["action"] == "discard" and points(kind(choice["tile"])) < 6, choice


def _dealer_view(hand: str, wall_count: int, options: dict | None = None):
    """The 扣点点 dealer's view with `hand` (14 tiles) to discard from and `wall_count` tiles left."""
    from engine.scenario import run_scenario
    from engine.table import fold
    from engine.views import view

    others = ["147m258p369sESWN", "258m147p147sESWP", "369m369p258sESWN"]
    scenario = {"variant": "koudiandian", "hands": [hand, *others], "wall": "7p8p9p", **(options or {})}
    seen = view(fold(run_scenario(scenario)["events"]), 0)
    seen["hand"]["wall_count"] = wall_count
    return seen


def test_given_a_hand_one_step_from_ready_either_way_then_strong_keeps_the_one_whose_ready_hands_are_worth_more():
    """11m2m33m9m 123s789s FF: letting 1m go or 3m go leaves the hand one step from ready. After 1m
    more unseen tiles improve it (28 against 24), and `normal`, which counts any hand a step from ready
    at a fixed share of a typical win, lets 1m go; but four of those kinds (1m 2m 4m 5m) would make
    ready hands waiting on low tiles, worth little (K-1: a tile's points are its rank; K-4: a 1 or 2
    never wins, a 3-5 by self-draw only; K-2: with no wait of 6+ no 报听), while after 3m nearly every
    improving draw makes a ready hand worth 9-14. `strong` looks one draw ahead, values those ready hands, and lets 3m go."""
    from engine.bot_strong import Budget, strong_action

    seen = _dealer_view("11m2m33m9m123s789sFF", 44)
    assert strong_action(seen, Budget(ahead=0)) == {"action": "discard", "tile": "1m"}  # normal's choice
    assert strong_action(seen) == {"action": "discard", "tile": "3m"}


def test_given_no_look_ahead_budget_then_strong_discards_as_normal_less_its_sampled_danger():
    from engine.bot_normal import Knowledge, best_discard
    from engine.bot_strong import Budget, strong_action

    seen = _dealer_view("11m2m33m9m123s789sFF", 44)
    know = Knowledge.of_view(seen)
    held = [k for k in range(34) if know.counts[k]]
    assert kind(strong_action(seen, Budget(ahead=0))["tile"]) == best_discard(know, held, danger=lambda t: 0.0)


def test_given_a_hand_no_draw_makes_ready_then_its_ready_worth_is_zero():
    from engine.bot_normal import Knowledge, ready_worth

    know = Knowledge.of_view(_dealer_view("147m258p369sESWNP", 44))
    assert ready_worth(know, list(know.counts)) == 0.0


def test_given_a_wild_K13_H2_then_strong_still_looks_ahead():
    """耗子 mode (K-13) and 含山 (H-2: its 配子) have a wild: the look ahead judges there too."""
    from engine import analysis as A
    from engine.bot_normal import Knowledge
    from engine.bot_strong import looked_ahead

    know = Knowledge.of_view(_dealer_view("11m2m33m9m123s789sFF", 44))
    held = [k for k in range(34) if know.counts[k]]
    haozi = dataclasses.replace(know, options={"wilds": True}, rules=dataclasses.replace(know.rules, wild=33))
    hanshan = dataclasses.replace(know, variant="hanshan", options={}, rules=A.Rules.of("hanshan", 22))
    for wild in (haozi, hanshan):
        assert any(s.ahead for s in looked_ahead(wild, held, lambda t: 0.0, 4).values())


def test_given_strongs_budget_then_it_scores_more_waits_only_where_the_variant_caps_normals():
    """含山 caps the waits `normal` scores a decision at 3 (a win is scored over 25 patterns and every
    reading); `strong`'s budget scores 6 there (the others at their mean, as before). 扣点点 (K-7: a
    win's value is cheap) scores every wait for both."""
    from engine import analysis as A
    from engine.bot_normal import Knowledge, waits_cap
    from engine.bot_strong import BUDGET, NORMAL_BUDGET

    kdd = Knowledge.of_view(_dealer_view("11m2m33m9m123s789sFF", 44))
    hanshan = dataclasses.replace(kdd, variant="hanshan", options={}, rules=A.Rules.of("hanshan", 22))
    for know in (kdd, hanshan):
        assert waits_cap(dataclasses.replace(know, waits_scored=NORMAL_BUDGET.waits)) == waits_cap(know)
    assert waits_cap(kdd) is None and waits_cap(dataclasses.replace(kdd, waits_scored=BUDGET.waits)) is None
    assert waits_cap(hanshan) == 3 and waits_cap(dataclasses.replace(hanshan, waits_scored=BUDGET.waits)) == 6
