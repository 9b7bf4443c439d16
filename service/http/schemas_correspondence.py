"""Marshmallow schemas of correspondence play: deadlines, standing orders, webhooks, spectators."""

from __future__ import annotations

from flask import current_app
from marshmallow import Schema, ValidationError, fields, validate

from ..infra.notify import check_url, refused_destination
from ..model.orders import MAX_DEADLINE, MIN_DEADLINE
from ..model.room import MAX_CLAIM_SECONDS, MIN_CLAIM_SECONDS
from .schemas import EventItemSchema, MatchCreateSchema, SeatPublicSchema, Strict


class StrictBoolean(fields.Boolean):
    """A JSON true/false only (not "yes", 1 or "on")."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


def strict_bool(**kwargs) -> fields.Boolean:
    return StrictBoolean(**kwargs)


def _check_url(value: str) -> None:
    problem = check_url(value)
    if problem:
        raise ValidationError(problem)
    if current_app.config.get("WEBHOOK_ALLOW_PRIVATE"):
        return
    refused = refused_destination(value, resolve=False)  # the delivery check (service/infra/notify.py)
    if refused:
        raise ValidationError(f"webhooks to loopback or private addresses are refused: {refused}")


class CorrespondenceCreateSchema(MatchCreateSchema):
    """POST /api/matches: the engine's variant and options plus the service's move deadline."""

    deadline_seconds = fields.Integer(
        load_default=None,
        allow_none=True,
        strict=True,
        validate=validate.Range(min=MIN_DEADLINE, max=MAX_DEADLINE),
        metadata={"description": "time per decision, 3600 (1 hour) to 604800 (7 days); none by default"},
    )
    claim_seconds = fields.Integer(
        load_default=None,
        allow_none=True,
        strict=True,
        validate=validate.Range(min=MIN_CLAIM_SECONDS, max=MAX_CLAIM_SECONDS),
        metadata={
            "description": "the time a seat has to answer a claim or rob window (instead of the move deadline), "
            "5 seconds to 604800 (7 days); none by default. Only the asked seat sees its countdown"
        },
    )


class DeadlineSchema(Schema):
    seat = fields.Integer()
    pending_since = fields.String(metadata={"description": "ISO-8601 UTC"})
    deadline = fields.String(allow_none=True, metadata={"description": "ISO-8601 UTC"})


class OrdersSchema(Strict):
    auto_pass = strict_bool(
        load_default=False,
        metadata={
            "description": "answer pass to every question (claims, rob-the-kong, 报听 window) unless hu is legal"
        },
    )
    auto_discard = strict_bool(
        load_default=False, metadata={"description": "on one's own turn discard the drawn tile unless hu is legal"}
    )


class OrdersResultSchema(Schema):
    seat = fields.Integer()
    auto_pass = fields.Boolean()
    auto_discard = fields.Boolean()
    version = fields.Integer()


class WebhookSchema(Strict):
    url = fields.String(required=True, validate=[validate.Length(min=1, max=2048), _check_url])


class WebhookResultSchema(Schema):
    seat = fields.Integer()
    url = fields.String()
    secret = fields.String(metadata={"description": "HMAC-SHA256 signing secret, shown once"})
    signature_header = fields.String()
    version = fields.Integer()


class SpectatingSchema(Strict):
    enabled = strict_bool(required=True)


class SpectatingResultSchema(Schema):
    spectating = fields.Boolean()
    version = fields.Integer()


class SpectateViewSchema(Schema):
    id = fields.String()
    version = fields.Integer()
    status = fields.String()
    seats = fields.List(fields.Nested(SeatPublicSchema, allow_none=True))
    view = fields.Dict(allow_none=True, metadata={"description": "engine.view(state, None): no hidden tile"})
    deadlines = fields.List(fields.Nested(DeadlineSchema))


class SpectateEventsSchema(Schema):
    version = fields.Integer()
    viewer = fields.Raw(metadata={"description": "always null: the public"})
    events = fields.List(fields.Nested(EventItemSchema))


class StreamQuerySchema(Schema):
    after = fields.Integer(
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=0),
        metadata={"description": "start after this version (Last-Event-ID wins)"},
    )
