"""The sounds an app plays, recorded instead of played, and two apps at a game that has begun,
for the sound tests."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from client.app import App
from client.scenes.lobby import LobbyScene
from client.scenes.room import RoomScene
from tests.client.helpers import open_app, pump, room_of


class Recorder:
    """Stands in for the mixer: the names of the sounds asked for, in order."""

    def __init__(self) -> None:
        self.played: list[str] = []
        self.volumes: list[float] = []
        """The volume each was played at."""

    def play(self, name: str, volume: float) -> None:
        self.played.append(name)
        self.volumes.append(volume)


def listening(app: App) -> list[str]:
    """Record the sounds ``app`` plays from now on."""
    recorder = Recorder()
    app.sounds.backend = recorder
    return recorder.played


@contextlib.contextmanager
def game_on(
    tmp_path: Path,
    url: str,
    game: str,
    clock: dict[str, Any] | None = None,
    times: tuple[Callable[[], float], ...] = (),
    variant: str | None = None,
) -> Iterator[tuple[list[App], dict[App, list[str]]]]:
    """Alice (first) and Bob in a new ``game`` room (with ``clock``; of ``variant``) on the
    server at ``url``, once it has begun: the apps and the sounds each has played (recorded
    from the start). Each app runs on its clock from ``times`` if given; all disconnect at the
    end."""
    apps = [
        open_app(tmp_path, name, url, clock=times[i] if times else time.monotonic)
        for i, name in enumerate(("Alice", "Bob"))
    ]
    heard = {app: listening(app) for app in apps}
    alice, bob = apps
    try:
        pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
        alice.send(
            {
                "type": "create",
                "game": game,
                "color": "first",
                **({"clock": clock} if clock else {}),
                **({"variant": variant} if variant else {}),
            }
        )
        pump(apps, lambda: bool(alice.find(RoomScene)))
        assert heard[alice] == []  # waiting for an opponent
        bob.send({"type": "join", "room": room_of(alice).model.room})
        pump(apps, lambda: bool(bob.find(RoomScene)) and room_of(alice).model.status == "playing")
        yield apps, heard
    finally:
        for app in apps:
            app.disconnect()
