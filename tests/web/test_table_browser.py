"""The table a player trusts: the settlement at the end of a match names each seat with the wind it
had in the hand settled (G-2, the engine's winds, never the next hand's), and explains the win from
the same source as the replay (engine.explain). One person plays seat 0 in process (the bots' own
choice for that seat) on fixed deals; the browser only looks.
"""

from __future__ import annotations

import json

import pytest

from axe_support import violations
from browser_support import BROWSER_MARKS, until
from test_web_browser import browser, contexts, server  # noqa: F401 - fixtures

import engine
import service.usecases.play
from audit_support import rows_of, seeded_deals
import service.usecases.walls
from service.http.services import services

pytestmark = BROWSER_MARKS

WIND_ZH = {"E": "东", "S": "南", "W": "西", "N": "北"}
G2 = ["E", "S", "W", "N"]  # the dealer sits East, its 下家 South … (G-2)


def finished_match(app, monkeypatch, label: str, variant: str, options: dict, name: str = "Alice") -> tuple[str, str]:
    """One person (seat 0, playing the bot's choice) and three bots play the whole match on fixed deals."""
    seeded_deals(monkeypatch, label)
    svc = services(app).match
    match_id, owner, _ = svc.create(variant, options)
    _, token, _ = svc.join(match_id, name)
    svc.add_bots(match_id, owner, None)
    for _ in range(2_000):
        loaded = svc.repo.load(match_id)
        if loaded.over:
            return match_id, token
        if 0 in engine.pending_seats(loaded.state):
            svc.act(match_id, 0, engine.bot_action(loaded.state, 0), None)
    raise AssertionError(f"the match on deals {label!r} did not finish")


def export_rows(page, base, match_id) -> list[dict]:
    reply = page.request.get(f"{base}/api/matches/{match_id}/export?format=ndjson")
    assert reply.ok, reply.status
    return rows_of(reply.text())  # the rows, without the signed heads


def open_final_settlement(page, base, match_id, token) -> None:
    page.goto(f"{base}/play/{match_id}#seat={token}")
    page.wait_for_selector("#result:not([hidden]) #settle-table")


def test_final_settlement_winds_are_the_exports_for_the_last_hand_g2(server, contexts, monkeypatch):  # noqa: F811
    """Given a finished 扣点点 match whose dealer changed between its hands (K-11 dealer "winner"),
    when its table opens at the final settlement, then every seat's wind in the overlay (the payment
    table and the revealed hands) and on the seat boxes behind it is the wind the export gives that
    seat in the last hand (G-2 from the last hand_started's dealer), not one wind on."""
    base, app = server
    label = "table-winds"
    match_id, token = finished_match(app, monkeypatch, label, "koudiandian", {"hands": 2})
    _, page = contexts()
    rows = export_rows(page, base, match_id)
    dealers = [r["payload"]["dealer"] for r in rows if r["type"] == "hand_started"]
    ended = [r["payload"] for r in rows if r["type"] == "hand_ended"]
    assert len(dealers) == 2 and dealers[0] != dealers[1], f"deals {label!r}: the dealer must change ({dealers})"
    assert ended[-1]["next_dealer"] != dealers[-1], f"deals {label!r}: the next dealer must differ from the last"
    last = dealers[-1]
    expected = {s: WIND_ZH[G2[(s - last) % 4]] for s in range(4)}
    open_final_settlement(page, base, match_id, token)
    for s in range(4):
        cell = page.text_content(f"#settle-table tr[data-seat='{s}'] td.who")
        assert cell.startswith(expected[s]), (s, cell, expected, dealers)
        who = page.text_content(f"#revealed .rev[data-seat='{s}'] .who")
        assert who.startswith(expected[s]), (s, who, expected)
    page.click("#result .close")
    for s in range(4):
        wind = page.text_content(f"#table section.seat[data-seat='{s}'] .wind, #pos-0[data-seat='{s}'] .wind")
        assert wind == expected[s], (s, wind, expected)
    assert page.text_content(f"section.seat[data-seat='{last}'] .tag.dealer") == "庄"


