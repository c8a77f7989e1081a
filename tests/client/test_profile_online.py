"""The profile card says under the name whether the player is online ("Online now") or when
they last were ("Last online 3 h ago"), reckoned from the app's wall clock (injected here):
read from a real server while the player is connected and after they leave, drawn at
1280x800 and 640x480; and from a fixed answer of an older server (no such fields) or with
garbage in them, which shows no such line."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pygame
import pytest

from client.app import App
from client.local import EmbeddedServer
from client.profile import ProfileSummary, presence_text
from client.scenes.lobby import LobbyScene
from client.scenes.profile_card import ProfileCard
from tests.client.helpers import FixedAnswer, fixed_http, key, open_app, pump
from tests.client.lobby_tools import a_game, back_to_lobby, top_tab
from tests.client.profile_tools import card_answering, card_of, look
from tests.client.window_tools import on_window, render_at

NOW = 1_795_771_200.0
"""2026-11-27T09:20:00Z."""
MINUTE, HOUR, DAY = 60.0, 3600.0, 86400.0


def _iso(wall: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(wall))


@pytest.mark.parametrize(
    ("online", "last", "said"),
    [
        (True, NOW - 3 * HOUR, "Online now"),
        (True, None, "Online now"),
        (False, NOW - 20, "Last online just now"),
        (False, NOW + 90, "Last online just now"),  # the client's clock behind the server's
        (False, NOW - 1 * MINUTE, "Last online 1 min ago"),
        (False, NOW - 59 * MINUTE - 59, "Last online 59 min ago"),
        (False, NOW - 3 * HOUR - 5 * MINUTE, "Last online 3 h ago"),
        (False, NOW - 23 * HOUR - 59 * MINUTE, "Last online 23 h ago"),
        (False, NOW - 1 * DAY, "Last online 1 day ago"),
        (False, NOW - 29 * DAY, "Last online 29 days ago"),
        (False, NOW - 45 * DAY, "Last online 1 month ago"),
        (False, NOW - 364 * DAY, "Last online 12 months ago"),
        (False, NOW - 365 * DAY, "Last online 1 year ago"),
        (False, NOW - 3 * 365 * DAY, "Last online 3 years ago"),
        (False, None, ""),
    ],
)
def test_presence_in_words(online: bool, last: float | None, said: str) -> None:
    """Says "Online now" while connected; else how long ago, in the largest whole unit; nothing
    when the server recorded no time."""
    stamp = _iso(last) if last is not None else None
    assert presence_text(online, stamp, NOW) == said


@pytest.mark.parametrize(
    ("online", "last"),
    [("yes", None), (1, None), (None, "yesterday"), (None, 5), (False, ["2026-11-27"])],
)
def test_garbage_says_nothing(online: object, last: object) -> None:
    """Only a true ``online`` is online, and only a time as the server writes it is read."""
    assert presence_text(online, last, NOW) == ""


def _presence_lines(app: App, card: ProfileCard, size: tuple[int, int]) -> list[str]:
    """The lines drawn between the name and the totals at ``size``, top to bottom."""
    lines = render_at(app, size, "profile-online-probe")
    card_area = on_window(card.card, size)
    band = [
        (rect.top, value)
        for _, value, rect in lines
        if card_area.contains(rect) and value.startswith(("Online", "Last online"))
    ]
    return [value for _, value in sorted(band)]


def _reread_until(app: App, card: ProfileCard, done: Callable[[ProfileSummary], bool]) -> None:
    """Read the profile again (Ctrl+R) until ``done`` holds for it (the server has seen the
    connection go)."""
    deadline = time.monotonic() + 15
    while True:
        key(app, pygame.K_r, mod=pygame.KMOD_CTRL)
        card_of(app)
        assert card.summary is not None
        if done(card.summary):
            return
        assert time.monotonic() < deadline, card.summary.presence


def test_online_now_then_last_online_from_a_real_server(tmp_path: Path) -> None:
    """Alice opens Bob's card after a game while he is connected: "Online now" under his
    name, above when his games were. Bob goes and Alice's clock is set 3 h 5 min on: Ctrl+R
    says "Last online 3 h ago". Both drawn inside the card at both sizes, one presence line
    each time, between the name and the games' times."""
    server = EmbeddedServer(db=tmp_path / "games.db").start()
    alice = open_app(tmp_path, "Alice", server.url)
    bob = open_app(tmp_path, "Bob", server.url)
    try:
        apps = [alice, bob]
        pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
        a_game(alice, bob, "chess", ["e2e4", "e7e5"], "resign", by=bob)
        back_to_lobby(apps)
        lobby = top_tab(alice)
        lobby.open_profile(bob.player_id or "", "Bob")
        card = card_of(alice)
        assert card.summary is not None and card.summary.presence == "Online now"
        assert card.summary.seen.startswith("Last game ")
        look(alice, card, "profile-online-now", tmp_path)
        for size in ((1280, 800), (640, 480)):
            assert _presence_lines(alice, card, size) == ["Online now"], size

        bob.disconnect()
        alice.wall_clock = lambda: time.time() + 3 * HOUR + 5 * MINUTE
        _reread_until(alice, card, lambda s: s.presence.startswith("Last online"))
        assert card.summary is not None and card.summary.presence == "Last online 3 h ago"
        look(alice, card, "profile-last-online", tmp_path)
        for size in ((1280, 800), (640, 480)):
            lines = render_at(alice, size, "profile-last-online-order")
            area = on_window(card.card, size)
            tops = {value: rect.top for _, value, rect in lines if area.contains(rect)}
            presence = tops["Last online 3 h ago"]
            assert tops["Bob"] < presence < tops[card.summary.seen], (size, tops)
    finally:
        alice.disconnect()
        bob.disconnect()
        server.stop()


def test_an_older_server_or_garbage_shows_no_presence(tmp_path: Path) -> None:
    """A profile without ``online`` and ``last_online`` (an older server), or with garbage in
    them, shows no presence line; the card still draws at both sizes."""
    server = EmbeddedServer(db=tmp_path / "games.db").start()
    alice = open_app(tmp_path, "Alice", server.url)
    try:
        pump(alice, lambda: isinstance(alice.top, LobbyScene))
        lobby = top_tab(alice)
        body = {
            "player": "p-x",
            "name": "Xenia",
            "first_seen": "2026-11-20T10:00:00Z",
            "last_seen": "2026-11-20T10:30:00Z",
            "ratings": [],
            "totals": {},
            "by_game": {},
            "recent": [],
        }
        answer = FixedAnswer(200, json.dumps(body).encode(), "application/json")
        with fixed_http(answer):
            card = card_answering(alice, lobby, answer)
            assert card.summary is not None and card.summary.presence == ""
            look(alice, card, "profile-no-presence", tmp_path)
            assert _presence_lines(alice, card, (640, 480)) == []
            answer.body = json.dumps({**body, "online": "yes", "last_online": 7}).encode()
            key(alice, pygame.K_ESCAPE)
            card = card_answering(alice, lobby, answer)
            assert card.summary is not None and card.summary.presence == ""
    finally:
        alice.disconnect()
        server.stop()
