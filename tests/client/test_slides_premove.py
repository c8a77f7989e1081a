"""The opponent's move slides with a premove queued: the premove is sent the instant the move
arrives and its piece stands on its new square at once, while the opponent's piece slides to its
own. A premove that takes the piece that just moved ends the slide (the piece is simply gone); a
premove dropped as illegal leaves the slide as any opponent's move has it.

Time is the app's injected clock: the tests step it to the slide's middle and its end.
"""

from __future__ import annotations

import math
from typing import Any

import pygame

from client.boards.base import Motion
from client.demo import demo_room
from client.scenes.room import PREMOVE_CANCELLED, RoomScene
from tests.client.board_tools import SavePng
from tests.client.conftest import UI, shoot
from tests.client.slide_tools import box, finish_slide, moving_at, square, step_slide, white_pixels

PAWNS = "4k3/8/8/3p4/8/8/4P3/4K3 w - - 0 1"
"""White's e-pawn and Black's d-pawn: ...d5xe4 is a premove while White thinks."""


def black_on(shot: pygame.Surface, room: RoomScene, point: str) -> bool:
    """Whether a black piece stands on ``point`` (its centre is dark: a square never is)."""
    assert room.view is not None
    return shot.get_at(room.view.pixel_of(point)).r < 90


def sliding(room: RoomScene, motion: Motion) -> pygame.Rect:
    """A square's rectangle (a little inside it) where the moving piece is drawn now."""
    assert room.view is not None
    return box(moving_at(room.view, motion), square(room, motion.path[0]).width)


def premove_as_black(ui: UI, code: str, *points: str) -> RoomScene:
    """Black's room (a flipped board) on :data:`PAWNS`, White to move, with the premove along
    ``points`` entered by clicks."""
    room: RoomScene = ui.open_room(
        demo_room("chess", position=PAWNS, plies=0, you="second", room=code)
    )
    assert room.view is not None and room.view.flipped
    for point in points:
        ui.click(room.view.pixel_of(point))
    assert room.premoves.points() == points
    return room


def moves_sent(ui: UI) -> list[tuple[Any, Any]]:
    return [(m["ply"], m["move"]) for m in ui.sent("move")]


def test_the_opponents_move_slides_while_the_premove_stands_played(
    ui: UI, save_png: SavePng
) -> None:
    """Black's premove ...d5-d4 is sent the instant White's e2e4 arrives; halfway through the
    slide the white pawn is on e3 (e2 and e4 empty) while Black's pawn already stands on d4
    (d5 empty); at the end the white pawn stands on e4. The last-move squares are the latest
    move played, our premove, from the instant it is sent to its confirmation (as lichess has
    it): White's move shows by its slide, not by a tint that would then jump to ours."""
    room = premove_as_black(ui, "PS1", "d5", "d4")
    ui.message(
        {"type": "moved", "room": "PS1", "ply": 0, "move": "e2e4", "by": "first", "turn": "second"}
    )
    assert moves_sent(ui) == [(1, "d5d4")], "the premove went at once"
    motion = room.marks().motion
    assert motion is not None and motion.path == ("e2", "e4") and motion.progress == 0
    step_slide(ui.app, ui.clock, room.slides, 0.5)
    motion = room.marks().motion
    assert motion is not None
    assert room.view is not None
    assert math.dist(moving_at(room.view, motion), room.view.pixel_of("e3")) < 1.5
    assert room.marks().last_move == ("d5", "d4"), "our premove is the latest move played"
    middle = shoot(ui.app, ui.tmp_path, "slide-premove-middle")
    save_png(middle.subsurface(room.view.rect), "slide-premove-middle-board.png")
    assert white_pixels(middle, square(room, "e3")) > 150, "the white pawn on its way"
    assert white_pixels(middle, square(room, "e2")) == 0
    assert white_pixels(middle, square(room, "e4")) == 0, "not landed yet"
    assert black_on(middle, room, "d4") and not black_on(middle, room, "d5"), "ours played"
    finish_slide(ui.app, ui.clock, room.slides)
    end = shoot(ui.app, ui.tmp_path, "slide-premove-end")
    assert white_pixels(end, square(room, "e4")) > 150
    assert white_pixels(end, square(room, "e3")) == 0
    assert black_on(end, room, "d4")
    assert room.marks().last_move == ("d5", "d4")
    ui.message(
        {"type": "moved", "room": "PS1", "ply": 1, "move": "d5d4", "by": "second", "turn": "first"}
    )
    assert room.pending_move is None and room.marks().last_move == ("d5", "d4"), "confirmed"


