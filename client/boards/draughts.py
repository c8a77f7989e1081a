"""Draughts: the 10 x 10 (international) or 8 x 8 (brazilian, russian) board, PDN square numbers.

Only the dark squares are points, named by their PDN number as a string (``"1"``..``"50"``):
numbered row by row from the top left as White sees it, the first dark square of the top row
being the second square (RULES.md section 2). Unflipped, White sits at the bottom.

``Marks.extra`` flags: ``numbers`` (bool, default true; ``coordinates`` stands in when it is
absent) writes each dark square's number in its corner; ``hover`` (a square) outlines it;
``drag`` (``(square, (x, y))``) draws that square's piece at the pixel instead of on its square;
``must_capture`` (squares) rings the pieces that can make the compulsory capture; ``capturing``
(bool) says ``last_move`` is a capture being entered: the pieces it jumps so far are faded.
``Marks.motion`` slides the moved piece through its landing squares.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

import pygame

from client.boards import common
from client.boards.base import Marks
from client.boards.squares import SquareBoardView, dragged

SIZES = {"international": 10, "brazilian": 8, "russian": 8}
"""Board side of each variant; ``None`` means international."""

LIGHT_SQUARE = (236, 218, 186)
DARK_SQUARE = (150, 104, 66)
NUMBER_COLOUR = (214, 184, 146)
LAST_MOVE_TINT = (214, 196, 80, 110)
SELECT_TINT = (80, 150, 80, 130)
TARGET_MARK = (30, 60, 30, 110)
HOVER_EDGE = (250, 246, 236)

WHITE_MAN = ((222, 214, 198), (255, 253, 246), (128, 116, 100))
"""Rim, highlight and edge colours of a white piece."""
BLACK_MAN = ((30, 24, 22), (104, 86, 74), (8, 6, 6))
MUST_CAPTURE_RING = (120, 220, 120)
"""The ring round each piece that can make the compulsory capture."""
TAKEN_ALPHA = 90
"""How opaque (of 255) a piece the last move took is drawn where it stood."""
GOLD = (236, 190, 64)
GOLD_EDGE = (120, 82, 20)


def parse_position(text: str, squares: int) -> dict[int, str]:
    """PDN FEN (``W:W31-50:B1-20``, kings ``K``-prefixed) to ``{square: "w"|"W"|"b"|"B"}``.

    Upper case is a king. Raises ``ValueError`` naming what is wrong.
    """
    fields = [f.strip() for f in text.strip().rstrip(".").split(":")]
    if not fields or fields[0] not in ("W", "B"):
        raise ValueError(f"not a PDN FEN: {text!r} (expected e.g. 'W:W31-50:B1-20')")
    pieces: dict[int, str] = {}
    for field in fields[1:]:
        if not field or field[0] not in "WB":
            if field[:1] in ("H", "F"):
                continue
            raise ValueError(f"bad field {field!r} in PDN FEN {text!r}")
        colour = field[0].lower()
        for item in filter(None, (i.strip() for i in field[1:].split(","))):
            king = item.startswith("K")
            body = item[1:] if king else item
            try:
                lo, _, hi = body.partition("-")
                first, last = int(lo), int(hi or lo)
            except ValueError:
                raise ValueError(f"bad square {item!r} in PDN FEN {text!r}") from None
            if not (1 <= first <= last <= squares):
                raise ValueError(f"square {item!r} is off the board (1-{squares})")
            for square in range(first, last + 1):
                pieces[square] = colour.upper() if king else colour
    return pieces


def crown_polygon(cx: float, cy: float, w: float) -> list[tuple[float, float]]:
    """A three-pointed crown of width ``w`` centred on ``(cx, cy)``."""
    h = w * 0.62
    top, bottom = cy - h / 2, cy + h / 2
    return [
        (cx - w / 2, bottom),
        (cx - w / 2, top + h * 0.12),
        (cx - w * 0.25, top + h * 0.55),
        (cx, top),
        (cx + w * 0.25, top + h * 0.55),
        (cx + w / 2, top + h * 0.12),
        (cx + w / 2, bottom),
    ]


@lru_cache(maxsize=16)
def piece_sprite(piece: str, radius: int) -> pygame.Surface:
    """The sprite of ``w``/``b`` (men) or ``W``/``B`` (kings) with the given radius."""
    rim, light, edge = WHITE_MAN if piece.lower() == "w" else BLACK_MAN
    sprite = common.token_sprite(radius, rim, light, edge, groove=True).copy()
    if piece.isupper():

        def paint(big: pygame.Surface, k: float) -> None:
            c = big.get_width() / 2
            w = radius * k * 1.05
            crown = crown_polygon(c, c + radius * k * 0.04, w)
            stroke = max(2, round(radius * k * 0.07))
            pygame.draw.polygon(big, GOLD_EDGE, crown, stroke * 2)
            for p in crown:
                pygame.draw.circle(big, GOLD_EDGE, p, stroke)
            pygame.draw.polygon(big, GOLD, crown)
            for p in crown[1:6:2]:
                pygame.draw.circle(big, GOLD_EDGE, p, w * 0.1 + stroke)
                pygame.draw.circle(big, GOLD, p, w * 0.1)
            band_y = c + radius * k * 0.04 + w * 0.31 - w * 0.1
            pygame.draw.line(big, GOLD_EDGE, (c - w / 2, band_y), (c + w / 2, band_y), stroke)

        sprite.blit(common.supersampled(sprite.get_size(), paint, 4), (0, 0))
    return sprite


class DraughtsView(SquareBoardView):
    """A draughts board drawn from a PDN FEN."""

    def __init__(self, variant: str | None = None, variant_info: Any = None) -> None:
        key = variant or "international"
        if key not in SIZES:
            raise ValueError(f"draughts has no variant {variant!r}; known: {', '.join(SIZES)}")
        self.size = SIZES[key]
        self.count = self.size * self.size // 2
        super().__init__(variant, variant_info)

    def points(self) -> Iterable[str]:
        return [str(n) for n in range(1, self.count + 1)]

    def number(self, text: str) -> int:
        """Square number of ``text``; raises ``ValueError`` naming it when it is not a square."""
        if not text.isdigit() or not 1 <= int(text) <= self.count:
            raise ValueError(f"not a draughts square: {text!r} (expected 1-{self.count})")
        return int(text)

    def cell(self, number: int) -> tuple[int, int]:
        """Screen column and row (0,0 = top left) of square ``number``."""
        half = self.size // 2
        row, k = divmod(number - 1, half)
        col = 2 * k + (1 if row % 2 == 0 else 0)
        if self.flipped:
            return self.size - 1 - col, self.size - 1 - row
        return col, row

    def cell_of(self, point: str) -> tuple[int, int]:
        return self.cell(self.number(point))

    def point_in_cell(self, col: int, row: int) -> str | None:
        if self.flipped:
            col, row = self.size - 1 - col, self.size - 1 - row
        if (row + col) % 2 == 0:
            return None  # a light square
        return str(row * (self.size // 2) + col // 2 + 1)

    def paint_squares(self, image: pygame.Surface, labels: bool) -> None:
        """Light squares, dark playing squares and (with ``labels``) their numbers."""
        sq = self.square
        image.fill(LIGHT_SQUARE)
        number_size = max(11, round(sq * 0.28))
        pad = max(1, sq // 16)
        for name in self.points():
            rect = self.square_rect(name).move(-self.origin[0], -self.origin[1])
            image.fill(DARK_SQUARE, rect)
            if labels:
                common.draw_text(image, name, (rect.x + pad + 1, rect.y + pad), number_size,
                                 NUMBER_COLOUR, anchor="topleft")

    def piece_radius(self) -> int:
        """Piece radius in pixels for the current layout."""
        return max(3, round(self.square * 0.39))

    def pieces_of(self, state: Any) -> dict[str, tuple[str | None, str]]:
        """``w``/``b`` men and ``W``/``B`` kings by square; White is the first seat."""
        fen = common.position_string("draughts", state)
        pieces = parse_position(fen, self.count) if fen else {}
        return {str(n): ("first" if p in "wW" else "second", p) for n, p in pieces.items()}

    def piece_icon(self, code: str, size: int) -> pygame.Surface | None:
        if code not in ("w", "W", "b", "B"):
            return None
        return piece_sprite(code, max(3, round(size * 0.4)))

    def paint_piece(self, surface: pygame.Surface, state: Any, point: str,
                    centre: common.Point) -> None:
        piece = self.pieces_of(state).get(point)
        if piece is not None:
            common.blit_centered(surface, piece_sprite(piece[1], self.piece_radius()), centre)

    def paint(self, surface: pygame.Surface, state: Any, marks: Marks) -> None:
        fen = common.position_string("draughts", state)
        pieces = parse_position(fen, self.count) if fen is not None else {}
        sq = self.square
        numbers = marks.extra.get("numbers", marks.extra.get("coordinates", True))
        surface.blit(self.board_image(bool(numbers)), self.origin)
        self.tint_squares(surface, marks, LAST_MOVE_TINT, SELECT_TINT)
        self.paint_taken(surface, pieces, marks)
        if len(marks.last_move) >= 3:  # a multi-capture: show the path through its landings
            path = [self.pixel_of(p) for p in marks.last_move]
            for a, b in itertools.pairwise(path):
                common.thick_line(surface, (214, 196, 80), a, b, max(2, sq * 0.06))
        for name in marks.highlight:
            common.glow(surface, common.HIGHLIGHT, self.pixel_of(name), sq * 0.62, 230)
        hover = marks.extra.get("hover")
        if isinstance(hover, str) and hover in self.points():
            self.outline(surface, hover, HOVER_EDGE)
        drag = dragged(marks)
        hidden = {drag[0] if drag else None, *self.moving(marks)}
        radius = self.piece_radius()
        jumped: set[int] = set()
        capturing = bool(marks.extra.get("capturing")) and len(marks.last_move) >= 2
        if capturing:  # the piece stands on its last landing square, the men it jumped fade
            jumped = self.jumped(pieces, marks.last_move)
            hidden.add(marks.last_move[0])
            mover = pieces.get(int(marks.last_move[0]))
            if mover is not None and (drag is None or drag[0] != marks.last_move[-1]):
                common.blit_centered(surface, piece_sprite(mover, radius),
                                     self.pixel_of(marks.last_move[-1]))
        for number, piece in pieces.items():
            if number in jumped:
                self.paint_ghost(surface, piece, number)
            elif str(number) not in hidden:
                common.blit_centered(
                    surface, piece_sprite(piece, radius), self.pixel_of(str(number))
                )
        for name in marks.extra.get("must_capture", ()):
            common.ring(surface, MUST_CAPTURE_RING, self.pixel_of(name), radius + max(3, sq // 12),
                        max(3, sq / 14))
        self.paint_motion(surface, state, marks)
        target = common.PREMOVE_TARGET if marks.premoving else TARGET_MARK
        for name in marks.targets:
            common.disc(surface, target, self.pixel_of(name), sq * 0.16)
        self.premove_arrow(surface, marks)
        held = drag[0] if drag is not None else None
        if capturing and held == marks.last_move[-1]:
            held = marks.last_move[0]  # dragged on from its last landing square
        if drag is not None and held is not None and held.isdigit() and int(held) in pieces:
            common.blit_centered(surface, piece_sprite(pieces[int(held)], radius), drag[1])


    def paint_taken(self, surface: pygame.Surface, pieces: dict[int, str], marks: Marks) -> None:
        """The pieces the last move took (on ``marks.before``, gone from ``pieces``), faded
        where they stood: the board says what the move took."""
        if marks.before is None or len(marks.last_move) < 2:
            return
        fen = common.position_string("draughts", marks.before)
        was = parse_position(fen, self.count) if fen else {}
        origin = marks.last_move[0]
        for number, piece in was.items():
            if number not in pieces and str(number) != origin:
                self.paint_ghost(surface, piece, number)

    def paint_ghost(self, surface: pygame.Surface, piece: str, number: int) -> None:
        """``piece`` faded on square ``number``: taken, or being jumped."""
        ghost = piece_sprite(piece, self.piece_radius()).copy()
        ghost.set_alpha(TAKEN_ALPHA)
        common.blit_centered(surface, ghost, self.pixel_of(str(number)))

    def jumped(self, pieces: dict[int, str], path: Sequence[str]) -> set[int]:
        """The squares of ``pieces`` that a capture along ``path`` (its start, then its
        landing squares) jumps: on each leg, those between its two squares."""
        found: set[int] = set()
        for a, b in itertools.pairwise(path):
            (c1, r1), (c2, r2) = self.cell_of(a), self.cell_of(b)
            if abs(c2 - c1) != abs(r2 - r1) or c1 == c2:
                continue  # not a diagonal leg
            dc, dr = (1 if c2 > c1 else -1), (1 if r2 > r1 else -1)
            for step in range(1, abs(c2 - c1)):
                square = self.point_in_cell(c1 + dc * step, r1 + dr * step)
                if square is not None and int(square) in pieces:
                    found.add(int(square))
        return found


VIEW_CLASS = DraughtsView
