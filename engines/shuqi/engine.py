"""The number chess engine (RULES.md section 3): states, moves, notation, outcomes, claims."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, ClassVar, Final

from engines.base import (
    SIDES,
    BadOption,
    BadPosition,
    ClaimRefused,
    Engine,
    IllegalMove,
    Outcome,
    Side,
    VariantInfo,
    other,
)
from engines.shuqi.board import (
    CAMP_NUMBER,
    HOME_CAMP,
    INDEX,
    POINTS,
    RAYS,
    START,
    TARGET_CAMP,
    Point,
    format_point,
    parse_point,
)
from engines.shuqi.expr import ExpressionError, evaluate
from engines.shuqi.solver import SOLVE_CACHE, can_solve, solve

EMPTY: Final = -1
"""Board cell without a piece; otherwise a cell holds a piece code 0..19 (see :func:`code`)."""

_POINT: Final = r"([0-9]{1,2},[0-9]{1,2})"
_MOVE_RE: Final = re.compile(_POINT + "-" + _POINT + r"(?:(=)(.*))?", re.DOTALL)
MAX_MOVE_LENGTH: Final = 200


def code(side: Side, number: int) -> int:
    """The piece code of ``side``'s piece ``number``: 0..9 for first, 10..19 for second."""
    return number if side == "first" else 10 + number


def _camp_name(side: Side, target: bool) -> str:
    camp = TARGET_CAMP[side] if target else HOME_CAMP[side]
    return "L" if (0, 7) in camp else "R"


@dataclass(frozen=True)
class ShuqiState:
    """An immutable number chess position.

    ``squares[c]`` is the point index (into :data:`board.POINTS`) of piece code ``c``: first's
    pieces 0..9, then second's 0..9. ``board`` (derived) maps point index -> piece code or -1.
    """

    squares: tuple[int, ...]
    turn: Side
    ply: int
    last_move: str | None = None
    max_plies: int = 400
    home_limit: int = 30
    board: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _can_move: list[bool] = field(
        init=False, repr=False, compare=False, hash=False, default_factory=list
    )
    """Memo of whether the side to move has a move (empty until asked; private to this state)."""

    def __post_init__(self) -> None:
        cells = [EMPTY] * len(POINTS)
        for c, i in enumerate(self.squares):
            cells[i] = c
        object.__setattr__(self, "board", tuple(cells))

    def pieces(self, side: Side) -> tuple[Point, ...]:
        """Points of ``side``'s pieces 0..9, in piece-number order."""
        base = 0 if side == "first" else 10
        return tuple(POINTS[i] for i in self.squares[base : base + 10])

    @property
    def first(self) -> tuple[Point, ...]:
        """Points of first's pieces 0..9."""
        return self.pieces("first")

    @property
    def second(self) -> tuple[Point, ...]:
        """Points of second's pieces 0..9."""
        return self.pieces("second")

    def piece_at(self, p: Point) -> tuple[Side, int] | None:
        """``(side, number)`` of the piece on ``p``, or ``None`` for an empty or off-board point."""
        i = INDEX.get(p)
        if i is None or self.board[i] == EMPTY:
            return None
        c = self.board[i]
        return ("first", c) if c < 10 else ("second", c - 10)

    def moves_made(self, side: Side) -> int:
        """How many moves ``side`` has made (first moves at even plies)."""
        return (self.ply + 1) // 2 if side == "first" else self.ply // 2


# ---- move generation on raw tuples/lists (shared by legal_moves and the fast perft) -----------

RawMove = tuple[int, int, int, tuple[int, ...] | None]
"""``(piece code, from index, to index, sorted spanned numbers or None)``: a move before naming."""
"""``(piece code, from index, to index, sorted spanned numbers or None for a step/hop)``."""


@lru_cache(maxsize=SOLVE_CACHE)
def _span_ok(numbers: tuple[int, ...], target: int) -> bool:
    return can_solve(numbers, target)


def generate_moves(
    board: tuple[int, ...] | list[int], squares: tuple[int, ...] | list[int], base: int
) -> list[RawMove]:
    """Every legal move of the side whose codes start at ``base`` (0 or 10)."""
    return list(_iter_moves(board, squares, base))


def _any_move(board: tuple[int, ...], squares: tuple[int, ...], base: int) -> bool:
    """Whether :func:`generate_moves` would find a move, stopping at the first one."""
    return next(_iter_moves(board, squares, base), None) is not None