@pytest.mark.parametrize(
    ("label", "variant", "options"),
    [("table-explain-kdd", "koudiandian", {"hands": 1, "wilds": True}), ("table-explain-hs", "hanshan", {"hands": 1})],
)
def test_final_settlement_explains_the_win_as_the_replay_does(server, contexts, monkeypatch, label, variant, options):  # noqa: F811
    """Given a finished one-hand match that someone won, when the table shows its settlement and the
    replay shows the same hand's, then both draw the winner's hand read as scoring read it (every
    set, each wild with what it stood for, the winner's melds) and the payment step by step with the
    same words (engine.explain: K-1/K-7/K-8/K-12/K-13 for 扣点点, H-5/H-10 for 含山)."""
    base, app = server
    match_id, token = finished_match(app, monkeypatch, label, variant, options)
    _, page = contexts()
    rows = export_rows(page, base, match_id)
    ended = [r["payload"] for r in rows if r["type"] == "hand_ended"][-1]
    assert ended["winner"] is not None, f"deals {label!r}: the hand must be won"
    open_final_settlement(page, base, match_id, token)
    table = _explained(page)
    frames = page.request.get(f"{base}/replay/{match_id}/frames.json").json()
    hand = frames["hands"][-1]
    explain = hand["explain"]
    assert table["blocks"] == len(explain["blocks"]) + len(explain["melds"])
    assert table["melds"] == [m["tile"] for m in explain["melds"]]
    assert table["as"] == [t["as"] for b in explain["blocks"] for t in b["tiles"] if "as" in t]
    replay = page.context.new_page()
    replay.goto(f"{base}/replay/{match_id}#e={frames['steps'][hand['end']]['version']}")
    replay.wait_for_selector("#explained .block")
    assert _explained(replay) == table
    assert replay.text_content("#payment") == page.text_content("#payment")
    for share in explain["payment"]["shares"]:
        assert page.locator(f"#payment .share[data-payer='{share['paid_by']}']").count() >= 1


def _explained(page) -> dict:
    return page.evaluate(
        """() => ({
      blocks: document.querySelectorAll('#explained .block').length,
      tiles: Array.from(document.querySelectorAll('#explained .block .tf-tile[data-tile]')).map((t) => t.dataset.tile),
      melds: Array.from(document.querySelectorAll('#explained .block.meld')).map((b) => b.dataset.meld),
      as: Array.from(document.querySelectorAll('#explained .cell[data-as]')).map((c) => c.dataset.as),
    })"""
    )


LONGEST = "W" * 40  # the longest name the API accepts (1..40 characters), without a space to break at
WIDE, PHONE = {"width": 1366, "height": 768}, {"width": 390, "height": 844}

#: the page's width beyond the window, and every name cut short by CSS that has no title naming it in full
SIDEWAYS = """(name) => {
  const cut = Array.from(document.querySelectorAll('body *')).filter((e) => e.children.length === 0 &&
    e.textContent.includes(name.slice(0, 12)) && e.scrollWidth > e.clientWidth + 1 &&
    getComputedStyle(e).textOverflow === 'ellipsis' && !(e.title || '').includes(name));
  return {over: document.documentElement.scrollWidth - window.innerWidth, cut: cut.map((e) => e.outerHTML.slice(0, 120))};
}"""


def test_no_page_scrolls_sideways_for_the_longest_name(server, contexts, monkeypatch):  # noqa: F811
    """Given a player named with 40 characters and no space (the longest name the API accepts), when
    the home page lists the match open for joining, the invite page, the table in the lobby and at
    the final settlement, My matches and the replay are opened at 1366x768 and at 390x844, then no
    page is wider than the window, and a name cut short shows in full on hover / long-press (title)."""
    base, app = server
    svc = services(app).match
    open_id, _, _ = svc.create("hanshan", {"hands": 1})
    _, open_token, _ = svc.join(open_id, LONGEST)
    match_id, token = finished_match(app, monkeypatch, "table-explain-kdd", "koudiandian", {"hands": 1}, LONGEST)
    _, page = contexts()
    frames = page.request.get(f"{base}/replay/{match_id}/frames.json").json()
    end = frames["steps"][frames["hands"][-1]["end"]]["version"]
    visits = [
        ("/", "#open-list a"),
        (f"/join/{open_id}", "#join-info p"),
        (f"/play/{open_id}#seat={open_token}", "#lobby li"),
        (f"/play/{match_id}#seat={token}", "#result:not([hidden]) #settle-table"),
        ("/my", f"li[data-match='{match_id}']"),
        (f"/replay/{match_id}#e={end}", "#explained .block"),
    ]
    for size in (WIDE, PHONE):
        page.set_viewport_size(size)
        for url, ready in visits:
            page.goto(base + url)
            page.wait_for_selector(ready)
            page.wait_for_timeout(100)
            seen = page.evaluate(SIDEWAYS, LONGEST)
            assert seen["over"] <= 0, (url, size, seen)
            assert not seen["cut"], (url, size, seen)


