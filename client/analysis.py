"""A computer analysis of a replayed game, run in a child process.

The search is pure Python: on a thread of the pygame process it would hold the GIL and stall
frames (bench/README.md, "Replay analysis and frame time"). A ``spawn`` child gets the game's
first state and its moves, replays them and sends each position's analysis back through a pipe.
The run's own thread starts the child, so fork, exec and pickling the game stay off the frame in
which the user pressed A; given ``start_after`` (the app's :meth:`~client.app.App.after_frame`)
it waits until that frame is drawn, since starting a process holds the GIL for a few ms. Then it
reads (blocked in ``recv``, so it leaves the GIL alone) and appends each analysis to
:attr:`AnalysisRun.evals`, which the frame loop reads as it grows. The child searches
:data:`CHILD_NICENESS` steps below the client, so on a busy machine the frames get a core first.
:meth:`AnalysisRun.cancel` terminates the child (also one still starting); a stopped run can be
resumed where it stopped (the results are deterministic, so the parts agree). When no child can
be started (no process can be made here, or a state that cannot be sent to one), the same
thread searches instead and :attr:`AnalysisRun.where` says so.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from multiprocessing.connection import Connection
from typing import Any

import engines
from engines.search.analysis import (
    MoveJudgement,
    PositionEval,
    Verdict,
    iter_analysis,
    judge,
    scale_of,
)

SUFFIX: dict[str, str] = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
"""What the move list appends to a move of each verdict (as lichess does)."""
PLURAL: dict[str, str] = {"inaccuracy": "inaccuracies", "mistake": "mistakes",
                          "blunder": "blunders"}
CHILD_NICENESS = 10
"""How many nice steps below the client the analysis child runs (as the server's bots do)."""


def _child(conn: Connection, game: str, first: Any, moves: list[str], nodes: int | None,
           done: list[PositionEval]) -> None:
    """The child process: replay ``moves`` from ``first``, send each position's analysis from
    ``states[len(done)]`` on, then ``None`` (or an error's text)."""
    try:
        engine = engines.get(game)
        states = [first]
        for move in moves:
            states.append(engine.play(states[-1], move))
        for found in iter_analysis(engine, states, nodes, None, done):
            conn.send(found)
        conn.send(None)
    except Exception as exc:  # a state the search cannot read: said, never a crash
        conn.send(str(exc))
    finally:
        conn.close()


class AnalysisRun:
    """Analyse ``states`` (a game from its start) in a child process (``process=False``, or a
    child that cannot start: on a thread); ``nodes`` overrides the game's node budget per
    position (tests). ``start_after``, when given, is handed what lets each start or resume
    begin, and calls it when the moment comes (the app's after-frame hook); without it the
    search begins at once."""

    def __init__(self, game: str, states: Sequence[Any], moves: Sequence[str],
                 nodes: int | None = None, process: bool = True,
                 start_after: Callable[[Callable[[], None]], None] | None = None) -> None:
        self.game = game
        self.scale = scale_of(game)
        self.states = list(states)
        self.moves = list(moves)
        """The canonical moves between the states (``moves[i]`` leads from state ``i``)."""
        self.nodes = nodes
        self.evals: list[PositionEval] = []
        self.error = ""
        self.process = process
        self.where = "process" if process else "thread"
        """Where the search runs: ``process``, or ``thread (...why...)`` after a fallback."""
        self.start_after = start_after
        self._stop = threading.Event()
        self._started = threading.Event()
        self._go = threading.Event()
        self._thread: threading.Thread | None = None
        self._child: multiprocessing.process.BaseProcess | None = None
        self._reaping = threading.Lock()
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
        """The search goes on: not told to stop, not every position in yet."""
        return (self._thread is not None and self._thread.is_alive()
                and not self._stop.is_set() and not self.complete)

    def resume(self) -> None:
        """Go on from the first position not analysed yet (nothing when all are done)."""
        if self.running or self.complete:
            return
        if self._thread is not None:
            self._thread.join()  # a stopped search ends within a few dozen nodes
        self._stop = threading.Event()
        self._started = threading.Event()
        self._go = threading.Event()
        self.error = ""
        self._thread = threading.Thread(target=self._work,
                                        args=(self._stop, self._started, self._go),
                                        name="boardhall-analysis", daemon=True)
        self._thread.start()
        if self.start_after is None:
            self._go.set()
        else:
            self.start_after(self._go.set)

    def wait_started(self, timeout: float | None = None) -> bool:
        """Wait until the search of the latest start or resume is under way: its child started
        (or, when none could start, the search on the thread); whether it is."""
        return self._started.wait(timeout)

    def _work(self, stop: threading.Event, started: threading.Event,
              go: threading.Event) -> None:
        """The run's thread: once let (``go``), start the child and read what it sends, or
        search here when no child can start."""
        go.wait()
        if stop.is_set():  # cancelled before it began
            return
        conn: Connection | None = None
        if self.process:
            try:
                conn = self._start_child(stop)
            except Exception as exc:  # no child (a state that cannot be pickled, no fork...)
                self.process = False
                self.where = f"thread (no analysis process: {exc})"
        started.set()
        if conn is not None:
            self._read(stop, conn)
        else:
            self._run(stop)

    def _start_child(self, stop: threading.Event) -> Connection:
        """Start the child process on the positions not analysed yet; its end of the pipe. A
        cancel that came meanwhile (``stop``) ends it at once."""
        context = multiprocessing.get_context("spawn")
        mine, theirs = context.Pipe(duplex=False)
        child = context.Process(
            target=_child, name="boardhall-analysis", daemon=True,
            args=(theirs, self.game, self.states[0], self.moves[: self.total - 1], self.nodes,
                  list(self.evals)))
        try:
            child.start()
        except BaseException:
            mine.close()
            raise
        finally:
            theirs.close()  # the child's copy only: EOF here once the child is gone
        if child.pid is not None:
            with contextlib.suppress(OSError, AttributeError):  # no such call: full priority
                below = os.getpriority(os.PRIO_PROCESS, 0) + CHILD_NICENESS
                os.setpriority(os.PRIO_PROCESS, child.pid, min(19, below))
        with self._reaping:
            self._child = child
        if stop.is_set():  # cancelled while starting: :meth:`cancel` found no child to end
            self._end_child()
        return mine

    def _read(self, stop: threading.Event, conn: Connection) -> None:
        """Append what the child sends until it ends or the run is cancelled."""
        try:
            while not stop.is_set():
                message = conn.recv()
                if message is None:
                    break
                if isinstance(message, str):
                    self.error = f"Analysis stopped: {message}"
                    break
                if not stop.is_set():
                    self.evals.append(message)
        except (EOFError, OSError):
            if not stop.is_set() and not self.complete:
                self.error = "Analysis stopped: its process ended"
        finally:
            conn.close()
            self._end_child()

    def _end_child(self) -> None:
        """Terminate the child (if still running) and reap it: no process is left behind."""
        with self._reaping:
            child = self._child
            if child is None:
                return
            if child.is_alive():
                child.terminate()
            child.join(5)
            if child.is_alive():
                child.kill()
                child.join()
            self._child = None

    def cancel(self) -> None:
        """Stop searching (what is done stays); the child process is terminated."""
        self._stop.set()
        self._go.set()  # a run still waiting for its moment ends at once
        self._end_child()

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the search to end (tests, and leaving the scene)."""
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
        """``Analysing… 23/61`` while running (``on a thread`` after a fallback), else empty."""
        if not self.running:
            return ""
        where = "" if self.process else " on a thread"
        return f"Analysing… {len(self.evals)}/{self.total}{where}"

    def stopped_at(self) -> str:
        """``Stopped at 23/61`` when the search stopped before the end, else empty."""
        if self.running or self.complete:
            return ""
        return f"Stopped at {len(self.evals)}/{self.total}"


class AnalysisCache:
    """The analyses of this session's replays, the ``limit`` most recently used kept, so that
    reopening a game's replay shows its analysis at once."""

    def __init__(self, limit: int = 20) -> None:
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"the analysis cache keeps at least 1 game, not {limit!r}")
        self.limit = limit
        self._runs: OrderedDict[Hashable, AnalysisRun] = OrderedDict()

    def __len__(self) -> int:
        return len(self._runs)

    def get(self, key: Hashable) -> AnalysisRun | None:
        """The run kept for ``key`` (now the most recently used), or ``None``."""
        run = self._runs.get(key)
        if run is not None:
            self._runs.move_to_end(key)
        return run

    def put(self, key: Hashable, run: AnalysisRun) -> None:
        """Keep ``run`` for ``key``; the least recently used beyond the limit is cancelled and
        dropped."""
        self._runs[key] = run
        self._runs.move_to_end(key)
        while len(self._runs) > self.limit:
            _, dropped = self._runs.popitem(last=False)
            dropped.cancel()

    def cancel_all(self) -> None:
        """Stop every run that is still searching (the app is closing)."""
        for run in self._runs.values():
            run.cancel()


def accuracy_text(name: str, figure: float | None) -> str:
    """``Alice: 87% accuracy`` (``Alice: accuracy –`` before any move of hers is judged)."""
    return f"{name}: {figure:.0f}% accuracy" if figure is not None else f"{name}: accuracy –"


def count_text(verdict: Verdict, count: int, words: bool = True) -> str:
    """``2 mistakes``, ``1 blunder``; without ``words`` the move list's mark: ``? 2``."""
    if not words:
        return f"{SUFFIX[verdict]} {count}"
    return f"{count} {verdict if count == 1 else PLURAL[verdict]}"


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
