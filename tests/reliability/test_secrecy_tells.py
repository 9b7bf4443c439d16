"""Tells: nobody but the asked seat learns who is asked in a G-6 claim, G-7 rob or H-4 报听
window, what it answered, or that it could have claimed — in views, summaries, spectator views,
feeds, SSE frames, webhooks and replay frames of matches in play.

The acceptance test plays four-human matches with random legal clients and checks every response of
every seat, the spectator and the public while a window is open; it also reuses the hidden-tile,
seed and face-down checks of test_service_secrecy.
"""

from __future__ import annotations

import json
import random
from typing import Any, Optional

import pytest

import engine
from engine.views import WAITING
from audit_support import seeded_deals
from correspondence_helpers import preset  # noqa: F401 (fixture)
from test_service_secrecy import Truth, check, walk

WINDOW_PHASES = ("claim", "rob", "ting")
NAMING_KEYS = ("asked", "answered", "pending")


def no_tell(body: Any, viewer: Optional[int], truth: Truth) -> None:
    """No node of `body` names a seat other than `viewer` as asked / pending / answering (G-6, G-7, H-4)."""
    state = truth.state
    in_window = state.phase in WINDOW_PHASES and not truth.over
    asked = set(state.hand.window.allowed) if in_window else set()
    for path, node in walk(body):
        if truth.over:
            return
        _no_answer_event(path, node, viewer)
        if not in_window:
            continue
        for key in NAMING_KEYS:
            if isinstance(node.get(key), list):
                assert set(node[key]) <= {viewer}, (path, key, node[key], viewer)
        if "deadline" in node and "pending_since" in node:
            assert node["seat"] == viewer, (path, node)
        if "ready" in node and node.get("seat") != viewer and state.phase == "ting":
            assert node["ready"] is None, (path, node)
        if isinstance(node.get("phase"), str) and viewer not in asked:
            assert node["phase"] not in WINDOW_PHASES, (path, node["phase"], viewer)
        if isinstance(node.get("kind"), str) and "asked" in node and viewer not in asked:
            assert node["kind"] == WAITING, (path, node)


def _no_answer_event(path: tuple, node: dict, viewer: Optional[int]) -> None:
    """A window answer (responded, a 报听 at the deal) is the answering seat's alone; no kong_declared."""
    kind = node.get("type")
    payload = node.get("payload") if isinstance(node.get("payload"), dict) else None
    if payload is None or "version" not in node:
        return
    assert kind != "kong_declared", (path, node)
    if kind == "responded" or (kind == "ting_declared" and "with_discard" not in payload):
        assert payload.get("seat") == viewer, (path, node)
    assert "decision" not in payload, (path, node)


