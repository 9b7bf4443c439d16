"""Accounts on passkeys, use case by use case, on both backends (service/usecases/accounts.py): sign
up, sign in, more passkeys, recovery codes, sessions, seats held through the account, export and
deletion; and the refusals an account takeover would need (docs/WEB.md, "Accounts")."""

from __future__ import annotations

import json

import pytest

from service.app import create_app
from service.http.services import services
from service.model.catalogue import MATCH_TYPES
from service.model.errors import Forbidden, Unauthenticated
from webauthn_support import Passkey


@pytest.fixture
def app_on(backend, tmp_path):
    app = create_app({"DATABASE": backend.target, "TESTING": True, "KEYS": str(tmp_path / "keys")})
    yield app
    services(app).match.repo.store.close()


@pytest.fixture
def accounts(app_on):
    return services(app_on).accounts


def sign_up(accounts, name="Ada", passkey=None):
    passkey = passkey or Passkey()
    signed = accounts.finish_sign_up(passkey.create(accounts.begin_sign_up(name)), "laptop")
    return passkey, signed


def sign_in(accounts, passkey, label="phone"):
    return accounts.finish_sign_in(passkey.get(accounts.begin_sign_in()), label)


def test_sign_up_then_sign_in_with_the_passkey(accounts, backend):
    """Given a display name and a new passkey, when the player signs up, then the account is open
    with ten recovery codes shown once, and the same passkey signs it in on another session."""
    passkey, signed = sign_up(accounts)
    assert len(signed.recovery_codes) == 10 and len(set(signed.recovery_codes)) == 10
    profile = accounts.profile(signed.session)
    assert profile["name"] == "Ada" and profile["passkeys"] == 1 and profile["recovery_codes_left"] == 10
    again = sign_in(accounts, passkey)
    assert again.account_id == signed.account_id and again.session != signed.session
    assert [s["device"] for s in accounts.profile(again.session)["sessions"]] == ["laptop", "phone"]


def test_no_secret_and_no_personal_field_is_stored_in_clear(accounts, backend):
    """Given an account, then neither its name, session, recovery codes nor passkey id appears in any
    table as written: the events hold sealed fields, the side tables MACs."""
    passkey, signed = sign_up(accounts, name="Zebedee Quuxley")
    if backend.name == "sqlite":
        tables = [r[0] for r in backend.sql("SELECT name FROM sqlite_master WHERE type = 'table'")]
    else:
        tables = [
            r[0]
            for r in backend.sql(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
            )
        ]
    dump = "\n".join(repr(backend.sql(f"SELECT * FROM {table}")) for table in tables)
    assert "account-" + signed.account_id in dump  # the stream is there
    for secret in ["Zebedee", signed.session, *signed.recovery_codes]:
        assert secret not in dump
    events = backend.sql("SELECT payload FROM events")
    assert passkey.id not in repr(events)


def test_a_second_passkey_added_from_a_signed_in_device_signs_in(accounts):
    """Given a signed-in device, when it adds a second passkey (another device's), then both sign in."""
    first, signed = sign_up(accounts)
    second = Passkey()
    accounts.finish_add_passkey(signed.session, second.create(accounts.begin_add_passkey(signed.session)))
    assert accounts.profile(signed.session)["passkeys"] == 2
    assert sign_in(accounts, second).account_id == signed.account_id
    assert sign_in(accounts, first).account_id == signed.account_id


def test_a_replayed_assertion_is_refused(accounts):
    """Given a sign-in that worked, when the same assertion is sent again, then it is refused."""
    passkey, signed = sign_up(accounts)
    assertion = passkey.get(accounts.begin_sign_in())
    accounts.finish_sign_in(assertion, "phone")
    with pytest.raises(Forbidden) as refused:
        accounts.finish_sign_in(assertion, "phone")
    assert refused.value.code == "challenge_used"


def test_a_challenge_is_used_once(accounts):
    """Given one sign-in challenge, when two assertions (even from the account's passkey) answer it,
    then only the first signs in."""
    passkey, signed = sign_up(accounts)
    options = accounts.begin_sign_in()
    accounts.finish_sign_in(passkey.get(options), "a")
    with pytest.raises(Forbidden):
        accounts.finish_sign_in(passkey.get(options), "b")


def test_an_assertion_made_for_another_origin_or_rp_is_refused(accounts):
    """Given an account, when its passkey answers a challenge for another origin (a phishing page) or
    another relying party, then nothing signs in."""
    passkey, signed = sign_up(accounts)
    with pytest.raises(Forbidden) as refused:
        accounts.finish_sign_in(passkey.get(accounts.begin_sign_in(), origin="https://evil.example"), "x")
    assert refused.value.code == "wrong_origin"
    with pytest.raises(Forbidden):
        accounts.finish_sign_in(passkey.get(accounts.begin_sign_in(), origin="http://127.0.0.1:5000"), "x")
    with pytest.raises(Forbidden):
        accounts.finish_sign_in(passkey.get(accounts.begin_sign_in(), rp_id="evil.example"), "x")


