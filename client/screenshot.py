"""Render a scene offscreen to a PNG: ``boardhall screenshot --game chess --out board.png``."""

from __future__ import annotations

import os
from pathlib import Path

import pygame

from client import demo
from client.app import App
from client.config import Config
from client.ui import theme


def make_app() -> App:
    """A headless app with an in-memory config (nothing is written)."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    return App(Config(persist=False), headless=True, clock=lambda: 0.0)


def build_scene(app: App, scene: str, game: str, variant: str | None, position: str | None,
                plies: int) -> None:
    """Put ``scene`` with demo data on ``app``'s stack."""
    from client.scenes.connect import ConnectScene
    from client.scenes.lobby import LobbyScene

    app.url, app.address = "ws://192.168.1.20:8765/", "192.168.1.20"
    if scene == "connect":
        app.push(ConnectScene(app, "192.168.1.20", "Alice", demo.demo_finder()))
        return
    app.welcome = demo.demo_welcome()
    app.net_status = "online"
    app.push(LobbyScene(app))
    app._on_message(demo.demo_rooms())
    if scene == "lobby":
        return
    app._on_message(demo.demo_room(game, variant, position, plies))
    for line in demo.demo_chat():
        app._on_message(line)


def save(app: App, out: Path, size: tuple[int, int] = theme.LOGICAL_SIZE) -> None:
    """Render ``app`` as a window of ``size`` would show it and write the PNG."""
    app.step(0.0)
    previous = app.window
    app.window = pygame.Surface(size)
    try:
        app.render()
        image = app.window
    finally:
        app.window = previous
    out.parent.mkdir(parents=True, exist_ok=True)
    pygame.image.save(image, str(out))


def screenshot(game: str, out: Path, variant: str | None = None, position: str | None = None,
               scene: str = "room", plies: int = 6,
               size: tuple[int, int] = theme.LOGICAL_SIZE) -> None:
    """Render ``scene`` (room, lobby or connect) of ``game`` to ``out``."""
    app = make_app()
    build_scene(app, scene, game, variant, position, plies)
    save(app, out, size)