def sse_items(client, match_id: str, token: Optional[str]) -> list[dict]:
    """The data of every SSE message of one short-lived stream (lifetime set by the fixture)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    resp = client.get(f"/api/matches/{match_id}/stream?after=0", headers=headers)
    text = resp.get_data(as_text=True)
    return [
        json.loads(line[len("data: ") :])
        for line in text.splitlines()
        if line.startswith("data: ") and line[len("data: ") :].startswith('{"version"')
    ]


@pytest.fixture
def tell_app(tmp_path):
    from service.app import create_app

    return create_app(
        {"DATABASE": str(tmp_path / "tilefold.db"), "TESTING": True, "STREAM_LIFETIME": 0.0, "STREAM_HEARTBEAT": 60.0}
    )


@pytest.mark.parametrize("variant,seed", [("koudiandian", 1), ("hanshan", 2), ("hanshan", 5)])
def test_four_random_humans_see_no_tell_in_any_response(tell_app, variant, seed, monkeypatch):
    """Secrecy: every response of every seat, the spectator and the public, in every window."""
    seeded_deals(monkeypatch, f"tells/{variant}/{seed}")  # a hand with two windows or more, every run
    from conftest import MatchClient, flask_transport

    client = tell_app.test_client()
    api = MatchClient(flask_transport(client))
    match_id, _, tokens = api.new_match(variant, {"hands": 1}, humans=4)
    seats = {token: api.view(match_id, token).body["seat"] for token in tokens}
    windows = {"n": 0, "checked": 0}
    rng = random.Random(seed)

    current: dict = {}

    def inspect(viewer: Optional[int], body: Any) -> None:
        truth = current["truth"]  # reads do not change the match (no bots, no deadlines here)
        check(body, viewer, truth)
        no_tell(body, viewer, truth)
        windows["checked"] += 1

    def everything(token, reply):
        if reply.status >= 300 or reply.body is None:
            return
        viewer = seats[token]
        truth = current["truth"] = Truth(tell_app, match_id)
        inspect(viewer, reply.body)
        if truth.state.phase not in WINDOW_PHASES and rng.random() > 0.05:
            return
        windows["n"] += truth.state.phase in WINDOW_PHASES
        for other, seat in seats.items():
            inspect(seat, api.view(match_id, other).body)
            inspect(seat, api.events(match_id, other).body)
            inspect(seat, sse_items(client, match_id, other))
        inspect(None, api.events(match_id).body)
        inspect(None, api.summary(match_id))
        inspect(None, api.call("GET", "/api/matches").body)
        inspect(None, api.call("GET", f"/api/matches/{match_id}/spectate").body)
        inspect(None, api.call("GET", f"/api/matches/{match_id}/spectate/events").body)
        inspect(None, sse_items(client, match_id, None))
        inspect(None, api.call("GET", f"/replay/{match_id}/frames.json").body)

    api.play_randomly(match_id, tokens, rng, on_reply=everything)
    assert windows["n"] >= 2 and windows["checked"] > 50, windows


def test_the_tell_checker_catches_a_named_seat(tell_app):
    """The checker itself: a view naming another asked seat, or another seat's pass, fails it."""
    from conftest import MatchClient, flask_transport

    api = MatchClient(flask_transport(tell_app.test_client()))
    match_id, _, _ = api.new_match("koudiandian", {"hands": 1}, humans=4)
    truth = Truth(tell_app, match_id)
    truth.state.phase = "claim"
    truth.state.hand.window = engine.state.Window("claim", 0, 0, {2: ["pung", "pass"]})
    with pytest.raises(AssertionError):
        no_tell({"window": {"kind": "claim", "asked": [2]}}, 1, truth)
    with pytest.raises(AssertionError):
        no_tell({"pending": [2]}, None, truth)
    with pytest.raises(AssertionError):
        no_tell({"version": 9, "type": "responded", "payload": {"seat": 2, "response": "pass"}}, 1, truth)
    no_tell({"pending": [1], "window": {"kind": WAITING, "asked": []}}, 1, truth)


# ---- the engine's one place of redaction, given / when / then -------------------------------------

HS_HANDS = ["23m5p8899pCCCFFFE", "123m456m789m123s5p", "777m46p111999sEE", "55p234678sSSWWC"]
ROB = ["123456789m99p12s5s", "123p456p789p46sEE", "123m777s888s9s11pF", "55sSSSWWWCCFF7s"]


def undecided(events: list[dict]) -> list[dict]:
    """The events without their decision data (which no seat sees in play)."""
    return [{k: v for k, v in e.items() if k != "decision"} for e in events]


def shown(events: list[dict], viewer) -> list[dict]:
    return [e for e in (engine.redact(event, viewer) for event in events) if e is not None]


def test_H4_a_ready_seat_at_the_deal_is_named_to_nobody_else_until_the_window_closes():
    from engine_helpers import given, play

    state = given("hanshan", HS_HANDS, "7s7s1p", wild="N")  # seats 1 and 2 may declare 报听 (H-4)
    for viewer in (None, 0, 3):
        seen = engine.view(state, viewer)
        assert seen["phase"] == WAITING and seen["pending"] == [] and seen["waiting"] is True
        assert seen["hand"]["window"] == {"kind": WAITING, "tile": None, "source": None, "asked": [], "answered": []}
    own = engine.view(state, 1)
    assert own["phase"] == "ting" and own["pending"] == [1] and own["hand"]["window"]["asked"] == [1]
    state, events = play(state, (1, "ting"))  # seat 2 has not answered yet: the window is open
    assert shown(events, 2) == [] and shown(events, 0) == [] and shown(events, None) == []
    assert shown(events, 1) == undecided(events)
    assert [s["ready"] for s in engine.view(state, 0)["hand"]["seats"]] == [False, None, None, None]
    assert engine.view(state, 2)["hand"]["window"]["answered"] == []
    state, events = play(state, (2, "pass"))  # closed: the table sees the 报听, never the pass
    assert shown(events, 1) == [] and shown(events, 2) == undecided(events)
    assert [s["ready"] for s in engine.view(state, None)["hand"]["seats"]] == [False, True, False, False]


