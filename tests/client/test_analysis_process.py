"""The replay's analysis runs in a child process (client.analysis): the same results as the
search in this process, no child left after A again, leaving the replay or closing the app, a
thread when no child can start (and it says so), and the session's analyses kept for a replay
opened again."""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest

import engines
from client import analysis as analysis_module
from client.analysis import AnalysisCache, AnalysisRun
from client.scenes.replay import ReplayScene
from engines.search.analysis import analyse
from tests.client.conftest import UI
from tests.client.helpers import pump, replay_lines

FOOLS_MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]
DRAUGHTS = ["32-28", "19-23", "28x19", "14x23", "37-32", "17-21"]
NAMES = {"first": "Alice", "second": "Bob"}


def states_of(game: str, moves: list[str]) -> list[Any]:
    """The states of ``moves`` from the game's start."""
    engine = engines.get(game)
    states = [engine.start(None)]
    for move in moves:
        states.append(engine.play(states[-1], move))
    return states


def analysis_children() -> list[int]:
    """Live (not zombie) spawned children of this process, found in /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == os.getpid() and fields[0] != "Z" and b"spawn_main" in cmdline:
            found.append(int(entry.name))
    return found


def seen_children(timeout: float = 30) -> list[int]:
    """:func:`analysis_children` once there is one (at most ``timeout`` s): a child that has
    just started may not show yet. The run's thread goes on as soon as the exec has replaced
    the forked copy, and the kernel sets the new command line (what names a spawned child)
    a moment later; on a busy machine the check could come first (1 in 600 starts with the
    cores busy)."""
    deadline = time.monotonic() + timeout
    while not (found := analysis_children()) and time.monotonic() < deadline:
        time.sleep(0.01)
    return found


@pytest.fixture(autouse=True)
def no_child_outlives_its_test() -> Iterator[None]:
    """A test that fails before it cancels its run leaves its child searching: end it, so the
    next tests (which count children) fail only for their own reasons."""
    yield
    for child in analysis_processes():
        child.kill()
        child.join(30)


def analysis_processes() -> list[multiprocessing.process.BaseProcess]:
    """The analysis children multiprocessing knows of."""
    return [p for p in multiprocessing.active_children() if p.name == "boardhall-analysis"]


def endless(game: str = "chess", moves: list[str] = FOOLS_MATE) -> AnalysisRun:
    """A run that would search for ever, once its child is seen running."""
    run = AnalysisRun(game, states_of(game, moves), moves, nodes=10**9)
    assert run.wait_started(30) and run.where == "process"
    if not (analysis_processes() and seen_children()):
        run.cancel()
        raise AssertionError("the run started no child")
    return run


@pytest.mark.parametrize(("game", "moves"), [("chess", FOOLS_MATE), ("draughts", DRAUGHTS)])
def test_the_child_process_finds_what_the_search_in_this_process_finds(
        game: str, moves: list[str]) -> None:
    states = states_of(game, moves)
    run = AnalysisRun(game, states, moves, nodes=500)
    assert run.where == "process"
    run.wait(60)
    assert run.complete and not run.running and not run.error
    assert run.evals == analyse(engines.get(game), states, nodes=500)
    assert not analysis_processes() and not analysis_children()


def test_a_stopped_run_resumed_in_a_new_child_ends_as_one_run_would() -> None:
    states = states_of("chess", FOOLS_MATE)
    run = AnalysisRun("chess", states, FOOLS_MATE, nodes=1500)
    deadline = time.monotonic() + 30
    while len(run.evals) < 2:
        assert time.monotonic() < deadline
        run.wait(0.01)
    run.cancel()
    assert not analysis_children()
    kept = len(run.evals)
    assert kept >= 2
    run.resume()
    run.wait(60)
    assert run.complete
    assert run.evals == analyse(engines.get("chess"), states, nodes=1500)


def test_cancelling_terminates_the_child_at_once() -> None:
    run = endless()
    run.cancel()
    assert not analysis_processes() and not analysis_children()
    run.wait(5)
    assert not run.running and run.evals == [] and not run.error


def endless_replay(ui: UI) -> ReplayScene:
    """A replay whose analysis, started by A, would search for ever."""
    scene = ReplayScene(ui.app, "chess", None, None, FOOLS_MATE, NAMES)
    scene.analysis_nodes = 10**9
    ui.app.push(scene)
    ui.key(pygame.K_a, "a")
    ui.app.step(0.0)  # the frame in which A was pressed: the child starts after it
    assert scene.analysis is not None and scene.analysis.wait_started(30)
    return scene


def test_the_a_key_again_and_leaving_the_replay_leave_no_child(ui: UI) -> None:
    scene = endless_replay(ui)
    assert seen_children()
    ui.key(pygame.K_a, "a")
    assert not analysis_children()
    ui.key(pygame.K_a, "a")
    ui.app.step(0.0)
    assert scene.analysis is not None and scene.analysis.running
    assert scene.analysis.wait_started(30) and seen_children()
    ui.key(pygame.K_ESCAPE)
    assert scene not in ui.app.stack
    assert not analysis_processes() and not analysis_children()


def test_closing_the_app_leaves_no_child(ui: UI) -> None:
    endless_replay(ui)
    assert seen_children()
    ui.app.handle_event(pygame.event.Event(pygame.QUIT))
    ui.app.run()
    assert not analysis_processes() and not analysis_children()


SPAWN = multiprocessing.get_context("spawn")


class NoProcesses:
    """A multiprocessing context whose processes cannot start."""

    def __init__(self) -> None:
        self.real = SPAWN

    def Pipe(self, duplex: bool = True) -> Any:
        return self.real.Pipe(duplex)

    def Process(self, **kwargs: Any) -> Any:
        process = self.real.Process(**kwargs)

        def refuse() -> None:
            raise OSError("no processes here")

        process.start = refuse  # type: ignore[method-assign]
        return process


def test_a_child_that_cannot_start_falls_back_to_a_thread_and_says_so(
        ui: UI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analysis_module.multiprocessing, "get_context",
                        lambda method=None: NoProcesses())
    scene = endless_replay(ui)
    run = scene.analysis
    assert run is not None and run.running
    assert run.where == "thread (no analysis process: no processes here)"
    assert "Analysing… 0/5 on a thread" in replay_lines(scene, monkeypatch)
    run.cancel()
    run.wait(5)
    assert not run.running
    run.nodes = 400
    run.resume()
    ui.app.step(0.0)  # the replay's run begins after the app's frame
    run.wait(30)
    assert run.complete
    assert run.evals == analyse(engines.get("chess"), states_of("chess", FOOLS_MATE), nodes=400)


def test_a_replay_opened_again_shows_its_analysis_at_once(ui: UI) -> None:
    moves = ["e2e4", "e7e5"]  # three positions at the game's own budget: quick
    scene = ReplayScene(ui.app, "chess", None, None, moves, NAMES)
    ui.app.push(scene)
    ui.key(pygame.K_a, "a")
    run = scene.analysis
    assert run is not None
    pump(ui.app, lambda: run.complete, 60)
    ui.key(pygame.K_ESCAPE)
    again = ReplayScene(ui.app, "chess", None, None, moves, NAMES)
    assert again.analysis is run and again.bar_rect() is not None
    other = ReplayScene(ui.app, "chess", None, None, ["e2e4", "e7e6"], NAMES)
    assert other.analysis is None


def test_the_cache_keeps_the_most_recently_used_runs_and_stops_the_dropped() -> None:
    cache = AnalysisCache(limit=2)
    runs = [AnalysisRun("chess", states_of("chess", []), [], nodes=10**9, process=False)
            for _ in range(3)]
    cache.put("a", runs[0])
    cache.put("b", runs[1])
    assert cache.get("a") is runs[0]  # now "b" is the oldest
    cache.put("c", runs[2])
    assert len(cache) == 2 and cache.get("b") is None
    assert cache.get("a") is runs[0] and cache.get("c") is runs[2]
    runs[1].wait(5)
    assert not runs[1].running
    cache.cancel_all()
    for run in runs:
        run.wait(5)
        assert not run.running
    assert AnalysisCache().limit == 20


@pytest.mark.parametrize("limit", [0, -1, 1.5, True, "20"])
def test_a_bad_cache_limit_is_named(limit: Any) -> None:
    with pytest.raises(ValueError, match="at least 1 game"):
        AnalysisCache(limit)


def test_pressing_a_starts_the_child_off_the_frames_thread(
        ui: UI, monkeypatch: pytest.MonkeyPatch) -> None:
    """Starting a spawned child (fork, exec, pickling the game) is not done on the thread that
    draws the frames: the key press returns at once and the run's own thread starts it."""
    starters: list[str] = []
    start = multiprocessing.process.BaseProcess.start

    def noted(process: multiprocessing.process.BaseProcess) -> None:
        starters.append(threading.current_thread().name)
        start(process)

    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", noted)
    scene = endless_replay(ui)
    run = scene.analysis
    assert run is not None and run.running
    assert run.wait_started(30) and run.where == "process"
    assert starters == ["boardhall-analysis"] and seen_children()
    run.cancel()
    assert not analysis_processes() and not analysis_children()


