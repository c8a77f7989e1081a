"""Custom variants drawn on intersections (``board.look``): Xiangqi's real board, checked on
real pixels of offscreen surfaces (SDL_VIDEODRIVER=dummy)."""

from __future__ import annotations

import copy
from typing import Any

import pygame
import pytest

from client.boards import Marks, make_view
from client.boards.custom import CustomView
from engines.custom import ENGINE
from engines.custom.look import BoardLook, River
from tests.client.board_tools import CUSTOM_RECTS, SavePng, is_wood, rgb

SIZE = (600, 660)


def is_ink(c: tuple[int, int, int]) -> bool:
    """A board line (dark brown, antialiased edges included)."""
    return sum(c) < 480 and c[0] >= c[2]


def xiangqi_info(**board: Any) -> dict[str, Any]:
    """Xiangqi's variant_info with board keys replaced (``None`` removes one)."""
    info = copy.deepcopy(ENGINE.variant_info("xiangqi"))
    for key, value in board.items():
        if value is None:
            info["board"].pop(key, None)
        else:
            info["board"][key] = value
    return info


def view_with(
    info: dict[str, Any], rect: pygame.Rect = CUSTOM_RECTS[0], flipped: bool = False
) -> CustomView:
    view = make_view("custom", "xiangqi", info)
    assert isinstance(view, CustomView)
    view.layout(rect, flipped)
    return view


def drawn(view: CustomView, state: Any = None, marks: Marks | None = None) -> pygame.Surface:
    surface = pygame.Surface(view.rect.bottomright)
    view.draw(surface, state, marks or Marks())
    return surface


def between(view: CustomView, a: str, b: str, t: float = 0.5) -> tuple[float, float]:
    """The pixel ``t`` of the way from point ``a`` to point ``b``."""
    (ax, ay), (bx, by) = view.pixel_of(a), view.pixel_of(b)
    return ax + (bx - ax) * t, ay + (by - ay) * t


def test_the_hint_decides_the_look_and_bad_hints_fall_back_to_cells() -> None:
    """Xiangqi's variant_info gives intersections; other variants and unreadable hints (a newer
    or broken server) give the cells look, never an exception."""
    assert view_with(xiangqi_info()).look.river == River(5, ("楚河", "漢界"))
    stones = make_view("custom", "stones", ENGINE.variant_info("stones"))
    assert isinstance(stones, CustomView) and stones.look == BoardLook()
    for bad in ({"river": {"after_row": 99}}, {"look": "hexes"}, {"marks": "everywhere"}):
        view = view_with(xiangqi_info(**bad))
        assert view.look == BoardLook()
        drawn(view, ENGINE.start("xiangqi"))


@pytest.mark.parametrize("flipped", [False, True])
@pytest.mark.parametrize("rect", CUSTOM_RECTS[:2])
def test_lines_cross_exactly_where_pieces_sit(flipped: bool, rect: pygame.Rect) -> None:
    """Every point's pixel (what a click maps back to it) is a crossing of drawn lines; a little
    off the lines it is wood: the drawing matches the pixel <-> square mapping."""
    view = view_with(xiangqi_info(), rect, flipped)
    surface = drawn(view)
    off = view.cell * 0.4, view.cell * 0.2
    for point in view.points():
        x, y = view.pixel_of(point)
        assert view.point_at((x, y)) == point
        assert is_ink(rgb(surface, x, y)), point
        row, col = (int(n) for n in point.split(","))
        beside = f"{row},{col + 1 if col < 9 else col - 1}"
        assert is_ink(rgb(surface, *between(view, point, beside, 0.3))), point  # its row's line
        if row not in (5, 6):  # next to the river, labels may be there
            assert is_wood(rgb(surface, x + off[0], y + off[1])), point


@pytest.mark.parametrize("flipped", [False, True])
def test_river_breaks_the_inner_lines_only(flipped: bool) -> None:
    """Between rows 5 and 6 the seven inner vertical lines stop; the two edge lines go through."""
    view = view_with(xiangqi_info(river={"after_row": 5}), flipped=flipped)
    surface = drawn(view)
    for col in range(1, 10):
        x, y = between(view, f"5,{col}", f"6,{col}")
        assert is_ink(rgb(surface, x, y)) == (col in (1, 9)), col
        x, y = between(view, f"4,{col}", f"5,{col}")  # elsewhere the line is whole
        assert is_ink(rgb(surface, x, y)), col


def test_river_follows_its_row_when_flipped() -> None:
    """A river below row 3 is drawn between rows 3 and 4 (near the bottom once flipped)."""
    view = view_with(xiangqi_info(river={"after_row": 3}, palaces=None), flipped=True)
    surface = drawn(view)
    assert view.pixel_of("3,5")[1] > view.pixel_of("10,5")[1]
    assert is_wood(rgb(surface, *between(view, "3,5", "4,5")))
    assert is_ink(rgb(surface, *between(view, "5,5", "6,5")))


