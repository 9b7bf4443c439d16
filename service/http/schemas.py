"""Marshmallow schemas at the HTTP/CLI boundary (requests RAISE on unknown fields)."""

from __future__ import annotations

from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from engine.actions import ACTIONS
from engine.bot import LEVELS
from engine import variants
from engine.win import KONG_KINDS, WIN_BY
from engine.tiles import TileError, kind, parse

SEAT = validate.Range(min=0, max=3)


def check_tile(value: str) -> None:
    try:
        kind(value)
    except TileError as exc:
        raise ValidationError(str(exc)) from None


def check_hand(value: str) -> None:
    try:
        parse(value)
    except TileError as exc:
        raise ValidationError(str(exc)) from None


class Strict(Schema):
    """Request schemas: unknown fields are an error."""

    class Meta:
        unknown = RAISE


# -- problems -------------------------------------------------------------------
class ProblemSchema(Schema):
    """RFC 9457 problem details; `code` is stable and machine-readable."""

    type = fields.String(metadata={"description": "URI naming the problem type"})
    title = fields.String()
    status = fields.Integer()
    detail = fields.String()
    code = fields.String(metadata={"description": "stable error code, e.g. version_conflict"})
    current_version = fields.Integer(metadata={"description": "409 version_conflict only"})
    rule = fields.String(
        allow_none=True, metadata={"description": "422 illegal_action: the rule id (docs/RULES.md) that forbids it"}
    )
    reason = fields.String(metadata={"description": "422 illegal_action: the engine's code"})
    errors = fields.Raw(metadata={"description": "400 invalid_body: errors per field"})


class RegisteredVariant(validate.OneOf):
    """One of the variants registered when the request comes (engine.variants), not at import: a
    variant registered later (a test's toy) is accepted. The OpenAPI enum lists those at start-up."""

    def __init__(self) -> None:
        super().__init__(variants.names())

    def __call__(self, value: Any) -> Any:
        if value not in variants.names():
            raise ValidationError(f"Must be one of: {', '.join(variants.names())}.")
        return value


# -- rooms ----------------------------------------------------------------------
class MatchCreateSchema(Strict):
    variant = fields.String(required=True, validate=RegisteredVariant())
    options = fields.Dict(
        keys=fields.String(),
        load_default=dict,
        metadata={"description": 'engine options, e.g. {"hands": 8, "base": 1}'},
    )


class SeatPublicSchema(Schema):
    seat = fields.Integer()
    name = fields.String()
    bot = fields.Boolean()
    level = fields.String(metadata={"description": "a bot's level: easy | normal | strong (bots only)"})


class MatchSummarySchema(Schema):
    id = fields.String()
    variant = fields.String()
    options = fields.Dict()
    status = fields.String(metadata={"description": "open | playing | over"})
    version = fields.Integer()
    created_at = fields.String()
    seats = fields.List(fields.Nested(SeatPublicSchema, allow_none=True))
    phase = fields.String(allow_none=True)
    hand_no = fields.Raw(allow_none=True)
    dealer = fields.Raw(allow_none=True)
    scores = fields.Raw(allow_none=True)
    table = fields.Dict(allow_none=True, metadata={"description": "engine.view(state, None)"})


class MatchListSchema(Schema):
    matches = fields.List(fields.Nested(MatchSummarySchema), metadata={"description": "newest first by creation"})
    next = fields.String(allow_none=True, metadata={"description": "the next (older) page, null on the last"})


class MatchListQuerySchema(Schema):
    before = fields.String(
        validate=validate.Length(min=1, max=64),
        metadata={"description": "a match id: list only matches created before it (the `next` link's cursor)"},
    )


class MatchCreatedSchema(Schema):
    id = fields.String()
    owner_token = fields.String(metadata={"description": "shown once; Bearer token for /bots"})
    invite_url = fields.String(
        metadata={
            "description": "absolute URL of the invite page: share it, a friend "
            "opens it, picks a name and takes the next seat"
        }
    )
    match = fields.Nested(MatchSummarySchema)


#: a seat's part of every hand's wall (G-11 joint walls): 32 bytes as 64 lower-case hex digits
RANDOMNESS = validate.Regexp(r"^[0-9a-f]{64}$", error="randomness must be 32 bytes as 64 lower-case hex digits")


class JoinSchema(Strict):
    name = fields.String(required=True, validate=validate.Length(min=1, max=40))
    randomness = fields.String(
        validate=RANDOMNESS,
        metadata={
            "description": "the seat's part of every hand's wall (64 hex digits from a good random source; "
            "the play page makes it with crypto.getRandomValues); without it the seat adds nothing (docs/AUDIT.md)"
        },
    )


