"""The interface of a board renderer: state to pixels, and pixels to points.

One renderer per game (``client/boards/<game>.py`` defines ``VIEW_CLASS``). The geometry (where a
point is on screen, which point a pixel hits) is pure and testable without a window; ``draw`` only
reads its arguments and never changes game state.
"""

from __future__ import annotations

import abc
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pygame

from client.boards.common import Point, clipped


@dataclass(frozen=True)
class Motion:
    """The last move shown as it happens: its piece on its way along its path.

    The board draws the position after the move, the piece on ``path[-1]`` not on its square but
    along the path (a path of one point: the piece placed there fading in), and the pieces the
    move takes from ``before`` until the moving piece reaches them, and the mover's other
    pieces the move carries (a castling rook) along their own paths at the same progress.
    """

    path: tuple[str, ...]
    """The moving piece's origin, then every landing point in order (one point: a placement)."""
    progress: float
    """How far along the path the piece is, 0 (at its origin) to 1 (landed)."""
    before: Any = None
    """The position before the move (where :attr:`captured` is drawn from)."""
    captured: tuple[str, ...] = ()
    """Points of the pieces the move takes."""
    companions: tuple[tuple[str, ...], ...] = ()
    """Paths (origin, destination) of the mover's other pieces the move carries along."""
    looks: tuple[Any, str] | None = None
    """The position and point of the piece as the moving piece looks on its way: as it stood
    before the move, so a promoting piece slides as the pawn (or man) it was and is the queen
    (or king) only where it lands, once at rest. ``None``: as it stands on ``path[-1]`` of the
    position drawn."""


@dataclass(frozen=True)
class Marks:
    """What to emphasise on the board besides the pieces."""

    selected: str | None = None
    """The point/square the user picked (game notation, e.g. ``e2``, ``32``, ``3,6``, ``0,0``)."""
    targets: frozenset[str] = frozenset()
    """Where the selected piece may go."""
    last_move: tuple[str, ...] = ()
    """Points of the last move (from, to, and any intermediate landing squares)."""
    highlight: tuple[str, ...] = ()
    """Points to emphasise (a winning five, a checked king)."""
    premove: tuple[str, ...] = ()
    """The premove entered during the opponent's turn: its origin then every landing point
    (a placement: just the point), drawn in :data:`client.boards.common.PREMOVE`."""
    premoving: bool = False
    """``selected`` and ``targets`` belong to a premove being entered: drawn in the premove's
    colours (``PREMOVE_TINT``, ``PREMOVE_TARGET`` of :mod:`client.boards.common`), not the
    move's."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Game-specific flags (``coordinates``: bool, ``numbers``: bool, ...)."""
    motion: Motion | None = None
    """The last move on its way (see :class:`Motion`); ``None``: every piece at rest."""
    before: Any = None
    """The position before :attr:`last_move`, when the board should show what that move took
    (a draughts renderer draws the pieces it took faded where they stood)."""


def fade_in(progress: float) -> float:
    """How opaque (0..1) a placed piece is ``progress`` (0..1) into its placement, and any
    mark drawn on it (it is whole before it has finished growing)."""
    return max(0.0, min(1.0, progress * 1.5))


def along(pixels: Sequence[Point], progress: float) -> Point:
    """The point ``progress`` (0..1) of the way along the polyline through ``pixels``, at an even
    speed over its whole length."""
    lengths = [math.dist(a, b) for a, b in itertools.pairwise(pixels)]
    left = max(0.0, min(1.0, progress)) * sum(lengths)
    for (a, b), length in zip(itertools.pairwise(pixels), lengths, strict=True):
        if left <= length and length > 0:
            t = left / length
            return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
        left -= length
    return pixels[-1]


def reached(pixels: Sequence[Point], pixel: Point) -> float:
    """The part of the polyline through ``pixels`` (0..1) travelled when it passes nearest to
    ``pixel`` (where a piece sliding along it takes the piece standing there)."""
    total = sum(math.dist(a, b) for a, b in itertools.pairwise(pixels))
    if total <= 0:
        return 1.0
    best, best_d, done = 1.0, math.inf, 0.0
    for a, b in itertools.pairwise(pixels):
        length = math.dist(a, b)
        dx, dy = b[0] - a[0], b[1] - a[1]
        t = (
            0.0
            if length == 0
            else max(0.0, min(1.0, ((pixel[0] - a[0]) * dx + (pixel[1] - a[1]) * dy) / length**2))
        )
        d = math.dist(pixel, (a[0] + dx * t, a[1] + dy * t))
        if d < best_d - 1e-9:
            best, best_d = (done + t * length) / total, d
        done += length
    return best


