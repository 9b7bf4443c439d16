"""Ratings and figures: the rated-match rule, the fold's order, and the same numbers again from the
events alone (docs/API.md, "Ratings and figures")."""

from __future__ import annotations

import random
from typing import Optional
from dataclasses import replace

import pytest

import engine
from service.app import create_app
from service.http.services import services
from service.infra.repository import engine_events
from service.model import ratings as model
from service.model import room as rooms
from service.model.errors import NotFound
from service.usecases.ratings import Ratings
from tests.audit_support import finished_match, seeded_deals

HUMANS = ("Ann", "Bo", "Cy", "Di")


class FakeHolders:
    """Stands in for the accounts' record of who holds which seat (model.SeatHolders)."""

    def __init__(self) -> None:
        self.held: dict[str, dict[int, str]] = {}

    def players_of(self, match_id: str) -> dict[int, str]:
        return dict(self.held.get(match_id, {}))

    def name_of(self, player: str) -> Optional[str]:
        known = any(player in held.values() for held in self.held.values())
        return f"Player {player[1:]}" if known else None


def record(match_id: str, position: int, players, scores, **changes) -> model.FinishedMatch:
    made = model.FinishedMatch(
        match_id=match_id,
        position=position,
        rule_set="koudiandian",
        over=True,
        imported=False,
        bots=(False,) * 4,
        players=tuple(players),
        scores=tuple(scores),
        hands=(),
    )
    return replace(made, **changes)


# -- the rule --------------------------------------------------------------------------------
def test_a_match_is_rated_only_when_over_played_here_and_held_by_four_different_accounts():
    # given a finished match of four accounts, and the same match changed in one way each
    rated = record("m", 1, "abcd", (10, 0, -5, -5))
    # then only the first is rated, and each other one says why not
    assert model.unrated_because(rated) is None
    assert model.unrated_because(replace(rated, over=False)) == "not_finished"
    assert model.unrated_because(replace(rated, imported=True)) == "imported"
    assert model.unrated_because(replace(rated, bots=(False, False, False, True))) == "bot_seat"
    assert model.unrated_because(replace(rated, players=("a", "b", None, "d"))) == "seat_without_account"
    assert model.unrated_because(replace(rated, players=("a", "b", "a", "d"))) == "same_player_twice"
    # and an unrated match changes no rating
    assert model.fold([replace(rated, bots=(True, False, False, False))]).ratings == {}


def test_a_rated_match_updates_its_four_ratings_with_plackett_luce_over_the_places():
    # given one rated match where two seats tie
    match = record("m", 7, "abcd", (30, -10, -10, -10))
    # when it is folded
    standings = model.fold([match])
    # then each player's rating is openskill's Plackett–Luce update from a new rating, ties sharing a place
    fresh = [[model.MODEL.rating()] for _ in range(4)]
    expected = model.MODEL.rate(fresh, ranks=[1.0, 2.0, 2.0, 2.0])
    for seat, player in enumerate("abcd"):
        got = standings.rating("koudiandian", player)
        assert (got.mu, got.sigma, got.matches) == (expected[seat][0].mu, expected[seat][0].sigma, 1)
    assert [c.place for c in standings.changes["m"]] == [1, 2, 2, 2]
    assert standings.changes["m"][0].delta > 0 > standings.changes["m"][1].delta
    assert [player for player, _ in standings.leaderboard("koudiandian")][0] == "a"


def test_rule_sets_are_rated_apart_and_wilds_make_their_own():
    # given the same players in 扣点点, 扣点点 with 耗子 (K-13) and 含山
    plain = engine.options.normalise("koudiandian", {})
    wilds = engine.options.normalise("koudiandian", {"wilds": True})
    hanshan = engine.options.normalise("hanshan", {})
    keys = [
        model.rule_set("koudiandian", plain),
        model.rule_set("koudiandian", wilds),
        model.rule_set("hanshan", hanshan),
    ]
    # then there are three rule sets, each with its own name, and a match moves only its own rating
    assert len(set(keys)) == 3 and keys[0] == "koudiandian" and keys[2] == "hanshan"
    assert "耗子" in model.rule_set_label(keys[1])
    standings = model.fold([record("m", 1, "abcd", (5, 0, 0, -5), rule_set=keys[1])])
    assert set(standings.ratings) == {keys[1]}


