"""A player's profile card, opened from the lobby's "Top players" (Enter, or a click on a row)
and from "Your games" (I, for the picked game's opponent), read over HTTP from a real server
whose players have played rated games; driven by real input events, drawn at 1280x800 and
640x480, and Esc goes back to the list it was opened from."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

import pygame
import pytest

from client.app import App
from client.local import EmbeddedServer
from client.my_games import game_row
from client.profile import KindRow, PoolRow, totals_text
from client.scenes.lobby import TAB_HINTS, LobbyScene
from client.scenes.profile_card import ProfileCard
from client.ui import theme
from server.glicko2 import Rating
from server.outputs import SaveGame, SaveIdentity, SaveRatings, StorageOp
from server.ratings import NewRating
from server.storage import Storage
from tests.client.helpers import click, key, open_app, pump
from tests.client.test_my_games import a_game, back_to_lobby, games_tab
from tests.client.test_room_polish import on_window, render_at
from tests.client.test_top_players import row_rect, top_tab

BLITZ = {"initial": 300, "increment": 3}


@pytest.fixture
def server(tmp_path: Path) -> Any:
    """A real server on a loopback port with its database in ``tmp_path``."""
    embedded = EmbeddedServer(db=tmp_path / "games.db").start()
    yield embedded
    embedded.stop()


def card_of(app: App) -> ProfileCard:
    """The profile card on top, once its profile has been read."""
    card = app.top
    assert isinstance(card, ProfileCard), card
    pump(app, lambda: not card.loading)
    assert card.summary is not None, card.error
    return card


def look(app: App, card: ProfileCard, name: str, tmp_path: Path,
         sizes: tuple[tuple[int, int], ...] | list[tuple[int, int]] = ((1280, 800), (640, 480)),
         ) -> None:
    """Render the card at ``sizes`` (PNGs kept in ``tmp_path`` and /tmp/polish): every line
    drawn inside the card stays inside it and overlaps no other (but for the Back button's
    label and key, whose boxes the shared button draws a pixel apart or so at 640x480: they
    stay inside the button)."""
    for size in sizes:
        lines = render_at(app, size, name)
        shutil.copy(Path("/tmp/polish") / f"{name}-{size[0]}x{size[1]}.png",
                    tmp_path / f"{name}-{size[0]}x{size[1]}.png")
        area, button = on_window(card.card, size), on_window(card.back.rect, size)
        inside = [(value, rect) for _, value, rect in lines if area.colliderect(rect)]
        assert inside, size
        for value, rect in inside:
            assert area.contains(rect), (size, value, rect, area)
        assert [v for v, r in inside if button.contains(r)] == ["Back", "Esc"], size
        for i, (a_value, a) in enumerate(inside):
            for b_value, b in inside[i + 1:]:
                if not (button.contains(a) and button.contains(b)):
                    assert not a.colliderect(b), (size, a_value, b_value)


def test_profiles_from_top_players_and_your_games(tmp_path: Path,
                                                  server: EmbeddedServer) -> None:
    """Alice beats Bob at rated chess, Bob beats her at rated five in a row, and they abort a
    game. In Top players (chess), Down picks Bob and Enter opens his card: his name, both pools
    with "?" (one rated game each), won 1 lost 1; Esc is back on Top players with Bob still
    picked. A click on Alice's row opens hers, marked "(you)". In Your games, I on the
    picked game opens Bob's card; Esc is back on Your games."""
    alice = open_app(tmp_path, "Alice", server.url)
    bob = open_app(tmp_path, "Bob", server.url)
    apps = [alice, bob]
    pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
    a_game(alice, bob, "chess", ["e2e4", "e7e5"], "resign", by=bob, clock=BLITZ)
    a_game(bob, alice, "hexgomoku", ["0,0", "0,1"], "resign", by=alice, clock=BLITZ)
    a_game(alice, bob, "chess", [], "abort", by=alice)
    back_to_lobby(apps)

    lobby = top_tab(alice)
    assert [(r.name, r.mine) for r in lobby.top_rows] == [("Alice", True), ("Bob", False)]
    assert lobby.top_view.selected == 0  # the user's own row, picked
    key(alice, pygame.K_DOWN)
    assert lobby.top_view.selected == 1
    key(alice, pygame.K_RETURN)
    card = card_of(alice)
    assert card.player == bob.player_id
    summary = card.summary
    assert summary is not None and summary.name == "Bob"
    pools = {p.label: (p.rating, p.games) for p in summary.pools}
    assert set(pools) == {"Chess", "Hexagonal five-in-a-row"}, pools
    assert all(rating.endswith("?") and games == "1 game" for rating, games in pools.values())
    assert int(pools["Chess"][0][:-1]) < 1500 < int(pools["Hexagonal five-in-a-row"][0][:-1])
    assert (summary.totals.games, summary.totals.won, summary.totals.lost,
            summary.totals.drawn, summary.totals.aborted) == (2, 1, 1, 0, 1)
    assert totals_text(summary.totals) == "2 games: won 1 · lost 1 · drawn 0 · 1 aborted"
    assert [(k.label, k.games, k.won, k.lost, k.aborted) for k in summary.kinds] == [
        ("Chess", 1, 0, 1, 1), ("Hexagonal five-in-a-row", 1, 1, 0, 0)]
    assert summary.seen.startswith("Last game ")  # all within a minute: one time said
    look(alice, card, "profile-bob", tmp_path)

    key(alice, pygame.K_ESCAPE)
    assert alice.top is lobby and lobby.tab == "top"
    pump(alice, lambda: not lobby.top_players.loading)
    assert lobby.top_view.selected == 1  # read again, Bob still picked
    for size in ((1280, 800), (640, 480)):  # Bob's row picked, Alice's marked by a bar
        lines = render_at(alice, size, "profile-top-picked")
        hint = next(value for _, value, _ in lines if value.startswith("T: rooms"))
        assert hint == "T: rooms · G: your games · Up/Down · Enter", hint  # not cut
        picture = pygame.image.load(f"/tmp/polish/profile-top-picked-{size[0]}x{size[1]}.png")
        mine, bobs = on_window(row_rect(lobby, 0), size), on_window(row_rect(lobby, 1), size)
        assert picture.get_at((mine.left + 1, mine.centery))[:3] == theme.ACCENT
        assert picture.get_at((mine.right - 4, mine.centery))[:3] != theme.ACCENT_DIM
        assert picture.get_at((bobs.right - 4, bobs.centery))[:3] == theme.ACCENT_DIM

    click(alice, row_rect(lobby, 0).center)
    card = card_of(alice)
    assert card.player == alice.player_id and card.summary is not None
    assert card.summary.name == "Alice"
    lines = render_at(alice, (1280, 800), "profile-alice")
    assert "Alice (you)" in [value for _, value, _ in lines]
    key(alice, pygame.K_ESCAPE)
    assert alice.top is lobby and lobby.tab == "top"

    games = games_tab(alice)
    key(alice, pygame.K_DOWN)
    picked = games.my_rows[games.games_view.selected or 0]
    assert picked.opponent == "Bob" and picked.opponent_id == bob.player_id
    key(alice, pygame.K_i, "i")
    card = card_of(alice)
    assert card.player == bob.player_id
    key(alice, pygame.K_ESCAPE)
    assert alice.top is games and games.tab == "games"
    for size in ((1280, 800), (640, 480)):  # the lists' buttons, their labels whole
        for tab, buttons in (("games", [games.open_game, games.opponent_profile,
                                        games.refresh_games]),
                             ("top", [games.top_profile, games.refresh_top])):
            games.show_tab(tab)
            lines = render_at(alice, size, f"profile-lobby-{tab}")
            shutil.copy(Path("/tmp/polish") / f"profile-lobby-{tab}-{size[0]}x{size[1]}.png",
                        tmp_path / f"profile-lobby-{tab}-{size[0]}x{size[1]}.png")
            hint = next(value for _, value, _ in lines if value.startswith(("G: ", "T: ")))
            assert hint == TAB_HINTS[tab], (size, hint)  # the keys hint is not cut
            for button in buttons:
                area = on_window(button.rect, size)
                labels = [value for _, value, rect in lines if area.contains(rect)]
                assert button.label in labels and button.hint in labels, (size, labels)
    for app in apps:
        app.disconnect()


