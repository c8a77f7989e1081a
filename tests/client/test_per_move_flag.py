"""The clocks at the end of the game: the side whose move it was keeps what its clock showed,
and a side that ran out of time reads 0.0. A per-move clock's faces used to go back to the
whole limit once no clock ran, and a main time to what it was at the last move (the time since
uncounted), so a watcher (or a projector's audience) read "Alice ran out of time" beside a
full clock."""

from __future__ import annotations

from typing import Any

import pytest

from client.demo import demo_room
from client.room_model import format_clock
from client.scenes.room import RoomScene
from tests.client.window_tools import render_at

LIMIT_MS = 30_000
"""The demo number chess game's per-move limit."""


def _faces(ui: Any, name: str) -> list[str]:
    """The texts drawn on the room's two clock faces at 1280x800 (the result panel closed)."""
    room = ui.app.top
    assert isinstance(room, RoomScene)
    seen = render_at(ui.app, (1280, 800), name)
    values = {format_clock(ms) for ms in range(0, LIMIT_MS + 1, 100)}
    return [value for _, value, _ in seen if value in values]


@pytest.mark.parametrize("you", [None, "first"])
def test_the_flagged_side_reads_zero(ui: Any, you: str | None) -> None:
    """The mover's 21.4 s run out on the (injected) clock and the server says so: that face
    reads 0.0, the other side's the whole limit, for a spectator and for a player alike."""
    snapshot = demo_room("shuqi", plies=2, you=you)
    mover = snapshot["turn"]
    ui.open_room(snapshot)
    ui.clock.now += 22.0
    winner = "second" if mover == "first" else "first"
    ui.message(
        {
            "type": "over",
            "room": "K7QD",
            "game_id": "g-demo-1",
            "result": winner,
            "reason": "timeout",
            "position": "?",
        }
    )
    ui.app.pop()  # the result panel
    ui.clock.now += 5.0
    assert sorted(_faces(ui, f"per-move-flag-{you}")) == ["0.0", format_clock(LIMIT_MS)]


def test_a_resignation_keeps_what_was_left_of_the_move(ui: Any) -> None:
    """The mover resigns with 11.4 s of the move left: their face keeps it (0:11), however
    long the finished room stays open (a face rounds down, as lichess's)."""
    ui.open_room(demo_room("shuqi", plies=2, you=None))
    ui.clock.now += 10.0
    mover = ui.app.top.model.turn
    ui.message(
        {
            "type": "over",
            "room": "K7QD",
            "game_id": "g-demo-1",
            "result": "second" if mover == "first" else "first",
            "reason": "resign",
            "position": "?",
        }
    )
    ui.app.pop()
    ui.clock.now += 60.0
    assert sorted(_faces(ui, "per-move-resigned")) == ["0:11", "0:30"]


@pytest.mark.parametrize(("reason", "shown"), [("resign", "3:07"), ("timeout", "0.0")])
def test_a_main_time_keeps_what_it_showed(ui: Any, reason: str, shown: str) -> None:
    """Chess 5+3, the mover at 4:47 (287.4 s, a face rounding down): 100 s later the game
    ends. A resignation leaves 3:07 on the mover's face (not 4:47 again), a flag fall 0.0;
    the other clock keeps its 4:23 (263.9 s)."""
    ui.open_room(demo_room("chess", plies=2, you=None))
    mover = ui.app.top.model.turn
    ui.clock.now += 100.0 if reason == "resign" else 287.0  # the server's word comes first
    ui.message(
        {
            "type": "over",
            "room": "K7QD",
            "game_id": "g-demo-1",
            "result": "second" if mover == "first" else "first",
            "reason": reason,
            "position": "?",
        }
    )
    ui.app.pop()
    ui.clock.now += 60.0
    room = ui.app.top
    assert isinstance(room, RoomScene)
    texts = [value for _, value, _ in render_at(ui.app, (1280, 800), f"main-time-{reason}")]
    assert shown in texts and "4:23" in texts and "4:47" not in texts, texts
