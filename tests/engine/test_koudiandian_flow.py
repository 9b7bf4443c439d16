"""山西扣点点 table flow, given / when / then, one test per ruling (K-2..K-14, G-2..G-9)."""

from engine import redact, view
from engine.tiles import kind

from engine_helpers import actions, given, only, play, then_refused, types, when

KDD = "koudiandian"
#      dealer (14)           seat 1            seat 2             seat 3
HANDS = ["123456789m7788pC", "12345678sCCEEW", "13579m1345pSSSE", "2468m2468p2468sN"]


def test_G3_K2_ting_discard_lies_face_down_and_nobody_claims_it():
    state = given(KDD, HANDS, "FFFW9s9s")
    state, events = when(state, 0, "ting", "C")
    assert types(events) == ["ting_declared", "discarded", "drew"]
    assert events[1]["face_down"] is True
    assert events[2]["seat"] == 1 and events[2]["source"] == "wall"  # seat 1 holds CC yet is not asked
    assert redact(events[1], 2)["tile"] is None and redact(events[1], 0)["tile"] == "C"
    assert view(state, 1)["hand"]["seats"][0]["discards"][0]["tile"] is None
    assert view(state, 0)["hand"]["seats"][0]["discards"][0]["tile"] == "C"


def test_K2_ting_needs_a_wait_worth_six_or_more():
    hands = ["123456789m1122pC"] + HANDS[1:]
    state = given(KDD, hands, "FFF")
    assert ("ting", "C") not in actions(state, 0)
    then_refused(state, 0, "ting", "C", rule="K-2")


def test_K2_only_a_declared_hand_wins():
    hands = ["123456789m778pCC", "12345678sEEWWS", "13579m1345pSSSE", "2468m2468p2468sN"]
    state = given(KDD, hands, "8pFFF")
    state, _ = when(state, 0, "discard", "C")  # not declared: waits on 7p/8p but may not win
    state, events = when(state, 1, "discard", "8p")
    assert only(events, "drew")[0]["seat"] == 2  # seat 0 is not asked


def test_K2_an_undeclared_complete_hand_asking_hu_on_its_own_turn_is_refused_with_the_reason():
    # given a dealer whose 14 dealt tiles are complete but who has not declared 报听
    hands = ["123456789m78999p", "12345678sEEWWS", "13579m1345pSSSE", "2468m2468p2468sN"]
    state = given(KDD, hands, "FFF")
    # when it asks to win on its own turn (no window open), then the refusal names K-2 (not a crash)
    then_refused(state, 0, "hu", rule="K-2", code="not_ready")


def test_K3_locked_hand_discards_its_draw_automatically_and_may_not_pung():
    state = given(KDD, HANDS, "FFFW9s9s7p")
    state, _ = play(state, (0, "ting", "C"), (1, "discard", "F"), (2, "discard", "F"))
    state, events = when(state, 3, "discard", "F")
    auto = only(events, "discarded")
    assert auto[-1] == {
        "type": "discarded",
        "seat": 0,
        "tile": "W",
        "face_down": False,
        "auto": True,
        "decision": {"claims": {}},
    }  # nobody may claim it (recorded: evolve applies data)
    assert only(events, "drew")[-1]["seat"] == 1
    state, events = when(state, 1, "discard", "9s")
    state, events = when(state, 2, "discard", "9s")
    state, events = when(state, 3, "discard", "7p")
    assert actions(state, 0) == {("hu", None), ("pass", None)}  # K-3: no pung for a locked hand


def test_K4_a_tile_worth_one_or_two_never_wins():
    hands = ["123456789m2288pC"] + HANDS[1:]
    state = given(KDD, hands, "FFF2p9s")
    state, _ = play(state, (0, "ting", "C"), (1, "discard", "F"), (2, "discard", "F"))
    state, events = when(state, 3, "discard", "F")
    assert only(events, "discarded")[-1] == {
        "type": "discarded",
        "seat": 0,
        "tile": "2p",
        "face_down": False,
        "auto": True,
        "decision": {"claims": {}},
    }


def test_K4_a_tile_worth_three_to_five_wins_only_by_self_draw():
    hands = ["123456789m5588pC", "12345678sCCEEW", "13579m1349pSSSE", "2468m2468p2468sN"]
    state = given(KDD, hands, "5pFF5p")
    state, _ = when(state, 0, "ting", "C")
    state, events = when(state, 1, "discard", "5p")
    assert only(events, "drew")[-1]["seat"] == 2  # no claim window for seat 0
    state, _ = play(state, (2, "discard", "F"), (3, "discard", "F"))
    assert ("hu", None) in actions(state, 0)
    state, events = when(state, 0, "hu")
    assert only(events, "won")[0]["by"] == "self_draw"