class JoinedSchema(Schema):
    seat = fields.Integer()
    token = fields.String(metadata={"description": "shown once; Bearer token for this seat"})
    play_url = fields.String(
        metadata={
            "description": "absolute URL opening this seat's table in a browser with "
            "no other step (the token rides in the #fragment, which the "
            "page moves into an HttpOnly cookie at once)"
        }
    )
    match = fields.Nested(MatchSummarySchema)


class BotsSchema(Strict):
    count = fields.Integer(
        strict=True,
        validate=validate.Range(min=1, max=3),
        load_default=None,
        metadata={"description": "how many empty seats to fill (default all)"},
    )
    level = fields.String(
        validate=validate.OneOf(LEVELS),
        load_default="normal",
        metadata={
            "description": "bot strength for every bot added: normal (default; the hand analyser, the worth "
            "of waits and flushes, caution against a declared hand), easy (keeps connected tiles) or strong "
            "(defence by sampling the declared hands)"
        },
    )
    levels = fields.List(
        fields.String(validate=validate.OneOf(LEVELS)),
        validate=validate.Length(min=1, max=3),
        load_default=None,
        metadata={
            "description": "one level per bot, in seat order of the empty seats (the first fills the lowest "
            "empty seat); instead of count and level"
        },
    )

    @validates_schema
    def _one_way(self, data: dict[str, Any], **kwargs: Any) -> None:
        if data.get("levels") is not None and data.get("count") is not None:
            raise ValidationError("give either levels (one per bot) or count, not both", "levels")


class BotsAddedSchema(Schema):
    seats = fields.List(fields.Integer())
    match = fields.Nested(MatchSummarySchema)


class ReissuedSchema(Schema):
    seat = fields.Integer()
    token = fields.String(metadata={"description": "the seat's new token, shown once (the old one stops working)"})
    play_url = fields.String(metadata={"description": "absolute URL opening the seat's table with the new token"})
    version = fields.Integer()


class ChatPostSchema(Strict):
    text = fields.String(required=True, validate=validate.Length(min=1, max=300))


class ChatQuerySchema(Schema):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=2**62))
    wait = fields.Float(
        load_default=0.0,
        validate=validate.Range(min=0),
        metadata={"description": "long-poll seconds for a line after ?after= (capped)"},
    )


class ChatLineSchema(Schema):
    version = fields.Integer()
    seat = fields.Integer()
    text = fields.String()
    at = fields.String()


class ChatListSchema(Schema):
    version = fields.Integer(metadata={"description": "the chat stream's version (pass it as ?after=)"})
    lines = fields.List(fields.Nested(ChatLineSchema))


# -- play -----------------------------------------------------------------------
class ViewQuerySchema(Schema):
    wait = fields.Float(
        load_default=0.0,
        validate=validate.Range(min=0),
        metadata={"description": "long-poll seconds (with If-None-Match; capped)"},
    )


class PrivateViewSchema(Schema):
    id = fields.String()
    version = fields.Integer()
    seat = fields.Integer()
    status = fields.String()
    seats = fields.List(fields.Nested(SeatPublicSchema, allow_none=True))
    view = fields.Dict(allow_none=True, metadata={"description": "engine.view(state, seat)"})
    legal_actions = fields.List(fields.Dict())
    deadlines = fields.List(fields.Dict(), metadata={"description": "pending move deadlines ([] without)"})
    randomness = fields.Dict(
        metadata={
            "description": "G-11 joint walls: {protocol: joint|server_seed, commitment (published at creation), "
            "seat_part (this seat's part of every hand's wall, or null)}"
        }
    )


class ActionSchema(Strict):
    action = fields.String(required=True, validate=validate.OneOf(ACTIONS))
    tile = fields.String(validate=check_tile)
    expected_version = fields.Integer(
        strict=True, validate=validate.Range(min=0), metadata={"description": "alternative to If-Match"}
    )


class EventItemSchema(Schema):
    version = fields.Integer(
        allow_none=True,
        metadata={
            "description": "the event's number in the caller's numbering (its seat's, or the public's: "
            "the events it may see, without gaps); null only once the match is over, for an event "
            "it could not see in play"
        },
    )
    type = fields.String()
    payload = fields.Dict()
    recorded_at = fields.String()


class ActionResultSchema(Schema):
    accepted = fields.Boolean()
    first_version = fields.Integer(
        metadata={
            "description": "the first of this action's own events, in the seat's numbering; version + 1 "
            "when the seat may not see any of them (an added kong that may be robbed, G-7)"
        }
    )
    version = fields.Integer(
        metadata={"description": "version after this action's own events, in the seat's numbering"}
    )
    events = fields.List(fields.Nested(EventItemSchema))
    view = fields.Nested(
        PrivateViewSchema,
        metadata={
            "description": "the acting seat's view after the bots and the dealer moved (as GET .../view); "
            "its version is the ETag and the next If-Match"
        },
    )


