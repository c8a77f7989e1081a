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


def corner(room: RoomScene, point: str) -> tuple[int, int]:
    """A pixel in the bottom right corner of a square, clear of its piece and its number."""
    rect = square(room, point)
    return rect.right - 2, rect.bottom - 2


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


def test_a_draughts_capture_marks_its_landing_square_as_it_slides_through(
    ui: UI, save_png: SavePng
) -> None:
    """White's 32x12 comes written start-and-end, yet its man slides through 21: from the start
    of the slide to its end (and at rest) the last-move marks are 32, 21 and 12, so the board
    draws the capture's path through 21 under the man (PNGs slide-draughts-path-middle/-end)."""
    snapshot = demo_room("draughts", plies=0, you="second", room="DP1")
    snapshot["start"] = snapshot["position"] = "W:W32,45:B27,17,5"
    snapshot["moves"], snapshot["turn"] = [], "first"
    room: RoomScene = ui.open_room(snapshot)
    assert room.view is not None
    ui.message({"type": "moved", "room": "DP1", "ply": 0, "move": "32x12", "by": "first"})
    assert room.marks().last_move == ("32", "21", "12")
    step_slide(ui.app, ui.clock, room.slides, 0.1)
    middle = shoot(ui.app, ui.tmp_path, "slide-draughts-path-middle")
    save_png(middle.subsurface(room.view.rect), "slide-draughts-path-middle-board.png")
    on_21, quiet = (corner(room, p) for p in ("21", "16"))  # 16: a dark square nothing marks
    assert middle.get_at(on_21) != middle.get_at(quiet), "21 is marked as the man heads there"
    finish_slide(ui.app, ui.clock, room.slides)
    end = shoot(ui.app, ui.tmp_path, "slide-draughts-path-end")
    save_png(end.subsurface(room.view.rect), "slide-draughts-path-end-board.png")
    assert room.marks().last_move == ("32", "21", "12")
    assert end.get_at(on_21) == middle.get_at(on_21), "and stays marked at rest"


def test_stepping_a_replay_onto_a_check_glows_the_king_when_the_queen_lands(
    ui: UI, save_png: SavePng
) -> None:
    """In a replay of 1. e4 d5 2. exd5 Qxd5 3. Nc3 Qe5+, Left then Right slides the queen back
    to e5: halfway White's e1 king does not glow yet, landed it does (PNG
    slide-replay-check-middle)."""
    from client.scenes.replay import ReplayScene

    moves = ["e2e4", "d7d5", "e4d5", "d8d5", "b1c3", "d5e5"]
    scene = ReplayScene(ui.app, "chess", None, None, moves)
    ui.app.push(scene)
    ui.key(pygame.K_LEFT)
    finish_slide(ui.app, ui.clock, scene.slides)
    assert scene.view is not None
    edge = scene.view.square_rect("e1").inflate(-6, -6).midleft  # type: ignore[attr-defined]
    quiet = shoot(ui.app, ui.tmp_path, "slide-replay-check-before").get_at(edge)
    ui.key(pygame.K_RIGHT)
    step_slide(ui.app, ui.clock, scene.slides, 0.5)
    middle = shoot(ui.app, ui.tmp_path, "slide-replay-check-middle")
    save_png(middle.subsurface(scene.view.rect), "slide-replay-check-middle-board.png")
    assert scene.slides.current is not None and middle.get_at(edge) == quiet
    finish_slide(ui.app, ui.clock, scene.slides)
    end = shoot(ui.app, ui.tmp_path, "slide-replay-check-end")
    assert reddish(end.get_at(edge)) > reddish(quiet) + 30, "the king glows once the queen landed"


def test_a_winning_five_glows_when_its_last_stone_has_faded_in(ui: UI, save_png: SavePng) -> None:
    """Black's 4,0 makes five: early in its fade the five's golden ring is not drawn around 3,0
    (beside the result panel, which opens at once), once the stone is whole it is (PNGs
    slide-five-early/-end)."""
    moves = ["0,0", "0,3", "1,0", "1,3", "2,0", "2,3", "3,0", "3,2"]
    snapshot = demo_room("hexgomoku", plies=0, you="second", room="FV1")
    snapshot.update(moves=moves, turn="first")
    snapshot["clocks"]["running"] = "first"
    room: RoomScene = ui.open_room(snapshot)
    assert room.view is not None
    ui.message({"type": "moved", "room": "FV1", "ply": 8, "move": "4,0", "by": "first"})
    ui.message({"type": "over", "room": "FV1", "result": "first", "reason": "five"})
    assert room.model.highlight == ("0,0", "1,0", "2,0", "3,0", "4,0")
    x, y = room.view.pixel_of("3,0")
    ring = (x, y - room.view.stone_radius() - 1)  # type: ignore[attr-defined]
    step_slide(ui.app, ui.clock, room.slides, 0.2)
    early = shoot(ui.app, ui.tmp_path, "slide-five-early")
    save_png(early.subsurface(room.view.rect), "slide-five-early-board.png")
    finish_slide(ui.app, ui.clock, room.slides)
    end = shoot(ui.app, ui.tmp_path, "slide-five-end")
    save_png(end.subsurface(room.view.rect), "slide-five-end-board.png")
    assert early.get_at(ring) != end.get_at(ring), "the ring waits for the stone"
