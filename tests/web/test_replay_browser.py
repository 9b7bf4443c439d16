"""The replay page in headless Debian chromium: stepping, seeking, hand jumps, deep links, points of view."""

from __future__ import annotations

import os
import threading

import pytest

from browser_support import ARGS, BROWSER_MARKS, CHROMIUM, DOCS, until

from audit_support import finished_match


pytestmark = BROWSER_MARKS


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
    in_hand = [
        i
        for i, s in enumerate(steps)
        if s["view"]["hand"] and s["view"]["hand"]["number"] == 1 and s["view"]["phase"] == "turn"
    ]
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
    until(page, "() => document.querySelectorAll('#seat-0 .row.hand > .tile.back').length === 0")
    assert position(page) == mid and "seat=" not in page.evaluate("location.hash")
    # following a link to another step (hash change) moves there
    page.evaluate(f"location.hash = '#e={steps[3]['version']}'")
    until(page, "() => document.getElementById('slider').value === '3'")


def _frames(app, match_id, seat="all"):
    return app.test_client().get(f"/replay/{match_id}/frames.json?seat={seat}").get_json()


def _first_win_end(frames):
    return next((h["end"] for h in frames["hands"] if h.get("explain")), None)


@pytest.fixture(scope="module")
def koudiandian_match(server):
    _, _, app = server
    match_id, _ = finished_match(app, "koudiandian", {"hands": 3, "wilds": True}, deals="replay-koudiandian-0")
    return match_id


@pytest.fixture(scope="module")
def hanshan_match(server):
    _, _, app = server
    match_id, _ = finished_match(app, "hanshan", {"hands": 4}, deals="replay-hanshan-0")
    return match_id


def test_explained_settlement_koudiandian(server, page, koudiandian_match):
    """The win split into its sets, the winning tile marked, points x multiplier = value and who paid (K-1, K-8)."""
    base, _, app = server
    match_id = koudiandian_match
    frames = _frames(app, match_id)
    end = _first_win_end(frames)
    assert end is not None, "the fixed deals of this match were chosen to hold a win"
    page.goto(f"{base}/replay/{match_id}#e={frames['steps'][end]['version']}")
    page.wait_for_selector("#explained .block")
    ex = next(h["explain"] for h in frames["hands"] if h["end"] == end)
    assert page.locator("#explained .block").count() == len(ex["blocks"]) + len(ex["melds"])
    assert page.locator("#explained .win-tile").count() == 1
    pay = ex["payment"]
    text = page.text_content("#payment")
    assert f"{pay['points']} × {pay['multiplier']} = {pay['value']}" in text and "K-1" in text
    if pay["pays_all"]:
        assert "K-8" in text and "替三家付" in text
    # K-13: each wild the winner's hand holds is marked 耗 in the explained hand (however many this
    # match's win happens to hold, none included), and no tile anywhere is marked 配 (含山's word)
    wilds = sum(1 for block in ex["blocks"] for tile in block["tiles"] if tile.get("wild"))
    assert page.locator("#explained .tile[data-mark='耗']").count() == wilds
    assert page.locator(".tile[data-mark='配']").count() == 0
    ended = frames["steps"][end]["event"]
    for share in pay["shares"]:
        assert page.locator(f"#payment .share[data-payer='{share['paid_by']}']").count() >= 1
    assert sum(s["amount"] for s in pay["shares"]) == ended["settlement"]["win_deltas"][ended["winner"]]


def test_explained_settlement_hanshan_extra_table(server, page, hanshan_match):
    """含山: the H-10 extra table appears and each payment is (pattern score + extra) x base (H-5)."""
    base, _, app = server
    frames = _frames(app, hanshan_match)
    end = _first_win_end(frames)
    assert end is not None, "the fixed deals of this match were chosen to hold a win"
    page.goto(f"{base}/replay/{hanshan_match}#e={frames['steps'][end]['version']}")
    page.wait_for_selector("#extra-table")
    pay = next(h["explain"] for h in frames["hands"] if h["end"] == end)["payment"]
    assert page.locator("#extra-table tr.used").count() == 1
    text = page.text_content("#payment")
    for share in pay["shares"]:
        assert f"({pay['pattern_score']} + {share['extra']})" in text and f"= {share['amount']}" in text