def test_open_matches_newest_first_paged_only_joinable_and_the_creator_follows_the_seats(server, contexts, monkeypatch):  # noqa: F811
    """Given a busy server (the API lists 5 matches a page) with 24 matches open for joining and a
    newer one already started, when a person opens the home page, then the list starts with the newest
    open match, keeps newest first, leaves out the started one, and 更多 more reads the older ones;
    and when that person creates a match, their page follows the seats filling and says when it started."""
    base, app = server
    svc = services(app).match
    monkeypatch.setitem(app.config, "LIST_LIMIT", 5)
    opened = []
    for i in range(24):
        match_id, _, _ = svc.create("hanshan", {"hands": 1})
        svc.join(match_id, f"open{i}")
        opened.append(match_id)
    full, owner, _ = svc.create("hanshan", {"hands": 1})
    svc.join(full, "full")
    svc.add_bots(full, owner, None)
    _, page = contexts()
    page.goto(base + "/")
    page.wait_for_selector("#open-list li[data-match]")
    listed = page.eval_on_selector_all("#open-list li[data-match]", "ls => ls.map((l) => l.dataset.match)")
    assert full not in listed
    assert listed[0] == opened[-1], (listed, opened)
    mine = [m for m in listed if m in opened]
    assert mine == sorted(mine, key=opened.index, reverse=True)
    assert opened[0] not in listed and page.is_visible("#open-more")
    for _ in range(5):
        if opened[0] in listed or not page.is_visible("#open-more"):
            break
        page.click("#open-more")
        page.wait_for_timeout(300)
        listed = page.eval_on_selector_all("#open-list li[data-match]", "ls => ls.map((l) => l.dataset.match)")
    assert [m for m in listed if m in opened] == opened[::-1]
    # the creator's page follows the seats
    page.check("input[name=variant][value=hanshan]")
    page.fill("input[name=name]", "Host")
    page.click("#create-btn")
    page.wait_for_selector("#created:not([hidden])")
    until(page, "() => document.getElementById('created-status').textContent.includes('1/4')")
    match_id = page.input_value("#invite-url").rstrip("/").rsplit("/", 1)[1]
    svc.join(match_id, "Bob")
    until(page, "() => document.getElementById('created-status').textContent.includes('2/4')")
    assert "Bob" in page.text_content("#created-seats")
    svc.join(match_id, "Carol")
    svc.join(match_id, "Dave")
    until(page, "() => document.getElementById('created-status').textContent.includes('started')")


# ------------------------------------------------------------------------------- accessibility
@pytest.fixture
def axe_page(browser):  # noqa: F811
    """A page whose context lets the test's axe-core script in (bypass_csp), and a phone one (touch)."""
    made = []

    def new(size):
        phone = size is PHONE
        context = browser.new_context(viewport=size, bypass_csp=True, has_touch=phone, is_mobile=phone)
        made.append(context)
        page = context.new_page()
        page.set_default_timeout(8000)
        return page

    yield new
    for context in made:
        context.close()


def _states(app, monkeypatch, label):
    """A 扣点点 match with a person at seat 0 (playing the bot's choice) on fixed deals, stopped at the
    person's turn, a claim asking it, a 报听 choice and the final settlement: yields (state name, token)."""
    seeded_deals(monkeypatch, label)
    svc = services(app).match
    match_id, owner, _ = svc.create("koudiandian", {"hands": 4})
    _, token, _ = svc.join(match_id, "Alice")
    svc.add_bots(match_id, owner, None)
    wanted = {"turn", "claim", "ting"}
    for _ in range(5_000):
        loaded = svc.repo.load(match_id)
        if loaded.over:
            yield "settlement", match_id, token
            break
        if 0 not in engine.pending_seats(loaded.state):
            continue
        acts = engine.legal_actions(loaded.state, 0)
        kinds = {a["action"] for a in acts}
        state = (
            "ting"
            if "ting" in kinds
            else "claim"
            if kinds & {"pung", "kong"} and loaded.state.phase == "claim"
            else "turn"
        )
        if state in wanted:
            wanted.discard(state)
            yield state, match_id, token
        svc.act(match_id, 0, engine.bot_action(loaded.state, 0), None)
    assert not wanted, f"deals {label!r}: the match never reached {wanted}"


def _past_settlement(state):
    """Close the previous hand's settlement (继续 continue), then open the 报听 list in the 报听 state."""

    def before(page):
        if page.locator("#next-hand").is_visible():
            page.click("#next-hand")
        if state == "ting":
            page.click("#actions button.act-ting[aria-expanded]")
            page.wait_for_selector("#ting-box li")

    return before


