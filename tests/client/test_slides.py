"""A move slides to its square: the opponent's moves in a room (a real server on loopback), a
draughts multi-capture through its landing squares, a custom variant and number chess, a
hexgomoku stone fading in, the replay's Left/Right (Home/End jump), and the Slides toggle.

Time is the apps' injected clock: the tests step it to the slide's start, its middle and its end.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pygame

from client.app import App
from client.config import Config
from client.demo import demo_room
from client.scenes.lobby import LobbyScene
from client.scenes.replay import ReplayScene
from client.scenes.result import ResultPanel
from client.scenes.room import ACTIONS_BY_NAME, RoomScene
from client.slides import SLIDE_S
from tests.client.board_tools import SavePng
from tests.client.conftest import FakeClock, shoot
from tests.client.helpers import click, drag, drawn, key, open_app, pump, px, room_of
from tests.client.slide_tools import (
    finish_slide,
    moving_at,
    pixels_differing,
    riding_at,
    square,
    step_slide,
    white_pixels,
)


def test_the_opponents_chess_move_slides_and_ours_does_not(
    tmp_path: Path, embedded: Any, save_png: SavePng
) -> None:
    """Bob sees Alice's dragged e2e4 slide on his (flipped) board: at its start the pawn is on
    e2, halfway it is on e3 with e2 and e4 empty, at the end on e4 only. Alice's own move does
    not slide. While Alice sees Bob's e7e5 slide she plays d2d4 at once, and Bob's premove
    ...d7d5 is sent the instant it arrives, mid-slide."""
    clock_a, clock_b = FakeClock(), FakeClock()
    alice = open_app(tmp_path, "Alice", embedded.url, clock=clock_a)
    bob = open_app(tmp_path, "Bob", embedded.url, clock=clock_b)
    apps = [alice, bob]
    try:
        pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
        alice.send({"type": "create", "game": "chess", "color": "first"})
        pump(apps, lambda: bool(alice.find(RoomScene)))
        bob.send({"type": "join", "room": room_of(alice).model.room})
        pump(apps, lambda: bool(bob.find(RoomScene)) and room_of(bob).model.status == "playing")
        a, b = room_of(alice), room_of(bob)
        assert b.view is not None and b.view.flipped

        drag(alice, px(alice, "e2"), px(alice, "e4"))
        assert a.marks().motion is None, "a dragged move is on its square already"
        pump(apps, lambda: len(b.model.moves) == 1)
        assert a.marks().motion is None

        motion = b.marks().motion
        assert motion is not None and motion.path == ("e2", "e4") and motion.progress == 0
        assert moving_at(b.view, motion) == b.view.pixel_of("e2")
        start = shoot(bob, tmp_path, "slide-chess-start")
        assert white_pixels(start, square(b, "e2")) > 150
        assert white_pixels(start, square(b, "e4")) == 0

        step_slide(bob, clock_b, b.slides, 0.5)
        motion = b.marks().motion
        assert motion is not None and abs(motion.progress - 0.5) < 1e-9
        e2, e3, e4 = (b.view.pixel_of(p) for p in ("e2", "e3", "e4"))
        assert math.dist(moving_at(b.view, motion), e3) < 1.5
        assert e3 == ((e2[0] + e4[0]) // 2, (e2[1] + e4[1]) // 2)
        middle = shoot(bob, tmp_path, "slide-chess-middle-flipped")
        save_png(middle.subsurface(b.view.rect), "slide-chess-middle-board.png")
        assert white_pixels(middle, square(b, "e3")) > 150
        assert white_pixels(middle, square(b, "e2")) == 0, "the origin is empty"
        assert white_pixels(middle, square(b, "e4")) == 0, "no ghost on the destination"

        finish_slide(bob, clock_b, b.slides)
        assert b.marks().motion is None
        end = shoot(bob, tmp_path, "slide-chess-end")
        assert white_pixels(end, square(b, "e4")) > 150
        assert white_pixels(end, square(b, "e2")) == white_pixels(end, square(b, "e3")) == 0

        click(bob, px(bob, "e7"))
        click(bob, px(bob, "e5"))  # click-click: on its square at once, no slide either
        assert b.marks().motion is None
        pump(apps, lambda: len(a.model.moves) == 2)
        assert a.marks().motion is not None
        click(bob, px(bob, "d7"))
        click(bob, px(bob, "d5"))  # a premove, during Alice's turn
        step_slide(alice, clock_a, a.slides, 0.3)
        drag(alice, px(alice, "d2"), px(alice, "d4"))  # mid-slide: played on the new position
        assert [m["move"] for m in alice.sent if m.get("type") == "move"] == ["e2e4", "d2d4"]
        pump(apps, lambda: len(a.model.moves) == 4)  # Bob's premove went at d2d4's arrival
        motion = a.marks().motion
        assert motion is not None and motion.path == ("d7", "d5")
        assert [m["move"] for m in bob.sent if m.get("type") == "move"] == ["e7e5", "d7d5"]
    finally:
        for app in apps:
            app.disconnect()


def test_a_draughts_multi_capture_passes_its_landing_square(ui: Any, save_png: SavePng) -> None:
    """White's 32x12 (a capture of 27 then 17, sent start-and-end) slides through 21: halfway
    the man is on 21, 27 (passed) is gone, 17 (not reached yet) still stands; at the end both
    are gone and the man stands on 12 only (the capture's path, drawn yellow through the squares'
    centres, is no man)."""
    snapshot = demo_room("draughts", plies=0, you="second", room="DR1")
    snapshot["start"] = snapshot["position"] = "W:W32,45:B27,17,5"
    snapshot["moves"], snapshot["turn"] = [], "first"
    room = ui.open_room(snapshot)
    ui.message({"type": "moved", "room": "DR1", "ply": 0, "move": "32x12", "by": "first"})
    motion = room.marks().motion
    assert motion is not None and motion.path == ("32", "21", "12")
    assert set(motion.captured) == {"27", "17"}
    step_slide(ui.app, ui.clock, room.slides, 0.5)
    motion = room.marks().motion
    view = room.view
    assert math.dist(moving_at(view, motion), view.pixel_of("21")) < 1.5
    shot = shoot(ui.app, ui.tmp_path, "slide-draughts-middle")
    save_png(shot.subsurface(view.rect), "slide-draughts-middle-board.png")

    def man(point: str) -> str:
        c = shot.get_at(view.pixel_of(point))
        return "white" if c.r > 200 and c.b > 150 else "black" if c.r < 90 else "empty"

    assert [man(p) for p in ("32", "27", "21", "17", "12")] == [
        "empty",
        "empty",
        "white",
        "black",
        "empty",
    ]
    finish_slide(ui.app, ui.clock, room.slides)
    shot = shoot(ui.app, ui.tmp_path, "slide-draughts-end")
    assert [man(p) for p in ("32", "27", "21", "17", "12")] == [
        "empty",
        "empty",
        "empty",
        "empty",
        "white",
    ]


def test_a_custom_move_and_a_number_chess_span_slide(ui: Any) -> None:
    """A custom variant's move and a number chess move are drawn between their points halfway,
    and on their target at the end."""
    for game, room_code in (("custom", "CU1"), ("shuqi", "SQ1")):
        snapshot = demo_room(game, plies=2, you="second", room=room_code)
        room = ui.open_room(snapshot)
        engine = room.model.engine
        move = engine.legal_moves(room.model.state)[0]
        ui.message({"type": "moved", "room": room_code, "ply": 2, "move": move, "by": "first"})
        motion = room.marks().motion
        assert motion is not None and len(motion.path) == 2, (game, move)
        step_slide(ui.app, ui.clock, room.slides, 0.5)
        a, b = (room.view.pixel_of(p) for p in motion.path)
        middle = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        assert math.dist(moving_at(room.view, room.marks().motion), middle) < 1.5
        shoot(ui.app, ui.tmp_path, f"slide-{game}-middle")
        finish_slide(ui.app, ui.clock, room.slides)
        assert room.marks().motion is None
        ui.key(pygame.K_ESCAPE)
        ui.app.step(0.0)


def test_a_hexgomoku_stone_fades_in(ui: Any) -> None:
    """A stone placed by the opponent grows and fades in where it lands: faint at first, whole
    at the end."""
    room = ui.open_room(demo_room("hexgomoku", plies=2, you="second", room="HX1"))
    ui.message({"type": "moved", "room": "HX1", "ply": 2, "move": "3,-2", "by": "first"})
    motion = room.marks().motion
    assert motion is not None and motion.path == ("3,-2",)
    x, y = room.view.pixel_of("3,-2")
    centre = (x, y + round(room.view.stone_radius() * 0.55))  # beside the last-move dot
    step_slide(ui.app, ui.clock, room.slides, 0.2)
    faint = shoot(ui.app, ui.tmp_path, "slide-hexgomoku-start").get_at(centre)
    step_slide(ui.app, ui.clock, room.slides, 0.6)
    shoot(ui.app, ui.tmp_path, "slide-hexgomoku-middle")
    finish_slide(ui.app, ui.clock, room.slides)
    whole = shoot(ui.app, ui.tmp_path, "slide-hexgomoku-end").get_at(centre)
    assert whole.r < 60, f"a black stone at the end: {whole}"
    assert faint.r > whole.r + 60, f"faint at first: {faint} vs {whole}"


def test_replay_right_slides_and_end_jumps(ui: Any) -> None:
    """Right slides the next move's piece, Left slides it back; End (and Home) show the
    position at once, whatever slide ran."""
    ui.open_lobby()
    scene = ReplayScene(ui.app, "chess", None, None, ["e2e4", "e7e5", "g1f3"])
    ui.app.push(scene)
    ui.key(pygame.K_HOME)
    ui.key(pygame.K_RIGHT)
    motion = scene.slides.motion(scene.states[1])
    assert motion is not None and motion.path == ("e2", "e4") and motion.progress == 0
    step_slide(ui.app, ui.clock, scene.slides, 0.5)
    shoot(ui.app, ui.tmp_path, "slide-replay-middle")
    ui.key(pygame.K_RIGHT)  # a second step at once: its own slide, the first one ends
    motion = scene.slides.motion(scene.states[2])
    assert motion is not None and motion.path == ("e7", "e5") and motion.progress == 0
    ui.key(pygame.K_END)
    assert scene.index == 3 and scene.slides.current is None
    ui.key(pygame.K_LEFT)
    motion = scene.slides.motion(scene.states[2])
    assert motion is not None and motion.path == ("f3", "g1")
    ui.key(pygame.K_HOME)
    assert scene.index == 0 and scene.slides.current is None


def test_slides_off_the_move_jumps_and_the_setting_stays(ui: Any, tmp_path: Path) -> None:
    """O turns slides off (the button says so): the opponent's move is on its square at once;
    the config file keeps it, and a new app reads it back."""
    room = ui.open_room(demo_room("chess", plies=0, you="second", room="OF1"))
    button = next(b for b in room.buttons() if b.action == "slide")
    assert button.label == "Slides on"
    key(ui.app, pygame.K_o, "o")
    ui.app.step(0.0)
    assert button.label == "Slides off" and not ui.app.config.slides
    assert room.message.endswith("(O turns them on)."), room.message
    ui.message({"type": "moved", "room": "OF1", "ply": 0, "move": "e2e4", "by": "first"})
    assert room.slides.current is None and room.marks().motion is None
    assert json.loads((tmp_path / "config.json").read_text())["slides"] is False
    again = App(Config.load(tmp_path / "config.json"), headless=True)
    assert again.config.slides is False
    key(ui.app, pygame.K_o, "o")
    assert ui.app.config.slides
    assert SLIDE_S < 0.3


def test_a_chess_capture_keeps_the_taken_piece_until_the_mover_lands(
    ui: Any, save_png: SavePng
) -> None:
    """White's Nf3xe5 on Black's flipped board: halfway the knight is between f3 and e5 and the
    pawn still stands on e5; at the end the knight stands there alone. Castling's rook is the
    mover's own: it is not kept on h1."""
    snapshot = demo_room(
        "chess", position="4k3/8/8/4p3/8/5N2/8/4K2R w K - 0 1", plies=0, you="second", room="CX1"
    )
    room = ui.open_room(snapshot)
    ui.message({"type": "moved", "room": "CX1", "ply": 0, "move": "f3e5", "by": "first"})
    motion = room.marks().motion
    assert motion is not None and motion.captured == ("e5",)
    step_slide(ui.app, ui.clock, room.slides, 0.5)
    shot = shoot(ui.app, ui.tmp_path, "slide-chess-capture-middle")
    save_png(shot.subsurface(room.view.rect), "slide-chess-capture-middle-board.png")
    dark = shot.get_at(room.view.pixel_of("e5"))
    assert dark.r < 90, f"the pawn is still on e5: {dark}"
    a, b = room.view.pixel_of("f3"), room.view.pixel_of("e5")
    between = room.view.square_rect("f3").move((b[0] - a[0]) // 2, (b[1] - a[1]) // 2)
    assert white_pixels(shot, between.inflate(-6, -6)) > 150
    assert white_pixels(shot, square(room, "f3")) == 0
    finish_slide(ui.app, ui.clock, room.slides)
    shot = shoot(ui.app, ui.tmp_path, "slide-chess-capture-end")
    assert white_pixels(shot, square(room, "e5")) > 150
    ui.message({"type": "moved", "room": "CX1", "ply": 1, "move": "e8d8", "by": "second"})
    ui.message({"type": "moved", "room": "CX1", "ply": 2, "move": "e1g1", "by": "first"})
    motion = room.marks().motion
    assert motion is not None and motion.path == ("e1", "g1") and motion.captured == ()


def test_browsing_a_room_slides_one_move_and_jumps_home(ui: Any) -> None:
    """In a room, Left slides the last move's piece back and Right forward again (the live
    position); Home jumps to the start without a slide."""
    room = ui.open_room(demo_room("chess", plies=4, you="first", room="BR1"))
    m = room.model
    ui.key(pygame.K_LEFT)
    motion = room.marks().motion
    last = m.moves[-1]
    assert motion is not None and motion.path == (last[2:4], last[:2])
    assert room.board_state() is m.history[3]
    ui.key(pygame.K_RIGHT)
    motion = room.marks().motion
    assert motion is not None and motion.path == (last[:2], last[2:4])
    assert not room.browse.active
    finish_slide(ui.app, ui.clock, room.slides)
    ui.key(pygame.K_HOME)
    assert room.browse.index(m) == 0 and room.slides.current is None


def test_a_piece_promoted_by_a_capture_elsewhere_is_not_kept_as_taken(
    ui: Any, save_png: SavePng
) -> None:
    """Guards and Shadows promotes every pawn once six pieces are left: red's rook 5,2-5,6
    takes the blue pawn there and both other blue pawns (3,1 and 3,5) are promoted where they
    stand. Only 5,6 is taken: halfway through the slide 3,5 shows the promoted pawn as it
    will stand at rest, never the unpromoted one drawn over it."""
    position = (
        "guards;first;0,0;.,.,.,.,.,./.,.,2,.,.,./8,.,.,.,8,./.,.,.,4,.,./.,5,.,.,.,8/.,.,.,1,.,."
    )
    room = ui.open_room(
        demo_room("custom", "guards", position=position, plies=0, you="second", room="GP1")
    )
    ui.message({"type": "moved", "room": "GP1", "ply": 0, "move": "5,2-5,6", "by": "first"})
    motion = room.marks().motion
    assert motion is not None and motion.path == ("5,2", "5,6")
    assert motion.captured == ("5,6",)
    view = room.view
    cell = pygame.Rect(0, 0, view.cell - 4, view.cell - 4)
    cell.center = view.pixel_of("3,5")
    step_slide(ui.app, ui.clock, room.slides, 0.5)
    middle = shoot(ui.app, ui.tmp_path, "slide-guards-promoted-middle")
    save_png(middle.subsurface(view.rect), "slide-guards-promoted-middle-board.png")
    finish_slide(ui.app, ui.clock, room.slides)
    end = shoot(ui.app, ui.tmp_path, "slide-guards-promoted-end")
    differ = pixels_differing(middle, end, cell)
    assert differ == 0, f"{differ} pixels of 3,5 differ from the piece at rest"


def test_a_piece_picked_up_mid_slide_is_drawn_once(ui: Any, save_png: SavePng) -> None:
    """Left then Right slides our last move (Nb1-a3) back onto the live position; pressing on
    the knight while it slides (a premove drag) ends the slide: the knight is drawn under the
    pointer only, no second one still on its way from b1."""
    room = ui.open_room(demo_room("chess", plies=1, you="first", room="DG1"))
    assert room.model.moves == ["b1a3"] and room.premove_mode()
    ui.key(pygame.K_LEFT)
    ui.key(pygame.K_RIGHT)
    step_slide(ui.app, ui.clock, room.slides, 0.3)
    motion = room.marks().motion
    assert motion is not None and motion.path == ("b1", "a3")
    sliding = pygame.Rect(0, 0, room.view.square - 6, room.view.square - 6)
    sliding.center = [round(c) for c in moving_at(room.view, motion)]
    a3 = room.view.pixel_of("a3")
    ui.app.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=a3, button=1))
    pointer = room.view.pixel_of("e5")
    ui.app.handle_event(
        pygame.event.Event(pygame.MOUSEMOTION, pos=pointer, rel=(0, 0), buttons=(1, 0, 0))
    )
    assert room.drag is not None and room.drag[0] == "a3"
    assert room.marks().motion is None
    shot = shoot(ui.app, ui.tmp_path, "slide-picked-up")
    save_png(shot.subsurface(room.view.rect), "slide-picked-up-board.png")
    assert white_pixels(shot, square(room, "e5")) > 150, "the knight under the pointer"
    ui.clock.now += 1.0  # any slide over: the board as it is with the knight held
    held = shoot(ui.app, ui.tmp_path, "slide-picked-up-later")
    differ = pixels_differing(shot, held, sliding)
    assert differ == 0, f"a knight still on its way ({differ} pixels)"


