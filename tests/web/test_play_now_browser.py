"""Play now in Chromium (docs/WEB.md, the home page): two players, each signed in with a passkey
(the virtual authenticator), press the button named "Play now" with the same rules and sit at the
same table; signed out the button says to sign in; the home page stays axe clean at both sizes."""

from __future__ import annotations

import re

from axe_support import violations
from browser_support import BROWSER_MARKS
from test_account_browser import base, device, sign_up  # noqa: F401 - fixtures
from test_web_browser import PHONE, WIDE, browser  # noqa: F401 - fixtures

pytestmark = BROWSER_MARKS
PLAY_NOW = re.compile("Play now")


def play_now(page, base_url: str, name: str) -> str:
    page.goto(base_url + "/")
    page.fill("input[name=name]", name)
    page.get_by_role("button", name=PLAY_NOW).click()
    page.wait_for_url(re.compile(r"/play/[A-Za-z0-9_-]+$"), timeout=15000)
    return page.url.rsplit("/", 1)[1]


def test_two_signed_in_players_press_play_now_and_meet_at_one_table(browser, base):  # noqa: F811
    stranger_context, stranger = device(browser)
    stranger.goto(base + "/")
    stranger.get_by_role("button", name=PLAY_NOW).click()
    stranger.wait_for_selector("text=sign in first", timeout=10000)
    for size in (WIDE, PHONE):
        stranger.set_viewport_size(size)
        found = [v for v in violations(stranger) if v["impact"] in ("serious", "critical")]
        assert found == [], found
    stranger_context.close()
    ada_context, ada = device(browser)
    bob_context, bob = device(browser)
    try:
        sign_up(ada, base, "Ada")
        sign_up(bob, base, "Bob")
        first = play_now(ada, base, "Ada")
        second = play_now(bob, base, "Bob")
        assert first == second
        seats = ada.evaluate("async (id) => (await (await fetch(`/api/matches/${id}`)).json()).seats", first)
        assert [s["name"] for s in seats if s] == ["Ada", "Bob"]
    finally:
        ada_context.close()
        bob_context.close()