def test_river_labels_are_written_in_the_river() -> None:
    """楚河 on the left half, 漢界 on the right; the middle of the river stays empty."""
    view = view_with(xiangqi_info())
    surface = drawn(view)
    half = round(view.cell * 0.3)

    def ink_near(x: float, y: float) -> int:
        return sum(
            is_ink(rgb(surface, x + dx, y + dy))
            for dx in range(-3 * half, 3 * half + 1, 2)
            for dy in range(-half, half + 1, 2)
        )

    assert ink_near(*between(view, "5,3", "6,3")) > 20
    assert ink_near(*between(view, "5,7", "6,7")) > 20
    x, y = between(view, "5,5", "6,5")
    assert not any(is_ink(rgb(surface, x, y + dy)) for dy in range(-half, half + 1))


@pytest.mark.parametrize("flipped", [False, True])
def test_palace_diagonals(flipped: bool) -> None:
    """Both palaces have their diagonals (any point along them is line); other squares none."""
    view = view_with(xiangqi_info(), flipped=flipped)
    surface = drawn(view)
    for a, b in (("1,4", "3,6"), ("1,6", "3,4"), ("8,4", "10,6"), ("10,4", "8,6")):
        for t in (0.25, 0.4, 0.75):
            assert is_ink(rgb(surface, *between(view, a, b, t))), (a, b, t)
    for a, b in (("1,2", "2,3"), ("8,7", "9,8"), ("4,4", "5,5")):
        assert is_wood(rgb(surface, *between(view, a, b))), (a, b)


def test_corner_marks_at_start_points_only() -> None:
    """Marked points (a cannon's) have small corner marks; unmarked ones do not; an edge
    point's marks stay inside the board."""
    view = view_with(xiangqi_info())
    surface = drawn(view)
    c = view.cell

    def ink_in_quadrant(point: str, sx: int, sy: int) -> int:
        x, y = view.pixel_of(point)
        near = range(round(c * 0.05), round(c * 0.3))  # off the lines, inside the marks' reach
        return sum(is_ink(rgb(surface, x + sx * i, y + sy * j)) for i in near for j in near)

    for sx in (-1, 1):
        for sy in (-1, 1):
            assert ink_in_quadrant("3,2", sx, sy) > 0, (sx, sy)
            assert ink_in_quadrant("2,2", sx, sy) == 0, (sx, sy)
    # A soldier's point on the edge: marks inside only (outside, just the frame, as at 2,1).
    assert ink_in_quadrant("4,1", 1, 1) > 0 == ink_in_quadrant("2,1", 1, 1)
    assert ink_in_quadrant("4,1", -1, 1) == ink_in_quadrant("2,1", -1, 1)


def test_move_marks_frame_the_point_instead_of_filling_a_cell() -> None:
    """On intersections the last move and the selection are corner brackets around the point:
    the wood between point and bracket keeps its colour (cells look: the whole square tints)."""
    view = view_with(xiangqi_info())
    plain = drawn(view)
    c = view.cell
    for marks in (Marks(last_move=("9,1", "9,3")), Marks(selected="9,3")):
        marked = drawn(view, None, marks)
        x, y = view.pixel_of("9,3")
        assert rgb(marked, x + c * 0.25, y + c * 0.15) == rgb(plain, x + c * 0.25, y + c * 0.15)
        corner = [(x + sx * c * 0.44, y + sy * c * 0.44) for sx in (-1, 1) for sy in (-1, 1)]
        assert all(rgb(marked, *p) != rgb(plain, *p) for p in corner), marks
    stones = make_view("custom", "stones", ENGINE.variant_info("stones"))
    assert isinstance(stones, CustomView)
    stones.layout(pygame.Rect(0, 0, *SIZE))
    x, y = stones.pixel_of("4,2")
    before = rgb(drawn(stones), x + c * 0.25, y + c * 0.15)
    assert rgb(drawn(stones, None, Marks(last_move=("4,2",))), x + c * 0.25, y + c * 0.15) != before


