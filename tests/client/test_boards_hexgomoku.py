"""The hexgomoku renderer: pure pixel/point geometry and real drawing onto offscreen surfaces."""

from __future__ import annotations

import math

import pygame
import pytest

from client.boards import Marks, make_view
from client.boards.hexgomoku import HexGomokuView, all_points, coordinate_labels
from tests.client.board_tools import SavePng

RECTS = [pygame.Rect(0, 0, 500, 500), pygame.Rect(37, 11, 900, 700), pygame.Rect(5, 5, 320, 480)]


def new_view() -> HexGomokuView:
    """A fresh renderer through the public factory."""
    view = make_view("hexgomoku")
    assert isinstance(view, HexGomokuView)
    return view


def probe(view: HexGomokuView, surface: pygame.Surface, point: str) -> tuple[int, int, int]:
    """The colour a little below the point's centre: between the lines, inside a stone."""
    x, y = view.pixel_of(point)
    c = surface.get_at((x, round(y + 0.3 * view.spacing)))
    return c.r, c.g, c.b


def is_black(c: tuple[int, int, int]) -> bool:
    return max(c) < 90


def is_white(c: tuple[int, int, int]) -> bool:
    return min(c) > 160 and c[2] > 150


def is_wood(c: tuple[int, int, int]) -> bool:
    return c[0] - c[2] > 50 and c[0] > 150


def test_points_are_the_169_lattice_points() -> None:
    """points() lists 169 distinct q,r with max(|q|,|r|,|q+r|) <= 7."""
    view = new_view()
    pts = list(view.points())
    assert len(pts) == len(set(pts)) == 169
    assert "0,0" in pts and "-7,7" in pts and "7,-7" in pts and "7,7" not in pts


@pytest.mark.parametrize("flipped", [False, True])
@pytest.mark.parametrize("rect", RECTS, ids=lambda r: f"{r.w}x{r.h}")
def test_round_trip_every_point(rect: pygame.Rect, flipped: bool) -> None:
    """point_at(pixel_of(p)) == p for all points, in several sizes, flipped or not."""
    view = new_view()
    view.layout(rect, flipped)
    for p in view.points():
        x, y = view.pixel_of(p)
        assert rect.collidepoint(x, y)
        assert view.point_at((x, y)) == p
        # a click a little off centre still hits it
        off = round(view.spacing * 0.4)
        assert view.point_at((x + off, y)) == p
        assert view.point_at((x, y - off)) == p


@pytest.mark.parametrize("flipped", [False, True])
def test_neighbours_are_one_spacing_apart_and_60_degrees(flipped: bool) -> None:
    """The three directions have equal length and the lattice is equilateral."""
    view = new_view()
    view.layout(pygame.Rect(0, 0, 800, 800), flipped)
    ox, oy = view.pixel_of("0,0")
    for p in ("1,0", "0,1", "1,-1", "-1,0", "0,-1", "-1,1"):
        x, y = view.pixel_of(p)
        assert math.hypot(x - ox, y - oy) == pytest.approx(view.spacing, abs=1.5)
    # flipping turns the board half a circle
    ax, ay = view.pixel_of("3,-2")
    assert (ax - ox, ay - oy) != (0, 0)
    view.layout(pygame.Rect(0, 0, 800, 800), not flipped)
    bx, by = view.pixel_of("3,-2")
    assert (bx - ox, by - oy) == pytest.approx((-(ax - ox), -(ay - oy)), abs=1.5)


def test_misses_give_none() -> None:
    """Far pixels, corners of the rect and points between two points hit nothing."""
    view = new_view()
    view.layout(pygame.Rect(0, 0, 600, 600))
    assert view.point_at((-500, -500)) is None
    assert view.point_at((5000, 300)) is None
    assert view.point_at((2, 2)) is None
    # beyond the rim point 7,0 by more than the tolerance
    x, y = view.pixel_of("7,0")
    assert view.point_at((x + round(view.spacing * 0.7), y)) is None
    # the centre of a small triangle is 0.577 spacing from its corners: a miss
    ax, ay = view.pixel_of("0,0")
    bx, by = view.pixel_of("1,0")
    cx, cy = view.pixel_of("0,1")
    assert view.point_at((round((ax + bx + cx) / 3), round((ay + by + cy) / 3))) is None


def test_bad_point_names_are_refused() -> None:
    """pixel_of refuses text that is not a board point, naming it."""
    view = new_view()
    for bad in ("7,7", "a,b", "1", ""):
        with pytest.raises(ValueError, match=r"hexgomoku|off the board"):
            view.pixel_of(bad)
    assert len(all_points()) == 169


MID = "second;0,0 1,0 -2,3 4,-1;0,1 1,-1 -3,2"
WON = "second;-2,0 -1,0 0,0 1,0 2,0 3,3;-2,1 -1,1 0,1 1,1 4,-4"