def test_no_serious_accessibility_violation_on_any_page_at_both_sizes(server, axe_page, monkeypatch):  # noqa: F811
    """Given every page a person opens (home, invite, My matches, the table in play, in a claim, in 报听
    and at the settlement, the replay and the page for an unknown match), when axe-core checks it at
    1366x768 and at 390x844 by touch, then it reports no serious or critical violation."""
    base, app = server
    svc = services(app).match
    open_id, _, _ = svc.create("hanshan", {"hands": 1})
    svc.join(open_id, "Host")
    found = {}
    pages = {size["width"]: axe_page(size) for size in (WIDE, PHONE)}

    def check(name, url, ready, before=None):
        for width, page in pages.items():
            page.goto(base + url)
            page.wait_for_selector(ready)
            if before:
                before(page)
            page.wait_for_timeout(150)
            bad = violations(page)
            if bad:
                found[f"{name}@{width}"] = bad

    check("home", "/", "#open-list li")
    check("invite", f"/join/{open_id}", "#join-info p")
    check("missing", "/play/no-such-match", "#missing-h")
    check("replay-missing", "/replay/no-such-match", "main h2")
    settled = None
    for state, match_id, token in _states(app, monkeypatch, "table-axe"):
        ready = {
            "turn": "#hand .tile-btn",
            "claim": "#actions button[data-action=pass]",
            "ting": "#actions button.act-ting",
            "settlement": "#result:not([hidden]) #settle-table",
        }[state]
        check(
            state, f"/play/{match_id}#seat={token}", ready, None if state == "settlement" else _past_settlement(state)
        )
        settled = match_id
    check("my", "/my", "li[data-match]")
    check("replay", f"/replay/{settled}", "#seats .seat")
    frames = pages[WIDE["width"]].request.get(f"{base}/replay/{settled}/frames.json").json()
    last = frames["steps"][-1]["version"]
    check("replay-settlement", f"/replay/{settled}#e={last}&seat=0", "#settle-table")  # with seat 0's review
    assert not found, json.dumps(found, ensure_ascii=False, indent=1)


def test_a_wait_that_cannot_win_says_which_rule_k4(server, contexts, monkeypatch):  # noqa: F811
    """Given a 扣点点 dealer (the person at seat 0) dealt 23456m 456p 789p EE and N, when it opens the
    报听 list, then the discard N shows its waits 1m 4m 7m and 1m says 不能胡 can't win with the rule
    that forbids it (K-4: a tile worth 1 or 2 never wins), named in full on hover and in its label."""
    base, app = server
    preset = {
        "hands": ["23456m456p789pEEN", "1112223334445p", "5556667778889s", "CCCFFFPPPWWWS"],
        "wall": "",
        "wild": None,
    }
    monkeypatch.setattr(
        service.usecases.play, "_deal_command", lambda *args: {"action": "start_hand", "preset": dict(preset)}
    )
    svc = services(app).match
    match_id, owner, _ = svc.create("koudiandian", {"hands": 1})
    _, token, _ = svc.join(match_id, "Alice")
    svc.add_bots(match_id, owner, None)
    _, page = contexts()
    page.goto(f"{base}/play/{match_id}#seat={token}")
    page.click("#actions button.act-ting[aria-expanded]")
    page.wait_for_selector("#ting-box button[data-tile='N']")
    row = page.locator("#ting-box li", has=page.locator("button[data-tile='N']"))
    refused = row.locator(".wait small.refused")
    assert refused.count() == 1
    assert "K-4" in refused.text_content() and "不能胡" in refused.text_content()
    assert "1 or 2" in refused.get_attribute("title")
    assert "K-4" in row.locator("button").get_attribute("aria-label")