@pytest.fixture
def toy():
    from engine import variants
    from test_variant_registry import TOY

    variants.register(TOY)
    yield TOY
    variants.unregister(TOY.name)


def test_explained_settlement_of_a_variant_the_viewer_does_not_know(server, page, toy):
    """A variant registered in a test only (docs/ENGINE_API.md, "Adding a variant"): the viewer shows its
    win split into sets, the score's own lines and who paid what, from the generic "shares" layout."""
    base, _, app = server
    match_id, _ = finished_match(app, "toy", {"hands": 3}, deals="replay-toy-0")
    frames = _frames(app, match_id)
    end = _first_win_end(frames)
    assert end is not None, "the fixed deals of this match were chosen to hold a win"
    page.goto(f"{base}/replay/{match_id}#e={frames['steps'][end]['version']}")
    page.wait_for_selector("#payment .share")
    pay = next(h["explain"] for h in frames["hands"] if h["end"] == end)["payment"]
    text = page.text_content("#payment")
    assert pay["layout"] == "shares" and pay["lines"][0] in text
    assert page.locator("#payment .share").count() == len(pay["shares"])
    assert page.locator("#explained .win-tile").count() == 1


def test_standings_exports_and_chart_jump(server, page):
    base, match_id, app = server
    frames = _frames(app, match_id)
    last = frames["steps"][-1]
    page.goto(f"{base}/replay/{match_id}#e={last['version']}")
    page.wait_for_selector("#standings-table")
    rows = page.locator("#standings-table tr[data-seat]")
    assert rows.count() == 4
    shown = [int(rows.nth(i).get_attribute("data-seat")) for i in range(4)]
    scores = last["view"]["scores"]
    assert [scores[s] for s in shown] == sorted(scores, reverse=True)
    for fmt in ("ndjson", "json", "text"):
        href = page.get_attribute(f"#exports a[data-format='{fmt}']", "href")
        assert app.test_client().get(href).status_code == 200
    assert page.get_attribute("#exports a[data-format='csv']", "href").startswith("data:text/csv")
    # the chart: one click target per finished hand; clicking hand 1 jumps to its settlement
    assert page.locator("svg.chart .hand-hit").count() == len([h for h in frames["hands"] if h["scores"]])
    assert page.locator("svg.chart polyline.series").count() == 4
    dashes = {page.locator("svg.chart polyline.series").nth(i).get_attribute("stroke-dasharray") for i in range(4)}
    assert len(dashes) == 4  # every line drawn differently: none hides another
    page.locator("svg.chart .hand-hit[data-hand='1']").click()
    assert position(page) == frames["hands"][0]["end"]
    assert page.locator("#settle-table").is_visible()


# engine/review.py REASONS -> words the replay's review panel shows for it (replay_viewer/static/viewer.js)
REASON_WORDS = {
    "safer": "safer against the declared hand",
    "flush": "flush it keeps is worth more",
    "nearer_ready": "nearer ready",
    "waits_worth_more": "waits are worth more",
    "more_improving": "more unseen tiles improve it",
    "cannot_declare": "could not declare",
    "waits_poor": "few live copies or little value",
    "few_improving": "too few unseen tiles improve it",
    "ready_hands_worth_more": "one draw ahead, the ready hands its draws make are worth more",
    "ready_hands_poor": "one draw ahead its ready hands are worth less",
}


