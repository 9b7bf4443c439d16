"""Ratings in the browser: a rule set's leaderboard, a player's profile (ratings, figures, matches)
and each seat's rating change at a rated match's final settlement, at phone and laptop size, axe
clean, showing the numbers the API gives (docs/API.md, "Ratings and figures"). Who held the seats
comes from a stand-in for the accounts' record; the matches are played in process on fixed deals."""

from __future__ import annotations

import os
import threading

import pytest

from axe_support import violations
from browser_support import BROWSER_MARKS, until
from test_web_browser import PHONE, WIDE, Shots, browser  # noqa: F401 - fixtures

import engine
from engine import variants
from audit_support import seeded_deals
from service.http.services import services

pytestmark = BROWSER_MARKS

NAMES = {"p1": "<b>Ann</b> & co", "p2": "Bo", "p3": "C" * 40, "p4": "Di", "p5": "伍五"}  # the longest name, no space
PLAN = [  # (variant, options, deals, the players in seats 0..3)
    ("koudiandian", {"hands": 2}, "ratings-koudiandian-0", ("p1", "p2", "p3", "p4")),
    ("koudiandian", {"hands": 1}, "ratings-koudiandian-1", ("p4", "p3", "p2", "p1")),
    ("koudiandian", {"hands": 1, "wilds": True}, "ratings-wilds-0", ("p2", "p1", "p4", "p3")),
    ("hanshan", {"hands": 1}, "ratings-hanshan-7", ("p1", "p3", "p2", "p5")),
]


class Holders:
    """Stands in for the accounts' record of who holds which seat."""

    def __init__(self) -> None:
        self.held: dict[str, dict[int, str]] = {}

    def players_of(self, match_id: str) -> dict[int, str]:
        return dict(self.held.get(match_id, {}))

    def name_of(self, player: str):
        return NAMES.get(player)


@pytest.fixture(scope="module")
def rated(tmp_path_factory):
    """A served app whose four finished matches are all rated: (base, app, [(match id, seat 0's token)])."""
    from werkzeug.serving import WSGIRequestHandler, make_server

    from service.app import create_app

    holders = Holders()
    app = create_app({"DATABASE": str(tmp_path_factory.mktemp("ratings") / "t.db"), "TESTING": True})
    services(app).reads.ratings.holders = holders  # a stand-in for the accounts' seat links
    played = []
    with pytest.MonkeyPatch.context() as monkeypatch:
        for variant, options, label, players in PLAN:
            seeded_deals(monkeypatch, label)
            match_id, token = play(app, variant, options)
            holders.held[match_id] = dict(enumerate(players))
            played.append((match_id, token))
    WSGIRequestHandler.log_request = lambda *a, **k: None  # quiet
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}", app, played
    httpd.shutdown()


def play(app, variant: str, options: dict) -> tuple[str, str]:
    """Four people (each playing the bot's choice) play a match to its end; seat 0's token."""
    svc = services(app).match
    match_id, _, _ = svc.create(variant, options)
    tokens = [svc.join(match_id, f"Seat {n}")[1] for n in range(4)]
    for _ in range(5_000):
        loaded = svc.repo.load(match_id)
        if loaded.over:
            return match_id, tokens[0]
        seat = engine.pending_seats(loaded.state)[0]
        svc.act(match_id, seat, engine.bot_action(loaded.state, seat), None)
    raise AssertionError("the match did not end")


@pytest.fixture
def pages(browser):  # noqa: F811
    """Pages whose context lets the test's axe-core script in (bypass_csp); no page error allowed."""
    made, errors = [], []

    def new():
        context = browser.new_context(viewport=WIDE, bypass_csp=True)
        page = context.new_page()
        page.set_default_timeout(8000)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        made.append(context)
        return page

    yield new
    for context in made:
        context.close()
    assert not errors, errors


def api(page, url: str) -> dict:
    reply = page.request.get(url)
    assert reply.ok, (url, reply.status)
    return reply.json()


def clean_at_both_sizes(page) -> None:
    for size in (PHONE, WIDE):
        page.set_viewport_size(size)
        assert violations(page) == [], size
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= size["width"], (size, width)  # nothing widens the page (tables scroll in their region)


