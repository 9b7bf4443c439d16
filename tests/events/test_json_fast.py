"""events.json_fast parses as json.loads does: same values, same types, on any JSON text."""

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from events import json_fast

_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()  # far beyond 64 bits too: those must not come back as floats
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


def _same(a, b):
    """Equal values of equal types throughout (1 == 1.0 and -0.0 == 0.0 are not the same here)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return isinstance(b, float) and (a == b and math.copysign(1, a) == math.copysign(1, b))
    return type(a) is type(b) and a == b


@settings(max_examples=400, deadline=None)
@given(st.lists(_values, max_size=6), st.booleans())
def test_loads_many_gives_json_loads_values(values, ascii_only):
    """Given JSON texts of any values (written as the store writes them, or ASCII-escaped), when they
    are parsed together and one by one, then each value is json.loads's, type for type."""
    texts = [json.dumps(v, ensure_ascii=ascii_only, separators=(",", ":")) for v in values]
    expected = [json.loads(t) for t in texts]
    assert all(_same(a, b) for a, b in zip(json_fast.loads_many(texts), expected))
    assert all(_same(json_fast.loads(t), e) for t, e in zip(texts, expected))


def test_text_orjson_refuses_is_parsed_by_json():
    """Given texts json.loads reads and orjson refuses (NaN, Infinity, an escaped lone surrogate, a
    number beyond a double), when parsed, then the values are json.loads's."""
    texts = ['{"a":NaN}', '{"a":-Infinity}', '{"a":"\\ud800"}', '{"a":1e400}']
    parsed = json_fast.loads_many(texts)
    assert math.isnan(parsed[0]["a"]) and parsed[1]["a"] == -math.inf
    assert parsed[2] == {"a": "\ud800"} and parsed[3] == {"a": math.inf}


def test_bytes_in_any_encoding_json_reads_give_its_values():
    """Given request bodies as bytes (UTF-8, with a BOM, UTF-16), when parsed, then each value is
    json.loads's (orjson reads only the first; the others go to json.loads)."""
    value = {"tile": "五m", "n": 2**70}
    for raw in (
        json.dumps(value, ensure_ascii=False).encode("utf-8"),
        json.dumps(value).encode("utf-8-sig"),
        json.dumps(value).encode("utf-16"),
    ):
        assert _same(json_fast.loads(raw), json.loads(raw))
    assert (
        json_fast.fast(b'{"n": 1}') == {"n": 1} and json_fast.fast(b'{"n": 12345678901234567890}') is json_fast.NOT_FAST
    )
