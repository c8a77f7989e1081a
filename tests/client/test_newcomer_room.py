"""What a first-time user met in a room against a real server:

- the room they opened said "Waiting for an opponent: room code m…" in an 800x600 window (and
  "(Ctrl+C copi…" at 1280x800): the code their friend needs was cut; the line now takes a
  shorter form that keeps the code whole.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from client.app import App
from client.local import EmbeddedServer
from client.scenes.lobby import LobbyScene
from client.scenes.room import RoomScene
from tests.client.helpers import open_app, pump, room_of
from tests.client.window_tools import render_at


def _room_created_by(app: App, clock: dict[str, int] | None = None) -> RoomScene:
    """``app`` opens a chess room as the first player and waits for it."""
    pump(app, lambda: isinstance(app.top, LobbyScene))
    create: dict[str, object] = {"type": "create", "game": "chess", "color": "first"}
    app.send({**create, "clock": clock} if clock else create)
    pump(app, lambda: bool(app.find(RoomScene)))
    return room_of(app)


@pytest.mark.parametrize("size", [(1280, 800), (800, 600), (640, 480)])
def test_a_waiting_room_shows_its_whole_code(
    tmp_path: Path, embedded: EmbeddedServer, size: tuple[int, int]
) -> None:
    """The creator's status line names the room code whole at every window size, and still
    says what to do with it where there is room."""
    alice = open_app(tmp_path, "Alice", embedded.url)
    try:
        room = _room_created_by(alice)
        code = room.model.room
        shown = [value for _, value, _ in render_at(alice, size, f"waiting-code-{size[0]}")]
        status = [value for value in shown if code in value and "Room" not in value]
        assert status, f"no status line names the code {code}: {shown}"
        assert not any("…" in value for value in status), status
        if size == (1280, 800):
            assert status[0].startswith("Waiting for an opponent: ") and "Ctrl+C" in status[0]
    finally:
        alice.disconnect()
