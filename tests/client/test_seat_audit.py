"""Watching first, then playing: a spectator takes the free seat from the room, against a real
server, through the room's own key."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pygame

from client.local import EmbeddedServer
from client.scenes.lobby import LobbyScene
from client.scenes.room import RoomScene
from tests.client.helpers import open_app


def test_spectator_takes_the_free_seat(
    tmp_path: Path, embedded: EmbeddedServer, pump_until: Callable[..., None]
) -> None:
    """Ann opens a room; Ben watches it by code, presses J, and the game starts with him."""
    ann, ben = open_app(tmp_path, "Ann", embedded.url), open_app(tmp_path, "Ben", embedded.url)
    apps = [ann, ben]
    try:
        pump_until(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
        ann.send({"type": "create", "game": "hexgomoku", "color": "first"})
        pump_until(apps, lambda: bool(ann.find(RoomScene)))
        code = ann.find(RoomScene)[-1].model.room
        lobby = ben.top
        assert isinstance(lobby, LobbyScene)
        lobby.code.value = code
        lobby.act("watch_code")
        pump_until(apps, lambda: bool(ben.find(RoomScene)))
        room = ben.find(RoomScene)[-1]
        assert room.model.you is None and room.model.status == "waiting"
        ben.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_j, mod=0, unicode="j"))
        pump_until(
            apps,
            lambda: (
                room.model.you == "second" and ann.find(RoomScene)[-1].model.status == "playing"
            ),
        )
        assert room.model.status == "playing"
        assert "sit" not in {b.action for b in room.buttons()}
        assert {"resign", "draw"} <= {b.action for b in room.buttons()}
    finally:
        for app in apps:
            app.disconnect()
