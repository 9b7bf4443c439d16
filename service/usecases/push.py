"""Notifications with no tab open (Web Push; docs/WEB.md, "Notifications with no tab open").

A signed-in player's devices subscribe (`subscribe`, `unsubscribe`: the subscription is kept with
the account, sealed: service/infra/account_secrets.py). An append of a match plans a push notice
for each human seat newly asked to act and for each at a hand's or the match's end, into the same
outbox as webhook notices (service/infra/notify.py `push_notices`), only while some account has
a subscription; the notifier's delivery (its worker, or a ticker pass) hands each to `deliver`,
which sends it to every device of the one account holding that seat now (the seat index,
service/usecases/seat_index.py, followed through the store's feed rather than rebuilt after each
append: a re-invite, a seat two accounts link or a deleted account reach nobody).

What a device receives is fixed: {"kind", "match", "name", "url"} padded to one length; `kind` is
"your_turn", "hand_ended" or "match_ended", `name` the rule set's public name. Never a tile, a
phase, an action, a score, a seat or who else is asked: "your_turn" is the same for a discard, a
claim window or 报听, and says nothing the seat's own view does not.
"""

from __future__ import annotations

import logging
from typing import Any, Optional

from engine.variants import registry

from .accounts import Accounts
from .seat_index import SeatIndex
from ..infra.clock import iso
from ..infra.notify import PUSH_KINDS
from ..infra.repository import MatchRepository
from ..infra.webpush import GONE, PushSender, check_subscription, pad
from ..model.errors import Invalid, NotFound, Unauthenticated

log = logging.getLogger(__name__)
DEVICES = 10  # subscriptions kept per account (the oldest goes)


class Push:
    """Web Push subscriptions of accounts, and the delivery of push notices."""

    def __init__(
        self, accounts: Accounts, repo: MatchRepository, sender: PushSender, public_key: str, seats: SeatIndex
    ) -> None:
        self.accounts, self.repo, self.sender, self.public_key, self.seats = accounts, repo, sender, public_key, seats
        self.secrets = accounts.secrets

    # -- a device's subscription ------------------------------------------------------------
    def _account(self, session: Optional[str]) -> str:
        account = self.accounts.account_of(session)
        if account is None:
            raise Unauthenticated("not_signed_in", "sign in first")
        return account.account_id

    def subscribe(self, session: Optional[str], subscription: Any) -> None:
        """Keep this device's PushSubscription with the signed-in account, and with this device's
        session: signing it out (here, from another device, everywhere) or its expiry ends it."""
        account = self._account(session)
        why = check_subscription(subscription, self.sender.allow_private)
        if why:
            raise Invalid("invalid_subscription", why)
        kept = {
            "endpoint": subscription["endpoint"],
            "keys": {"p256dh": subscription["keys"]["p256dh"], "auth": subscription["keys"]["auth"]},
        }
        self.secrets.push_add(account, kept, iso(self.accounts.clock.now()), DEVICES, session)

    def unsubscribe(self, session: Optional[str], endpoint: Any) -> bool:
        """Forget this device's subscription (False: the account had none by that endpoint)."""
        return self.secrets.push_remove(self._account(session), str(endpoint or ""))

    def subscriptions(self, session: Optional[str]) -> list[dict]:
        """The signed-in account's subscriptions (personal data: the export shows them)."""
        return self.secrets.push_subscriptions(self._account(session))

    def wanted(self) -> bool:
        """Whether an append should plan push notices at all (some account has a subscription)."""
        return self.secrets.push_any()

    # -- delivery -------------------------------------------------------------------------
    def payload(self, kind: str, match_id: str) -> bytes:
        """What a device receives, padded to one length (service/infra/webpush.py)."""
        if kind not in PUSH_KINDS:
            raise ValueError(kind)
        try:
            variant = self.repo.load(match_id).room.variant
            entry = registry.get(variant)
            name = entry.summary[0] or entry.name_zh
        except (NotFound, KeyError):
            name = "Tilefold"
        return pad({"kind": kind, "match": match_id, "name": name, "url": f"/play/{match_id}"})

    def deliver(self, notice: dict) -> Optional[str]:
        """Send one push notice to the devices of the account holding its seat; None when done
        (sent, or nobody to send to), else why every device failed (the notice is retried)."""
        account = self.seats.current(str(notice["match"])).get(int(notice["seat"]))
        if account is None:
            return None
        devices = self.secrets.push_subscriptions(account, self.accounts.cutoffs())  # expired sessions' left out
        if not devices:
            return None
        data = self.payload(str(notice["push"]), str(notice["match"]))
        errors = []
        for device in devices:
            error = self.sender.send(device, data)
            if error == GONE:
                self.secrets.push_remove(account, str(device["endpoint"]))
            elif error:
                errors.append(error)
        return errors[0] if len(errors) == len(devices) else None