def test_K5_passing_a_win_leaves_only_self_draw_on_that_kind():
    state = given(KDD, HANDS, "7pFFW7p9s9s9s")
    state, _ = when(state, 0, "ting", "C")
    state, _ = when(state, 1, "discard", "7p")
    assert actions(state, 0) == {("hu", None), ("pass", None)}
    state, _ = play(state, (0, "pass"), (2, "discard", "F"), (3, "discard", "F"))
    state, events = when(state, 1, "discard", "7p")  # the same kind again
    assert only(events, "drew")[-1]["seat"] == 2 and state.phase == "turn"


def test_K5_must_win_takes_every_win_and_K8_unready_discarder_pays_all():
    state = given(KDD, HANDS, "7pFFW", options={"must_win": True})
    state, _ = when(state, 0, "ting", "C")
    state, events = when(state, 1, "discard", "7p")
    assert only(events, "responded")[0] == {
        "type": "responded",
        "seat": 0,
        "response": "hu",
        "window": "claim",
        "auto": True,
    }
    won = only(events, "won")[0]
    assert won["seat"] == 0 and won["by"] == "discard"
    ended = only(events, "hand_ended")[0]
    score = ended["settlement"]["score"]
    assert score["patterns"] == ["yitiaolong"] and score["value"] == 7 * 2  # K-7 discard column
    assert ended["settlement"]["deltas"] == [42, -42, 0, 0]  # K-8: seat 1 was not ready
    assert ended["next_dealer"] == 0  # K-11: the winner deals


def test_K6_choosing_pung_over_kong_gives_up_that_kong():
    hands = ["123456789m7788pE", "1234567sCCEEEW", "13579m13579pSSS", "2468m2468p2468sN"]
    state = given(KDD, hands, "FFF")
    state, _ = when(state, 0, "discard", "E")
    assert actions(state, 1) == {("kong", None), ("pung", None), ("pass", None)}
    state, _ = when(state, 1, "pung")
    assert ("kong", "E") not in actions(state, 1)
    assert kind("E") in state.hand.seats[1].forfeited_kongs


def test_G5_concealed_kong_draws_its_replacement_from_the_tail():
    hands = ["12345678m78pCCCC", "12345678sEEWWS", "13579m1345pSSSE", "2468m2468p2468sN"]
    state = given(KDD, hands, "1s2s9s")
    state, events = when(state, 0, "kong", "C")
    assert events[0]["kind"] == "concealed"
    assert events[1] == {"type": "drew", "seat": 0, "tile": "9s", "source": "kong"}
    assert state.hand.wall_count == 2


def test_G5_no_kong_without_a_tile_left_for_the_replacement():
    hands = ["12345678m78pCCCC", "12345678sEEWWS", "13579m1345pSSSE", "2468m2468p2468sN"]
    state = given(KDD, hands, "")
    assert ("kong", "C") not in actions(state, 0)


def test_G8_empty_wall_is_a_draw_and_K10_voids_the_kongs_K11_passes_the_deal():
    hands = ["12345678m78pCCCC", "12345678sEEWWS", "13579m1345pSSSE", "2468m2468p2468sN"]
    state = given(KDD, hands, "9s")
    state, _ = when(state, 0, "kong", "C")
    state, events = when(state, 0, "discard", "9s")
    ended = only(events, "hand_ended")[0]
    assert ended["outcome"] == "draw" and ended["settlement"]["deltas"] == [0, 0, 0, 0]
    assert ended["next_dealer"] == 1  # K-11 winner rule: after 荒庄 the 下家 deals


def test_K11_rotate_rule_keeps_the_deal_after_a_draw_without_kongs():
    hands = ["12345678m78pCCCS", "12345678sEEWWC", "13579m1345pSSSE", "2468m2468p2468sN"]
    state = given(KDD, hands, "", options={"dealer_bonus": True})
    state, events = when(state, 0, "discard", "8p")
    assert only(events, "hand_ended")[0]["next_dealer"] == 0


