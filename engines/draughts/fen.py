"""PDN FEN position strings: ``W:W31-50:B1-20`` (RULES.md section 2, Notation).

The first field is the side to move (``W`` or ``B``); then one field per side, tagged by its
letter, in either order, each a comma-separated list of squares, ``K``-prefixed for kings, with
ranges ``a-b`` allowed; a list may be empty. Spaces beside ``,``, ``-`` and ``K`` are read; a
space between two digits is refused (``3 1`` is not square 31). Optional ``H`` (halfmove) and
``F`` (fullmove number) fields, as some programs write them, are read and ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engines.base import BadPosition

MAX_POSITION_TEXT = 1000
_ITEM_RE = re.compile(r"^(K?)\s*([0-9]{1,3})(?:\s*-\s*([0-9]{1,3}))?$")
_COUNTER_RE = re.compile(r"^[HF][0-9]{1,6}$")


@dataclass(frozen=True)
class Setup:
    """A position as square numbers: men and kings of each side and the side to move."""

    white_to_move: bool
    white_men: frozenset[int]
    white_kings: frozenset[int]
    black_men: frozenset[int]
    black_kings: frozenset[int]


def _parse_list(text: str, colour: str, squares: int) -> tuple[set[int], set[int]]:
    men: set[int] = set()
    kings: set[int] = set()
    if not text.strip():
        return men, kings
    for item in (part.strip() for part in text.split(",")):
        match = _ITEM_RE.match(item)
        if match is None:
            raise BadPosition(
                f"{item!r} in the {colour} list is not a square: write a number, K and a number "
                "for a king, or a range such as 31-50"
            )
        first = int(match.group(2))
        last = int(match.group(3)) if match.group(3) else first
        if last < first:
            raise BadPosition(f"range {item!r} in the {colour} list runs backwards")
        for square in (first, last):
            if not 1 <= square <= squares:
                raise BadPosition(
                    f"square {square} in the {colour} list is off the board (1-{squares})"
                )
        for square in range(first, last + 1):
            if square in men or square in kings:
                raise BadPosition(f"square {square} is listed twice in the {colour} list")
            (kings if match.group(1) else men).add(square)
    return men, kings


def parse_position(text: str, squares: int) -> Setup:
    """Read a PDN FEN for a board of ``squares`` squares; raises :class:`BadPosition`."""
    if not isinstance(text, str):
        raise BadPosition("a position must be a string such as W:W31-50:B1-20")
    if len(text) > MAX_POSITION_TEXT:
        raise BadPosition(f"position string too long ({len(text)} characters)")
    body = text.strip()
    if body.endswith("."):
        body = body[:-1]
    fields = [f.strip() for f in body.split(":")]
    example = "W:W31-50:B1-20" if squares == 50 else "W:W21-32:B1-12"
    if len(fields) < 3 or fields[0] not in ("W", "B"):
        raise BadPosition(
            f"{text[:60]!r} is not a PDN FEN: write the side to move, then each side's squares, "
            f"e.g. {example}"
        )
    lists: dict[str, tuple[set[int], set[int]]] = {}
    for f in fields[1:]:
        if _COUNTER_RE.match(f):
            continue
        tag, rest = f[:1], f[1:]
        if tag not in ("W", "B"):
            raise BadPosition(f"field {f[:30]!r} must start with W or B (whose pieces they are)")
        colour = "white" if tag == "W" else "black"
        if tag in lists:
            raise BadPosition(f"the {colour} pieces are listed twice")
        lists[tag] = _parse_list(rest, colour, squares)
    for tag, colour in (("W", "white"), ("B", "black")):
        if tag not in lists:
            raise BadPosition(f"the {colour} list is missing (write {tag} alone if it is empty)")
    white_men, white_kings = lists["W"]
    black_men, black_kings = lists["B"]
    both = (white_men | white_kings) & (black_men | black_kings)
    if both:
        raise BadPosition(f"square {min(both)} is listed for both sides")
    half = 5 if squares == 50 else 4
    for square in sorted(white_men):
        if square <= half:
            raise BadPosition(f"a white man on {square} stands on its crowning row (K{square}?)")
    for square in sorted(black_men):
        if square > squares - half:
            raise BadPosition(f"a black man on {square} stands on its crowning row (K{square}?)")
    return Setup(
        white_to_move=fields[0] == "W",
        white_men=frozenset(white_men),
        white_kings=frozenset(white_kings),
        black_men=frozenset(black_men),
        black_kings=frozenset(black_kings),
    )


def _format_list(men: frozenset[int], kings: frozenset[int]) -> str:
    items: list[str] = []
    for square in sorted(men | kings):
        if square in kings:
            items.append(f"K{square}")
            continue
        if items and not items[-1].startswith("K"):
            last = items[-1]
            start, _, end = last.partition("-")
            if int(end or start) == square - 1:
                items[-1] = f"{start}-{square}"
                continue
        items.append(str(square))
    return ",".join(items)


def format_position(setup: Setup) -> str:
    """Write a PDN FEN: side to move, then White's and Black's lists (men in ranges)."""
    turn = "W" if setup.white_to_move else "B"
    white = _format_list(setup.white_men, setup.white_kings)
    black = _format_list(setup.black_men, setup.black_kings)
    return f"{turn}:W{white}:B{black}"
