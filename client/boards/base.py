"""The interface of a board renderer: state to pixels, and pixels to points.

One renderer per game (``client/boards/<game>.py`` defines ``VIEW_CLASS``). The geometry (where a
point is on screen, which point a pixel hits) is pure and testable without a window; ``draw`` only
reads its arguments and never changes game state.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pygame

from client.boards.common import clipped


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