class BoardView(abc.ABC):
    """Draws one game's board into a rectangle and maps clicks back to points.

    ``variant_info`` is the room's ``variant_info`` (custom games), ``variant`` the variant id.
    """

    def __init__(self, variant: str | None = None, variant_info: Mapping[str, Any] | None = None):
        self.variant = variant
        self.variant_info = variant_info
        self.rect = pygame.Rect(0, 0, 600, 600)
        self.flipped = False

    def layout(self, rect: pygame.Rect, flipped: bool = False) -> None:
        """Fit the board into ``rect`` (called on resize and flip)."""
        self.rect = pygame.Rect(rect)
        self.flipped = flipped

    @abc.abstractmethod
    def points(self) -> Iterable[str]:
        """Every point/square of the board in the game's notation."""

    @abc.abstractmethod
    def pixel_of(self, point: str) -> tuple[int, int]:
        """Centre pixel of ``point`` in the current layout."""

    @abc.abstractmethod
    def point_at(self, pixel: tuple[int, int]) -> str | None:
        """The point under ``pixel``, or ``None`` when it hits no point."""

    def draw(self, surface: pygame.Surface, state: Any, marks: Marks) -> None:
        """Draw the board and the pieces of engine state ``state`` with ``marks``, never outside
        the board's rectangle."""
        with clipped(surface, self.rect):
            self.paint(surface, state, marks)

    @abc.abstractmethod
    def paint(self, surface: pygame.Surface, state: Any, marks: Marks) -> None:
        """Draw ``state`` and ``marks`` (called by :meth:`draw`, clipped to ``self.rect``)."""

    def pieces_of(self, state: Any) -> dict[str, tuple[str | None, str]]:
        """The pieces of ``state``: point -> (owner seat or ``None`` for a neutral piece, code).

        Codes are the renderer's own (a FEN letter, ``w``/``B``, a piece type); games without
        captures keep the default (no pieces listed).
        """
        return {}

    def captains_of(self, state: Any, seat: str) -> set[str]:
        """Points of ``seat``'s pieces whose capture loses the game (custom captains)."""
        return set()

    def piece_icon(self, code: str, size: int) -> pygame.Surface | None:
        """A small picture of piece ``code`` about ``size`` px across (``None``: no icon)."""
        return None

    # ---- a move on its way (Marks.motion) ------------------------------------------------------

    @abc.abstractmethod
    def paint_piece(self, surface: pygame.Surface, state: Any, point: str, centre: Point) -> None:
        """Draw the piece standing on ``point`` in ``state`` with its centre at ``centre``,
        exactly as it looks at rest (nothing when ``point`` is empty): the moving and the
        captured pieces of :attr:`Marks.motion`."""

    def moving(self, marks: Marks) -> set[str]:
        """The points whose pieces :meth:`paint_motion` draws (the moving piece's, and any
        companion's): ``paint`` leaves them out."""
        motion = marks.motion
        if motion is None or not motion.path:
            return set()
        return {motion.path[-1], *(path[-1] for path in motion.companions)}

    def landed(self, marks: Marks, point: str) -> float:
        """How far (0..1) the piece placed on ``point`` has faded in: a mark on it fades in with
        it (1: nothing is being placed there)."""
        motion = marks.motion
        if motion is None or motion.path != (point,):
            return 1.0
        return fade_in(motion.progress)

    def paint_motion(self, surface: pygame.Surface, state: Any, marks: Marks) -> None:
        """Draw :attr:`Marks.motion` over the resting pieces of ``state``: each captured piece
        until the moving piece reaches it, then the companions and the moving piece on their way
        (a placed piece growing and fading in)."""
        motion = marks.motion
        if motion is None or not motion.path:
            return
        pixels = [self.pixel_of(p) for p in motion.path]
        for point in motion.captured:
            at = self.pixel_of(point)
            if motion.progress < reached(pixels, at):
                self.paint_piece(surface, motion.before, point, at)
        for path in motion.companions:
            on_way = along([self.pixel_of(p) for p in path], motion.progress)
            self.paint_piece(surface, state, path[-1], on_way)
        if len(pixels) > 1:
            looks, point = motion.looks or (state, motion.path[-1])
            self.paint_piece(surface, looks, point, along(pixels, motion.progress))
            return
        side = max(8, min(self.rect.width, self.rect.height) // 3)
        layer = pygame.Surface((side, side), pygame.SRCALPHA)
        self.paint_piece(layer, state, motion.path[0], (side / 2, side / 2))
        grown = max(1, round(side * (0.6 + 0.4 * max(0.0, min(1.0, motion.progress)))))
        layer = pygame.transform.smoothscale(layer, (grown, grown))
        layer.set_alpha(round(255 * fade_in(motion.progress)))
        surface.blit(layer, layer.get_rect(center=pixels[0]))
