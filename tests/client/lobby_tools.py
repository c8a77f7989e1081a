"""The lobby as the client tests drive it: finding it, going back to it, playing a game between
two apps from it, and its "Your games" and "Top players" tabs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pygame

from client.app import App
from client.scenes.lobby import LobbyScene
from client.scenes.room import RoomScene
from tests.client.helpers import key, pump, room_of


def lobby_of(app: App) -> LobbyScene:
    """The app's lobby (wherever it is on the stack)."""
    found = app.find(LobbyScene)
    assert found, "no lobby"
    return found[0]


def back_to_lobby(apps: list[App]) -> None:
    """Close every scene above each app's lobby (as Esc does) and let the lobbies settle."""
    for app in apps:
        while not isinstance(app.top, LobbyScene):
            top = app.top
            if isinstance(top, RoomScene):
                top.close()
            else:
                app.pop()
    pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))


def a_game(
    first: App,
    second: App,
    game: str,
    moves: list[str],
    end: str | None,
    by: App | None = None,
    private: bool = False,
    clock: dict[str, int] | None = None,
) -> str:
    """``first`` opens a ``game`` room (with ``clock``: a rated one), ``second`` joins it, they
    play ``moves`` and ``by`` sends ``end`` (``resign``/``abort``; none: the game goes on).
    Returns the game id."""
    apps = [first, second]
    back_to_lobby(apps)
    create: dict[str, Any] = {"type": "create", "game": game, "color": "first", "private": private}
    first.send({**create, "clock": clock} if clock else create)
    pump(apps, lambda: bool(first.find(RoomScene)))
    code = room_of(first).model.room
    second.send({"type": "join", "room": code})
    pump(
        apps,
        lambda: (
            bool(second.find(RoomScene)) and room_of(first).model.seats.get("second") is not None
        ),
    )
    for ply, move in enumerate(moves):
        mover = first if ply % 2 == 0 else second
        mover.send({"type": "move", "room": code, "ply": ply, "move": move})
        pump(
            apps,
            lambda n=ply + 1: all(  # type: ignore[misc]
                len(room_of(a).model.moves) == n for a in apps
            ),
        )
    if end is not None:
        assert by is not None
        by.send({"type": end, "room": code})
        pump(apps, lambda: all(room_of(a).model.status == "over" for a in apps))
    return room_of(first).model.game_id


def _tab(
    app: App, tab: str, code: int, letter: str, listing: Callable[[LobbyScene], Any]
) -> LobbyScene:
    """Show the lobby's ``tab`` with its key (``code``, typing ``letter``) and wait until
    ``listing`` (of the lobby) has loaded."""
    lobby = lobby_of(app)
    assert isinstance(app.top, LobbyScene)
    if lobby.tab != tab:
        key(app, code, letter)
    assert lobby.tab == tab
    pump(app, lambda: listing(lobby).loaded and not listing(lobby).loading)
    return lobby


def games_tab(app: App) -> LobbyScene:
    """Show "Your games" with its key (G) and wait until the list and every record are in."""
    return _tab(app, "games", pygame.K_g, "g", lambda lobby: lobby.my_games)


def top_tab(app: App) -> LobbyScene:
    """Show "Top players" with its key (T) and wait until the list is in."""
    return _tab(app, "top", pygame.K_t, "t", lambda lobby: lobby.top_players)


def row_rect(lobby: LobbyScene, index: int) -> pygame.Rect:
    """Where the list draws row ``index`` (not scrolled), below its header."""
    view = lobby.top_view
    top = view.rect.top + view.row_height * (1 + index)
    return pygame.Rect(view.rect.left + 1, top, view.rect.width - 2, view.row_height)
