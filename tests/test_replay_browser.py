"""The replay page in headless Debian chromium: stepping, seeking, hand jumps, deep links, points of view."""
from __future__ import annotations

import os
import threading

import pytest

from test_audit_support import finished_match

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian chromium is not installed at /usr/bin/chromium "
                       "(apt-get install -y chromium)"),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from werkzeug.serving import make_server

    from service.app import create_app

    app = create_app({"DATABASE": str(tmp_path_factory.mktemp("replay") / "t.db"), "TESTING": True})
    match_id, _ = finished_match(app, "koudiandian", {"hands": 3, "wilds": True})
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}", match_id, app
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (never `playwright install`)")
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors, errors


def position(page) -> int:
    return int(page.eval_on_selector("#slider", "s => s.value"))


def version_in_hash(page) -> int:
    return int(page.evaluate("location.hash").split("e=")[1].split("&")[0])


def test_step_seek_jump_and_link(server, page):
    base, match_id, app = server
    frames = app.test_client().get(f"/replay/{match_id}/frames.json?seat=all").get_json()
    steps = frames["steps"]
    page.goto(f"{base}/replay/{match_id}")
    page.wait_for_selector("#seat-3 .seat-head")
    assert position(page) == 0
    page.click("#next")
    page.click("#next")
    assert position(page) == 2 and version_in_hash(page) == steps[2]["version"]
    page.click("#prev")
    assert position(page) == 1
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert position(page) == 3
    page.keyboard.press("ArrowLeft")
    assert position(page) == 2
    page.click("#last")
    assert position(page) == len(steps) - 1
    page.click("#first")
    assert position(page) == 0
    # seek with the slider
    target = len(steps) // 3
    page.eval_on_selector("#slider", "(s, v) => { s.value = v; s.dispatchEvent(new Event('input')); }", target)
    assert position(page) == target
    _check_tiles_against_engine(page, steps[target])
    # jump to hand 2
    page.select_option("#hand", "1")
    assert position(page) == frames["hands"][1]["start"]
    assert "第2局" in page.text_content("#status")
    # a settlement: names, patterns and scores as in the event
    end = frames["hands"][0]["end"]
    page.goto(f"{base}/replay/{match_id}#e={steps[end]['version']}")
    page.wait_for_selector("#settle-table")
    ended = steps[end]["event"]
    for seat in range(4):
        cells = page.locator(f"#settle-table tr[data-seat='{seat}'] td")
        assert cells.nth(4).text_content() == str(ended["scores"][seat])
        assert page.text_content(f"#seat-{seat} .score") == str(ended["scores"][seat])
    if ended["winner"] is not None:
        assert page.locator(f"#seat-{ended['winner']}.winner").count() == 1
    # the name is text, never markup
    assert page.text_content("#seat-0 .name") == "<b>Alice</b> & co"
    assert page.locator("#seat-0 .name b").count() == 0


def _check_tiles_against_engine(page, step):
    for seat, view in enumerate(step["view"]["hand"]["seats"]):
        shown = page.get_attribute(f"#seat-{seat} .row.hand", "data-concealed").split()
        from engine.tiles import parse, name
        assert sorted(shown) == sorted(name(k) for k in parse(view["concealed"]))
        discards = page.locator(f"#seat-{seat} .discards .tile")
        assert discards.count() == len(view["discards"])
    assert page.text_content("#wall-count b") == str(step["view"]["hand"]["wall_count"])


def test_deep_link_and_point_of_view(server, page):
    base, match_id, app = server
    client = app.test_client()
    steps = client.get(f"/replay/{match_id}/frames.json?seat=2").get_json()["steps"]
    in_hand = [i for i, s in enumerate(steps) if s["view"]["hand"] and s["view"]["hand"]["number"] == 1
               and s["view"]["phase"] == "turn"]
    mid = in_hand[len(in_hand) // 2]
    version = steps[mid]["version"]
    page.goto(f"{base}/replay/{match_id}#e={version}&seat=2")
    page.wait_for_selector("#seat-2 .row.hand .tile")
    assert position(page) == mid and page.input_value("#perspective") == "2"
    hand = steps[mid]["view"]["hand"]
    for seat in range(4):
        backs = page.locator(f"#seat-{seat} .row.hand > .tile.back").count()
        assert backs == (0 if seat == 2 else hand["seats"][seat]["concealed_count"])
    # switch to everyone: the same step, every hand open
    page.select_option("#perspective", "all")
    page.wait_for_function("document.querySelectorAll('#seat-0 .row.hand > .tile.back').length === 0")
    assert position(page) == mid and "seat=" not in page.evaluate("location.hash")
    # following a link to another step (hash change) moves there
    page.evaluate(f"location.hash = '#e={steps[3]['version']}'")
    page.wait_for_function("document.getElementById('slider').value === '3'")


def test_screenshots(server, page, tmp_path):
    """Screenshots of a mid-hand step and a settlement (into docs/ with TILEFOLD_SCREENSHOTS=1)."""
    base, match_id, app = server
    out = DOCS if os.environ.get("TILEFOLD_SCREENSHOTS") == "1" else str(tmp_path)
    steps = app.test_client().get(f"/replay/{match_id}/frames.json").get_json()
    hands = steps["hands"]
    steps = steps["steps"]
    discards = [i for i in range(hands[0]["start"], hands[0]["end"]) if steps[i]["event"]["type"] == "discarded"]
    mid = discards[len(discards) * 2 // 3]
    page.goto(f"{base}/replay/{match_id}#e={steps[mid]['version']}")
    page.wait_for_selector("#seat-0 .discards .tile")
    page.screenshot(path=os.path.join(out, "replay-midhand.png"), full_page=True)
    end = next((h["end"] for h in hands if steps[h["end"]]["event"]["outcome"] == "win"), hands[0]["end"])
    page.goto(f"{base}/replay/{match_id}#e={steps[end]['version']}")
    page.wait_for_selector("#settle-table")
    page.screenshot(path=os.path.join(out, "replay-settlement.png"), full_page=True)
