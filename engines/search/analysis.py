"""Computer analysis of a finished game: every position searched, every move judged.

Each position gets a search of a fixed number of nodes with fresh tables and no random choice,
so the same game always gets the same analysis whatever the machine's speed. The evaluation is
turned to the first player's view.

Moves are judged as on lichess, by the drop in the mover's *winning chances*, not in raw
evaluation units: an evaluation ``e`` (first player's view) is an expected score of
``50 + 50 * (2 / (1 + exp(-slope * e)) - 1)`` percent for the first player (lichess's curve;
its chess slope is 0.00368208 a centipawn), a forced win seen by the search or a won game 100, a
lost one 0, a drawn one 50. The drop of a move is the mover's expected score after the best move
less that after the move played, in percentage points, and :data:`THRESHOLDS` classify it. So a
pawn lost from an even position (59% to 50%) is nothing, a piece lost (75% to 50%) a mistake and
a queen a blunder, while a move that leaves a lost (or won) position lost (or won) drops a few
points at most and is not marked. A move that was the only legal one is never marked. A move
that gives up a forced win the search had found (the expected score falls from 100) is a *missed
win*, graded by :data:`MISSED_WIN` rather than :data:`THRESHOLDS`: at least an inaccuracy, and a
blunder unless the position stays nearly as won, as lichess grades a lost checkmate.

Both positions compared have the same side to move and are searched alike, so an evaluation that
swings with whose move it is (number chess's tempo, hexgomoku's threats) does not pass for a
drop. A move other than the best one is checked in three steps, each costlier and run only when
the one before says it dropped at least an inaccuracy: the best score before the move against
the score after it; the position the best move leads to searched like every position
(:attr:`PositionEval.instead`); then both positions searched again with :data:`CHECK_FACTOR`
times the nodes (:attr:`PositionEval.checked`), whose drop is the one judged. A shallow search
misjudges quiet moves now and then (castling in the Ruy Lopez looks like a lost pawn at 3000
nodes and not at 12000); the check keeps those from being marked.

=========  ==========  =====  =====  ========================================================
Game       Slope       Clamp  Nodes  Units, and why the slope
=========  ==========  =====  =====  ========================================================
chess      0.00368208  1000   3000   centipawns: lichess's own curve (a pawn 59%, a knight
                                     75%, a queen 96.5%)
custom     0.00368208  1000   3000   100 ~ a pawn-like piece: as chess
draughts   0.002       1000   6000   100 = a man, a king 300: fitted to bot games (below): a
                                     man up is 55%, two men 60%, five 73%
shuqi      0.003       1000   6000   100 ~ three steps of a middle piece: a race where one
                                     move behind (~100) is 57% and nine steps (~300) 71%
hexgomoku  0.0011      3000   6000   a closed four ~ 500, a win next move 50000 (clamped):
                                     a third of chess's slope, as its raw marks were three
                                     times chess's (1000 ~ 75%, like a chess knight)
=========  ==========  =====  =====  ========================================================

The clamp bounds the evaluations shown (bar, graph, figures). Node budgets keep a 60-ply chess
game to about 10-30 s of one core in Python (the checks take about half); a custom variant's ply
costs about a chess ply, the built-in Xiangqi's (self-check) about two (``python
bench/analysis_speed.py``, bench/README.md).

Where the slopes come from (``nice -n 19 python bench/fit_slopes.py --games 28 --processes 2
--bootstrap 2000``, bench/README.md): 28 seeded games per game between level-3 bots at 3000
nodes a move, every position from ply 8 evaluated as here and the slope fitted to the results by
maximum likelihood, then scaled by lichess's chess slope over the bots' own chess fit (0.00877:
the bots convert an advantage more surely than lichess's players, a ratio of 0.42). Draughts came
out at 0.0020 (95% interval over games 0.0009-0.0043; the guess before, 0.009, a man up 71%, is
outside it) and its results follow the curve roughly at every size of advantage, so it is used.
Number chess (0.0004, -0.0006-0.0017) and hexgomoku (0.0001, -0.0002-0.0004) came out far
below their guesses, but their results do not follow any one curve: the evaluation of the first
half of a game hardly tells who wins, that of the second half does (fitted 0.0048 and 0.0008
before scaling). A slope near 0 would never mark a move, so their guesses stay until their
evaluations or the curve (by the game's phase) are better.

A player's accuracy is the mean over their moves (the only legal ones left out) of lichess's
accuracy of a move, ``103.1668 * exp(-0.04354 * drop) - 3.1669 + 1`` clamped to 0..100 (100
for a move that drops nothing, 50 for a drop of about 15 points); lichess mixes a
volatility-weighted and a harmonic mean of the same figure, this is the plain mean.

>>> from engines import get
>>> game = get("chess")
>>> start = game.start(position="6k1/5ppp/8/8/8/2n5/5PPP/R5K1 w - - 0 1")
>>> first = analyse(game, [start])[0]
>>> first.best, first.mate
('a1a8', 1)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from engines.base import Engine, Result, Side
from engines.search.adapter import MATE, MATE_BOUND
from engines.search.core import Limits, Searcher
from engines.search.player import make_adapter

Verdict = Literal["inaccuracy", "mistake", "blunder"]
VERDICTS: tuple[Verdict, ...] = ("inaccuracy", "mistake", "blunder")

THRESHOLDS: dict[Verdict, float] = {"inaccuracy": 10.0, "mistake": 20.0, "blunder": 30.0}
"""The drop of the mover's expected score (percentage points, 0 to 100) from which a move is each
verdict, in every game. Lichess marks drops of 5, 10 and 15 points (0.1, 0.2 and 0.3 of its
winning chances, which run from -1 to 1) judged by a deep Stockfish search; our fixed shallow
search misjudges a quiet move by 5-12 points now and then, so the marks are twice as far apart:
a knight lost from an even position is a mistake, a queen a blunder."""
MISSED_WIN: dict[Verdict, float] = {"inaccuracy": 0.0, "mistake": 2.5, "blunder": 7.0}
"""The drop from which a *missed win* (a forced win let go) is each verdict: lichess's marks for
a lost checkmate, a move leaving 1000 and 700 centipawns, on chess's curve (97.5% and 93%)."""
CHECK_FACTOR = 4
"""How many times the game's nodes the positions of a move that seems to drop at least an
inaccuracy are searched again with, to judge it."""
ACCURACY_CURVE = (103.1668100711649, 0.04354415386753951, -3.166924740191411, 1.0)
"""Lichess's accuracy of a move from its drop ``d``: ``a * exp(-k * d) + b + bonus``, 0..100."""


