"""Browser seats: HttpOnly cookies stand in for the Bearer token, and writes need a CSRF token.

The pages keep each seat token in an HttpOnly, SameSite=Lax cookie `tfs_<match id>` (and the
owner token in `tfo_<match id>`), out of reach of scripts. `CookieSeats` (WSGI middleware) turns
that cookie (the owner's for the routes declared `@owner_only` in service/http/routes/declare.py)
into `Authorization: Bearer <token>` for `/api/matches/<id>/...` when the request carries no
Authorization of its own, so the page uses the public API unchanged (view, actions,
orders, chat and the SSE stream). A write so authorised (any method but GET/HEAD/OPTIONS) must
also send `X-CSRF-Token` equal to the `tf_csrf` cookie (double submit; a cross-site page can
neither read the cookie nor set the header) and, when the browser names one, a same-host Origin.

A browser signed in to an account (the HttpOnly `tf_session` cookie) and holding no cookie for the
match gets, for the seat or owner right its account holds there, a short-lived token minted for that
one request (`delegate`: service/usecases/accounts.py `Accounts.credential`); it never leaves the
server, and the same CSRF rule holds for writes.
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
from typing import Callable, Iterable, Optional
from urllib.parse import urlsplit

from werkzeug.http import parse_cookie

SEAT_COOKIE = "tfs_"
OWNER_COOKIE = "tfo_"
CSRF_COOKIE = "tf_csrf"
SESSION_COOKIE = "tf_session"  # a signed-in account's session (service/http/pages/accounts.py)
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
MAX_AGE = 400 * 24 * 3600  # browsers cap cookie lifetimes at 400 days
_API_PATH = re.compile(r"^/api/matches/([A-Za-z0-9_-]{1,64})(/.*)?$")
MATCH_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def seat_cookie(match_id: str) -> str:
    return SEAT_COOKIE + match_id


def owner_cookie(match_id: str) -> str:
    return OWNER_COOKIE + match_id


def new_csrf() -> str:
    return secrets.token_urlsafe(24)


def csrf_ok(cookies, header: Optional[str], origin: Optional[str], host: Optional[str]) -> bool:
    """The double-submit check, plus a same-host Origin when the browser sends one."""
    expected = cookies.get(CSRF_COOKIE) or ""
    if not expected or not header or not hmac.compare_digest(expected.encode(), header.encode()):
        return False
    if origin and origin != "null" and host and urlsplit(origin).netloc != host:
        return False
    return True


def held_matches(cookies) -> dict[str, str]:
    """match id -> seat token, for every seat cookie this browser holds."""
    return {
        name[len(SEAT_COOKIE) :]: token
        for name, token in cookies.items()
        if name.startswith(SEAT_COOKIE) and MATCH_ID.match(name[len(SEAT_COOKIE) :]) and token
    }


class CookieSeats:
    """WSGI middleware: a seat/owner cookie becomes the Bearer token of an API request (see module doc)."""

    def __init__(
        self,
        app: Callable,
        owner_route: Callable[[str, str], bool],
        delegate: Optional[Callable[[str, str, bool], Optional[str]]] = None,
    ) -> None:
        self.app = app
        self.owner_route = owner_route  # (path, method) -> declared @owner_only (service/http/routes/declare.py)
        self.delegate = delegate  # (session, match id, owner) -> a token the account holds there, or None

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        found = _API_PATH.match(environ.get("PATH_INFO", ""))
        if found and not environ.get("HTTP_AUTHORIZATION") and "HTTP_COOKIE" in environ:
            cookies = parse_cookie(environ)
            owner = self.owner_route(environ["PATH_INFO"], environ.get("REQUEST_METHOD", "GET"))
            token = cookies.get((owner_cookie if owner else seat_cookie)(found.group(1)))
            if not token and cookies.get(SESSION_COOKIE) and self.delegate is not None:
                token = self.delegate(cookies[SESSION_COOKIE], found.group(1), owner)
            if token:
                if environ.get("REQUEST_METHOD", "GET") not in SAFE_METHODS and not csrf_ok(
                    cookies, environ.get("HTTP_X_CSRF_TOKEN"), environ.get("HTTP_ORIGIN"), environ.get("HTTP_HOST")
                ):
                    return _forbidden(start_response)
                environ["HTTP_AUTHORIZATION"] = "Bearer " + token
        return self.app(environ, start_response)


def _forbidden(start_response: Callable) -> list[bytes]:
    body = json.dumps(
        {
            "type": "about:blank",
            "title": "Forbidden",
            "status": 403,
            "code": "csrf_failed",
            "detail": f"a write authorised by a cookie needs the {CSRF_HEADER} header "
            f"(the {CSRF_COOKIE} cookie's value) from this site's own pages",
        }
    ).encode()
    start_response("403 FORBIDDEN", [("Content-Type", "application/problem+json"), ("Content-Length", str(len(body)))])
    return [body]
