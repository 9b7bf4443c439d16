"""The variant registry: one entry per rule set; a toy third variant plays, folds and audits."""

from __future__ import annotations

import json
import random
from typing import Any, Optional

import pytest

import engine
from engine import variants
from engine.audit import audit
from engine.bot import bot_action
from engine.bot_normal import normal_action
from engine.options import OptionError, boolean, normalise
from engine.scoring import score
from engine.win import WinContext
from engine.selfplay import play_match, seeds_from
from engine.state import MatchState
from engine.variants.base import Variant
from engine.tiles import kind
from engine.variants.registry import VariantEntry
from service.usecases import match_log
from engine_helpers import given, then_refused
from audit_support import rows_of


# ---------------------------------------------------------------- the toy variant, as docs/ENGINE_API.md adds one


class ToyScoring:
    """Every win is worth 1 (× base) from each other player; 'double' doubles a self-draw."""

    @staticmethod
    def legality(ctx: WinContext) -> Optional[str]:
        """T-2: an honour never wins (completeness is checked by the table)."""
        return "honour_win" if ctx.win_tile >= kind("E") else None

    @staticmethod
    def score(ctx: WinContext) -> dict[str, Any]:
        value = ctx.options["base"] * (2 if ctx.options["double"] and ctx.self_drawn else 1)
        deltas = [-value] * 4
        deltas[ctx.seat] = 3 * value
        return {"ok": True, "value": value, "patterns": ["toy_win"], "deltas": deltas}


class Toy(Variant):
    name = "toy"

    def settle(self, state: MatchState) -> dict[str, Any]:
        win = state.hand.win
        result = ToyScoring.score(
            self.win_context(state, win["seat"], win["tile"], win["by"], win["from"], in_hand=True)
        )
        return {
            "deltas": result["deltas"],
            "win_deltas": result["deltas"],
            "kong_deltas": [0, 0, 0, 0],
            "score": result,
        }

    def next_dealer(self, state: MatchState, winner: Optional[int]) -> int:
        return (state.hand.dealer + 1) % 4


TOY = VariantEntry(
    name="toy",
    name_zh="玩具麻将",
    name_en="Toy",
    wild_zh="百搭",
    rules=Toy,
    scoring=ToyScoring,
    options={"double": (False, boolean)},
    patterns={"toy_win": ("胡", "a win")},
    rule_ids={"ting": "T-1", "locked": "T-1"},
    reasons={"honour_win": ("T-2", "an honour never wins")},
    uses_wilds=lambda options: False,
    score_lines=lambda s: [f"    value {s['value']}"],
)


@pytest.fixture
def toy():
    variants.register(TOY)
    yield TOY
    variants.unregister("toy")


# ---------------------------------------------------------------- tests


def test_the_built_in_variants_are_registered_with_their_names():
    assert variants.names() == ("koudiandian", "hanshan")
    assert variants.get("hanshan").label == "含山麻将 Hanshan" and variants.get("koudiandian").wild_zh == "耗子"
    display = variants.display_all()
    assert display["hanshan"]["patterns"]["qingyise"] == ["清一色", "full flush"]
    assert display["hanshan"]["extra"]["yadang"] == ["丫当", "yadang"]


def test_an_unknown_variant_is_refused_by_options_and_scoring():
    with pytest.raises(OptionError, match="unknown variant 'toy'"):
        normalise("toy", {})
    with pytest.raises(ValueError):
        variants.get("toy")


@pytest.mark.parametrize("chooser", [bot_action, normal_action], ids=["easy", "normal"])
def test_a_registered_toy_variant_plays_folds_and_audits(toy, chooser):
    # given the toy variant registered (one entry, no other file touched)
    assert "toy" in variants.names() and normalise("toy", {"double": True})["double"] is True
    # when bots of either level play a whole match of it
    state, log = play_match("toy", {"hands": 3, "double": True}, seeds_from("toy"), chooser)
    stored = json.loads(json.dumps(log))
    # then it ends, folds from its stored events, and the audit re-decides every event
    assert state.phase == "match_over" and sum(state.scores) == 0
    assert engine.fold(stored).scores == state.scores
    rows = [
        {"version": i + 1, "type": e["type"], "payload": {k: v for k, v in e.items() if k != "type"}}
        for i, e in enumerate(stored)
    ]
    report = audit(rows)
    assert report.ok and report.finished and report.hands == 3, report.failure
    assert state.hand.wild is None  # uses_wilds: no wild kind