@dataclass(frozen=True)
class Scale:
    """How one game's evaluations are read (see the module's table)."""

    slope: float
    """The logistic curve's slope per evaluation unit (lichess's 0.00368208 for centipawns)."""
    clamp: int
    """Evaluations are clamped to +-``clamp``; a forced win shows as ``clamp``."""
    nodes: int
    """Search nodes per position."""


SCALES: dict[str, Scale] = {
    "chess": Scale(0.00368208, 1000, 3000),
    "custom": Scale(0.00368208, 1000, 3000),
    "draughts": Scale(0.002, 1000, 6000),
    "shuqi": Scale(0.003, 1000, 6000),
    "hexgomoku": Scale(0.0011, 3000, 6000),
}
"""Per game slope, clamp and node budget (see the module's table)."""


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
    instead: PositionEval | None = None
    """When the move that led here was not the best one and seemed to drop something: the
    position the best move would have led to, searched the same way (or, after the check, with
    :data:`CHECK_FACTOR` times the nodes). Both positions have the same side to move, so an
    evaluation that swings with whose move it is does not pass for a drop."""
    checked: PositionEval | None = None
    """When the move that led here still seemed to drop at least an inaccuracy against
    :attr:`instead`, or let a forced win go: this position searched again with
    :data:`CHECK_FACTOR` times the nodes (and :attr:`instead`, when there is one, with it); the
    move is judged on them."""
    choices: int = 0
    """How many legal moves the side to move has here (0 when the game is over)."""


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
    drop: float
    """Percentage points of expected score the mover lost against the best move (never
    negative; 0 for the best move and for a forced one)."""
    verdict: Verdict | None
    missed_win: bool = False
    """The search had found a forced win before the move, and the move let it go."""
    forced: bool = False
    """The move was the only legal one: never marked, and left out of the accuracy."""

    @property
    def accuracy(self) -> float:
        """Lichess's accuracy of this move, in percent (see :func:`move_accuracy`)."""
        return move_accuracy(self.drop)


def scale_of(game: str) -> Scale:
    """The :class:`Scale` of ``game``; raises :class:`ValueError` naming the known games."""
    if game not in SCALES:
        raise ValueError(f"no analysis for the game {game!r}: known games are "
                         f"{', '.join(sorted(SCALES))}")
    return SCALES[game]


def expected(score: float, scale: Scale) -> float:
    """The first player's expected score in percent of an evaluation ``score`` from their view:
    lichess's ``50 + 50 * (2 / (1 + exp(-slope * score)) - 1)``."""
    return 50 + 50 * (2 / (1 + math.exp(-scale.slope * score)) - 1)


def chances(found: PositionEval, side: Side, scale: Scale) -> float:
    """``side``'s expected score in percent at ``found``: 100 with a forced win seen or the game
    won, 0 lost, 50 drawn, else :func:`expected` of the evaluation."""
    if found.result == "draw":
        return 50.0
    if found.result is not None or found.mate is not None:
        first_wins = found.result == "first" if found.mate in (None, 0) else found.mate > 0
        return 100.0 if first_wins == (side == "first") else 0.0
    share = expected(found.score, scale)
    return share if side == "first" else 100.0 - share


def move_accuracy(drop: float) -> float:
    """Lichess's accuracy of a move dropping ``drop`` points: 100 for none, 0 from about 80."""
    a, k, b, bonus = ACCURACY_CURVE
    return max(0.0, min(100.0, a * math.exp(-k * drop) + b + bonus))


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
    return PositionEval(score, mate, result.notation, turn, None, result.depth, result.nodes,
                        choices=len(engine.legal_moves(state)))