@pytest.mark.parametrize("size", [500, 900])
def test_render_opening_mid_game_and_win(save_png: SavePng, size: int) -> None:
    """Stones appear where the position has them; empty points stay wood; marks are drawn."""
    view = new_view()
    rect = pygame.Rect(0, 0, size, size)
    view.layout(rect)
    surface = pygame.Surface(rect.size)

    surface.fill((40, 40, 40))
    view.draw(surface, "first;;", Marks(extra={"hover": "0,0"}))
    save_png(surface, f"hexgomoku-opening-{size}.png")
    for p in ("0,0", "7,0", "-7,7", "3,-5"):
        assert is_wood(probe(view, surface, p)) or p == "0,0"
    assert surface.get_at((2, 2))[:3] == (40, 40, 40)  # outside the hexagon untouched

    surface.fill((40, 40, 40))
    view.draw(surface, MID, Marks(last_move=("-3,2",), selected="2,2", targets=frozenset({"5,0"})))
    path = save_png(surface, f"hexgomoku-midgame-{size}.png")
    assert path.stat().st_size > 1000
    for p in ("0,0", "1,0", "-2,3", "4,-1"):
        assert is_black(probe(view, surface, p)), p
    for p in ("0,1", "1,-1"):
        assert is_white(probe(view, surface, p)), p
    for p in ("2,2", "-5,0", "0,-7"):
        assert is_wood(probe(view, surface, p)), p
    # the last move carries a red dot at its centre
    lx, ly = view.pixel_of("-3,2")
    r, g, b, _ = surface.get_at((lx, ly))
    assert r > 150 and r > g + 60 and r > b + 60

    surface.fill((40, 40, 40))
    five = ("-2,0", "-1,0", "0,0", "1,0", "2,0")
    view.draw(surface, WON, Marks(last_move=("2,0",), highlight=five))
    save_png(surface, f"hexgomoku-win-{size}.png")
    # between two stones of the five the gold line shows
    ax, ay = view.pixel_of("-2,0")
    bx, by = view.pixel_of("-1,0")
    r, g, b, _ = surface.get_at(((ax + bx) // 2, (ay + by) // 2))
    assert r > 200 and g > 150 and b < 120
    assert is_black(probe(view, surface, "3,3"))


def test_render_flipped_and_engine_state(save_png: SavePng) -> None:
    """A real engine state draws like its position string, flipped boards too."""
    engines = pytest.importorskip("engines.registry")
    engine = engines.get("hexgomoku")
    state = engine.start()
    for move in ("0,0", "1,0", "-6,6"):
        state = engine.play(state, move)
    view = new_view()
    view.layout(pygame.Rect(10, 20, 700, 640), flipped=True)
    surface = pygame.Surface((720, 680))
    view.draw(surface, state, Marks(last_move=("-6,6",)))
    save_png(surface, "hexgomoku-flipped-700.png")
    assert is_black(probe(view, surface, "-6,6"))
    assert is_white(probe(view, surface, "1,0"))
    assert is_wood(probe(view, surface, "6,-6"))
    x, y = view.pixel_of("-6,6")
    assert x > 360 and y < 340  # the lower-left corner is upper-right when flipped


def test_coordinates_toggle(save_png: SavePng) -> None:
    """Row and line numbers are written beside the rim only when asked."""
    view = new_view()
    view.layout(pygame.Rect(0, 0, 600, 600))
    a, b = pygame.Surface((600, 600)), pygame.Surface((600, 600))
    view.draw(a, "first;;", Marks(extra={"coordinates": True}))
    view.draw(b, "first;;", Marks())
    save_png(a, "hexgomoku-coordinates-600.png")
    x, y = view.pixel_of("-7,0")  # the r label sits about half a spacing left of the row's end
    box = [(x - dx, y + dy) for dx in range(12, 40) for dy in range(-8, 9)]
    assert any(a.get_at(p) != b.get_at(p) for p in box)
    assert probe(view, a, "3,3") == probe(view, b, "3,3")


@pytest.mark.parametrize("flipped", [False, True])
@pytest.mark.parametrize("spacing", [20.0, 30.0, 47.0, 64.0])
def test_a_stone_on_the_rim_leaves_its_coordinates_readable(
    spacing: float, flipped: bool, save_png: SavePng
) -> None:
    """Every row's and line's number lies clear of the stone its rim point may hold (they were
    half a spacing out, under the stone's edge: a full rim hid -7 to -1 but their minus signs),
    at a small window's spacing and a large one's, the board turned or not."""
    radius = round(spacing * 0.46)  # HexGomokuView.stone_radius
    labels = coordinate_labels((900, 900), spacing, flipped)
    assert len(labels) == 30
    for text, rect, (x, y) in labels:
        nearest = (min(max(x, rect.left), rect.right), min(max(y, rect.top), rect.bottom))
        assert math.dist(nearest, (x, y)) >= radius, f"{text} is under its rim stone"
    view = new_view()
    view.layout(pygame.Rect(0, 0, 760, 760), flipped=flipped)
    rim = [f"{q},{r}" for q, r in all_points() if max(abs(q), abs(r), abs(q + r)) == 7]
    surface = pygame.Surface((760, 760))
    view.draw(surface, "first;" + " ".join(rim) + ";", Marks(extra={"coordinates": True}))
    save_png(surface, f"hexgomoku-rim-stones{'-flipped' if flipped else ''}.png")
