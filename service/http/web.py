"""Request helpers shared by the blueprints: the service, bearer tokens, ETags, fingerprints."""

from __future__ import annotations

import re
from typing import Optional

from flask import request

from .observe import note_seat
from ..usecases.play import MatchService, command_fingerprint
from .problems import ApiError
from .services import services
from ..model.match import Loaded

_ETAG = re.compile(r'^\s*(?:W/)?"?v(\d+)"?\s*$')
BEARER = {"WWW-Authenticate": 'Bearer realm="tilefold"'}


def service() -> MatchService:
    return services().match


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


def seat_for(loaded: Loaded, token: str) -> int:
    """The seat this token belongs to in this match; 403 for any other token."""
    seat = service().seat_of(loaded, token)
    if seat is None:
        raise ApiError(403, "invalid_token", "the token is not a seat token of this match")
    note_seat(seat)  # the access log names the seat, never its token
    return seat


def optional_viewer(loaded: Loaded) -> Optional[int]:
    """The caller's seat when an Authorization header is sent, else None (public).

    Any Authorization header must be a valid seat token of this match: `Basic x`, `Bearer ` or
    garbage is 401, another token 403 — never the public feed, which the owner may have turned
    off (the spectating switch was bypassed by sending any header)."""
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
    return seat_for(loaded, token)


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


def fingerprint(seat: int, body: dict) -> str:
    """SHA-256 of the canonical JSON of the request (seat included: keys are per seat)."""
    return command_fingerprint(seat, body)


def idempotency_key() -> Optional[str]:
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    key = key.strip()
    if not 1 <= len(key) <= 128:
        raise ApiError(400, "invalid_idempotency_key", "Idempotency-Key must be 1 to 128 characters")
    return key
