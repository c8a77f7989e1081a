"""A number chess span over many pieces is a long move (``7,0-7,14=(6-5)*(4+3+2)*1``): the room's
move list cut it at 800x600 ("7,0-7,14=1…"), and even a two-piece span (``13,8-10,5=6+3``) there.
Number chess's move list now has one column of lines, twice as wide, so such moves are read whole
at 800x600 (and the replay's list, already wide, shows them whole too)."""

from __future__ import annotations

from typing import Any

import pygame
import pytest

import engines
from client.demo import demo_room
from client.scenes import room_panel
from client.scenes.replay import ReplayScene
from client.scenes.room_panel import MOVES_RECT
from client.screenshot import save
from tests.client.conftest import SHOTS
from tests.client.window_tools import drawn_whole

START = (
    "first;40;14,7 11,4 11,8 11,6 11,10 12,9 12,7 12,5 13,6 7,0;"
    "0,7 7,2 7,4 7,6 7,8 7,10 7,12 2,9 1,8 1,6"
)
"""First's 9 on 7,0 above a column of second's 1..6 (7,2 to 7,12), 7,14 empty below them."""
SPAN = "7,0-7,14=(6-5)*(4+3+2)*1"
"""The 9 spans all six pieces in one move: (6-5)*(4+3+2)*1 = 9."""
SIZE = (800, 600)


def long_span_room(ui: Any) -> Any:
    """A number chess room (watched by Bob, second) after the long span and a few steps."""
    engine = engines.get("shuqi")
    state = engine.play(engine.start(None, position=START), SPAN)
    moves = [SPAN]
    for _ in range(4):
        step = sorted(m for m in engine.legal_moves(state) if "=" not in m)[0]
        moves.append(step)
        state = engine.play(state, step)
    snapshot = demo_room("shuqi", plies=0, you="second")
    snapshot.update(start=START, position=START, moves=moves, turn="first")
    return ui.open_room(snapshot)


def test_a_long_span_is_read_whole_in_the_move_list_at_800x600(
    ui: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The long span, and a usual two-piece one, show whole in the room's move list at 800x600,
    and a click on the long one still shows the position after it."""
    room = long_span_room(ui)
    assert room.model.moves[0] == SPAN and room.model.engine_error == ""
    shown = drawn_whole(ui.app, MOVES_RECT, SIZE, monkeypatch)
    assert shown.get(SPAN) is True, shown
    assert all(shown.values()), shown
    assert room_panel.move_columns("shuqi") == 1 and room_panel.move_columns("chess") == 2
    save(ui.app, SHOTS / "shuqi-long-span-room-800x600.png", SIZE)
    spot = next(
        cell
        for _, _, spots in room_panel.move_spots(room, MOVES_RECT)
        for ply, _, cell in spots
        if ply == 0
    )
    ui.click(spot.center)
    assert room.browse.active and room.browse.index(room.model) == 1


def test_a_two_piece_span_fits_too(ui: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The usual span of the rules' example, 13,8-10,5=6+3, was cut at 800x600 as well."""
    snapshot = demo_room("shuqi", plies=0, you="second")
    snapshot.update(moves=["13,8-10,5=6+3"], turn="second")
    ui.open_room(snapshot)
    shown = drawn_whole(ui.app, MOVES_RECT, SIZE, monkeypatch)
    assert shown.get("13,8-10,5=6+3") is True, shown


def test_the_replay_shows_the_long_span_whole(ui: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The replay's move list (wider already) shows it whole at 800x600."""
    room = long_span_room(ui)
    m = room.model
    replay = ReplayScene(ui.app, m.game, m.variant, m.start, list(m.moves))
    ui.app.push(replay)
    assert not replay.error
    shown = drawn_whole(ui.app, pygame.Rect(800, 140, 464, 500), SIZE, monkeypatch)
    assert shown.get(SPAN) is True, shown
    save(ui.app, SHOTS / "shuqi-long-span-replay-800x600.png", SIZE)