def test_the_child_searches_below_the_clients_priority() -> None:
    """The child runs 10 nice steps below the client, so on a busy machine the frames get a
    core before the search does."""
    run = endless()
    try:
        (pid,) = analysis_children()
        below = min(19, os.getpriority(os.PRIO_PROCESS, 0) + 10)
        assert os.getpriority(os.PRIO_PROCESS, pid) == below
    finally:
        run.cancel()


def test_a_run_cancelled_while_its_child_starts_leaves_no_child() -> None:
    """A cancel that comes before the run's thread has started the child still leaves none."""
    for _ in range(3):
        run = AnalysisRun("chess", states_of("chess", FOOLS_MATE), FOOLS_MATE, nodes=10**9)
        run.cancel()
        run.wait(30)
        assert not run.running
        assert not analysis_processes() and not analysis_children()


def test_the_child_starts_once_the_frame_in_which_a_was_pressed_is_drawn(ui: UI) -> None:
    """Starting a process holds the GIL for a few ms (vfork waits for the exec): it is done once
    the frame in which A was pressed has been drawn, while the loop waits for the next frame,
    not while that frame draws."""
    scene = ReplayScene(ui.app, "chess", None, None, FOOLS_MATE, NAMES)
    scene.analysis_nodes = 10**9
    ui.app.push(scene)
    ui.key(pygame.K_a, "a")
    run = scene.analysis
    assert run is not None and run.running and not run.wait_started(0)
    assert not analysis_children()
    assert ui.app.step(0.0)  # the frame is drawn, then the child starts
    assert run.wait_started(30) and seen_children()
    run.cancel()
    assert not analysis_processes() and not analysis_children()


