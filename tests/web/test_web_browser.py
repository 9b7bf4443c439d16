"""Playing in the browser: four separate browser contexts create, join and play whole hands by
clicking only; one person against three bots plays a whole match. Also: a reload mid-hand, a second
tab, a lost connection, and a seat's page never holding another seat's concealed tiles (on the DOM).

The clicks follow engine.bot_action's choice for the seat whose turn it is (so hands reach real wins,
报听 and claims), but every move is made by clicking the page's own buttons.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections import Counter

import pytest

from audit_support import seeded_deals
from browser_support import ARGS, BROWSER_MARKS, CHROMIUM, DOCS

import engine
from engine.tiles import name, parse
from service.infra.repository import engine_events
from service.http.services import services

WIDE, PHONE = {"width": 1366, "height": 768}, {"width": 390, "height": 844}

pytestmark = BROWSER_MARKS


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from werkzeug.serving import WSGIRequestHandler, make_server

    from service.app import create_app

    app = create_app(
        {
            "DATABASE": str(tmp_path_factory.mktemp("web") / "t.db"),
            "TESTING": True,
            "STREAM_LIFETIME": 15.0,
            "STREAM_HEARTBEAT": 5.0,
            "MAX_WAIT": 5.0,
        }
    )
    WSGIRequestHandler.log_request = lambda *a, **k: None  # quiet
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}", app
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (never `playwright install`)")
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


class Shots:
    """Screenshots into docs/ with TILEFOLD_SCREENSHOTS=1 (else a temporary folder): both sizes."""

    def __init__(self, tmp_path):
        self.out = DOCS if os.environ.get("TILEFOLD_SCREENSHOTS") == "1" else str(tmp_path)
        self.taken: set[str] = set()

    def take(self, page, label: str) -> None:
        if label in self.taken:
            return
        self.taken.add(label)
        for size, suffix in ((WIDE, "wide"), (PHONE, "phone")):
            page.set_viewport_size(size)
            page.wait_for_timeout(150)
            page.screenshot(path=os.path.join(self.out, f"web-{label}-{suffix}.png"), full_page=size is PHONE)
        page.set_viewport_size(WIDE)


# A hidden tab whose notifications are allowed, recording what it is asked to show.
#: every 32 bytes crypto.getRandomValues hands a page, kept (hex) in its localStorage: the browser
#: randomness test checks the seat's wall part is one of them (made by the browser's own generator)
RANDOM_SPY = """(() => {
  const real = crypto.getRandomValues.bind(crypto);
  crypto.getRandomValues = (array) => {
    const out = real(array);
    if (array.length === 32) {
      const made = JSON.parse(localStorage.getItem("tf-test-random") || "[]");
      made.push(Array.from(array, (b) => b.toString(16).padStart(2, "0")).join(""));
      localStorage.setItem("tf-test-random", JSON.stringify(made));
    }
    return out;
  };
})();"""
NOTIFY_SPY = """
window.__notes = [];
Object.defineProperty(document, "hidden", { get: () => window.__hidden === true });
window.Notification = class { constructor(title) { window.__notes.push(title); }
  static get permission() { return "granted"; } static requestPermission() { return Promise.resolve("granted"); } };
