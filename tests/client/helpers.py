"""Plain helpers shared by the client tests (fixtures live in conftest.py)."""

from __future__ import annotations

from pathlib import Path

from client.app import App
from client.config import Config
from client.scenes.connect import ConnectScene


def open_app(tmp_path: Path, name: str, url: str) -> App:
    """A headless app that connects to ``url`` as ``name`` through its connect scene."""
    app = App(Config(path=tmp_path / f"{name}.json"), headless=True)
    scene = ConnectScene(app, url, name)
    app.push(scene)
    scene.submit()
    return app