def test_G7_a_robbable_added_kong_looks_to_the_table_like_any_added_kong():
    from engine_helpers import given, play, when

    state = given("hanshan", ROB, "9m2m3m5s1s1s", wild="N")
    state, _ = play(
        state,
        (1, "pass"),
        (0, "discard", "5s"),
        (1, "pass"),
        (3, "pung"),
        (3, "discard", "7s"),
        (2, "pass"),
        (0, "discard", "9m"),
        (1, "discard", "2m"),
        (2, "discard", "3m"),
    )
    state, declared = when(state, 3, "kong", "5s")  # seat 1 may rob it (G-7)
    assert [e["type"] for e in declared] == ["kong_declared"]
    for viewer in (None, 0, 2, 3):  # the konger too: that someone waits on 5s is seat 1's secret
        assert shown(declared, viewer) == []
        assert engine.view(state, viewer)["phase"] == WAITING
    assert engine.view(state, 1)["hand"]["window"]["kind"] == "rob"
    state, passed = when(state, 1, "pass")
    for viewer in (None, 0, 2, 3):  # what a non-robbable added kong shows: konged (added), the kong draw
        seen = [(e["type"], e.get("kind"), e.get("source")) for e in shown(passed, viewer)]
        assert seen[:2] == [("konged", "added", None), ("drew", None, "kong")], seen
    assert engine.redact(declared[0], "all") == declared[0]  # the finished match's record keeps it


def test_decision_data_on_an_event_is_stripped_for_every_viewer_but_all():
    event = {
        "type": "discarded",
        "seat": 0,
        "tile": "5p",
        "face_down": False,
        "auto": False,
        "decision": {"asked": [2], "allowed": {"2": ["pung", "pass"]}},
    }
    for viewer in (None, 0, 1, 2, 3):
        assert "decision" not in engine.redact(event, viewer)
    assert engine.redact(event, "all")["decision"] == {"asked": [2], "allowed": {"2": ["pung", "pass"]}}


def test_G6_decision_notices_go_only_to_the_seats_asked_and_carry_no_other_seat():
    """Webhooks: a claim window's "your turn" notice goes to the asked seat alone (all four hooked)."""
    from engine_helpers import given, play

    from service.infra.deadlines import new_decisions
    from service.infra.notify import notices

    state = given("hanshan", HS_HANDS, "7s7s1p", wild="N")
    before, _ = play(state, (1, "pass"), (2, "pass"))
    events = engine.decide(before, {"seat": 0, "action": "discard", "tile": "5p"})
    after = engine.fold(events, before)
    assert after.phase == "claim" and sorted(after.hand.window.allowed) == [1, 2, 3]
    _, new = new_decisions(before, after, events)
    sent = notices("m", 9, [0, 1, 2, 3], events, after, new, {})
    decisions = [n for n in sent if n["kind"] == "decision"]
    assert sorted(n["seat"] for n in decisions) == [1, 2, 3]  # each to itself; seat 0 hears nothing
    for notice in decisions:
        assert set(notice) == {"notice_id", "kind", "match", "seat", "version", "phase", "actions", "deadline"}


# ---- per-viewer versions: an answer in an open window changes nothing anyone else sees ----
#
# Every version a viewer sees counts only the events it may see (service/model/numbering.py), so while a
# G-6 claim, G-7 rob or H-4 报听 window is open, an asked seat's answer moves no other viewer's
# version, ETag, long-poll, feed or SSE id, and no feed ever has a gap.

PUBLIC = None
LONG_POLL = 1.0  # seconds a long-poll that must not wake is given


