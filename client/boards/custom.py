"""The renderer of custom variants (精班棋), drawn from the room's ``variant_info`` alone.

A rectangular grid of squares; each piece is a disc with its name (CJK names use a CJK font found
at run time, else the piece's short Latin label), its side's colour (red, blue, neutral grey), a
gold ring on captains, a filled face once promoted, and JBQ-style movement hints around the rim:
a tick toward each direction it may step, an arrowhead toward each direction it may slide, as
active on its current square. Row 1 is at the top; flipped, blue's side is at the bottom.

The variant's ``board.look`` says how the board itself looks: a checkered grid of cells (the
default), or lines through the cells' centres with the pieces on their crossings, a river, palaces
and start-point marks (Xiangqi; drawn by :mod:`client.boards.intersections`). Either way square
``r,c`` has the same pixel and cell, so clicks map back the same.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

import pygame

from client.boards import common, intersections
from client.boards.base import BoardView, Marks
from client.ui.fonts import cjk_font_path
from engines.custom.definition import SIDE_NUMBERS
from engines.custom.grammar import DIRECTIONS

RED = (188, 36, 30)
BLUE = (30, 78, 168)
GREY = (104, 104, 108)
SIDE_COLOURS = {1: RED, 2: BLUE, 3: GREY}
SEATS = {1: "first", 2: "second"}
"""Side 1 (red) holds the first seat; neutral pieces (3) belong to nobody."""
FACE = (246, 236, 212)
"""Face of an unpromoted piece."""
GOLD = (222, 170, 40)
CELL_LIGHT = (232, 204, 156)
CELL_DARK = (218, 186, 134)
GRID = (120, 86, 54)


@lru_cache(maxsize=64)
def _font(size: int, cjk: bool) -> pygame.font.Font:
    if not pygame.font.get_init():
        pygame.font.init()
    path = cjk_font_path() if cjk else None
    f = pygame.font.Font(path, max(6, size))
    f.set_bold(not cjk)
    return f


def side_number(piece: Mapping[str, Any]) -> int:
    """The side number (1 red, 2 blue, 3 neutral) of a ``variant_info`` piece."""
    side = piece.get("side")
    return SIDE_NUMBERS.get(side, 3) if isinstance(side, (str, int)) else 3


MAX_SHOWN_LATIN = 6
"""Longest Latin name written on a piece (it is scaled to fit); longer ones give way to a label."""
MAX_SHOWN_CJK = 4
"""Longest CJK name written on a piece (four go two over two)."""
LABEL_RADIUS = 18
"""Discs of a smaller radius (logical pixels: a board of 16 or more rows, captured pieces) show
a piece's label rather than a longer name, which would be scaled to a few pixels."""


def display_name(
    piece: Mapping[str, Any], promoted: bool, cjk_font: bool, radius: float | None = None
) -> str:
    """What to write on a piece: its (promoted) name when it fits, else its short Latin label
    (also without a CJK font, and on a disc of ``radius`` under :data:`LABEL_RADIUS` when the
    label is shorter); a name is never cut in the middle of a word unless there is no label to
    show instead."""
    name = str((piece.get("promoted_name") if promoted else "") or piece.get("name") or "?")
    label = str(piece.get("label") or "")[:4]
    shown = MAX_SHOWN_LATIN if name.isascii() else MAX_SHOWN_CJK
    small = radius is not None and radius < LABEL_RADIUS and 0 < len(label) < len(name)
    if (name.isascii() or cjk_font) and len(name) <= shown and not small:
        return name
    if label:
        return label
    if name.isascii() or cjk_font:
        return name[:shown]
    return f"#{piece.get('id', '?')}"


def default_info(variant: str | None) -> dict[str, Any]:
    """``variant_info`` from the local engine when the room sent none (e.g. local previews)."""
    from engines import registry
    from engines.base import EngineError

    engine = registry.get("custom")
    try:
        return engine.variant_info(variant or engine.default_variant()) or {}
    except EngineError:  # a variant this client does not know: draw the default one
        return engine.variant_info(engine.default_variant()) or {}


