"""Request helpers shared by the blueprints: the use cases, bearer tokens, the waiting client, ETags."""

from __future__ import annotations

import re
from functools import partial
from typing import Optional

from flask import request

from ..infra.waiters import client_gone
from ..usecases.play import MatchService
from ..usecases.reads import Client, Reads
from .observe import note_seat
from .problems import ApiError
from .services import services

_ETAG = re.compile(r'^\s*(?:W/)?"?v(\d+)"?\s*$')
BEARER = {"WWW-Authenticate": 'Bearer realm="tilefold"'}


def service() -> MatchService:
    """The use cases that change a match (one call per route)."""
    return services().match


def reads() -> Reads:
    """The viewer's reads (one call per route): service/usecases/reads.py."""
    return services().reads


def client() -> Client:
    """The caller as the waiting caps count it: its address, and whether its connection closed."""
    return Client(request.remote_addr, partial(client_gone, request.environ))


def seated(seat: Optional[int]) -> Optional[int]:
    """Note the seat a request acts or reads as, for the access log (never its token)."""
    note_seat(seat)
    return seat


def bearer_token() -> Optional[str]:
    """The Bearer token of the request, or None when absent."""
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def require_token() -> str:
    token = bearer_token()
    if token is None:
        raise ApiError(401, "missing_token", "send the seat token as 'Authorization: Bearer <token>'", BEARER)
    return token


def optional_token() -> Optional[str]:
    """The Bearer token when an Authorization header is sent, None without one (the public).

    Any Authorization header must be a Bearer token: `Basic x`, `Bearer ` or garbage is 401, never
    the public answer, which the owner may have turned off (the spectating switch was bypassed by
    sending any header); the read then refuses a token that is not one of the match's seats (403)."""
    if "Authorization" not in request.headers:
        return None
    token = bearer_token()
    if token is None:
        raise ApiError(
            401,
            "invalid_authorization",
            "Authorization must be 'Bearer <seat token>' (or absent, for the public view)",
            BEARER,
        )
    return token


def etag(version: int) -> str:
    return f'"v{version}"'


def if_match_version() -> Optional[int]:
    """The version named by If-Match, None when absent; 400 when unreadable."""
    header = request.headers.get("If-Match")
    if header is None:
        return None
    found = _ETAG.match(header)
    if not found:
        raise ApiError(400, "invalid_if_match", 'If-Match must be an ETag such as "v12"')
    return int(found.group(1))


def none_match(version: int) -> bool:
    """True when If-None-Match names this version (or *)."""
    header = request.headers.get("If-None-Match")
    if not header:
        return False
    tags = [tag.strip() for tag in header.split(",")]
    return "*" in tags or version in {int(found.group(1)) for found in map(_ETAG.match, tags) if found}


def idempotency_key() -> Optional[str]:
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    key = key.strip()
    if not 1 <= len(key) <= 128:
        raise ApiError(400, "invalid_idempotency_key", "Idempotency-Key must be 1 to 128 characters")
    return key