def test_the_leaderboard_lists_the_rated_players_by_rating(rated, pages, tmp_path):
    """Given four rated matches (three of 扣点点), when a rule set's leaderboard opens, then it lists
    its rated players in the API's order with their names (as text, never markup) and ratings, links
    each to their profile and the other rule sets to theirs, and is axe clean at both sizes."""
    base, _, _ = rated
    page = pages()
    board = api(page, f"{base}/api/leaderboards/koudiandian")
    page.goto(f"{base}/leaderboards/koudiandian")
    rows = page.locator("#leaderboard tbody tr")
    assert rows.count() == len(board["players"]) == 4
    for n, row in enumerate(board["players"]):
        cells = rows.nth(n).locator("td")
        assert cells.nth(1).inner_text() == NAMES[row["player"]]
        assert cells.nth(2).inner_text() == f"{row['rating']:.2f}"
        assert cells.nth(3).inner_text() == str(row["matches"]) == "2"
    assert page.locator("#leaderboard b").count() == 0  # a name is text
    assert page.get_attribute("nav.rule-sets a[aria-current=page]", "href") == "/leaderboards/koudiandian"
    assert page.locator("nav.rule-sets a").count() == 3
    clean_at_both_sizes(page)
    Shots(tmp_path).take(page, "leaderboard")
    page.click(f"#leaderboard a:text('{NAMES[board['players'][0]['player']]}')")
    page.wait_for_selector("#player-h")
    assert page.url.endswith(f"/players/{board['players'][0]['player']}")
    page.goto(f"{base}/")
    page.click("header nav a[href='/leaderboards']")  # the site's menu: the first rule set's board
    page.wait_for_selector("#board-h")
    assert page.get_attribute("nav.rule-sets a[aria-current=page]", "href") == f"/leaderboards/{variants.names()[0]}"
    page.goto(f"{base}/leaderboards/nothing")
    assert page.inner_text("#board-h").startswith("没有这个规则")


def test_a_profile_shows_ratings_figures_and_matches(rated, pages, tmp_path):
    """Given a player of all three rule sets, when their profile opens, then each rule set shows the
    rating and the figures the API gives, the matches are listed newest first with place, score and
    rating change, and the page is axe clean at both sizes."""
    base, _, played = rated
    page = pages()
    profile = api(page, f"{base}/api/players/p1")
    page.goto(f"{base}/players/p1")
    assert page.inner_text("#player-h").startswith(NAMES["p1"])
    sections = page.locator("section.rule-set")
    assert sections.count() == len(profile["rule_sets"]) == 3
    for n, rule_set in enumerate(profile["rule_sets"]):
        section = sections.nth(n)
        assert section.get_attribute("data-rule-set") == rule_set["rule_set"]
        assert f"{rule_set['rating']['rating']:.2f}" in section.locator("p.rating b").inner_text()
        shown = section.locator("dd").all_inner_texts()
        figures = rule_set["figures"]
        average = "—" if figures["average_points"] is None else str(figures["average_points"])
        assert shown == [str(figures[k]) for k in ("matches", "hands", "hands_won", "dealt_in")] + [
            average,
            str(figures["longest_streak"]),
            str(figures["first_places"]),
        ]
    rows = page.locator("#player-matches tbody tr")
    mine = [match_id for match_id, _ in played]  # p1 sat in every match
    assert [rows.nth(n).get_attribute("data-match") for n in range(rows.count())] == list(reversed(mine))
    for n, match in enumerate(profile["matches"]):
        cells = rows.nth(n).locator("td").all_inner_texts()
        assert match["label"] in cells[0]
        assert cells[1] == str(match["place"]) and cells[2] == f"{match['score']:+d}"
        assert cells[4] == f"{match['rating_change']:+.2f}"
    clean_at_both_sizes(page)
    Shots(tmp_path).take(page, "profile")
    page.goto(f"{base}/players/nobody")
    assert page.inner_text("#player-h").startswith("找不到这位玩家")


def test_the_final_settlement_shows_each_seats_rating_change(rated, pages, tmp_path):
    """Given a rated match, when seat 0 opens its table at the final settlement, then each seat's line
    in the standings shows its rating change and new rating as the API gives them, linked to the
    player's profile, and the settlement is axe clean at both sizes."""
    base, _, played = rated
    match_id, token = played[0]
    page = pages()
    changes = api(page, f"{base}/api/matches/{match_id}/ratings")
    assert changes["rated"] and len(changes["seats"]) == 4
    page.goto(f"{base}/play/{match_id}#seat={token}")
    page.wait_for_selector("#standings .rating-change")
    until(page, "() => document.querySelectorAll('#standings .rating-change').length === 4")
    for change in changes["seats"]:
        line = page.locator(f"#standings li[data-seat='{change['seat']}'] .rating-change")
        sign = "+" if change["change"] > 0 else "−" if change["change"] < 0 else "±"
        assert f"{sign}{abs(change['change']):.2f} → {change['after']['rating']:.2f}" in line.inner_text()
        assert line.locator("a").get_attribute("href") == f"/players/{change['player']}"
    clean_at_both_sizes(page)
    out = Shots(tmp_path).out
    for size, suffix in ((WIDE, "wide"), (PHONE, "phone")):  # the overlay scrolled to the standings
        page.set_viewport_size(size)
        page.locator("#standings").scroll_into_view_if_needed()
        page.wait_for_timeout(150)
        page.screenshot(path=os.path.join(out, f"web-settlement-rating-{suffix}.png"))