# -- the order -------------------------------------------------------------------------------
def history(count: int, seed: int) -> list[model.FinishedMatch]:
    """`count` rated matches among six players, drawn from `seed`."""
    draw = random.Random(seed)
    out = []
    for n in range(count):
        players = draw.sample("abcdef", 4)
        scores = [draw.randrange(-40, 41) for _ in range(3)]
        out.append(record(f"m{n}", 10 * n + draw.randrange(10), players, (*scores, -sum(scores))))
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_ratings_do_not_depend_on_the_order_matches_are_handed_in(seed):
    # given a history of rated matches (seeded) and the same history shuffled
    matches = history(12, seed)
    shuffled = matches[:]
    random.Random(seed).shuffle(shuffled)
    # then both fold to the same ratings and changes, to the last bit
    assert model.fold(shuffled) == model.fold(matches), f"seed {seed}"


@pytest.mark.parametrize("seed", [1, 2])
def test_ratings_follow_the_feed_order_of_the_matches_final_events(seed):
    # given a history and the same history with two matches' final events the other way round in the feed
    matches = history(6, seed)
    first, second = matches[0], matches[1]
    swapped = [replace(first, position=second.position), replace(second, position=first.position), *matches[2:]]
    # then the fold follows the feed: one at a time in that order, and the order changes the numbers
    one_by_one = model.Standings()
    for match in sorted(swapped, key=lambda m: m.position):
        model.rate(one_by_one, match)
    assert model.fold(swapped) == one_by_one, f"seed {seed}"
    assert model.fold(swapped).ratings != model.fold(matches).ratings, f"seed {seed}"


# -- figures ---------------------------------------------------------------------------------
def test_figures_read_the_engines_hand_results():
    # given a match of four hands: seat 0 self-draws twice in a row, seat 2 wins on seat 0's
    # discard, then a draw (荒庄)
    hands = (
        model.HandResult.of(
            {"winner": 0, "win": {"by": "self_draw", "from": None}, "settlement": {"deltas": [30, -10, -10, -10]}}
        ),
        model.HandResult.of(
            {"winner": 0, "win": {"by": "self_draw", "from": None}, "settlement": {"deltas": [12, -4, -4, -4]}}
        ),
        model.HandResult.of(
            {"winner": 2, "win": {"by": "discard", "from": 0}, "settlement": {"deltas": [-27, 0, 27, 0]}}
        ),
        model.HandResult.of({"outcome": "draw", "winner": None, "win": None, "settlement": {"deltas": [0, 0, 0, 0]}}),
    )
    match = record("m", 1, ("a", "b", "c", None), (15, -14, 13, -14), hands=hands, bots=(False, False, False, True))
    # when the figures are folded (a bot in the match: counted, not rated)
    found = model.figures([match])["koudiandian"]
    # then they are the seat's wins, 放炮, net points and longest run of wins
    assert found["a"] == model.Figures(
        matches=1, hands=4, hands_won=2, dealt_in=1, points=15, longest_streak=2, first_places=1
    )
    assert found["a"].average_points == 15 / 4
    assert found["c"].hands_won == 1 and found["c"].dealt_in == 0 and found["c"].points == 13
    assert set(found) == {"a", "b", "c"}  # a seat nobody's account held has no figures
    assert model.fold([match]).ratings == {}


# -- through the service, and again from the events alone ---------------------------------------
def play(app, holders: FakeHolders) -> list[str]:
    """Five finished matches (fixed deals): four rated in three rule sets, one with a bot."""
    plan = [
        ("koudiandian", {"hands": 2}, "ratings-koudiandian-0", ("p1", "p2", "p3", "p4")),  # a win on a discard
        ("koudiandian", {"hands": 1, "wilds": True}, "ratings-wilds-0", ("p2", "p1", "p4", "p3")),
        ("hanshan", {"hands": 1}, "ratings-hanshan-7", ("p1", "p3", "p2", "p5")),  # a win on a discard
        ("koudiandian", {"hands": 1}, "ratings-koudiandian-1", ("p4", "p3", "p2", "p1")),
    ]
    ids = []
    for variant, options, label, players in plan:
        match_id, _ = finished_match(app, variant, options, names=HUMANS, deals=label)
        holders.held[match_id] = dict(enumerate(players))
        ids.append(match_id)
    with_bot, _ = finished_match(app, "koudiandian", {"hands": 1}, names=HUMANS[:3], deals="ratings-bot-0")
    holders.held[with_bot] = {0: "p1", 1: "p2", 2: "p3"}
    return ids + [with_bot]


