"""The lobby's "Top players": the leaderboard of the selected game and variant, read over HTTP
from a real server whose players have rated games (played here, or stored beforehand in its
SQLite file), driven by real input events and drawn at 1280x800 and 640x480."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pygame
import pytest

from client.app import App
from client.local import EmbeddedServer
from client.scenes.lobby import TAB_X, LobbyScene
from client.top_players import player_rows
from client.ui import theme
from server.glicko2 import Rating
from tests.client.helpers import FixedAnswer, click, fixed_http, key, open_app, pump
from tests.client.lobby_tools import a_game, back_to_lobby, lobby_of, row_rect, top_tab
from tests.client.window_tools import on_window, render_at
from tests.server.storage_tools import seed_ratings

BLITZ = {"initial": 300, "increment": 3}


def shown_rows(lobby: LobbyScene) -> list[tuple[int, str, str, bool]]:
    """(rank, name, rating, mine) of each row the list shows."""
    return [(r.rank, r.name, r.rating, r.mine) for r in lobby.top_rows]


def pick_game(app: App, game: str) -> None:
    """Click ``game``'s card in the lobby's games column."""
    lobby = lobby_of(app)
    index = [g.get("game") for g in app.games].index(game)
    click(app, lobby.game_rows()[index].center)


@pytest.fixture
def server(tmp_path: Path) -> Any:
    """A real server on a loopback port with its database in ``tmp_path``."""
    embedded = EmbeddedServer(db=tmp_path / "games.db").start()
    yield embedded
    embedded.stop()


def test_top_players_after_rated_games(tmp_path: Path, server: EmbeddedServer) -> None:
    """Alice beats Bob at rated chess: T shows both, Alice first with her own row marked, each
    rating as the room showed it with "?" (one game: provisional). Picking draughts reads
    that pool (empty, said so); back on chess, a second rated game shows after Ctrl+R."""
    alice = open_app(tmp_path, "Alice", server.url)
    bob = open_app(tmp_path, "Bob", server.url)
    apps = [alice, bob]
    pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
    a_game(alice, bob, "chess", ["e2e4", "e7e5"], "resign", by=bob, clock=BLITZ)
    back_to_lobby(apps)
    lobby = top_tab(alice)
    rows = shown_rows(lobby)
    assert [(rank, name, mine) for rank, name, _, mine in rows] == [
        (1, "Alice", True),
        (2, "Bob", False),
    ]
    assert all(rating.endswith("?") and int(rating[:-1]) for _, _, rating, _ in rows), rows
    assert int(rows[0][2][:-1]) > 1500 > int(rows[1][2][:-1])
    assert lobby.top_players.pool == ("chess", "standard")
    for size in ((1280, 800), (640, 480)):
        lines = render_at(alice, size, "top-players-mine")
        area = on_window(lobby.top_view.rect, size)
        listed = [value for _, value, rect in lines if area.contains(rect)]
        assert "Alice (you)" in listed and "Bob" in listed, listed
        picture = pygame.image.load(f"/tmp/polish/top-players-mine-{size[0]}x{size[1]}.png")
        row = on_window(row_rect(lobby, 0), size)
        assert picture.get_at((row.right - 4, row.centery))[:3] == theme.ACCENT_DIM  # marked
        other = on_window(row_rect(lobby, 1), size)
        assert picture.get_at((other.right - 4, other.centery))[:3] != theme.ACCENT_DIM

    pick_game(alice, "draughts")
    pump(alice, lambda: lobby.top_players.pool == ("draughts", "international")
         and lobby.top_players.loaded and not lobby.top_players.loading)
    assert lobby.top_rows == []
    assert "International draughts" in lobby.top_view.empty_text

    pick_game(alice, "chess")
    pump(alice, lambda: lobby.top_players.pool == ("chess", "standard")
         and not lobby.top_players.loading and len(lobby.top_rows) == 2)
    before = shown_rows(lobby)
    a_game(bob, alice, "chess", ["e2e4", "e7e5"], "resign", by=alice, clock=BLITZ)
    back_to_lobby(apps)
    assert lobby.tab == "top"
    key(alice, pygame.K_r, mod=pygame.KMOD_CTRL)
    assert lobby.tab == "top" and lobby.top_players.loading
    pump(alice, lambda: not lobby.top_players.loading)
    after = shown_rows(lobby)
    assert after != before and {name for _, name, _, _ in after} == {"Alice", "Bob"}
    for app in apps:
        app.disconnect()


def test_keys_and_tabs_switch_between_the_three_lists(tmp_path: Path,
                                                      server: EmbeddedServer) -> None:
    """T shows the top players and again the rooms; G goes from them to your games; a click
    on each title shows its list."""
    alice = open_app(tmp_path, "Alice", server.url)
    pump(alice, lambda: isinstance(alice.top, LobbyScene))
    lobby = lobby_of(alice)
    key(alice, pygame.K_t, "t")
    assert lobby.tab == "top"
    key(alice, pygame.K_t, "t")
    assert lobby.tab == "rooms"
    key(alice, pygame.K_t, "t")
    key(alice, pygame.K_g, "g")
    assert lobby.tab == "games"
    key(alice, pygame.K_t, "t")
    assert lobby.tab == "top"
    for tab in ("rooms", "games", "top"):
        click(alice, (TAB_X[tab] + 4, 88))
        assert lobby.tab == tab
    lobby.code.focused = True  # typing a room code: T is a letter
    key(alice, pygame.K_t, "t")
    assert lobby.tab == "top" and lobby.code.value == "t"
    alice.disconnect()


def _many(db: Path, count: int) -> None:
    """``count`` established chess players stored with ratings 2400, 2390, ... and a
    provisional one rated above them all."""
    players = {
        f"p{n:02d}": (f"Player {n + 1}", "chess", Rating(2400 - 10 * n, 60, 0.06, 20 + n))
        for n in range(count)
    }
    players["p-new"] = ("Newcomer", "chess", Rating(2600, 250, 0.06, 2))
    seed_ratings(db, players)


@pytest.mark.parametrize("size", [(1280, 800), (640, 480)])
def test_a_long_board_scrolls_and_reads_at_both_sizes(tmp_path: Path,
                                                      size: tuple[int, int]) -> None:
    """40 stored players and a provisional newcomer: the established ones first, the newcomer
    last with "?"; Down/Up move the pick a row, PgDn/PgUp a page, never past the ends, and the
    list scrolls to keep it in view; every line of the list stays inside it without
    overlapping, at 1280x800 and 640x480."""
    db = tmp_path / "games.db"
    _many(db, 40)
    embedded = EmbeddedServer(db=db).start()
    alice = open_app(tmp_path, "Alice", embedded.url)
    try:
        pump(alice, lambda: isinstance(alice.top, LobbyScene))
        lobby = top_tab(alice)
        rows = shown_rows(lobby)
        assert len(rows) == 41
        assert rows[0] == (1, "Player 1", "2400", False)
        assert rows[-1] == (41, "Newcomer", "2600?", False)
        view = lobby.top_view
        page = view.visible_rows()
        assert 5 < page < 41
        assert view.selected is None  # Alice is not listed: nothing picked yet
        key(alice, pygame.K_DOWN)
        assert (view.selected, view.scroll) == (0, 0)
        key(alice, pygame.K_DOWN)
        assert (view.selected, view.scroll) == (1, 0)
        key(alice, pygame.K_UP)
        key(alice, pygame.K_UP)
        assert (view.selected, view.scroll) == (0, 0)
        key(alice, pygame.K_PAGEDOWN)
        assert (view.selected, view.scroll) == (page, 1)  # the pick in view, at the foot
        for _ in range(5):
            key(alice, pygame.K_PAGEDOWN)
        assert (view.selected, view.scroll) == (40, 41 - page)
        key(alice, pygame.K_PAGEUP)
        assert (view.selected, view.scroll) == (40 - page, 40 - page)
        assert lobby.game_index == 0  # Up/Down moved in the list, not in the games
        view.scroll, view.selected = 0, None
        lines = render_at(alice, size, "top-players")
        shutil.copy(Path("/tmp/polish") / f"top-players-{size[0]}x{size[1]}.png",
                    tmp_path / f"top-players-{size[0]}x{size[1]}.png")
        area = on_window(view.rect, size)
        inside = [(value, rect) for _, value, rect in lines if area.contains(rect)]
        values = [value for value, _ in inside]
        assert "Player 1" in values and "2400" in values, values
        for i, (a_value, a) in enumerate(inside):
            for b_value, b in inside[i + 1:]:
                assert not a.colliderect(b), (a_value, b_value)
        titles = [rect for _, value, rect in lines if value in ("Rooms", "Your games",
                                                               "Top players")]
        assert len(titles) == 3
        for i, a in enumerate(titles):
            assert all(not a.colliderect(b) for b in titles[i + 1:])
        right = on_window(pygame.Rect(836, 62, 420, 700), size)
        for tab in ("top", "rooms", "games"):
            click(alice, (TAB_X[tab] + 4, 88))
            lines = render_at(alice, size, f"top-players-tab-{tab}")
            hint = next(rect for _, value, rect in lines if value.startswith("T: ")
                        or value.startswith("G: "))
            assert right.contains(hint), hint
            for _, value, rect in lines:  # no line of the right column runs over another
                if right.colliderect(rect) and not area.contains(rect):
                    others = [v for _, v, r in lines if r is not rect and r.colliderect(rect)]
                    assert not others, (tab, value, others)
    finally:
        alice.disconnect()
        embedded.stop()


def test_rows_in_words() -> None:
    """Each entry of ``/ratings`` as a row: rank, name, rating with "?" when provisional, games,
    and whether it is the user's own; entries that are not one are left out."""
    entries: list[Any] = [
        {"rank": 1, "player": "p1", "name": "Wei", "rating": 1702, "rd": 60, "games": 31,
         "provisional": False},
        {"rank": 2, "player": "p-me", "name": "Me", "rating": 1650, "rd": 200, "games": 1,
         "provisional": True},
        "garbage",
        {"rank": "x", "player": "p3"},
    ]
    rows = player_rows(entries, "p-me")
    assert [(r.rank, r.name, r.rating, r.games, r.mine) for r in rows] == [
        (1, "Wei", "1702", "31 games", False),
        (2, "Me", "1650?", "1 game", True),
    ]
    assert theme.LOGICAL_SIZE == (1280, 800)


def test_a_server_without_a_leaderboard_is_said(tmp_path: Path) -> None:
    """A server from before ``/ratings`` answers 404 "nothing at '/ratings'": the list says
    so (with the address asked) instead of waiting or showing an empty board."""
    import json

    from client.top_players import TopPlayers

    older = FixedAnswer(404, json.dumps({"error": "nothing at '/ratings'"}).encode(),
                        "application/json")
    with fixed_http(older):
        top = TopPlayers()
        top.refresh(f"ws://127.0.0.1:{older.port}/", ("custom", "xiangqi"), None)
        assert top.fetch is not None and top.fetch.wait(10), "no answer"
        assert top.poll()
        assert not top.loaded and not top.loading and top.rows("p1") == []
        assert "nothing at '/ratings'" in top.error and "HTTP 404" in top.error, top.error
        assert older.asked == ["/ratings?game=custom&variant=xiangqi&limit=100"]
