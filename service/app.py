"""Flask app factory: settings, event store, match service, blueprints, OpenAPI, problem errors."""

from __future__ import annotations

from functools import partial
from types import FunctionType
from typing import Any, Callable, Mapping, Optional

from flask import Flask, request

from events import cooperate_psycopg, initialise_store, is_postgres_url, open_store

from .infra import config
from .model.catalogue import CATALOGUE
from .infra.sized_cache import SizedCache
from .infra.waiters import SharedAnswers, WaiterHub, WaitLimits
from .usecases.accounts import Accounts, SessionLimits, WebAuthnSettings
from .usecases.chat import Chat
from .usecases.ratings import Ratings
from .usecases.reads import Reads
from .usecases.ticker import Ticker
from .http import account_tokens, headers, limits, observe, pages, proxies, services, strict_json
from .http.services import Services
from .infra.clock import SystemClock
from .infra.deadlines import Decisions
from .infra.notify import SEAL_LABEL, DeliverySettings, Notifier, Webhooks
from .infra.webpush import PushSender
from .usecases.push import Push
from .usecases.seat_index import SeatIndex
from .infra.feed import StoreFeed
from .http.jsonio import OrjsonProvider
from .usecases.play import MatchService
from .infra.account_secrets import SEAL_KEY as ACCOUNT_SEAL_KEY, SECRET_KEY as ACCOUNT_KEY, AccountSecrets
from .infra.keys import keyring_for
from .infra.tokens import KEY_LABEL as TOKEN_KEY, Tokens
from .infra.repository import MatchRepository
from .http.routes import blueprints
from .http.routes.declare import is_owner_route
from .http.routing_adapter import LazyRoutingFlask
from .http.smorest_adapter import TilefoldApi

DAY = 86400.0  # seconds
OPENAPI = {
    "API_TITLE": "Tilefold",
    "API_VERSION": "1",
    "OPENAPI_VERSION": "3.0.3",
    "OPENAPI_URL_PREFIX": "/api",
    "OPENAPI_JSON_PATH": "openapi.json",
    "API_SPEC_OPTIONS": {
        "components": {
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "seat token (or owner token for the owner's routes); or an account's API token"
                    " (tfa1_...), which acts for the seat (or owner right) the account holds in that match",
                },
                "account_token": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "an account's API token (tfa1_..., made on the account page, shown once):"
                    " acts for that account, never for what needs its passkey (docs/API.md, API tokens)",
                },
            }
        }
    },
}


class TilefoldFlask(LazyRoutingFlask):
    """Flask with URL builders compiled on first use (service/http/routing_adapter.py), and that
    asks once per hook or view whether it is a coroutine function: `ensure_sync` runs for each hook
    and the view of every request, and upstream it inspects the function every time. The app's hooks
    and views are a fixed set; a function made per request (an after_this_request closure) is looked
    at as upstream once the cache holds `KEPT` functions."""

    KEPT = 1024

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._sync: dict[FunctionType, Callable] = {}

    def ensure_sync(self, func: Callable) -> Callable:
        if type(func) is not FunctionType:  # a bound method or a callable object: as upstream
            return super().ensure_sync(func)
        found = self._sync.get(func)
        if found is None:
            found = super().ensure_sync(func)
            if len(self._sync) < self.KEPT:
                self._sync[func] = found
        return found


def create_app(config_overrides: Optional[Mapping[str, Any]] = None) -> Flask:
    """Build the app; settings come from TILEFOLD_* env vars, then `config_overrides`."""
    app = TilefoldFlask(__name__, static_folder="http/static")  # the pages' JS/CSS (docs/WEB.md)
    app.json = OrjsonProvider(app)
    app.config.update(config.from_env())
    app.config.update(OPENAPI)
    app.config.update({"INIT_DB": True, "JSON_SORT_KEYS": False})
    app.config.update(config_overrides or {})
    app.json.sort_keys = False
    cooperate_psycopg()  # a gevent worker whose master imported psycopg before the patching
    services.install(app, _services(app.config))
    api = TilefoldApi(app)
    for blp in blueprints():
        api.register_blueprint(blp)
    pages.install(app)  # the browser pages and their cookie seats (docs/WEB.md)
    account_tokens.install(app, partial(is_owner_route, app))  # an account's API token (docs/API.md)
    limits.install(app)  # per-address rate limits on create, import, join, score
    headers.install(app)  # CSP, frame-ancestors, X-Frame-Options, nosniff on every answer
    observe.install(app)  # request ids, the access log, request metrics, /healthz, /readyz, /metrics
    proxies.install(app)  # the client's address behind TILEFOLD_TRUSTED_PROXIES proxies
    app.before_request(_refuse_oversized_streams)
    app.before_request(strict_json.check_body)  # lone surrogates, >4,300-digit integers: 400
    return app


def _refuse_oversized_streams() -> None:
    """A chunked body (no Content-Length) over the limit is refused with 413, not silently cut.

    Werkzeug reads such a stream only up to MAX_CONTENT_LENGTH; reading one byte more makes its
    limited stream raise RequestEntityTooLarge when the client sent more than the limit.
    """
    if request.method in ("POST", "PUT", "PATCH") and request.content_length is None:
        request.get_data(cache=True)
        request.stream.read(1)


