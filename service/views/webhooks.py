"""A seat's webhook: register a URL (the signing secret is shown once) or remove it."""
from __future__ import annotations


from .. import room as rooms
from ..correspondence import service
from ..notify import SIGNATURE_HEADER, new_secret
from ..repository import stream_of
from ..schemas_correspondence import WebhookResultSchema, WebhookSchema
from ..web import require_token, seat_for
from . import Blueprint, bearer, errors

blp = Blueprint("webhooks", __name__, url_prefix="/api/matches",
                description="Signed webhook notices for one seat (Bearer seat token).")


@blp.route("/<match_id>/webhook", methods=["PUT"])
@bearer(blp)
@blp.arguments(WebhookSchema, error_status_code=400)
@blp.response(200, WebhookResultSchema)
@errors(blp, 401, 403, 404, 409, 413, 503)
def put_webhook(data, match_id):
    """Register (or replace) the caller's webhook; a new secret each time, shown only here."""
    svc = service()
    seat = seat_for(svc.repo.load(match_id), require_token())
    secret = new_secret()
    rows = svc.webhooks.writer(stream_of(match_id), seat, data["url"], secret, svc.now())
    loaded = svc.append_service_event(match_id, {"type": rooms.WEBHOOK_SET, "seat": seat, "registered": True}, rows)
    svc.notifier.ensure_worker()
    return {"seat": seat, "url": data["url"], "secret": secret, "signature_header": SIGNATURE_HEADER,
            "version": loaded.version}


@blp.route("/<match_id>/webhook", methods=["DELETE"])
@bearer(blp)
@blp.response(204)
@errors(blp, 401, 403, 404, 409, 503)
def delete_webhook(match_id):
    """Remove the caller's webhook (undelivered notices are dropped)."""
    svc = service()
    seat = seat_for(svc.repo.load(match_id), require_token())
    rows = svc.webhooks.writer(stream_of(match_id), seat, None, None, svc.now())
    svc.append_service_event(match_id, {"type": rooms.WEBHOOK_SET, "seat": seat, "registered": False}, rows)
    return None