"""


@pytest.fixture
def contexts(browser):
    made, errors = [], []

    def new():
        context = browser.new_context(viewport=WIDE)
        context.add_init_script(NOTIFY_SPY)
        context.add_init_script(RANDOM_SPY)
        page = context.new_page()
        page.set_default_timeout(8000)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        made.append(context)
        return context, page

    yield new
    for context in made:
        context.close()
    assert not errors, errors


# -------------------------------------------------------------------------------- helpers
def create_on_home(page, base, variant, *, name, wilds=False, bots=False, length="hands:1", deadline="", shots=None):
    page.goto(base + "/")
    page.check(f"input[name=variant][value={variant}]")
    if wilds:
        page.check("input[name=opt][value=wilds]")
    page.select_option("select[name=length]", length)
    page.select_option("select[name=deadline]", deadline)
    page.fill("input[name=name]", name)
    if bots:
        page.check("input[name=bots]")
    if shots:
        shots.take(page, "home")
    page.click("#create-btn")


def join_by_invite(page, url, name):
    page.goto(url)
    page.fill("#join-name", name)
    page.click("#join-btn")
    page.wait_for_url("**/play/**")


def shown_version(page) -> int:
    return int(page.evaluate("document.body.dataset.version || '0'"))


def wait_version(page, version, timeout=30.0):
    """Poll from Python (the pages' CSP forbids the string evaluation wait_for_function uses)."""
    stop = time.monotonic() + timeout
    while shown_version(page) < version:
        if time.monotonic() > stop:
            raise AssertionError(f"the page shows version {shown_version(page)}, not {version}")
        page.wait_for_timeout(40)


def click_action(page, action: dict) -> None:
    """Make `action` by clicking: a discard is tap-then-confirm or a double tap; 报听 through its list."""
    kind, tile = action["action"], action.get("tile")
    if kind == "discard":
        button = page.locator(f"#hand button.tile-btn[data-tile='{tile}']:not([aria-disabled=true])").last
        button.click()
        if int(time.monotonic() * 10) % 2:
            button.click()  # double tap
        else:
            page.click(f"#actions button[data-action=discard][data-tile='{tile}']")  # confirm
    elif kind == "ting" and tile:
        if not page.locator("#ting-box").is_visible():
            page.click("#actions button.act-ting[aria-expanded]")
        page.click(f"#ting-box button[data-tile='{tile}']")
    else:
        selector = f"#actions button[data-action={kind}]" + (f"[data-tile='{tile}']" if tile else "")
        page.click(selector)


def drive(app, match_id, pages, *, until_over=True, hook=None, pre=None, timeout=300.0):
    """Click each pending human seat's choice until the match (or hand) is over; `hook(seat, action, loaded)`
    runs before each click (screenshots, reloads, checks)."""
    svc = services(app).match
    stop = time.monotonic() + timeout
    hands_seen = None
    while time.monotonic() < stop:
        loaded = svc.repo.load(match_id)
        if loaded.over:
            return loaded
        state = loaded.state
        if hands_seen is None:
            hands_seen = state.hands_played
        if not until_over and state.hands_played > hands_seen:
            return loaded
        pending = [s for s in engine.pending_seats(state) if s in pages]
        if not pending:
            time.sleep(0.05)
            continue
        seat = pending[0]
        action = engine.bot_action(state, seat)
        page = pages[seat]
        if pre:
            pre(seat)
        wait_version(page, loaded.version_for(seat))  # the page counts in its seat's numbering
        if hook:
            hook(seat, action, loaded)
        started = time.monotonic()
        try:
            click_action(page, action)
        except Exception as exc:  # noqa: BLE001 - a stale button (the page moved on): look again
            print("retry", seat, action, type(exc).__name__, str(exc)[:200])
            time.sleep(0.2)
            continue
        clicked = time.monotonic()
        if not _wait_moved(svc, match_id, loaded.version):  # the loop reads the match again and retries
            print("not stored in 10 s", seat, action)
        if time.monotonic() - started > 1:
            print("slow", seat, action, round(clicked - started, 2), round(time.monotonic() - clicked, 2))
    raise AssertionError("the match did not finish in time")


def _wait_moved(svc, match_id, version, seconds=10.0) -> bool:
    """Whether the match's stored version moved past `version` within `seconds`."""
    stop = time.monotonic() + seconds
    while svc.repo.version(match_id) == version and time.monotonic() < stop:
        time.sleep(0.03)
    return svc.repo.version(match_id) != version


def dom_tiles(page, selector) -> Counter:
    codes = page.eval_on_selector_all(selector + " .tf-tile[data-tile]", "ts => ts.map(t => t.dataset.tile)")
    return Counter(codes)


#: One synchronous read of the page: the version it shows and the tiles drawn for it, so the DOM cannot
#: move on between the two (the page renders a version in one task, after setting data-version).
SNAPSHOT = """() => {
  const tiles = (sel) => Array.from(document.querySelectorAll(sel + ' .tf-tile[data-tile]')).map((t) => t.dataset.tile);
  const backs = {};
  for (const box of document.querySelectorAll('#table section.seat[data-seat]')) {
    const row = box.querySelector('.backs');
    backs[box.dataset.seat] = row ? {faces: row.querySelectorAll('.tf-tile[data-tile]').length,
                                     backs: row.querySelectorAll('.tf-tile.tf-back').length, html: row.innerHTML} : null;
  }
  return {version: Number(document.body.dataset.version || '0'), table: tiles('#table section.seat'),
          hand: tiles('#hand'), melds: tiles('#my-melds'), center: tiles('#center'), backs};
}"""


def assert_no_hidden_tiles(page, app, match_id, seat):
    """The page's face-up tiles are its own concealed tiles and public ones only (checked on the DOM).

    The state at the version the page shows gives the allowance: the seat's own hand, every face-up
    discard (its own face-down ones too), and the exposed melds; the other seats' concealed tiles
    must not add a single tile beyond that. The version and the tiles are read in ONE snapshot
    (reading them in two calls let the page move on in between: a tile drawn at the next version
    then looked like a leak).
    """
    snap = page.evaluate(SNAPSHOT)
    version = snap["version"]  # in the seat's numbering: the match up to its version-th event
    repo = services(app).match.repo
    stored = repo.read(match_id, 0, until=repo.load(match_id).numbering.to_global(version, seat))
    state = engine.fold(engine_events(stored))
    seen = engine.view(state, seat)["hand"]
    allowed: Counter = Counter(name(k) for k in parse(seen["seats"][seat]["concealed"] or ""))
    for other in seen["seats"]:
        allowed.update(_code(d["tile"]) for d in other["discards"] if d["tile"] is not None)
        for meld in other["melds"]:
            allowed[_code(meld["tile"])] += 4
    # (#center repeats the tile just discarded, a public tile already counted in its river)
    shown = Counter(snap["table"]) + Counter(snap["hand"]) + Counter(snap["melds"])
    assert not shown - allowed, f"tiles shown beyond what seat {seat} may know at v{version}: {shown - allowed}"
    window = seen.get("window")
    center = set(snap["center"])
    assert not center or (window is not None and center == {_code(window["tile"])})
    hidden = Counter()
    for other in range(4):
        if other != seat:
            hidden.update(name(k) for k, n in enumerate(state.hand.seats[other].counts) for _ in range(n))
    # and the backs stand for exactly the other seats' concealed counts, showing nothing
    for other in range(4):
        if other == seat:
            continue
        box = snap["backs"][str(other)]
        assert box["faces"] == 0 and "data-tile" not in box["html"]
        assert box["backs"] == seen["seats"][other]["concealed_count"]
    return hidden


def _code(tile) -> str:
    return name(tile) if isinstance(tile, int) else tile


def wait_settled(page, timeout=30.0):
    page.wait_for_selector("#result:not([hidden]) #settle-table", timeout=timeout * 1000)


def seat_of(page) -> int:
    return int(page.evaluate("document.body.dataset.seat"))


def four_players(contexts, base, variant, wilds, shots=None):
    """Create on `/` in one context, three friends join through the invite link in three more."""
    _, host = contexts()
    create_on_home(host, base, variant, name="Alice", wilds=wilds, deadline="86400", shots=shots)
    host.wait_for_selector("#created:not([hidden])")
    invite = host.input_value("#invite-url")
    pages = [host]
    for friend in ("Bob", "小红", "Dave"):
        _, page = contexts()
        if shots and friend == "Bob":
            page.goto(invite)
            page.wait_for_selector("#join-info p")
            page.fill("#join-name", friend)
            shots.take(page, "invite")
        join_by_invite(page, invite, friend)
        pages.append(page)
    host.click("#go-table")
    host.wait_for_url("**/play/**")
    match_id = host.url.rsplit("/", 1)[1]
    by_seat = {seat_of(p): p for p in pages}
    assert sorted(by_seat) == [0, 1, 2, 3]
    for page in pages:
        page.wait_for_selector("#hand .tile-btn")
    return match_id, by_seat


# -------------------------------------------------------------------------------- tests
def test_hanshan_hand_four_browsers(server, contexts, tmp_path):
    """Given four browsers, when a 含山 match is created on / and joined by the invite link, then a whole
    hand is played by clicking only, every page ends at the settlement, and a claim is answered in place."""
    base, app = server
    shots = Shots(tmp_path)
    match_id, pages = four_players(contexts, base, "hanshan", False, shots)
    wild = pages[0].text_content("#wild")
    assert "配子" in wild  # H-2: the wild is shown by its 含山 name
    claims = []

    def hook(seat, action, loaded):
        if loaded.state.phase != "claim":
            return
        claims.append(action["action"])
        page = pages[seat]
        assert page.locator("#actions .prompt").count() == 1  # answered in place
        assert page.locator("#actions button[data-action=pass]").count() == 1
        shots.take(page, "claim")
        if len(claims) == 1:  # the others only see "waiting for others", never who is being asked
            for other, elsewhere in pages.items():
                if other not in engine.pending_seats(loaded.state):
                    wait_version(elsewhere, loaded.version_for(other))
                    assert "等待他人" in elsewhere.text_content("#center")

    drive(app, match_id, pages, hook=hook)
    for page in pages.values():
        wait_settled(page)
        assert page.locator("#standings li").count() == 4
        assert page.locator("a[href$='/replay/" + match_id + "']").count() == 1
    if claims:
        assert shots.taken >= {"claim"}
    shots.take(pages[0], "settlement")


def test_koudiandian_wilds_hand_four_browsers(server, contexts, tmp_path, monkeypatch):
    """Given four browsers and 扣点点 in 耗子 mode, when a whole hand is played by clicking only, then it
    reaches the settlement; along the way a reload, a second tab and a lost connection all catch up,
    and no page ever holds another seat's concealed tiles (checked on the DOM)."""
    base, app = server
    shots = Shots(tmp_path)
    # a hand long enough for the reload, the second tab and seat 3's turns, every run (not the pages' wall parts)
    seeded_deals(monkeypatch, "browser-koudiandian-wilds")
    match_id, pages = four_players(contexts, base, "koudiandian", True)
    assert "耗子" in pages[0].text_content("#wild")  # K-13
    pages[3].evaluate("window.__hidden = true")  # seat 3 looks at another tab: notified on its turn
    moves = {"n": 0, "reloaded": False, "tab": None, "offline": False}

    def hook(seat, action, loaded):
        moves["n"] += 1
        page = pages[seat]
        if moves["n"] % 7 == 1:
            assert_no_hidden_tiles(page, app, match_id, seat)
        if action["action"] == "ting" and action.get("tile") and "ting" not in shots.taken:
            page.click("#actions button.act-ting[aria-expanded]")
            page.wait_for_selector("#ting-box li .wait")
            assert "分" in page.text_content("#ting-box")  # waits with their points
            shots.take(page, "ting")
        if moves["n"] == 3 and not moves["reloaded"]:  # a reload mid-hand shows the same hand
            before = dom_tiles(page, "#hand")
            page.reload()
            page.wait_for_selector("#hand .tile-btn")
            wait_version(page, loaded.version_for(seat))
            assert dom_tiles(page, "#hand") == before
            if seat == 3:
                page.evaluate("window.__hidden = true")  # still looking at another tab
            moves["reloaded"] = True
        if moves["n"] == 4:  # a second tab of the same browser follows the first
            tab = page.context.new_page()
            tab.goto(page.url)
            tab.wait_for_selector("#hand .tile-btn")
            page.bring_to_front()
            moves["tab"] = (seat, tab, loaded.version)
        # a lost connection: the page goes offline while others play
        if moves["n"] == 5 and (seat + 2) % 4 not in engine.pending_seats(loaded.state):
            other = pages[(seat + 2) % 4]
            other.context.set_offline(True)
            moves["offline"] = (seat + 2) % 4

    def back_online(seat):  # before the offline page has to move, or six moves later
        if moves["offline"] is not False and (seat == moves["offline"] or moves["n"] >= 11):
            pages[moves["offline"]].context.set_offline(False)
            moves["offline"] = False

    drive(app, match_id, pages, hook=hook, pre=back_online)
    final = services(app).match.repo.load(match_id)
    for seat, page in pages.items():
        wait_settled(page)
        wait_version(page, final.version_for(seat))
    tab_seat, tab, _ = moves["tab"]
    wait_version(tab, final.version_for(tab_seat))  # the second tab followed every move through its own stream
    wait_settled(tab)
    assert moves["reloaded"]
    notes = pages[3].evaluate("window.__notes")
    assert notes and all("Your turn" in note for note in notes)
    assert pages[0].evaluate("window.__notes") == []  # never hidden: no notification
    # a chat line reaches the other seats, and nobody without a seat
    pages[0].click("#result .close")
    pages[0].click("#extras summary")
    pages[0].fill("#chat-text", "好牌 good game")
    pages[0].click("#chat-form button")
    pages[2].wait_for_selector("#chat-lines li:has-text('好牌 good game')", state="attached")
    _, stranger = contexts()
    stranger.goto(pages[0].url)
    stranger.wait_for_selector("#lobby:not([hidden])")
    assert stranger.locator("#chat-lines li").count() == 0
    assert stranger.request.get(f"{base}/api/matches/{match_id}/chat").status == 401


def test_a_late_action_answer_never_takes_the_page_back(server, contexts, monkeypatch):
    """Given a seat whose own action's answer reaches its page only after the stream has shown a newer
    version (a busy server), then the page stays at the newer version and its tiles.

    (The page used to show the late answer's older view: data-version went back while a refresh then
    drew the newer tiles, so for a moment the page named version N with the tiles of N+k: the flaky
    "tiles shown beyond what seat 1 may know" of the wilds test, a tile drawn at N+k.)
    """
    base, app = server
    svc = services(app).match
    seeded_deals(monkeypatch, "browser-late-answer")  # a dealer's discard the table answers, every run
    match_id, pages = four_players(contexts, base, "koudiandian", False)
    loaded = svc.repo.load(match_id)
    seat = engine.pending_seats(loaded.state)[0]  # the dealer, to discard
    page = pages[seat]
    wait_version(page, loaded.version_for(seat))
    held = []
    page.route("**/api/matches/*/actions", lambda route: held.append((route, route.fetch())))
    click_action(page, engine.bot_action(loaded.state, seat))
    # The route handler runs only while playwright is called: wait for the held answer by calling it (a
    # plain sleep here would hold the request in the browser, and on a loaded machine the click can
    # return before the request reached the handler). The handler holds the answer after the server
    # gave it, so the action is stored by then.
    stop = time.monotonic() + 30
    while not held and time.monotonic() < stop:
        page.wait_for_timeout(50)
    assert held, "the action's request never reached the route"
    answered = svc.repo.load(match_id)  # the version the held answer shows
    assert answered.version > loaded.version
    other = [s for s in engine.pending_seats(answered.state) if s != seat][0]  # when: the table moves on
    wait_version(pages[other], answered.version_for(other))
    click_action(pages[other], engine.bot_action(answered.state, other))
    assert _wait_moved(svc, match_id, answered.version), "the other seat's action was not stored in 10 s"
    newer = svc.repo.load(match_id).version_for(seat)
    wait_version(page, newer)  # through the stream, while the answer is still held
    hand = dom_tiles(page, "#hand")
    route, response = held.pop()
    route.fulfill(response=response)  # the old answer arrives
    stop = time.monotonic() + 3.0
    while time.monotonic() < stop:
        assert shown_version(page) == newer, "the page went back to the late answer's version"
        page.wait_for_timeout(100)
    assert dom_tiles(page, "#hand") == hand
    page.unroute("**/api/matches/*/actions")


def test_one_person_three_bots_whole_match(server, contexts, tmp_path):
    """Given one person, when they create a 2-hand 扣点点 match with bots on / and play by clicking, then the
    match ends with final standings, My matches lists it, and the settlement names patterns and payments."""
    base, app = server
    shots = Shots(tmp_path)
    _, page = contexts()
    create_on_home(page, base, "koudiandian", name="Alice", bots=True, length="hands:2", wilds=True, deadline="86400")
    page.wait_for_url("**/play/**")
    page.wait_for_selector("#hand .tile-btn")
    match_id = page.url.rsplit("/", 1)[1]
    # My matches: this match, your turn (or waiting), with its last move
    my = page.context.new_page()
    my.goto(base + "/my")
    my.wait_for_selector(f"li[data-match='{match_id}']")
    shots.take(my, "my-matches")
    page.bring_to_front()  # a background tab's animation frames are throttled: clicks there wait
    svc = services(app).match
    page.click("#extras summary")  # standing orders are switched from the table
    page.check("#auto-pass")
    page.wait_for_selector("#toast.on")
    assert svc.repo.load(match_id).room.orders[0] == (True, False)
    page.uncheck("#auto-pass")
    page.click("#extras summary")

    def continue_after_hand(seat, action, loaded):
        if page.locator("#next-hand").is_visible():
            page.click("#next-hand")

    for _ in range(2):
        loaded = drive(app, match_id, {0: page}, until_over=False, hook=continue_after_hand)
        if loaded.over:
            break
        page.wait_for_selector("#result:not([hidden]) #settle-table")
        page.click("#next-hand")
    assert svc.repo.load(match_id).over
    wait_settled(page)
    assert "终局" in page.text_content("#result h2")
    assert page.locator("#standings li").count() == 4
    assert "pays" in page.text_content("#settlement .why") or "nobody pays" in page.text_content("#settlement .why")
    my.bring_to_front()
    my.reload()
    my.wait_for_selector(f"li[data-match='{match_id}'] .badge.over")


def test_accessibility_names_and_keyboard(server, contexts):
    """Every own-hand tile is a button named with its code and Chinese name; every action button with
    the API's action word and its Chinese character; the keyboard moves along the hand and discards."""
    base, _ = server
    _, page = contexts()
    create_on_home(page, base, "hanshan", name="Alice", bots=True)
    page.wait_for_url("**/play/**")
    page.wait_for_selector("#hand .tile-btn")
    for button in page.locator("#hand button").all():
        label = button.get_attribute("aria-label")
        code = button.get_attribute("data-tile")
        assert code in label and re.search(r"[一二三四五六七八九][万筒条]|[东南西北]风|红中|发财|白板", label), label
    page.locator("#hand button").first.focus()
    page.keyboard.press("ArrowRight")
    focused = page.evaluate("document.activeElement.dataset.tile")
    page.keyboard.press("Enter")
    discard = page.locator("#actions button[data-action=discard]")
    if discard.count():
        label = discard.get_attribute("aria-label")
        assert "discard" in label and "打" in label and focused in label
        version = shown_version(page)
        page.keyboard.press("Enter")  # the same tile again: discarded
        wait_version(page, version + 1)
    words = {"hu": "胡", "pung": "碰", "kong": "杠", "pass": "过", "ting": "听", "discard": "打"}
    for button in page.locator("#actions button.act").all():
        label = button.get_attribute("aria-label")
        action = button.get_attribute("data-action")
        assert action in label and words[action] in label, label


def test_chat_waits_out_a_refusal_retry_after(server, contexts):
    """Given a seat's page whose chat long-poll is refused with 429 and `Retry-After: 6` (the waiting caps'
    per-address cap on waiting connections), then the page asks again only after those 6 seconds,
    not at once nor after its usual 3 s pause; and the chat works again afterwards."""
    base, _ = server
    context, page = contexts()
    asked: list[float] = []

    def chat(route):
        asked.append(time.monotonic())
        if len(asked) == 1:
            route.fulfill(
                status=429,
                headers={"Retry-After": "6", "Content-Type": "application/problem+json"},
                body='{"type": "about:blank", "title": "Too many waiting connections", "status": 429}',
            )
        else:
            route.continue_()

    context.route(re.compile(r".*/api/matches/[^/]+/chat\?.*"), chat)
    create_on_home(page, base, "koudiandian", name="Alice", bots=True)
    page.wait_for_url("**/play/**")
    stop = time.monotonic() + 20
    while len(asked) < 2 and time.monotonic() < stop:
        page.wait_for_timeout(200)
    assert len(asked) >= 2, "the chat never asked again after the refusal"
    assert asked[1] - asked[0] >= 5.5, f"asked again after {asked[1] - asked[0]:.1f} s, not after Retry-After"
    page.click("#extras summary")  # the chat is under "more"
    page.fill("#chat-text", "再来 again")
    page.click("#chat-form button")
    page.wait_for_selector("#chat-lines li:has-text('再来 again')", state="attached")
    context.unroute(re.compile(r".*/api/matches/[^/]+/chat\?.*"))


def test_my_matches_follow_a_move_by_long_poll_not_by_timer(server, contexts):
    """Given a browser holding seat 2 of a four-player match, on /my: when seat 0 discards (through
    the API), then the page shows that discard within seconds, and every request it made after
    the first was a long-poll naming the list's ETag (`?wait=`, If-None-Match), none on a timer."""
    from conftest import MatchClient, flask_transport
    from service.http.pages import auth

    base, app = server
    api = MatchClient(flask_transport(app.test_client()))
    match_id, _ = api.create("koudiandian", {"hands": 1})
    tokens = [api.join(match_id, f"p{seat}") for seat in range(4)]
    context, page = contexts()
    context.add_cookies([{"name": auth.seat_cookie(match_id), "value": tokens[2], "url": base}])
    asked: list[tuple[float, str, str]] = []
    page.on(
        "request",
        lambda r: "/web/mine" in r.url and asked.append((time.monotonic(), r.url, r.headers.get("if-none-match", ""))),
    )
    page.goto(base + "/my")
    entry = page.locator(f"li[data-match='{match_id}']")
    entry.wait_for()
    page.wait_for_timeout(1500)  # the long-poll is waiting now
    legal = api.view(match_id, tokens[0]).body["legal_actions"]
    tile = next(a["tile"] for a in legal if a["action"] == "discard")
    moved = time.monotonic()
    assert api.act(match_id, tokens[0], {"action": "discard", "tile": tile}).status == 200
    page.wait_for_function(
        "([sel, tile]) => document.querySelector(sel).textContent.includes(tile)",
        arg=[f"li[data-match='{match_id}']", tile],
        timeout=10000,
    )
    assert "打出" in entry.text_content() and time.monotonic() - moved < 10
    page.wait_for_timeout(6000)  # longer than the server's MAX_WAIT (5 s): one more long-poll at most
    later = asked[1:]
    assert later and all("wait=" in url and tag.startswith('"m') for _, url, tag in later), asked
    assert len(asked) <= 5, f"{len(asked)} requests in {asked[-1][0] - asked[0][0]:.1f} s"


def test_my_matches_hears_a_seat_taken_in_another_tab(server, contexts):
    """Given /my open in one tab of a browser with no seats, when the same browser joins a match by
    its invite in another tab, then /my lists that match without a reload: the join tells the other
    tabs (localStorage), and /my asks for the list at once (a plain GET, not waiting out its poll)."""
    from conftest import MatchClient, flask_transport

    base, app = server
    api = MatchClient(flask_transport(app.test_client()))
    match_id, _ = api.create("hanshan", {"hands": 1})
    context, my = contexts()
    asked: list[tuple[float, str]] = []
    my.on("request", lambda r: "/web/mine" in r.url and asked.append((time.monotonic(), r.url)))
    my.goto(base + "/my")
    my.wait_for_selector("#my-list li.muted")  # "no seats yet"
    my.wait_for_timeout(500)
    joining, started = context.new_page(), time.monotonic()
    join_by_invite(joining, f"{base}/join/{match_id}", "Tab B")
    my.wait_for_selector(f"li[data-match='{match_id}']", timeout=10000)
    plain = [t for t, url in asked if t >= started and "wait=" not in url]
    assert plain, f"no plain GET after the join in the other tab: {asked}"


def test_G11_each_browser_s_randomness_goes_into_the_wall(server, contexts):
    """Given four browsers that create and join a match on the pages (home.js, join.js), then each
    seat's part of the walls was made in its browser (crypto.getRandomValues, kept in its
    localStorage), is the part its seat_joined records and the part hand 1 was dealt with, and the
    table says the seat's randomness went into the wall."""
    base, app = server
    match_id, pages = four_players(contexts, base, "koudiandian", False)
    stored = services(app).match.repo.store.read(f"match-{match_id}")
    events = engine_events(stored)
    joined = {e.payload["seat"]: e.payload.get("randomness") for e in stored if e.type == "seat_joined"}
    started = next(e for e in events if e["type"] == "hand_started")
    for seat, page in pages.items():
        made = page.evaluate(f"localStorage.getItem('tf-wall-part-{match_id}')")
        assert made and re.fullmatch(r"[0-9a-f]{64}", made), made
        assert made in json.loads(page.evaluate("localStorage.getItem('tf-test-random')") or "[]")  # its generator's
        assert joined[seat] == made and started["wall_parts"]["seats"][seat] == made
        page.wait_for_selector("#wall-part:not([hidden])")
        line = page.text_content("#wall-part")
        assert made[:12] in line and "went into this hand's wall" in line, line
    assert len(set(joined.values())) == 4  # four browsers, four different parts
