"""Webhooks cannot be aimed at the server's own network (SSRF) unless the operator allows it."""

import pytest

from service.infra.notify import refused_destination

PRIVATE = [
    "http://127.0.0.1:8000/x",
    "http://localhost/x",
    "http://localhost./x",
    "http://10.1.2.3/x",
    "http://[::1]/x",
    "http://169.254.169.254/latest/meta-data",
    # Every form the system's resolver reads as a private IPv4 address
    "http://127.1/x",
    "http://2130706433/x",
    "http://0x7f000001/x",
    "http://0/x",
    "http://017700000001/x",
    "http://[::ffff:127.0.0.1]/x",
    "http://[::ffff:7f00:1]/x",
    "http://[64:ff9b::7f00:1]/x",
    "http://[64:ff9b::a01:203]/x",
    "http://[2002:7f00:1::]/x",
    "http://[64:ff9b:1::7f00:1]/x",
]


@pytest.mark.parametrize("url", PRIVATE)
def test_private_targets_are_refused_without_dns_at_registration_and_at_delivery(url):
    assert refused_destination(url, resolve=False) is not None  # registration
    assert refused_destination(url) is not None  # delivery


def test_public_literal_passes_and_an_unresolvable_name_waits_for_delivery():
    assert refused_destination("http://93.184.216.34/hook") is None
    assert refused_destination("http://[64:ff9b::5db8:d822]/hook") is None  # NAT64 of a public address
    assert refused_destination("http://no-such-host.invalid/hook", resolve=False) is None
    assert refused_destination("http://no-such-host.invalid/hook") is not None


@pytest.mark.parametrize("url", PRIVATE[6:])
def test_registration_refuses_every_form_of_a_private_address(tmp_path, url):
    """Registration used a literal check that missed 127.1, 2130706433, NAT64 …; now the delivery check."""
    from service.app import create_app

    app = create_app({"DATABASE": str(tmp_path / "t.db"), "TESTING": True, "WEBHOOK_WORKER": False})
    client = app.test_client()
    match = client.post("/api/matches", json={"variant": "hanshan", "options": {}}).json
    token = client.post(f"/api/matches/{match['id']}/seats", json={"name": "A"}).json["token"]
    reply = client.put(
        f"/api/matches/{match['id']}/webhook", headers={"Authorization": f"Bearer {token}"}, json={"url": url}
    )
    assert reply.status_code == 400 and "private" in reply.json["detail"], reply.json


def test_registration_refuses_private_targets_by_default(tmp_path):
    from service.app import create_app

    app = create_app({"DATABASE": str(tmp_path / "t.db"), "TESTING": True, "WEBHOOK_WORKER": False})
    client = app.test_client()
    match = client.post("/api/matches", json={"variant": "hanshan", "options": {}}).json
    token = client.post(f"/api/matches/{match['id']}/seats", json={"name": "A"}).json["token"]
    reply = client.put(
        f"/api/matches/{match['id']}/webhook",
        headers={"Authorization": f"Bearer {token}"},
        json={"url": "http://127.0.0.1:9/hook"},
    )
    assert reply.status_code == 400 and "private" in reply.json["detail"]


#: loopback and link-local spellings that no resolver reads as a name of a public host: trailing
#: dots, percent-escapes, zone ids, IPv4-compatible IPv6 (::a.b.c.d), numeric forms with a dot
LOOPBACK_SPELLINGS = [
    "http://127.0.0.1./x",
    "http://[::127.0.0.1]/x",
    "http://[fe80::1%25lo]/x",
    "http://[::1%25lo]/x",
    "http://[0:0:0:0:0:0:127.0.0.1]/x",
    "http://[::7f00:1]/x",
    "http://127.0.0.1%2e/x",
    "http://%31%32%37.0.0.1/x",
    "http://2130706433./x",
    "http://0x7f000001../x",
    "http://127.1./x",
    "http://localhost../x",
    "http://LocalHost.%2e/x",
    "http://[fe80::1%25eth0]:8080/x",
    "http://[::ffff:127.0.0.1%25lo]/x",
    "http://[::]/x",
]


@pytest.mark.parametrize("url", LOOPBACK_SPELLINGS)
def test_every_loopback_spelling_is_refused_at_registration_as_at_delivery(tmp_path, url):
    """Given a seat, when it registers a webhook at a spelling of a loopback or link-local address
    that the delivery check refuses, then registration refuses it too (one check for both)."""
    from service.app import create_app

    assert refused_destination(url) is not None  # delivery
    assert refused_destination(url, resolve=False) is not None  # registration's call
    app = create_app({"DATABASE": str(tmp_path / "t.db"), "TESTING": True, "WEBHOOK_WORKER": False})
    client = app.test_client()
    match = client.post("/api/matches", json={"variant": "hanshan", "options": {}}).json
    token = client.post(f"/api/matches/{match['id']}/seats", json={"name": "A"}).json["token"]
    reply = client.put(
        f"/api/matches/{match['id']}/webhook", headers={"Authorization": f"Bearer {token}"}, json={"url": url}
    )
    assert reply.status_code == 400 and "private" in reply.json["detail"], reply.json
