"""A seat's standing orders (auto pass, auto discard) and the owner's spectating switch."""

from __future__ import annotations

from ...model.match import Loaded
from ..schemas_correspondence import OrdersResultSchema, OrdersSchema, SpectatingResultSchema, SpectatingSchema
from ..web import bearer_token, require_token, seat_for, service
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
    loaded = service().load(match_id)
    return _orders(loaded, seat_for(loaded, require_token()))


@blp.route("/<match_id>/orders", methods=["PUT"])
@bearer(blp)
@blp.arguments(OrdersSchema, error_status_code=400)
@blp.response(200, OrdersResultSchema)
@errors(blp, 401, 403, 404, 409, 413, 503)
def put_orders(data, match_id):
    """Replace the caller's standing orders (an `orders_set` event); they apply at once."""
    svc = service()
    seat = seat_for(svc.load(match_id), require_token())
    return _orders(svc.set_orders(match_id, seat, data["auto_pass"], data["auto_discard"]), seat)


def _orders(loaded: Loaded, seat: int) -> dict:
    """The seat's standing orders as OrdersResultSchema shows them."""
    auto_pass, auto_discard = loaded.room.orders[seat]
    return {"seat": seat, "auto_pass": auto_pass, "auto_discard": auto_discard, "version": loaded.version_for(seat)}


@blp.route("/<match_id>/spectating", methods=["PUT"])
@owner_only
@bearer(blp)
@blp.arguments(SpectatingSchema, error_status_code=400)
@blp.response(200, SpectatingResultSchema)
@errors(blp, 401, 403, 404, 409, 413, 503)
def put_spectating(data, match_id):
    """Owner only: turn the public view, feed and stream on or off (a `spectating_set` event)."""
    svc = service()
    svc.check_owner(svc.load(match_id), bearer_token())
    loaded = svc.set_spectating(match_id, data["enabled"])
    return {"spectating": loaded.room.spectating, "version": loaded.version_for(None)}