def _iter_moves(
    board: tuple[int, ...] | list[int], squares: tuple[int, ...] | list[int], base: int
) -> Iterator[RawMove]:
    """The moves of :func:`generate_moves`, one at a time (steps, hops, then spans, per ray)."""
    for c in range(base, base + 10):
        start = squares[c]
        number = c - base
        for ray in RAYS[start]:
            spanned: list[int] = []
            previous_full = False
            for k, j in enumerate(ray):
                cell = board[j]
                if cell != EMPTY:
                    spanned.append(cell % 10)
                    previous_full = True
                    continue
                if not spanned:
                    if k == 0:
                        yield (c, start, j, None)
                elif previous_full:
                    if len(spanned) == 1:
                        if k == 1:
                            yield (c, start, j, None)
                    else:
                        numbers = tuple(sorted(spanned))
                        if _span_ok(numbers, number):
                            yield (c, start, j, numbers)
                previous_full = False


_RAY_PLACE: Final[dict[tuple[int, int], tuple[tuple[int, ...], int]]] = {
    (i, j): (ray, k) for i, rays in enumerate(RAYS) for ray in rays for k, j in enumerate(ray)
}
"""``(from index, to index)`` -> the ray from ``from`` through ``to`` and ``to``'s place on it."""


def _one_move(
    board: tuple[int, ...], base: int, i: int, j: int
) -> tuple[int, tuple[int, ...] | None] | None:
    """``(piece code, sorted spanned numbers or None)`` when :func:`generate_moves` lists
    ``i``-``j`` for the side at ``base``, else ``None``: the same walk, along the one ray."""
    c = board[i]
    place = _RAY_PLACE.get((i, j))
    if c == EMPTY or not base <= c < base + 10 or place is None:
        return None
    ray, target = place
    spanned: list[int] = []
    previous_full = False
    for k in range(target + 1):
        cell = board[ray[k]]
        if cell != EMPTY:
            spanned.append(cell % 10)
            previous_full = True
            continue
        if k == target:
            if not spanned:
                return (c, None) if k == 0 else None
            if not previous_full:
                return None
            if len(spanned) == 1:
                return (c, None) if k == 1 else None
            numbers = tuple(sorted(spanned))
            return (c, numbers) if _span_ok(numbers, c - base) else None
        previous_full = False
    return None


_POINT_TEXT: Final = tuple(format_point(p) for p in POINTS)
"""``format_point`` of every point index."""


def _count_perft(
    board: list[int], squares: list[int], base: int, ply: int, limit: int, depth: int
) -> int:
    if ply >= limit:
        return 0
    moves = generate_moves(board, squares, base)
    if depth == 1:
        return len(moves)
    total = 0
    for c, i, j, _ in moves:
        board[i] = EMPTY
        board[j] = c
        squares[c] = j
        total += _count_perft(board, squares, 10 - base, ply + 1, limit, depth - 1)
        board[j] = EMPTY
        board[i] = c
        squares[c] = i
    return total


# ---- the engine -------------------------------------------------------------------------------


