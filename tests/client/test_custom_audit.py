"""Custom variants in the client, as a map author sees them: what the room offers follows the
variant's rules (variant_info), and every map's board is drawn whole at the smallest window."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pygame
import pytest

from client.demo import demo_room


def undo_button(room: Any) -> Any:
    return next(b for b in room.buttons() if b.action == "undo")


@pytest.mark.parametrize(("variant", "allowed"), [("guards", False), ("stones", True)])
def test_takeback_follows_the_variants_undo_switch(ui: Any, variant: str, allowed: bool) -> None:
    """Guards and Shadows switches undo off (``undo_allowed`` false): Takeback stays off and U
    sends nothing, where it could only be refused; River Stones allows it."""
    snapshot = demo_room("custom", variant, plies=4, you="first", room="UG1")
    assert snapshot["variant_info"]["undo_allowed"] is allowed
    room = ui.open_room(snapshot)
    ui.app.step(0.0)
    assert undo_button(room).enabled is allowed
    ui.key(pygame.K_u)
    assert bool(ui.sent("offer")) is allowed


def test_names_are_shown_whole_or_by_label_never_cut_mid_word() -> None:
    """An ASCII name up to 6 letters is shown whole ("Knight", not "Knig"); a longer name gives
    way to the piece's label when it has one; CJK names up to 4 characters are shown whole."""
    from client.boards.custom import display_name

    assert display_name({"name": "Knight"}, False, cjk_font=True) == "Knight"
    assert display_name({"name": "Knight"}, False, cjk_font=False) == "Knight"
    assert display_name({"name": "Grand Vizier", "label": "V"}, False, cjk_font=True) == "V"
    assert display_name({"name": "弓箭手们"}, False, cjk_font=True) == "弓箭手们"
    assert display_name({"name": "中国象棋将军", "label": "K"}, False, cjk_font=True) == "K"
    assert display_name({"name": "JPS"}, False, cjk_font=True) == "JPS"


def ink_rows(sprite: pygame.Surface, colour: tuple[int, int, int]) -> int:
    """How many pixel rows of the sprite's middle hold text ink (close to ``colour``)."""
    w, h = sprite.get_size()
    rows = 0
    for y in range(h // 5, h - h // 5):
        for x in range(w // 3, w - w // 3):
            c = sprite.get_at((x, y))
            if c.a > 200 and sum(abs(c[i] - colour[i]) for i in range(3)) < 90:
                rows += 1
                break
    return rows


def test_four_cjk_characters_go_on_two_lines() -> None:
    """Four CJK characters on one line were a quarter of the disc high (unreadable at 640x480):
    they are drawn two over two, about twice as tall."""
    from client.boards import custom as board

    if board.cjk_font_path() is None:
        pytest.skip("no CJK font installed here")
    radius = 30
    two = board._piece_sprite(radius, board.RED, False, False, "骑士", True)
    four = board._piece_sprite(radius, board.RED, False, False, "将军大人", True)
    # One line of four was 6 pixel rows high here, against 19 for a two-character name.
    assert ink_rows(four, board.RED) >= ink_rows(two, board.RED)
    assert ink_rows(four, board.RED) > 0.7 * radius


MAPS = Path(os.environ.get("BOARDHALL_JBQ_MAPS", Path(os.environ["BOARDHALL_SHARED"], "jbq-maps")))
PLAYABLE_MAPS = ["example(5x6).xlsx", "standard(7x7).xlsx", "中国象棋.xlsx"]


@pytest.mark.skipif(not (MAPS / PLAYABLE_MAPS[0]).exists(), reason="JBQ maps not available")
@pytest.mark.parametrize("name", PLAYABLE_MAPS)
def test_every_map_is_drawn_whole_in_the_room(name: str) -> None:
    """Each JBQ map in the room's board rectangle: every square inside it, squares apart, each
    piece with its direction glyphs inside its own cell, and the drawing stays in the rect."""
    from client.boards import Marks, make_view
    from client.boards.custom import CustomView
    from client.scenes.room import BOARD_RECT
    from engines.custom import CustomEngine

    engine = CustomEngine()
    vid = engine.load_file(MAPS / name)
    rect = BOARD_RECT.inflate(-8, -8)
    view = make_view("custom", vid, engine.variant_info(vid))
    assert isinstance(view, CustomView)
    view.layout(rect)
    points = list(view.points())
    assert all(rect.collidepoint(view.pixel_of(p)) for p in points)
    assert len({view.pixel_of(p) for p in points}) == len(points)
    # The slide arrowheads reach 0.58 of a cell along a diagonal: 0.41 across, inside the cell.
    assert view.piece_radius() * 2 < view.cell * 0.8 and view.cell > 60
    surface = pygame.Surface((800, 800))
    surface.fill((1, 2, 3))
    state = engine.start(vid)
    view.draw(surface, state, Marks(extra={"coordinates": True}))
    for x in range(0, 800, 4):
        for y in range(0, 800, 4):
            if not rect.collidepoint(x, y):
                assert surface.get_at((x, y))[:3] == (1, 2, 3), (x, y)
