"""A promoting piece slides as what it was and becomes the promoted piece where it lands: a chess
pawn turns queen on e8, a draughts man turns king on 1, a Guards and Shadows soldier turns
knight (骑, starred) on the far row. Stepping back through the game the promoted piece turns back
into what it was at once, and that slides home (the forward slide played backwards).

Time is the app's injected clock: the tests step it to the slide's middle and its end.
"""

from __future__ import annotations

import pygame

from client.demo import demo_room
from client.scenes.room import RoomScene
from tests.client.board_tools import SavePng
from tests.client.conftest import UI, shoot
from tests.client.slide_tools import (
    box,
    finish_slide,
    moving_at,
    square,
    step_slide,
    white_pixels,
)


def arrive(
    ui: UI, game: str, position: str, move: str, code: str, variant: str | None = None
) -> RoomScene:
    """The second seat's room on ``position``; the first seat's ``move`` arrives and slides."""
    snapshot = demo_room(game, variant, position=position, plies=0, you="second", room=code)
    room: RoomScene = ui.open_room(snapshot)
    ui.message(
        {"type": "moved", "room": code, "ply": 0, "move": move, "by": "first", "turn": "second"}
    )
    assert room.marks().motion is not None
    return room


def sliding_centre(room: RoomScene) -> tuple[float, float]:
    """Where the board draws the sliding piece now."""
    motion = room.marks().motion
    assert motion is not None and room.view is not None
    return moving_at(room.view, motion)


def ivory_on_its_way(
    ui: UI, save_png: SavePng, room: RoomScene, unpromoted: str, side: int
) -> tuple[int, int, int]:
    """Ivory pixels (:func:`white_pixels`) in a ``side``-pixel box around the piece halfway
    along its slide, around the unpromoted piece of its kind at rest on ``unpromoted``, and
    around the piece landed at the end (PNGs ``slide-promotion-GAME-middle`` and ``-end``)."""
    view, name = room.view, f"slide-promotion-{room.model.game}"
    assert view is not None
    step_slide(ui.app, ui.clock, room.slides, 0.5)
    middle = shoot(ui.app, ui.tmp_path, f"{name}-middle")
    save_png(middle.subsurface(view.rect), f"{name}-middle-board.png")
    motion = room.marks().motion
    assert motion is not None
    sliding = white_pixels(middle, box(moving_at(view, motion), side))
    resting = white_pixels(middle, box(view.pixel_of(unpromoted), side))
    finish_slide(ui.app, ui.clock, room.slides)
    end = shoot(ui.app, ui.tmp_path, f"{name}-end")
    save_png(end.subsurface(view.rect), f"{name}-end-board.png")
    return sliding, resting, white_pixels(end, box(view.pixel_of(motion.path[-1]), side))


def inside_a_disc(room: RoomScene) -> int:
    """A box's side inside a round piece of ``room``'s board (draughts, custom)."""
    radius: float = room.view.piece_radius()  # type: ignore[union-attr]
    return round(radius * 1.3)


def test_a_chess_pawn_slides_as_a_pawn_and_lands_a_queen(ui: UI, save_png: SavePng) -> None:
    """White's e7e8q on Black's board: halfway between e7 and e8 the piece shows as much ivory
    as the pawn at rest on a2; on e8 at the end as much as a queen, clearly more. Stepped back,
    the queen is the pawn again at once, which slides home."""
    room = arrive(ui, "chess", "k7/4P3/8/8/8/8/P7/4K3 w - - 0 1", "e7e8q", "PR1")
    side = square(room, "a2").width
    sliding, pawn, queen = ivory_on_its_way(ui, save_png, room, "a2", side)
    assert abs(sliding - pawn) < 10, f"a pawn on its way: {sliding} vs {pawn}"
    assert queen - pawn > 40, f"a queen at the end: {queen} vs {pawn}"
    ui.key(pygame.K_LEFT)
    motion = room.marks().motion
    assert motion is not None and motion.path == ("e8", "e7")
    step_slide(ui.app, ui.clock, room.slides, 0.5)
    back = shoot(ui.app, ui.tmp_path, "slide-promotion-chess-back")
    home = white_pixels(back, box(sliding_centre(room), side))
    assert abs(home - pawn) < 10, f"a pawn on its way home: {home} vs {pawn}"


def test_a_draughts_man_slides_as_a_man_and_lands_a_king(ui: UI, save_png: SavePng) -> None:
    """White's 7-1: halfway the piece shows as much ivory as the man at rest on 49, not the
    less of the crowned king it is on 1 at the end."""
    room = arrive(ui, "draughts", "W:W7,49:B40", "7-1", "PR2")
    sliding, man, king = ivory_on_its_way(ui, save_png, room, "49", inside_a_disc(room))
    assert abs(sliding - man) < 20 and man - king > 300, (
        f"a man on its way: {sliding} ivory pixels, a man {man}, a king {king}"
    )


GUARDS = "guards;first;0,0;.,6,4,2,6,./7,8,.,.,8,8/.,.,.,.,.,./.,.,.,.,.,./.,7,.,.,7,7/.,5,1,3,5,."
"""Guards and Shadows with a red soldier on 2,1, a step from the far row where it promotes
(fifteen pieces: the six-piece promotion is far off)."""


def test_a_custom_soldier_slides_as_a_soldier_and_lands_promoted(ui: UI, save_png: SavePng) -> None:
    """Red's soldier 2,1-1,1 promotes on the far row: halfway it shows as much ivory as the
    soldier at rest on 5,2, not the red disc of the promoted one (骑, starred) on 1,1 at the
    end."""
    room = arrive(ui, "custom", GUARDS, "2,1-1,1", "PR3", "guards")
    sliding, soldier, promoted = ivory_on_its_way(ui, save_png, room, "5,2", inside_a_disc(room))
    assert abs(sliding - soldier) < 20 and soldier - promoted > 1000, (
        f"a soldier on its way: {sliding} ivory pixels, a soldier {soldier}, promoted {promoted}"
    )
