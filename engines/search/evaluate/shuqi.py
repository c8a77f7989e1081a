"""Number chess (国际数棋) for the searcher.

The adapter keeps its own board and piece lists with an incremental Zobrist key, generates steps,
hops and spans (spans checked by the public expression solver), and offers ``stop`` as a move
when the side to move may call it, so the search itself decides when stopping wins. A position
where the side to move could ``report`` the opponent (pieces left home after ``home_limit``
moves) is scored as won for it: the bot never breaks the report rule and reports at once.

Evaluation (100 units ~ three steps of a middle piece): for each piece, the lattice distance to its
best scoring point (the target-camp point with its own number: n x n) weighted by its number;
blocking (own pieces on the opponent's best points while that is allowed); a growing penalty for
pieces still at home as the report limit nears; and the product-sum difference.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Iterable
from typing import cast

from engines.base import ClaimRefused, Engine, Side
from engines.search.adapter import MATE, NoCaptures, ZobristTable
from engines.shuqi.board import (
    CAMP_NUMBER,
    IN_HOME,
    INDEX,
    NEIGHBOURS,
    POINTS,
    TARGET_CAMP,
    format_point,
)
from engines.shuqi.engine import RawMove, ShuqiState
from engines.shuqi.engine import generate_moves as generate
from engines.shuqi.solver import solve

EMPTY = -1
STOP = ("stop",)
"""The pseudo-move that calls stop."""

_Z = ZobristTable(seed=64064)
_PIECE_KEYS = tuple(tuple(_Z[(c, i)] for i in range(len(POINTS))) for c in range(20))
_TURN_KEY = _Z["second to move"]


def _steps_from(sources: Iterable[int]) -> tuple[int, ...]:
    """Lattice steps from each point to the nearest of ``sources`` (breadth-first)."""
    dist = [-1] * len(POINTS)
    queue = deque(sources)
    for i in queue:
        dist[i] = 0
    while queue:
        i = queue.popleft()
        for j in NEIGHBOURS[i]:
            if dist[j] < 0:
                dist[j] = dist[i] + 1
                queue.append(j)
    return tuple(dist)


DIST = tuple(_steps_from([start]) for start in range(len(POINTS)))
"""Lattice step distance between two point indices."""
SIDE_OF_BASE: dict[int, Side] = {0: "first", 10: "second"}


def _exit_steps(side: Side) -> tuple[int, ...]:
    home = IN_HOME[side]
    return _steps_from(i for i in range(len(POINTS)) if not home[i])


EXIT_STEPS: dict[int, tuple[int, ...]] = {0: _exit_steps("first"), 10: _exit_steps("second")}
"""Per side: steps from each point to the nearest point outside the side's home camp."""
TARGET_POINT: dict[int, tuple[int, ...]] = {
    base: tuple(
        INDEX[next(p for p, n in TARGET_CAMP[SIDE_OF_BASE[base]].items() if n == number)]
        for number in range(10)
    )
    for base in (0, 10)
}
"""Per side (base 0 or 10): the index of the target-camp point numbered like each piece."""
COST = tuple(6 + 3 * n for n in range(10))
"""Weight of one step of distance for piece n (heavier numbers score more)."""
IN_TARGET = {base: tuple(n >= 0 for n in CAMP_NUMBER[SIDE_OF_BASE[base]]) for base in (0, 10)}


def moves_made(base: int, ply: int) -> int:
    """Moves made by the side of ``base`` after ``ply`` plies (first moves at even plies)."""
    return (ply + 1) // 2 if base == 0 else ply // 2


