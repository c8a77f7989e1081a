"""Pick a bot's next action in any game: the searcher, the game's adapter and the levels table."""

from __future__ import annotations

import importlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from engines.base import ClaimRefused, Engine, Side
from engines.registry import get
from engines.search.adapter import MATE_BOUND, SearchAdapter
from engines.search.core import Clock, Limits, Searcher
from engines.search.levels import level_info

EVALUATIONS: dict[str, str] = {
    "chess": "engines.search.evaluate.chess",
    "draughts": "engines.search.evaluate.draughts",
    "shuqi": "engines.search.evaluate.shuqi",
    "hexgomoku": "engines.search.evaluate.hexgomoku",
    "custom": "engines.search.evaluate.custom",
}
"""Game id -> module with ``make_adapter(engine, state)`` (and optionally ``claim_now``)."""

DRAW_ACCEPT_BELOW = -150
"""A bot accepts a draw offer when its judgement of the position is below this (clearly
losing)."""
JUDGE_NODES = 5_000
"""Nodes of the search that judges a draw offer (:meth:`BotPlayer.accepts_draw`): a fixed budget
and no random choice, so every level judges a position alike (at most about 0.2 s in chess)."""

Action = Literal["move", "stop", "report"]


@dataclass(frozen=True)
class Decision:
    """What the bot does now: a move (``move`` is its notation), or a claim."""

    action: Action
    move: str | None
    score: int
    depth: int
    nodes: int
    seconds: float


def make_adapter(engine: Engine, state: Any) -> SearchAdapter:
    """The searcher's view of ``state`` for ``engine``'s game."""
    module = importlib.import_module(EVALUATIONS[engine.game])
    adapter: SearchAdapter = module.make_adapter(engine, state)
    return adapter


class BotPlayer:
    """A bot of one game and level; keep one per game played to reuse its search tables.

    Args:
        game: the game id.
        level: 1-8 (see :mod:`engines.search.levels`).
        clock: the clock the search reads (inject one in tests).
        seed: seeds the random choice of levels 1-2.
    """

    def __init__(
        self, game: str, level: int, clock: Clock = time.monotonic, seed: int | None = None
    ) -> None:
        self.level = level_info(level)
        self.engine = get(game)
        self.module = importlib.import_module(EVALUATIONS[game])
        self.searcher = Searcher(clock=clock, rng=random.Random(seed))
        self.last_score = 0

    def claim_now(self, state: Any, side: Side) -> Action | None:
        """A claim that wins now (number chess: ``report`` of a violation), else ``None``."""
        claim = getattr(self.module, "claim_now", None)
        if claim is None:
            return None
        action: Action | None = claim(self.engine, state, side)
        return action

    def decide(
        self,
        state: Any,
        seconds: float | None = None,
        nodes: int | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> Decision:
        """The bot's action in ``state`` (its side is ``state.turn``).

        ``seconds`` caps the level's thinking time (pass what the clock allows); ``nodes`` caps
        the search by nodes instead of time (tests, benchmarks); once ``stop()`` is true the
        search ends at once (its answer is then of no use: the caller no longer wants it).
        """
        claim = self.claim_now(state, state.turn)
        if claim is not None:
            return Decision(claim, None, MATE_BOUND, 0, 0, 0.0)
        budget = self.level.seconds if seconds is None else min(seconds, self.level.seconds)
        adapter = make_adapter(self.engine, state)
        limits = Limits(
            seconds=None if nodes is not None else budget,
            nodes=nodes,
            margin=self.level.margin,
            stop=stop,
        )
        result = self.searcher.search(adapter, limits)
        if result.notation is None:
            raise ClaimRefused("the bot has no move: the game is over")
        self.last_score = result.score
        action: Action = "move"
        move: str | None = result.notation
        if result.notation == "stop":
            if self._claim_wins(state, "stop"):
                action, move = "stop", None
            else:
                move = self._best_move_but_stop(adapter, result.root_scores)
        return Decision(action, move, result.score, result.depth, result.nodes, result.seconds)

    def _claim_wins(self, state: Any, kind: str) -> bool:
        """Whether the engine judges the claim ``kind`` by the side to move a win now."""
        try:
            return self.engine.claim(state, kind, state.turn).winner == state.turn
        except ClaimRefused:
            return False

    @staticmethod
    def _best_move_but_stop(adapter: SearchAdapter, scores: dict[Any, int]) -> str:
        """The best-scored root move that is a real move (stop was not a win after all)."""
        moves = [m for m in adapter.moves() if adapter.notation(m) != "stop"]
        if not moves:
            raise ClaimRefused("the bot has no move but a stop that does not win")
        best = max(moves, key=lambda m: scores.get(m, -MATE_BOUND * 2))
        return adapter.notation(best)

    def forget(self) -> None:
        """Drop the search tables kept between moves (a game ended)."""
        self.searcher.forget()

    def accepts_draw(self, state: Any, side: str) -> bool:
        """Whether the bot playing ``side`` accepts a draw offered in ``state``: only when a
        search of :data:`JUDGE_NODES` nodes with fresh tables and no random choice sees it
        clearly losing at both of its last two depths (an evaluation that swings with whose
        move ends the line, as in hexgomoku, is not taken at its word). The same position gets
        the same answer at every level: lower levels play weaker, they do not judge worse.
        (The score of the level's own last move is no judgement: at levels 1-2 it is that of a
        randomly chosen move, up to 1.5 pawns below the best, and a level-1 hexgomoku bot
        accepted a draw after four stones.)"""
        if self.engine.outcome(state) is not None:
            return False
        judge = Searcher(clock=self.searcher.clock, rng=random.Random(0))
        result = judge.search(make_adapter(self.engine, state), Limits(nodes=JUDGE_NODES))
        scores = result.best_scores[-2:]
        if scores and abs(scores[-1]) >= MATE_BOUND:
            scores = scores[-1:]  # a mate seen is judgement enough
        elif len(scores) < 2:
            return False  # too little searched to judge
        mine = [score if state.turn == side else -score for score in scores]
        return max(mine) < DRAW_ACCEPT_BELOW