def test_a_premove_taking_the_piece_that_moved_ends_its_slide(ui: UI, save_png: SavePng) -> None:
    """Black's premove ...d5xe4 takes White's e2e4 the instant it arrives: the white pawn is
    simply gone (sliding it onto the square where Black's pawn already stands would show White
    taking it); Black's pawn stands on e4 from the first frame."""
    room = premove_as_black(ui, "PS2", "d5", "e4")
    ui.message(
        {"type": "moved", "room": "PS2", "ply": 0, "move": "e2e4", "by": "first", "turn": "second"}
    )
    assert moves_sent(ui) == [(1, "d5e4")]
    assert room.slides.current is None and room.marks().motion is None
    shot = shoot(ui.app, ui.tmp_path, "slide-premove-takes")
    assert room.view is not None
    save_png(shot.subsurface(room.view.rect), "slide-premove-takes-board.png")
    assert black_on(shot, room, "e4") and not black_on(shot, room, "d5")
    for point in ("e2", "e3", "e4"):
        assert white_pixels(shot, square(room, point)) == 0, f"no white pawn on {point}"


def test_a_dropped_premove_leaves_the_slide_as_it_is(ui: UI, save_png: SavePng) -> None:
    """White plays e2e3 instead: Black's ...d5xe4 is illegal, dropped with its notice, nothing
    sent; the white pawn slides to e3 as any opponent's move, Black's pawn stays on d5."""
    room = premove_as_black(ui, "PS3", "d5", "e4")
    ui.message(
        {"type": "moved", "room": "PS3", "ply": 0, "move": "e2e3", "by": "first", "turn": "second"}
    )
    assert moves_sent(ui) == [] and room.message == PREMOVE_CANCELLED
    motion = room.marks().motion
    assert motion is not None and motion.path == ("e2", "e3")
    step_slide(ui.app, ui.clock, room.slides, 0.5)
    shot = shoot(ui.app, ui.tmp_path, "slide-premove-dropped-middle")
    assert room.view is not None
    save_png(shot.subsurface(room.view.rect), "slide-premove-dropped-middle-board.png")
    motion = room.marks().motion
    assert motion is not None
    assert white_pixels(shot, sliding(room, motion)) > 150, "halfway between e2 and e3"
    assert black_on(shot, room, "d5")
    finish_slide(ui.app, ui.clock, room.slides)
    end = shoot(ui.app, ui.tmp_path, "slide-premove-dropped-end")
    assert white_pixels(end, square(room, "e3")) > 150


def test_a_hexgomoku_stone_fades_in_beside_the_premoved_one(ui: UI) -> None:
    """Our premoved stone on -2,1 is sent and placed at once when the opponent's 3,-2 comes;
    that stone fades in meanwhile (the renderer lists no pieces: nothing of the slide changes)."""
    room: RoomScene = ui.open_room(demo_room("hexgomoku", plies=2, you="second", room="PS4"))
    assert room.view is not None
    ui.click(room.view.pixel_of("-2,1"))
    assert room.premoves.points() == ("-2,1",)
    ui.message(
        {"type": "moved", "room": "PS4", "ply": 2, "move": "3,-2", "by": "first", "turn": "second"}
    )
    assert moves_sent(ui) == [(3, "-2,1")]
    motion = room.marks().motion
    assert motion is not None and motion.path == ("3,-2",)
    step_slide(ui.app, ui.clock, room.slides, 0.2)
    shot = shoot(ui.app, ui.tmp_path, "slide-premove-hexgomoku")
    ours, theirs = (shot.get_at(room.view.pixel_of(p)) for p in ("-2,1", "3,-2"))
    finish_slide(ui.app, ui.clock, room.slides)
    landed = shoot(ui.app, ui.tmp_path, "slide-premove-hexgomoku-end")
    assert ours == landed.get_at(room.view.pixel_of("-2,1")), "ours whole at once"
    assert theirs != landed.get_at(room.view.pixel_of("3,-2")), "theirs still fading in"
