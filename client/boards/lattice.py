"""What the two lattice boards share (hex five-in-a-row, number chess): points named ``a,b``,
a linear map from lattice steps to pixels around the board's centre, and cached backgrounds.

>>> Lattice((100.0, 100.0), (10.0, 0.0), (5.0, 8.0)).xy(1, 1)
(115.0, 108.0)
>>> Lattice((100.0, 100.0), (10.0, 0.0), (5.0, 8.0), flipped=True).xy(1, 1)
(85.0, 92.0)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass

import pygame

from client.boards.base import BoardView

Pair = tuple[int, int]


def parse_pair(text: str, what: str, hint: str, on_board: Callable[[int, int], bool],
               off_board: str) -> Pair:
    """``"a,b"`` to ``(a, b)``; raises ``ValueError`` naming ``text``: ``not a {what}: ...
    (expected '{hint}')`` when it is no pair, ``{text!r} {off_board}`` when ``on_board`` says no."""
    try:
        a_text, b_text = text.split(",")
        a, b = int(a_text), int(b_text)
    except ValueError:
        raise ValueError(f"not a {what}: {text!r} (expected '{hint}')") from None
    if not on_board(a, b):
        raise ValueError(f"{text!r} {off_board}")
    return a, b


def format_pair(a: int, b: int) -> str:
    """``(a, b)`` in the notation ``a,b``."""
    return f"{a},{b}"


@dataclass(frozen=True)
class Lattice:
    """Where lattice point ``(a, b)`` is drawn: ``centre + (a - origin_a) * step_a +
    (b - origin_b) * step_b``, turned half a circle about the centre when ``flipped``."""

    centre: tuple[float, float]
    step_a: tuple[float, float]
    step_b: tuple[float, float]
    origin: tuple[float, float] = (0.0, 0.0)
    flipped: bool = False

    def xy(self, a: float, b: float) -> tuple[float, float]:
        """Pixel of lattice point ``(a, b)`` (fractions allowed)."""
        a, b = a - self.origin[0], b - self.origin[1]
        dx = a * self.step_a[0] + b * self.step_b[0]
        dy = a * self.step_a[1] + b * self.step_b[1]
        if self.flipped:
            dx, dy = -dx, -dy
        return self.centre[0] + dx, self.centre[1] + dy


class LatticeView(BoardView):
    """A board of points ``a,b``: subclasses set ``self.lattice`` in ``layout`` and name their
    points with :meth:`parse_point` / :meth:`format_point`."""

    lattice = Lattice((0.0, 0.0), (1.0, 0.0), (0.0, 1.0))
    _pairs: tuple[Pair, ...] = ()

    def parse_point(self, text: str) -> Pair:
        """The pair of point ``text``; raises ``ValueError`` naming it when it is no point."""
        raise NotImplementedError

    def points(self) -> Iterable[str]:
        return [format_pair(a, b) for a, b in self._pairs]

    def _xy(self, a: float, b: float) -> tuple[float, float]:
        return self.lattice.xy(a, b)

    def pixel_of(self, point: str) -> tuple[int, int]:
        x, y = self._xy(*self.parse_point(point))
        return round(x), round(y)


class SurfaceCache:
    """A few painted surfaces by key (a board background per layout); cleared when full."""

    def __init__(self, limit: int = 8) -> None:
        self.limit = limit
        self._items: dict[Hashable, pygame.Surface] = {}

    def get(self, key: Hashable, paint: Callable[[], pygame.Surface]) -> pygame.Surface:
        """The surface for ``key``, painted by ``paint()`` the first time it is asked for."""
        found = self._items.get(key)
        if found is None:
            if len(self._items) >= self.limit:
                self._items.clear()
            found = self._items[key] = paint()
        return found
