"""Request bodies that parse as JSON but cannot be stored or answered: refused with 400.

The standard library reads `"a\\ud800b"` (a lone surrogate, which UTF-8 cannot encode, so the store
would fail on it) and refuses integers longer than 4,300 digits with a ValueError (CPython's
int-from-string limit) deep inside the request. Both used to answer 500. `check_body()` runs before
every view and reads a JSON body once, so such a body is a 400 problem before anything is stored.
"""

from __future__ import annotations

import json
from typing import Optional

from flask import request

from events import json_fast

from ..model.json_text import encodable, parse_int
from .problems import ApiError

IMPORT = "export.import_match"


def problem_of(text: str) -> Optional[str]:
    """Why this JSON text cannot be taken (None when it parses and re-encodes as UTF-8, or is not JSON:
    the schemas answer that). A text orjson reads as json.loads does (events.json_fast: no integer
    beyond 64 bits, no lone surrogate) has nothing to refuse: almost every body, one fast parse."""
    if json_fast.fast(text) is not json_fast.NOT_FAST:
        return None
    try:
        value = json.loads(text, parse_int=parse_int)
    except RecursionError:
        return None  # the app's RecursionError handler answers it
    except ValueError as exc:
        return str(exc) if "digits" in str(exc) else None
    return None if encodable(value) else "a string holds a lone surrogate (not valid Unicode text)"


def check_body() -> None:
    """Before every view: a JSON request body with a lone surrogate or a huge integer → 400."""
    if request.method not in ("POST", "PUT", "PATCH") or not request.is_json or request.endpoint == IMPORT:
        return  # only JSON bodies; an import (its own, larger body limit) is checked by audit.parse_log
    raw = request.get_data(cache=True)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return
    problem = problem_of(text)
    if problem:
        raise ApiError(400, "invalid_json", f"the request body cannot be accepted: {problem}")
