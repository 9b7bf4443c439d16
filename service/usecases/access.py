"""Who a credential is in a match: the seat a seat token holds, checked against the keyed verifiers
in `tf_tokens` (service/infra/tokens.py), never against the events (the use cases' one way to ask).
The room's count of tokens handed out (`Room.token_grants`) is the generation a worker keeps the
verifiers it read under."""

from __future__ import annotations

from typing import Optional

from ..infra.tokens import Tokens
from ..model.errors import Forbidden
from ..model.match import Loaded, stream_of

NOT_A_SEAT = "the token is not a seat token of this match"


def seat_in(tokens: Tokens, loaded: Loaded, token: Optional[str]) -> Optional[int]:
    """The seat a token holds in this match, None for none."""
    return tokens.seat_of(stream_of(loaded.match_id), token, loaded.room.token_grants) if token else None


def seat_for(tokens: Tokens, loaded: Loaded, token: Optional[str], refusal: str = NOT_A_SEAT) -> int:
    """The seat this token belongs to in this match; Forbidden (invalid_token) for any other token."""
    seat = seat_in(tokens, loaded, token)
    if seat is None:
        raise Forbidden("invalid_token", refusal)
    return seat


def is_owner(tokens: Tokens, loaded: Loaded, token: Optional[str]) -> bool:
    """Whether this is the match's owner token."""
    return tokens.is_owner(stream_of(loaded.match_id), token, loaded.room.token_grants)
