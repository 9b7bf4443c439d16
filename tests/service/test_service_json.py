"""The orjson response provider: same JSON as Flask's, falling back where orjson refuses a value."""

import json

import pytest

from service.app import create_app


@pytest.fixture
def app(tmp_path):
    return create_app({"DATABASE": str(tmp_path / "t.db")})


def test_responses_are_compact_utf8_json_with_the_same_meaning(app):
    body = {"wild": "耗子", "seats": {0: "东"}, "scores": [1.5, -2, None], "ok": True}
    with app.app_context():
        raw = app.json.response(body).get_data()
    assert raw == '{"wild":"耗子","seats":{"0":"东"},"scores":[1.5,-2,null],"ok":true}\n'.encode()
    assert json.loads(raw) == json.loads(json.dumps(body))


@pytest.mark.parametrize("value", [2**70, "\ud800"])
def test_values_orjson_refuses_fall_back_to_the_standard_encoder(app, value):
    with app.app_context():
        assert json.loads(app.json.dumps({"v": value})) == {"v": value}


def test_debug_and_sorted_output_keep_flasks_formatting(app):
    app.debug = True
    with app.app_context():
        assert app.json.response({"b": 1, "a": 2}).get_data() == b'{\n  "b": 1,\n  "a": 2\n}\n'
        app.json.sort_keys = True
        assert app.json.dumps({"b": 1, "a": 2}) == '{"a": 2, "b": 1}'
