"""The number-chess renderer: the 64-point rhombus geometry and real drawing."""

from __future__ import annotations

import math

import pygame
import pytest

from client.boards import Marks, make_view
from client.boards.shuqi import LEFT_CAMP, RIGHT_CAMP, ShuqiView, all_points, parse_position
from tests.client.board_tools import SavePng
from tests.client.helpers import contrast

RECTS = [pygame.Rect(0, 0, 500, 500), pygame.Rect(20, 30, 900, 600), pygame.Rect(0, 0, 1200, 400)]
START = (
    "first;0;14,7 11,4 11,8 11,6 11,10 12,9 12,7 12,5 13,6 13,8;"
    "0,7 3,10 3,6 3,8 3,4 2,5 2,7 2,9 1,8 1,6"
)
MID = (
    "first;12;9,6 11,4 8,7 10,5 11,10 6,5 12,7 12,5 7,8 5,6;"
    "4,7 3,10 5,10 3,8 6,7 2,5 2,7 2,9 1,8 1,6"
)
# second (blue) has filled the right camp; first (red) has filled the left
DONE = (
    "first;80;0,7 3,10 3,6 3,8 3,4 2,5 2,7 2,9 1,8 1,6;"
    "14,7 11,4 11,8 11,6 11,10 12,9 12,7 12,5 13,6 13,8"
)


def new_view() -> ShuqiView:
    """A fresh renderer through the public factory."""
    view = make_view("shuqi")
    assert isinstance(view, ShuqiView)
    return view


def probe(surface: pygame.Surface, view: ShuqiView, point: str) -> tuple[int, int, int]:
    """Colour half a unit left of the point: between two lines, beside the piece's digit."""
    x, y = view.pixel_of(point)
    c = surface.get_at((round(x - view.unit * 0.5), y))
    return c.r, c.g, c.b


def is_red(c: tuple[int, int, int]) -> bool:
    return c[0] > 120 and c[1] < 130 and c[0] > c[1] + 80 and c[0] > c[2] + 80


def is_blue(c: tuple[int, int, int]) -> bool:
    return c[2] > 110 and c[2] > c[0] + 50


def is_board(c: tuple[int, int, int]) -> bool:
    return not is_red(c) and not is_blue(c) and min(c) > 100


def test_the_64_points_and_camps() -> None:
    """64 points with x+y odd inside the rhombus; both camps are board points."""
    pts = all_points()
    assert len(pts) == 64
    assert all((x + y) % 2 == 1 and abs(x - 7) + abs(y - 7) <= 7 for x, y in pts)
    assert set(LEFT_CAMP) | set(RIGHT_CAMP) <= set(pts)
    assert RIGHT_CAMP[(11, 4)] == 1 and RIGHT_CAMP[(13, 8)] == 9


@pytest.mark.parametrize("flipped", [False, True])
@pytest.mark.parametrize("rect", RECTS, ids=lambda r: f"{r.w}x{r.h}")
def test_round_trip_every_point(rect: pygame.Rect, flipped: bool) -> None:
    """point_at(pixel_of(p)) == p for every point; a click 0.8 unit off still hits it."""
    view = new_view()
    view.layout(rect, flipped)
    for p in view.points():
        x, y = view.pixel_of(p)
        assert rect.collidepoint(x, y)
        assert view.point_at((x, y)) == p
        off = round(view.unit * 0.8)
        for dx, dy in ((off, 0), (-off, 0), (0, off), (0, -off)):
            assert view.point_at((x + dx, y + dy)) == p


@pytest.mark.parametrize("flipped", [False, True])
def test_equilateral_triangles(flipped: bool) -> None:
    """A vertical step and both diagonal steps have the same length 2u (RULES.md drawing)."""
    view = new_view()
    view.layout(pygame.Rect(0, 0, 1000, 700), flipped)
    ox, oy = view.pixel_of("6,7")
    for p in ("6,9", "6,5", "7,8", "7,6", "5,8", "5,6"):
        x, y = view.pixel_of(p)
        assert math.hypot(x - ox, y - oy) == pytest.approx(2 * view.unit, abs=1.5)
    lx, _ = view.pixel_of("0,7")
    rx, _ = view.pixel_of("14,7")
    assert (lx < rx) != flipped


