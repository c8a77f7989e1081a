"""Hexagonal five-in-a-row: 169 points of a triangular lattice in a hexagon (RULES.md section 4).

Axial point ``(q, r)`` sits at ``(q + r/2, r * sqrt(3)/2)`` spacings from the centre, so the three
line directions ``(1,0)``, ``(0,1)``, ``(1,-1)`` are 60 degrees apart and the board is a field of
equilateral triangles with flat top and bottom edges. Flipping turns the board half a circle.

``Marks.extra`` flags: ``coordinates`` (bool, default false) writes each row's ``r`` beyond its
left end and each ``q`` beyond the lower end of its line; ``hover`` (a point) shows a faint stone
of the side to move there, or of ``mover`` (a seat) when given (a premove during the opponent's
turn). ``Marks.premove`` shows that side's stone, faint and ringed, on the premove's point.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pygame

from client.boards import common
from client.boards.base import Marks
from client.boards.lattice import Lattice, LatticeView, SurfaceCache, format_pair, parse_pair

SIZE = 7
"""Points on the rim are ``SIZE`` steps from the centre."""
SQRT3_2 = math.sqrt(3) / 2
HIT = 0.55
"""Click tolerance in spacings (the Voronoi cell of a point reaches 0.5 to 0.577)."""
MARGIN = 0.8
"""Board rim beyond the outer points, in spacings (measured square to the rim's edges)."""
RIM = 0.12
"""Dark edge around the rim, in spacings."""
DIRECTIONS = ((1, 0), (0, 1), (1, -1))
STAR_POINTS = ((0, 0), (4, 0), (0, 4), (-4, 4), (-4, 0), (0, -4), (4, -4))

Axial = tuple[int, int]


def on_board(q: int, r: int) -> bool:
    """Whether axial ``(q, r)`` is one of the 169 points."""
    return max(abs(q), abs(r), abs(q + r)) <= SIZE


def all_points() -> list[Axial]:
    """Every point, row by row from the top."""
    return [
        (q, r) for r in range(-SIZE, SIZE + 1) for q in range(-SIZE, SIZE + 1) if on_board(q, r)
    ]


def parse_point(text: str) -> Axial:
    """``"q,r"`` to ``(q, r)``; raises ``ValueError`` naming the text when it is not a point."""
    return parse_pair(text, "hexgomoku point", "q,r", on_board,
                      f"is off the board (max(|q|, |r|, |q+r|) must be <= {SIZE})")


format_point = format_pair
"""``(q, r)`` in the game's notation ``q,r``."""


def parse_position(text: str) -> tuple[str, dict[Axial, str]]:
    """``TURN;BLACK;WHITE`` to ``(turn, {point: "b" or "w"})``; raises ``ValueError``."""
    parts = text.split(";")
    if len(parts) != 3 or parts[0] not in ("first", "second"):
        raise ValueError(f"not a hexgomoku position: {text!r} (expected 'TURN;BLACK;WHITE')")
    stones: dict[Axial, str] = {}
    for colour, field in (("b", parts[1]), ("w", parts[2])):
        for item in field.split():
            stones[parse_point(item)] = colour
    return parts[0], stones


def collinear(points: list[Axial]) -> bool:
    """Whether ``points`` (two or more) lie on one board line."""
    if len(points) < 2:
        return False
    return (
        len({r for _, r in points}) == 1
        or len({q for q, _ in points}) == 1
        or len({q + r for q, r in points}) == 1
    )


class HexGomokuView(LatticeView):
    """The 169-point hexagon with shaded stones."""

    def __init__(self, variant: str | None = None, variant_info: Any = None) -> None:
        super().__init__(variant, variant_info)
        self._pairs = tuple(all_points())
        self.layout(self.rect)

    def parse_point(self, text: str) -> Axial:
        return parse_point(text)

    # ---- geometry ------------------------------------------------------------------------------

    def layout(self, rect: pygame.Rect, flipped: bool = False) -> None:
        super().layout(rect, flipped)
        grow = MARGIN + RIM
        width_units = 2 * (SIZE + grow / SQRT3_2) + 0.1
        height_units = 2 * (SIZE * SQRT3_2 + grow) + 0.1
        self.spacing = max(1.0, min(self.rect.width / width_units, self.rect.height / height_units))
        self.center = (self.rect.centerx, self.rect.centery)
        self.lattice = hex_lattice(self.center, self.spacing, flipped)

    def point_at(self, pixel: tuple[int, int]) -> str | None:
        dx = (pixel[0] - self.center[0]) / self.spacing
        dy = (pixel[1] - self.center[1]) / self.spacing
        if self.flipped:
            dx, dy = -dx, -dy
        r = dy / SQRT3_2
        q = dx - r / 2
        cq, cr = _cube_round(q, r)
        if not on_board(cq, cr):
            return None
        x, y = self._xy(cq, cr)
        if math.hypot(x - pixel[0], y - pixel[1]) > HIT * self.spacing:
            return None
        return format_point(cq, cr)

    # ---- drawing -------------------------------------------------------------------------------

    def stone_radius(self) -> int:
        """Stone radius in pixels for the current layout."""
        return max(2, round(self.spacing * 0.46))

    def paint_piece(self, surface: pygame.Surface, state: Any, point: str,
                    centre: common.Point) -> None:
        stones = parse_position(common.position_string("hexgomoku", state) or "first;;")[1]
        colour = stones.get(parse_point(point))
        if colour is not None:
            common.blit_centered(surface, common.stone_sprite(self.stone_radius(), colour == "b"),
                                 centre)

    def paint(self, surface: pygame.Surface, state: Any, marks: Marks) -> None:
        turn, stones = parse_position(common.position_string("hexgomoku", state) or "first;;")
        s = self.spacing
        surface.blit(
            _background(
                self.rect.size,
                round(s * 1000),
                self.flipped,
                bool(marks.extra.get("coordinates", False)),
            ),
            self.rect.topleft,
        )
        highlight = [parse_point(p) for p in marks.highlight]
        for q, r in highlight:
            common.glow(surface, common.HIGHLIGHT, self._xy(q, r), s * 0.85, 220)
        radius = self.stone_radius()
        sprites = {"b": common.stone_sprite(radius, True), "w": common.stone_sprite(radius, False)}
        moving = self.moving(marks)
        for (q, r), colour in stones.items():
            if format_point(q, r) not in moving:
                common.blit_centered(surface, sprites[colour], self._xy(q, r))
        self.paint_motion(surface, state, marks)
        for q, r in highlight:
            common.ring(surface, common.HIGHLIGHT, self._xy(q, r), radius + 1, max(2, s * 0.09))
        if collinear(highlight):
            ends = sorted(highlight)
            common.thick_line(
                surface, common.HIGHLIGHT, self._xy(*ends[0]), self._xy(*ends[-1]), max(2, s * 0.09)
            )
        if marks.last_move:
            q, r = parse_point(marks.last_move[-1])
            if (q, r) not in stones:
                common.ring(surface, common.LAST_MOVE, self._xy(q, r), s * 0.22, max(2, s * 0.06))
            else:
                alpha = round(255 * self.landed(marks, marks.last_move[-1]))
                common.disc(surface, (*common.LAST_MOVE, alpha), self._xy(q, r), max(2, s * 0.13))
        target = common.PREMOVE if marks.premoving else common.TARGET
        for point in marks.targets:
            common.disc(surface, (*target, 150), self._xy(*parse_point(point)), s * 0.12)
        mover = marks.extra.get("mover", turn)  # during the opponent's turn: a premove's stone
        for point in marks.premove:
            if parse_point(point) in stones:
                continue
            ghost = common.stone_sprite(radius, mover == "first").copy()
            ghost.set_alpha(150)
            centre = self._xy(*parse_point(point))
            common.blit_centered(surface, ghost, centre)
            common.ring(surface, common.PREMOVE, centre, radius + 3, max(2, s * 0.08))
        hover = marks.extra.get("hover")
        if isinstance(hover, str) and hover and parse_point(hover) not in stones:
            ghost = common.stone_sprite(radius, mover == "first").copy()
            ghost.set_alpha(120)
            common.blit_centered(surface, ghost, self._xy(*parse_point(hover)))
        if marks.selected:
            common.ring(
                surface,
                common.PREMOVE if marks.premoving else common.SELECT,
                self._xy(*parse_point(marks.selected)),
                radius + 3,
                max(2, s * 0.07),
            )


def hex_lattice(centre: tuple[float, float], spacing: float, flipped: bool) -> Lattice:
    """Axial ``(q, r)`` to pixels: ``q`` runs right, ``r`` down-right at 60 degrees."""
    return Lattice(centre, (spacing, 0.0), (spacing / 2, spacing * SQRT3_2), flipped=flipped)


def _cube_round(q: float, r: float) -> tuple[int, int]:
    """The lattice point nearest to fractional axial ``(q, r)``."""
    s = -q - r
    rq, rr, rs = round(q), round(r), round(s)
    dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    return int(rq), int(rr)


def _lines() -> Iterator[tuple[Axial, Axial]]:
    """The 45 board lines as (first point, last point)."""
    for dq, dr in DIRECTIONS:
        seen: set[frozenset[Axial]] = set()
        for q, r in all_points():
            if on_board(q - dq, r - dr):
                continue
            end = (q, r)
            while on_board(end[0] + dq, end[1] + dr):
                end = (end[0] + dq, end[1] + dr)
            key = frozenset(((q, r), end))
            if end != (q, r) and key not in seen:
                seen.add(key)
                yield (q, r), end


def _paint_background(
    size: tuple[int, int], spacing: float, flipped: bool, coordinates: bool
) -> pygame.Surface:
    def paint(big: pygame.Surface, k: float) -> None:
        s = spacing * k
        xy = hex_lattice((big.get_width() / 2, big.get_height() / 2), s, flipped).xy

        corners = [(SIZE, 0), (0, SIZE), (-SIZE, SIZE), (-SIZE, 0), (0, -SIZE), (SIZE, -SIZE)]
        for grow, colour in (
            (MARGIN + RIM, common.WOOD_EDGE),
            (MARGIN, common.WOOD_DARK),
            (MARGIN - 0.1, common.WOOD_LIGHT),
        ):
            f = (SIZE + grow / SQRT3_2) / SIZE
            pygame.draw.polygon(big, colour, [xy(q * f, r * f) for q, r in corners])
        # a faint grain: lighter and darker bands across the plate
        band = pygame.Surface(big.get_size(), pygame.SRCALPHA)
        for i in range(0, big.get_height(), max(2, round(s * 0.35))):
            alpha = 10 + round(8 * math.sin(i * 0.37 / k) + 6 * math.sin(i * 0.11 / k))
            pygame.draw.line(band, (120, 80, 40, max(0, alpha)), (0, i), (big.get_width(), i), 1)
        mask = pygame.Surface(big.get_size(), pygame.SRCALPHA)
        f = (SIZE + (MARGIN - 0.1) / SQRT3_2) / SIZE
        pygame.draw.polygon(mask, (255, 255, 255, 255), [xy(q * f, r * f) for q, r in corners])
        band.blit(mask, (0, 0), special_flags=pygame.BLEND_RGBA_MIN)
        big.blit(band, (0, 0))
        width = max(1.0, s * 0.035)
        for a, b in _lines():
            pygame.draw.line(big, common.LINE, xy(*a), xy(*b), round(width))
        for q, r in STAR_POINTS:
            pygame.draw.circle(big, common.LINE, xy(q, r), s * 0.09)

    surface = common.supersampled(size, paint, 2)
    if coordinates:
        _label_lines(surface, spacing, flipped)
    return surface


LABEL_CLEARANCE = 0.56
"""A coordinate's nearest edge lies this far (in spacings) from its rim point, beyond the stone
that may stand there (radius 0.46), so a stone on the rim never hides its row's number."""


def coordinate_labels(
    size: tuple[int, int], spacing: float, flipped: bool
) -> list[tuple[str, pygame.Rect, tuple[float, float]]]:
    """Each row's ``r`` beyond its left end and each ``q`` beyond its lower end, on a board
    surface of ``size``: the text, where it is drawn and the centre of the rim point it names."""
    xy = hex_lattice((size[0] / 2, size[1] / 2), spacing, flipped).xy
    face = common.font(label_size(spacing), True)
    labels: list[tuple[str, pygame.Rect, tuple[float, float]]] = []

    def place(text: str, rim: tuple[float, float], beyond: tuple[float, float]) -> None:
        rect = pygame.Rect((0, 0), face.size(text))
        rect.center = (round(beyond[0]), round(beyond[1]))
        labels.append((text, rect, rim))

    for r in range(-SIZE, SIZE + 1):
        q_first = max(-SIZE, -SIZE - r)
        half_width = face.size(str(r))[0] / 2 / spacing  # along the row
        place(str(r), xy(q_first, r), xy(q_first - LABEL_CLEARANCE - half_width, r))
    for q in range(-SIZE, SIZE + 1):
        r_last = min(SIZE, SIZE - q)
        width, height = face.size(str(q))
        # the label's half extent along its line, which runs 60 degrees below the horizontal
        reach = (width / 4 + height / 2 * SQRT3_2 * 0.8) / spacing
        place(str(q), xy(q, r_last), xy(q, r_last + LABEL_CLEARANCE + reach))
    return labels


def label_size(spacing: float) -> int:
    """The coordinates' font size at ``spacing`` pixels between points."""
    return max(9, round(spacing * 0.36))


def _label_lines(surface: pygame.Surface, spacing: float, flipped: bool) -> None:
    """Write the coordinates beside the rim (:func:`coordinate_labels`)."""
    for text, rect, _ in coordinate_labels(surface.get_size(), spacing, flipped):
        common.draw_text(surface, text, rect.center, label_size(spacing), common.LABEL, True)


def _background(
    size: tuple[int, int], spacing_milli: int, flipped: bool, coordinates: bool
) -> pygame.Surface:
    """The wooden hexagon with its lines (cached: it only depends on the layout)."""
    return _BACKGROUNDS.get(
        (size, spacing_milli, flipped, coordinates),
        lambda: _paint_background(size, spacing_milli / 1000, flipped, coordinates),
    )


_BACKGROUNDS = SurfaceCache()

VIEW_CLASS = HexGomokuView