class ShuqiAdapter(NoCaptures):
    """A mutable number chess position for the searcher."""

    has_captures = False

    def __init__(self, state: ShuqiState) -> None:
        self.squares = list(state.squares)
        self.cells = [EMPTY] * len(POINTS)
        for c, i in enumerate(self.squares):
            self.cells[i] = c
        self.base = 0 if state.turn == "first" else 10
        self.ply = state.ply
        self.max_plies = state.max_plies
        self.home_limit = state.home_limit
        self.hash = _TURN_KEY if self.base else 0
        for c, i in enumerate(self.squares):
            self.hash ^= _PIECE_KEYS[c][i]
        self.history: list[Hashable] = []
        self.stopped: int | None = None
        """After ``stop``: the stopper's base."""

    # ---- facts -------------------------------------------------------------------------------

    def at_home(self, base: int) -> int:
        """How many of the side's pieces stand in its home camp."""
        home = IN_HOME[SIDE_OF_BASE[base]]
        return sum(1 for c in range(base, base + 10) if home[self.squares[c]])

    def violates(self, base: int) -> bool:
        """Whether the side of ``base`` breaks the report rule now."""
        return moves_made(base, self.ply) >= self.home_limit and self.at_home(base) > 0

    def all_in_target(self, base: int) -> bool:
        """Whether all ten pieces of the side stand in its target camp (it may call stop)."""
        target = IN_TARGET[base]
        return all(target[self.squares[c]] for c in range(base, base + 10))

    def product_sum(self, base: int) -> int:
        """The side's score: piece number x target point number, summed."""
        camp = CAMP_NUMBER[SIDE_OF_BASE[base]]
        total = 0
        for n in range(10):
            point = camp[self.squares[base + n]]
            if point > 0:
                total += n * point
        return total

    # ---- SearchAdapter -----------------------------------------------------------------------

    def key(self) -> int:
        """Zobrist key of the pieces and the side to move."""
        return self.hash

    def moves(self) -> list[Hashable]:
        """``stop`` when allowed, then every step, hop and span."""
        found: list[Hashable] = list(generate(self.cells, self.squares, self.base))
        if self.all_in_target(self.base):
            found.insert(0, STOP)
        return found

    def order_hint(self, move: Hashable) -> int:
        """Stop first, then the moves that gain the most weighted distance."""
        if move == STOP:
            return 1 << 20
        c, i, j, _ = cast(RawMove, move)
        target = TARGET_POINT[self.base][c - self.base]
        gain = DIST[i][target] - DIST[j][target]
        return gain * COST[c - self.base]

    def push(self, move: Hashable) -> None:
        """Make ``move`` (or call stop)."""
        self.history.append(move)
        if move == STOP:
            self.stopped = self.base
            self.base = 10 - self.base  # the game is over; scored from the other side's view
            return
        c, i, j, _ = cast(RawMove, move)
        self.cells[i] = EMPTY
        self.cells[j] = c
        self.squares[c] = j
        self.hash ^= _PIECE_KEYS[c][i] ^ _PIECE_KEYS[c][j] ^ _TURN_KEY
        self.base = 10 - self.base
        self.ply += 1

    def pop(self) -> None:
        """Take back the last move."""
        move = self.history.pop()
        if move == STOP:
            self.stopped = None
            self.base = 10 - self.base
            return
        c, i, j, _ = cast(RawMove, move)
        self.cells[j] = EMPTY
        self.cells[i] = c
        self.squares[c] = i
        self.hash ^= _PIECE_KEYS[c][i] ^ _PIECE_KEYS[c][j] ^ _TURN_KEY
        self.base = 10 - self.base
        self.ply -= 1

    def terminal(self, ply: int) -> int | None:
        """A called stop (scored), a report the side to move can make, or the move limit."""
        me, rival = self.base, 10 - self.base
        if self.stopped is not None:
            mine, theirs = self.product_sum(me), self.product_sum(rival)
            if mine == theirs:
                return 0
            return MATE - ply if mine > theirs else -(MATE - ply)
        if self.violates(rival):
            return MATE - ply
        if self.ply >= self.max_plies:
            return 0
        return None

    def cost(self, base: int) -> int:
        """Weighted distance of the side's pieces to their best scoring points."""
        targets = TARGET_POINT[base]
        squares = self.squares
        return sum(DIST[squares[base + n]][targets[n]] * COST[n] for n in range(10))

    def evaluate(self) -> int:
        """From the side to move's view."""
        return self._side_value(self.base) - self._side_value(10 - self.base) + 10

    def _side_value(self, base: int) -> int:
        value = -self.cost(base) + 2 * self.product_sum(base)
        left = self.home_limit - moves_made(base, self.ply)
        if left <= 0:
            return value
        home, exits, squares = IN_HOME[SIDE_OF_BASE[base]], EXIT_STEPS[base], self.squares
        count = need = 0
        for c in range(base, base + 10):
            i = squares[c]
            if home[i]:
                count += 1
                need += exits[i]
        if count:
            # Steps still needed to empty the home camp against the moves left before the report
            # limit, with room for detours around pieces that block the way out.
            slack = left - need - count
            if slack < 8:
                value -= (8 - slack) * 60
            if left < 20:
                value -= count * 20
        if left > 20:
            rival_targets, cells = TARGET_POINT[10 - base], self.cells
            for n in range(5, 10):
                holder = cells[rival_targets[n]]
                if holder != EMPTY and base <= holder < base + 10:
                    value += n  # blocking the rival's best points while that is allowed
        return value

    def notation(self, move: Hashable) -> str:
        """``x,y-x,y``, ``x,y-x,y=EXPRESSION`` for a span, or ``stop``."""
        if move == STOP:
            return "stop"
        c, i, j, numbers = cast(RawMove, move)
        text = f"{format_point(POINTS[i])}-{format_point(POINTS[j])}"
        if numbers is not None:
            expression = solve(numbers, c % 10)
            assert expression is not None
            text += "=" + expression
        return text


def make_adapter(engine: Engine, state: ShuqiState) -> ShuqiAdapter:
    """The searcher's view of ``state``."""
    return ShuqiAdapter(state)


def claim_now(engine: Engine, state: ShuqiState, side: Side) -> str | None:
    """``report`` when the opponent breaks the report rule now (the engine judges), else None."""
    try:
        engine.claim(state, "report", side)
    except ClaimRefused:
        return None
    return "report"


def evaluate(engine: Engine, state: ShuqiState, side: str) -> int:
    """The evaluation from ``side``'s view."""
    adapter = ShuqiAdapter(state)
    score = adapter.evaluate()
    return score if (adapter.base == 0) == (side == "first") else -score