class EventsQuerySchema(Schema):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0))


class EventListSchema(Schema):
    version = fields.Integer()
    viewer = fields.Raw(metadata={"description": 'seat number, null (public) or "all"'})
    events = fields.List(fields.Nested(EventItemSchema))


# -- calculator -----------------------------------------------------------------
class MeldSchema(Strict):
    type = fields.String(required=True, validate=validate.OneOf(("pung", "kong")))
    tile = fields.String(required=True, validate=check_tile)
    kong = fields.String(validate=validate.OneOf(KONG_KINDS), load_default=None)

    @validates_schema
    def _kind_for_kongs(self, data: dict[str, Any], **_: Any) -> None:
        if data["type"] == "kong" and data.get("kong") is None:
            raise ValidationError("a kong needs its kind: exposed, added or concealed", "kong")
        if data["type"] == "pung" and data.get("kong") is not None:
            raise ValidationError("only a kong has a kind", "kong")


class ScoreInputSchema(Strict):
    """The `tilefold score` / POST /api/score input: one claimed win."""

    variant = fields.String(required=True, validate=RegisteredVariant())
    options = fields.Dict(keys=fields.String(), load_default=dict)
    seat = fields.Integer(strict=True, required=True, validate=SEAT)
    dealer = fields.Integer(strict=True, required=True, validate=SEAT)
    hand = fields.String(
        required=True, validate=check_hand, metadata={"description": "concealed tiles including the winning tile"}
    )
    melds = fields.List(fields.Nested(MeldSchema), load_default=list)
    win_tile = fields.String(required=True, validate=check_tile)
    win_by = fields.String(required=True, validate=validate.OneOf(WIN_BY))
    discarder = fields.Integer(strict=True, validate=SEAT, load_default=None, allow_none=True)
    discarder_ready = fields.Boolean(load_default=False)
    ready = fields.Boolean(load_default=False)
    wild = fields.String(validate=check_tile, load_default=None, allow_none=True)
    heavenly = fields.Boolean(load_default=False)
    dealer_first_discard = fields.Boolean(load_default=False)


class ScoreResultSchema(Schema):
    """engine.scoring.score's result as JSON (`ok` false for a hand that is not a legal win)."""

    class Meta:
        unknown = RAISE

    ok = fields.Boolean()


def flatten_errors(errors: Any) -> str:
    """marshmallow's nested error messages as one readable line ("field: message; other: ...")."""
    if isinstance(errors, dict):
        return "; ".join(f"{key}: {flatten_errors(value)}" for key, value in errors.items())
    if isinstance(errors, list):
        return ", ".join(flatten_errors(item) for item in errors)
    return str(errors)


# -- ratings and figures (docs/API.md, "Ratings and figures") ------------------------------------
class RatingSchema(Schema):
    rating = fields.Float(metadata={"description": "mu - 3 sigma (openskill's ordinal): what leaderboards order by"})
    mu = fields.Float()
    sigma = fields.Float()
    matches = fields.Integer(metadata={"description": "rated matches folded into it"})


class FiguresSchema(Schema):
    matches = fields.Integer()
    hands = fields.Integer()
    hands_won = fields.Integer()
    dealt_in = fields.Integer(metadata={"description": "放炮: hands won on this player's discard or robbed kong"})
    points = fields.Integer(metadata={"description": "the sum of the player's settlement deltas"})
    average_points = fields.Float(allow_none=True, metadata={"description": "points per hand played"})
    longest_streak = fields.Integer(metadata={"description": "most hands won in a row within one match"})
    first_places = fields.Integer()


class LeaderboardRowSchema(RatingSchema):
    place = fields.Integer()
    player = fields.String()
    name = fields.String(allow_none=True, metadata={"description": "the account's display name"})


class RuleSetSchema(Schema):
    rule_set = fields.String()
    label = fields.String()


class LeaderboardSchema(Schema):
    rule_set = fields.String()
    label = fields.String()
    rule_sets = fields.List(fields.Nested(RuleSetSchema), metadata={"description": "every rule set with a rating"})
    players = fields.List(fields.Nested(LeaderboardRowSchema), metadata={"description": "highest rating first"})


class LeaderboardQuerySchema(Schema):
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=500))


class PlayerRuleSetSchema(Schema):
    rule_set = fields.String()
    label = fields.String()
    rating = fields.Nested(RatingSchema, allow_none=True, metadata={"description": "null: no rated match yet"})
    figures = fields.Nested(FiguresSchema)


