"""The services one app holds, in one typed object (the composition root, service/app.py, builds it).

`app.extensions[KEY]` is the one place an app keeps them; everything else asks `services(app)`
(or `services()` inside a request), never `app.extensions` by another string key
(tests/project/test_architecture.py checks it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from flask import Flask, current_app

from ..infra.sized_cache import SizedCache
from ..infra.waiters import SharedAnswers, WaiterHub, WaitLimits
from ..usecases.accounts import Accounts
from ..usecases.chat import Chat
from ..usecases.play import MatchService
from ..usecases.push import Push
from ..usecases.reads import Reads
from ..usecases.ticker import Ticker

#: the one key of `app.extensions` this app uses
KEY = "tilefold"

#: a readiness check: its name, and check() -> None when fine, else what is wrong
Readiness = tuple[str, Callable[[], Optional[str]]]


@dataclass
class Services:
    """What one app (one worker) runs on."""

    match: MatchService  # the use cases over the match store (what changes a match)
    reads: Reads  # every read a viewer makes, in its own numbering and redaction
    chat: Chat
    accounts: Accounts  # players' accounts on passkeys, their sessions and seats
    push: Push  # their devices' Web Push subscriptions, and the push notices' delivery
    ticker: Ticker  # deadlines, bots and half-written deals, when nobody asks
    hub: WaiterHub  # this worker's waiting clients (long-polls, streams)
    wait_limits: WaitLimits  # caps on open waits, per address and in all
    shared_answers: SharedAnswers  # one body for the identical answers of many waiters
    replay_frames: SizedCache  # rendered replay frames (TILEFOLD_REPLAY_CACHE_BYTES)
    limiter: Any = None  # flask-limiter's Limiter (service/http/limits.py); it keeps only a weak reference
    readiness: list[Readiness] = field(default_factory=list)  # more checks for /readyz


def install(app: Flask, found: Services) -> Services:
    app.extensions[KEY] = found
    return found


def services(app: Optional[Flask] = None) -> Services:
    """The services of `app`, or of the app handling the current request."""
    found = (app if app is not None else current_app).extensions[KEY]
    assert isinstance(found, Services)
    return found
