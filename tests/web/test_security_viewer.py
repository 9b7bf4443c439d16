"""The replay viewer in headless chromium shows a name like <img onerror=...> as text: no dialog fires."""

from __future__ import annotations

import os
import threading

import pytest

from audit_support import finished_match
from browser_support import ARGS, CHROMIUM
from test_security_input import MARKUP

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian chromium is not installed at /usr/bin/chromium"),
]


def test_markup_names_render_inertly_in_the_viewer(tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")
    from werkzeug.serving import make_server

    from service.app import create_app

    app = create_app({"DATABASE": str(tmp_path / "v.db"), "TESTING": True})
    names = (MARKUP, "<script>alert(2)</script>", '"><svg onload=alert(3)>')
    match_id, _ = finished_match(app, "koudiandian", {"hands": 1}, names=names)
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    dialogs, errors = [], []
    try:
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page()
            page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(f"http://127.0.0.1:{httpd.server_port}/replay/{match_id}?seat=all")
            page.wait_for_function(
                "() => document.querySelector('#slider') && +document.querySelector('#slider').max > 0"
            )
            for _ in range(5):  # step through a few frames: names are drawn on every one
                page.keyboard.press("End")
                page.keyboard.press("Home")
            page.wait_for_timeout(500)
            text = page.inner_text("body")
            injected = page.eval_on_selector_all("img[src='x'], svg[onload], script:not([src])", "n => n.length")
            browser.close()
    finally:
        httpd.shutdown()
    assert not dialogs, dialogs
    assert injected == 0
    assert MARKUP in text  # shown as text
    assert not errors, errors
