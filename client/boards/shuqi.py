"""Number chess 国际数棋: the 64-point rhombus of a triangular lattice (RULES.md section 3).

Point ``(x, y)`` is drawn at ``(sqrt(3) * u * x, u * y)`` from the board's origin for a unit ``u``,
so neighbours are ``2u`` apart along three directions 60 degrees apart. The two camps are tinted
in their owner's colour and each camp point shows its number beside it; pieces are discs carrying
their numbers. Flipping turns the board half a circle (the left camp comes to the right).

``Marks.extra`` flags: ``coordinates`` (bool, default false) writes each empty point's name
``x,y`` beside it; ``hover`` (a point) rings it.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import pygame

from client.boards import common
from client.boards.base import Marks
from client.boards.lattice import Lattice, LatticeView, SurfaceCache, format_pair, parse_pair

SQRT3 = math.sqrt(3)
CENTRE = 7
LINE_DIRECTIONS = ((1, 1), (1, -1), (0, 2))
HIT = 1.0
"""Click tolerance in units ``u`` (half the neighbour spacing of ``2u``)."""
PLATE = 1.9
"""The board plate reaches this far beyond the outer points, in units ``u``."""

Point = tuple[int, int]

LEFT_CAMP: dict[Point, int] = {
    (0, 7): 0,
    (3, 10): 1,
    (3, 6): 2,
    (3, 8): 3,
    (3, 4): 4,
    (2, 5): 5,
    (2, 7): 6,
    (2, 9): 7,
    (1, 8): 8,
    (1, 6): 9,
}
RIGHT_CAMP: dict[Point, int] = {(14 - x, 14 - y): n for (x, y), n in LEFT_CAMP.items()}
"""The left camp turned half a circle around ``(7, 7)``; first's home."""

FIRST = ((176, 44, 38), (236, 112, 96), (96, 18, 14))
"""Rim, highlight and edge of the first player's pieces (red; home: the right camp)."""
SECOND = ((34, 70, 148), (104, 152, 226), (12, 28, 76))
"""Rim, highlight and edge of the second player's pieces (blue; home: the left camp)."""
FIRST_CAMP_TINT = (226, 150, 130)
SECOND_CAMP_TINT = (146, 170, 214)
LAST_MOVE_LIGHT = (255, 244, 220)
"""The light band inside the last move's orange rings: it stands out from a red or a blue
piece and from either camp by lightness, not by hue."""
FIRST_LABEL = (140, 30, 24)
SECOND_LABEL = (24, 52, 120)


def is_point(x: int, y: int) -> bool:
    """Whether ``(x, y)`` is one of the 64 points."""
    return (x + y) % 2 == 1 and abs(x - CENTRE) + abs(y - CENTRE) <= CENTRE


def all_points() -> list[Point]:
    """Every point, column by column from the left."""
    return [(x, y) for x in range(15) for y in range(15) if is_point(x, y)]


def parse_point(text: str) -> Point:
    """``"x,y"`` to ``(x, y)``; raises ``ValueError`` naming the text when it is not a point."""
    return parse_pair(text, "number-chess point", "x,y", is_point,
                      "is not a number-chess point (x + y odd, inside the rhombus)")


format_point = format_pair
"""``(x, y)`` in the game's notation ``x,y``."""


def parse_position(text: str) -> tuple[str, dict[Point, tuple[str, int]]]:
    """``TURN;PLY;FIRST;SECOND`` to ``(turn, {point: (side, number)})``; raises ``ValueError``."""
    parts = text.split(";")
    if len(parts) != 4 or parts[0] not in ("first", "second"):
        raise ValueError(
            f"not a number-chess position: {text!r} (expected 'TURN;PLY;FIRST;SECOND')"
        )
    pieces: dict[Point, tuple[str, int]] = {}
    for side, field in (("first", parts[2]), ("second", parts[3])):
        items = field.split()
        if len(items) != 10:
            raise ValueError(f"{side} must list ten points in a number-chess position: {field!r}")
        for number, item in enumerate(items):
            pieces[parse_point(item)] = (side, number)
    return parts[0], pieces


@lru_cache(maxsize=64)
def piece_sprite(side: str, number: int, radius: int) -> pygame.Surface:
    """A shaded disc in ``side``'s colour carrying ``number``."""
    rim, light, edge = FIRST if side == "first" else SECOND
    return common.token_sprite(radius, rim, light, edge, str(number), (255, 255, 255))


