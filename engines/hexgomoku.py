"""Hexagonal five-in-a-row (三角网络五子棋), RULES.md section 4.

The board is the 169 points ``(q, r)`` of a triangular lattice with
``max(|q|, |r|, |q + r|) <= 7``. Black (``first``) and White alternately place a stone on an empty
point; an unbroken line of five or more own stones along one of the directions ``(1, 0)``,
``(0, 1)``, ``(1, -1)`` wins at once (option ``exact5``: exactly five). A full board is a draw.

>>> from engines import get
>>> game = get("hexgomoku")
>>> state = game.play(game.start(), "0,0")
>>> game.position(state)
'second;0,0;'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from engines.base import BadPosition, Engine, IllegalMove, Outcome, Side, VariantInfo, other

Point = tuple[int, int]

RADIUS = 7
DIRECTIONS: tuple[Point, ...] = ((1, 0), (0, 1), (1, -1))
"""The three line directions of the lattice."""

POINTS: tuple[Point, ...] = tuple(
    (q, r)
    for r in range(-RADIUS, RADIUS + 1)
    for q in range(-RADIUS, RADIUS + 1)
    if max(abs(q), abs(r), abs(q + r)) <= RADIUS
)
"""All 169 board points, row by row (r ascending), q ascending within a row."""

POINT_SET = frozenset(POINTS)
_ORDER: dict[Point, int] = {p: i for i, p in enumerate(POINTS)}
"""Board order of every point (for sorting a side's stones)."""
_TEXT: dict[Point, str] = {p: f"{p[0]},{p[1]}" for p in POINTS}
"""Notation of every point."""
MAX_POINT_TEXT = 16
_POINT_RE = re.compile(r"^\s*(-?[0-9]{1,2})\s*,\s*(-?[0-9]{1,2})\s*$")


def on_board(point: Point) -> bool:
    """Whether ``point`` is one of the 169 board points."""
    q, r = point
    return max(abs(q), abs(r), abs(q + r)) <= RADIUS


def format_point(point: Point) -> str:
    """Notation of a point: ``q,r``."""
    return f"{point[0]},{point[1]}"


def parse_point(text: str) -> Point:
    """Parse ``q,r`` into a board point; raises :class:`IllegalMove` naming what is wrong."""
    if not isinstance(text, str):
        raise IllegalMove(f"a point must be text such as 0,0, not {type(text).__name__}")
    if len(text) > MAX_POINT_TEXT:
        raise IllegalMove(f"{text[:MAX_POINT_TEXT]!r}... is not a point: write q,r such as 0,0")
    match = _POINT_RE.match(text)
    if match is None:
        raise IllegalMove(f"{text!r} is not a point: write q,r such as 0,0 or -3,7")
    point = (int(match.group(1)), int(match.group(2)))
    if not on_board(point):
        raise IllegalMove(
            f"{format_point(point)} is off the board (need max(|q|, |r|, |q+r|) <= {RADIUS})"
        )
    return point


def winning_line(stones: frozenset[Point], point: Point, exact5: bool) -> tuple[Point, ...]:
    """The winning line through ``point`` made by ``stones``, or ``()`` if there is none."""
    for dq, dr in DIRECTIONS:
        line = [point]
        q, r = point[0] + dq, point[1] + dr
        while (q, r) in stones:
            line.append((q, r))
            q, r = q + dq, r + dr
        q, r = point[0] - dq, point[1] - dr
        while (q, r) in stones:
            line.insert(0, (q, r))
            q, r = q - dq, r - dr
        if len(line) == 5 or (len(line) > 5 and not exact5):
            return tuple(line)
    return ()


@dataclass(frozen=True)
class HexState:
    """An immutable hexgomoku position."""

    black: frozenset[Point]
    white: frozenset[Point]
    turn: Side
    ply: int
    last_move: str | None
    exact5: bool
    result: Outcome | None = None

    def stones_of(self, side: Side) -> frozenset[Point]:
        """The stones of ``side`` (first = Black)."""
        return self.black if side == "first" else self.white

    def owner(self, point: Point) -> Side | None:
        """Who has a stone on ``point``."""
        if point in self.black:
            return "first"
        if point in self.white:
            return "second"
        return None


class HexGomoku(Engine):
    """The hexgomoku rules."""

    game = "hexgomoku"
    name = "Hexagonal five-in-a-row"
    default_options: ClassVar[Mapping[str, Any]] = {"exact5": False}

    def variants(self) -> list[VariantInfo]:
        """One variant: the 169-point hexagon."""
        return [
            VariantInfo(
                "standard",
                "Hexagon 169",
                "Five in a row on a 169-point triangular lattice, three line directions",
            )
        ]

    def start(
        self,
        variant: str | None = None,
        position: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> HexState:
        """The empty board, or ``position`` (``TURN;BLACK;WHITE``) validated."""
        self.resolve_variant(variant)
        exact5 = bool(self.validate_options(options)["exact5"])
        if position is None:
            return HexState(frozenset(), frozenset(), "first", 0, None, exact5)
        return self._parse_position(position, exact5)

    def _parse_position(self, text: str, exact5: bool) -> HexState:
        if not isinstance(text, str):
            raise BadPosition(f"a hexgomoku position must be text, not {type(text).__name__}")
        if len(text) > 4096:
            raise BadPosition("position string is longer than 4096 characters")
        parts = text.strip().split(";")
        if len(parts) != 3:
            raise BadPosition(
                f"a hexgomoku position is TURN;BLACK;WHITE (3 fields), got {len(parts)} in {text!r}"
            )
        turn_text, black_text, white_text = parts
        if turn_text not in ("first", "second"):
            raise BadPosition(f"TURN must be 'first' or 'second', not {turn_text!r}")
        sides: list[frozenset[Point]] = []
        seen: set[Point] = set()
        for label, field_text in (("black", black_text), ("white", white_text)):
            stones: set[Point] = set()
            for token in field_text.split():
                try:
                    point = parse_point(token)
                except IllegalMove as exc:
                    raise BadPosition(f"{label} stone: {exc}") from exc
                if point in seen:
                    raise BadPosition(f"point {format_point(point)} is listed twice")
                seen.add(point)
                stones.add(point)
            sides.append(frozenset(stones))
        black, white = sides
        expected_turn: Side = "first" if len(black) == len(white) else "second"
        if len(black) - len(white) not in (0, 1):
            raise BadPosition(
                f"black must have as many stones as white or one more "
                f"(black {len(black)}, white {len(white)})"
            )
        if turn_text != expected_turn:
            raise BadPosition(
                f"with black {len(black)} and white {len(white)} stones it is "
                f"{expected_turn}'s turn, not {turn_text}'s"
            )
        for label, placed in (("black", black), ("white", white)):
            for point in placed:
                if winning_line(placed, point, exact5):
                    raise BadPosition(
                        f"{label} already has five in a row through {format_point(point)}"
                    )
        state = HexState(black, white, expected_turn, len(black) + len(white), None, exact5)
        if state.ply == len(POINTS):
            state = HexState(
                black, white, expected_turn, state.ply, None, exact5, Outcome(None, "board_full")
            )
        return state

    def legal_moves(self, state: HexState) -> list[str]:
        """Every empty point, in board order; none once the game is over."""
        if state.result is not None:
            return []
        taken = state.black | state.white
        return [_TEXT[p] for p in POINTS if p not in taken]

    def play(self, state: HexState, move: str) -> HexState:
        """Place the side to move's stone on ``move`` (``q,r``)."""
        if state.result is not None:
            raise IllegalMove("the game is over")
        point = parse_point(move)
        if point in state.black or point in state.white:
            colour = "black" if point in state.black else "white"
            raise IllegalMove(f"{format_point(point)} is taken by a {colour} stone")
        mover = state.turn
        black, white = state.black, state.white
        if mover == "first":
            black = black | {point}
        else:
            white = white | {point}
        line = winning_line(black if mover == "first" else white, point, state.exact5)
        ply = state.ply + 1
        result: Outcome | None = None
        if line:
            result = Outcome(mover, "five", highlight=tuple(format_point(p) for p in line))
        elif ply == len(POINTS):
            result = Outcome(None, "board_full")
        return HexState(black, white, other(mover), ply, format_point(point), state.exact5, result)

    def outcome(self, state: HexState) -> Outcome | None:
        """Five in a row, or a full board."""
        return state.result

    def position(self, state: HexState) -> str:
        """``TURN;BLACK;WHITE`` with stones in board order."""
        order, text = _ORDER.__getitem__, _TEXT.__getitem__
        black = " ".join(map(text, sorted(state.black, key=order)))
        white = " ".join(map(text, sorted(state.white, key=order)))
        return f"{state.turn};{black};{white}"

    def perft(self, state: HexState, depth: int) -> int:
        """Positions at exactly ``depth`` plies (a won position has no moves)."""
        if depth == 0:
            return 1
        if state.result is not None:
            return 0
        if depth == 1:
            return len(POINTS) - state.ply
        return sum(self.perft(self.play(state, m), depth - 1) for m in self.legal_moves(state))


ENGINE = HexGomoku()
