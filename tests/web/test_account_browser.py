"""Accounts in Chromium with its virtual authenticator (WebAuthn through the DevTools protocol): sign
up, add a second device, play a seat from both, sign out everywhere, recover with a code, claim a
browser's anonymous seats, delete the account; the account page is axe clean at both sizes
(docs/WEB.md, "Accounts"). Each browser context is one device with its own authenticator."""

from __future__ import annotations

import re
import threading

import pytest

from axe_support import violations
from browser_support import BROWSER_MARKS, until
from test_web_browser import PHONE, WIDE, Shots, browser  # noqa: F401 - fixtures

pytestmark = BROWSER_MARKS


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """The service on a free port, reached as http://localhost (a secure context whose host is a
    valid relying-party id; Chromium refuses the IP address 127.0.0.1 as one)."""
    from werkzeug.serving import WSGIRequestHandler, make_server

    from service.app import create_app

    app = create_app({"DATABASE": str(tmp_path_factory.mktemp("accounts") / "t.db"), "TESTING": True})
    WSGIRequestHandler.log_request = lambda *a, **k: None  # quiet
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://localhost:{httpd.server_port}"
    httpd.shutdown()


def device(browser, viewport=WIDE):
    """A new device: a browser context and page with its own virtual passkey authenticator."""
    context = browser.new_context(viewport=viewport, bypass_csp=True)  # bypass: axe-core comes from the test
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    options = {
        "protocol": "ctap2",
        "transport": "internal",
        "hasResidentKey": True,
        "hasUserVerification": True,
        "isUserVerified": True,
    }
    authenticator = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": options})["authenticatorId"]
    page.authenticator = (cdp, authenticator)  # type: ignore[attr-defined]
    return context, page


def credentials(page) -> list:
    cdp, authenticator = page.authenticator
    return cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]


def api(page, method: str, path: str, body=None):
    """A call made by the page itself (its cookies, its CSRF header: window.TF.api), once the page's
    scripts have run: after a reload the page's elements are there before window.TF is."""
    page.wait_for_function("() => window.TF !== undefined && window.TF.api !== undefined")
    return page.evaluate("([m, p, b]) => window.TF.api(m, p, b === null ? undefined : b)", [method, path, body])


def status(page, path: str) -> int:
    return page.evaluate("async (p) => (await fetch(p, {credentials: 'same-origin'})).status", path)


def sign_up(page, base: str, name: str) -> list[str]:
    page.goto(f"{base}/account")
    page.fill("#acct-new-name", name)
    page.click("#sign-up")
    page.wait_for_selector("#codes li")
    return page.locator("#codes li").all_inner_texts()


def act_once(page, match_id: str) -> int:
    """The seat plays its first legal move, from this device (through its account): the new version."""
    for _ in range(200):
        view = api(page, "GET", f"/api/matches/{match_id}/view")
        if view["legal_actions"]:
            done = page.evaluate(
                """async ([id, action, version]) => {
                    const r = await fetch(`/api/matches/${id}/actions`, {method: "POST", credentials: "same-origin",
                      headers: {"Content-Type": "application/json", "If-Match": `"v${version}"`,
                                "X-CSRF-Token": window.TF.csrf()}, body: JSON.stringify(action)});
                    return [r.status, (await r.json()).version];
                }""",
                [match_id, view["legal_actions"][0], view["version"]],
            )
            if done[0] == 200:
                return int(done[1])
        page.wait_for_timeout(50)
    raise AssertionError("the seat never had a move")


def shown(page, selector: str, seconds: float = 10.0) -> None:
    """Wait until the page (after the reload a ceremony ends with) holds `selector`."""
    for _ in range(int(seconds * 10)):
        try:
            if page.locator(selector).count():
                page.wait_for_load_state("load")  # and its scripts have run
                return
        except Exception:  # noqa: BLE001 - the page is reloading
            pass
        page.wait_for_timeout(100)
    raise AssertionError(f"{selector} not shown; the page says: {page.inner_text('main')[:300]}")


def no_serious(page) -> None:
    found = [v for v in violations(page) if v["impact"] in ("serious", "critical")]
    assert found == [], found


