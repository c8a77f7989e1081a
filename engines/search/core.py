"""One searcher for every two-player game: iterative-deepening negamax with alpha-beta.

It has a transposition table keyed by the adapter's hash, move ordering (transposition-table move,
captures by the adapter's hint, two killer moves per ply, the history heuristic), principal
variation search, quiescence over captures where the game has them, and a hard budget: the clock
(injectable) and an optional node limit are checked inside the search, and the answer is the best
move of the last completed iteration.

>>> from engines import get
>>> from engines.search import Limits, Searcher, make_adapter
>>> game = get("chess")
>>> state = game.start(position="6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
>>> Searcher().search(make_adapter(game, state), Limits(nodes=5_000)).notation
'a1a8'
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

from engines.search.adapter import MATE, MATE_BOUND, SearchAdapter

INFINITY = MATE + 1
EXACT, LOWER, UPPER = 0, 1, 2
CLOCK_CHECK_EVERY = 64
"""Nodes between two clock readings."""
TT_MAX_ENTRIES = 400_000
MAX_PLY = 128

Clock = Callable[[], float]


class SearchTimeout(Exception):
    """The budget ran out inside an iteration (caught by :meth:`Searcher.search`)."""


@dataclass(frozen=True)
class Limits:
    """What one search may spend. ``None`` parts are unlimited (give at least one limit)."""

    seconds: float | None = None
    nodes: int | None = None
    depth: int = 64
    margin: int = 0
    """Root moves scoring within ``margin`` of the best are all candidates (picked at random)."""
    stop: Callable[[], bool] | None = None
    """Polled with the clock: once it returns true the search ends as if its time ran out (a
    bot whose position changed while it was thinking frees its thinking thread at once)."""


@dataclass
class SearchResult:
    """The answer of one search."""

    move: Hashable | None
    """The chosen adapter move (``None`` only when there is no move at all)."""
    notation: str | None
    score: int
    """Score of the best move from the side to move's view (mates near :data:`MATE`)."""
    depth: int
    """Depth of the last completed iteration (0 if none completed)."""
    nodes: int
    seconds: float
    root_scores: dict[Hashable, int] = field(default_factory=dict)
    """Root moves of the last completed iteration and their scores (lower bounds for the
    moves below the margin window)."""
    best_scores: list[int] = field(default_factory=list)
    """The best score of each completed iteration, depth 1 first (no random choice in them)."""


class _Budget:
    def __init__(
        self,
        clock: Clock,
        seconds: float | None,
        nodes: int | None,
        stop: Callable[[], bool] | None = None,
    ) -> None:
        self.clock = clock
        self.start = clock()
        self.deadline = None if seconds is None else self.start + seconds
        self.max_nodes = nodes
        self.stop = stop
        self.nodes = 0

    def tick(self) -> None:
        self.nodes += 1
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            raise SearchTimeout
        if self.nodes % CLOCK_CHECK_EVERY == 0 and (
            (self.deadline is not None and self.clock() >= self.deadline)
            or (self.stop is not None and self.stop())
        ):
            raise SearchTimeout

    def out_of_time(self) -> bool:
        if self.max_nodes is not None and self.nodes >= self.max_nodes:
            return True
        if self.stop is not None and self.stop():
            return True
        return self.deadline is not None and self.clock() >= self.deadline


def _to_tt(score: int, ply: int) -> int:
    if score >= MATE_BOUND:
        return score + ply
    if score <= -MATE_BOUND:
        return score - ply
    return score


def _from_tt(score: int, ply: int) -> int:
    if score >= MATE_BOUND:
        return score - ply
    if score <= -MATE_BOUND:
        return score + ply
    return score