def test_phone_hand_tiles_are_touch_targets_and_the_table_counts_tiles(server, axe_page, monkeypatch):
    """Given a person in a 含山 match with bots, when the table opens on a 390x844 phone by touch, then
    every tile of the hand is a target at least 44 px wide and high and the page does not scroll
    sideways; each other seat shows how many tiles it holds (the view's concealed_count); the 白板 that
    may play the 配子's kind (dealt: 配子 5s) is marked in the hand (H-2, the view's stand_in); and once the match is
    over, My matches links it to its replay."""
    base, app = server
    label = "table-phone"
    match_id, token = finished_match(app, monkeypatch, label, "hanshan", {"hands": 1})
    svc = services(app).match
    preset = {
        "hands": ["123m456p789sEESPN", "1112223334445p", "5556667778889s", "CCCFFFWWWNNNS"],
        "wall": "",
        "wild": "5s",
    }
    monkeypatch.setattr(
        service.usecases.play, "_deal_command", lambda *args: {"action": "start_hand", "preset": dict(preset)}
    )
    live, owner, _ = svc.create("hanshan", {"hands": 1})
    _, live_token, _ = svc.join(live, "Alice")
    svc.add_bots(live, owner, None)
    page = axe_page(PHONE)
    page.goto(f"{base}/play/{match_id}#seat={token}")  # this browser's seat in the finished match
    page.wait_for_selector("#result:not([hidden])")
    page.goto(f"{base}/play/{live}#seat={live_token}")
    page.wait_for_selector("#hand .tile-btn")
    boxes = page.eval_on_selector_all("#hand .tile-btn", "bs => bs.map((b) => b.getBoundingClientRect().toJSON())")
    assert boxes and all(b["width"] >= 44 and b["height"] >= 44 for b in boxes), boxes
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    loaded = svc.repo.load(live)
    view = engine.view(loaded.state, 0)["hand"]
    for s in (1, 2, 3):
        count = page.text_content(f"section.seat[data-seat='{s}'] .seat-head .count")
        assert count == f"{view['seats'][s]['concealed_count']}张", (s, count)
    stand_in = view["stand_in"]
    assert stand_in == {"tile": "P", "as": "5s"}  # H-2: 白板 may play the 配子 5s
    marked = page.eval_on_selector_all(
        "#hand .tile-btn[data-stand-in]", "bs => bs.map((b) => [b.dataset.tile, b.dataset.standIn])"
    )
    assert marked == [["P", "5s"]], marked
    assert "5s" in page.get_attribute("#hand .tile-btn[data-stand-in]", "aria-label")
    page.goto(f"{base}/my")
    page.wait_for_selector(f"li[data-match='{match_id}'] a.replay")
    assert page.get_attribute(f"li[data-match='{match_id}'] a.replay", "href") == f"/replay/{match_id}"


def test_the_table_logs_the_last_moves_and_marks_the_last_discard(server, contexts, monkeypatch):  # noqa: F811
    """Given a 扣点点 match with a person at seat 0 and three bots, a few turns into the first hand
    (fixed deals), when the table opens, then its move log lists the last moves of the seat's own
    feed newest first (discards, claims, 报听 and wins; never another seat's draw), each with its tile,
    and the river entry of the last discard is marked in that seat's river; after the person's next
    discard the log starts with it."""
    base, app = server
    seeded_deals(monkeypatch, "table-log")
    svc = services(app).match
    match_id, owner, _ = svc.create("koudiandian", {"hands": 1})
    _, token, _ = svc.join(match_id, "Alice")
    svc.add_bots(match_id, owner, None)
    for _ in range(3):  # three of the person's turns: the bots discard in between
        loaded = svc.repo.load(match_id)
        svc.act(match_id, 0, engine.bot_action(loaded.state, 0), None)
    _, page = contexts()
    page.goto(f"{base}/play/{match_id}#seat={token}")
    page.wait_for_selector("#moves li")
    feed = page.request.get(f"{base}/api/matches/{match_id}/events?after=0").json()["events"]
    logged = [e for e in feed if e["type"] in ("hand_started", "discarded", "punged", "konged", "ting_declared", "won")]
    assert page.locator("#moves li[data-type=drew]").count() == 0
    shown = page.eval_on_selector_all("#moves li", "ls => ls.map((l) => Number(l.dataset.version))")
    assert shown == [e["version"] for e in logged[::-1][: len(shown)]] and len(shown) == min(12, len(logged))
    first = logged[-1]
    if first["payload"].get("tile"):
        assert page.get_attribute("#moves li:first-child .tf-tile", "data-tile") == first["payload"]["tile"]
    last = next(e for e in reversed(logged) if e["type"] == "discarded")
    marked = page.locator("section.seat .river .last-discard")
    assert marked.count() == 1
    assert marked.get_attribute("data-tile") == last["payload"]["tile"]
    assert page.locator(f"section.seat[data-seat='{last['payload']['seat']}'] .river .last-discard").count() == 1
    # the person's own discard tops the log
    version = int(page.evaluate("document.body.dataset.version"))
    tile = page.get_attribute("#hand button.tile-btn:not([aria-disabled=true])", "data-tile")
    page.click(f"#hand button.tile-btn[data-tile='{tile}']")
    page.click(f"#actions button[data-action=discard][data-tile='{tile}']")
    for _ in range(100):
        top = page.get_attribute("#moves li:first-child", "data-version")
        if top and int(top) > version:
            break
        page.wait_for_timeout(50)
    assert any(
        page.get_attribute(f"#moves li[data-version='{v}']", "data-type") == "discarded"
        for v in range(version + 1, version + 3)
        if page.locator(f"#moves li[data-version='{v}']").count()
    )


