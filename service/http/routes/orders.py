"""A seat's standing orders (auto pass, auto discard) and the owner's spectating switch."""

from __future__ import annotations

from ..schemas_correspondence import OrdersResultSchema, OrdersSchema, SpectatingResultSchema, SpectatingSchema
from ..web import bearer_token, reads, require_token, seated, service
from .declare import Blueprint, bearer, errors, owner_only

blp = Blueprint(
    "orders",
    __name__,
    url_prefix="/api/matches",
    description="Standing orders per seat (Bearer seat token); spectating on/off (owner token).",
)


@blp.route("/<match_id>/orders", methods=["GET"])
@bearer(blp)
@blp.response(200, OrdersResultSchema)
@errors(blp, 401, 403, 404, 503)
def get_orders(match_id):
    """The caller's standing orders."""
    orders = reads().orders(match_id, require_token())
    seated(orders["seat"])
    return orders


@blp.route("/<match_id>/orders", methods=["PUT"])
@bearer(blp)
@blp.arguments(OrdersSchema, error_status_code=400)
@blp.response(200, OrdersResultSchema)
@errors(blp, 401, 403, 404, 409, 413, 503)
def put_orders(data, match_id):
    """Replace the caller's standing orders (an `orders_set` event); they apply at once."""
    orders = service().set_orders(match_id, require_token(), data["auto_pass"], data["auto_discard"])
    seated(orders["seat"])
    return orders


@blp.route("/<match_id>/spectating", methods=["PUT"])
@owner_only
@bearer(blp)
@blp.arguments(SpectatingSchema, error_status_code=400)
@blp.response(200, SpectatingResultSchema)
@errors(blp, 401, 403, 404, 409, 413, 503)
def put_spectating(data, match_id):
    """Owner only: turn the public view, feed and stream on or off (a `spectating_set` event)."""
    loaded = service().set_spectating(match_id, bearer_token(), data["enabled"])
    return {"spectating": loaded.room.spectating, "version": loaded.version_for(None)}