POOLS = ["chess", "draughts/international", "draughts/brazilian", "draughts/russian", "shuqi",
         "hexgomoku", "custom/xiangqi", "custom/stones", "custom/guards"]
LONG = "WOLFGANG-MAXIMILIAN VON HOHENZOLLERN"[:32]


def _seed_long_career(db: Path) -> None:
    """A player of a long name with a rating in every pool (the chess one established, the
    others provisional) and finished games of every game, stored as the server stores them."""
    storage = Storage(db)
    ops: list[StorageOp] = [SaveIdentity("p-long", "hash-long", LONG),
                            SaveIdentity("p-other", "hash-other", "Other")]
    for n, pool in enumerate(POOLS):
        rd = 60.0 if n == 0 else 150.0
        rating = Rating(2000 - 25 * n, rd, 0.06, 40 - n, updated=time.time())
        ops.append(SaveRatings(f"r{n}", pool, (NewRating("p-long", Rating(), rating),)))
    for n, game in enumerate(["chess", "draughts", "shuqi", "hexgomoku", "custom"] * 3):
        result = ["first", "second", "draw"][n % 3]
        seats = {"first": {"player": "p-long", "name": LONG, "bot": False},
                 "second": {"player": "p-other", "name": "Other", "bot": False}}
        ops.append(SaveGame({"id": f"g{n}", "room": f"R{n}", "game": game, "status": "over",
                             "private": n == 4, "seats": seats, "result": result,
                             "created": f"2025-03-{n + 1:02d}T18:05:09Z",
                             "ended": f"2026-11-{n + 1:02d}T18:30:00Z"}))
    storage.apply(ops)
    storage.close()


