"""Number chess geometry (RULES.md section 3, "Board" and "Camps and pieces").

The 64 points ``(x, y)`` with ``x + y`` odd and ``|x - 7| + |y - 7| <= 7`` form a rhombus of a
triangular lattice. Points are indexed 0..63 (row by row, top to bottom, left to right); all the
tables below are built once at import.
"""

from __future__ import annotations

import re
from typing import Final

from engines.base import Side

Point = tuple[int, int]
"""A board point ``(x, y)``: x grows to the right, y downwards."""

POINTS: Final[tuple[Point, ...]] = tuple(
    (x, y)
    for y in range(15)
    for x in range(15)
    if (x + y) % 2 == 1 and abs(x - 7) + abs(y - 7) <= 7
)
"""Every board point, in index order."""

INDEX: Final[dict[Point, int]] = {p: i for i, p in enumerate(POINTS)}
"""Point -> index into :data:`POINTS`."""

LINE_DIRECTIONS: Final[tuple[Point, ...]] = ((1, 1), (1, -1), (0, 2))
"""The three line directions; each is used both ways."""

DIRECTIONS: Final[tuple[Point, ...]] = tuple(
    d for a, b in LINE_DIRECTIONS for d in ((a, b), (-a, -b))
)
"""The six step directions."""


def is_point(p: Point) -> bool:
    """True when ``p`` is one of the 64 board points."""
    return p in INDEX


def _ray(start: Point, d: Point) -> tuple[int, ...]:
    x, y = start
    out: list[int] = []
    while True:
        x, y = x + d[0], y + d[1]
        if (x, y) not in INDEX:
            return tuple(out)
        out.append(INDEX[(x, y)])


RAYS: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(
    tuple(r for r in (_ray(p, d) for d in DIRECTIONS) if r) for p in POINTS
)
"""``RAYS[i]``: for each direction with at least one point, the indices along it from point i."""

NEIGHBOURS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(ray[0] for ray in rays) for rays in RAYS
)
"""``NEIGHBOURS[i]``: indices of the (up to six) points adjacent to point i."""

LEFT_CAMP: Final[dict[Point, int]] = {
    (0, 7): 0, (3, 10): 1, (3, 6): 2, (3, 8): 3, (3, 4): 4,
    (2, 5): 5, (2, 7): 6, (2, 9): 7, (1, 8): 8, (1, 6): 9,
}  # fmt: skip
"""Camp L: point -> camp point number. ``second`` starts here."""

RIGHT_CAMP: Final[dict[Point, int]] = {(14 - x, 14 - y): n for (x, y), n in LEFT_CAMP.items()}
"""Camp R (L turned half a circle around (7, 7)): point -> number. ``first`` starts here."""

HOME_CAMP: Final[dict[Side, dict[Point, int]]] = {"first": RIGHT_CAMP, "second": LEFT_CAMP}
"""Each side's home camp (where its pieces start)."""

TARGET_CAMP: Final[dict[Side, dict[Point, int]]] = {"first": LEFT_CAMP, "second": RIGHT_CAMP}
"""Each side's target camp: the opponent's home camp."""

CAMP_NUMBER: Final[dict[Side, tuple[int, ...]]] = {
    side: tuple(camp.get(p, -1) for p in POINTS) for side, camp in TARGET_CAMP.items()
}
"""``CAMP_NUMBER[side][i]``: the target-camp point number of point i for ``side``, or -1."""

IN_HOME: Final[dict[Side, tuple[bool, ...]]] = {
    side: tuple(p in camp for p in POINTS) for side, camp in HOME_CAMP.items()
}
"""``IN_HOME[side][i]``: True when point i is in ``side``'s home camp."""

START: Final[dict[Side, tuple[Point, ...]]] = {
    side: tuple(sorted(camp, key=camp.__getitem__)) for side, camp in HOME_CAMP.items()
}
"""Start points of each side's pieces 0..9 (piece n on its home camp's point n)."""

_POINT_RE: Final = re.compile(r"([0-9]{1,2}),([0-9]{1,2})")


def format_point(p: Point) -> str:
    """``(3, 6)`` -> ``"3,6"``."""
    return f"{p[0]},{p[1]}"


def parse_point(text: str) -> Point:
    """Read ``"x,y"``; raises ``ValueError`` naming the text if it is not a board point."""
    match = _POINT_RE.fullmatch(text)
    if match is None:
        raise ValueError(f"{text!r} is not a point (write x,y, e.g. 3,6)")
    p = (int(match.group(1)), int(match.group(2)))
    if p not in INDEX:
        raise ValueError(f"{text} is not a point of the board")
    return p