def test_a_challenge_is_bound_to_the_origin_it_was_asked_from(accounts):
    """Given a challenge asked from one allowed origin, when the answer comes from another allowed
    origin (another local port), then it is refused; a challenge asked from a foreign origin is not
    issued at all."""
    passkey, _ = sign_up(accounts)
    options = accounts.begin_sign_in("http://localhost:5000")
    with pytest.raises(Forbidden) as refused:
        accounts.finish_sign_in(passkey.get(options, origin="http://localhost:6000"), "x")
    assert refused.value.code == "wrong_origin"
    assert accounts.finish_sign_in(passkey.get(accounts.begin_sign_in("http://localhost:5000")), "x").session
    with pytest.raises(Forbidden):
        accounts.begin_sign_in("https://evil.example")


def test_another_accounts_passkey_or_an_unknown_one_signs_in_nothing(accounts):
    stranger = Passkey()
    with pytest.raises(Forbidden):
        accounts.finish_sign_in(stranger.get(accounts.begin_sign_in()), "x")


def test_an_assertion_naming_another_user_is_refused(accounts):
    """Given two accounts, when one's passkey answers naming the other's user handle, then nothing
    signs in."""
    ada_key, _ = sign_up(accounts, "Ada")
    bob_key, _ = sign_up(accounts, "Bob")
    ada_key.user_handle = bob_key.user_handle
    with pytest.raises(Forbidden):
        sign_in(accounts, ada_key)


def test_sign_out_ends_this_session_only(accounts):
    passkey, signed = sign_up(accounts)
    other = sign_in(accounts, passkey)
    accounts.sign_out(signed.session)
    assert accounts.account_of(signed.session) is None
    assert accounts.account_of(other.session) is not None


def test_a_session_after_sign_out_everywhere_is_refused(accounts):
    """Given two signed-in devices (and a stolen cookie), when one signs out everywhere, then no
    session of the account works, and a passkey signs in again."""
    passkey, signed = sign_up(accounts)
    stolen = sign_in(accounts, passkey)
    assert accounts.sign_out_everywhere(signed.session) == (2, [])
    for session in (signed.session, stolen.session):
        assert accounts.account_of(session) is None
        with pytest.raises(Unauthenticated):
            accounts.profile(session)
    assert accounts.account_of(sign_in(accounts, passkey).session) is not None


def test_a_recovery_code_gives_a_new_passkey_once(accounts):
    """Given a lost device, when the player recovers with a code on a new one, then the new passkey
    signs in, every older session ends, and the same code is refused the second time."""
    lost, signed = sign_up(accounts)
    code = signed.recovery_codes[3]
    fresh = Passkey()
    recovered = accounts.finish_recovery(fresh.create(accounts.begin_recovery(code.upper())), "new phone")
    assert recovered.account_id == signed.account_id
    assert accounts.account_of(signed.session) is None  # the lost device is signed out
    assert accounts.profile(recovered.session)["recovery_codes_left"] == 9
    assert sign_in(accounts, fresh).account_id == signed.account_id
    with pytest.raises(Forbidden) as refused:
        accounts.begin_recovery(code)
    assert refused.value.code == "invalid_recovery_code"


def test_a_recovery_code_raced_twice_works_once(accounts):
    """Given one code, when two ceremonies begin with it, then only the first to finish recovers."""
    _, signed = sign_up(accounts)
    code = signed.recovery_codes[0]
    first, second = Passkey(), Passkey()
    options_a, options_b = accounts.begin_recovery(code), accounts.begin_recovery(code)
    accounts.finish_recovery(first.create(options_a), "a")
    with pytest.raises(Forbidden) as refused:
        accounts.finish_recovery(second.create(options_b), "b")
    assert refused.value.code == "invalid_recovery_code"


def test_a_guessed_recovery_code_is_refused(accounts):
    sign_up(accounts)
    with pytest.raises(Forbidden):
        accounts.begin_recovery("abcd-efgh-jkmn-pqrs")


def test_renewed_recovery_codes_replace_the_old_ones(accounts):
    _, signed = sign_up(accounts)
    fresh = accounts.renew_recovery_codes(signed.session)
    with pytest.raises(Forbidden):
        accounts.begin_recovery(signed.recovery_codes[0])
    assert accounts.begin_recovery(fresh[0])["challenge"]


def test_a_seat_joined_while_signed_in_is_played_from_every_device(app_on, accounts):
    """Given a signed-in player who joins a match, when another device of the account signs in, then
    that device acts for the seat through the account (a delegated token, never the seat's token),
    and a re-invite of the seat ends the link."""
    play = services(app_on).match
    passkey, laptop = sign_up(accounts)
    match_id, owner, _ = play.create("hanshan", {"hands": 1})
    seat, token, _ = play.join(match_id, "Ada")
    accounts.link(laptop.session, match_id, seat, token, "joined")
    phone = sign_in(accounts, passkey)
    delegated = accounts.credential(phone.session, match_id)
    assert delegated and delegated != token
    assert services(app_on).reads.seat_of(match_id, delegated) == seat
    match_types = {event.type for event in play.repo.store.read("match-" + match_id)}
    assert match_types <= MATCH_TYPES  # no account event in the match's chain
    assert accounts.held(phone.session).keys() == {match_id}
    assert accounts.credential(phone.session, "nonexistent") is None
    play.reissue_seat(match_id, owner, seat)
    assert accounts.credential(phone.session, match_id) is None
    assert services(app_on).reads.seat_of(match_id, delegated) is None


