"""含山麻将 table flow, given / when / then: H-1, H-3, H-4, H-12, and G-6/G-7 claims and robbing."""

from engine_helpers import actions, given, only, play, then_refused, types, when

HS = "hanshan"
#      dealer (14)            seat 1 waits 5p          seat 2 waits 5p (closed)  seat 3 can pung 5p
HANDS = ["23m5p8899pCCCFFFE", "123m456m789m123s5p", "777m46p111999sEE", "55p234678sSSWWC"]


def test_H4_ready_players_are_asked_ting_or_pass_before_the_dealer_acts():
    state = given(HS, HANDS, "7s7s1p", wild="N")
    assert state.phase == "ting" and sorted(state.hand.window.allowed) == [1, 2]
    then_refused(state, 0, "discard", "E", code="not_your_turn")
    state, events = play(state, (1, "ting"), (2, "pass"))
    assert types(events) == ["ting_declared", "responded"]
    assert state.phase == "turn" and state.hand.turn == 0 and state.hand.seats[1].ready


def test_G6_nearest_winner_first_and_H7_dihu_on_the_dealers_first_discard():
    state = given(HS, HANDS, "7s7s1p", wild="N")
    state, _ = play(state, (1, "pass"), (2, "pass"), (0, "discard", "5p"))
    assert {s: a for s, a in state.hand.window.allowed.items()} == {
        1: ["hu", "pass"],
        2: ["hu", "pass"],
        3: ["pung", "pass"],
    }
    state, events = when(state, 1, "hu")  # the nearest winner needs nobody else's answer
    assert only(events, "won")[0]["seat"] == 1
    patterns = {p["code"] for p in only(events, "hand_ended")[0]["settlement"]["score"]["patterns"]}
    assert "dihu" in patterns


def test_G6_a_win_beats_a_pung_and_passes_on_to_the_next_winner():
    state = given(HS, HANDS, "7s7s1p", wild="N")
    state, _ = play(state, (1, "pass"), (2, "pass"), (0, "discard", "5p"), (3, "pung"), (2, "hu"))
    assert state.phase == "claim"  # seat 1, nearer, has not answered yet
    state, events = when(state, 1, "pass")
    assert only(events, "won")[0]["seat"] == 2 and not only(events, "punged")


def test_H1_passing_a_win_never_restricts_a_later_win():
    state = given(HS, HANDS, "7s7s1p9m", wild="N")
    state, _ = play(
        state,
        (1, "pass"),
        (2, "pass"),
        (0, "discard", "5p"),
        (1, "pass"),
        (2, "pass"),
        (3, "pass"),
        (1, "discard", "7s"),
        (2, "discard", "7s"),
    )
    state, events = when(state, 3, "discard", "5p")
    assert "hu" in state.hand.window.allowed[1]


def test_H4_no_ting_after_the_dealers_first_discard():
    state = given(HS, HANDS, "7s7s1p", wild="N")
    state, _ = play(state, (1, "pass"), (2, "pass"), (0, "discard", "E"), (2, "pass"), (1, "discard", "7s"))
    assert not any(a == "ting" for a, _ in actions(state, 2))
    then_refused(state, 2, "ting", "7s", rule="H-4")


def test_H4_locked_hand_may_not_pung():
    locked = given(HS, HANDS, "7s7s1p", wild="N")
    locked, _ = play(locked, (1, "pass"), (2, "ting"), (0, "discard", "E"))
    assert 2 not in (locked.hand.window.allowed if locked.hand.window else {})  # EE pair, but locked


DEALER_COMPLETE = ["123456789p11sEEE", "123456789m2345s", "SSSWWWCCCFFF6s", "159m159p78sPPPNN"]


def test_H4_dealer_may_ting_then_hu_for_tianhu_and_baoting():
    state = given(HS, DEALER_COMPLETE, "9m9m", wild="9s")
    state, _ = play(state, (1, "pass"), (2, "pass"))
    assert ("ting", None) in actions(state, 0) and ("hu", None) in actions(state, 0)
    state, events = when(state, 0, "ting")
    assert events[0] == {"type": "ting_declared", "seat": 0, "with_discard": False}
    assert actions(state, 0) == {("hu", None)}
    state, events = when(state, 0, "hu")
    patterns = {p["code"]: p["points"] for p in only(events, "hand_ended")[0]["settlement"]["score"]["patterns"]}
    assert patterns["tianhu"] == 60 and patterns["baoting"] == 60


