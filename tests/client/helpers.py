"""Plain helpers shared by the client tests (fixtures live in conftest.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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


def running_clock_at_zero(snapshot: dict[str, Any]) -> dict[str, Any]:
    """``snapshot`` (a ``room`` message) with the running side's time up: its main time and the
    per-move limit read zero, so the opponent may claim it."""
    clocks = snapshot["clocks"]
    running = clocks["running"]
    if clocks.get(running) is not None:
        clocks[running] = 0
    if clocks.get("move") is not None:
        clocks["move"] = 0
    return snapshot