def test_the_slides_key_is_not_the_result_panels_leave(ui: Any) -> None:
    """Slides were on L, the result panel's Leave: a player turning slides off just as the game
    ended left the room. The room's Slides key does nothing on the panel, and L still leaves."""
    snapshot = demo_room("chess", plies=4, room="EN1")
    room = ui.open_room(snapshot)
    slides = ui.app.config.slides
    ui.message(drawn("EN1") | {"game_id": snapshot["game_id"]})
    panel = ui.app.top
    assert isinstance(panel, ResultPanel)
    slide_key = ACTIONS_BY_NAME["slide"].key
    key(ui.app, slide_key, pygame.key.name(slide_key))
    assert ui.app.top is panel and not ui.sent("leave")
    assert ui.app.config.slides == slides
    key(ui.app, pygame.K_l, "l")
    assert ui.sent("leave") and ui.app.top is not room


def test_castling_slides_the_rook_with_the_king(ui: Any, save_png: SavePng) -> None:
    """White's O-O on Black's flipped board: the king slides e1-g1 as any move does, and the
    rook (the mover's own piece that left h1 for f1) slides over the same time: halfway it is
    on g1 (between h1 and f1), h1 empty and the king on f1; at the end the rook is on f1."""
    snapshot = demo_room(
        "chess", position="4k3/8/8/8/8/8/8/4K2R w K - 0 1", plies=0, you="second", room="OO1"
    )
    room = ui.open_room(snapshot)
    view = room.view
    ui.message({"type": "moved", "room": "OO1", "ply": 0, "move": "e1g1", "by": "first"})
    motion = room.marks().motion
    assert motion is not None and motion.path == ("e1", "g1") and motion.captured == ()
    assert motion.companions == (("h1", "f1"),)
    step_slide(ui.app, ui.clock, room.slides, 0.5)
    motion = room.marks().motion
    assert math.dist(moving_at(view, motion), view.pixel_of("f1")) < 1.5, "the king as before"
    assert math.dist(riding_at(view, motion, 0), view.pixel_of("g1")) < 1.5
    middle = shoot(ui.app, ui.tmp_path, "slide-castling-middle")
    save_png(middle.subsurface(view.rect), "slide-castling-middle-board.png")
    finish_slide(ui.app, ui.clock, room.slides)
    end = shoot(ui.app, ui.tmp_path, "slide-castling-end")
    rook, king = white_pixels(end, square(room, "f1")), white_pixels(end, square(room, "g1"))
    assert rook > 150 and king > 150 and abs(rook - king) > 20, (rook, king)
    assert white_pixels(middle, square(room, "h1")) == 0, "the rook left h1"
    assert abs(white_pixels(middle, square(room, "g1")) - rook) < 10, "the rook on g1"
    assert abs(white_pixels(middle, square(room, "f1")) - king) < 10, "the king on f1, no rook"
    assert white_pixels(end, square(room, "h1")) == white_pixels(end, square(room, "e1")) == 0


def test_the_hexgomoku_last_move_dot_fades_in_with_its_stone(ui: Any) -> None:
    """The last-move dot on a stone fading in is not at full strength early in the fade (it
    was, over a faint stone); at the end it is."""
    room = ui.open_room(demo_room("hexgomoku", plies=2, you="second", room="HX2"))
    ui.message({"type": "moved", "room": "HX2", "ply": 2, "move": "3,-2", "by": "first"})
    dot = room.view.pixel_of("3,-2")
    step_slide(ui.app, ui.clock, room.slides, 0.2)
    early = shoot(ui.app, ui.tmp_path, "slide-hexgomoku-dot-early").get_at(dot)
    finish_slide(ui.app, ui.clock, room.slides)
    landed = shoot(ui.app, ui.tmp_path, "slide-hexgomoku-dot-end").get_at(dot)
    assert sum(abs(a - b) for a, b in zip(early[:3], landed[:3], strict=True)) > 90, (
        f"the dot faint early: {early} vs {landed}"
    )