def test_a_refusal_cites_the_toy_variants_own_rule_from_its_entry(toy):
    # given a toy dealer whose 14 dealt tiles are complete on an honour
    hands = ["123m456m789m123pEE", "123456789s111p9p", "23456789s2233p9p", "SSSWWWNNNCCC9s"]
    state = given("toy", hands, "FFF")
    # when it claims the win, then the refusal names T-2 with the toy's words (engine/errors.py names no variant)
    refused = then_refused(state, 0, "hu", rule="T-2", code="honour_win")
    assert refused.message == "an honour never wins"


def test_the_toy_variant_scores_through_the_shared_scoring_entry_point(toy):
    ctx = WinContext(
        variant="toy",
        options=normalise("toy", {"double": True}),
        seat=2,
        dealer=0,
        concealed=(),
        melds=(),
        win_tile=0,
        win_by="self_draw",
    )
    assert score(ctx)["deltas"] == [-2, -2, 6, -2]


def test_the_service_lists_the_registered_variants(client):
    body = client.get("/api/variants").get_json()["variants"]
    assert list(body) == ["koudiandian", "hanshan"]
    assert body["koudiandian"]["label"] == "扣点点 Koudiandian" and body["koudiandian"]["wild"] == "耗子"
    assert body["hanshan"]["options"]["wild_self_draw_only"] is True and body["hanshan"]["options"]["base"] == 1
    assert body["hanshan"]["patterns"]["peizizan"] == ["配子赞", "lone wild wait"]


def test_the_toy_variant_is_served_explained_and_reviewed_over_http(toy, api, client):
    # given the toy variant registered after the service was imported (no service file names it)
    listed = client.get("/api/variants").get_json()["variants"]
    assert listed["toy"]["label"] == "玩具麻将 Toy" and listed["toy"]["options"]["double"] is False
    assert 'value="toy"' in client.get("/").get_data(as_text=True)  # the home page offers it
    # when one player and three bots play a whole match of it through the API
    match_id, _, tokens = api.new_match("toy", {"hands": 2, "double": True}, humans=1)
    api.play_randomly(match_id, tokens, random.Random(3))
    # then it ends, the player's view and the summary agree, and every export verifies
    summary = api.summary(match_id)
    assert summary["status"] == "over" and sum(summary["scores"]) == 0
    assert api.view(match_id, tokens[0]).body["view"]["variant"] == "toy"
    ndjson = client.get(f"/api/matches/{match_id}/export").get_data(as_text=True)
    assert match_log.verify_rows(rows_of(ndjson)).ok
    imported = client.post("/api/matches/import", data=ndjson, content_type="application/x-ndjson")
    assert imported.status_code == 201, imported.get_json()
    text = client.get(f"/api/matches/{match_id}/export?format=text").get_data(as_text=True)
    assert "玩具麻将 Toy" in text
    # and the replay explains each win (the generic reading and payments) and reviews seat 0
    frames = client.get(f"/replay/{match_id}/frames.json?seat=0").get_json()
    assert frames["variants"]["toy"]["wild"] == "百搭"
    explained = [h["explain"] for h in frames["hands"] if h.get("explain")]
    assert explained, "no hand of this seeded match was won"
    for ex in explained:
        assert ex["payment"]["layout"] == "shares" and sum(s["amount"] for s in ex["payment"]["shares"]) > 0
        assert ex["payment"]["lines"][0].startswith("value ")  # the entry's score_lines
        assert ex["blocks"] and sum(t.get("win", False) for b in ex["blocks"] for t in b["tiles"]) == 1
    assert frames["review"] and all("step" in r for r in frames["review"])