def test_two_devices_play_one_seat_sign_out_everywhere_then_recover(browser, base, tmp_path):  # noqa: F811
    shots = Shots(tmp_path)
    laptop_context, laptop = device(browser)
    page_signed_out = laptop
    page_signed_out.goto(f"{base}/account")
    for size in (WIDE, PHONE):
        page_signed_out.set_viewport_size(size)
        no_serious(page_signed_out)
    shots.take(page_signed_out, "account-signed-out")
    page_signed_out.set_viewport_size(WIDE)
    codes = sign_up(laptop, base, "Ada Lovelace")
    assert len(codes) == 10 and len(credentials(laptop)) == 1
    assert "Ada Lovelace" in laptop.inner_text("#acct-name")
    until(laptop, "() => document.querySelectorAll('#acct-facts li').length >= 4")
    for size in (WIDE, PHONE):
        laptop.set_viewport_size(size)
        no_serious(laptop)
    shots.take(laptop, "account")
    laptop.set_viewport_size(WIDE)

    made = api(laptop, "POST", "/web/matches", {"variant": "hanshan", "options": {"hands": 1}})
    match_id = made["id"]
    api(laptop, "POST", f"/web/matches/{match_id}/join", {"name": "Ada"})
    api(laptop, "POST", f"/api/matches/{match_id}/bots", {})

    laptop.click("#device-link")
    until(laptop, "() => document.getElementById('link-url').value.length > 0")
    link = laptop.input_value("#link-url")
    assert link.startswith(f"{base}/account#link=")
    phone_context, phone = device(browser, PHONE)
    phone.goto(link)
    phone.click("#link-device")
    shown(phone, "#acct-name")
    assert len(credentials(phone)) == 1  # the phone's own passkey, in its own authenticator
    phone.goto(f"{base}/my")
    phone.wait_for_selector(f"li.match[data-match='{match_id}']")
    phone.goto(f"{base}/play/{match_id}")
    assert phone.get_attribute("body", "data-seat") == "0"

    first = act_once(phone, match_id)  # the seat plays from the phone
    second = act_once(laptop, match_id)  # and from the laptop (it also holds the seat's cookie)
    assert second > first

    laptop.goto(f"{base}/account")
    laptop.click("#sign-out-everywhere")
    shown(laptop, "#sign-up")
    assert status(phone, "/web/account") == 401
    assert api(phone, "GET", "/web/mine")["matches"] == []
    assert api(laptop, "GET", "/web/mine")["matches"] == []  # signed out, the laptop dropped its seat cookie

    phone_context.close()  # the phone is lost: a new one recovers the account with a code
    new_context, new_phone = device(browser, PHONE)
    new_phone.goto(f"{base}/account")
    new_phone.fill("#recovery-code", codes[0])
    new_phone.click("#recover")
    shown(new_phone, "#acct-name")
    assert len(credentials(new_phone)) == 1
    assert [m["id"] for m in api(new_phone, "GET", "/web/mine")["matches"]] == [match_id]
    assert api(new_phone, "GET", "/web/account")["recovery_codes_left"] == 9
    other_context, other = device(browser)
    other.goto(f"{base}/account")
    other.fill("#recovery-code", codes[0])  # the same code, again
    other.click("#recover")
    until(other, "() => document.getElementById('acct-error').textContent.length > 0")
    assert status(other, "/web/account") == 401
    laptop.goto(f"{base}/account")
    laptop.click("#sign-in")  # the laptop's passkey still signs in
    shown(laptop, "#acct-name")
    for context in (laptop_context, new_context, other_context):
        context.close()


def test_claim_anonymous_seats_then_delete_the_account(browser, base):  # noqa: F811
    context, page = device(browser)
    page.goto(f"{base}/")
    made = api(page, "POST", "/web/matches", {"variant": "hanshan", "options": {"hands": 1}})
    match_id = made["id"]
    api(page, "POST", f"/web/matches/{match_id}/join", {"name": "Bo"})
    sign_up(page, base, "Bo")
    page.click("#claim")
    until(page, "() => document.getElementById('claim-done').textContent.includes('2')")
    names = {cookie["name"] for cookie in context.cookies()}
    assert f"tfs_{match_id}" not in names and f"tfo_{match_id}" not in names and "tf_session" in names
    assert [m["id"] for m in api(page, "GET", "/web/mine")["matches"]] == [match_id]
    assert api(page, "POST", f"/api/matches/{match_id}/bots", {})["seats"]  # the owner right, through the account

    page.click("#delete")  # not yet ticked: refused on the page
    until(page, "() => document.getElementById('acct-error').textContent.length > 0")
    page.check("#delete-sure")
    page.click("#delete")
    shown(page, "#sign-up")
    assert status(page, "/web/account") == 401
    assert api(page, "GET", "/web/mine")["matches"] == []
    page.click("#sign-in")  # the passkey signs in nothing any more
    until(page, "() => document.getElementById('acct-error').textContent.length > 0")
    context.close()


def link_device(browser, laptop, base: str, viewport=PHONE):
    """A second device of the laptop's account, signed in through a device link."""
    laptop.goto(f"{base}/account")
    laptop.click("#device-link")
    until(laptop, "() => document.getElementById('link-url').value.length > 0")
    link = laptop.input_value("#link-url")
    context, page = device(browser, viewport)
    page.goto(link)
    page.click("#link-device")
    shown(page, "#acct-name")
    return context, page


