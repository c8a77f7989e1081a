"""PDN move notation: ``32-28``, ``28x19``, full path ``28x19x10`` (RULES.md section 2).

Text is parsed by matching it against the generated legal moves (like python-chess
``parse_san``), so notation never re-implements the rules. A legal move's canonical text is the
short form unless two captures share start and end but take different pieces; then it is the full
path (of the paths taking the same pieces, the one whose square list sorts first).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from engines.base import IllegalMove

MAX_MOVE_TEXT = 200
_MOVE_RE = re.compile(r"^[0-9]{1,3}(?:[-x][0-9]{1,3})+$")


@dataclass(frozen=True)
class LegalMove:
    """A legal move in square numbers with its canonical text and every path that plays it."""

    frm: int
    to: int
    captured: tuple[int, ...]
    """Captured squares, ascending (empty for a quiet move)."""
    paths: tuple[tuple[int, ...], ...]
    """Every square list (start, landings..., end) that plays this move, sorted."""
    text: str
    """Canonical notation."""
    key: tuple[int, int, int, bool]
    """The generator's (from bit, to bit, captured bitset, promotes), to play the move."""

    @property
    def is_capture(self) -> bool:
        """Whether the move takes pieces."""
        return bool(self.captured)


RawMove = tuple[int, int, tuple[int, ...], tuple[tuple[int, ...], ...], tuple[int, int, int, bool]]
"""(from, to, captured squares, paths, generator key) before naming."""


def name_moves(raw: Sequence[RawMove]) -> list[LegalMove]:
    """Give each move (from, to, captured, paths, key) its canonical text; sorted by text order."""
    same_ends: dict[tuple[int, int], int] = {}
    for frm, to, captured, _, _ in raw:
        if captured:
            same_ends[(frm, to)] = same_ends.get((frm, to), 0) + 1
    named = []
    for frm, to, captured, paths, key in raw:
        if not captured:
            text = f"{frm}-{to}"
        elif same_ends[(frm, to)] == 1:
            text = f"{frm}x{to}"
        else:
            text = "x".join(str(s) for s in paths[0])
        named.append(LegalMove(frm, to, captured, paths, text, key))
    named.sort(key=lambda m: (m.frm, m.to, m.paths[0]))
    return named


def parse_move(text: str, moves: Sequence[LegalMove], squares: int) -> LegalMove:
    """Find the legal move that ``text`` names; raises :class:`IllegalMove` with the reason."""
    if not isinstance(text, str):
        raise IllegalMove("a move must be text such as 32-28 or 28x19")
    if len(text) > MAX_MOVE_TEXT:
        raise IllegalMove(f"move text too long ({len(text)} characters)")
    body = text.strip().lower()
    if not _MOVE_RE.match(body):
        raise IllegalMove(
            f"{text!r} is not a draughts move: write 32-28 for a move, 28x19 or 28x19x10 for a "
            "capture"
        )
    numbers = [int(n) for n in re.split(r"[-x]", body)]
    for square in numbers:
        if not 1 <= square <= squares:
            raise IllegalMove(f"square {square} is off the board (1-{squares})")
    captures = [m for m in moves if m.is_capture]
    if "-" in body:
        if "x" in body or len(numbers) != 2:
            raise IllegalMove(f"{text!r}: write a move as from-to (32-28), a capture with x")
        frm, to = numbers
        for m in moves:
            if not m.is_capture and m.frm == frm and m.to == to:
                return m
        if captures:
            raise IllegalMove(
                f"{body} is not legal: capture is compulsory ({choices_text(captures)})"
            )
        raise IllegalMove(f"{body} is not legal here (legal: {choices_text(moves)})")
    if not captures:
        raise IllegalMove(f"{body} is not legal: no capture here (legal: {choices_text(moves)})")
    if len(numbers) == 2:
        frm, to = numbers
        found = [m for m in captures if m.frm == frm and m.to == to]
        if len(found) == 1:
            return found[0]
        if found:
            raise IllegalMove(
                f"{body} is ambiguous: write the full path, one of "
                + ", ".join(m.text for m in found)
            )
        raise IllegalMove(f"{body} is not a legal capture here (legal: {choices_text(captures)})")
    path = tuple(numbers)
    for m in captures:
        if path in m.paths:
            return m
    raise IllegalMove(f"{body} is not a legal capture path here (legal: {choices_text(captures)})")


def choices_text(moves: Sequence[LegalMove], limit: int = 12) -> str:
    """The moves' texts for an error message, the first ``limit`` of them."""
    texts = [m.text for m in moves]
    if not texts:
        return "none"
    more = f" and {len(texts) - limit} more" if len(texts) > limit else ""
    return ", ".join(texts[:limit]) + more