class ShuqiView(LatticeView):
    """The number-chess rhombus drawn from a position string."""

    def __init__(self, variant: str | None = None, variant_info: Any = None) -> None:
        super().__init__(variant, variant_info)
        self._pairs = tuple(all_points())
        self.layout(self.rect)

    def parse_point(self, text: str) -> Point:
        return parse_point(text)

    # ---- geometry ------------------------------------------------------------------------------

    def layout(self, rect: pygame.Rect, flipped: bool = False) -> None:
        super().layout(rect, flipped)
        width_units = 2 * CENTRE * SQRT3 + 2 * PLATE + 0.1
        height_units = 2 * CENTRE + 2 * PLATE + 0.1
        self.unit = max(0.5, min(self.rect.width / width_units, self.rect.height / height_units))
        self.center = (self.rect.centerx, self.rect.centery)
        self.lattice = rhombus_lattice(self.center, self.unit, flipped)

    def point_at(self, pixel: tuple[int, int]) -> str | None:
        centres = ((format_point(x, y), self._xy(x, y)) for x, y in self._pairs)
        return common.nearest(pixel, centres, HIT * self.unit)

    # ---- drawing -------------------------------------------------------------------------------

    def piece_radius(self) -> int:
        """Piece radius in pixels for the current layout."""
        return max(3, round(self.unit * 0.76))

    def _draw_names(self, surface: pygame.Surface, occupied: set[Point]) -> None:
        """Each empty point's name ``x,y`` beside it, on the side facing the board's centre
        (the camp numbers sit on the outer side; no line runs there)."""
        size = max(8, round(self.unit * 0.62))
        for x, y in self._pairs:
            if (x, y) in occupied:
                continue
            px, py = self._xy(x, y)
            inward = 1 if px <= self.center[0] else -1
            common.draw_text(surface, format_point(x, y), (px + inward * self.unit * 0.3, py),
                             size, common.LABEL, anchor="midleft" if inward > 0 else "midright")

    def paint_piece(self, surface: pygame.Surface, state: Any, point: str,
                    centre: common.Point) -> None:
        position = common.position_string("shuqi", state)
        piece = parse_position(position)[1].get(parse_point(point)) if position else None
        if piece is not None:
            common.blit_centered(surface, piece_sprite(*piece, self.piece_radius()), centre)

    def paint(self, surface: pygame.Surface, state: Any, marks: Marks) -> None:
        position = common.position_string("shuqi", state)
        pieces = parse_position(position)[1] if position is not None else {}
        u = self.unit
        surface.blit(_background(self.rect.size, round(u * 1000), self.flipped), self.rect.topleft)
        for point in marks.last_move[:-1]:  # where the piece left (and the spanned pieces)
            centre = self._xy(*parse_point(point))
            common.disc(surface, (*common.LAST_MOVE, 110), centre, u * 1.0)
            common.ring(surface, LAST_MOVE_LIGHT, centre, u * 0.5, max(2, u * 0.08))
            common.ring(surface, common.LAST_MOVE, centre, u * 0.5 + max(2, u * 0.08),
                        max(2, u * 0.08))
        if marks.extra.get("coordinates", False):  # over the marks: a point's name is read
            self._draw_names(surface, set(pieces))
        for point in marks.highlight:
            common.glow(surface, common.HIGHLIGHT, self._xy(*parse_point(point)), u * 1.35, 240)
        radius = self.piece_radius()
        moving = self.moving(marks)
        for (x, y), (side, number) in pieces.items():
            if format_point(x, y) not in moving:
                common.blit_centered(surface, piece_sprite(side, number, radius), self._xy(x, y))
        self.paint_motion(surface, state, marks)
        for point in marks.highlight:
            centre = self._xy(*parse_point(point))
            common.ring(surface, common.HIGHLIGHT, centre, radius + 3, max(2, u * 0.16))
        if marks.last_move:
            # a light band against the piece, the orange ring against the board: a red piece's
            # mark no longer rests on its red hue alone (red on red, lost to a deuteranope)
            target = self._xy(*parse_point(marks.last_move[-1]))
            band = max(2, u * 0.1)
            common.ring(surface, LAST_MOVE_LIGHT, target, radius + 1, band)
            common.ring(surface, common.LAST_MOVE, target, radius + 1 + band, max(2, u * 0.12))
        for point in marks.targets:  # big enough to be seen at 640x480 (a third of a piece)
            common.disc(surface, (*common.TARGET, 190), self._xy(*parse_point(point)), u * 0.44)
        hover = marks.extra.get("hover")
        if isinstance(hover, str) and hover:
            common.ring(surface, (255, 255, 255, 170), self._xy(*parse_point(hover)), radius + 2, 2)
        if marks.selected:
            centre = self._xy(*parse_point(marks.selected))
            common.ring(surface, common.SELECT, centre, radius + 3, max(2, u * 0.16))


