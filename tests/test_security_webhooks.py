"""Webhooks cannot be aimed at the server's own network (SSRF) unless the operator allows it."""

import pytest

from service.notify import literal_private_host, refused_destination

@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/x", "http://localhost/x", "http://10.1.2.3/x",
                                 "http://[::1]/x", "http://169.254.169.254/latest/meta-data"])
def test_private_ip_literals_and_localhost_are_spotted_without_dns(url):
    assert literal_private_host(url)
    assert refused_destination(url) is not None

def test_public_literal_passes_and_a_name_resolving_to_loopback_is_refused_at_delivery():
    assert not literal_private_host("http://93.184.216.34/hook")
    assert refused_destination("http://93.184.216.34/hook") is None
    assert not literal_private_host("http://localhost./hook")  # a name, not a literal: checked when delivering
    assert refused_destination("http://localhost./hook") is not None

def test_registration_refuses_private_targets_by_default(tmp_path):
    from service.app import create_app
    app = create_app({"DATABASE": str(tmp_path / "t.db"), "TESTING": True, "WEBHOOK_WORKER": False})
    client = app.test_client()
    match = client.post("/api/matches", json={"variant": "hanshan", "options": {}}).json
    token = client.post(f"/api/matches/{match['id']}/seats", json={"name": "A"}).json["token"]
    reply = client.put(f"/api/matches/{match['id']}/webhook", headers={"Authorization": f"Bearer {token}"},
                       json={"url": "http://127.0.0.1:9/hook"})
    assert reply.status_code == 400 and "private" in reply.json["detail"]
