"""Fixtures for client tests: a headless app with a settable clock, input helpers, PNG shots."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest

from client.app import App
from client.config import Config
from client.local import EmbeddedServer
from tests.client.board_tools import SavePng
from tests.client.helpers import click, key, pump, type_text

SHOTS = Path("/tmp/boardhall-shots")


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class UI:
    """Drive a headless app like a user, and save what it shows."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.clock = FakeClock()
        self.app = App(Config(path=tmp_path / "config.json"), headless=True, clock=self.clock)

    def shoot(self, name: str) -> pygame.Surface:
        """Render and save ``name``.png (also copied to /tmp/boardhall-shots)."""
        return shoot(self.app, self.tmp_path, name)

    def click(self, pos: tuple[int, int]) -> None:
        """Left click at a logical position."""
        click(self.app, pos)

    def key(self, key_code: int, text: str = "", mod: int = 0) -> None:
        """Press a key."""
        key(self.app, key_code, text, mod)

    def type(self, text: str) -> None:
        """Type text."""
        type_text(self.app, text)

    def message(self, message: dict[str, object]) -> None:
        """Deliver a server message as the network thread would."""
        from client.net import NetEvent

        self.app.dispatch_net(NetEvent("message", data=dict(message)))

    def open_lobby(self) -> Any:
        """Connect as Alice to 192.168.1.20 and receive ``welcome``; returns the lobby scene."""
        from client.demo import demo_welcome
        from client.scenes.connect import ConnectScene
        from client.scenes.lobby import LobbyScene

        self.app.url, self.app.address = "ws://192.168.1.20:8765/", "192.168.1.20"
        self.app.push(ConnectScene(self.app, "192.168.1.20", "Alice"))
        self.message(demo_welcome())
        lobby = self.app.top
        assert isinstance(lobby, LobbyScene), f"no lobby after welcome: {lobby}"
        return lobby

    def open_room(self, snapshot: dict[str, Any]) -> Any:
        """Reach ``snapshot``'s room as a user does (connect, ``welcome``, the room message);
        returns the room scene after one frame."""
        from client.scenes.room import RoomScene

        if not self.app.stack:
            self.open_lobby()
        self.message(snapshot)
        room = self.app.top
        assert isinstance(room, RoomScene), f"no room opened: {room}"
        self.app.step(0.0)
        return room

    def sent(self, kind: str) -> list[dict[str, object]]:
        """Messages of ``kind`` the app has sent."""
        return [m for m in self.app.sent if m.get("type") == kind]


@pytest.fixture
def save_png(tmp_path: Path) -> SavePng:
    """Save a surface as ``name`` (a .png) under tmp_path and copy it to /tmp/boardhall-shots."""

    def save(surface: pygame.Surface, name: str) -> Path:
        path = tmp_path / name
        pygame.image.save(surface, str(path))
        SHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, SHOTS / path.name)
        return path

    return save


@pytest.fixture
def embedded() -> Iterator[EmbeddedServer]:
    """A real server on 127.0.0.1, port 0, on its own thread."""
    server = EmbeddedServer().start()
    yield server
    server.stop()


@pytest.fixture(name="pump_until")
def pump_until_fixture() -> Callable[..., None]:
    """:func:`tests.client.helpers.pump` as a fixture."""
    return pump


@pytest.fixture
def ui(tmp_path: Path) -> UI:
    """A headless app driven like a user."""
    return UI(tmp_path)


def shoot(app: App, tmp_path: Path, name: str) -> pygame.Surface:
    """Render, save ``name``.png under ``tmp_path`` and copy it to /tmp/boardhall-shots."""
    app.step(0.0)
    app.render()
    out = tmp_path / f"{name}.png"
    pygame.image.save(app.surface, str(out))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(out, SHOTS / out.name)
    return app.surface.copy()