@pytest.mark.parametrize("flipped", [False, True])
def test_coordinates_name_the_lines(flipped: bool) -> None:
    """With coordinates on, column 1's number sits above line 1 and row 1's beside row 1."""
    view = view_with(xiangqi_info(), flipped=flipped)
    plain = drawn(view)
    shown = drawn(view, None, Marks(extra={"coordinates": True}))
    x1, y1 = view.pixel_of("1,1")
    top = view.pixel_of("1,1" if not flipped else "10,1")[1] - view.cell * 0.68
    changed = [
        dx for dx in range(-round(view.cell * 0.6), round(view.cell * 0.6))
        if rgb(shown, x1 + dx, top) != rgb(plain, x1 + dx, top)
    ]
    assert changed and abs(sum(changed) / len(changed)) < view.cell * 0.2
    left = view.pixel_of("1,1" if not flipped else "1,9")[0] - view.cell * 0.68
    changed = [
        dy for dy in range(-round(view.cell * 0.6), round(view.cell * 0.6))
        if rgb(shown, left, y1 + dy) != rgb(plain, left, y1 + dy)
    ]
    assert changed and abs(sum(changed) / len(changed)) < view.cell * 0.2


@pytest.mark.parametrize("flipped", [False, True])
def test_full_position_with_every_mark_stays_inside_and_saves(
    flipped: bool, save_png: SavePng
) -> None:
    """A played position with every mark and coordinates draws only inside its rectangle; pieces
    sit centred on their crossings."""
    rect = pygame.Rect(40, 30, 500, 520)
    view = view_with(xiangqi_info(), rect, flipped)
    state = ENGINE.start("xiangqi")
    for move in ("8,2-8,5", "1,2-3,3", "10,2-8,3"):
        state = ENGINE.play(state, move)
    surface = pygame.Surface((600, 600))
    surface.fill((1, 2, 3))
    marks = Marks(
        selected="8,5",
        targets=frozenset({"8,4", "4,5", "1,5"}),
        last_move=("10,2", "8,3"),
        highlight=("1,5",),
        extra={"coordinates": True, "hover": "5,5"},
    )
    view.draw(surface, state, marks)
    save_png(surface, f"custom-intersections{'-flipped' if flipped else ''}.png")
    for x in range(0, 600, 3):
        for y in range(0, 600, 3):
            if not rect.collidepoint(x, y):
                assert surface.get_at((x, y))[:3] == (1, 2, 3), (x, y)
    x, y = view.pixel_of("8,3")  # the red horse's disc is centred on the crossing
    r = view.piece_radius()
    assert rgb(surface, x - r * 0.95, y)[0] > 150 and rgb(surface, x + r * 0.95, y)[0] > 150


def test_river_labels_the_fonts_cannot_draw_are_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a CJK font, 楚河 / 漢界 are not drawn as boxes: the river stays empty; a Latin
    label is still written (one label goes in the middle)."""
    from client.boards import intersections

    monkeypatch.setattr(intersections.fonts, "has_cjk", lambda: False)
    view = view_with(xiangqi_info())
    surface = drawn(view)
    for col in (3, 7):
        x, y = between(view, f"5,{col}", f"6,{col}")
        assert not any(is_ink(rgb(surface, x + dx, y)) for dx in range(-20, 21)), col
    view = view_with(xiangqi_info(river={"after_row": 5, "labels": ["RIVER"]}))
    surface = drawn(view)
    x, y = between(view, "5,5", "6,5")
    assert any(is_ink(rgb(surface, x + dx, y + dy)) for dx in range(-20, 21) for dy in (-2, 0, 2))


@pytest.mark.parametrize(("rows", "cols"), [(1, 2), (2, 1), (2, 2), (20, 20)])
def test_tiny_and_huge_boards_on_intersections(rows: int, cols: int) -> None:
    """Any board size draws on intersections with every feature it can have."""
    layout = [" ".join(["."] * cols) for _ in range(rows)]
    layout[0] = " ".join(["1"] + ["."] * (cols - 1))
    layout[-1] = " ".join(["."] * (cols - 1) + ["2"])
    board: dict[str, Any] = {
        "rows": rows, "cols": cols, "layout": layout, "look": "intersections",
        "marks": [[1, 1], [rows, cols]],
    }
    if rows > 1:
        board["river"] = {"after_row": 1, "labels": ["a", "河"]}
    if rows > 1 and cols > 1:
        board["palaces"] = [{"rows": [1, rows], "cols": [1, cols]}]
    info = {
        "board": board,
        "pieces": [
            {"name": "K", "side": "red", "captain": True, "moves": "2,4,5,7;"},
            {"name": "k", "side": "blue", "captain": True, "moves": "2,4,5,7;"},
        ],
    }
    view = make_view("custom", "tiny", info)
    assert isinstance(view, CustomView) and view.look.look == "intersections"
    view.layout(pygame.Rect(0, 0, 300, 300))
    surface = drawn(view, None, Marks(selected="1,1", last_move=("1,1",)))
    x, y = view.pixel_of("1,1")
    assert is_ink(rgb(surface, x, y)) or rows == cols == 1
