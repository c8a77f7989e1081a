"""Chess: an 8 x 8 wooden board with procedural vector pieces (no artwork, no font glyphs).

Pieces are drawn from polygons and circles in a 100 x 100 box, stroked then filled at a larger
scale and reduced, so they stay smooth at any square size. Squares are named ``a1``..``h8``;
unflipped, White sits at the bottom.

``Marks.extra`` flags: ``coordinates`` (bool, default true) draws file letters and rank numbers
inside the edge squares; ``hover`` (a square) outlines it; ``drag`` (``(square, (x, y))``) draws
that square's piece at the pixel instead of on its square. ``Marks.motion`` slides the moved piece.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

import pygame

from client.boards import common
from client.boards.base import Marks
from client.boards.squares import SquareBoardView, dragged

FILES = "abcdefgh"
LIGHT_SQUARE = (238, 216, 178)
DARK_SQUARE = (178, 134, 96)
LAST_MOVE_TINT = (206, 200, 96, 120)
SELECT_TINT = (72, 130, 70, 120)
TARGET_MARK = (40, 70, 40, 90)
HOVER_EDGE = (250, 248, 240)
CHECK_LIGHT = (255, 236, 200)
"""The light ring inside the red one around a king in check."""

WHITE_FILL = (248, 244, 234)
WHITE_EDGE = (46, 40, 36)
BLACK_FILL = (52, 48, 46)
BLACK_EDGE = (14, 12, 10)
BLACK_DETAIL = (176, 168, 150)

Point = tuple[float, float]
Shape = tuple[Any, ...]
"""``("poly", points)``, ``("circle", centre, radius)`` or ``("rect", x, y, w, h)``."""


def parse_square(text: str) -> tuple[int, int]:
    """``"e4"`` to ``(file, rank)`` counted from 0; raises ``ValueError`` naming the text."""
    if len(text) != 2 or text[0] not in FILES or text[1] not in "12345678":
        raise ValueError(f"not a chess square: {text!r} (expected a1..h8)")
    return FILES.index(text[0]), int(text[1]) - 1


def square_name(file: int, rank: int) -> str:
    """``(file, rank)`` counted from 0 to ``"e4"``."""
    return f"{FILES[file]}{rank + 1}"


def parse_fen_board(fen: str) -> dict[str, str]:
    """The piece placement of a FEN: ``{"e1": "K", "e8": "k", ...}``; raises ``ValueError``."""
    placement = fen.split()[0] if fen.split() else ""
    ranks = placement.split("/")
    if len(ranks) != 8:
        raise ValueError(f"not a FEN placement (8 ranks separated by '/'): {placement!r}")
    pieces: dict[str, str] = {}
    for i, row in enumerate(ranks):
        rank = 7 - i
        file = 0
        for ch in row:
            if ch.isdigit():
                file += int(ch)
            elif ch in "pnbrqkPNBRQK" and file < 8:
                pieces[square_name(file, rank)] = ch
                file += 1
            else:
                raise ValueError(f"bad FEN rank {row!r} in {placement!r}")
        if file != 8:
            raise ValueError(f"FEN rank {row!r} does not have 8 squares")
    return pieces


# ---- piece shapes in a 100 x 100 box ----------------------------------------------------------


def _curve(a: Sequence[float], c: Sequence[float], b: Sequence[float], n: int = 6) -> list[Point]:
    """Points of the quadratic Bezier from ``a`` to ``b`` with control ``c`` (``a`` excluded)."""
    out = []
    for i in range(1, n + 1):
        t = i / n
        u = 1 - t
        out.append(
            (
                u * u * a[0] + 2 * u * t * c[0] + t * t * b[0],
                u * u * a[1] + 2 * u * t * c[1] + t * t * b[1],
            )
        )
    return out


_BASE: list[Shape] = [
    ("poly", [(24, 91), (76, 91), (76, 85), (72, 81), (28, 81), (24, 85)]),
    ("poly", [(30, 82), (70, 82), (67, 75), (33, 75)]),
]


def _flared_body(top_y: float, top_half: float, bottom_half: float = 17) -> Shape:
    left = [
        (50 - top_half, top_y),
        *_curve((50 - top_half, top_y), (47 - top_half, 66), (50 - bottom_half, 77)),
    ]
    right = [
        (50 + bottom_half, 77),
        *_curve((50 + bottom_half, 77), (53 + top_half, 66), (50 + top_half, top_y)),
    ]
    return ("poly", left + right)


PIECES: dict[str, tuple[list[Shape], list[Shape]]] = {
    # kind: (shapes, detail lines drawn after the fill)
    "p": (
        [
            _flared_body(46, 7),
            ("poly", [(36, 50), (64, 50), (62, 43), (38, 43)]),
            ("circle", (50, 31), 12),
            *_BASE,
        ],
        [],
    ),
    "r": (
        [
            ("poly", [(35, 38), (65, 38), (63, 72), (37, 72)]),
            (
                "poly",
                [
                    (28, 38),
                    (28, 17),
                    (37, 17),
                    (37, 24),
                    (45, 24),
                    (45, 17),
                    (55, 17),
                    (55, 24),
                    (63, 24),
                    (63, 17),
                    (72, 17),
                    (72, 38),
                ],
            ),
            ("poly", [(31, 77), (69, 77), (67, 69), (33, 69)]),
            *_BASE,
        ],
        [("line", (32, 38), (68, 38))],
    ),
    "n": (
        [
            (
                "poly",
                [
                    (31, 77),
                    (34, 64),
                    (42, 54),
                    (46, 47),
                    (40, 49),
                    (30, 54),
                    (22, 53),
                    (17, 47),
                    (18, 41),
                    (26, 32),
                    (33, 23),
                    (36, 14),
                    (41, 9),
                    (44, 16),
                    (50, 14),
                    (62, 18),
                    (72, 30),
                    (77, 46),
                    (77, 62),
                    (73, 77),
                ],
            ),
            *_BASE,
        ],
        [
            ("dot", (37, 27), 3.2),
            ("dot", (22, 45), 2.0),
            ("line", (58, 20), (68, 31)),
            ("line", (68, 31), (72, 46)),
        ],
    ),
    "b": (
        [
            (
                "poly",
                [
                    (41, 60),
                    (59, 60),
                    *_curve((59, 60), (60, 70), (67, 77)),
                    (33, 77),
                    *_curve((33, 77), (40, 70), (41, 60)),
                ],
            ),
            ("poly", [(35, 64), (65, 64), (63, 56), (37, 56)]),
            (
                "poly",
                [
                    (50, 17),
                    (57, 23),
                    (63, 32),
                    (65, 42),
                    (61, 52),
                    (56, 57),
                    (44, 57),
                    (39, 52),
                    (35, 42),
                    (37, 32),
                    (43, 23),
                ],
            ),
            ("circle", (50, 14), 5.5),
            *_BASE,
        ],
        [("line", (55, 30), (47, 42))],
    ),
    "q": (
        [
            (
                "poly",
                [
                    (32, 60),
                    (68, 60),
                    *_curve((68, 60), (64, 70), (68, 77)),
                    (32, 77),
                    *_curve((32, 77), (36, 70), (32, 60)),
                ],
            ),
            (
                "poly",
                [
                    (27, 60),
                    (20, 28),
                    (35, 46),
                    (34, 20),
                    (45, 43),
                    (50, 16),
                    (55, 43),
                    (66, 20),
                    (65, 46),
                    (80, 28),
                    (73, 60),
                ],
            ),
            ("poly", [(28, 65), (72, 65), (70, 57), (30, 57)]),
            ("circle", (20, 26), 5),
            ("circle", (34, 18), 5),
            ("circle", (50, 13), 5.5),
            ("circle", (66, 18), 5),
            ("circle", (80, 26), 5),
            *_BASE,
        ],
        [],
    ),
    "k": (
        [
            ("rect", 46.5, 4, 7, 22),
            ("rect", 40, 9, 20, 7),
            (
                "poly",
                [
                    (34, 60),
                    (66, 60),
                    *_curve((66, 60), (63, 70), (68, 77)),
                    (32, 77),
                    *_curve((32, 77), (37, 70), (34, 60)),
                ],
            ),
            (
                "poly",
                [
                    (31, 60),
                    (23, 44),
                    (24, 34),
                    (32, 28),
                    (42, 30),
                    (50, 38),
                    (58, 30),
                    (68, 28),
                    (76, 34),
                    (77, 44),
                    (69, 60),
                ],
            ),
            ("poly", [(50, 38), (44, 30), (50, 24), (56, 30)]),
            ("poly", [(29, 66), (71, 66), (69, 57), (31, 57)]),
            *_BASE,
        ],
        [],
    ),
}


def _paint_shape(
    big: pygame.Surface, shape: Shape, k: float, colour: common.Color, grow: float
) -> None:
    kind = shape[0]
    if kind == "poly":
        pts = [(x * k, y * k) for x, y in shape[1]]
        if grow > 0:
            pygame.draw.polygon(big, colour, pts, max(1, round(grow * 2)))
            for p in pts:
                pygame.draw.circle(big, colour, p, grow)
        pygame.draw.polygon(big, colour, pts)
    elif kind == "circle":
        (cx, cy), r = shape[1], shape[2]
        pygame.draw.circle(big, colour, (cx * k, cy * k), r * k + grow)
    elif kind == "rect":
        _, x, y, w, h = shape
        rect = pygame.Rect(
            round(x * k - grow),
            round(y * k - grow),
            round(w * k + 2 * grow),
            round(h * k + 2 * grow),
        )
        pygame.draw.rect(big, colour, rect, border_radius=round(k))


@lru_cache(maxsize=32)
def piece_sprite(piece: str, size: int) -> pygame.Surface:
    """The sprite of FEN letter ``piece`` (``K`` white king, ``k`` black king) for a square of
    ``size`` px."""
    white = piece.isupper()
    shapes, details = PIECES[piece.lower()]
    fill, edge = (WHITE_FILL, WHITE_EDGE) if white else (BLACK_FILL, BLACK_EDGE)
    detail = WHITE_EDGE if white else BLACK_DETAIL

    def paint(big: pygame.Surface, scale: float) -> None:
        k = big.get_width() / 100
        stroke = max(1.0, 2.6 * k)
        for shape in shapes:
            _paint_shape(big, shape, k, edge, stroke)
        for shape in shapes:
            _paint_shape(big, shape, k, fill, 0)
        # light from the left: darken the right side of the fill a little
        shade = pygame.Surface(big.get_size())
        for x in range(0, big.get_width(), max(1, round(k))):
            t = x / big.get_width()
            v = round(255 - (48 if white else 30) * max(0.0, t - 0.3) / 0.7)
            shade.fill((v, v, v), pygame.Rect(x, 0, max(1, round(k)), big.get_height()))
        big.blit(shade, (0, 0), special_flags=pygame.BLEND_RGB_MULT)
        for d in details:
            if d[0] == "line":
                a, b = d[1], d[2]
                common.thick_line(
                    big, detail, (a[0] * k, a[1] * k), (b[0] * k, b[1] * k), stroke * 0.9
                )
            elif d[0] == "dot":
                pygame.draw.circle(big, detail, (d[1][0] * k, d[1][1] * k), d[2] * k)

    return common.supersampled((size, size), paint, 4)


class ChessView(SquareBoardView):
    """An 8 x 8 board drawn from a FEN."""

    size = 8

    def points(self) -> Iterable[str]:
        return [square_name(f, r) for r in range(8) for f in range(8)]

    def cell_of(self, point: str) -> tuple[int, int]:
        file, rank = parse_square(point)
        if self.flipped:
            return 7 - file, rank
        return file, 7 - rank

    def point_in_cell(self, col: int, row: int) -> str | None:
        if self.flipped:
            return square_name(7 - col, row)
        return square_name(col, 7 - row)

    def pieces_of(self, state: Any) -> dict[str, tuple[str | None, str]]:
        """FEN letters by square; upper case (White) is the first seat."""
        fen = common.position_string("chess", state)
        pieces = parse_fen_board(fen) if fen else {}
        return {sq: ("first" if p.isupper() else "second", p) for sq, p in pieces.items()}

    def piece_icon(self, code: str, size: int) -> pygame.Surface | None:
        return piece_sprite(code, size) if code.lower() in PIECES else None

    def paint_piece(
        self, surface: pygame.Surface, state: Any, point: str, centre: common.Point
    ) -> None:
        piece = self.pieces_of(state).get(point)
        if piece is not None:
            common.blit_centered(surface, piece_sprite(piece[1], self.square), centre)

    def paint(self, surface: pygame.Surface, state: Any, marks: Marks) -> None:
        fen = common.position_string("chess", state)
        pieces = parse_fen_board(fen) if fen is not None else {}
        sq = self.square
        surface.blit(self.board_image(bool(marks.extra.get("coordinates", True))), self.origin)
        self.tint_squares(surface, marks, LAST_MOVE_TINT, SELECT_TINT)
        clip = surface.get_clip()
        for name in marks.highlight:
            surface.set_clip(self.square_rect(name).clip(clip))
            common.glow(surface, common.CHECK, self.pixel_of(name), sq * 0.95, 255)
            # and a light ring inside a red one: the check shows by lightness on either
            # square, where the glow is about as light as a dark square (red on brown)
            band = max(2, sq * 0.05)
            common.ring(surface, CHECK_LIGHT, self.pixel_of(name), sq * 0.47 - band, band)
            common.ring(surface, common.CHECK, self.pixel_of(name), sq * 0.47, band)
        surface.set_clip(clip)
        hover = marks.extra.get("hover")
        if isinstance(hover, str) and (hover in pieces or hover in marks.targets):
            self.outline(surface, hover, HOVER_EDGE)
        drag = dragged(marks)
        resting = set(pieces) - {drag[0] if drag else None, *self.moving(marks)}
        for name in resting:
            common.blit_centered(surface, piece_sprite(pieces[name], sq), self.pixel_of(name))
        self.paint_motion(surface, state, marks)
        target = common.PREMOVE_TARGET if marks.premoving else TARGET_MARK
        for name in marks.targets:
            centre = self.pixel_of(name)
            if name in pieces:
                common.ring(surface, target, centre, sq * 0.5, sq * 0.08)
            else:
                common.disc(surface, target, centre, sq * 0.15)
        self.premove_arrow(surface, marks)
        if drag is not None and drag[0] in pieces:
            common.blit_centered(surface, piece_sprite(pieces[drag[0]], sq), drag[1])

    def paint_squares(self, image: pygame.Surface, labels: bool) -> None:
        """Light and dark squares; with ``labels``, file letters and rank numbers on the edges."""
        sq = self.square
        image.fill(LIGHT_SQUARE)
        for row in range(8):
            for col in range(8):
                if (row + col) % 2:
                    image.fill(DARK_SQUARE, pygame.Rect(col * sq, row * sq, sq, sq))
        if labels:
            self._draw_coordinates(image, (-self.origin[0], -self.origin[1]))

    def _draw_coordinates(self, surface: pygame.Surface, offset: tuple[int, int]) -> None:
        sq = self.square
        size = max(12, round(sq * 0.27))
        pad = max(2, sq // 20)
        for col in range(8):
            file = 7 - col if self.flipped else col
            rank = 7 if self.flipped else 0
            rect = self.square_rect(square_name(file, rank)).move(offset)
            colour = DARK_SQUARE if (file + rank) % 2 else LIGHT_SQUARE
            common.draw_text(
                surface,
                FILES[file],
                (rect.right - pad, rect.bottom - pad + 1),
                size,
                colour,
                True,
                "bottomright",
            )
        for row in range(8):
            rank = row if self.flipped else 7 - row
            file = 7 if self.flipped else 0
            rect = self.square_rect(square_name(file, rank)).move(offset)
            colour = DARK_SQUARE if (file + rank) % 2 else LIGHT_SQUARE
            common.draw_text(
                surface,
                str(rank + 1),
                (rect.left + pad, rect.top + pad),
                size,
                colour,
                True,
                "topleft",
            )


VIEW_CLASS = ChessView
