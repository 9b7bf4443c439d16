"""engine.ting_choices: each 报听 discard, the waits it leaves and why a wait cannot win (K-2, K-4)."""

from __future__ import annotations

from engine import ting_choices
from engine_helpers import given


def test_a_wait_that_cannot_win_names_its_rule_k4():
    """Given a 扣点点 dealer holding 23456m 456p 789p EE and a spare N (ready on 1m 4m 7m once N goes),
    when it asks for its 报听 choices, then the discard N lists the three waits: 1m is refused with
    K-4's code and rule (a tile worth 1 or 2 never wins), 4m and 7m carry their value and no refusal."""
    state = given("koudiandian", ["23456m456p789pEEN", "1112223334445p", "5556667778889s", "CCCFFFPPPWWWS"])
    choice = next(c for c in ting_choices(state, 0) if c["discard"] == "N")
    waits = {w["tile"]: w for w in choice["waits"]}
    assert set(waits) == {"1m", "4m", "7m"}
    assert waits["1m"]["points"] is None
    assert waits["1m"]["refused"]["code"] == "tile_too_low" and waits["1m"]["refused"]["rule"] == "K-4"
    assert waits["4m"]["refused"] is None and waits["4m"]["points"] == 8
    assert waits["7m"]["refused"] is None and waits["7m"]["points"] == 14