def rhombus_lattice(centre: tuple[float, float], unit: float, flipped: bool) -> Lattice:
    """Point ``(x, y)`` at ``(sqrt(3) * unit * (x - 7), unit * (y - 7))`` from ``centre``."""
    return Lattice(centre, (SQRT3 * unit, 0.0), (0.0, unit), (CENTRE, CENTRE), flipped)


def _background(size: tuple[int, int], unit_milli: int, flipped: bool) -> pygame.Surface:
    """The wooden rhombus, tinted camps, lines and camp numbers (cached per layout)."""
    return _BACKGROUNDS.get((size, unit_milli, flipped),
                            lambda: _paint_background(size, unit_milli / 1000, flipped))


_BACKGROUNDS = SurfaceCache()


def _paint_background(size: tuple[int, int], unit: float, flipped: bool) -> pygame.Surface:
    def paint(big: pygame.Surface, k: float) -> None:
        u = unit * k
        xy = rhombus_lattice((big.get_width() / 2, big.get_height() / 2), u, flipped).xy

        rhombus = [xy(0, 7), xy(7, 0), xy(14, 7), xy(7, 14)]
        # the plate: a dark edge, the wood, then a lighter field, all with round corners
        for grow, colour in (
            (PLATE, common.WOOD_EDGE),
            (PLATE - 0.2, common.WOOD_DARK),
            (PLATE - 0.4, common.WOOD_LIGHT),
        ):
            common.fat_polygon(big, colour, rhombus, grow * u)
        for camp, tint in ((LEFT_CAMP, SECOND_CAMP_TINT), (RIGHT_CAMP, FIRST_CAMP_TINT)):
            corners = [xy(*p) for p in _camp_corners(camp)]
            common.fat_polygon(big, common.lerp(tint, (90, 60, 40), 0.3), corners, 1.2 * u)
            common.fat_polygon(
                big, common.lerp(tint, common.WOOD_LIGHT, 0.3), corners, 1.2 * u - max(1, k)
            )
        width = max(1, round(u * 0.07))
        for x, y in all_points():
            for dx, dy in LINE_DIRECTIONS:
                if is_point(x + dx, y + dy):
                    pygame.draw.line(big, common.LINE, xy(x, y), xy(x + dx, y + dy), width)
        for x, y in all_points():
            pygame.draw.circle(big, common.LINE, xy(x, y), u * 0.13)

    surface = common.supersampled(size, paint, 2)
    # camp numbers: beside each camp point, on the side away from the board's centre
    label_size = max(9, round(unit * 0.9))
    xy = rhombus_lattice((size[0] / 2, size[1] / 2), unit, flipped).xy
    for camp, colour in ((LEFT_CAMP, SECOND_LABEL), (RIGHT_CAMP, FIRST_LABEL)):
        for (x, y), number in camp.items():
            px, py = xy(x, y)
            outward = -1 if (x < CENTRE) != flipped else 1
            common.draw_text(
                surface, str(number), (px + outward * unit * 1.05, py), label_size, colour, True
            )
    return surface


def _camp_corners(camp: dict[Point, int]) -> list[Point]:
    """The three corner points of a camp's triangle (its 0 point and the two ends of its base)."""
    corner = next(p for p, n in camp.items() if n == 0)
    base_x = 3 if corner[0] == 0 else 11
    ys = sorted(y for x, y in camp if x == base_x)
    return [corner, (base_x, ys[0]), (base_x, ys[-1])]


VIEW_CLASS = ShuqiView