def _services(settings: dict[str, Any]) -> Services:
    """Everything the app runs on, built once (service/http/services.py holds it)."""
    svc, push = _service(settings)
    store = svc.repo.store
    hub = WaiterHub(store, settings["POLL_INTERVAL"])
    store.watch(hub.appended)  # the store's appends wake this worker's waiters
    chat = Chat(store, svc.repo, svc.tokens)
    accounts = svc.accounts
    assert accounts is not None
    wait_limits = WaitLimits(settings["MAX_WAITERS_PER_ADDRESS"], settings["MAX_WAITERS"], settings["WAIT_RETRY_AFTER"])
    shared, frames = SharedAnswers(), SizedCache(settings["REPLAY_CACHE_BYTES"])
    # who held each seat: the accounts' seat links (docs/API.md, "Ratings and figures")
    ratings = Ratings(svc.repo, push.seats, push.seats.feed)  # the seat index and its feed, shared with push
    return Services(
        match=svc,
        reads=Reads(svc.repo, svc.tokens, svc.decisions, chat, hub, wait_limits, shared, frames, ratings, accounts),
        chat=chat,
        accounts=accounts,
        push=push,
        # deadlines, bots and half-written deals are settled by the ticker, never by a request: `serve`
        # starts it in each worker (service/cli/__init__.py), `tilefold tick` runs one pass (docs/API.md)
        ticker=Ticker(svc, interval=settings["TICK_INTERVAL"]),
        hub=hub,
        wait_limits=wait_limits,
        shared_answers=shared,
        replay_frames=frames,
    )


def _accounts(repo: MatchRepository, tokens: Tokens, keyring: Any, settings: dict[str, Any]) -> Accounts:
    """Accounts on passkeys over the match store (their streams beside the matches')."""
    found = AccountSecrets(repo.store, keyring.secret(ACCOUNT_KEY), keyring.secret(ACCOUNT_SEAL_KEY))
    origins = tuple(o.strip().rstrip("/") for o in settings["WEBAUTHN_ORIGINS"].split(",") if o.strip())
    relying_party = WebAuthnSettings(rp_id=settings["WEBAUTHN_RP_ID"], origins=origins)
    limits = SessionLimits(lifetime=settings["SESSION_LIFETIME_DAYS"] * DAY, idle=settings["SESSION_IDLE_DAYS"] * DAY)
    return Accounts(repo, tokens, found, settings["CLOCK"], relying_party, limits)


def _service(settings: dict[str, Any]) -> tuple[MatchService, Push]:
    """The application service over the configured store, with correspondence play's parts."""
    # the store writes and upcasts events through the service's catalogue (service/model/catalogue.py)
    options: dict[str, Any] = {"synchronous": settings["SYNCHRONOUS"], "registry": CATALOGUE}
    path = settings["DATABASE"]
    if is_postgres_url(path):
        options.update(pool_size=settings["PG_POOL_SIZE"], pool_timeout=settings["PG_POOL_TIMEOUT"])
    # a node (`gunicorn service.wsgi:app` too) never runs a migration that changes tables in use
    store = initialise_store(path, online_only=True, **options) if settings["INIT_DB"] else open_store(path, **options)
    clock = settings.get("CLOCK") or SystemClock()
    settings["CLOCK"] = clock
    keyring = keyring_for(settings)  # outside the database: signing keys, the webhook sealing key
    webhooks = Webhooks(store, keyring.secret(SEAL_LABEL))
    delivery = DeliverySettings(
        timeout=settings["WEBHOOK_TIMEOUT"],
        attempts=settings["WEBHOOK_ATTEMPTS"],
        backoff=settings["WEBHOOK_BACKOFF"],
        poll=settings["WEBHOOK_POLL"],
        allow_private=settings["WEBHOOK_ALLOW_PRIVATE"],
    )
    notifier = Notifier(store, webhooks, clock, delivery, settings["WEBHOOK_WORKER"])
    repo = MatchRepository(
        store, settings["CACHE_SIZE"], settings["SNAPSHOT_EVERY"], settings["SNAPSHOT_HEAD"], keyring
    )
    tokens = Tokens(store, keyring.secret(TOKEN_KEY))
    accounts = _accounts(repo, tokens, keyring, settings)
    sender = PushSender(keyring.vapid_pem(), settings["PUSH_SUBJECT"], delivery.timeout, delivery.allow_private)
    seats = SeatIndex(accounts, StoreFeed(store))  # who holds which seat, followed through the feed
    push = Push(accounts, repo, sender, keyring.vapid_public(), seats)
    notifier.push = push.deliver  # push notices ride the webhooks' outbox and delivery
    svc = MatchService(
        repo,
        decisions=Decisions(store),
        webhooks=webhooks,
        notifier=notifier,
        clock=clock,
        tokens=tokens,
        bot_delay=settings["BOT_DELAY"],
        accounts=accounts,
        push=push.wanted,
    )
    return svc, push