def _drop(best: PositionEval, played: PositionEval, side: Side, scale: Scale) -> float:
    """Points of expected score ``side`` has less at ``played`` than at ``best``."""
    return max(0.0, chances(best, side, scale) - chances(played, side, scale))


def iter_analysis(
    engine: Engine, states: Sequence[Any], nodes: int | None = None,
    stop: Callable[[], bool] | None = None, done: Sequence[PositionEval] = (),
) -> Iterator[PositionEval]:
    """:func:`evaluate_position` of each state of a game in turn, from ``states[len(done)]``
    (``done``: the analysis of the states before, to go on where a stopped run ended).

    A position reached by a move other than the best one that seems to drop at least an
    inaccuracy also gets :attr:`PositionEval.instead`, and :attr:`PositionEval.checked` when
    that comparison agrees or when the move let a forced win go (see the module's docstring).
    Ends early once ``stop()`` is true (a position whose search was cut short is not yielded).
    """
    scale = scale_of(engine.game)
    check = (scale.nodes if nodes is None else nodes) * CHECK_FACTOR
    least = THRESHOLDS["inaccuracy"]
    previous = done[-1] if done else None
    for index in range(len(done), len(states)):
        if stop is not None and stop():
            return
        found = evaluate_position(engine, states[index], nodes, stop)
        if (previous is not None and previous.best is not None and previous.choices != 1
                and states[index].last_move != previous.best):
            side = previous.turn
            if chances(previous, side, scale) == 100.0:  # a forced win: was it kept?
                if chances(found, side, scale) < 100.0:
                    again = evaluate_position(engine, states[index], check, stop)
                    found = replace(found, checked=again)
            elif _drop(previous, found, side, scale) >= least:
                after_best = engine.play(states[index - 1], previous.best)
                better = evaluate_position(engine, after_best, nodes, stop)
                if _drop(better, found, side, scale) >= least:
                    better = evaluate_position(engine, after_best, check, stop)
                    again = evaluate_position(engine, states[index], check, stop)
                    found = replace(found, checked=again)
                found = replace(found, instead=better)
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


def classify(drop: float, marks: dict[Verdict, float] = THRESHOLDS) -> Verdict | None:
    """The verdict of a move dropping ``drop`` points of expected score (``marks``: the
    thresholds, :data:`MISSED_WIN` for a missed win)."""
    for verdict in reversed(VERDICTS):
        if drop >= marks[verdict]:
            return verdict
    return None


def judge(game: str, evals: Sequence[PositionEval], moves: Sequence[str]) -> list[MoveJudgement]:
    """Judge each move whose positions before and after are both in ``evals``
    (``evals[i]`` is the position before ``moves[i]``).

    The drop of a move is the mover's expected score after the best move less that after the
    move, in points: a forced win seen before the move counts 100, the position after the best
    move is :attr:`PositionEval.instead` (else the position before the move), the position after
    the move :attr:`PositionEval.checked` (else itself). A move letting a forced win go is a
    missed win, classified by :data:`MISSED_WIN`; the only legal move is never marked.
    """
    scale = scale_of(game)
    judged = []
    for ply, move in enumerate(moves[: max(0, len(evals) - 1)]):
        before, after = evals[ply], evals[ply + 1]
        side = before.turn
        if before.choices == 1 or move == before.best:
            judged.append(MoveJudgement(ply, side, move, before.best, 0.0, None,
                                        forced=before.choices == 1))
            continue
        played = after.checked or after
        won = chances(before, side, scale) == 100.0
        best = 100.0 if won else chances(after.instead or before, side, scale)
        drop = max(0.0, best - chances(played, side, scale))
        missed = won and drop > 0
        verdict = classify(drop, MISSED_WIN if missed else THRESHOLDS)
        judged.append(MoveJudgement(ply, side, move, before.best, drop, verdict, missed))
    return judged


def summary(judged: Sequence[MoveJudgement], side: Side) -> dict[Verdict, int]:
    """How many inaccuracies, mistakes and blunders ``side`` made."""
    counts: dict[Verdict, int] = dict.fromkeys(VERDICTS, 0)
    for item in judged:
        if item.side == side and item.verdict is not None:
            counts[item.verdict] += 1
    return counts


def accuracy(judged: Sequence[MoveJudgement], side: Side) -> float | None:
    """``side``'s accuracy in percent: the mean of :func:`move_accuracy` over their moves, the
    only legal ones left out (``None`` without any)."""
    figures = [item.accuracy for item in judged if item.side == side and not item.forced]
    return sum(figures) / len(figures) if figures else None


__all__ = [
    "CHECK_FACTOR",
    "MISSED_WIN",
    "SCALES",
    "THRESHOLDS",
    "VERDICTS",
    "MoveJudgement",
    "PositionEval",
    "Scale",
    "Verdict",
    "accuracy",
    "analyse",
    "chances",
    "classify",
    "evaluate_position",
    "expected",
    "iter_analysis",
    "judge",
    "move_accuracy",
    "scale_of",
    "summary",
]
