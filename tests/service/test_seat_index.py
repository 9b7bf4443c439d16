"""Who holds which seat for ratings and Web Push (service/usecases/seat_index.py), on both backends:
the accounts' rule (a seat two accounts link is held by neither, a re-invite ends a link, a deleted
account holds nothing) through each change, as a fresh index built from scratch answers it; and
kept up to date by the store's feed, so a move costs one query (the feed's poll) and no refold of
any account, and ratings fold again only when a match ends."""

from __future__ import annotations

import pytest

from audit_support import seeded_deals
import engine
from service.app import create_app
from service.http.services import services
from service.infra.feed import StoreFeed
from service.usecases.seat_index import SeatIndex
from webauthn_support import Passkey


@pytest.fixture
def app_on(backend, tmp_path):
    app = create_app(
        {"DATABASE": backend.target, "TESTING": True, "KEYS": str(tmp_path / "keys"), "WEBHOOK_WORKER": False}
    )
    yield app
    services(app).match.repo.store.close()


def signed_up(app, name: str) -> str:
    accounts = services(app).accounts
    passkey = Passkey()
    return accounts.finish_sign_up(passkey.create(accounts.begin_sign_up(name)), "phone").session


class Counted:
    """Counts the calls made to the store's reading and writing methods while `counting` is on."""

    NAMES = (
        "query",
        "write",
        "read",
        "read_all",
        "appended_since",
        "head_position",
        "streams",
        "streams_newest_first",
        "load_snapshot",
        "current_version",
    )

    def __init__(self, store, monkeypatch) -> None:
        self.calls: list[str] = []
        self.counting = False
        for name in self.NAMES:
            monkeypatch.setattr(store, name, self._wrap(name, getattr(store, name)))

    def _wrap(self, name, real):
        def counted(*args, **kwargs):
            if self.counting:
                self.calls.append(name)
            return real(*args, **kwargs)

        return counted

    def during(self, fn):
        self.calls, self.counting = [], True
        try:
            return fn()
        finally:
            self.counting = False


def test_the_index_answers_as_the_accounts_rule_does(app_on):
    """Given Ada's and Bob's seats in a match, and a seat both link in another, when Ada's seat is
    re-invited and Bob's account deleted, then at each step the index answers the accounts' rule:
    the linked seats, never the seat two accounts link, not a re-invited seat, nothing of a deleted
    account (and a second index, built from scratch on the same store, answers the same)."""
    play, accounts = services(app_on).match, services(app_on).accounts
    seats = services(app_on).push.seats
    ada, bob = signed_up(app_on, "Ada"), signed_up(app_on, "Bob")
    ada_id, bob_id = accounts.account_of(ada).account_id, accounts.account_of(bob).account_id
    first, owner, _ = play.create("hanshan", {"hands": 1})
    second, _, _ = play.create("hanshan", {"hands": 1})

    def held() -> dict:
        found = {match: seats.current(match) for match in (first, second)}
        fresh = SeatIndex(accounts, StoreFeed(play.repo.store))
        assert found == {match: fresh.players_of(match) for match in (first, second)}
        return found

    assert held() == {first: {}, second: {}}
    seat_a, token_a, _ = play.join(first, "Ada")
    accounts.link(ada, first, seat_a, token_a, "joined")
    seat_b, token_b, _ = play.join(first, "Bob")
    accounts.link(bob, first, seat_b, token_b, "joined")
    shared, token_s, _ = play.join(second, "both")
    accounts.link(ada, second, shared, token_s, "joined")
    assert held() == {first: {seat_a: ada_id, seat_b: bob_id}, second: {shared: ada_id}}
    accounts.link(bob, second, shared, token_s, "claimed")
    assert held() == {first: {seat_a: ada_id, seat_b: bob_id}, second: {}}  # two accounts link it: neither
    play.reissue_seat(first, owner, seat_a)
    assert held() == {first: {seat_b: bob_id}, second: {}}  # the re-invite ended Ada's link
    accounts.delete(bob)
    assert held() == {first: {}, second: {shared: ada_id}}  # Ada's link alone now


def test_a_move_costs_the_feeds_poll_only_and_ratings_fold_when_the_match_ends(app_on, monkeypatch):
    """Given Ada's seat in a match with three bots, when she plays it out move by move, then after
    each move the index and the ratings answer with one query (the feed's poll), fold no account
    again and build nothing again; the ratings fold once more only when the match has ended."""
    play, accounts = services(app_on).match, services(app_on).accounts
    seats, ratings = services(app_on).push.seats, services(app_on).reads.ratings
    ada = signed_up(app_on, "Ada")
    seeded_deals(monkeypatch, "seat-index-moves")  # a deal where Ada moves more than three times, every run
    match_id, owner, _ = play.create("hanshan", {"hands": 1})
    seat, token, _ = play.join(match_id, "Ada")
    accounts.link(ada, match_id, seat, token, "joined")
    play.add_bots(match_id, owner, None)
    held = {seat: accounts.account_of(ada).account_id}
    assert seats.current(match_id) == held and ratings.all_finished() == []
    folds, rebuilds = ratings.folds, seats.rebuilds
    refolded = []
    fold = accounts._fold
    monkeypatch.setattr(accounts, "_fold", lambda account_id: refolded.append(account_id) or fold(account_id))
    store = Counted(play.repo.store, monkeypatch)
    moves = 0
    while not play.load(match_id).over:
        loaded = play.load(match_id)
        play.act(match_id, seat, engine.legal_actions(loaded.state, seat)[0], None, loaded=loaded)
        moves += 1
        if play.load(match_id).over:
            break
        assert store.during(lambda: seats.current(match_id)) == held
        assert store.calls == ["appended_since"], store.calls
        assert store.during(ratings.all_finished) == []
        assert store.calls == ["appended_since"], store.calls
    print(f"{moves} moves")
    assert moves > 3 and refolded == [] and seats.rebuilds == rebuilds and ratings.folds == folds
    finished = ratings.all_finished()
    assert [m.match_id for m in finished] == [match_id] and finished[0].players[seat] == held[seat]
    assert ratings.folds == folds + 1 and refolded == [] and seats.rebuilds == rebuilds
