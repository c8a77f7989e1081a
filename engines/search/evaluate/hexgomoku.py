"""Hexgomoku for the searcher: a fast adapter with threat-pattern evaluation.

Every run of five points along one of the three axes is a *window*. The evaluation sums, for each
window that holds stones of one colour only, a value growing steeply with their count, which
rewards fives, open and closed fours and threes (an open three is several windows of three, a
closed one fewer) and penalises the opponent's. Counts are kept incrementally per window, so a move
updates at most 15 windows. Move generation detects an immediate win (a window of four own stones
and one empty point: only that move is searched) and a forced block (the opponent has such a
window: only the blocking points are searched), and otherwise offers only empty points within two
steps of a stone.
"""

from __future__ import annotations

from collections.abc import Hashable

from engines.base import Engine
from engines.hexgomoku import DIRECTIONS, POINTS, HexState, format_point
from engines.search.adapter import MATE, NoCaptures, ZobristTable

INDEX = {p: i for i, p in enumerate(POINTS)}
CENTRE = INDEX[(0, 0)]


def _windows() -> tuple[tuple[int, ...], ...]:
    found = []
    for dq, dr in DIRECTIONS:
        for q, r in POINTS:
            run = [(q + k * dq, r + k * dr) for k in range(5)]
            if all(p in INDEX for p in run):
                found.append(tuple(INDEX[p] for p in run))
    return tuple(found)


WINDOWS = _windows()
"""Every five-point run on the board, as point indices."""
WINDOWS_OF: tuple[tuple[int, ...], ...] = tuple(
    tuple(w for w, window in enumerate(WINDOWS) if i in window) for i in range(len(POINTS))
)
"""Point index -> the windows through it."""
_SIX = (*DIRECTIONS, *((-a, -b) for a, b in DIRECTIONS))
STEPS: tuple[tuple[int, ...], ...] = tuple(
    tuple(INDEX.get((q + dq, r + dr), -1) for dq, dr in _SIX) for q, r in POINTS
)
"""Point index -> neighbour index in each of the six directions (-1 off the board)."""
NEAR: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        INDEX[(q + a, r + b)]
        for a in range(-2, 3)
        for b in range(-2, 3)
        if (a, b) != (0, 0) and max(abs(a), abs(b), abs(a + b)) <= 2 and (q + a, r + b) in INDEX
    )
    for q, r in POINTS
)
"""Point index -> the points within two steps."""

VALUE = (0, 1, 8, 60, 500, 0)
"""Worth of a window holding 0..4 stones of one colour only."""
WIN_SOON = 50_000
"""Evaluation of a position the side to move wins next move (a searched mate supersedes it)."""

_ZOBRIST = ZobristTable(seed=169)
_KEYS = tuple((_ZOBRIST[(i, 1)], _ZOBRIST[(i, 2)]) for i in range(len(POINTS)))