class ShuqiEngine(Engine):
    """Number chess 国际数棋: steps, hops and arithmetic spans on a 64-point rhombus."""

    game: ClassVar[str] = "shuqi"
    name: ClassVar[str] = "Number chess"
    default_options: ClassVar[Mapping[str, Any]] = {"max_plies": 400, "home_limit": 30}

    def variants(self) -> list[VariantInfo]:
        """Only ``standard``."""
        return [
            VariantInfo(
                "standard",
                "Standard",
                "Ten numbered pieces a side; step, hop, or span pieces with an arithmetic "
                "expression; bring all ten into the opposite camp and call stop.",
            )
        ]

    def validate_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """The base checks, and ``max_plies`` at least 1."""
        merged = super().validate_options(options)
        if merged["max_plies"] < 1:
            raise BadOption(f"option 'max_plies' must be at least 1, not {merged['max_plies']}")
        return merged

    # ---- positions ----------------------------------------------------------------------------

    def start(
        self,
        variant: str | None = None,
        position: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> ShuqiState:
        """The start position, or ``position`` (``TURN;PLY;FIRST;SECOND``) validated."""
        self.resolve_variant(variant)
        opts = self.validate_options(options)
        if position is None:
            points = START["first"] + START["second"]
            turn: Side = "first"
            ply = 0
        else:
            turn, ply, points = parse_position(position)
        return ShuqiState(
            squares=tuple(INDEX[p] for p in points),
            turn=turn,
            ply=ply,
            max_plies=opts["max_plies"],
            home_limit=opts["home_limit"],
        )

    def position(self, state: ShuqiState) -> str:
        """``TURN;PLY;FIRST;SECOND`` (RULES.md 3, "Notation")."""
        squares = state.squares
        first = " ".join([_POINT_TEXT[i] for i in squares[:10]])
        second = " ".join([_POINT_TEXT[i] for i in squares[10:20]])
        return f"{state.turn};{state.ply};{first};{second}"

    # ---- moves --------------------------------------------------------------------------------

    def legal_moves(self, state: ShuqiState) -> list[str]:
        """Every legal move; each span once per (from, to) with one valid expression."""
        if state.ply >= state.max_plies:
            return []
        out = []
        for c, i, j, numbers in generate_moves(state.board, state.squares, _base(state.turn)):
            text = f"{format_point(POINTS[i])}-{format_point(POINTS[j])}"
            if numbers is not None:
                expression = solve(numbers, c % 10)
                assert expression is not None  # generate_moves keeps only solvable spans
                text += "=" + expression
            out.append(text)
        return out

    def play(self, state: ShuqiState, move: str) -> ShuqiState:
        """Play ``move`` (``x,y-x,y`` or ``x,y-x,y=EXPRESSION``); raises :class:`IllegalMove`."""
        if not isinstance(move, str):
            raise IllegalMove(f"a move must be text, not {type(move).__name__}")
        if len(move) > MAX_MOVE_LENGTH:
            raise IllegalMove(f"a move is at most {MAX_MOVE_LENGTH} characters")
        if state.ply >= state.max_plies:
            raise IllegalMove("the game is over (move_limit)")
        if not self._can_move(state):
            raise IllegalMove("the game is over (no_moves)")
        match = _MOVE_RE.fullmatch(move)
        if match is None:
            raise IllegalMove(
                f"{move!r} is not a move: write x,y-x,y (step or hop) or x,y-x,y=EXPRESSION (span)"
            )
        try:
            frm = parse_point(match.group(1))
            to = parse_point(match.group(2))
        except ValueError as exc:
            raise IllegalMove(f"{move!r}: {exc}") from exc
        expression = match.group(4) if match.group(3) else None
        text = f"{format_point(frm)}-{format_point(to)}"
        found = _one_move(state.board, _base(state.turn), INDEX[frm], INDEX[to])
        if found is None:
            # Not a legal (from, to): say why. _geometry refuses what no expression could save;
            # what passes it is a span no expression solves, so the mover's expression is wrong.
            c, numbers = self._geometry(state, frm, to)
            assert numbers is not None, "a step or hop that generate_moves missed"
            _check_span(text, numbers, c % 10, expression)
            raise IllegalMove(f"{text}: not a legal move")  # unreachable: checked expression
        c, numbers = found
        if numbers is None:
            if expression is not None:
                raise IllegalMove(
                    f"{text} is a {'step' if _adjacent(frm, to) else 'hop'}: "
                    "only a span carries an expression (=...)"
                )
        else:
            _check_span(text, numbers, c % 10, expression)
            text += f"={expression}"
        squares = list(state.squares)
        squares[c] = INDEX[to]
        return ShuqiState(
            squares=tuple(squares),
            turn=other(state.turn),
            ply=state.ply + 1,
            last_move=text,
            max_plies=state.max_plies,
            home_limit=state.home_limit,
        )

    def spanned(self, state: ShuqiState, frm: Point, to: Point) -> tuple[tuple[int, ...], int]:
        """The numbers a span ``frm``-``to`` jumps (line order) and the value it must make.

        For the client's hint button: ``solve(*ENGINE.spanned(state, a, b))``. Raises
        :class:`IllegalMove` when ``frm``-``to`` is not a span for the side to move (a step, a
        hop, or impossible on this board).
        """
        c, numbers = self._geometry(state, frm, to)
        if numbers is None:
            raise IllegalMove(f"{format_point(frm)}-{format_point(to)} is not a span")
        return numbers, c % 10

    def timeout_outcome(self, state: ShuqiState, loser: Side) -> Outcome:
        """``loser``'s time ran out: the other side wins; the scores are filled in."""
        return Outcome(winner=other(loser), reason="timeout", scores=self.scores(state))

    def _geometry(
        self, state: ShuqiState, frm: Point, to: Point
    ) -> tuple[int, tuple[int, ...] | None]:
        """Check ``frm``-``to`` against the board; return the piece code and spanned numbers.

        The numbers are ``None`` for a step or hop. Raises :class:`IllegalMove` saying why the
        move is impossible whatever the expression.
        """
        side = state.turn
        text = f"{format_point(frm)}-{format_point(to)}"
        owner = state.piece_at(frm)
        if owner is None:
            raise IllegalMove(f"{text}: there is no piece on {format_point(frm)}")
        if owner[0] != side:
            raise IllegalMove(
                f"{text}: the piece on {format_point(frm)} is {owner[0]}'s and {side} is to move"
            )
        if state.piece_at(to) is not None:
            raise IllegalMove(f"{text}: {format_point(to)} is occupied")
        dx, dy = to[0] - frm[0], to[1] - frm[1]
        if dx != 0 and abs(dx) == abs(dy):
            steps, d = abs(dx), (dx // abs(dx), dy // abs(dy))
        elif dx == 0 and dy % 2 == 0 and dy != 0:
            steps, d = abs(dy) // 2, (0, 2 if dy > 0 else -2)
        else:
            raise IllegalMove(
                f"{text}: {format_point(to)} is not on a line through {format_point(frm)} "
                "(lines run along (1,1), (1,-1) and (0,2))"
            )
        between = [(frm[0] + d[0] * k, frm[1] + d[1] * k) for k in range(1, steps)]
        spanned = [p for p in between if state.piece_at(p) is not None]
        c = code(side, owner[1])
        if not spanned:
            if steps == 1:
                return c, None
            raise IllegalMove(
                f"{text}: nothing to jump between the two points; a step goes to a neighbour"
            )
        if state.piece_at(between[-1]) is None:
            raise IllegalMove(
                f"{text}: a jump lands directly beyond the last piece jumped "
                f"({format_point(spanned[-1])})"
            )
        if len(spanned) == 1:
            if steps == 2:
                return c, None
            raise IllegalMove(
                f"{text}: one piece can be hopped only when it is adjacent "
                "(a span needs two or more pieces)"
            )
        numbers = []
        for p in spanned:
            found = state.piece_at(p)
            assert found is not None
            numbers.append(found[1])
        return c, tuple(numbers)

    # ---- the end ------------------------------------------------------------------------------

    def scores(self, state: ShuqiState) -> dict[Side, int]:
        """Both players' product-sums now: piece number x target-camp point number, summed."""
        result: dict[Side, int] = {}
        for side in SIDES:
            base = _base(side)
            camp = CAMP_NUMBER[side]
            total = 0
            for n in range(10):
                point_number = camp[state.squares[base + n]]
                if point_number >= 0:
                    total += n * point_number
            result[side] = total
        return result

    def outcome(self, state: ShuqiState) -> Outcome | None:
        """``move_limit`` at ``max_plies``; ``no_moves`` when the side to move cannot move."""
        if state.ply >= state.max_plies:
            return Outcome(winner=None, reason="move_limit", scores=self.scores(state))
        if not self._can_move(state):
            return Outcome(winner=other(state.turn), reason="no_moves", scores=self.scores(state))
        return None

    @staticmethod
    def _can_move(state: ShuqiState) -> bool:
        """Whether the side to move has a move (worked out once per state)."""
        memo = state._can_move
        if not memo:
            memo.append(_any_move(state.board, state.squares, _base(state.turn)))
        return memo[0]

    def claim(self, state: ShuqiState, kind: str, side: Side) -> Outcome:
        """Judge ``stop`` or ``report`` by ``side``; raises :class:`ClaimRefused` saying why."""
        if side not in SIDES:
            raise ClaimRefused(f"{side!r} is not a side (first or second)")
        if kind not in ("stop", "report"):
            raise ClaimRefused(f"{kind!r} is not a claim in number chess (stop, report)")
        over = self.outcome(state)
        if over is not None:
            raise ClaimRefused(f"the game is over ({over.reason})")
        scores = self.scores(state)
        if kind == "stop":
            if side != state.turn:
                raise ClaimRefused(f"{side} may call stop only on its own turn")
            camp = TARGET_CAMP[side]
            missing = [
                f"{n} on {format_point(p)}"
                for n, p in enumerate(state.pieces(side))
                if p not in camp
            ]
            if missing:
                raise ClaimRefused(
                    f"stop needs all ten of {side}'s pieces in its target camp "
                    f"{_camp_name(side, True)}; not there: {', '.join(missing)}"
                )
            if scores["first"] == scores["second"]:
                winner: Side | None = None
            else:
                winner = "first" if scores["first"] > scores["second"] else "second"
            return Outcome(winner=winner, reason="stop", scores=scores)
        rival = other(side)
        made = state.moves_made(rival)
        home = HOME_CAMP[rival]
        at_home = [(n, p) for n, p in enumerate(state.pieces(rival)) if p in home]
        listed = ", ".join(f"{n} on {format_point(p)}" for n, p in at_home) or "none"
        checked = (
            f"{rival} has made {made} moves (limit {state.home_limit}); its pieces in its home "
            f"camp {_camp_name(rival, False)}: {listed}"
        )
        if made < state.home_limit:
            raise ClaimRefused(f"report refused: {checked}; pieces may stay home until the limit")
        if not at_home:
            raise ClaimRefused(f"report refused: {checked}")
        return Outcome(
            winner=side,
            reason="report",
            scores=scores,
            highlight=tuple(format_point(p) for _, p in at_home),
        )

    # ---- speed ------------------------------------------------------------------------------

    def perft(self, state: ShuqiState, depth: int) -> int:
        """Count positions at exactly ``depth`` plies (distinct (from, to) moves), fast path."""
        if depth == 0:
            return 1
        return _count_perft(
            list(state.board),
            list(state.squares),
            _base(state.turn),
            state.ply,
            state.max_plies,
            depth,
        )


def _base(side: Side) -> int:
    return 0 if side == "first" else 10


def _adjacent(a: Point, b: Point) -> bool:
    return (abs(a[0] - b[0]) == 1 and abs(a[1] - b[1]) == 1) or (
        a[0] == b[0] and abs(a[1] - b[1]) == 2
    )


def _listing(numbers: tuple[int, ...] | list[int]) -> str:
    return ", ".join(map(str, numbers)) if numbers else "none"


def _check_span(text: str, numbers: tuple[int, ...], target: int, expression: str | None) -> None:
    """Refuse a span whose expression is missing, unreadable, uses the wrong numbers or value.

    Every reason names the numbers expected (the spanned pieces) and the value needed, and, once
    the expression can be read, the numbers it used and its value.
    """
    expected = sorted(numbers)
    wanted = f"expected the spanned numbers {_listing(expected)} (each used exactly once)"
    if expression is None or expression == "":
        raise IllegalMove(
            f"{text} is a span and needs an expression: {wanted} making {target}, "
            f"the moving piece's number; write {text}=EXPRESSION"
        )
    try:
        result = evaluate(expression)
    except ExpressionError as exc:
        raise IllegalMove(f"illegal span {text}: {exc}; {wanted} making {target}") from exc
    used = sorted(result.operands)
    if used != expected:
        raise IllegalMove(
            f"illegal span {text}={expression}: {wanted}, used {_listing(used)}; "
            f"it has value {result.value}, needed {target}"
        )
    if result.value != target:
        raise IllegalMove(
            f"illegal span {text}={expression}: it has value {result.value}, needed {target} "
            f"(the moving piece's number); used {_listing(used)} as expected"
        )


def parse_position(text: str) -> tuple[Side, int, tuple[Point, ...]]:
    """Read ``TURN;PLY;FIRST;SECOND``; raises :class:`BadPosition` naming what is wrong.

    Returns the side to move, the ply and the 20 points (first's 0..9 then second's 0..9).
    """
    if not isinstance(text, str):
        raise BadPosition("a number chess position must be text (TURN;PLY;FIRST;SECOND)")
    if len(text) > 4096:
        raise BadPosition("the position string is longer than 4096 characters")
    parts = text.split(";")
    if len(parts) != 4:
        raise BadPosition(
            f"a number chess position has 4 fields TURN;PLY;FIRST;SECOND, not {len(parts)}"
        )
    turn_text, ply_text, first_text, second_text = parts
    if turn_text not in SIDES:
        raise BadPosition(f"TURN must be first or second, not {turn_text!r}")
    turn: Side = "first" if turn_text == "first" else "second"
    if not re.fullmatch(r"[0-9]{1,7}", ply_text):
        raise BadPosition(f"PLY must be a whole number of moves (0 or more), not {ply_text!r}")
    ply = int(ply_text)
    if (ply % 2 == 0) != (turn == "first"):
        raise BadPosition(
            f"TURN {turn} does not match PLY {ply}: first is to move exactly when PLY is even"
        )
    points: list[Point] = []
    for side, field_text in (("first", first_text), ("second", second_text)):
        items = field_text.split(" ")
        if len(items) != 10:
            raise BadPosition(
                f"{side}'s field needs ten points x,y separated by single spaces, "
                f"found {len(items)}"
            )
        for n, item in enumerate(items):
            try:
                points.append(parse_point(item))
            except ValueError as exc:
                raise BadPosition(f"{side}'s piece {n}: {exc}") from exc
    seen: dict[Point, str] = {}
    for k, p in enumerate(points):
        who = f"{SIDES[k // 10]}'s piece {k % 10}"
        if p in seen:
            raise BadPosition(f"{who} and {seen[p]} are both on {format_point(p)}")
        seen[p] = who
    return turn, ply, tuple(points)


ENGINE: Final = ShuqiEngine()
"""The number chess engine instance (registered as ``shuqi``)."""
