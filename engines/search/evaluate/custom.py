"""Custom variants for the searcher: the engine's states on a stack with an incremental Zobrist
key (from the squares that changed), and an evaluation of material by mobility (each piece type
is worth its average number of reachable squares on an empty board) and captain safety (an
attacked captain, or one with few own pieces beside it, costs), 100 units to a small piece."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from functools import cache
from typing import Any

from engines.base import Engine
from engines.custom.engine import CustomEngine, CustomState
from engines.custom.rules import Board, Compiled
from engines.search.adapter import StateStack, ZobristTable, remembered

_Z = ZobristTable(seed=91)
Pair = tuple[int, int]
"""A move as the engine's ``(from, to)`` square indexes."""
CAPTAIN_ATTACKED = 250
CAPTAIN_GUARD = 12


@cache
def piece_values(table: Compiled) -> tuple[int, ...]:
    """Value of each piece code: 40 + 25 x its average reach on an empty board (0 for none)."""
    values = []
    for code in range(len(table.type_of)):
        if not table.type_of[code]:
            values.append(0)
            continue
        reach = _reach(table, code)
        average = sum(len(r) for r in reach) / max(1, len(reach))
        values.append(int(40 + 25 * average))
    return tuple(values)


def _reach(table: Compiled, code: int) -> list[frozenset[int]]:
    """Squares a piece code reaches from each square on an empty board (engines differ in age:
    a method in newer custom engines, a table in older ones)."""
    reach: Any = table.reach
    found = reach(code) if callable(reach) else reach[code]
    return list(found)


def _side_number(turn: str) -> int:
    return 1 if turn == "first" else 2


def evaluate_state(state: CustomState, side: int) -> int:
    """Material by mobility and captain safety from ``side``'s view (1 red, 2 blue)."""
    table = state.rules
    values = piece_values(table)
    side_of, captain = table.side_of, table.captain
    board = state.board
    score = 0
    squares: dict[int, list[int]] = {1: [], 2: [], 3: []}
    captains: list[int] = []
    for sq, code in enumerate(board):
        if not code:
            continue
        owner = side_of[code]
        squares[owner].append(sq)
        if owner == 3:
            continue
        if captain[code]:
            captains.append(sq)
        else:
            score += values[code] if owner == side else -values[code]
    for sq in captains:
        owner = side_of[board[sq]]
        sign = 1 if owner == side else -1
        if table.attacked_from(board, sq, squares[3 - owner]):
            score -= sign * CAPTAIN_ATTACKED
        score += sign * CAPTAIN_GUARD * min(_guards(table, board, sq, owner), 3)
    return score


def _guards(table: Compiled, board: Board, sq: int, owner: int) -> int:
    """How many of ``owner``'s pieces stand on the (up to 8) squares around ``sq``."""
    cols, side_of = table.cols, table.side_of
    r, c = divmod(sq, cols)
    guards = 0
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            rr, cc = r + dr, c + dc
            if (dr or dc) and 0 <= rr < table.rows and 0 <= cc < cols:
                other = board[rr * cols + cc]
                if other and side_of[other] == owner:
                    guards += 1
    return guards


class CustomAdapter(StateStack):
    """The searcher's view of a custom variant's position: moves are ``(from, to)`` square pairs
    (spelled only for the answer), captures and their victims read off the board, and the key
    a Zobrist hash updated from the squares the move changed."""

    has_captures = True

    def __init__(self, engine: CustomEngine, state: CustomState) -> None:
        super().__init__(engine, state, _full_key(state))
        self.engine: CustomEngine = engine
        self.table = state.rules
        self.values = piece_values(self.table)
        self._promotes = self.table.variant.rules.promotion
        self._moves_cache: dict[int, Sequence[Pair]] = {}
        self._noisy_cache: dict[int, Sequence[Pair]] = {}

    @property
    def state(self) -> CustomState:
        """The current engine state."""
        return self.stack[-1]

    def moves(self) -> list[Pair]:
        """The legal moves (made once per position key)."""
        return remembered(
            self._moves_cache, self._keys[-1], lambda: self.engine.legal_pairs(self.state)
        )

    def noisy_moves(self) -> list[Pair]:
        """The legal captures (found once per position key)."""
        return remembered(self._noisy_cache, self._keys[-1], self._captures)

    def _captures(self) -> list[Pair]:
        state = self.state
        board, side_of = state.board, self.table.side_of
        spared = (3, _side_number(state.turn))
        taking = self.engine.legal_captures(state)
        return [m for m in taking if side_of[board[m[1]]] not in spared]

    def is_noisy(self, move: Hashable) -> bool:
        """Whether ``move`` takes a piece of the side not to move (neutrals are never taken)."""
        state = self.state
        target = state.board[move[1]]  # type: ignore[index]
        if not target:
            return False
        return self.table.side_of[target] not in (3, _side_number(state.turn))

    def order_hint(self, move: Hashable) -> int:
        """Most valuable victim first."""
        target = self.state.board[move[1]]  # type: ignore[index]
        if target and self.table.captain[target]:
            return 100_000
        return self.values[target] if target else 0

    def push(self, move: Hashable) -> None:
        """Make ``move``."""
        before = self.state
        pair: Pair = move  # type: ignore[assignment]
        state = self.engine.play_pair(before, pair)
        key = self._keys[-1]
        key ^= _Z[("turn", before.turn)] ^ _Z[("turn", state.turn)]
        if before.neutral != state.neutral:
            key ^= _Z[("neutral", before.neutral)] ^ _Z[("neutral", state.neutral)]
        # A move changes its two squares; a promotion rule may change any other square, unless
        # no piece but the moved one can promote.
        only_pair = not self._promotes or self.engine.settled(before)
        squares = pair if only_pair else range(len(state.board))
        old_board, new_board = before.board, state.board
        for sq in squares:
            old, new = old_board[sq], new_board[sq]
            if old != new:
                if old:
                    key ^= _Z[(sq, old)]
                if new:
                    key ^= _Z[(sq, new)]
        self._pushed(state, key)

    def evaluate(self) -> int:
        """Material by mobility and captain safety from the side to move's view."""
        state = self.state
        return evaluate_state(state, _side_number(state.turn))

    def notation(self, move: Hashable) -> str:
        """``r,c-r,c``."""
        return self.engine.pair_notation(self.state, move)  # type: ignore[arg-type]


def _full_key(state: CustomState) -> int:
    """The Zobrist hash of ``state`` from scratch."""
    key = _Z[("turn", state.turn)] ^ _Z[("neutral", state.neutral)]
    for sq, code in enumerate(state.board):
        if code:
            key ^= _Z[(sq, code)]
    return key


def make_adapter(engine: Engine, state: CustomState) -> CustomAdapter:
    """The searcher's view of ``state``."""
    if not isinstance(engine, CustomEngine):
        raise TypeError(f"the custom adapter needs the custom engine, not {engine.game!r}'s")
    return CustomAdapter(engine, state)