def test_review_navigation(server, page, koudiandian_match):
    """The chosen seat's review: its move beside the analyser's, and next/previous difference (on the
    match of fixed deals, whose seat 1 has differences to step through)."""
    base, _, app = server
    match_id = koudiandian_match
    frames = _frames(app, match_id, "1")
    review = frames["review"]
    diffs = [r["step"] for r in review if r["differs"] or r["kind"] in ("passed_hu", "missed_hu", "passed_pung")]
    assert review and diffs, "the fixed deals (replay-koudiandian-0) were chosen to give seat 1 a difference"
    page.goto(f"{base}/replay/{match_id}#seat=1")
    page.wait_for_selector("#review")
    page.click("#review-next")
    assert position(page) == diffs[0]
    page.wait_for_selector("#review-item")
    assert int(page.get_attribute("#review-item", "data-step")) == diffs[0]
    if len(diffs) > 1:
        page.click("#review-next")
        assert position(page) == diffs[1]
        page.click("#review-prev")
        assert position(page) == diffs[0]
    first = next(r for r in review if r["step"] == diffs[0])
    if first["kind"] == "discard":
        assert page.locator("#review-item .rv-line").first.locator(f".tile[data-tile='{first['made']}']").count() == 1
    # every flagged discard says why: the reason, both moves' worth, and the evaluator's words
    seat, flagged = next(
        (s, r) for s in "0123" for r in _frames(app, match_id, s)["review"] if r["kind"] == "discard" and r["differs"]
    )
    page.goto(f"{base}/replay/{match_id}#e={flagged['version']}&seat={seat}")
    until(page, f"() => document.getElementById('review-item')?.dataset.step === '{flagged['step']}'")
    assert REASON_WORDS[flagged["reason"]] in page.text_content("#review-item .rv-reason")
    assert page.text_content("#review-item .rv-why") == flagged["why"]
    assert "worth" in page.text_content("#review-item .rv-line.best")
    # everyone's view has no review (it would not be one seat's knowledge)
    page.select_option("#perspective", "all")
    until(page, "() => document.getElementById('review-next').disabled")