class Table:
    """A four-human match over the Flask test client: every viewer's observations (no bots, no
    deadlines, so reads never move the match)."""

    def __init__(self, app, match_id: str, tokens: list[str], owner: Optional[str] = None):
        from conftest import MatchClient, flask_transport

        self.app, self.match_id, self.tokens, self.owner = app, match_id, tokens, owner
        self.api = MatchClient(flask_transport(app.test_client()))

    def token(self, viewer: Optional[int]) -> Optional[str]:
        return None if viewer is None else self.tokens[viewer]

    def version(self, viewer: Optional[int]) -> int:
        if viewer is None:
            return self.api.summary(self.match_id)["version"]
        return self.api.view(self.match_id, self.tokens[viewer]).body["version"]

    def sse(self, viewer: Optional[int]) -> str:
        headers = {"Authorization": f"Bearer {self.tokens[viewer]}"} if viewer is not None else {}
        resp = self.app.test_client().get(f"/api/matches/{self.match_id}/stream?after=0", headers=headers)
        return resp.get_data(as_text=True)

    def observe(self, viewer: Optional[int]) -> dict:
        """Everything `viewer` can see of the match right now, without waiting."""
        api, match_id, token = self.api, self.match_id, self.token(viewer)
        seen: dict = {"events": api.events(match_id, token).body, "sse": self.sse(viewer)}
        consecutive(seen["events"])
        if viewer is None:
            seen["summary"] = api.summary(match_id)
            seen["list"] = [m for m in api.call("GET", "/api/matches").body["matches"] if m["id"] == match_id]
            seen["spectate"] = api.call("GET", f"/api/matches/{match_id}/spectate").body
            seen["spectate_events"] = api.call("GET", f"/api/matches/{match_id}/spectate/events").body
            consecutive(seen["spectate_events"])
            if self.owner:  # the owner's replay of a match in play: the public's frames and numbering
                seen["replay"] = api.call("GET", f"/replay/{match_id}/frames.json?owner={self.owner}").body
                assert seen["replay"]["version"] == seen["summary"]["version"]
            return seen
        view = api.view(match_id, token)
        seen["view"], seen["etag"] = view.body, view.headers["ETag"]
        seen["if_none_match"] = api.view(match_id, token, If_None_Match=view.headers["ETag"]).status
        assert seen["if_none_match"] == 304 and seen["etag"] == f'"v{view.body["version"]}"'
        return seen

    def watch(self, viewer: Optional[int], seconds: float = LONG_POLL):
        """Start a long-poll (seats) or an SSE stream (the public) of `seconds` in a thread; join()
        gives (status or SSE text, seconds taken)."""
        import threading
        import time as clock

        out: dict = {}
        client = self.app.test_client()
        if viewer is not None:
            etag = self.api.view(self.match_id, self.tokens[viewer]).headers["ETag"]
            headers = {"Authorization": f"Bearer {self.tokens[viewer]}", "If-None-Match": etag}
            url = f"/api/matches/{self.match_id}/view?wait={seconds}"
        else:
            headers, url = {}, f"/api/matches/{self.match_id}/stream?after={self.version(None)}"

        def run():
            started = clock.monotonic()
            resp = client.get(url, headers=headers)
            out["result"] = resp.status_code if viewer is not None else resp.get_data(as_text=True)
            out["seconds"] = clock.monotonic() - started

        thread = threading.Thread(target=run)
        thread.start()
        clock.sleep(0.2)  # it is waiting before the caller acts

        def join():
            thread.join(10)
            return out["result"], out["seconds"]

        return join


def consecutive(feed: dict, after: int = 0) -> None:
    """A feed's numbered versions run after+1 .. its version with no gap; unnumbered
    events only once the match is over (what the viewer could not see in play)."""
    numbered = [e["version"] for e in feed["events"] if e["version"] is not None]
    assert numbered == list(range(after + 1, after + 1 + len(numbered))), numbered
    assert not numbered or numbered[-1] == feed["version"], (numbered, feed["version"])
    if feed.get("viewer") != "all":
        assert len(numbered) == len(feed["events"]), feed["events"]


def _table_app(tmp_path, **config):
    from correspondence_helpers import App

    return App(tmp_path, STREAM_LIFETIME=0.0, STREAM_HEARTBEAT=60.0, POLL_INTERVAL=0.02, **config)


@pytest.fixture(params=["sqlite", "postgresql"])
def table_app(request, tmp_path):
    """Both store backends (PostgreSQL: a fresh schema, skipped without a server)."""
    if request.param == "sqlite":
        yield _table_app(tmp_path)
        return
    pg_url = request.getfixturevalue("pg_url")
    made = _table_app(tmp_path, DATABASE=pg_url)
    yield made
    made.svc.repo.store.close()


