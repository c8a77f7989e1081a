"""The room's chat comes back with the room: after a dropped connection, a restarted client or a
restarted server, each line the server kept shows once, in order (real clients, real server)."""

from __future__ import annotations

from pathlib import Path

import pygame

from client.app import App
from client.config import Config
from client.local import EmbeddedServer
from client.scenes.connect import ConnectScene
from client.scenes.room import RoomScene
from tests.client.helpers import (
    back_on_the_same_port,
    first_move_at_a_table,
    key,
    open_app,
    pump,
    room_of,
    two_players_on_a_server,
)


def say(app: App, text: str) -> None:
    """Type ``text`` in the room's chat and send it, as a user does."""
    key(app, pygame.K_RETURN)
    key(app, pygame.K_a, text)
    key(app, pygame.K_RETURN)


def chat_of(app: App) -> list[str]:
    """The chat lines the open room shows."""
    return [line.text for line in room_of(app).model.chat]


def greet(alice: App, bob: App) -> None:
    """Alice and Bob say hello at their table; both see both lines."""
    apps = [alice, bob]
    say(alice, "hi Bob")
    pump(apps, lambda: chat_of(bob) == ["hi Bob"])
    say(bob, "hi Alice")
    pump(apps, lambda: chat_of(alice) == ["hi Bob", "hi Alice"])


def test_a_dropped_connection_comes_back_to_each_line_once(
    tmp_path: Path, embedded: EmbeddedServer
) -> None:
    """Alice's connection drops: back, she is sent the room's lines again (after the snapshot her
    hello resumes and after the one replying to her join) and shows each once."""
    alice = open_app(tmp_path, "Alice", embedded.url)
    bob = open_app(tmp_path, "Bob", embedded.url)
    apps = [alice, bob]
    first_move_at_a_table(alice, bob)
    greet(alice, bob)

    assert alice.connection is not None
    alice.connection.drop()
    pump(apps, lambda: alice.net_status != "online")
    pump(apps, lambda: alice.net_status == "online", timeout=15)
    pump(apps, lambda: (room_of(bob).model.seats["first"] or {}).get("connected") is True)
    say(alice, "I am back")  # sent after the join the reconnect sent: its answer comes first
    pump(apps, lambda: "I am back" in chat_of(alice) and "I am back" in chat_of(bob))
    assert chat_of(alice) == ["hi Bob", "hi Alice", "I am back"]
    assert chat_of(bob) == ["hi Bob", "hi Alice", "I am back"]
    for app in apps:
        app.disconnect()


def test_a_restarted_client_shows_the_rooms_chat(
    tmp_path: Path, embedded: EmbeddedServer
) -> None:
    """A new client run with the same config file resumes its seat with the room's chat."""
    alice = open_app(tmp_path, "Alice", embedded.url)
    bob = open_app(tmp_path, "Bob", embedded.url)
    first_move_at_a_table(alice, bob)
    greet(alice, bob)
    alice.disconnect()

    again = App(Config.load(tmp_path / "Alice.json"), headless=True)
    scene = ConnectScene(again, embedded.url, "Alice")
    again.push(scene)
    scene.submit()
    apps = [again, bob]
    pump(apps, lambda: bool(again.find(RoomScene)), timeout=15)
    say(again, "new window")
    pump(apps, lambda: "new window" in chat_of(again) and "new window" in chat_of(bob))
    assert chat_of(again) == ["hi Bob", "hi Alice", "new window"]
    for app in apps:
        app.disconnect()


def test_the_chat_rides_out_a_server_restart_once(tmp_path: Path) -> None:
    """The server restarts on the same database: both clients come back to the lines said
    before, each once, and go on chatting."""
    db = tmp_path / "games.sqlite"
    with two_players_on_a_server(tmp_path, db) as (first, alice, bob):
        apps = [alice, bob]
        first_move_at_a_table(alice, bob)
        greet(alice, bob)

        with back_on_the_same_port(first, db, apps):
            say(alice, "still here")
            pump(apps, lambda: "still here" in chat_of(bob))
            say(bob, "me too")
            pump(apps, lambda: all("me too" in chat_of(app) for app in apps))
            for app in apps:
                assert chat_of(app) == ["hi Bob", "hi Alice", "still here", "me too"]
