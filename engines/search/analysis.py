"""Computer analysis of a finished game: every position searched, every move judged.

Each position gets a search of a fixed number of nodes with fresh tables and no random choice,
so the same game always gets the same analysis whatever the machine's speed. The evaluation is
turned to the first player's view. The loss of a move is the score of the position the best
move leads to less the score of the position the move played leads to, both from the mover's
view and both clamped to the game's :class:`Scale` (a side already winning by more than the
clamp loses nothing by a move that still wins by more). Both positions have the same side to
move and are searched alike, so an evaluation that swings with whose move it is (number chess's
tempo, hexgomoku's threats) does not pass for a loss; the position after the best move is only
searched when the cheaper measure (the best score before the move less the score after it)
says the move lost at least an inaccuracy. Losses are classified as on lichess:

=========  ==========  =======  =======  =====  =====  ===========================================
Game       Inaccuracy  Mistake  Blunder  Clamp  Nodes  Units
=========  ==========  =======  =======  =====  =====  ===========================================
chess      50          100      300      1000   3000   100 ~ a pawn
draughts   50          100      300      1000   6000   100 ~ a man
shuqi      50          100      300      1000   6000   100 ~ three steps of a middle piece
custom     50          100      300      1000   3000   100 ~ a pawn-like piece
hexgomoku  150         400      1000     3000   6000   a four ~ 500; swings with the side to move
=========  ==========  =======  =======  =====  =====  ===========================================

A forced win seen by the search counts as the clamp (a missed mate in one from an even position
is a blunder). Node budgets keep a 60-ply chess game to about 5-15 s of one core in Python.

>>> from engines import get
>>> game = get("chess")
>>> start = game.start(position="6k1/5ppp/8/8/8/2n5/5PPP/R5K1 w - - 0 1")
>>> first = analyse(game, [start])[0]
>>> first.best, first.mate
('a1a8', 1)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from engines.base import Engine, Result, Side
from engines.search.adapter import MATE, MATE_BOUND
from engines.search.core import Limits, Searcher
from engines.search.player import make_adapter

Verdict = Literal["inaccuracy", "mistake", "blunder"]
VERDICTS: tuple[Verdict, ...] = ("inaccuracy", "mistake", "blunder")


@dataclass(frozen=True)
class Scale:
    """How one game's losses are classified (evaluation units, 100 ~ a pawn / a man)."""

    inaccuracy: int
    mistake: int
    blunder: int
    clamp: int
    """Evaluations are clamped to +-``clamp``; a forced win counts as ``clamp``."""
    nodes: int
    """Search nodes per position."""


SCALES: dict[str, Scale] = {
    "chess": Scale(50, 100, 300, 1000, 3000),
    "draughts": Scale(50, 100, 300, 1000, 6000),
    "shuqi": Scale(50, 100, 300, 1000, 6000),
    "custom": Scale(50, 100, 300, 1000, 3000),
    "hexgomoku": Scale(150, 400, 1000, 3000, 6000),
}
"""Per game thresholds, clamp and node budget (see the module's table)."""


@dataclass(frozen=True)
class PositionEval:
    """The analysis of one position."""

    score: int
    """Evaluation from the first player's view, clamped to the game's clamp (a forced win or a
    finished game is +-clamp, a draw 0)."""
    mate: int | None
    """Moves to a forced win seen by the search: positive when the first player wins, negative
    when the second does; 0 when the game is over with a winner; ``None`` otherwise."""
    best: str | None
    """The best move found, in the engine's canonical notation (``None`` when the game is
    over)."""
    turn: Side
    """The side to move."""
    result: Result | None = None
    """How the game stands when it is over here (``first``, ``second``, ``draw``)."""
    depth: int = 0
    nodes: int = 0
    instead: int | None = None
    """When the move that led here was not the best one and seemed to lose something: the score
    (first player's view, clamped) of the position the best move would have led to, searched
    the same way. The loss is measured against it: both positions have the same side to move,
    so an evaluation that swings with whose move it is does not pass for a loss."""


@dataclass(frozen=True)
class MoveJudgement:
    """How good one move played was."""

    ply: int
    """Index of the move in the game (0 for the first move)."""
    side: Side
    move: str
    """The move played (canonical notation)."""
    best: str | None
    """The engine's best move in the position before it."""
    loss: int
    """Evaluation units lost against the best move, from the mover's view (never negative)."""
    verdict: Verdict | None


def scale_of(game: str) -> Scale:
    """The :class:`Scale` of ``game``; raises :class:`ValueError` naming the known games."""
    if game not in SCALES:
        raise ValueError(f"no analysis for the game {game!r}: known games are "
                         f"{', '.join(sorted(SCALES))}")
    return SCALES[game]