def test_misses_and_bad_points() -> None:
    """Far pixels and the middle of a triangle hit nothing; bad points are refused."""
    view = new_view()
    view.layout(pygame.Rect(0, 0, 900, 600))
    assert view.point_at((-100, 300)) is None
    assert view.point_at((5, 5)) is None
    assert view.point_at((10_000, 10_000)) is None
    ax, ay = view.pixel_of("6,7")
    bx, by = view.pixel_of("7,8")
    cx, cy = view.pixel_of("7,6")
    assert view.point_at((round((ax + bx + cx) / 3), round((ay + by + cy) / 3))) is None
    for bad in ("7,7", "0,0", "x,y", "3"):
        with pytest.raises(ValueError, match="number-chess point"):
            view.pixel_of(bad)


def test_position_reading() -> None:
    """The position string gives each piece its side and number; bad strings are refused."""
    turn, pieces = parse_position(START)
    assert turn == "first" and len(pieces) == 20
    assert pieces[(13, 8)] == ("first", 9) and pieces[(0, 7)] == ("second", 0)
    for bad in ("", "first;0;;", "third;0;" + START.split(";", 2)[2], START.replace("14,7", "7,7")):
        with pytest.raises(ValueError):
            parse_position(bad)


@pytest.mark.parametrize("size", [(500, 500), (900, 620)])
def test_render_start_mid_game_and_end(save_png: SavePng, size: tuple[int, int]) -> None:
    """Red and blue discs stand where the position has them; marks show; empty points are wood."""
    view = new_view()
    rect = pygame.Rect((0, 0), size)
    view.layout(rect)
    surface = pygame.Surface(size)
    name = f"{size[0]}x{size[1]}"

    surface.fill((40, 40, 40))
    view.draw(surface, START, Marks())
    save_png(surface, f"shuqi-opening-{name}.png")
    for p in ("14,7", "11,4", "13,8", "12,7"):
        assert is_red(probe(surface, view, p)), p
    for p in ("0,7", "3,10", "1,6", "2,7"):
        assert is_blue(probe(surface, view, p)), p
    for p in ("7,0", "7,14", "6,7", "9,6"):
        assert is_board(probe(surface, view, p)), p

    surface.fill((40, 40, 40))
    marks = Marks(
        selected="7,8",
        targets=frozenset({"8,9", "6,9", "9,10"}),
        last_move=("3,6", "4,7"),
        extra={"hover": "10,9"},
    )
    view.draw(surface, MID, marks)
    save_png(surface, f"shuqi-midgame-{name}.png")
    assert is_red(probe(surface, view, "9,6")) and is_blue(probe(surface, view, "4,7"))
    assert is_blue(probe(surface, view, "6,7"))
    assert is_board(probe(surface, view, "11,6"))  # red 3 left it
    x, y = view.pixel_of("3,6")  # the vacated start of the last move is tinted orange
    r, g, b, _ = surface.get_at((x + round(view.unit * 0.8), y))  # outside its ring
    assert r > g + 30 and r > b + 50
    tx, ty = view.pixel_of("8,9")  # a target dot
    r, g, b, _ = surface.get_at((tx, ty))
    assert g > r and g > b

    view.layout(rect, flipped=True)
    surface.fill((40, 40, 40))
    view.draw(surface, DONE, Marks(highlight=tuple(f"{x},{y}" for x, y in LEFT_CAMP)))
    save_png(surface, f"shuqi-over-flipped-{name}.png")
    assert is_red(probe(surface, view, "0,7")) and is_blue(probe(surface, view, "14,7"))
    assert view.pixel_of("0,7")[0] > size[0] // 2
    x, y = view.pixel_of("0,7")  # the highlighted pieces wear a gold ring
    r, g, b, _ = surface.get_at((x, y - view.piece_radius() - 2))
    assert r > 200 and g > 150 and b < 120