class CustomView(BoardView):
    """Grid (cells or intersections), pieces with names, side colours, captains, promotion and
    movement hints."""

    def __init__(self, variant: str | None = None, variant_info: Mapping[str, Any] | None = None):
        super().__init__(variant, variant_info)
        info = dict(variant_info) if variant_info else default_info(variant)
        self.info = info
        board = info.get("board") or {}
        self.rows = int(board.get("rows") or 1)
        self.cols = int(board.get("cols") or 1)
        self.pieces: list[Mapping[str, Any]] = list(info.get("pieces") or [])
        self.start_grid: list[list[int | None]] = [
            list(row) for row in (board.get("grid") or [[None] * self.cols] * self.rows)
        ]
        self._tables = _compile(info)
        self.look = intersections.look_of(info)
        """How the board is drawn: squares (the default) or lines with pieces on their crossings."""
        self._board_cache: tuple[object, tuple[int, ...]] = (None, ())
        self._background: tuple[object, pygame.Surface] = (None, pygame.Surface((1, 1)))
        self.cell = 10.0
        self.origin = (0.0, 0.0)
        self.layout(self.rect)

    # ---- geometry (pure) -------------------------------------------------------------------------

    def layout(self, rect: pygame.Rect, flipped: bool = False) -> None:
        """Square cells as large as fit, with a margin of a third of a cell for coordinates."""
        super().layout(rect, flipped)
        r = self.rect
        self.cell = max(1.0, min(r.width / (self.cols + 0.7), r.height / (self.rows + 0.7)))
        self.origin = (
            r.x + (r.width - self.cell * self.cols) / 2,
            r.y + (r.height - self.cell * self.rows) / 2,
        )

    def points(self) -> Iterable[str]:
        """``r,c`` for every square, row by row from the top."""
        return [f"{r},{c}" for r in range(1, self.rows + 1) for c in range(1, self.cols + 1)]

    def _screen(self, row: int, col: int) -> tuple[int, int]:
        """Screen row/column (0-based) of the 1-based square."""
        if self.flipped:
            return self.rows - row, self.cols - col
        return row - 1, col - 1

    def _square(self, point: str) -> tuple[int, int]:
        r, c = (int(x) for x in point.split(","))
        if not (1 <= r <= self.rows and 1 <= c <= self.cols):
            raise ValueError(f"{point!r} is not a square of this board")
        return r, c

    def _centre(self, row: int, col: int) -> tuple[float, float]:
        sr, sc = self._screen(row, col)
        return self.origin[0] + (sc + 0.5) * self.cell, self.origin[1] + (sr + 0.5) * self.cell

    def pixel_of(self, point: str) -> tuple[int, int]:
        """Centre pixel of square ``r,c``."""
        x, y = self._centre(*self._square(point))
        return math.floor(x), math.floor(y)

    def point_at(self, pixel: tuple[int, int]) -> str | None:
        """The square under ``pixel`` (``None`` outside the grid)."""
        sc = math.floor((pixel[0] - self.origin[0]) / self.cell)
        sr = math.floor((pixel[1] - self.origin[1]) / self.cell)
        if not (0 <= sr < self.rows and 0 <= sc < self.cols):
            return None
        if self.flipped:
            return f"{self.rows - sr},{self.cols - sc}"
        return f"{sr + 1},{sc + 1}"

    def piece_radius(self) -> float:
        """Radius of a piece disc in pixels."""
        return self.cell * 0.37

    # ---- state ---------------------------------------------------------------------------------

    def cells(self, state: Any) -> dict[tuple[int, int], tuple[int, bool]]:
        """Pieces of ``state`` (engine state, position string, or ``None`` = empty board)."""
        text = common.position_string("custom", state) if state is not None else None
        if not text:
            return {}
        parts = text.split(";")
        if len(parts) != 4:
            return {}
        found: dict[tuple[int, int], tuple[int, bool]] = {}
        for r, row in enumerate(parts[3].split("/")[: self.rows]):
            for c, cell in enumerate(row.split(",")[: self.cols]):
                core = cell.strip().rstrip("*")
                if (
                    core.isascii()
                    and core.isdigit()
                    and len(core) <= 3
                    and 1 <= int(core) <= len(self.pieces)
                ):
                    found[(r + 1, c + 1)] = (int(core), cell.strip().endswith("*"))
        return found

    def pieces_of(self, state: Any) -> dict[str, tuple[str | None, str]]:
        """Piece types (``"5"``, ``"5*"`` once promoted) by square; red is the first seat."""
        out: dict[str, tuple[str | None, str]] = {}
        for (r, c), (type_id, promoted) in self.cells(state).items():
            owner = SEATS.get(side_number(self.pieces[type_id - 1]))
            out[f"{r},{c}"] = (owner, f"{type_id}{'*' if promoted else ''}")
        return out

    def captains_of(self, state: Any, seat: str) -> set[str]:
        """Squares of ``seat``'s captains in ``state``."""
        return {f"{r},{c}" for (r, c), (type_id, _) in self.cells(state).items()
                if self.pieces[type_id - 1].get("captain")
                and SEATS.get(side_number(self.pieces[type_id - 1])) == seat}

    def piece_icon(self, code: str, size: int) -> pygame.Surface | None:
        core = code.rstrip("*")
        if not core.isdigit() or not 1 <= int(core) <= len(self.pieces):
            return None
        piece, promoted = self.pieces[int(core) - 1], code.endswith("*")
        colour = SIDE_COLOURS[side_number(piece)]
        cjk = cjk_font_path() is not None
        radius = max(3, round(size * 0.5))
        text = display_name(piece, promoted, cjk, radius)
        return _piece_sprite(radius, colour, promoted, bool(piece.get("captain")), text, cjk)

    def _board_of(self, cells: dict[tuple[int, int], tuple[int, bool]]) -> tuple[int, ...]:
        """The engine's board encoding of ``cells`` (cached for the last position drawn)."""
        key = tuple(sorted(cells.items()))
        if self._board_cache[0] != key:
            board = [0] * (self.rows * self.cols)
            for (r, c), (t, p) in cells.items():
                board[(r - 1) * self.cols + (c - 1)] = t * 2 + p
            self._board_cache = (key, tuple(board))
        return self._board_cache[1]

    def _active(
        self, cells: dict[tuple[int, int], tuple[int, bool]], square: tuple[int, int]
    ) -> tuple[list[int], list[int]]:
        """Step and slide directions of the piece on ``square`` as active there now."""
        type_id, promoted = cells[square]
        piece = self.pieces[type_id - 1]
        if self._tables is not None:
            board = self._board_of(cells)
            return self._tables.active(board, (square[0] - 1) * self.cols + square[1] - 1)
        prefix = "promoted_" if promoted else ""
        steps = [int(d["dir"]) for d in piece.get(f"{prefix}steps") or [] if "dir" in d]
        slides = [int(d["dir"]) for d in piece.get(f"{prefix}slides") or [] if "dir" in d]
        return steps, slides

    # ---- drawing -------------------------------------------------------------------------------

    def paint(self, surface: pygame.Surface, state: Any, marks: Marks) -> None:
        cell = self.cell
        coordinates = bool(marks.extra.get("coordinates"))
        key = (self.rect.size, self.flipped, coordinates)
        if self._background[0] != key:
            self._background = (key, self._paint_background(coordinates))
        surface.blit(self._background[1], self.rect.topleft)
        on_lines = self.look.look == "intersections"
        for point in marks.last_move:
            square = self._safe(point)
            if square and on_lines:
                self._brackets(surface, square, (*common.LAST_MOVE, 230), 0.05)
            elif square:
                self._tint(surface, square, (*common.LAST_MOVE, 90))
        for point in marks.premove:
            square = self._safe(point)
            if square and on_lines:
                common.disc(surface, common.PREMOVE_TINT, self._centre(*square), cell * 0.46)
            elif square:
                self._tint(surface, square, common.PREMOVE_TINT)
        hover = marks.extra.get("hover")
        square = self._safe(hover) if isinstance(hover, str) and hover else None
        if square and on_lines:
            common.disc(surface, (255, 255, 255, 60), self._centre(*square), cell * 0.46)
        elif square:
            self._tint(surface, square, (255, 255, 255, 60))
        for point in marks.highlight:
            square = self._safe(point)
            if square:
                common.glow(surface, common.CHECK, self._centre(*square), cell * 0.62, 230)
        cells = self.cells(state)
        moving = {self._safe(point) for point in self.moving(marks)}
        for square in cells:
            if square not in moving:
                self._piece(surface, cells, square, self._centre(*square))
        self.paint_motion(surface, state, marks)
        for point in marks.highlight:  # a captain in check (or taken): a red ring over it too
            square = self._safe(point)
            if square:
                common.ring(surface, (*common.CHECK, 230), self._centre(*square),
                            self.piece_radius() + cell * 0.08, max(2.0, cell * 0.06))
        target = common.PREMOVE[:3] if marks.premoving else common.TARGET
        for point in marks.targets:
            square = self._safe(point)
            if not square:
                continue
            if square in cells:
                common.ring(
                    surface, (*target, 220), self._centre(*square), cell * 0.47, cell * 0.06
                )
            else:
                common.disc(surface, (*target, 200), self._centre(*square), cell * 0.13)
        if marks.selected:
            select = common.PREMOVE if marks.premoving else common.SELECT
            square = self._safe(marks.selected)
            if square and on_lines:
                self._brackets(surface, square, select, 0.07)
            elif square:
                sr, sc = self._screen(*square)
                pygame.draw.rect(
                    surface, select, self._cell_rect(sr, sc), max(2, round(cell * 0.07))
                )
        if all(self._safe(p) for p in marks.premove):
            common.arrow(surface, common.PREMOVE_ARROW,
                         [self._centre(*self._square(p)) for p in marks.premove],
                         max(3.0, cell * 0.12))

    def _paint_background(self, coordinates: bool) -> pygame.Surface:
        """Table, frame, squares or lines, and coordinates (cached: they change on layout)."""
        cell = self.cell
        back = pygame.Surface(self.rect.size)
        back.fill(common.TABLE)
        dx, dy = self.rect.topleft
        x0, y0 = self.origin[0] - dx, self.origin[1] - dy
        board_rect = pygame.Rect(
            math.floor(x0), math.floor(y0), math.ceil(cell * self.cols), math.ceil(cell * self.rows)
        )
        pygame.draw.rect(back, common.WOOD_EDGE, board_rect.inflate(6, 6), border_radius=4)
        if self.look.look == "intersections":
            back.fill(CELL_LIGHT, board_rect)

            def centre(row: int, col: int) -> tuple[float, float]:
                x, y = self.pixel_of(f"{row},{col}")
                return x - dx, y - dy

            intersections.paint_lines(
                back, self.look, self.rows, self.cols, cell, centre, common.LINE
            )
        else:
            self._paint_cells(back, board_rect)
        if coordinates:
            size = max(6, round(cell * 0.26))
            for row in range(1, self.rows + 1):
                sr, _ = self._screen(row, 1)
                centre_at = (x0 - cell * 0.18, y0 + (sr + 0.5) * cell)
                common.draw_text(back, str(row), centre_at, size, common.WOOD_LIGHT)
            for col in range(1, self.cols + 1):
                _, sc = self._screen(1, col)
                centre_at = (x0 + (sc + 0.5) * cell, y0 - cell * 0.18)
                common.draw_text(back, str(col), centre_at, size, common.WOOD_LIGHT)
        return back

    def _paint_cells(self, back: pygame.Surface, board_rect: pygame.Rect) -> None:
        """The checkered squares and the grid lines between them on ``back``."""
        cell = self.cell
        dx, dy = self.rect.topleft
        x0, y0 = self.origin[0] - dx, self.origin[1] - dy
        for row in range(1, self.rows + 1):
            for col in range(1, self.cols + 1):
                sr, sc = self._screen(row, col)
                colour = CELL_LIGHT if (row + col) % 2 == 0 else CELL_DARK
                back.fill(colour, self._cell_rect(sr, sc).move(-dx, -dy))
        line = max(1, round(cell / 40))
        for i in range(self.rows + 1):
            y = round(y0 + i * cell)
            pygame.draw.line(back, GRID, (board_rect.left, y), (board_rect.right, y), line)
        for j in range(self.cols + 1):
            x = round(x0 + j * cell)
            pygame.draw.line(back, GRID, (x, board_rect.top), (x, board_rect.bottom), line)

    def _cell_rect(self, sr: int, sc: int) -> pygame.Rect:
        x0, y0 = self.origin
        left, top = round(x0 + sc * self.cell), round(y0 + sr * self.cell)
        right, bottom = round(x0 + (sc + 1) * self.cell), round(y0 + (sr + 1) * self.cell)
        return pygame.Rect(left, top, right - left, bottom - top)

    def _safe(self, point: str) -> tuple[int, int] | None:
        try:
            return self._square(point)
        except (ValueError, AttributeError):
            return None

    def _tint(
        self, surface: pygame.Surface, square: tuple[int, int], rgba: tuple[int, int, int, int]
    ) -> None:
        """Fill ``square``'s cell with the translucent ``rgba`` (the cells look's marks)."""
        rect = self._cell_rect(*self._screen(*square))
        overlay = pygame.Surface(rect.size, pygame.SRCALPHA)
        overlay.fill(rgba)
        surface.blit(overlay, rect)

    def _brackets(
        self,
        surface: pygame.Surface,
        square: tuple[int, int],
        colour: tuple[int, ...],
        width: float,
    ) -> None:
        """Corner brackets framing the crossing of ``square`` (the intersections look's marks);
        ``width`` in cells."""
        cell = self.cell
        intersections.brackets(
            surface, self._centre(*square), cell * 0.46, cell * 0.16, colour,
            max(2.0, cell * width),
        )

    def paint_piece(self, surface: pygame.Surface, state: Any, point: str,
                    centre: common.Point) -> None:
        cells, square = self.cells(state), self._safe(point)
        if square in cells:
            self._piece(surface, cells, square, centre)

    def _piece(
        self,
        surface: pygame.Surface,
        cells: dict[tuple[int, int], tuple[int, bool]],
        square: tuple[int, int],
        centre: common.Point,
    ) -> None:
        type_id, promoted = cells[square]
        piece = self.pieces[type_id - 1]
        radius = max(2, round(self.piece_radius()))
        colour = SIDE_COLOURS[side_number(piece)]
        cjk = cjk_font_path() is not None
        text = display_name(piece, promoted, cjk, radius)
        sprite = _piece_sprite(radius, colour, promoted, bool(piece.get("captain")), text, cjk)
        common.blit_centered(surface, sprite, centre)
        steps, slides = self._active(cells, square)
        self._hints(surface, centre, colour, steps, slides)

    def _hints(
        self,
        surface: pygame.Surface,
        centre: tuple[float, float],
        colour: tuple[int, int, int],
        steps: list[int],
        slides: list[int],
    ) -> None:
        """JBQ's direction glyphs: a tick per step direction, an arrowhead per slide direction."""
        cx, cy = centre
        inner = self.piece_radius() * 1.02
        width = max(1.0, self.cell * 0.05)
        ink = common.lerp(colour, (0, 0, 0), 0.25)
        for d in sorted(set(steps) | set(slides)):
            dr, dc = DIRECTIONS[d]
            if self.flipped:
                dr, dc = -dr, -dc
            length = math.hypot(dr, dc)
            ux, uy = dc / length, dr / length
            if d in slides:
                # An arrowhead near the cell's edge (diagonals reach into its corner).
                reach = self.cell * (0.58 if dr and dc else 0.46)
                base = reach - self.cell * 0.11
                half = self.cell * 0.065
                px, py = -uy, ux
                triangle = [
                    (cx + ux * reach, cy + uy * reach),
                    (cx + ux * base + px * half, cy + uy * base + py * half),
                    (cx + ux * base - px * half, cy + uy * base - py * half),
                ]
                pygame.draw.polygon(surface, ink, triangle)
                pygame.draw.aalines(surface, ink, True, triangle)
            else:
                # A short tick just outside the rim.
                a = (cx + ux * inner, cy + uy * inner)
                tick = inner + self.cell * 0.08
                common.thick_line(surface, ink, a, (cx + ux * tick, cy + uy * tick), width)