class PlayerMatchSchema(Schema):
    match = fields.String()
    rule_set = fields.String()
    label = fields.String()
    ended_at = fields.String()
    seat = fields.Integer()
    score = fields.Integer()
    place = fields.Integer()
    figures = fields.Nested(FiguresSchema)
    rated = fields.Boolean()
    rating_change = fields.Float(allow_none=True)


class PlayerSchema(Schema):
    player = fields.String()
    name = fields.String(allow_none=True, metadata={"description": "the account's display name"})
    rule_sets = fields.List(fields.Nested(PlayerRuleSetSchema))
    matches = fields.List(fields.Nested(PlayerMatchSchema), metadata={"description": "newest first"})


class RatingChangeSchema(Schema):
    seat = fields.Integer()
    player = fields.String()
    name = fields.String(allow_none=True, metadata={"description": "the account's display name"})
    place = fields.Integer()
    before = fields.Nested(RatingSchema)
    after = fields.Nested(RatingSchema)
    change = fields.Float(metadata={"description": "after.rating - before.rating"})


class MatchRatingsSchema(Schema):
    match = fields.String()
    rule_set = fields.String()
    rated = fields.Boolean()
    unrated_because = fields.String(
        allow_none=True,
        metadata={"description": "not_finished | imported | bot_seat | seat_without_account | same_player_twice"},
    )
    seats = fields.List(fields.Nested(RatingChangeSchema))


# -- an account over the API (docs/API.md, "API tokens") -------------------------------------------
class ApiTokenSchema(Schema):
    id = fields.String(metadata={"description": "the token's public id (to revoke it by); not the token"})
    name = fields.String()
    created = fields.String(metadata={"description": "ISO 8601 UTC"})
    last_used = fields.String(
        allow_none=True, metadata={"description": "when it last authorised a change (reads are not noted); null: never"}
    )


class ApiTokenListSchema(Schema):
    tokens = fields.List(fields.Nested(ApiTokenSchema), metadata={"description": "oldest first"})


class AccountSessionSchema(Schema):
    id = fields.String(
        metadata={"description": "the session's public id (a signed-in device signs it out by it); not its secret"}
    )
    device = fields.String(metadata={"description": "the device's label, given when it signed in"})
    since = fields.String(metadata={"description": "when it signed in, ISO 8601 UTC"})
    last_used = fields.String(
        allow_none=True,
        metadata={"description": "when it last authorised a change (reads are not noted); null: not since signing in"},
    )
    current = fields.Boolean(metadata={"description": "the session of this request (always false for an API token)"})


class AccountSeatSchema(Schema):
    match_id = fields.String()
    seat = fields.Integer(metadata={"description": "-1: the owner's rights"})
    how = fields.String(metadata={"description": "created, joined or claimed"})


class AccountSchema(Schema):
    id = fields.String()
    name = fields.String()
    since = fields.String()
    passkeys = fields.Integer()
    sessions = fields.List(fields.Nested(AccountSessionSchema))
    recovery_codes_left = fields.Integer()
    api_tokens = fields.List(fields.Nested(ApiTokenSchema))
    seats = fields.List(fields.Nested(AccountSeatSchema))


class AccountMatchSchema(Schema):
    id = fields.String()
    variant = fields.String()
    seat = fields.Integer()
    state = fields.String(metadata={"description": "your_turn, waiting, open or over"})
    seats = fields.List(fields.Dict())
    version = fields.Integer(metadata={"description": "in the seat's own numbering"})
    deadline = fields.String(allow_none=True)
    hand_no = fields.Integer(allow_none=True)
    hands = fields.Integer(allow_none=True)
    rounds = fields.Integer(allow_none=True)
    scores = fields.List(fields.Integer(), allow_none=True)
    last_move = fields.Dict(allow_none=True)


class AccountMatchesSchema(Schema):
    matches = fields.List(
        fields.Nested(AccountMatchSchema), metadata={"description": "your turn first, then by deadline"}
    )


# -- play now (docs/API.md, "Play now") ------------------------------------------------------------
class PlayNowSchema(MatchCreateSchema, JoinSchema):
    """POST /api/play-now: the rule set and options of the table, and the name to sit down with."""


class PlayNowAnswerSchema(JoinedSchema):
    id = fields.String(metadata={"description": "the match"})
    opened = fields.Boolean(metadata={"description": "true: no open table fitted, this one was opened (owner: you)"})
    owner_token = fields.String(
        allow_none=True, metadata={"description": "shown once, when the table was opened; else null"}
    )
