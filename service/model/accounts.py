"""A player's account as the service sees it: the events of its own stream (`account-<id>`), folded.

An account's stream sits beside the matches' streams in the same store and never enters a match's
chain. Its personal fields (the display name, a passkey's credential id and public key, the match a
seat link names) are stored sealed under the account's own key (service/infra/account_secrets.py):
deleting the account deletes that key, and what its events said can no longer be read, while the
events themselves are never edited. `fold` reads the events with those fields already opened (a
field that can no longer be opened is None).

Secrets never enter these events: a session, a recovery code and a challenge are keyed MACs in
side tables (service/infra/account_secrets.py), a seat's token is never copied: a seat link holds
`check`, a keyed fingerprint of the seat's token verifier when it was linked (service/infra/tokens.py),
so a re-invite of the seat ends the link.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Optional, TypedDict

PREFIX = "account-"
OWNER = -1  # a seat link of the match's owner rights (as tf_tokens' row)

ACCOUNT_OPENED = "account_opened"
PASSKEY_ADDED = "passkey_added"
RECOVERY_CODES_ISSUED = "recovery_codes_issued"
RECOVERY_CODE_USED = "recovery_code_used"
SIGNED_OUT_EVERYWHERE = "signed_out_everywhere"
SIGNED_OUT_DEVICE = "signed_out_device"
SEAT_LINKED = "seat_linked"
ACCOUNT_DELETED = "account_deleted"


class AccountOpened(TypedDict):
    name: str  # sealed


class PasskeyAdded(TypedDict):
    credential: str  # sealed: the credential id (base64url)
    public_key: str  # sealed: its COSE public key (base64url)
    label: str  # which device added it ("first passkey", "added from a signed-in device", "recovery")


class RecoveryCodesIssued(TypedDict):
    count: int  # how many codes were shown (their MACs are in tf_recovery, never here)


class RecoveryCodeUsed(TypedDict):
    left: int


class SignedOutEverywhere(TypedDict):
    sessions: int  # how many sessions ended


class SignedOutDevice(TypedDict):
    device: str  # sealed: the label of the device whose session another device ended


class SeatLinked(TypedDict):
    match_id: str  # sealed
    seat: int  # 0..3, or OWNER (-1) for the owner's rights
    how: str  # "joined", "created" or "claimed"
    check: str  # sealed: fingerprint of the seat's token verifier when linked (service/infra/tokens.py)


class AccountDeleted(TypedDict):
    pass


EVENT_TYPES: Mapping[str, tuple[Optional[type], int, Mapping[int, Any]]] = {
    ACCOUNT_OPENED: (AccountOpened, 1, {}),
    PASSKEY_ADDED: (PasskeyAdded, 1, {}),
    RECOVERY_CODES_ISSUED: (RecoveryCodesIssued, 1, {}),
    RECOVERY_CODE_USED: (RecoveryCodeUsed, 1, {}),
    SIGNED_OUT_EVERYWHERE: (SignedOutEverywhere, 1, {}),
    SIGNED_OUT_DEVICE: (SignedOutDevice, 1, {}),
    SEAT_LINKED: (SeatLinked, 1, {}),
    ACCOUNT_DELETED: (AccountDeleted, 1, {}),
}

#: the fields each type stores sealed (service/infra/account_secrets.py seals and opens them)
SEALED: Mapping[str, tuple[str, ...]] = {
    ACCOUNT_OPENED: ("name",),
    PASSKEY_ADDED: ("credential", "public_key"),
    SEAT_LINKED: ("match_id", "check"),
    SIGNED_OUT_DEVICE: ("device",),
}


def stream_of(account_id: str) -> str:
    return PREFIX + account_id


@dataclass(frozen=True)
class SeatLink:
    match_id: str
    seat: int  # OWNER for the owner's rights
    how: str
    check: str


@dataclass
class Account:
    """An account folded from its events (fields opened)."""

    account_id: str
    version: int = 0
    name: Optional[str] = None
    opened_at: Optional[str] = None
    passkeys: dict[str, str] = field(default_factory=dict)  # credential id -> public key (base64url)
    links: dict[tuple[str, int], SeatLink] = field(default_factory=dict)  # (match, seat) -> link
    recovery_codes: int = 0  # codes left unused
    deleted: bool = False

    @property
    def exists(self) -> bool:
        return self.version > 0 and not self.deleted

    def seats(self) -> list[SeatLink]:
        """Seat links (not owner rights), in the order they were made."""
        return [link for link in self.links.values() if link.seat != OWNER]


def fold(account_id: str, events: Iterable[tuple[int, str, Mapping[str, Any], str]]) -> Account:
    """The account after (version, type, opened payload, recorded_at) events, in stream order."""
    account = Account(account_id)
    for version, kind, payload, at in events:
        account.version = version
        if kind == ACCOUNT_OPENED:
            account.name, account.opened_at = payload.get("name"), at
        elif kind == PASSKEY_ADDED and payload.get("credential"):
            account.passkeys[payload["credential"]] = payload.get("public_key") or ""
        elif kind == RECOVERY_CODES_ISSUED:
            account.recovery_codes = int(payload["count"])
        elif kind == RECOVERY_CODE_USED:
            account.recovery_codes = int(payload["left"])
        elif kind == SEAT_LINKED and payload.get("match_id"):
            key = (payload["match_id"], int(payload["seat"]))
            account.links[key] = SeatLink(key[0], key[1], payload["how"], payload.get("check") or "")
        elif kind == ACCOUNT_DELETED:
            account.deleted = True
            account.name, account.passkeys, account.links, account.recovery_codes = None, {}, {}, 0
    return account
