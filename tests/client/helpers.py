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


class StubConnection:
    """A hot-seat helper connection that only records what it is asked to send."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    def close(self) -> None:
        """Nothing to close."""


def drawn(room: str) -> dict[str, Any]:
    """The ``over`` message of the demo game in ``room``, drawn by agreement."""
    return {"type": "over", "room": room, "game_id": "g-demo-1", "result": "draw",
            "reason": "agreement", "position": "?"}


def next_game(finished: dict[str, Any], room: str, you: str | None,
              swapped: bool = True) -> dict[str, Any]:
    """The ``room`` snapshot of a new chess game of ``finished``'s two players: in the other
    colours (what a rematch opens) unless ``swapped`` is false."""
    from client.demo import demo_room

    snapshot = demo_room("chess", plies=0, you=you, room=room)
    snapshot["game_id"] = "g-demo-2"
    seats = finished["seats"]
    snapshot["seats"] = ({"first": seats["second"], "second": seats["first"]} if swapped
                         else dict(seats))
    return snapshot