@pytest.fixture
def sqlite_table_app(tmp_path):
    return _table_app(tmp_path)


def hidden_answer_changes_nothing(table: Table, seat: int, others: tuple, action: str = "pass") -> dict:
    """Given the observations of `others`, when `seat` answers in an open window (hidden from
    them), then every observation is the same, no long-poll wakes early and no SSE message is
    sent; returns the answer."""
    before = {viewer: table.observe(viewer) for viewer in others}
    table.app.config["STREAM_LIFETIME"] = LONG_POLL
    watchers = {viewer: table.watch(viewer) for viewer in others}
    table.app.config["STREAM_LIFETIME"] = 0.0
    version = table.version(seat)
    reply = table.api.act(table.match_id, table.tokens[seat], {"action": action}, version)
    assert reply.status == 200, reply
    assert (reply.body["first_version"], reply.body["version"]) == (version + 1, version + 1)
    assert [e["version"] for e in reply.body["events"]] == [version + 1]  # its own answer, in its numbering
    for viewer, join in watchers.items():
        result, seconds = join()
        if viewer is None:
            assert "data:" not in result and "id:" not in result, result  # no SSE message at all
        else:
            assert result == 304 and seconds >= LONG_POLL * 0.9, (viewer, result, seconds)  # never woken
        assert table.observe(viewer) == before[viewer], viewer
    return reply.body


def test_G6_H4_an_answer_in_an_open_window_moves_no_other_viewers_version(table_app, preset):
    """Given 含山 with seats 1 and 2 asked 报听 at the deal (H-4), then seat 0's 5p asking seats 1,
    2 and 3 (G-6): when seat 1 passes while the others have not answered, then seats 0, 2, 3 and the
    public see nothing change (version, ETag, 304, long-poll, feeds, SSE), seat 2's version from
    before seat 1's pass is still current, and once the window closes only what the table sees
    shows (H-4: `window_closed`; G-6: the next draw), numbered consecutively."""
    preset(HS_HANDS, "7s7s1p", wild="N")
    match_id, owner, tokens = table_app.match("hanshan", deadline=None)
    table = Table(table_app.app, match_id, tokens, owner)
    start = {viewer: table.version(viewer) for viewer in (0, 1, 2, 3, PUBLIC)}
    assert len(set(start.values())) == 1  # nothing hidden from anyone yet

    # H-4: seat 1 passes, seat 2 has not answered
    hidden_answer_changes_nothing(table, 1, (0, 2, 3, PUBLIC))
    watch0 = table.watch(0, seconds=5.0)
    reply = table.api.act(match_id, tokens[2], {"action": "pass"}, start[2])  # stale-looking, but current
    assert reply.status == 200, reply
    status, seconds = watch0()
    assert status == 200 and seconds < 4.0  # the dealer learns at once that it may discard
    for viewer in (0, 3, PUBLIC):  # the window closed: the table sees that, and nothing of the two passes
        feed = table.api.events(match_id, table.token(viewer), after=start[viewer]).body
        assert [(e["version"], e["type"], e["payload"]) for e in feed["events"]] == [
            (start[viewer] + 1, "window_closed", {"window": "ting"})
        ]

    # G-6: the dealer's 5p asks seats 1, 2 and 3; seat 1 passes
    reply = table.api.act(match_id, tokens[0], {"action": "discard", "tile": "5p"}, start[0] + 1)
    assert reply.status == 200, reply
    opened = {viewer: table.version(viewer) for viewer in (0, 1, 2, 3, PUBLIC)}
    hidden_answer_changes_nothing(table, 1, (0, 2, 3, PUBLIC))
    reply = table.api.act(match_id, tokens[2], {"action": "pass"}, opened[2])  # not a 409
    assert reply.status == 200, reply

    # the last answer closes the window: the table sees only what follows it (seat 1 draws)
    watch0 = table.watch(0, seconds=5.0)
    reply = table.api.act(match_id, tokens[3], {"action": "pass"}, opened[3])
    assert reply.status == 200, reply
    status, seconds = watch0()
    assert status == 200 and seconds < 4.0  # a visible event wakes it at once
    for viewer in (0, 2, 3, PUBLIC):
        feed = table.api.events(match_id, table.token(viewer)).body
        consecutive(feed)
        assert feed["version"] == opened[viewer] + (1 if viewer in (0, PUBLIC) else 2)
        new = [(e["type"], e["payload"].get("seat")) for e in feed["events"] if e["version"] > opened[viewer]]
        mine = [("responded", viewer)] if viewer in (2, 3) else []
        assert new == mine + [("drew", 1)], (viewer, new)
    own = table.api.events(match_id, tokens[1]).body
    consecutive(own)
    assert [e["type"] for e in own["events"]].count("responded") == 2  # its own answers, numbered