def test_H4_dealer_hu_directly_scores_tianhu_without_baoting():
    state = given(HS, DEALER_COMPLETE, "9m9m", wild="9s")
    state, _ = play(state, (1, "pass"), (2, "pass"))
    state, events = when(state, 0, "hu")
    codes = {p["code"] for p in only(events, "hand_ended")[0]["settlement"]["score"]["patterns"]}
    assert "tianhu" in codes and "baoting" not in codes


def test_H3_holding_a_wild_allows_only_self_draw():
    state = given(HS, HANDS, "7s7s1p", wild="3s")  # seat 1's 3s is now a 配子
    state, _ = play(state, (1, "pass"), (2, "pass"), (0, "discard", "5p"))
    assert "hu" not in state.hand.window.allowed.get(1, []) and "hu" in state.hand.window.allowed[2]


def test_H3_without_the_option_a_wild_holder_may_win_on_a_discard():
    state = given(HS, HANDS, "7s7s1p", wild="3s", options={"wild_self_draw_only": False})
    state, _ = play(state, (1, "pass"), (2, "pass"), (0, "discard", "5p"))
    assert "hu" in state.hand.window.allowed[1]


ROB = ["123456789m99p12s5s", "123p456p789p46sEE", "123m777s888s9s11pF", "55sSSSWWWCCFF7s"]


def test_G7_robbing_an_added_kong_counts_as_a_discard_win_by_the_konger():
    state = given(HS, ROB, "9m2m3m5s1s1s", wild="N")
    state, _ = play(
        state,
        (1, "pass"),
        (0, "discard", "5s"),
        (1, "pass"),
        (3, "pung"),
        (3, "discard", "7s"),
        (2, "pass"),
        (0, "discard", "9m"),
        (1, "discard", "2m"),
        (2, "discard", "3m"),
    )
    assert ("kong", "5s") in actions(state, 3)
    state, events = when(state, 3, "kong", "5s")
    assert types(events) == ["kong_declared"] and state.phase == "rob"
    state, events = when(state, 1, "hu")
    won = only(events, "won")[0]
    assert won == {"type": "won", "seat": 1, "tile": "5s", "by": "rob_kong", "from": 3}
    codes = {p["code"] for p in only(events, "hand_ended")[0]["settlement"]["score"]["patterns"]}
    assert "qiangganghu" in codes and not only(events, "konged")  # G-7: the robbed kong is not made


def test_G7_an_unrobbed_added_kong_is_made_and_replaced_from_the_tail():
    state = given(HS, ROB, "9m2m3m5s1s1s", wild="N")
    state, _ = play(
        state,
        (1, "pass"),
        (0, "discard", "5s"),
        (1, "pass"),
        (3, "pung"),
        (3, "discard", "7s"),
        (2, "pass"),
        (0, "discard", "9m"),
        (1, "discard", "2m"),
        (2, "discard", "3m"),
        (3, "kong", "5s"),
    )
    state, events = when(state, 1, "pass")
    assert events[1]["kind"] == "added" and events[2] == {"type": "drew", "seat": 3, "tile": "1s", "source": "kong"}


def test_H12_the_dealer_keeps_the_deal_after_a_draw():
    state = given(HS, HANDS, "", wild="N")
    state, _ = play(state, (1, "pass"), (2, "pass"))
    state, events = when(state, 0, "discard", "9p")
    ended = only(events, "hand_ended")[0]
    assert ended["outcome"] == "draw" and ended["next_dealer"] == 0 and ended["settlement"]["deltas"] == [0] * 4


def test_H4_a_bot_offered_ting_without_a_discard_takes_it(monkeypatch):
    """Found by the API fuzz walk: the bot ranked 听 choices by their tile, and this one has none."""
    import engine.bot as bot

    state = given(HS, DEALER_COMPLETE, "9m9m", wild="9s")
    state, _ = play(state, (1, "pass"), (2, "pass"))
    assert bot.bot_action(state, 0) == {"action": "hu"}  # 胡 first when it is legal
    offered = [{"action": "ting"}, {"action": "ting", "tile": "9m"}, {"action": "discard", "tile": "9m"}]
    monkeypatch.setattr(bot, "legal_templates", lambda s, seat: offered)
    assert bot.bot_action(state, 0) == {"action": "ting"}