#: How many clearly coloured pixels `glyph` makes when drawn in `selector`'s own font (a colour
#: emoji font draws gold medals and a red 🀄; a missing one draws a grey box or nothing).
COLOURED = """([selector, glyph]) => {
  const font = getComputedStyle(document.querySelector(selector)).font;
  const canvas = document.createElement('canvas'); canvas.width = 80; canvas.height = 80;
  const ctx = canvas.getContext('2d'); ctx.font = font.replace(/\\d+(\\.\\d+)?px/, '48px'); ctx.textBaseline = 'top';
  ctx.fillText(glyph, 4, 4);
  const data = ctx.getImageData(0, 0, 80, 80).data;
  let n = 0;
  for (let i = 0; i < data.length; i += 4) {
    const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]];
    if (a > 128 && Math.max(r, g, b) - Math.min(r, g, b) > 60) n++;
  }
  return n;
}"""


def test_medal_and_mahjong_emoji_render_in_colour(server, contexts, monkeypatch):  # noqa: F811
    """Given a finished match, when its table's final standings and its replay's standings show the
    medals, then 🥇 🥈 🥉 and 🀄 drawn in those pages' own fonts come out in colour (the font stacks
    fall back to a colour emoji font, Debian's fonts-noto-color-emoji), not as empty boxes."""
    base, app = server
    match_id, token = finished_match(app, monkeypatch, "table-explain-kdd", "koudiandian", {"hands": 1})
    _, page = contexts()
    page.goto(f"{base}/play/{match_id}#seat={token}")
    page.wait_for_selector("#standings li")
    assert page.text_content("#standings li:first-child").startswith("🥇")
    for glyph in ("🥇", "🥈", "🥉", "🀄"):
        assert page.evaluate(COLOURED, ["#standings li", glyph]) > 50, glyph
    page.goto(f"{base}/replay/{match_id}")
    page.wait_for_selector("#seats .seat")
    page.keyboard.press("End")
    page.wait_for_selector("#standings-card:not([hidden]) td")
    assert "🥇" in page.text_content("#standings")
    for glyph in ("🥇", "🀄"):
        assert page.evaluate(COLOURED, ["#standings", glyph]) > 50, glyph


def test_G6_the_claim_timer_counts_down_for_the_asked_seat_only(server, contexts, monkeypatch):  # noqa: F811
    """Given a 扣点点 match with a 20-second claim timer and no move deadline, two people (seats 0 and
    1) and two bots, when the dealer (seat 0) discards C and seat 1 (holding CC) is asked, then seat
    1's table shows its claim buttons and a countdown, and the dealer's table shows only 等待他人
    waiting for others, with no countdown (no tell of who is asked)."""
    base, app = server
    hands = ["23456m456p789pEEC", "1112223334pCCS", "5556667778889s", "FFFPPPWWWNNNS"]
    preset = {"hands": hands, "wall": "", "wild": None}
    monkeypatch.setattr(
        service.usecases.play, "_deal_command", lambda *args: {"action": "start_hand", "preset": dict(preset)}
    )
    svc = services(app).match
    match_id, owner, _ = svc.create("koudiandian", {"hands": 1}, claim_seconds=20)
    _, dealer, _ = svc.join(match_id, "Alice")
    _, asked, _ = svc.join(match_id, "Bob")
    svc.add_bots(match_id, owner, None)
    svc.act(match_id, 0, {"action": "discard", "tile": "C"}, None)
    _, bob = contexts()
    bob.goto(f"{base}/play/{match_id}#seat={asked}")
    bob.wait_for_selector("#actions button[data-action=pung]")
    assert bob.locator("#countdown").count() == 1 and "剩余" in bob.text_content("#countdown")
    _, alice = contexts()
    alice.goto(f"{base}/play/{match_id}#seat={dealer}")
    alice.wait_for_selector("#center .whose")
    assert "waiting for others" in alice.text_content("#center .whose")
    assert alice.locator("#countdown").count() == 0