def test_a_run_given_a_moment_to_start_waits_for_it() -> None:
    """``start_after`` gets what lets the search begin (the app's after-frame hook calls it);
    until then no child exists, and a cancel meanwhile leaves none either."""
    releases: list[Callable[[], None]] = []
    run = AnalysisRun("chess", states_of("chess", FOOLS_MATE), FOOLS_MATE, nodes=10**9,
                      start_after=releases.append)
    assert run.running and len(releases) == 1
    assert not run.wait_started(0) and not analysis_children()
    releases.pop()()
    assert run.wait_started(30) and run.where == "process" and seen_children()
    run.cancel()
    assert not analysis_processes() and not analysis_children()
    run.resume()
    assert len(releases) == 1 and not run.wait_started(0)
    run.cancel()
    run.wait(30)
    assert not run.running and not analysis_children()


def test_after_frame_work_runs_once_the_frame_is_drawn(ui: UI) -> None:
    order: list[str] = []
    render = ui.app.render

    def noted() -> None:
        render()
        order.append("drawn")

    ui.app.render = noted  # type: ignore[method-assign]
    ui.app.after_frame(lambda: order.append("after"))
    ui.app.invalidate()
    assert ui.app.step(0.0)
    assert order == ["drawn", "after"]
    assert not ui.app.step(0.0) and order == ["drawn", "after"]  # once
    ui.app.after_frame(lambda: order.append("idle"))
    assert not ui.app.step(0.0) and order[-1] == "idle"  # a frame with nothing to draw too
