"""Draughts: the 10 x 10 (international) or 8 x 8 (brazilian, russian) board, PDN square numbers.

Only the dark squares are points, named by their PDN number as a string (``"1"``..``"50"``):
numbered row by row from the top left as White sees it, the first dark square of the top row
being the second square (RULES.md section 2). Unflipped, White sits at the bottom.

``Marks.extra`` flags: ``numbers`` (bool, default true; ``coordinates`` stands in when it is
absent) writes each dark square's number in its corner; ``hover`` (a square) outlines it;
``drag`` (``(square, (x, y))``) draws that square's piece at the pixel instead of on its square.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import pygame

from client.boards import common
from client.boards.base import BoardView, Marks

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


class DraughtsView(BoardView):
    """A draughts board drawn from a PDN FEN."""

    def __init__(self, variant: str | None = None, variant_info: Any = None) -> None:
        super().__init__(variant, variant_info)
        key = variant or "international"
        if key not in SIZES:
            raise ValueError(f"draughts has no variant {variant!r}; known: {', '.join(SIZES)}")
        self.size = SIZES[key]
        self.count = self.size * self.size // 2
        self._board_cache: tuple[tuple[int, bool, bool], pygame.Surface] | None = None
        self.layout(self.rect)

    def layout(self, rect: pygame.Rect, flipped: bool = False) -> None:
        super().layout(rect, flipped)
        self.square = max(1, min(self.rect.width, self.rect.height) // self.size)
        side = self.square * self.size
        self.origin = (
            self.rect.x + (self.rect.width - side) // 2,
            self.rect.y + (self.rect.height - side) // 2,
        )

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

    def square_rect(self, square: str) -> pygame.Rect:
        """The screen rectangle of ``square``."""
        col, row = self.cell(self.number(square))
        return pygame.Rect(
            self.origin[0] + col * self.square,
            self.origin[1] + row * self.square,
            self.square,
            self.square,
        )

    def pixel_of(self, point: str) -> tuple[int, int]:
        rect = self.square_rect(point)
        return rect.x + self.square // 2, rect.y + self.square // 2

    def point_at(self, pixel: tuple[int, int]) -> str | None:
        col = int((pixel[0] - self.origin[0]) // self.square)
        row = int((pixel[1] - self.origin[1]) // self.square)
        if not (0 <= col < self.size and 0 <= row < self.size):
            return None
        if self.flipped:
            col, row = self.size - 1 - col, self.size - 1 - row
        if (row + col) % 2 == 0:
            return None  # a light square
        return str(row * (self.size // 2) + col // 2 + 1)

    def _board_image(self, numbers: bool) -> pygame.Surface:
        """The squares (and their numbers) alone, cached for the current layout."""
        key = (self.square, self.flipped, numbers)
        if self._board_cache is None or self._board_cache[0] != key:
            sq = self.square
            image = pygame.Surface((self.size * sq, self.size * sq))
            image.fill(LIGHT_SQUARE)
            number_size = max(11, round(sq * 0.28))
            pad = max(1, sq // 16)
            for name in self.points():
                rect = self.square_rect(name).move(-self.origin[0], -self.origin[1])
                image.fill(DARK_SQUARE, rect)
                if numbers:
                    common.draw_text(
                        image,
                        name,
                        (rect.x + pad + 1, rect.y + pad),
                        number_size,
                        NUMBER_COLOUR,
                        anchor="topleft",
                    )
            self._board_cache = (key, image)
        return self._board_cache[1]

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

    def draw(self, surface: pygame.Surface, state: Any, marks: Marks) -> None:
        with common.clipped(surface, self.rect):
            self._draw(surface, state, marks)

    def _draw(self, surface: pygame.Surface, state: Any, marks: Marks) -> None:
        fen = common.position_string("draughts", state)
        pieces = parse_position(fen, self.count) if fen is not None else {}
        sq = self.square
        numbers = marks.extra.get("numbers", marks.extra.get("coordinates", True))
        surface.blit(self._board_image(bool(numbers)), self.origin)
        overlay = pygame.Surface((sq, sq), pygame.SRCALPHA)
        for name in (*marks.last_move, marks.selected):
            if name:
                overlay.fill(SELECT_TINT if name == marks.selected else LAST_MOVE_TINT)
                surface.blit(overlay, self.square_rect(name))
        if len(marks.last_move) >= 3:  # a multi-capture: show the path through its landings
            path = [self.pixel_of(p) for p in marks.last_move]
            for a, b in itertools.pairwise(path):
                common.thick_line(surface, (214, 196, 80), a, b, max(2, sq * 0.06))
        for name in marks.highlight:
            common.glow(surface, common.HIGHLIGHT, self.pixel_of(name), sq * 0.62, 230)
        hover = marks.extra.get("hover")
        if isinstance(hover, str) and hover in self.points():
            pygame.draw.rect(surface, HOVER_EDGE, self.square_rect(hover), max(1, sq // 24))
        drag = marks.extra.get("drag")
        dragged = drag[0] if isinstance(drag, (tuple, list)) and len(drag) == 2 else None
        radius = self.piece_radius()
        for number, piece in pieces.items():
            if str(number) != dragged:
                common.blit_centered(
                    surface, piece_sprite(piece, radius), self.pixel_of(str(number))
                )
        for name in marks.targets:
            common.disc(surface, TARGET_MARK, self.pixel_of(name), sq * 0.16)
        if dragged is not None and drag is not None and dragged.isdigit():
            lifted = pieces.get(int(dragged))
            if lifted:
                common.blit_centered(surface, piece_sprite(lifted, radius), drag[1])


VIEW_CLASS = DraughtsView
