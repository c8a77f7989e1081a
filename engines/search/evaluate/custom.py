"""Custom variants for the searcher: the engine's states on a stack with an incremental Zobrist
key (from the squares that changed), and an evaluation of material by mobility (each piece type
is worth its average number of reachable squares on an empty board) and captain safety (an
attacked captain, or one with few own pieces beside it, costs), 100 units to a small piece."""

from __future__ import annotations

import re
from collections.abc import Hashable
from functools import cache
from typing import Any

from engines.base import Engine
from engines.custom.engine import CustomState
from engines.custom.rules import Compiled
from engines.search.adapter import EngineAdapter, ZobristTable

_Z = ZobristTable(seed=91)
_MOVE = re.compile(r"(\d+),(\d+)-(\d+),(\d+)")
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
    cols = table.cols
    for sq, code in enumerate(board):
        if not code:
            continue
        owner = side_of[code]
        if owner == 3:
            continue
        sign = 1 if owner == side else -1
        if captain[code]:
            if table.attacked(board, sq, 3 - owner):
                score -= sign * CAPTAIN_ATTACKED
            r, c = divmod(sq, cols)
            guards = 0
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    rr, cc = r + dr, c + dc
                    if (dr or dc) and 0 <= rr < table.rows and 0 <= cc < cols:
                        other = board[rr * cols + cc]
                        if other and side_of[other] == owner:
                            guards += 1
            score += sign * CAPTAIN_GUARD * min(guards, 3)
        else:
            score += sign * values[code]
    return score


def _is_capture(engine: Engine, state: Any, move: str) -> bool:
    found = _MOVE.fullmatch(move)
    if found is None:
        return False
    table = state.rules
    r, c = int(found.group(3)) - 1, int(found.group(4)) - 1
    target = state.board[r * table.cols + c]
    if not target:
        return False
    owner = table.side_of[target]
    return owner not in (3, _side_number(state.turn))


def evaluate(engine: Engine, state: CustomState, side: str) -> int:
    """The evaluation from ``side``'s view."""
    return evaluate_state(state, _side_number(side))


class CustomAdapter(EngineAdapter):
    """The generic engine adapter with an incremental Zobrist key and capture ordering."""

    def __init__(self, engine: Engine, state: CustomState) -> None:
        super().__init__(engine, state, evaluate, _is_capture)

    def _key_of(self, state: Any) -> int:
        if len(self.stack) < 2 or not hasattr(self, "_keys"):
            key = _Z[("turn", state.turn)] ^ _Z[("neutral", state.neutral)]
            for sq, code in enumerate(state.board):
                if code:
                    key ^= _Z[(sq, code)]
            return key
        before = self.stack[-2]
        key = self._keys[-1]
        key ^= _Z[("turn", before.turn)] ^ _Z[("turn", state.turn)]
        key ^= _Z[("neutral", before.neutral)] ^ _Z[("neutral", state.neutral)]
        for sq, (old, new) in enumerate(zip(before.board, state.board, strict=True)):
            if old != new:
                if old:
                    key ^= _Z[(sq, old)]
                if new:
                    key ^= _Z[(sq, new)]
        return key

    def order_hint(self, move: Hashable) -> int:
        """Most valuable victim first."""
        found = _MOVE.fullmatch(str(move))
        if found is None:
            return 0
        state = self.state
        table = state.rules
        r, c = int(found.group(3)) - 1, int(found.group(4)) - 1
        target = state.board[r * table.cols + c]
        if target and table.captain[target]:
            return 100_000
        return piece_values(table)[target] if target else 0


def make_adapter(engine: Engine, state: CustomState) -> CustomAdapter:
    """The searcher's view of ``state``."""
    return CustomAdapter(engine, state)
