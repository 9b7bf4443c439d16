"""An account's API token on the API (docs/API.md, "API tokens"): `Authorization: Bearer tfa1_...`.

`AccountTokens` (WSGI middleware) keeps the token for the request (`account_token()`: the
`/api/account` routes, and creating or joining a match, hand it to their use case as a signed-in
browser hands its session). On `/api/matches/<id>/...` it puts in its place the token the account's
seat (or, on a route declared @owner_only, its owner right) is given for that one request
(`Accounts.credential`, minted, never sent out), so every match route serves it unchanged; where
the account holds nothing the API token stays, and is refused as any token that holds no seat.
No cookie is involved, so no CSRF token either. A change it authorised (a write answered below
400) is noted as the token's last use; reads write nothing (docs/ARCHITECTURE.md, "A read never
writes").
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Optional

from flask import Flask, request

from ..infra.account_secrets import API_TOKEN_PREFIX
from .problems import ApiError
from .services import services

ENVIRON_KEY = "tilefold.account_token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_API_PATH = re.compile(r"^/api/matches/([A-Za-z0-9_-]{1,64})(/.*)?$")
ACCOUNT_BEARER = {"WWW-Authenticate": 'Bearer realm="tilefold-account"'}


def install(app: Flask, owner_route: Callable[[str, str], bool]) -> None:
    accounts = lambda: services(app).accounts  # noqa: E731 - built after this is installed

    def delegate(token: str, match_id: str, owner: bool) -> Optional[str]:
        with app.app_context():
            try:
                return accounts().credential(token, match_id, owner)
            except Exception:  # noqa: BLE001 - no credential: the API answers as for a token holding no seat
                return None

    def used(token: str) -> None:
        with app.app_context():
            accounts().api_token_used(token)

    app.wsgi_app = AccountTokens(app.wsgi_app, owner_route, delegate, used)  # type: ignore[method-assign]


class AccountTokens:
    """WSGI middleware: an account's API token acts for the account (see module doc)."""

    def __init__(
        self,
        app: Callable,
        owner_route: Callable[[str, str], bool],
        delegate: Callable[[str, str, bool], Optional[str]],
        used: Callable[[str], None],
    ) -> None:
        self.app, self.owner_route, self.delegate, self.used = app, owner_route, delegate, used

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        scheme, _, token = environ.get("HTTP_AUTHORIZATION", "").partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token.startswith(API_TOKEN_PREFIX):
            return self.app(environ, start_response)
        environ[ENVIRON_KEY] = token
        path, method = environ.get("PATH_INFO", ""), environ.get("REQUEST_METHOD", "GET")
        found = _API_PATH.match(path)
        if found:
            minted = self.delegate(token, found.group(1), self.owner_route(path, method))
            if minted:
                environ["HTTP_AUTHORIZATION"] = "Bearer " + minted
        if method in SAFE_METHODS:
            return self.app(environ, start_response)

        def noted(status: str, headers: list, *rest: object) -> Callable:
            if int(status.split(" ", 1)[0]) < 400:
                self.used(token)
            return start_response(status, headers, *rest)

        return self.app(environ, noted)


def account_token() -> Optional[str]:
    """The account's API token the request carries, None without one."""
    found = request.environ.get(ENVIRON_KEY)
    return found if isinstance(found, str) else None


def require_account_token() -> str:
    token = account_token()
    if token is None:
        raise ApiError(
            401, "missing_token", "send an account's API token as 'Authorization: Bearer tfa1_...'", ACCOUNT_BEARER
        )
    return token
