"""A seat's webhook: register a URL (the signing secret is shown once) or remove it."""

from __future__ import annotations

from ...infra.notify import SIGNATURE_HEADER
from ..schemas_correspondence import WebhookResultSchema, WebhookSchema
from ..web import require_token, seated, service
from .declare import Blueprint, bearer, errors

blp = Blueprint(
    "webhooks",
    __name__,
    url_prefix="/api/matches",
    description="Signed webhook notices for one seat (Bearer seat token).",
)


@blp.route("/<match_id>/webhook", methods=["PUT"])
@bearer(blp)
@blp.arguments(WebhookSchema, error_status_code=400)
@blp.response(200, WebhookResultSchema)
@errors(blp, 401, 403, 404, 409, 413, 503)
def put_webhook(data, match_id):
    """Register (or replace) the caller's webhook; a new secret each time, shown only here."""
    seat, secret, loaded = service().set_webhook(match_id, require_token(), data["url"])
    seated(seat)
    return {
        "seat": seat,
        "url": data["url"],
        "secret": secret,
        "signature_header": SIGNATURE_HEADER,
        "version": loaded.version_for(seat),
    }


@blp.route("/<match_id>/webhook", methods=["DELETE"])
@bearer(blp)
@blp.response(204)
@errors(blp, 401, 403, 404, 409, 503)
def delete_webhook(match_id):
    """Remove the caller's webhook (undelivered notices are dropped)."""
    seat, _, _ = service().set_webhook(match_id, require_token(), None)
    seated(seat)
    return None