@pytest.mark.parametrize("size", [(1280, 800), (640, 480)])
def test_a_long_profile_scrolls_and_reads_at_both_sizes(tmp_path: Path,
                                                        size: tuple[int, int]) -> None:
    """A player of a long name with nine pools and fifteen games of five kinds: the card
    shows five pools and scrolls the rest with Down and PgDn (never past the end), every game's
    totals, and every line inside the card without overlap at 1280x800 and 640x480."""
    db = tmp_path / "games.db"
    _seed_long_career(db)
    embedded = EmbeddedServer(db=db).start()
    alice = open_app(tmp_path, "Alice", embedded.url)
    try:
        pump(alice, lambda: isinstance(alice.top, LobbyScene))
        lobby = top_tab(alice)
        assert [r.name for r in lobby.top_rows] == [LONG]
        key(alice, pygame.K_DOWN)
        key(alice, pygame.K_KP_ENTER)
        card = card_of(alice)
        summary = card.summary
        assert summary is not None and summary.name == LONG
        assert [p.rating for p in summary.pools][:2] == ["2000", "1975?"]
        assert summary.pools[0] == PoolRow("Chess", "2000", "40 games")
        assert len(summary.pools) == 9 and len(summary.kinds) == 5
        assert totals_text(summary.totals) == "15 games: won 5 · lost 5 · drawn 5"
        assert all((k.games, k.won, k.lost, k.drawn) == (3, 1, 1, 1) for k in summary.kinds)
        view = card.pools
        assert view.visible_rows() == 5 and view.scroll == 0
        look(alice, card, "profile-long", tmp_path, [size])
        key(alice, pygame.K_DOWN)
        assert view.scroll == 1
        key(alice, pygame.K_PAGEDOWN)
        assert view.scroll == 4  # the last five
        key(alice, pygame.K_PAGEUP)
        key(alice, pygame.K_UP)
        assert view.scroll == 0
        key(alice, pygame.K_ESCAPE)
        assert alice.top is lobby
    finally:
        alice.disconnect()
        embedded.stop()


def test_opponents_without_a_profile() -> None:
    """The server's computer player (the game's ``bot_seat``) and an empty seat have no
    profile to open; a person has their id."""
    seats = {"first": {"player": "p-me", "name": "Me"},
             "second": {"player": "p-bot", "name": "Computer L3", "bot": True}}
    entry = {"id": "g1", "game": "chess", "status": "over", "result": "first",
             "seats": seats, "bot_seat": "second"}
    assert game_row(entry, "p-me", [], None).opponent_id is None
    assert game_row({**entry, "bot_seat": None}, "p-me", [], None).opponent_id == "p-bot"
    waiting = {**entry, "status": "waiting", "seats": {"first": seats["first"],
                                                       "second": None}}
    assert game_row(waiting, "p-me", [], None).opponent_id is None
    assert totals_text(KindRow("All", 1, 1, 0, 0, 0)) == "1 game: won 1 · lost 0 · drawn 0"


def test_a_profile_that_cannot_be_read_says_why(tmp_path: Path, server: EmbeddedServer) -> None:
    """A player the server does not know (its 404 names the id) is said in the card, the
    reason before the address asked; Ctrl+R asks again; Backspace goes back too; the card
    goes with the lobby it was opened over."""
    alice = open_app(tmp_path, "Alice", server.url)
    try:
        pump(alice, lambda: isinstance(alice.top, LobbyScene))
        lobby = top_tab(alice)
        lobby.open_profile("p-nobody", "Ghost")
        card = alice.top
        assert isinstance(card, ProfileCard)
        pump(alice, lambda: not card.loading)
        assert card.summary is None
        assert card.error.startswith("no player 'p-nobody' (HTTP 404), asking "), card.error
        look(alice, card, "profile-missing", tmp_path)
        key(alice, pygame.K_r, mod=pygame.KMOD_CTRL)
        assert card.loading
        pump(alice, lambda: not card.loading)
        assert "p-nobody" in card.error
        key(alice, pygame.K_BACKSPACE)
        assert alice.top is lobby
        lobby.open_profile("p-nobody", "Ghost")
        again = alice.top
        assert isinstance(again, ProfileCard)
        alice.pop(lobby)  # as a connection given up takes the lobby away
        alice.step(0.0)
        assert again not in alice.stack
    finally:
        alice.disconnect()
