"""What JSON text the service can take: integers the standard library reads, strings UTF-8 encodes.

The standard library refuses integers longer than 4,300 digits with a ValueError (CPython's
int-from-string limit) and reads `"a\\ud800b"` (a lone surrogate, which UTF-8 cannot encode, so the
store would fail on it). Request bodies (service/http/strict_json.py) and imported logs
(service/usecases/match_log.py) are read with these.
"""

from __future__ import annotations

import json
from typing import Any

MAX_INT_DIGITS = 4300  # CPython's default sys.get_int_max_str_digits()


def parse_int(text: str) -> int:
    """json.loads' parse_int: ValueError beyond MAX_INT_DIGITS digits."""
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"an integer of more than {MAX_INT_DIGITS:,} digits")
    return int(text)


def encodable(value: Any) -> bool:
    """True when every string (keys too) encodes as UTF-8."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
