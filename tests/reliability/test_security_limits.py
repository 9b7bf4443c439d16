"""Numbers in request bodies must really be whole numbers (no floats, strings or booleans read as ints)."""

import pytest


@pytest.mark.parametrize("value", [1.5, "3", True])
def test_expected_version_must_be_a_whole_number(client, value):
    match = client.post("/api/matches", json={"variant": "hanshan", "options": {}}).json
    token = client.post(f"/api/matches/{match['id']}/seats", json={"name": "A"}).json["token"]
    reply = client.post(
        f"/api/matches/{match['id']}/actions",
        headers={"Authorization": f"Bearer {token}"},
        json={"action": "pass", "expected_version": value},
    )
    assert reply.status_code == 400 and reply.mimetype == "application/problem+json"
