"""A quick-game search across a dropped connection: the server forgets a search with the
connection, so the lobby asks again once it is back, instead of still saying "Looking for an
opponent" while nobody looks."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from client.app import App
from client.local import EmbeddedServer
from client.scenes.lobby import LobbyScene
from client.scenes.room import RoomScene
from tests.client.helpers import open_app, pump, room_of
from tests.client.test_network_audit import server_aborts


@contextlib.contextmanager
def alice_searching(
    tmp_path: Path, embedded: EmbeddedServer
) -> Iterator[tuple[App, LobbyScene, App, LobbyScene]]:
    """Alice searching for a chess game at 20 s a move (the server has it), Bob in his lobby:
    (Alice, her lobby, Bob, his lobby); both disconnect at the end."""
    alice = open_app(tmp_path, "Alice", embedded.url)
    bob = open_app(tmp_path, "Bob", embedded.url)
    apps = [alice, bob]
    try:
        pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
        lobby, other = alice.top, bob.top
        assert isinstance(lobby, LobbyScene) and isinstance(other, LobbyScene)
        lobby.act("seek:0")
        pump(apps, lambda: lobby.queued is not None)
        yield alice, lobby, bob, other
    finally:
        for app in apps:
            app.disconnect()


def test_a_search_cut_by_a_drop_is_asked_again_and_finds_a_game(
    tmp_path: Path, embedded: EmbeddedServer
) -> None:
    """Alice looks for a chess game at 20 s a move; the server resets her connection. Once
    back, her lobby searches again by itself (the server confirms it) and says so; Bob's search
    for the same game then seats them at one table."""
    with alice_searching(tmp_path, embedded) as (alice, lobby, bob, other):
        apps = [alice, bob]
        server_aborts(embedded, alice)
        pump(apps, lambda: alice.net_status == "reconnecting")
        assert lobby.queued is None and "once it is back" in lobby.status
        pump(apps, lambda: alice.net_status == "online" and lobby.queued is not None)
        assert "again" in lobby.status, lobby.status
        searching = [m for m in alice.sent if m.get("type") == "join" and m.get("game")]
        assert len(searching) == 2 and searching[0]["clock"] == searching[1]["clock"]
        other.act("seek:0")
        pump(apps, lambda: _seated(alice) and _seated(bob))
        assert room_of(alice).model.room == room_of(bob).model.room
        assert {room_of(alice).model.you, room_of(bob).model.you} == {"first", "second"}


def test_a_search_that_found_a_game_while_the_link_was_down_is_not_asked_again(
    tmp_path: Path, embedded: EmbeddedServer
) -> None:
    """The match was made but its room message was lost with the connection: the welcome
    names the room as resumed, so the lobby opens it and does not search again (a second game
    would start)."""
    with alice_searching(tmp_path, embedded) as (alice, _, bob, other):
        apps = [alice, bob]
        assert alice.connection is not None
        other.act("seek:0")
        pump([bob], lambda: _seated(bob))
        while alice.connection.inbox.get(timeout=10).data.get("type") != "room":
            pass  # Alice's copy of the match is lost with the connection
        server_aborts(embedded, alice)
        pump(apps, lambda: alice.net_status == "online" and _seated(alice))
        assert room_of(alice).model.room == room_of(bob).model.room
        searching = [m for m in alice.sent if m.get("type") == "join" and m.get("game")]
        assert len(searching) == 1, searching


def _seated(app: App) -> bool:
    """Whether ``app`` has a room open with a seat of its own."""
    return any(s.model.you in ("first", "second") for s in app.find(RoomScene))