class Searcher:
    """Negamax alpha-beta with iterative deepening; keep one per game to reuse its tables."""

    def __init__(self, clock: Clock = time.monotonic, rng: random.Random | None = None) -> None:
        self.clock = clock
        self.rng = rng or random.Random()
        self.tt: dict[int, tuple[int, int, int, Hashable | None]] = {}
        self.history: dict[Hashable, int] = {}
        self.killers: list[list[Hashable | None]] = [[None, None] for _ in range(MAX_PLY + 1)]
        self._budget = _Budget(clock, None, None)
        self._adapter: SearchAdapter | None = None

    # ---- public ------------------------------------------------------------------------------

    def search(self, adapter: SearchAdapter, limits: Limits) -> SearchResult:
        """Search ``adapter``'s position within ``limits`` and return the best move found.

        The adapter is back in its starting position afterwards, even when the budget ran out.
        """
        self._adapter = adapter
        self._budget = budget = _Budget(self.clock, limits.seconds, limits.nodes, limits.stop)
        if len(self.tt) > TT_MAX_ENTRIES:
            self.tt.clear()
        for move in list(self.history):
            self.history[move] //= 4
        self.killers = [[None, None] for _ in range(MAX_PLY + 1)]

        root_moves = list(adapter.moves())
        if adapter.terminal(0) is not None or not root_moves:
            return SearchResult(None, None, adapter.evaluate(), 0, 0, 0.0)
        root_moves = self._order(root_moves, 0, self._tt_move(adapter.key()))
        best_move: Hashable = root_moves[0]
        best_score = -INFINITY
        completed = 0
        scores: dict[Hashable, int] = {}
        best_scores: list[int] = []
        for depth in range(1, max(1, limits.depth) + 1):
            try:
                score, move, iteration_scores = self._root(root_moves, depth, limits.margin)
            except SearchTimeout:
                break
            completed, best_score, best_move, scores = depth, score, move, iteration_scores
            best_scores.append(score)
            root_moves.sort(key=lambda m: iteration_scores.get(m, -INFINITY), reverse=True)
            root_moves.remove(best_move)
            root_moves.insert(0, best_move)
            if len(root_moves) == 1 or abs(best_score) >= MATE_BOUND or budget.out_of_time():
                break
        if completed and limits.margin > 0 and abs(best_score) < MATE_BOUND:
            near = [m for m, s in scores.items() if s >= best_score - limits.margin]
            if near:
                best_move = self.rng.choice(near)
        return SearchResult(
            move=best_move,
            notation=adapter.notation(best_move),
            score=scores.get(best_move, best_score) if completed else 0,
            depth=completed,
            nodes=budget.nodes,
            seconds=self.clock() - budget.start,
            root_scores=scores,
            best_scores=best_scores,
        )

    def forget(self) -> None:
        """Drop the tables kept between searches (a game ended: give their memory back)."""
        self.tt = {}
        self.history = {}
        self.killers = [[None, None] for _ in range(MAX_PLY + 1)]

    # ---- internals ---------------------------------------------------------------------------

    def _tt_move(self, key: int) -> Hashable | None:
        entry = self.tt.get(key)
        return None if entry is None else entry[3]

    def _root(
        self, moves: list[Hashable], depth: int, margin: int
    ) -> tuple[int, Hashable, dict[Hashable, int]]:
        adapter = self._adapter
        assert adapter is not None
        best = -INFINITY
        best_move = moves[0]
        scores: dict[Hashable, int] = {}
        # With a margin, the window's edge sits one below it: a move that fails low there may
        # report the edge itself (quiescence returns alpha), which must not pass for a score
        # within the margin (levels 1-2 then picked queen-losing moves at random).
        edge = margin + 1 if margin > 0 else 0
        for i, move in enumerate(moves):
            alpha = -INFINITY if best == -INFINITY else best - edge
            adapter.push(move)
            try:
                if i == 0 or alpha == -INFINITY:
                    score = -self._negamax(depth - 1, -INFINITY, -alpha, 1)
                else:
                    score = -self._negamax(depth - 1, -alpha - 1, -alpha, 1)
                    if score > alpha:
                        score = -self._negamax(depth - 1, -INFINITY, -alpha, 1)
            finally:
                adapter.pop()
            scores[move] = score
            if score > best:
                best, best_move = score, move
        self.tt[adapter.key()] = (depth, EXACT, _to_tt(best, 0), best_move)
        return best, best_move, scores

    def _order(self, moves: list[Hashable], ply: int, tt_move: Hashable | None) -> list[Hashable]:
        adapter = self._adapter
        assert adapter is not None
        killers = self.killers[ply] if ply <= MAX_PLY else [None, None]
        history = self.history

        def weight(move: Hashable) -> int:
            if move == tt_move:
                return 1 << 40
            hint = adapter.order_hint(move)
            if adapter.is_noisy(move):
                return (1 << 36) + hint
            if move == killers[0]:
                return 1 << 34
            if move == killers[1]:
                return (1 << 34) - 1
            return history.get(move, 0) + hint

        return sorted(moves, key=weight, reverse=True)

    def _negamax(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        adapter = self._adapter
        assert adapter is not None
        self._budget.tick()
        over = adapter.terminal(ply)
        if over is not None:
            return over
        if depth <= 0 or ply >= MAX_PLY:
            if adapter.has_captures:
                return self._quiesce(alpha, beta, ply, 0)
            return adapter.evaluate()

        key = adapter.key()
        entry = self.tt.get(key)
        tt_move: Hashable | None = None
        if entry is not None:
            entry_depth, flag, stored, tt_move = entry
            if entry_depth >= depth:
                score = _from_tt(stored, ply)
                if (
                    flag == EXACT
                    or (flag == LOWER and score >= beta)
                    or (flag == UPPER and score <= alpha)
                ):
                    return score

        moves = adapter.moves()
        if not moves:
            return adapter.evaluate()
        alpha_start = alpha
        best = -INFINITY
        best_move: Hashable | None = None
        for i, move in enumerate(self._order(moves, ply, tt_move)):
            adapter.push(move)
            try:
                if i == 0:
                    score = -self._negamax(depth - 1, -beta, -alpha, ply + 1)
                else:
                    score = -self._negamax(depth - 1, -alpha - 1, -alpha, ply + 1)
                    if alpha < score < beta:
                        score = -self._negamax(depth - 1, -beta, -alpha, ply + 1)
            finally:
                adapter.pop()
            if score > best:
                best, best_move = score, move
            if score > alpha:
                alpha = score
            if alpha >= beta:
                if not adapter.is_noisy(move):
                    self.history[move] = self.history.get(move, 0) + depth * depth
                    killers = self.killers[ply]
                    if killers[0] != move:
                        killers[1], killers[0] = killers[0], move
                break
        flag = UPPER if best <= alpha_start else LOWER if best >= beta else EXACT
        self.tt[key] = (depth, flag, _to_tt(best, ply), best_move)
        return best

    def _quiesce(self, alpha: int, beta: int, ply: int, qdepth: int) -> int:
        adapter = self._adapter
        assert adapter is not None
        self._budget.tick()
        over = adapter.terminal(ply)
        if over is not None:
            return over
        stand = adapter.evaluate()
        if ply >= MAX_PLY or qdepth >= 8:
            return stand
        noisy = sorted(adapter.noisy_moves(), key=adapter.order_hint, reverse=True)
        if noisy and getattr(adapter, "captures_forced", False):
            stand = -INFINITY  # a capture is compulsory: standing pat is not an option
        if stand >= beta:
            return stand
        alpha = max(alpha, stand)
        for move in noisy:
            adapter.push(move)
            try:
                score = -self._quiesce(-beta, -alpha, ply + 1, qdepth + 1)
            finally:
                adapter.pop()
            if score >= beta:
                return score
            alpha = max(alpha, score)
        return alpha