def test_phone_layout_has_no_horizontal_scroll(server, browser):
    base, match_id, app = server
    frames = _frames(app, match_id)
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1)
    page = context.new_page()
    steps = frames["steps"]
    for at in (0, len(steps) // 2, _first_win_end(frames) or 1, len(steps) - 1):
        page.goto(f"{base}/replay/{match_id}#e={steps[at]['version']}&seat=0")
        page.wait_for_selector("#seat-3 .seat-head")
        page.wait_for_timeout(100)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, at
        for sel in ("#hand", "#position", "#next"):
            box = page.locator(sel).bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, sel
    assert "阶段" in page.text_content("#status")
    page.goto(f"{base}/replay/{match_id}")
    page.wait_for_selector("#seat-3 .seat-head")
    assert "lobby" not in page.text_content("#status")
    context.close()


def test_desktop_bottom_rivers_above_the_fold(server, browser):
    base, match_id, app = server
    frames = _frames(app, match_id)
    end = frames["hands"][0]["end"]
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    page.goto(f"{base}/replay/{match_id}#e={frames['steps'][end - 1]['version']}")
    page.wait_for_selector("#seat-3 .discards")
    for seat in range(4):
        box = page.locator(f"#seat-{seat} .discards").bounding_box()
        assert box["y"] + box["height"] <= 768, seat
    context.close()


def test_unknown_match_is_a_page(server, page):
    base, _, _ = server
    reply = page.goto(f"{base}/replay/no-such-match")
    assert reply.status == 404 and "No such match" in page.text_content("main")


def test_seats_show_winds_and_bots_match_their_seats(server, page):
    base, match_id, app = server
    frames = _frames(app, match_id)
    start = frames["hands"][0]["start"]
    page.goto(f"{base}/replay/{match_id}#e={frames['steps'][start]['version']}")
    page.wait_for_selector("#seat-3 .wind")
    dealer = frames["hands"][0]["dealer"]
    for seat in range(4):
        assert page.text_content(f"#seat-{seat} .wind") == "东南西北"[(seat - dealer) % 4]
        if frames["seats"][seat]["bot"]:
            assert page.text_content(f"#seat-{seat} .name") == f"Bot {seat + 1}"


def test_screenshots(server, page, tmp_path, browser, hanshan_match):
    """Screenshots (into docs/ with TILEFOLD_SCREENSHOTS=1): mid-hand, settlements of both variants,
    the review, and the phone layout."""
    base, match_id, app = server
    out = DOCS if os.environ.get("TILEFOLD_SCREENSHOTS") == "1" else str(tmp_path)
    frames = _frames(app, match_id)
    hands, steps = frames["hands"], frames["steps"]
    discards = [i for i in range(hands[0]["start"], hands[0]["end"]) if steps[i]["event"]["type"] == "discarded"]
    mid = discards[len(discards) * 2 // 3]
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(f"{base}/replay/{match_id}#e={steps[mid]['version']}")
    page.wait_for_selector("#seat-0 .discards .tile")
    page.screenshot(path=os.path.join(out, "replay-midhand.png"))
    page.set_viewport_size({"width": 1440, "height": 1000})
    end = _first_win_end(frames) or hands[0]["end"]
    page.goto(f"{base}/replay/{match_id}#e={steps[end]['version']}&seat=0")
    page.wait_for_selector("#settle-table")
    page.screenshot(path=os.path.join(out, "replay-settlement.png"), full_page=True)
    hs = _frames(app, hanshan_match)
    hs_end = _first_win_end(hs) or hs["hands"][0]["end"]
    page.goto(f"{base}/replay/{hanshan_match}#e={hs['steps'][hs_end]['version']}")
    page.wait_for_selector("#settle-table")
    page.screenshot(path=os.path.join(out, "replay-settlement-hanshan.png"), full_page=True)
    review = _frames(app, match_id, "2")["review"]
    target = next((r["step"] for r in review if r["differs"]), review[0]["step"])
    for size, name in (
        ({"width": 1366, "height": 768}, "replay-review.png"),
        ({"width": 390, "height": 844}, "replay-review-phone.png"),
    ):
        sharp = browser.new_context(viewport=size, device_scale_factor=2)  # the review readable at its size
        shot = sharp.new_page()
        shot.goto(f"{base}/replay/{match_id}#e={steps[target]['version']}&seat=2")
        shot.wait_for_selector("#review-item")
        shot.locator("#review-card").screenshot(path=os.path.join(out, name))
        sharp.close()
    context = browser.new_context(viewport={"width": 390, "height": 844})
    phone = context.new_page()
    phone.goto(f"{base}/replay/{match_id}#e={steps[end]['version']}")
    phone.wait_for_selector("#settle-table")
    phone.screenshot(path=os.path.join(out, "replay-phone.png"), full_page=True)
    context.close()


def test_a_paged_replay_is_joined_from_its_pages(server, page):
    """Beyond TILEFOLD_REPLAY_WHOLE_HANDS the frames come one hand per page (bounded replays): the viewer
    fetches them in turn and steps, hand jumps and the review work as for a whole replay."""
    base, match_id, app = server
    whole = _frames(app, match_id, "1")
    app.config["REPLAY_WHOLE_HANDS"] = 1
    try:
        page.goto(f"{base}/replay/{match_id}#seat=1")
        until(page, f"() => document.getElementById('slider').max === '{len(whole['steps']) - 1}'")
        page.select_option("#hand", str(len(whole["hands"]) - 1))
        assert position(page) == whole["hands"][-1]["start"]
        page.click("#review-next")
        diffs = [r["step"] for r in whole["review"] if r["differs"] or r["kind"] != "discard"]
        after = [d for d in diffs if d > whole["hands"][-1]["start"]]
        if after:
            assert position(page) == after[0]
    finally:
        app.config["REPLAY_WHOLE_HANDS"] = 16


def test_G11_each_hand_end_shows_its_wall_derivation_checked(server, page):
    """Given a finished joint-walls match, when the replay is at a hand's end, then the settlement
    shows how its wall was derived — the revealed server part hashing to the previous link, the
    seats' parts and the seed — each checked."""
    base, match_id, app = server
    frames = _frames(app, match_id)
    ends = [i for i, step in enumerate(frames["steps"]) if step["event"]["type"] == "hand_ended"]
    for end in ends[:2]:
        page.goto(f"{base}/replay/{match_id}#e={frames['steps'][end]['version']}")
        page.wait_for_selector("#wall-derivation")
        line = page.locator("#wall-derivation")
        assert line.get_attribute("data-links") == "true" and line.get_attribute("data-derived") == "true"
        server_part = frames["steps"][end]["event"]["wall_parts"]["server"]
        assert server_part[:12] in line.text_content() and "✗" not in line.text_content()
