"""Players' accounts on passkeys (WebAuthn, py_webauthn): sign up, sign in, more passkeys, recovery
codes, sessions, the seats an account holds, export and deletion (docs/WEB.md, "Accounts").

An account is the stream `account-<id>` (service/model/accounts.py: its events, sealed personal
fields); what signs it in lives beside it as keyed MACs (service/infra/account_secrets.py). Every
call that reads or changes an account takes the caller's session secret (or one of its API
tokens, `tfa1_...`, which acts as a session would, but never for what needs a signed-in device:
passkeys, recovery codes, device links, signing out everywhere, deletion, new API tokens), never an
account id: a session or token reaches its own account only.

A seat belongs to an account through a `seat_linked` event holding a fingerprint of the seat's token
verifier (service/infra/tokens.py `check`), never the token. A signed-in device acting for that
seat is given a short-lived delegated token (`credential`, `Tokens.delegate`) that the http layer
puts into the request; every use case that takes a seat token then serves it unchanged, and a
re-invite of the seat ends the link.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Callable, Optional, Sequence

from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers.exceptions import InvalidAuthenticationResponse, InvalidRegistrationResponse
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from events import ConcurrencyError, NewEvent

from .access import seat_in
from ..infra.account_secrets import API_TOKEN_PREFIX, AccountSecrets, b64, new_recovery_code, unb64
from ..infra.clock import Clock, iso, parse
from ..infra.repository import MatchRepository
from ..infra.tokens import OWNER as OWNER_ROW, Tokens
from ..model import accounts as model
from ..model.accounts import Account
from ..model.catalogue import new_event
from ..model.errors import Busy, Forbidden, Invalid, NotFound, Unauthenticated
from ..model.match import stream_of as match_stream

CHALLENGE_SECONDS = 300
RECOVERY_CODES = 10
MAX_NAME = 40
RETRIES = 20
MAX_API_TOKENS = 20  # live API tokens an account may hold
ALL_ACCOUNTS = 1 << 40  # no limit on the accounts the seat index reads


@dataclass(frozen=True)
class WebAuthnSettings:
    """The relying party: its id (a domain: `localhost` by default) and the origins a ceremony may
    come from (by default http://localhost on any port when the id is localhost, else https://<id>)."""

    rp_id: str = "localhost"
    rp_name: str = "Tilefold"
    origins: tuple[str, ...] = ()

    def origin_ok(self, origin: str) -> bool:
        if self.origins:
            return origin in self.origins
        if self.rp_id == "localhost":
            head, _, port = origin.partition("localhost")
            return head == "http://" and (port == "" or (port[:1] == ":" and port[1:].isdigit()))
        return origin == f"https://{self.rp_id}"


@dataclass(frozen=True)
class SessionLimits:
    """How long a session lives: `lifetime` seconds after it signed in at most, and `idle` seconds
    after it last authorised a change (or signed in); past either it is refused, as if signed out
    (TILEFOLD_SESSION_LIFETIME_DAYS, TILEFOLD_SESSION_IDLE_DAYS)."""

    lifetime: float = 180 * 86400.0
    idle: float = 30 * 86400.0
    seen_every: float = 300.0  # a session's last use is noted at most this often (seconds)


@dataclass(frozen=True)
class SignedIn:
    account_id: str
    session: str  # the cookie's secret (shown to this device only, stored as a MAC)
    recovery_codes: tuple[str, ...] = ()  # shown once, at sign-up and when renewed


class Accounts:
    """The use cases of accounts, over the store, the matches' repository and the token verifiers."""

    def __init__(
        self,
        repo: MatchRepository,
        tokens: Tokens,
        account_secrets: AccountSecrets,
        clock: Clock,
        webauthn: WebAuthnSettings,
        limits: SessionLimits = SessionLimits(),
    ) -> None:
        self.repo, self.tokens, self.secrets, self.clock, self.rp = repo, tokens, account_secrets, clock, webauthn
        self.limits = limits
        self.store = repo.store

    # -- reading an account ---------------------------------------------------------------------
    def _fold(self, account_id: str) -> Account:
        events = []
        for event in self.store.read(model.stream_of(account_id)):
            payload = dict(event.payload)
            for name in model.SEALED.get(event.type, ()):
                payload[name] = self.secrets.open(account_id, payload.get(name))
            events.append((event.version, event.type, payload, event.recorded_at))
        return model.fold(account_id, events)

    def _signed_in(self, session: Optional[str], device: bool = False) -> Account:
        """The account a session's secret signs in, or an API token acts for (Unauthenticated).
        `device`: a call only a signed-in device may make (what needs a passkey, or hands out new
        credentials): an API token is refused (Forbidden `needs_session`)."""
        token = bool(session and session.startswith(API_TOKEN_PREFIX))
        if token:
            account_id = self.secrets.api_token_account(session)
        else:
            found = self.secrets.session(session)
            account_id = found[0] if found is not None and self._live(found[2], found[3]) else None
        account = self._fold(account_id) if account_id else None
        if account is None or not account.exists:
            raise Unauthenticated("not_signed_in", "sign in first")
        if device and token:
            raise Forbidden("needs_session", "only a device signed in with its passkey may do this, not an API token")
        return account

    def cutoffs(self) -> tuple[str, str]:
        """(made before, last used before): a session past either has expired."""
        now = self.clock.now()
        return iso(now - timedelta(seconds=self.limits.lifetime)), iso(now - timedelta(seconds=self.limits.idle))

    def _live(self, made: str, seen: Optional[str]) -> bool:
        made_before, used_before = self.cutoffs()
        return made >= made_before and (seen or made) >= used_before

    def _session_writer(self, account_id: str, label: str, now: str) -> tuple[str, Callable[[Any], None]]:
        """A new session of the account (its secret, its write), the account's expired ones swept."""
        return self.secrets.session_writer(account_id, label, now, self.cutoffs())

    def account_of(self, session: Optional[str]) -> Optional[Account]:
        """The account a session cookie signs in, None for none (signed out, ended, deleted)."""
        try:
            return self._signed_in(session)
        except Unauthenticated:
            return None

    def _append(self, account: Account, events: list[dict], extra: Optional[Callable[[Any], Any]] = None) -> None:
        sealed = [self._sealed(account.account_id, event) for event in events]
        try:
            self.store.append(model.stream_of(account.account_id), account.version, sealed, extra=extra)
        except ConcurrencyError:
            raise Busy("busy", "the account changed meanwhile, retry", retry_after=1) from None

    def _sealed(self, account_id: str, event: dict) -> NewEvent:
        event = dict(event)
        for name in model.SEALED.get(event["type"], ()):
            event[name] = self.secrets.seal(account_id, str(event[name]))
        return new_event(event)

    def _now(self) -> str:
        return iso(self.clock.now())

    # -- ceremonies -----------------------------------------------------------------------------
    def _challenge(self, purpose: str, data: dict, origin: Optional[str] = None) -> bytes:
        """A new challenge for `purpose`, kept with `data` and (when the request named one) the
        origin it was asked from: the answer must come from that same origin."""
        if origin:
            if not self.rp.origin_ok(origin):
                raise Forbidden("wrong_origin", "this site does not take passkeys from that origin")
            data = {**data, "origin": origin}
        challenge = secrets.token_bytes(32)
        now = time.time()
        self.secrets.put_challenge(challenge, purpose, data, now + CHALLENGE_SECONDS, now)
        return challenge

    def _take(self, credential: Any, purpose: str) -> dict:
        """What the challenge the credential answers was issued for (once: a second use is refused)."""
        try:
            client_data = json.loads(unb64(str(credential["response"]["clientDataJSON"])))
            challenge, origin = str(client_data["challenge"]), str(client_data["origin"])
        except (KeyError, TypeError, ValueError):
            raise Invalid("invalid_credential", "the passkey's answer cannot be read") from None
        if not self.rp.origin_ok(origin):
            raise Forbidden("wrong_origin", "the passkey answered another site")
        data = self.secrets.take_challenge(challenge, purpose, time.time())
        if data is None:
            raise Forbidden("challenge_used", "this sign-in request is used, expired or unknown: start again")
        if data.get("origin") not in (None, origin):
            raise Forbidden("wrong_origin", "the passkey answered from another origin than the request's")
        data["_challenge"] = challenge
        return data

    def _registration(
        self, account_id: str, name: str, exclude: Sequence[str], purpose: str, data: dict, origin: Optional[str]
    ) -> dict:
        challenge = self._challenge(purpose, data, origin)
        options = generate_registration_options(
            rp_id=self.rp.rp_id,
            rp_name=self.rp.rp_name,
            user_name=name,
            user_id=account_id.encode(),
            user_display_name=name,
            challenge=challenge,
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED, user_verification=UserVerificationRequirement.REQUIRED
            ),
            exclude_credentials=[PublicKeyCredentialDescriptor(id=unb64(c)) for c in exclude],
        )
        loaded: dict = json.loads(options_to_json(options))
        return loaded

    def _registered(self, credential: Any, data: dict) -> tuple[str, str, int]:
        """(credential id, public key, sign count) of a verified new passkey."""
        try:
            verified = verify_registration_response(
                credential=credential,
                expected_challenge=unb64(data["_challenge"]),
                expected_rp_id=self.rp.rp_id,
                expected_origin=self._origins(credential),
                require_user_verification=True,
            )
        except (InvalidRegistrationResponse, KeyError, TypeError, ValueError) as exc:
            raise Forbidden("invalid_credential", f"the passkey was not accepted: {exc}") from None
        credential_id = b64(verified.credential_id)
        if self.secrets.passkey_known(credential_id):
            raise Forbidden("invalid_credential", "this passkey already signs in an account")
        return credential_id, b64(verified.credential_public_key), int(verified.sign_count)

    def _origins(self, credential: Any) -> list[str]:
        """The origin the ceremony may have come from: the configured ones, or (by default) the one the
        client data names when it is an allowed local origin (already checked by `_take`)."""
        if self.rp.origins:
            return list(self.rp.origins)
        origin = str(json.loads(unb64(str(credential["response"]["clientDataJSON"])))["origin"])
        return [origin] if self.rp.origin_ok(origin) else []

    def begin_sign_up(self, name: str, origin: Optional[str] = None) -> dict:
        """The options for navigator.credentials.create: a new account with this display name."""
        name = " ".join(str(name).split())[:MAX_NAME]
        if not name:
            raise Invalid("invalid_name", "a display name is needed")
        account_id = secrets.token_urlsafe(12)
        return self._registration(account_id, name, (), "sign-up", {"account": account_id, "name": name}, origin)

    def finish_sign_up(self, credential: Any, label: str) -> SignedIn:
        """Open the account with its first passkey; a session and the recovery codes (shown once)."""
        data = self._take(credential, "sign-up")
        credential_id, public_key, count = self._registered(credential, data)
        account_id, now = str(data["account"]), self._now()
        codes = [new_recovery_code() for _ in range(RECOVERY_CODES)]
        session, start = self._session_writer(account_id, label, now)
        writes = [
            self.secrets.new_key_writer(account_id, now),
            self.secrets.passkey_writer(credential_id, account_id, count, now),
            self.secrets.recovery_writer(account_id, codes, now),
            start,
        ]
        events = [
            {"type": model.ACCOUNT_OPENED, "name": data["name"]},
            {"type": model.PASSKEY_ADDED, "credential": credential_id, "public_key": public_key, "label": "first"},
            {"type": model.RECOVERY_CODES_ISSUED, "count": len(codes)},
        ]
        self._append(Account(account_id), events, _all(writes))
        return SignedIn(account_id, session, tuple(codes))

    def begin_sign_in(self, origin: Optional[str] = None) -> dict:
        """The options for navigator.credentials.get (a discoverable passkey: no account named)."""
        challenge = self._challenge("sign-in", {}, origin)
        options = generate_authentication_options(
            rp_id=self.rp.rp_id, challenge=challenge, user_verification=UserVerificationRequirement.REQUIRED
        )
        loaded: dict = json.loads(options_to_json(options))
        return loaded

    def finish_sign_in(self, credential: Any, label: str) -> SignedIn:
        """A new session for the account whose passkey answered the challenge (once)."""
        data = self._take(credential, "sign-in")
        credential_id = str(credential.get("id", "")) if isinstance(credential, dict) else ""
        found = self.secrets.passkey(credential_id)
        account = self._fold(found[0]) if found else None
        if found is None or account is None or not account.exists or credential_id not in account.passkeys:
            raise Forbidden("invalid_credential", "this passkey signs in no account here")
        handle = credential.get("response", {}).get("userHandle") if isinstance(credential, dict) else None
        if handle and unb64(str(handle)) != account.account_id.encode():
            raise Forbidden("invalid_credential", "this passkey was made for another account")
        try:
            verified = verify_authentication_response(
                credential=credential,
                expected_challenge=unb64(data["_challenge"]),
                expected_rp_id=self.rp.rp_id,
                expected_origin=self._origins(credential),
                credential_public_key=unb64(account.passkeys[credential_id]),
                credential_current_sign_count=found[1],
                require_user_verification=True,
            )
        except (InvalidAuthenticationResponse, KeyError, TypeError, ValueError) as exc:
            raise Forbidden("invalid_credential", f"the passkey was not accepted: {exc}") from None
        if not self.secrets.count_used(credential_id, found[1], int(verified.new_sign_count)):
            raise Forbidden("invalid_credential", "this passkey's answer was already used")
        session, start = self._session_writer(account.account_id, label, self._now())
        self.store.write(start)
        return SignedIn(account.account_id, session)

    def begin_add_passkey(self, session: Optional[str], origin: Optional[str] = None) -> dict:
        """Options for one more passkey of the signed-in account (another device's, or this one's)."""
        account = self._signed_in(session, device=True)
        data = {"account": account.account_id}
        return self._registration(
            account.account_id, account.name or "", list(account.passkeys), "add-passkey", data, origin
        )

    def finish_add_passkey(self, session: Optional[str], credential: Any) -> None:
        account = self._signed_in(session, device=True)
        data = self._take(credential, "add-passkey")
        if data.get("account") != account.account_id:
            raise Forbidden("challenge_used", "this request was made for another account")
        credential_id, public_key, count = self._registered(credential, data)
        event = {"type": model.PASSKEY_ADDED, "credential": credential_id, "public_key": public_key, "label": "added"}
        self._append(
            account, [event], self.secrets.passkey_writer(credential_id, account.account_id, count, self._now())
        )

    def new_device_link(self, session: Optional[str]) -> str:
        """A one-time code (10 minutes) with which another device adds its own passkey to the
        signed-in account and signs in (`begin_linked_passkey`, `finish_linked_passkey`)."""
        account = self._signed_in(session, device=True)
        code = secrets.token_bytes(24)
        now = time.time()
        self.secrets.put_challenge(code, "device-link", {"account": account.account_id}, now + 600, now)
        return b64(code)

    def begin_linked_passkey(self, code: str, origin: Optional[str] = None) -> dict:
        """Options for a new device's passkey, from a device link's code (used once, here)."""
        data = self.secrets.take_challenge(str(code), "device-link", time.time())
        account = self._fold(str(data["account"])) if data else None
        if account is None or not account.exists:
            raise Forbidden("invalid_link", "this device link is used, expired or unknown: make a new one")
        data = {"account": account.account_id}
        return self._registration(
            account.account_id, account.name or "", list(account.passkeys), "link-passkey", data, origin
        )

    def finish_linked_passkey(self, credential: Any, label: str) -> SignedIn:
        """Add the new device's passkey to the account and sign that device in."""
        data = self._take(credential, "link-passkey")
        account = self._fold(str(data["account"]))
        if not account.exists:
            raise Forbidden("invalid_link", "the account is gone")
        credential_id, public_key, count = self._registered(credential, data)
        now = self._now()
        session, start = self._session_writer(account.account_id, label, now)
        event = {"type": model.PASSKEY_ADDED, "credential": credential_id, "public_key": public_key, "label": "device"}
        writes: list[Callable[[Any], Any]] = [
            self.secrets.passkey_writer(credential_id, account.account_id, count, now),
            start,
        ]
        self._append(account, [event], _all(writes))
        return SignedIn(account.account_id, session)

    # -- recovery -------------------------------------------------------------------------------
    def begin_recovery(self, code: str, origin: Optional[str] = None) -> dict:
        """Options for a new passkey of the account a recovery code belongs to (the code is used
        when the passkey is made: `finish_recovery`)."""
        verifier = self.secrets.recovery_verifier(code)
        found = self.secrets.recovery_account(verifier)
        account = self._fold(found) if found else None
        if account is None or not account.exists:
            raise Forbidden("invalid_recovery_code", "this recovery code is not valid (or was used)")
        data = {"account": account.account_id, "recovery": verifier}
        return self._registration(
            account.account_id, account.name or "", list(account.passkeys), "recover", data, origin
        )

    def finish_recovery(self, credential: Any, label: str) -> SignedIn:
        """Use the code (once), add the new passkey, end every other session and every API token,
        sign this device in."""
        data = self._take(credential, "recover")
        used = self.secrets.use_recovery(str(data.get("recovery", "")))
        if used is None or used[0] != data.get("account"):
            raise Forbidden("invalid_recovery_code", "this recovery code is not valid (or was used)")
        credential_id, public_key, count = self._registered(credential, data)
        account = self._fold(used[0])
        now = self._now()
        session, start = self._session_writer(account.account_id, label, now)
        ended = self.secrets.end_sessions_writer(account.account_id)
        events: list[dict] = [
            {"type": model.RECOVERY_CODE_USED, "left": used[1]},
            {"type": model.PASSKEY_ADDED, "credential": credential_id, "public_key": public_key, "label": "recovery"},
            {"type": model.SIGNED_OUT_EVERYWHERE, "sessions": 0},
        ]
        writes: list[Callable[[Any], Any]] = [
            ended,
            self.secrets.end_api_tokens_writer(account.account_id),
            self.secrets.passkey_writer(credential_id, account.account_id, count, now),
            start,
        ]
        self._append(account, events, _all(writes))
        return SignedIn(account.account_id, session)

    def renew_recovery_codes(self, session: Optional[str]) -> tuple[str, ...]:
        """Fresh recovery codes for the signed-in account (the old ones stop working), shown once."""
        account = self._signed_in(session, device=True)
        codes = [new_recovery_code() for _ in range(RECOVERY_CODES)]
        writer = self.secrets.recovery_writer(account.account_id, codes, self._now())
        self._append(account, [{"type": model.RECOVERY_CODES_ISSUED, "count": len(codes)}], writer)
        return tuple(codes)

    # -- sessions -------------------------------------------------------------------------------
    def end_expired_sessions(self) -> int:
        """End every account's expired sessions (the ticker's part, so the rows of an account that
        never signs in again do not stay): how many ended. They were refused already; this removes
        their rows, last use and push subscriptions."""
        return int(self.store.write(self.secrets.expired_sessions_writer(*self.cutoffs())))

    def sign_out(self, session: Optional[str]) -> list[tuple[str, int]]:
        """End this session; the (match, seat) the account holds (the device drops its own cookies
        of them: signed out, it no longer plays them)."""
        account = self.account_of(session)
        if session:
            self.secrets.end_session(session)
        return list(account.links) if account else []

    def sign_out_everywhere(self, session: Optional[str]) -> tuple[int, list[tuple[str, int]]]:
        """End every session of the account (this one too) and every API token it made (what a
        stolen session may have made goes with it): how many sessions ended, and the (match, seat)
        the account holds."""
        account = self._signed_in(session, device=True)
        writes = [
            self.secrets.end_sessions_writer(account.account_id),
            self.secrets.end_api_tokens_writer(account.account_id),
        ]
        count = len(self._sessions(account.account_id))
        self._append(account, [{"type": model.SIGNED_OUT_EVERYWHERE, "sessions": count}], _all(writes))
        return count, list(account.links)

    def sign_out_device(self, session: Optional[str], ref: str) -> bool:
        """End one session of the account, named by its public reference (the account page's list of
        devices: a lost or borrowed one), from a signed-in device (never an API token); recorded as
        `signed_out_device`. True when it was this device's own session. NotFound: the account has
        no live session of that reference."""
        account = self._signed_in(session, device=True)
        live = {found["id"]: found for found in self._sessions(account.account_id)}
        write = self.secrets.end_session_writer(account.account_id, str(ref)) if str(ref) in live else None
        if write is None:
            raise NotFound("no_such_session", "this account has no signed-in device of that id")
        own = self.secrets.session(session)
        event = {"type": model.SIGNED_OUT_DEVICE, "device": live[str(ref)]["device"]}
        self._append(account, [event], write)
        return own is not None and own[1] == str(ref)

    def session_used(self, session: Optional[str]) -> None:
        """Note that a session authorised a change now (at most every `seen_every` seconds; reads
        are not noted: a read writes nothing). Its idle timeout counts from then."""
        if not session or session.startswith(API_TOKEN_PREFIX):
            return
        found = self.secrets.session(session)
        if found is None or not self._live(found[2], found[3]):
            return
        now = self.clock.now()
        if (now - parse(found[3] or found[2])).total_seconds() >= self.limits.seen_every:
            self.secrets.session_seen(session, found[0], iso(now))

    def _sessions(self, account_id: str, session: Optional[str] = None) -> list[dict]:
        """The account's live sessions: public id, device label, signed in, last used, this one."""
        own = self.secrets.session(session) if session else None
        return [
            {"id": ref, "device": label, "since": made, "last_used": seen, "current": own is not None and own[1] == ref}
            for ref, label, made, seen in self.secrets.sessions(account_id)
            if self._live(made, seen)
        ]

    # -- API tokens for scripts (docs/API.md, "API tokens") ----------------------------------------
    def create_api_token(self, session: Optional[str], name: str) -> dict:
        """A new API token acting for the signed-in account (a device only: never another token),
        shown once; the service keeps its MAC."""
        account = self._signed_in(session, device=True)
        name = " ".join(str(name).split())[:MAX_NAME]
        if not name:
            raise Invalid("invalid_name", "name the token (what script uses it)")
        if len(self.secrets.api_tokens(account.account_id)) >= MAX_API_TOKENS:
            raise Invalid("too_many_tokens", f"an account holds at most {MAX_API_TOKENS} API tokens: revoke one first")
        now = self._now()
        token, ref, write = self.secrets.api_token_writer(account.account_id, name, now)
        self.store.write(write)
        return {"id": ref, "name": name, "created": now, "last_used": None, "token": token}

    def api_tokens(self, session: Optional[str]) -> list[dict]:
        """The account's API tokens: name, when made, when one last authorised a change; no secret."""
        account = self._signed_in(session)
        return [
            {"id": ref, "name": name, "created": created, "last_used": used}
            for ref, name, created, used in self.secrets.api_tokens(account.account_id)
        ]

    def revoke_api_token(self, session: Optional[str], ref: str) -> None:
        """Revoke one of the account's API tokens (NotFound: it has none of that id)."""
        account = self._signed_in(session)
        if not self.secrets.revoke_api_token(account.account_id, str(ref)):
            raise NotFound("no_such_token", "this account has no API token of that id")

    def api_token_used(self, token: Optional[str]) -> None:
        """Note that an API token authorised a change now (reads write nothing, so they are not noted)."""
        if token and token.startswith(API_TOKEN_PREFIX) and self.secrets.api_token_account(token):
            self.secrets.api_token_used(token, self._now())

    # -- seats ----------------------------------------------------------------------------------
    def link(self, session: Optional[str], match_id: str, seat: int, token: str, how: str) -> None:
        """Record that the signed-in account holds `seat` (OWNER: the owner's rights) of a match,
        through the token just handed out for it (never stored: its verifier's fingerprint is)."""
        account = self._signed_in(session)
        loaded = self.repo.load(match_id)
        check = self.tokens.check(match_stream(match_id), seat, token, loaded.room.token_grants)
        if check is None:
            raise Forbidden("invalid_token", "the token does not hold that seat")
        event = {"type": model.SEAT_LINKED, "match_id": match_id, "seat": seat, "how": how, "check": check}
        self._append(account, [event])

    def claim(self, session: Optional[str], seats: dict[str, str], owned: dict[str, str]) -> list[dict]:
        """Link into the account, in one append, every seat (match -> seat token) and owner right
        (match -> owner token) this browser holds whose token still works; the claimed ones."""
        account = self._signed_in(session)
        events: list[dict] = []
        for match_id, token, owner in [(m, t, False) for m, t in seats.items()] + [
            (m, t, True) for m, t in owned.items()
        ]:
            try:
                loaded = self.repo.load(match_id)
            except NotFound:
                continue
            seat = OWNER_ROW if owner else seat_in(self.tokens, loaded, token)
            if seat is None:
                continue
            check = self.tokens.check(match_stream(match_id), seat, token, loaded.room.token_grants)
            known = account.links.get((match_id, seat))
            if check is None or (known is not None and known.check == check):
                continue
            events.append(
                {"type": model.SEAT_LINKED, "match_id": match_id, "seat": seat, "how": "claimed", "check": check}
            )
        if events:
            self._append(account, events)
        return [{"match_id": e["match_id"], "seat": e["seat"]} for e in events]

    def credential(self, session: Optional[str], match_id: str, owner: bool = False) -> Optional[str]:
        """A short-lived token for the signed-in account's seat (or owner right) in a match, None
        when it holds none there (or the seat was re-invited since it was linked)."""
        account = self.account_of(session)
        if account is None:
            return None
        wanted = [link for (m, seat), link in account.links.items() if m == match_id and (seat == OWNER_ROW) == owner]
        if not wanted:
            return None
        try:
            loaded = self.repo.load(match_id)
        except NotFound:
            return None
        for link in wanted:
            token = self.tokens.delegate(match_stream(match_id), link.seat, link.check, loaded.room.token_grants)
            if token:
                return token
        return None

    def held(self, session: Optional[str]) -> dict[str, str]:
        """match id -> a short-lived seat token, for every seat the signed-in account holds."""
        account = self.account_of(session)
        if account is None:
            return {}
        held: dict[str, str] = {}
        for link in account.seats():
            if link.match_id in held:
                continue
            try:
                loaded = self.repo.load(link.match_id)
            except NotFound:
                continue
            token = self.tokens.delegate(match_stream(link.match_id), link.seat, link.check, loaded.room.token_grants)
            if token:
                held[link.match_id] = token
        return held

    # -- names, for the seat index and the ratings -----------------------------------------------
    def name_of(self, account_id: str) -> Optional[str]:
        """An account's display name (None: no such account, or deleted)."""
        account = self._fold(account_id)
        return account.name if account.exists else None

    # -- the account's own data -----------------------------------------------------------------
    def profile(self, session: Optional[str]) -> dict:
        """What the account page shows: name, passkeys, sessions, recovery codes left, seats."""
        account = self._signed_in(session)
        return {
            "id": account.account_id,
            "name": account.name,
            "since": account.opened_at,
            "passkeys": len(account.passkeys),
            "sessions": self._sessions(account.account_id, session),
            "recovery_codes_left": account.recovery_codes,
            "api_tokens": [
                {"id": ref, "name": name, "created": created, "last_used": used}
                for ref, name, created, used in self.secrets.api_tokens(account.account_id)
            ],
            "seats": [
                {"match_id": link.match_id, "seat": link.seat, "how": link.how} for link in account.links.values()
            ],
        }

    def export(self, session: Optional[str]) -> dict:
        """Everything the service keeps about the signed-in account, as JSON (no secret, no MAC)."""
        account = self._signed_in(session)
        events = []
        for event in self.store.read(model.stream_of(account.account_id)):
            payload = dict(event.payload)
            for name in model.SEALED.get(event.type, ()):
                payload[name] = self.secrets.open(account.account_id, payload.get(name))
            payload.pop("check", None)
            events.append({"version": event.version, "type": event.type, "at": event.recorded_at, **payload})
        return {
            "account": self.profile(session),
            "passkey_ids": sorted(account.passkeys),
            "push_subscriptions": self.secrets.push_subscriptions(account.account_id),  # devices' endpoints, keys
            "events": events,
        }

    def delete(self, session: Optional[str]) -> list[tuple[str, int]]:
        """Delete the account: its passkeys, sessions, codes, push subscriptions and the key its personal fields were
        sealed with go, so its events can no longer say who it was or which seats it held; the
        matches keep their events (and the seat's name as played) untouched."""
        account = self._signed_in(session, device=True)
        self._append(account, [{"type": model.ACCOUNT_DELETED}], self.secrets.forget_writer(account.account_id))
        return list(account.links)


def _all(writes: list[Callable[[Any], Any]]) -> Callable[[Any], None]:
    def write(conn: Any) -> None:
        for one in writes:
            one(conn)

    return write
