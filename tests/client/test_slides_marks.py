"""What a sliding move brings to the board besides its piece: a check (a chess king's red glow, a
custom captain's red ring) shows when the move lands, not while its piece is on its way.

Time is the app's injected clock: the tests step it to the slide's middle and its end.
"""

from __future__ import annotations

import pygame

import engines
from client.demo import demo_room
from client.scenes.room import RoomScene
from tests.client.board_tools import SavePng
from tests.client.conftest import UI, shoot
from tests.client.slide_tools import finish_slide, square, step_slide

ROOK_CHECK = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"
"""White's a1 rook, a rank-8 check a move away (Ra1-a8+)."""

XIANGQI_CHECK = [
    "8,2-6,2",
    "3,8-10,8",
    "6,2-6,3",
    "3,2-3,1",
    "6,3-6,7",
    "3,1-3,4",
    "8,8-9,8",
    "4,1-5,1",
    "9,8-9,4",
    "1,8-3,9",
    "6,7-6,5",
]
"""Ends with red's cannon on 6,5 checking blue's general on 1,5 over the soldier on 4,5."""


def reddish(colour: pygame.Color) -> int:
    """How much redder than green a pixel is (the check's red against wood and ivory)."""
    return int(colour.r) - int(colour.g)


def red_near(shot: pygame.Surface, centre: tuple[int, int], reach: int) -> int:
    """Pixels within ``reach`` of ``centre`` clearly in the check's red."""
    count = 0
    for x in range(centre[0] - reach, centre[0] + reach + 1):
        for y in range(centre[1] - reach, centre[1] + reach + 1):
            c = shot.get_at((x, y))
            if c.r > 150 and c.r - c.g > 90 and c.r - c.b > 90:
                count += 1
    return count


def test_a_checking_chess_move_glows_the_king_when_it_lands(ui: UI, save_png: SavePng) -> None:
    """White's Ra1-a8+ slides to Black's board: halfway the e8 king's square is plain wood at
    its edge (no red glow yet), at the end it glows red (PNGs slide-check-middle/-end)."""
    snapshot = demo_room("chess", position=ROOK_CHECK, plies=0, you="second", room="CK1")
    room: RoomScene = ui.open_room(snapshot)
    assert room.view is not None
    edge = square(room, "e8").midleft  # beside the king, in the glow
    quiet = shoot(ui.app, ui.tmp_path, "slide-check-before").get_at(edge)
    ui.message(
        {"type": "moved", "room": "CK1", "ply": 0, "move": "a1a8", "by": "first", "turn": "second"}
    )
    step_slide(ui.app, ui.clock, room.slides, 0.5)
    middle = shoot(ui.app, ui.tmp_path, "slide-check-middle")
    save_png(middle.subsurface(room.view.rect), "slide-check-middle-board.png")
    assert room.slides.current is not None, "still on its way"
    assert middle.get_at(edge) == quiet, "no check glow before the rook lands"
    finish_slide(ui.app, ui.clock, room.slides)
    end = shoot(ui.app, ui.tmp_path, "slide-check-end")
    save_png(end.subsurface(room.view.rect), "slide-check-end-board.png")
    assert reddish(end.get_at(edge)) > reddish(quiet) + 30, "the king glows once it landed"


def test_a_custom_captain_is_marked_in_check_when_the_move_lands(ui: UI, save_png: SavePng) -> None:
    """Red's cannon 6,7-6,5 checks Blue's general on 1,5 (xiangqi): halfway no red ring or glow
    around the general, at the end both (PNGs slide-captain-middle/-end)."""
    snapshot = demo_room("custom", "xiangqi", plies=0, you="second", room="CK2")
    engine = engines.get("custom")
    state = engine.start(snapshot["variant"], position=snapshot["start"])
    for move in XIANGQI_CHECK[:-1]:
        state = engine.play(state, move)
    snapshot.update(moves=XIANGQI_CHECK[:-1], turn=state.turn)
    snapshot["clocks"]["running"] = state.turn
    room: RoomScene = ui.open_room(snapshot)
    assert room.view is not None
    ui.message(
        {
            "type": "moved",
            "room": "CK2",
            "ply": len(XIANGQI_CHECK) - 1,
            "move": XIANGQI_CHECK[-1],
            "by": "first",
            "turn": "second",
        }
    )
    general = room.view.pixel_of("1,5")
    reach = round(room.view.cell * 0.6)  # type: ignore[attr-defined]
    step_slide(ui.app, ui.clock, room.slides, 0.5)
    middle = shoot(ui.app, ui.tmp_path, "slide-captain-middle")
    save_png(middle.subsurface(room.view.rect), "slide-captain-middle-board.png")
    assert room.slides.current is not None, "still on its way"
    early = red_near(middle, general, reach)
    finish_slide(ui.app, ui.clock, room.slides)
    end = shoot(ui.app, ui.tmp_path, "slide-captain-end")
    save_png(end.subsurface(room.view.rect), "slide-captain-end-board.png")
    landed = red_near(end, general, reach)
    assert landed > 100 and early < landed // 10, f"red pixels halfway {early}, landed {landed}"