class HexAdapter(NoCaptures):
    """A mutable hexgomoku position for the searcher; moves are point indices."""

    has_captures = False

    def __init__(self, state: HexState) -> None:
        self.cells = [0] * len(POINTS)
        self.count = [[0] * len(WINDOWS), [0] * len(WINDOWS), [0] * len(WINDOWS)]
        self.total = [0, 0, 0]
        self.fours: list[set[int]] = [set(), set(), set()]
        self.near = [0] * len(POINTS)
        self.exact5 = state.exact5
        self.hash = 0
        self.history: list[int] = []
        self.stones = 0
        self.to_move = 1
        self.winner = 0
        for colour, stones in ((1, state.black), (2, state.white)):
            for point in stones:
                self._place(INDEX[point], colour)
        self.to_move = 1 if state.turn == "first" else 2
        if state.result is not None and state.result.winner is not None:
            self.winner = 1 if state.result.winner == "first" else 2

    # ---- board updates -----------------------------------------------------------------------

    def _place(self, i: int, colour: int) -> None:
        self.cells[i] = colour
        self.stones += 1
        self.hash ^= _KEYS[i][colour - 1]
        for j in NEAR[i]:
            self.near[j] += 1
        mine, theirs = self.count[colour], self.count[3 - colour]
        total, fours = self.total, self.fours
        for w in WINDOWS_OF[i]:
            c, o = mine[w], theirs[w]
            if o == 0:
                total[colour] += VALUE[c + 1] - VALUE[c]
                if c == 3:
                    fours[colour].add(w)
                elif c == 4:
                    fours[colour].discard(w)
            elif c == 0:
                total[3 - colour] -= VALUE[o]
                if o == 4:
                    fours[3 - colour].discard(w)
            mine[w] = c + 1

    def _remove(self, i: int) -> None:
        colour = self.cells[i]
        self.cells[i] = 0
        self.stones -= 1
        self.hash ^= _KEYS[i][colour - 1]
        for j in NEAR[i]:
            self.near[j] -= 1
        mine, theirs = self.count[colour], self.count[3 - colour]
        total, fours = self.total, self.fours
        for w in WINDOWS_OF[i]:
            c, o = mine[w] - 1, theirs[w]
            mine[w] = c
            if o == 0:
                total[colour] -= VALUE[c + 1] - VALUE[c]
                if c == 3:
                    fours[colour].discard(w)
                elif c == 4:
                    fours[colour].add(w)
            elif c == 0:
                total[3 - colour] += VALUE[o]
                if o == 4:
                    fours[3 - colour].add(w)

    def _run_length(self, i: int, colour: int) -> int:
        best = 0
        for d in range(3):
            length = 1
            for step in (d, d + 3):
                j = STEPS[i][step]
                while j >= 0 and self.cells[j] == colour:
                    length += 1
                    j = STEPS[j][step]
            if length == 5 or (length > 5 and not self.exact5):
                return length
            best = max(best, length)
        return best if best < 5 else 0

    def _gap(self, w: int) -> int:
        for j in WINDOWS[w]:
            if self.cells[j] == 0:
                return j
        return -1

    # ---- SearchAdapter -----------------------------------------------------------------------

    def key(self) -> int:
        """Zobrist hash of the stones (the side to move follows from the count)."""
        return self.hash

    def winning_points(self, colour: int) -> list[int]:
        """Empty points that complete a five for ``colour`` now."""
        points = {self._gap(w) for w in self.fours[colour]}
        points.discard(-1)
        if self.exact5:
            points = {p for p in points if self._makes_five(p, colour)}
        return sorted(points)

    def _makes_five(self, i: int, colour: int) -> bool:
        self.cells[i] = colour
        try:
            return self._run_length(i, colour) >= 5
        finally:
            self.cells[i] = 0

    def moves(self) -> list[Hashable]:
        """A win if there is one, else the forced blocks, else the points near stones."""
        if self.winner or self.stones == len(POINTS):
            return []
        me = self.to_move
        win = self.winning_points(me)
        if win:
            return [win[0]]
        blocks = self.winning_points(3 - me)
        if blocks:
            return list(blocks)
        if self.stones == 0:
            return [CENTRE]
        near, cells = self.near, self.cells
        found: list[Hashable] = [i for i in range(len(POINTS)) if near[i] and not cells[i]]
        if not found:
            found = [i for i in range(len(POINTS)) if not cells[i]]
        return found

    def order_hint(self, move: Hashable) -> int:
        """Attack plus defence value of the windows through the point."""
        assert isinstance(move, int)
        me = self.to_move
        mine, theirs = self.count[me], self.count[3 - me]
        value = 0
        for w in WINDOWS_OF[move]:
            c, o = mine[w], theirs[w]
            if o == 0:
                value += VALUE[c + 1]
            elif c == 0:
                value += VALUE[o + 1] * 3 // 4
        return value

    def push(self, move: Hashable) -> None:
        """Place the side to move's stone."""
        assert isinstance(move, int)
        colour = self.to_move
        self._place(move, colour)
        self.history.append(move)
        if self._run_length(move, colour) >= 5:
            self.winner = colour
        self.to_move = 3 - colour

    def pop(self) -> None:
        """Lift the last stone."""
        move = self.history.pop()
        self._remove(move)
        self.winner = 0
        self.to_move = 3 - self.to_move

    def terminal(self, ply: int) -> int | None:
        """A five just made (the side to move lost) or a full board."""
        if self.winner:
            return MATE - ply if self.winner == self.to_move else -(MATE - ply)
        if self.stones == len(POINTS):
            return 0
        return None

    def evaluate(self) -> int:
        """Window values of the side to move minus the opponent's, with the threats decided."""
        me = self.to_move
        if self.fours[me] and self.winning_points(me):
            return WIN_SOON
        threats = self.winning_points(3 - me)
        if len(threats) > 1:
            return -WIN_SOON
        return self.total[me] - self.total[3 - me] + 20

    def notation(self, move: Hashable) -> str:
        """``q,r``."""
        assert isinstance(move, int)
        return format_point(POINTS[move])


def make_adapter(engine: Engine, state: HexState) -> HexAdapter:
    """The searcher's view of ``state``."""
    return HexAdapter(state)


def evaluate(engine: Engine, state: HexState, side: str) -> int:
    """The window evaluation of ``state`` from ``side``'s view."""
    adapter = HexAdapter(state)
    score = adapter.evaluate()
    mover = "first" if adapter.to_move == 1 else "second"
    return score if side == mover else -score