@lru_cache(maxsize=512)
def _piece_sprite(
    radius: int, colour: tuple[int, int, int], promoted: bool, captain: bool, text: str, cjk: bool
) -> pygame.Surface:
    """A piece disc: face, coloured rim, gold captain ring, the name."""
    face = colour if promoted else FACE
    ink = FACE if promoted else colour
    rim_light = common.lerp(colour, (255, 255, 255), 0.35)
    sprite = common.token_sprite(radius, face, common.lerp(face, (255, 255, 255), 0.5), colour)
    sprite = sprite.copy()
    c = sprite.get_width() / 2
    rim = max(1, round(radius * 0.1))
    pygame.draw.circle(sprite, colour, (c, c), radius, rim)
    pygame.draw.circle(sprite, rim_light, (c, c), radius - rim, max(1, rim // 2))
    if captain:
        pygame.draw.circle(
            sprite, GOLD, (c, c), radius - rim - max(1, rim // 2), max(1, round(radius * 0.09))
        )
    if promoted:
        star = radius * 0.2
        points = [
            (
                c + math.sin(k * math.pi / 5) * (star if k % 2 == 0 else star * 0.45),
                c
                - radius * 0.62
                - math.cos(k * math.pi / 5) * (star if k % 2 == 0 else star * 0.45),
            )
            for k in range(10)
        ]
        pygame.draw.polygon(sprite, GOLD, points)
    two_lines = len(text) == 4 and not text.isascii()  # 将军 over 大人, as on real pieces
    lines = [text[:2], text[2:]] if two_lines else [text]
    if two_lines:
        size = round(radius * 0.62)
    else:
        size = round(radius * (1.05 if len(text) <= 1 else 0.9 if len(text) == 2 else 0.66))
    f = _font(size, cjk and not text.isascii())
    images = [f.render(line, True, ink) for line in lines]
    step = round(f.get_height() * 0.86)  # CJK fonts leave room above and below the glyphs
    width = max(image.get_width() for image in images)
    height = step * (len(images) - 1) + images[-1].get_height()
    # Inside the rim (and the captain's ring); two lines leave the top for a promotion star.
    scale = min(1.0, radius * (1.25 if two_lines else 1.5) / width)
    if two_lines:
        scale = min(scale, radius * (1.15 if promoted else 1.35) / height)
    centre_y = c + radius * (0.04 + (0.12 if two_lines and promoted else 0))
    top = centre_y - height * scale / 2
    for i, image in enumerate(images):
        if scale < 1:
            image = pygame.transform.smoothscale(
                image,
                (max(1, round(image.get_width() * scale)),
                 max(1, round(image.get_height() * scale))),
            )
        line_top = top + i * step * scale
        sprite.blit(image, image.get_rect(midtop=(round(c), round(line_top))))
    return sprite


class _Tables:
    """The engine's move tables for the glyphs (conditions evaluated on the shown board)."""

    def __init__(self, compiled: Any):
        self.compiled = compiled

    def active(self, board: tuple[int, ...], sq: int) -> tuple[list[int], list[int]]:
        steps, slides = self.compiled.directions(board, sq)
        return list(steps), list(slides)


def _compile(info: Mapping[str, Any]) -> _Tables | None:
    """Move tables from ``variant_info`` (``None`` when it does not parse: raw directions)."""
    try:
        from engines.custom.definition import parse_definition
        from engines.custom.rules import Compiled

        return _Tables(Compiled(parse_definition(info)))
    except Exception:  # a newer or odd definition still draws, with unconditional hints
        return None


VIEW_CLASS = CustomView