def test_G7_the_robber_is_woken_by_the_kong_the_others_are_not(table_app, preset):
    """Given seat 3's added kong of 5s that seat 1 may rob (G-7): when seat 3 declares it, then
    seat 1's long-poll wakes (its own numbering counts the declaration), seats 0 and 2 and the
    public see no new version; seat 3's answer names an empty range; after seat 1 passes, the
    kong and its draw show to everyone, numbered consecutively."""
    preset(ROB, "9m2m3m5s1s1s", wild="N")
    match_id, _, tokens = table_app.match("hanshan", deadline=None)
    table = Table(table_app.app, match_id, tokens)
    steps = [
        (1, "pass", None),
        (0, "discard", "5s"),
        (1, "pass", None),
        (3, "pung", None),
        (3, "discard", "7s"),
        (2, "pass", None),
        (0, "discard", "9m"),
        (1, "discard", "2m"),
        (2, "discard", "3m"),
    ]
    for seat, action, tile in steps:
        command = {"action": action} if tile is None else {"action": action, "tile": tile}
        assert table.api.act(match_id, tokens[seat], command).status == 200
    before = {viewer: table.version(viewer) for viewer in (0, 1, 2, 3, PUBLIC)}
    robber, other = table.watch(1, seconds=5.0), table.watch(0)
    reply = table.api.act(match_id, tokens[3], {"action": "kong", "tile": "5s"}, before[3])
    assert reply.status == 200, reply
    assert reply.body["events"] == [] and reply.body["first_version"] == reply.body["version"] + 1 == before[3] + 1
    status, seconds = robber()
    assert status == 200 and seconds < 4.0
    assert table.api.view(match_id, tokens[1]).body["view"]["hand"]["window"]["kind"] == "rob"
    assert other()[0] == 304
    assert {viewer: table.version(viewer) for viewer in (0, 2, 3, PUBLIC)} == {
        viewer: before[viewer] for viewer in (0, 2, 3, PUBLIC)
    }
    assert table.api.act(match_id, tokens[1], {"action": "pass"}).status == 200
    for viewer in (0, 1, 2, 3, PUBLIC):
        feed = table.api.events(match_id, table.token(viewer)).body
        consecutive(feed)
        new = [e["type"] for e in feed["events"] if e["version"] > before[viewer]]
        assert new[-2:] == ["konged", "drew"], (viewer, new)
        assert new[:-2] == (["kong_declared", "responded"] if viewer == 1 else []), (viewer, new)


