"""What signs a player in, kept beside the account streams and never in them (events/side_tables.py,
`ACCOUNTS_DDL`), in the spirit of service/infra/tokens.py: secrets are stored only as keyed MACs,
under the key directory's `account-secret` key (outside the database).

* `tf_sessions`: a session's MAC (the cookie holds the secret), its device's label and when it
  signed in; signing out (here, or another device by the session's public reference, a keyed MAC
  of the row's id) deletes the row, signing out everywhere deletes every row of the account.
  `tf_session_seen`: when a session last authorised a change (the idle timeout counts from it).
  `tf_push_session`: which session's device made a push subscription (it ends with the session).
* `tf_recovery`: a recovery code's MAC; using the code deletes its row (one statement, so a code
  works once even when two requests race).
* `tf_challenges`: a WebAuthn challenge's MAC, its purpose and what it was issued for; taken once
  (deleted by the statement that reads it), refused after it expires.
* `tf_passkeys`: a passkey's credential id -> its account and signature counter (the public key
  itself is in the account's `passkey_added` event, sealed).
* `tf_push`: a device's Web Push subscription (endpoint, its p256dh and auth keys: personal data),
  sealed under the account's key, its row id a MAC of the endpoint; deleting the account deletes
  the rows.
* `tf_api_tokens`: an API token's MAC (the token, `tfa1_...`, is shown once), a public reference
  to list and revoke it by, its name, when it was made and when it last authorised a change;
  revoking deletes the row, signing out everywhere deletes every row of the account.
* `tf_account_keys`: the salt of the key that seals the account's personal fields in its events
  (AES-GCM, the key an HMAC of the salt under the key directory's `account-seal` key). Deleting the
  account deletes the salt: its events stay, unreadable.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import threading
from typing import Any, Callable, Optional

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

SECRET_KEY = "account-secret"  # the key directory's key for MACs (Keyring.secret)
SEAL_KEY = "account-seal"  # the key directory's key the accounts' sealing keys derive from
SEALED_PREFIX = "sealed1."
RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/i/l
API_TOKEN_PREFIX = "tfa1_"  # an account's API token (never a seat token, never a session's secret)
RECOVERY_GROUPS, RECOVERY_GROUP = 4, 4  # 16 characters: about 79 bits


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def new_recovery_code() -> str:
    chars = "".join(secrets.choice(RECOVERY_ALPHABET) for _ in range(RECOVERY_GROUPS * RECOVERY_GROUP))
    return "-".join(chars[i : i + RECOVERY_GROUP] for i in range(0, len(chars), RECOVERY_GROUP))


def normal_code(code: str) -> str:
    """A recovery code as typed (any case, spaces or dashes) in its one spelling."""
    chars = "".join(ch for ch in code.lower() if ch in RECOVERY_ALPHABET)
    return "-".join(chars[i : i + RECOVERY_GROUP] for i in range(0, len(chars), RECOVERY_GROUP))


class AccountSecrets:
    """The accounts' side tables through the event store (`query`, `write(conn)`)."""

    def __init__(self, store: Any, mac_key: bytes, seal_key: bytes) -> None:
        self.store = store
        self._mac_key, self._seal_key = mac_key, seal_key
        self._keys: dict[str, Optional[bytes]] = {}
        self._lock = threading.Lock()

    def mac(self, purpose: str, value: str) -> str:
        message = f"tilefold/account/{purpose}/v1\n{value}".encode("utf-8")
        return hmac.new(self._mac_key, message, hashlib.sha256).hexdigest()

    # -- sealing an account's personal fields ---------------------------------------------------
    def new_key_writer(self, account: str, now: str) -> Callable[[Any], None]:
        salt = b64(os.urandom(32))

        def write(conn: Any) -> None:
            conn.execute(
                "INSERT INTO tf_account_keys (account, salt, created_at) VALUES (?, ?, ?)", [account, salt, now]
            )

        with self._lock:
            self._keys[account] = self._derive(salt)
        return write

    def _derive(self, salt: str) -> bytes:
        return hmac.new(self._seal_key, b"tilefold/account-seal/v1\n" + salt.encode(), hashlib.sha256).digest()

    def _key(self, account: str) -> Optional[bytes]:
        with self._lock:
            if account in self._keys and self._keys[account] is not None:
                return self._keys[account]
        rows = self.store.query("SELECT salt FROM tf_account_keys WHERE account = ?", [account])
        key = self._derive(str(rows[0][0])) if rows else None
        with self._lock:
            self._keys[account] = key
        return key

    def seal(self, account: str, text: str) -> str:
        key = self._key(account)
        if key is None:
            raise LookupError(f"account {account} has no sealing key")
        nonce = os.urandom(12)
        return SEALED_PREFIX + b64(nonce + AESGCM(key).encrypt(nonce, text.encode("utf-8"), account.encode()))

    def open(self, account: str, sealed: Any) -> Optional[str]:
        """The text of a sealed field; None once the account's key is gone (or for anything else)."""
        if not isinstance(sealed, str) or not sealed.startswith(SEALED_PREFIX):
            return None
        key = self._key(account)
        if key is None:
            return None
        raw = unb64(sealed[len(SEALED_PREFIX) :])
        try:
            return AESGCM(key).decrypt(raw[:12], raw[12:], account.encode()).decode("utf-8")
        except (InvalidTag, ValueError):
            return None

    # -- passkeys -------------------------------------------------------------------------------
    def passkey_writer(self, credential: str, account: str, sign_count: int, now: str) -> Callable[[Any], None]:
        def write(conn: Any) -> None:
            conn.execute(
                "INSERT INTO tf_passkeys (credential, account, sign_count, created_at) VALUES (?, ?, ?, ?)",
                [credential, account, sign_count, now],
            )

        return write

    def passkey(self, credential: str) -> Optional[tuple[str, int]]:
        """(account, signature counter) of a credential id, None for an unknown one."""
        rows = self.store.query("SELECT account, sign_count FROM tf_passkeys WHERE credential = ?", [credential])
        return (str(rows[0][0]), int(rows[0][1])) if rows else None

    def passkey_known(self, credential: str) -> bool:
        return self.passkey(credential) is not None

    def count_used(self, credential: str, seen: int, new: int) -> bool:
        """Move a credential's counter from `seen` to `new` (False: another sign-in moved it first)."""
        sql = "UPDATE tf_passkeys SET sign_count = ? WHERE credential = ? AND sign_count = ?"
        return bool(self.store.write(lambda conn: conn.execute(sql, [new, credential, seen]).rowcount) == 1)

    # -- sessions -------------------------------------------------------------------------------
    def session_writer(
        self, account: str, label: str, now: str, expired: Optional[tuple[str, str]] = None
    ) -> tuple[str, Callable[[Any], None]]:
        """(the cookie's secret, write(conn) keeping its MAC); `expired`: (made before, last used
        before) cut-offs: the account's sessions past either are deleted by the same write."""
        secret = secrets.token_urlsafe(32)
        sid = self.mac("session", secret)

        def write(conn: Any) -> None:
            if expired is not None:
                self._sweep(conn, account, *expired)
            conn.execute(
                "INSERT INTO tf_sessions (id, account, label, created_at) VALUES (?, ?, ?, ?)",
                [sid, account, label[:80], now],
            )

        return secret, write

    @staticmethod
    def _sweep(conn: Any, account: Optional[str], made_before: str, used_before: str) -> int:
        """End the sessions (of `account`, or of every account) past either cut-off; how many."""
        rows = conn.execute(
            "SELECT s.id FROM tf_sessions s LEFT JOIN tf_session_seen n ON n.id = s.id"
            " WHERE (s.created_at < ? OR COALESCE(n.last_seen, s.created_at) < ?)"
            + ("" if account is None else " AND s.account = ?"),
            [made_before, used_before] + ([] if account is None else [account]),
        ).fetchall()
        return sum(AccountSecrets._end(conn, sid) for (sid,) in rows)

    def expired_sessions_writer(self, made_before: str, used_before: str) -> Callable[[Any], int]:
        """write(conn) ending every account's sessions past either cut-off (made before, last used
        before), with their last use and their devices' push subscriptions; how many ended."""
        return lambda conn: self._sweep(conn, None, made_before, used_before)

    @staticmethod
    def _end(conn: Any, sid: str) -> int:
        """Delete a session's row, its last use and its device's push subscription; how many sessions."""
        conn.execute("DELETE FROM tf_push WHERE id IN (SELECT id FROM tf_push_session WHERE session = ?)", [sid])
        conn.execute("DELETE FROM tf_push_session WHERE session = ?", [sid])
        conn.execute("DELETE FROM tf_session_seen WHERE id = ?", [sid])
        return int(conn.execute("DELETE FROM tf_sessions WHERE id = ?", [sid]).rowcount)

    def session_ref(self, sid: str) -> str:
        """A session's public reference (to list it and sign it out by): a keyed MAC of its row id,
        which says nothing of the secret (nor of the row's id)."""
        return self.mac("session-ref", sid)[:22]

    def session(self, secret: Optional[str]) -> Optional[tuple[str, str, str, Optional[str]]]:
        """(account, reference, made, last used or None) of a session's secret, None for an ended or
        unknown one (whether it has expired is the caller's rule: service/usecases/accounts.py)."""
        if not secret or len(secret) > 200:
            return None
        sid = self.mac("session", secret)
        rows = self.store.query(
            "SELECT s.account, s.created_at, n.last_seen FROM tf_sessions s"
            " LEFT JOIN tf_session_seen n ON n.id = s.id WHERE s.id = ?",
            [sid],
        )
        if not rows:
            return None
        account, made, seen = rows[0]
        return str(account), self.session_ref(sid), str(made), None if seen is None else str(seen)

    def sessions(self, account: str) -> list[tuple[str, str, str, Optional[str]]]:
        """(reference, label, made, last used or None) of every session row of the account, oldest
        first (expired ones too: the caller filters)."""
        sql = (
            "SELECT s.id, s.label, s.created_at, n.last_seen FROM tf_sessions s"
            " LEFT JOIN tf_session_seen n ON n.id = s.id WHERE s.account = ? ORDER BY s.created_at, s.id"
        )
        return [
            (self.session_ref(str(a)), str(b), str(c), None if d is None else str(d))
            for a, b, c, d in self.store.query(sql, [account])
        ]

    def session_seen(self, secret: str, account: str, now: str) -> None:
        """Note that a session authorised a change now."""
        sid = self.mac("session", secret)

        def write(conn: Any) -> None:
            if conn.execute("SELECT 1 FROM tf_sessions WHERE id = ?", [sid]).fetchall():
                conn.execute(
                    "INSERT INTO tf_session_seen (id, account, last_seen) VALUES (?, ?, ?)"
                    " ON CONFLICT (id) DO UPDATE SET last_seen = excluded.last_seen",
                    [sid, account, now],
                )

        self.store.write(write)

    def end_session(self, secret: str) -> None:
        sid = self.mac("session", secret)
        self.store.write(lambda conn: self._end(conn, sid))

    def end_session_writer(self, account: str, ref: str) -> Optional[Callable[[Any], int]]:
        """write(conn) ending the account's session of this reference (how many ended: 0 when it
        ended meanwhile), None when the account has no session of that reference."""
        rows = self.store.query("SELECT id FROM tf_sessions WHERE account = ?", [account])
        found = [str(sid) for (sid,) in rows if hmac.compare_digest(self.session_ref(str(sid)), ref)]
        if not found:
            return None
        sid = found[0]
        return lambda conn: self._end(conn, sid)

    def end_sessions_writer(self, account: str) -> Callable[[Any], int]:
        """write(conn) ending every session of the account, and every device's push subscription
        (signed out everywhere, a lost device is no longer notified either); how many sessions."""

        def write(conn: Any) -> int:
            conn.execute("DELETE FROM tf_push WHERE account = ?", [account])
            conn.execute("DELETE FROM tf_push_session WHERE account = ?", [account])
            conn.execute("DELETE FROM tf_session_seen WHERE account = ?", [account])
            return int(conn.execute("DELETE FROM tf_sessions WHERE account = ?", [account]).rowcount)

        return write

    # -- API tokens -----------------------------------------------------------------------------
    def api_token_writer(self, account: str, name: str, now: str) -> tuple[str, str, Callable[[Any], None]]:
        """(the token, shown once; its public reference; write(conn) keeping its MAC)."""
        secret = API_TOKEN_PREFIX + secrets.token_urlsafe(32)
        ref = secrets.token_urlsafe(9)
        tid = self.mac("api-token", secret)

        def write(conn: Any) -> None:
            conn.execute(
                "INSERT INTO tf_api_tokens (id, ref, account, name, created_at) VALUES (?, ?, ?, ?, ?)",
                [tid, ref, account, name, now],
            )

        return secret, ref, write

    def api_token_account(self, secret: Optional[str]) -> Optional[str]:
        """The account an API token acts for, None for a revoked, unknown or malformed one."""
        if not secret or not secret.startswith(API_TOKEN_PREFIX) or len(secret) > 200:
            return None
        rows = self.store.query("SELECT account FROM tf_api_tokens WHERE id = ?", [self.mac("api-token", secret)])
        return str(rows[0][0]) if rows else None

    def api_tokens(self, account: str) -> list[tuple[str, str, str, Optional[str]]]:
        """(reference, name, created_at, last_used) of the account's live API tokens, oldest first."""
        sql = "SELECT ref, name, created_at, last_used FROM tf_api_tokens WHERE account = ? ORDER BY created_at, ref"
        return [
            (str(a), str(b), str(c), None if d is None else str(d)) for a, b, c, d in self.store.query(sql, [account])
        ]

    def api_token_used(self, secret: str, now: str) -> None:
        tid = self.mac("api-token", secret)
        self.store.write(lambda conn: conn.execute("UPDATE tf_api_tokens SET last_used = ? WHERE id = ?", [now, tid]))

    def revoke_api_token(self, account: str, ref: str) -> bool:
        """Delete the account's token of this reference (False: the account has none such)."""
        sql = "DELETE FROM tf_api_tokens WHERE account = ? AND ref = ?"
        return bool(self.store.write(lambda conn: conn.execute(sql, [account, ref]).rowcount) == 1)

    def end_api_tokens_writer(self, account: str) -> Callable[[Any], int]:
        def write(conn: Any) -> int:
            return int(conn.execute("DELETE FROM tf_api_tokens WHERE account = ?", [account]).rowcount)

        return write

    # -- recovery codes -------------------------------------------------------------------------
    def recovery_writer(self, account: str, codes: list[str], now: str) -> Callable[[Any], None]:
        """write(conn) replacing the account's recovery codes by these (their MACs)."""
        verifiers = [self.mac("recovery", normal_code(code)) for code in codes]

        def write(conn: Any) -> None:
            conn.execute("DELETE FROM tf_recovery WHERE account = ?", [account])
            for verifier in verifiers:
                conn.execute(
                    "INSERT INTO tf_recovery (verifier, account, created_at) VALUES (?, ?, ?)",
                    [verifier, account, now],
                )

        return write

    def recovery_verifier(self, code: str) -> str:
        return self.mac("recovery", normal_code(code))

    def recovery_account(self, verifier: str) -> Optional[str]:
        rows = self.store.query("SELECT account FROM tf_recovery WHERE verifier = ?", [verifier])
        return str(rows[0][0]) if rows else None

    def use_recovery(self, verifier: str) -> Optional[tuple[str, int]]:
        """(account, codes left) when `verifier` is an unused recovery code's, which it no longer is after."""

        def take(conn: Any) -> Optional[tuple[str, int]]:
            rows = conn.execute("SELECT account FROM tf_recovery WHERE verifier = ?", [verifier]).fetchall()
            if not rows or conn.execute("DELETE FROM tf_recovery WHERE verifier = ?", [verifier]).rowcount != 1:
                return None
            account = str(rows[0][0])
            left = conn.execute("SELECT count(*) FROM tf_recovery WHERE account = ?", [account]).fetchone()[0]
            return account, int(left)

        result: Optional[tuple[str, int]] = self.store.write(take)
        return result

    # -- WebAuthn challenges --------------------------------------------------------------------
    def put_challenge(self, challenge: bytes, purpose: str, data: dict, expires_at: float, now: float) -> None:
        cid = self.mac("challenge", b64(challenge))

        def write(conn: Any) -> None:
            conn.execute("DELETE FROM tf_challenges WHERE expires_at < ?", [now])
            conn.execute(
                "INSERT INTO tf_challenges (id, purpose, data, expires_at) VALUES (?, ?, ?, ?)",
                [cid, purpose, json.dumps(data, sort_keys=True), expires_at],
            )

        self.store.write(write)

    def take_challenge(self, challenge: str, purpose: str, now: float) -> Optional[dict]:
        """What a challenge (base64url, as the client data names it) was issued for, once: the
        statement that reads it deletes it; None when unknown, used, expired or of another purpose."""
        cid = self.mac("challenge", challenge)

        def take(conn: Any) -> Optional[dict]:
            rows = conn.execute("SELECT purpose, data, expires_at FROM tf_challenges WHERE id = ?", [cid]).fetchall()
            if not rows or conn.execute("DELETE FROM tf_challenges WHERE id = ?", [cid]).rowcount != 1:
                return None
            found_purpose, data, expires_at = rows[0]
            if found_purpose != purpose or float(expires_at) < now:
                return None
            loaded: dict = json.loads(data)
            return loaded

        result: Optional[dict] = self.store.write(take)
        return result

    # -- Web Push subscriptions ----------------------------------------------------------------
    def push_add(self, account: str, subscription: dict, now: str, keep: int, session: Optional[str] = None) -> None:
        """Record a device's subscription for the account (again: replaced), keeping the `keep`
        newest of the account's; made by a session (its secret), it ends with that session."""
        sid = self.mac("push", str(subscription["endpoint"]))
        sealed = self.seal(account, json.dumps(subscription, sort_keys=True))
        by = self.mac("session", session) if session and not session.startswith(API_TOKEN_PREFIX) else None

        def write(conn: Any) -> None:
            conn.execute("DELETE FROM tf_push WHERE id = ?", [sid])
            conn.execute("DELETE FROM tf_push_session WHERE id = ?", [sid])
            conn.execute(
                "INSERT INTO tf_push (id, account, subscription, created_at) VALUES (?, ?, ?, ?)",
                [sid, account, sealed, now],
            )
            if by is not None:
                conn.execute("INSERT INTO tf_push_session (id, account, session) VALUES (?, ?, ?)", [sid, account, by])
            rows = conn.execute(
                "SELECT id FROM tf_push WHERE account = ? ORDER BY created_at DESC, id", [account]
            ).fetchall()
            for (old,) in rows[keep:]:
                conn.execute("DELETE FROM tf_push WHERE id = ?", [old])
                conn.execute("DELETE FROM tf_push_session WHERE id = ?", [old])

        self.store.write(write)

    def push_remove(self, account: str, endpoint: str) -> bool:
        """Forget one device's subscription of the account; False when it had none by that endpoint."""
        sid = self.mac("push", endpoint)

        def write(conn: Any) -> int:
            conn.execute("DELETE FROM tf_push_session WHERE id = ? AND account = ?", [sid, account])
            return int(conn.execute("DELETE FROM tf_push WHERE id = ? AND account = ?", [sid, account]).rowcount)

        return bool(self.store.write(write) == 1)

    def push_subscriptions(self, account: str, live: Optional[tuple[str, str]] = None) -> list[dict]:
        """The account's subscriptions, opened (oldest first); `live`: (made before, last used
        before) cut-offs: a subscription whose session has expired is left out (its rows go when
        the account next signs in)."""
        sql = (
            "SELECT p.subscription FROM tf_push p LEFT JOIN tf_push_session ps ON ps.id = p.id"
            " LEFT JOIN tf_sessions s ON s.id = ps.session LEFT JOIN tf_session_seen n ON n.id = s.id"
            " WHERE p.account = ?"
        )
        params: list[Any] = [account]
        if live is not None:
            sql += " AND (ps.id IS NULL OR (s.created_at >= ? AND COALESCE(n.last_seen, s.created_at) >= ?))"
            params += list(live)
        rows = self.store.query(sql + " ORDER BY p.created_at, p.id", params)
        opened = [self.open(account, row[0]) for row in rows]
        return [json.loads(text) for text in opened if text]

    def push_any(self) -> bool:
        """Whether any account has a subscription (else an append plans no push notice)."""
        return bool(self.store.query("SELECT 1 FROM tf_push LIMIT 1"))

    # -- deleting -------------------------------------------------------------------------------
    def forget_writer(self, account: str) -> Callable[[Any], None]:
        """write(conn) deleting every row of the account: passkeys, sessions, API tokens, codes, its
        sealing key."""

        def write(conn: Any) -> None:
            for table in (
                "tf_passkeys",
                "tf_session_seen",
                "tf_sessions",
                "tf_api_tokens",
                "tf_recovery",
                "tf_push",
                "tf_push_session",
                "tf_account_keys",
            ):
                conn.execute(f"DELETE FROM {table} WHERE account = ?", [account])

        with self._lock:
            self._keys.pop(account, None)
        return write

    def forgotten(self, account: str) -> None:
        """Forget this worker's copy of the account's key (after another worker deleted it)."""
        with self._lock:
            self._keys.pop(account, None)
