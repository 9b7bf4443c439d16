"""The account an API token acts for (docs/API.md, "API tokens"): its data, its matches, its
tokens. Every route takes `Authorization: Bearer tfa1_...` (service/http/account_tokens.py) and
calls one use case of `Accounts` with it, as a signed-in browser's page calls it with its session.
New tokens are made only by a signed-in device (docs/WEB.md, "Accounts"), never by a token."""

from __future__ import annotations

from flask import Response

from ..account_tokens import require_account_token
from ..schemas import AccountMatchesSchema, AccountSchema, ApiTokenListSchema
from ..services import services
from ..web import client, reads
from .declare import Blueprint, errors

blp = Blueprint(
    "account",
    __name__,
    url_prefix="/api/account",
    description="The account an API token acts for: its data, its matches, its API tokens (Bearer tfa1_...).",
)


def _account_auth(func):
    return blp.doc(security=[{"account_token": []}])(func)


@blp.route("", methods=["GET"])
@_account_auth
@blp.response(200, AccountSchema)
@errors(blp, 401, 503)
def account():
    """The account: name, passkeys, devices signed in, recovery codes left, API tokens, seats."""
    return reads().account(require_account_token())


@blp.route("/matches", methods=["GET"])
@_account_auth
@blp.response(200, AccountMatchesSchema)
@errors(blp, 401, 503)
def matches():
    """Every match the account holds a seat in (the list /my shows), your turn first."""
    return {"matches": reads().account_matches(require_account_token(), client())}


@blp.route("/export", methods=["GET"])
@_account_auth
@blp.response(200)
@errors(blp, 401, 503)
def export():
    """Everything the service keeps about the account, as JSON (no secret)."""
    return reads().account_export(require_account_token())


@blp.route("/tokens", methods=["GET"])
@_account_auth
@blp.response(200, ApiTokenListSchema)
@errors(blp, 401, 503)
def tokens():
    """The account's API tokens: name, when made, when last used for a change; never the token."""
    return {"tokens": reads().api_tokens(require_account_token())}


@blp.route("/tokens/<token_id>", methods=["DELETE"])
@_account_auth
@blp.response(204)
@errors(blp, 401, 404, 503)
def revoke(token_id):
    """Revoke one of the account's API tokens (this one too): it stops working at once."""
    services().accounts.revoke_api_token(require_account_token(), token_id)
    return Response(status=204)
