"""A finished game's move list ends with its result, as a record writes it (PGN's 1-0)."""

from __future__ import annotations

from typing import Any

import pytest

from client.demo import demo_room
from client.scenes import room_panel
from client.scenes.room import RoomScene
from tests.client.window_tools import render_at


@pytest.mark.parametrize(
    ("game", "result", "reason", "shown"),
    [
        ("chess", "first", "resign", "1-0"),
        ("chess", "draw", "agreement", "1/2-1/2"),
        ("draughts", "second", "resign", "0-2"),
        ("draughts", "draw", "agreement", "1-1"),
        ("hexgomoku", "second", "resign", "0-1"),
        ("shuqi", None, "aborted", "aborted"),
    ],
)
def test_the_result_follows_the_last_move(
    ui: Any, game: str, result: str | None, reason: str, shown: str
) -> None:
    """Once the game is over, the line after the last move gives the result (draughts counts
    2 for a win, as PDN does), inside the move list, below its last move; not before the end."""
    ui.open_room(demo_room(game, plies=6, you="first"))
    room = ui.app.top
    assert isinstance(room, RoomScene)
    before = [value for _, value, _ in render_at(ui.app, (1280, 800), f"{game}-playing")]
    assert shown not in before
    ui.message(
        {
            "type": "over",
            "room": "K7QD",
            "game_id": "g-demo-1",
            "result": result,
            "reason": reason,
            "position": "?",
        }
    )
    ui.app.pop()  # the result panel
    drawn = render_at(ui.app, (1280, 800), f"{game}-result-{reason}")
    rect = room_panel.moves_rect(room)
    lines = [r for _, value, r in drawn if value == shown]
    assert lines, [value for _, value, _ in drawn]
    last_move_bottom = max(
        r.bottom
        for _, value, r in drawn
        if value == room_panel.move_spots(room, rect)[-1][2][-1][1]
    )
    assert lines[-1].top >= last_move_bottom - 2