def test_K11_rotate_rule_passes_the_deal_after_a_draw_with_a_kong():
    hands = ["12345678m78pCCCC", "12345678sEEWWS", "13579m1345pSSSE", "2468m2468p2468sN"]
    state = given(KDD, hands, "9s", options={"rounds": 1})
    state, _ = when(state, 0, "kong", "C")
    state, events = when(state, 0, "discard", "9s")
    assert only(events, "hand_ended")[0]["next_dealer"] == 1


def test_K14_match_ends_after_its_hands():
    state = given(KDD, HANDS, "", options={"hands": 1})
    state, events = when(state, 0, "discard", "7p")
    assert types(events)[-2:] == ["hand_ended", "match_ended"] and state.phase == "match_over"


def test_G9_K13_a_discarded_wild_cannot_be_claimed():
    hands = ["123456789m7788pF", "12345678sFFEEW", "13579m1345pSSSE", "2468m2468p2468sN"]
    state = given(KDD, hands, "9s9s", wild="F", options={"wilds": True})
    state, events = when(state, 0, "discard", "F")
    assert only(events, "drew")[0]["seat"] == 1  # seat 1's two wilds may not pung it


def test_G2_play_passes_to_the_next_seat_in_turn_order():
    state = given(KDD, HANDS, "FFF", dealer=0)
    state, events = when(state, 0, "discard", "C")
    assert state.phase == "claim" and sorted(state.hand.window.allowed) == [1]  # G-6: only seat 1 can claim
    state, events = when(state, 1, "pass")
    assert only(events, "drew")[0]["seat"] == 1


def test_G4_no_chow_is_ever_offered():
    state = given(KDD, HANDS, "FFF")
    state, _ = when(state, 0, "discard", "7p")  # seat 1 holds no p; nothing but chow could claim it
    assert state.phase == "turn" and not any(a == "chi" for a, _ in actions(state, 1))


def test_K3_kong_after_ting_when_the_hand_stays_ready():
    hands = ["111m456789m7788pC", "12345678sCCEEW", "3579m1345pSSSEF", "2468m2468p2468sN"]
    state = given(KDD, hands, "FFF1m9s")
    state, _ = play(state, (0, "ting", "C"), (1, "discard", "F"), (2, "discard", "F"), (3, "discard", "F"))
    assert ("kong", "1m") in actions(state, 0)
    state, events = when(state, 0, "kong", "1m")
    assert events[0]["kind"] == "concealed" and events[1]["source"] == "kong"


KONG_HANDS = ["123456789m7788pE", "1234567sCCEEEW", "13579m13579pSSS", "2468m2468p2468sN"]


def _exposed_kong_then_win(options):
    state = given(KDD, KONG_HANDS, "FFF7p9s", options=options)
    state, _ = when(state, 0, "discard", "E")  # seat 0 is not ready when it feeds the kong
    state, events = when(state, 1, "kong")
    assert events[1] == {"type": "konged", "seat": 1, "tile": "E", "kind": "exposed", "from": 0}
    assert events[2]["source"] == "kong" and events[2]["tile"] == "9s"
    state, _ = play(
        state, (1, "discard", "9s"), (2, "discard", "F"), (3, "discard", "F"), (0, "ting", "F"), (1, "discard", "7p")
    )
    state, events = when(state, 0, "hu")
    return only(events, "hand_ended")[0]["settlement"]


def test_K9_exposed_kong_is_paid_by_the_three_others():
    settlement = _exposed_kong_then_win({})
    assert settlement["kong_deltas"] == [-10, 30, -10, -10]
    assert settlement["win_deltas"] == [42, -42, 0, 0]
    assert settlement["deltas"] == [32, -12, -10, -10]


def test_K9_feeder_pays_kong_when_the_feeder_was_not_ready():
    settlement = _exposed_kong_then_win({"feeder_pays_kong": True})
    assert settlement["kong_deltas"] == [-30, 30, 0, 0]


def test_G11_commitment_at_hand_start_seed_revealed_at_hand_end():
    from engine import decide, fold, initial_state
    from engine.audit import seed_problem

    state = fold(decide(initial_state(), {"action": "start_match", "variant": KDD, "options": {"hands": 1}}))
    seed = "ab" * 32
    started = decide(state, {"action": "start_hand", "seed": seed})[0]
    assert len(started["commitment"]) == 64 and seed not in str(redact(started, 0))
    assert seed_problem(started) is None
    assert seed_problem({**started, "seed": "cd" * 32}) is not None