def from_the_feed(store, holders: FakeHolders) -> list[model.FinishedMatch]:
    """The finished matches read again from the store's global feed alone: each stream folded by the
    engine (scores) and the room (seats), its hand_ended and match_ended rows as stored."""
    streams: dict[str, list] = {}
    for row in store.read_all():
        streams.setdefault(row.stream, []).append(row)
    out = []
    for stream, rows in streams.items():
        ended = [row for row in rows if row.type == "match_ended"]
        if not stream.startswith("match-") or not ended:
            continue
        match_id = stream[len("match-") :]
        room = rooms.fold(rows)
        state = engine.fold(engine_events(rows))
        held = holders.players_of(match_id)
        out.append(
            model.FinishedMatch(
                match_id=match_id,
                position=ended[-1].position,
                rule_set=model.rule_set(room.variant, room.options),
                over=state.phase == "match_over",
                imported=f"import-{match_id}" in streams,
                bots=tuple(seat.bot for seat in room.seats),
                players=tuple(held.get(seat) for seat in range(4)),
                scores=tuple(state.scores),
                hands=tuple(model.HandResult.of(row.payload) for row in rows if row.type == "hand_ended"),
                ended_at=ended[-1].recorded_at,
            )
        )
    return out


def test_ratings_replayed_from_the_events_alone_are_the_same_numbers(backend, tmp_path, monkeypatch):
    monkeypatch.setenv("TILEFOLD_KEYS", str(tmp_path / "keys"))
    holders = FakeHolders()
    settings = {"DATABASE": backend.target, "TESTING": True, "WEBHOOK_WORKER": False}
    # given finished matches played through the service on this backend, and who held their seats
    app = create_app(settings)
    services(app).reads.ratings.holders = holders  # a stand-in for the accounts' seat links
    ids = play(app, holders)
    repo = services(app).match.repo
    ratings = Ratings(repo, holders)
    # when the use case folds them
    standings = ratings.standings()
    # then they are read in the feed's order of their final events, four of the five rated
    assert [m.match_id for m in ratings.all_finished()] == ids
    assert sum(change.seat == 0 for changes in standings.changes.values() for change in changes) == 4
    assert ratings.settlement(ids[-1])["unrated_because"] == "bot_seat"
    # and a fresh worker on the same database, and the events read again from the global feed
    # alone and folded by the engine, give the same matches and the same numbers, to the last bit
    again = Ratings(services(create_app(settings)).match.repo, holders)
    assert again.all_finished() == ratings.all_finished()
    replayed = model.fold_order(from_the_feed(repo.store, holders))
    assert replayed == ratings.all_finished()
    assert model.fold(replayed) == standings == again.standings()
    assert model.figures(replayed) == model.figures(ratings.all_finished())
    assert again.player("p1") == ratings.player("p1")
    # and a player's figures add up to the engine's final scores
    figures_add_up(ratings, ids)
    # and the API answers the same numbers
    http = app.test_client()
    assert http.get("/api/players/p1").get_json() == ratings.player("p1")
    assert http.get("/api/leaderboards/koudiandian?limit=3").get_json() == ratings.leaderboard("koudiandian", 3)
    assert http.get(f"/api/matches/{ids[0]}/ratings").get_json() == ratings.settlement(ids[0])
    assert http.get(f"/api/matches/{ids[-1]}/ratings").get_json()["unrated_because"] == "bot_seat"
    assert http.get("/api/leaderboards/nothing").status_code == 404
    assert http.get("/api/players/nobody").status_code == 404