def _differences(old: Any, new: Any, path: str = ""):
    """Where two JSON documents differ (a failing comparison's message)."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new), key=str):
            yield from _differences(old.get(key), new.get(key), f"{path}/{key}")
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for index, (a, b) in enumerate(zip(old, new)):
            yield from _differences(a, b, f"{path}[{index}]")
    elif old != new:
        yield path, old, new


def _versions_only(seen: dict) -> dict:
    """What a viewer sees of the numbering alone (a robbable kong's window changes the table's
    phase to "waiting" everywhere, which is the documented tell that the table waits)."""
    out = {"events": seen["events"], "sse": seen["sse"]}
    if "etag" in seen:
        out.update(etag=seen["etag"], if_none_match=seen["if_none_match"])
    else:
        out.update(version=seen["summary"]["version"], list=[m["version"] for m in seen["list"]])
        out.update(spectate=seen["spectate"]["version"], spectate_events=seen["spectate_events"])
    return out


DEALS = {"claims": (HS_HANDS, "7s7s1p")}  # a preset deals every hand alike (seat 0 stays dealer: draws)


@pytest.mark.parametrize(
    "variant,deal,hands,seed", [("hanshan", "claims", 8, 4), ("hanshan", "claims", 6, 7), ("koudiandian", None, 2, 3)]
)
def test_four_random_humans_an_answer_in_an_open_window_changes_nothing_for_the_others(
    sqlite_table_app, preset, variant, deal, hands, seed
):
    """Secrecy (G-6, G-7, H-4), four random legal human clients, each round acting on the versions
    read at its start: whenever an action appends only events hidden from a viewer (an answer in a
    window that stays open, a robbable kong's declaration), that viewer's version, ETag, 304,
    feeds and SSE stay the same (window answers: every response body), a long-poll does not wake,
    a version read before another seat's hidden answer is still accepted, and every feed is
    numbered without gaps, in play and once over (resuming with an in-play cursor skips nothing).

    Random deals seldom ask two seats at once, so the 含山 cases deal every hand from a preset
    where they often do (seats 1 and 2 asked 报听 at the deal, the dealer's 5p asking three seats);
    the play on them is random (a robbable kong: test_G7_the_robber_is_woken_by_the_kong...)."""
    if deal is not None:
        preset(*DEALS[deal], wild="N")
    match_id, _, tokens = sqlite_table_app.match(variant, {"hands": hands}, deadline=None)
    table = Table(sqlite_table_app.app, match_id, tokens)
    repo = sqlite_table_app.svc.repo
    rng = random.Random(seed)
    seen = {"hidden": 0, "long_polls": 0, "stale_accepted": 0}
    cursors: dict = {}
    for _ in range(2000):
        views = {seat: table.api.view(match_id, token).body for seat, token in enumerate(tokens)}
        round_start = repo.version(match_id)
        if views[0]["status"] == "over":
            break
        for seat in rng.sample(range(4), 4):
            legal = views[seat]["legal_actions"]
            if not legal:
                continue
            state = Truth(sqlite_table_app.app, match_id).state
            in_window = state.phase in WINDOW_PHASES
            others = [viewer for viewer in (0, 1, 2, 3, PUBLIC) if viewer != seat]
            before = {viewer: table.observe(viewer) for viewer in others} if in_window else {}
            watcher = None
            if in_window and seen["long_polls"] < 3:
                watched = rng.choice([viewer for viewer in others if viewer is not None])
                watcher = (watched, table.watch(watched))
            start = repo.version(match_id)
            reply = table.api.act(match_id, tokens[seat], rng.choice(legal), views[seat]["version"])
            if reply.status == 409:  # only when something this seat may see happened since
                assert reply.body["current_version"] != views[seat]["version"], reply
                assert reply.body["current_version"] == table.version(seat)
            else:
                assert reply.status == 200, reply
                seen["stale_accepted"] += start != round_start  # others acted since this seat read its version
            new = [{"type": e.type, **e.payload} for e in repo.read(match_id, start)]
            for viewer in before:
                if not new or not all(engine.hidden_from(e, viewer) for e in new):
                    continue
                seen["hidden"] += 1
                now = table.observe(viewer)
                if all(e["type"] != "kong_declared" for e in new):
                    assert now == before[viewer], (viewer, new, list(_differences(before[viewer], now)))
                else:
                    assert _versions_only(now) == _versions_only(before[viewer]), (viewer, new)
            if watcher is not None:
                watched, join = watcher
                result, seconds = join()
                if new and all(engine.hidden_from(e, watched) for e in new):
                    assert result == 304 and seconds >= LONG_POLL * 0.9, (watched, result, seconds)
                    seen["long_polls"] += 1
            if not cursors and seen["hidden"] > 3:  # an in-play cursor of each viewer, after hidden events
                cursors = {viewer: table.version(viewer) for viewer in (0, 1, 2, 3, PUBLIC)}
    assert views[0]["status"] == "over"
    if deal is not None:
        assert seen["hidden"] > 10 and seen["long_polls"] >= 1 and seen["stale_accepted"] > 0, seen
    for viewer in (0, 1, 2, 3, PUBLIC):  # once over: every event, numbered as in play, nothing skipped
        full = table.api.events(match_id, table.token(viewer)).body
        consecutive(full)
        assert full["viewer"] == "all" and full["version"] == table.version(viewer)
        assert len(full["events"]) == repo.version(match_id)
        cursor = cursors.get(viewer, 1)
        part = table.api.events(match_id, table.token(viewer), after=cursor).body
        at = next(i for i, e in enumerate(full["events"]) if e["version"] == cursor)
        assert part["events"] == full["events"][at + 1 :], viewer