def test_seats_held_anonymously_are_claimed_in_one_step_only_with_working_tokens(app_on, accounts):
    """Given a browser holding two seat tokens and an owner token (one of them stale or forged), when
    it claims them into the account, then exactly the working ones are linked, in one append."""
    play = services(app_on).match
    _, signed = sign_up(accounts)
    first, owner_a, _ = play.create("hanshan", {"hands": 1})
    second, owner_b, _ = play.create("hanshan", {"hands": 1})
    seat_a, token_a, _ = play.join(first, "Ada")
    seat_b, token_b, _ = play.join(second, "Ada")
    claimed = accounts.claim(signed.session, {first: token_a, second: "forged" + token_b}, {first: owner_a})
    assert sorted((c["match_id"], c["seat"]) for c in claimed) == sorted([(first, seat_a), (first, -1)])
    assert accounts.credential(signed.session, first, owner=True)
    assert accounts.credential(signed.session, second) is None
    assert accounts.claim(signed.session, {first: token_a}, {}) == []  # already the account's


def test_reading_another_accounts_data_is_refused(app_on, accounts):
    """Given two accounts, then each session reads and acts for its own account only, and no session
    (or none) reads either."""
    play = services(app_on).match
    _, ada = sign_up(accounts, "Ada")
    _, bob = sign_up(accounts, "Bob")
    match_id, _, _ = play.create("hanshan", {"hands": 1})
    seat, token, _ = play.join(match_id, "Ada")
    accounts.link(ada.session, match_id, seat, token, "joined")
    assert accounts.export(bob.session)["account"]["name"] == "Bob"
    assert match_id not in json.dumps(accounts.export(bob.session))
    assert accounts.credential(bob.session, match_id) is None and accounts.held(bob.session) == {}
    altered = ada.session[:-1] + ("B" if ada.session.endswith("A") else "A")
    for session in (None, "", "x" * 43, altered):
        with pytest.raises(Unauthenticated):
            accounts.export(session)


def test_export_holds_the_account_and_no_secret(app_on, accounts):
    play = services(app_on).match
    passkey, signed = sign_up(accounts, "Ada")
    match_id, _, _ = play.create("hanshan", {"hands": 1})
    seat, token, _ = play.join(match_id, "Ada")
    accounts.link(signed.session, match_id, seat, token, "joined")
    exported = accounts.export(signed.session)
    text = json.dumps(exported)
    assert exported["account"]["name"] == "Ada" and exported["passkey_ids"] == [passkey.id]
    assert exported["account"]["seats"] == [{"match_id": match_id, "seat": seat, "how": "joined"}]
    assert [e["type"] for e in exported["events"]][:3] == ["account_opened", "passkey_added", "recovery_codes_issued"]
    for secret in [signed.session, token, *signed.recovery_codes, "sealed1.", "check"]:
        assert secret not in text


def test_deleting_the_account_leaves_the_match_untouched(app_on, accounts, backend):
    """Given an account holding a seat, when it is deleted, then its sessions, passkeys and codes are
    gone, its events can no longer say its name or seats, and the match's events and seat name are
    as they were."""
    play = services(app_on).match
    passkey, signed = sign_up(accounts, "Ada")
    match_id, _, _ = play.create("hanshan", {"hands": 1})
    seat, token, _ = play.join(match_id, "Ada Lovelace")
    accounts.link(signed.session, match_id, seat, token, "joined")
    before = backend.sql(
        "SELECT stream, version, hash FROM events WHERE substr(stream, 1, 8) <> 'account-' ORDER BY position"
    )
    accounts.delete(signed.session)
    assert accounts.account_of(signed.session) is None
    with pytest.raises(Forbidden):
        sign_in(accounts, passkey)
    with pytest.raises(Forbidden):
        accounts.begin_recovery(signed.recovery_codes[1])
    for table in ("tf_passkeys", "tf_sessions", "tf_recovery", "tf_account_keys"):
        assert backend.sql(f"SELECT count(*) FROM {table}")[0][0] == 0
    fresh = create_app(
        {"DATABASE": backend.target, "TESTING": True, "KEYS": str(app_on.config["KEYS"])}
    )  # a worker with no key cached
    try:
        folded = services(fresh).accounts._fold(signed.account_id)
        assert folded.deleted and folded.name is None and folded.links == {}
        sealed = services(fresh).accounts.secrets.open(signed.account_id, "sealed1.AAAA")
        assert sealed is None
    finally:
        services(fresh).match.repo.store.close()
    after = backend.sql(
        "SELECT stream, version, hash FROM events WHERE substr(stream, 1, 8) <> 'account-' ORDER BY position"
    )
    assert after == before
    assert services(app_on).reads.seat_of(match_id, token) == seat  # the seat's own token still plays
    names = [s.name for s in play.repo.load(match_id).room.seats if s is not None]
    assert "Ada Lovelace" in names