def evaluate_position(
    engine: Engine, state: Any, nodes: int | None = None,
    stop: Callable[[], bool] | None = None,
) -> PositionEval:
    """Search ``state`` with fresh tables for ``nodes`` nodes (the game's budget by default)."""
    scale = scale_of(engine.game)
    budget = scale.nodes if nodes is None else nodes
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise ValueError(f"the node budget must be a whole number of at least 1, not {nodes!r}")
    turn: Side = state.turn
    sign = 1 if turn == "first" else -1
    outcome = engine.outcome(state)
    if outcome is not None:
        if outcome.winner is None:
            return PositionEval(0, None, None, turn, outcome.result)
        won = 1 if outcome.winner == "first" else -1
        return PositionEval(won * scale.clamp, 0, None, turn, outcome.winner)
    result = Searcher().search(make_adapter(engine, state), Limits(nodes=budget, stop=stop))
    mate: int | None = None
    if abs(result.score) >= MATE_BOUND:
        plies = MATE - abs(result.score)
        mate = sign * (1 if result.score > 0 else -1) * max(1, (plies + 1) // 2)
    score = max(-scale.clamp, min(scale.clamp, sign * result.score))
    return PositionEval(score, mate, result.notation, turn, None, result.depth, result.nodes)


def _raw_loss(before: PositionEval, after: PositionEval) -> int:
    sign = 1 if before.turn == "first" else -1
    return max(0, sign * (before.score - after.score))


def iter_analysis(
    engine: Engine, states: Sequence[Any], nodes: int | None = None,
    stop: Callable[[], bool] | None = None, done: Sequence[PositionEval] = (),
) -> Iterator[PositionEval]:
    """:func:`evaluate_position` of each state of a game in turn, from ``states[len(done)]``
    (``done``: the analysis of the states before, to go on where a stopped run ended).

    A position reached by a move other than the best one that seems to lose at least an
    inaccuracy also gets :attr:`PositionEval.instead`. Ends early once ``stop()`` is true (a
    position whose search was cut short is not yielded).
    """
    scale = scale_of(engine.game)
    previous = done[-1] if done else None
    for index in range(len(done), len(states)):
        if stop is not None and stop():
            return
        found = evaluate_position(engine, states[index], nodes, stop)
        if (previous is not None and previous.best is not None
                and states[index].last_move != previous.best
                and _raw_loss(previous, found) >= scale.inaccuracy):
            better = evaluate_position(engine, engine.play(states[index - 1], previous.best),
                                       nodes, stop)
            found = replace(found, instead=better.score)
        if stop is not None and stop():
            return
        yield found
        previous = found


def analyse(
    engine: Engine, states: Sequence[Any], nodes: int | None = None,
    stop: Callable[[], bool] | None = None,
) -> list[PositionEval]:
    """Every position of a game's ``states`` analysed (see :func:`iter_analysis`)."""
    return list(iter_analysis(engine, states, nodes, stop))


def classify(loss: int, scale: Scale) -> Verdict | None:
    """The verdict of a move losing ``loss`` units under ``scale``."""
    if loss >= scale.blunder:
        return "blunder"
    if loss >= scale.mistake:
        return "mistake"
    if loss >= scale.inaccuracy:
        return "inaccuracy"
    return None


def judge(game: str, evals: Sequence[PositionEval], moves: Sequence[str]) -> list[MoveJudgement]:
    """Judge each move whose positions before and after are both in ``evals``
    (``evals[i]`` is the position before ``moves[i]``): its loss is the score after the best
    move (:attr:`PositionEval.instead`, else the best score before it) less the score after it,
    from the mover's view."""
    scale = scale_of(game)
    judged = []
    for ply, move in enumerate(moves[: max(0, len(evals) - 1)]):
        before, after = evals[ply], evals[ply + 1]
        side = before.turn
        sign = 1 if side == "first" else -1
        if move == before.best:
            loss = 0
        elif after.instead is not None:
            loss = max(0, sign * (after.instead - after.score))
        else:
            loss = _raw_loss(before, after)
        judged.append(MoveJudgement(ply, side, move, before.best, loss, classify(loss, scale)))
    return judged


def summary(judged: Sequence[MoveJudgement], side: Side) -> dict[Verdict, int]:
    """How many inaccuracies, mistakes and blunders ``side`` made."""
    counts: dict[Verdict, int] = dict.fromkeys(VERDICTS, 0)
    for item in judged:
        if item.side == side and item.verdict is not None:
            counts[item.verdict] += 1
    return counts


__all__ = [
    "SCALES",
    "VERDICTS",
    "MoveJudgement",
    "PositionEval",
    "Scale",
    "Verdict",
    "analyse",
    "classify",
    "evaluate_position",
    "iter_analysis",
    "judge",
    "scale_of",
    "summary",
]