def test_engine_state_draws_like_its_position() -> None:
    """A real number-chess engine state renders the same pixels as its position string."""
    engines = pytest.importorskip("engines.registry")
    engine = engines.get("shuqi")
    state = engine.start()
    state = engine.play(state, engine.legal_moves(state)[0])
    view = new_view()
    view.layout(pygame.Rect(0, 0, 600, 400))
    a, b = pygame.Surface((600, 400)), pygame.Surface((600, 400))
    view.draw(a, state, Marks())
    view.draw(b, engine.position(state), Marks())
    assert pygame.image.tobytes(a, "RGB") == pygame.image.tobytes(b, "RGB")
    reds = sum(is_red(probe(a, view, p)) for p in view.points())
    assert reds == 10


def mark_pixels(view: ShuqiView, marks: Marks, point: str
                ) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """(marked, unmarked) colours of each pixel around ``point`` that ``marks`` change on
    the MID position."""
    plain, marked = pygame.Surface((768, 768)), pygame.Surface((768, 768))
    view.draw(plain, MID, Marks())
    view.draw(marked, MID, marks)
    x, y = view.pixel_of(point)
    reach = 2 * view.piece_radius()
    changed = []
    for dx in range(-reach, reach + 1):
        for dy in range(-reach, reach + 1):
            a, b = marked.get_at((x + dx, y + dy))[:3], plain.get_at((x + dx, y + dy))[:3]
            if a != b:
                changed.append((a, b))
    return changed


@pytest.mark.parametrize("move", [("11,6", "10,5"), ("3,6", "4,7")], ids=["red", "blue"])
def test_the_last_move_stands_out_by_lightness_on_either_sides_piece(
        save_png: SavePng, move: tuple[str, str]) -> None:
    """The last move's ring around the piece that moved was orange: on a red piece (and the
    red camp) it differed by hue alone, about 1.4:1 in lightness, so a deuteranope (and anyone
    at a glance) could hardly tell where red had moved. A light band now runs inside it: at
    least a tenth of the mark is 3:1 from the piece's own colour, whichever side moved, and
    the empty point it left is ringed too (a part of that mark 2:1 from what is under it)."""
    origin, target = move
    view = new_view()
    view.layout(pygame.Rect(0, 0, 768, 768))
    marks = Marks(last_move=move, extra={"coordinates": True})
    plain = pygame.Surface((768, 768))
    view.draw(plain, MID, Marks())
    x, y = view.pixel_of(target)
    c = plain.get_at((round(x - 0.6 * view.piece_radius()), y))
    body = (c.r, c.g, c.b)
    assert is_red(body) if target == "10,5" else is_blue(body), body
    around = mark_pixels(view, marks, target)
    standing_out = sum(contrast(a, body) >= 3 for a, _ in around) / len(around)
    assert standing_out >= 0.1, standing_out
    left = mark_pixels(view, marks, origin)
    seen = sum(contrast(a, b) >= 2 for a, b in left) / len(left)
    assert seen >= 0.07, seen
    shot = pygame.Surface((768, 768))
    view.draw(shot, MID, marks)
    save_png(shot, f"shuqi_last_move_{'red' if target == '10,5' else 'blue'}.png")


def test_a_destination_mark_is_seen_in_a_small_window(save_png: SavePng) -> None:
    """The green mark of a picked piece's destination was a dot of 0.28 units (about 3 pixels
    across in the 640x480 window's board of 380 pixels), easy to miss on the wood; it now
    covers at least a quarter of a piece's disc, at any size."""
    view = new_view()
    for side in (380, 760):  # the room's board at 640x480 and at 1280x800
        view.layout(pygame.Rect(0, 0, side, side))
        plain, marked = pygame.Surface((side, side)), pygame.Surface((side, side))
        view.draw(plain, START, Marks(selected="11,6"))
        view.draw(marked, START, Marks(selected="11,6", targets=frozenset({"10,5", "10,7"})))
        save_png(marked, f"shuqi-targets-{side}.png")
        x, y = view.pixel_of("10,5")
        reach = round(view.unit)
        changed = sum(
            plain.get_at((x + dx, y + dy)) != marked.get_at((x + dx, y + dy))
            for dx in range(-reach, reach + 1)
            for dy in range(-reach, reach + 1)
        )
        disc = math.pi * view.piece_radius() ** 2
        assert changed >= disc / 4, (side, changed, disc)
