"""A computer analysis of a replayed game, run on a background thread.

The frame loop only reads what the thread has finished (:attr:`AnalysisRun.evals` grows one
position at a time); :meth:`AnalysisRun.cancel` stops the search within a few dozen nodes, and a
stopped run can be resumed where it stopped (the results are deterministic, so the parts agree).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import engines
from engines.base import Side
from engines.search.analysis import (
    VERDICTS,
    MoveJudgement,
    PositionEval,
    iter_analysis,
    judge,
    scale_of,
    summary,
)

SUFFIX: dict[str, str] = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
"""What the move list appends to a move of each verdict (as lichess does)."""
PLURAL: dict[str, str] = {"inaccuracy": "inaccuracies", "mistake": "mistakes",
                          "blunder": "blunders"}


class AnalysisRun:
    """Analyse ``states`` (a game from its start) on a thread; ``nodes`` overrides the game's
    node budget per position (tests)."""

    def __init__(self, game: str, states: Sequence[Any], moves: Sequence[str],
                 nodes: int | None = None) -> None:
        self.game = game
        self.scale = scale_of(game)
        self.states = list(states)
        self.moves = list(moves)
        """The canonical moves between the states (``moves[i]`` leads from state ``i``)."""
        self.nodes = nodes
        self.evals: list[PositionEval] = []
        self.error = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.resume()

    @property
    def total(self) -> int:
        """Positions to analyse."""
        return len(self.states)

    @property
    def complete(self) -> bool:
        """Every position is analysed."""
        return len(self.evals) >= self.total

    @property
    def running(self) -> bool:
        """The thread is still searching (and was not told to stop)."""
        return (self._thread is not None and self._thread.is_alive()
                and not self._stop.is_set())

    def resume(self) -> None:
        """Go on from the first position not analysed yet (nothing when all are done)."""
        if self.running or self.complete:
            return
        if self._thread is not None:
            self._thread.join()  # a stopped search ends within a few dozen nodes
        self._stop = threading.Event()
        self.error = ""
        self._thread = threading.Thread(target=self._run, args=(self._stop,),
                                        name="boardhall-analysis", daemon=True)
        self._thread.start()

    def cancel(self) -> None:
        """Stop searching (what is done stays)."""
        self._stop.set()

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the thread to end (tests, and leaving the scene)."""
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self, stop: threading.Event) -> None:
        engine = engines.get(self.game)
        try:
            for found in iter_analysis(engine, self.states, self.nodes, stop.is_set,
                                       list(self.evals)):
                self.evals.append(found)
        except Exception as exc:  # a state the search cannot read: said, never a crash
            self.error = f"Analysis stopped: {exc}"

    def judged(self) -> list[MoveJudgement]:
        """The moves judged so far."""
        return judge(self.game, list(self.evals), self.moves)

    def progress(self) -> str:
        """``Analysing… 23/61`` while running, else empty."""
        if not self.running:
            return ""
        return f"Analysing… {len(self.evals)}/{self.total}"


def summary_line(name: str, judged: Sequence[MoveJudgement], side: Side) -> str:
    """``Alice: 2 mistakes, 1 blunder`` (``Alice: no mistakes`` when there are none)."""
    counts = summary(judged, side)
    parts = [f"{n} {PLURAL[v] if n != 1 else v}" for v in VERDICTS if (n := counts[v])]
    return f"{name}: {', '.join(parts) if parts else 'no mistakes'}"


def eval_text(found: PositionEval, names: dict[str, str]) -> str:
    """The evaluation as a player reads it: ``+1.25``, ``Alice mates in 2``, ``Bob won``."""
    if found.result == "draw":
        return "Draw"
    if found.result is not None:
        return f"{names[found.result]} won"
    if found.mate is not None:
        side = "first" if found.mate > 0 else "second"
        return f"{names[side]} mates in {abs(found.mate)}"
    return f"{found.score / 100:+.2f}"