def test_a_device_signed_out_from_another_and_its_seat_with_it(browser, base, tmp_path):  # noqa: F811
    """Given an account on a laptop and a phone, and a match the phone joined while signed in (no seat
    cookie: the account holds the seat), when the laptop presses the Sign out button of the phone's
    row in its list of devices, then the phone's reload shows it signed out and it no longer reaches
    the seat, while the laptop stays signed in with one device listed, marked as this one."""
    shots = Shots(tmp_path)
    laptop_context, laptop = device(browser)
    sign_up(laptop, base, "Ada Lovelace")
    phone_context, phone = link_device(browser, laptop, base)
    made = api(phone, "POST", "/web/matches", {"variant": "hanshan", "options": {"hands": 1}})
    match_id = made["id"]
    api(phone, "POST", f"/web/matches/{match_id}/join", {"name": "Ada"})
    names = {cookie["name"] for cookie in phone_context.cookies()}
    assert f"tfs_{match_id}" not in names and f"tfo_{match_id}" not in names  # the account's, not a cookie's
    assert status(phone, f"/api/matches/{match_id}/view") == 200

    laptop.goto(f"{base}/account")
    until(laptop, "() => document.querySelectorAll('#sessions li').length === 2")
    assert laptop.locator("#sessions li .here").count() == 1  # this device, marked, with no button
    button = laptop.get_by_role("button", name=re.compile(r"^退出 Sign out: .+ signed in "))
    assert button.count() == 1  # the other device's only
    for size in (WIDE, PHONE):
        laptop.set_viewport_size(size)
        no_serious(laptop)
        assert laptop.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    laptop.locator("#sessions-h").scroll_into_view_if_needed()
    shots.take(laptop, "account-devices")
    button.click()
    until(laptop, "() => document.querySelectorAll('#sessions li').length === 1")
    assert laptop.locator("#sessions li .here").count() == 1

    phone.reload()
    shown(phone, "#sign-up")  # the phone's next request is signed out
    assert status(phone, "/web/account") == 401
    assert status(phone, f"/api/matches/{match_id}/view") in (401, 403)
    assert api(phone, "GET", "/web/mine")["matches"] == []
    assert status(laptop, "/web/account") == 200
    assert [m["id"] for m in api(laptop, "GET", "/web/mine")["matches"]] == [match_id]
    for context in (laptop_context, phone_context):
        context.close()


def bearer(page, token: str, path: str) -> int:
    """What a script holding `token` is answered (no cookie: credentials omitted)."""
    return page.evaluate(
        """async ([t, p]) => (await fetch(p, {credentials: "omit", headers: {Authorization: `Bearer ${t}`}})).status""",
        [token, path],
    )


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_an_api_token_is_made_shown_once_listed_and_revoked_on_the_account_page(browser, base, tmp_path, size):  # noqa: F811
    """Given a signed-in device at phone size (390x844) or laptop size, when the player names a token
    and presses Create token, then it is shown once (with a Copy button) and listed by name with when
    it was made and never used; a script holding it reads the account; when the player presses its
    Revoke button, then it leaves the list and the script is refused. The page stays axe clean and
    never scrolls sideways."""
    viewport = PHONE if size == "phone" else WIDE
    shots = Shots(tmp_path)
    context, page = device(browser, viewport)
    sign_up(page, base, "Grace Hopper")
    page.set_viewport_size(viewport)
    until(page, "() => document.querySelectorAll('#sessions li').length === 1")
    page.get_by_role("textbox", name=re.compile("Token name")).fill("nightly export")
    page.get_by_role("button", name=re.compile("Create token")).click()
    until(page, "() => !document.getElementById('token-made').hidden")
    token = page.input_value("#token-value")
    assert token.startswith("tfa1_")
    until(page, "() => document.querySelectorAll('#tokens li').length === 1")
    row = page.inner_text("#tokens li")
    assert "nightly export" in row and "never used" in row and token not in page.inner_text("#tokens")
    assert page.get_by_role("button", name=re.compile("Copy")).count() >= 1
    assert bearer(page, token, "/api/account") == 200
    no_serious(page)
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    if size == "phone":
        page.locator("#tokens-h").scroll_into_view_if_needed()
        shots.take(page, "account-tokens")
    page.reload()  # shown once: never again
    until(page, "() => document.querySelectorAll('#tokens li').length === 1")
    assert page.locator("#token-made").is_hidden() and token not in page.content()
    page.get_by_role("button", name="吊销 Revoke: nightly export").click()
    until(page, "() => document.querySelectorAll('#tokens li').length === 0")
    assert bearer(page, token, "/api/account") == 401
    no_serious(page)
    context.close()