def figures_add_up(ratings: Ratings, ids: list[str]) -> None:
    """Each match's points on a player's page are the engine's final score for the seat, and per
    rule set the figures are the sums of the matches'."""
    for player in ("p1", "p2", "p3", "p4", "p5"):
        page = ratings.player(player)
        for entry in page["matches"]:
            assert entry["figures"]["points"] == entry["score"]
        for rule_set in page["rule_sets"]:
            mine = [m for m in page["matches"] if m["rule_set"] == rule_set["rule_set"]]
            assert rule_set["figures"]["matches"] == len(mine)
            assert rule_set["figures"]["points"] == sum(m["score"] for m in mine)
            assert rule_set["figures"]["hands_won"] == sum(m["figures"]["hands_won"] for m in mine)
    p1 = ratings.player("p1")
    assert [m["match"] for m in p1["matches"]] == list(reversed(ids))  # newest first
    assert {r["rule_set"] for r in p1["rule_sets"]} == {"koudiandian", "koudiandian+wilds", "hanshan"}
    assert sum(m["figures"]["dealt_in"] for p in ("p1", "p2", "p3", "p4") for m in ratings.player(p)["matches"]) > 0
    board = ratings.leaderboard("koudiandian")
    assert sorted(row["player"] for row in board["players"]) == ["p1", "p2", "p3", "p4"]
    assert [row["rating"] for row in board["players"]] == sorted(
        (row["rating"] for row in board["players"]), reverse=True
    )
    assert all(row["matches"] == 2 for row in board["players"])


# -- with the accounts' seat links ------------------------------------------------------------
def test_a_match_of_four_signed_in_players_is_rated_through_their_accounts(tmp_path, monkeypatch):
    """Given four accounts whose players join matches while signed in (their seats linked), when a
    match ends, then it is rated for those four accounts under their names; a match whose seat was
    re-invited (the link ends) and one where an account holds two seats are not rated; and when an
    account is deleted, its seats are no longer held and its ratings go."""
    from webauthn_support import Passkey

    app = create_app({"DATABASE": str(tmp_path / "t.db"), "TESTING": True, "KEYS": str(tmp_path / "keys")})
    play, accounts, reads = services(app).match, services(app).accounts, services(app).reads
    sessions = []
    for name in ("Ada", "Bo", "Cy", "Di"):
        passkey = Passkey()
        sessions.append(accounts.finish_sign_up(passkey.create(accounts.begin_sign_up(name)), "laptop"))

    def linked_match(label: str, holders: list[int], reinvite: Optional[int] = None) -> str:
        seeded_deals(monkeypatch, label)
        match_id, owner, _ = play.create("koudiandian", {"hands": 1})
        for seat, who in enumerate(holders):
            joined, token, _ = play.join(match_id, HUMANS[seat])
            accounts.link(sessions[who].session, match_id, joined, token, "joined")
        if reinvite is not None:
            play.reissue_seat(match_id, owner, reinvite)  # someone else plays it now, with the new token
        while not (loaded := play.repo.load(match_id)).over:
            seat = engine.pending_seats(loaded.state)[0]
            play.act(match_id, seat, engine.bot_action(loaded.state, seat), None)
        return match_id

    rated = linked_match("ratings-koudiandian-1", [0, 1, 2, 3])
    twice = linked_match("ratings-koudiandian-2", [0, 1, 2, 0])
    reinvited = linked_match("ratings-koudiandian-3", [3, 2, 1, 0], reinvite=2)
    changes = reads.rating_changes(rated)
    assert changes["rated"], changes
    assert [(c["player"], c["name"]) for c in changes["seats"]] == [
        (sessions[n].account_id, name) for n, name in enumerate(("Ada", "Bo", "Cy", "Di"))
    ]
    assert reads.rating_changes(twice)["unrated_because"] == "same_player_twice"
    assert reads.rating_changes(reinvited)["unrated_because"] == "seat_without_account"
    ada = reads.player(sessions[0].account_id)
    assert ada["name"] == "Ada" and [m["match"] for m in ada["matches"]] == [reinvited, twice, rated]
    assert ada["rule_sets"][0]["rating"]["matches"] == 1
    board = reads.leaderboard("koudiandian", 10)["players"]
    assert sorted(row["name"] for row in board) == ["Ada", "Bo", "Cy", "Di"]
    # when Ada deletes her account, then her seats are nobody's: the match is no longer rated
    accounts.delete(sessions[0].session)
    assert reads.rating_changes(rated)["unrated_because"] == "seat_without_account"
    assert reads.leaderboard("koudiandian", 10)["players"] == []
    with pytest.raises(NotFound):
        reads.player(sessions[0].account_id)  # the profile goes with the account
