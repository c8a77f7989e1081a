"""Frame times of the pygame client while games are played and messages arrive.

A real server runs in a child process (loopback, port 0), as a remote server would;
``--in-process`` embeds it in the client's process instead, as ``boardhall local`` does. Alice's
client has a real (dummy-driver) window at 900x600, so every frame includes scaling the logical
surface; Bob's client is headless. They play hexgomoku by clicking on the board through the room
scene's own input handlers, Bob chats, and spectators come and go, so ``moved``, ``chat`` and
``presence`` messages arrive while frames are drawn. Prints the longest frame, percentiles and
the mean, over all frames and over the frames that were drawn (the others had nothing to draw).

    python bench/frame_time.py [--seconds 20] [--size 900x600] [--in-process]

``--replay-analysis`` measures instead a replay scene of a 60-ply chess game while its computer
analysis runs (the game's own node budget), stepping through the moves, with no server. The
replay is opened and drawn first (untimed, as it shows before the user presses a key); the first
timed frame is the one in which ``A`` is pressed, through the scene's own key handling, so it
counts what starting the analysis costs the frame (reported on its own line as well).

    python bench/frame_time.py --replay-analysis [--seconds 20] [--size 900x600]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import queue
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import contextlib

import pygame

from client.app import App
from client.config import Config
from client.local import EmbeddedServer
from client.net import Connection
from client.scenes.room import RoomScene


def wait(apps: list[App], until: object, timeout: float = 10.0) -> None:
    """Deliver network events until ``until()`` holds (setup only; not timed)."""
    deadline = time.monotonic() + timeout
    while not until():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise SystemExit("timed out during setup")
        for app in apps:
            if app.connection is None:
                continue
            with contextlib.suppress(queue.Empty):
                app.dispatch_net(app.connection.inbox.get(timeout=0.02))
            app.step(0.0)


def serve(pipe: multiprocessing.connection.Connection) -> None:
    """Child process: run a server, send its URL, add spectators to rooms, stop when told."""
    embedded = EmbeddedServer().start()
    pipe.send(embedded.url)
    watchers: list[Connection] = []
    while True:
        command = pipe.recv()
        if command == "stop":
            break
        watcher = Connection(embedded.url, f"Watcher{len(watchers)}")
        watcher.start()
        watcher.send({"type": "join", "room": command, "role": "spectator"})
        watchers.append(watcher)
    for watcher in watchers:
        watcher.close()
    embedded.stop()


def room(app: App) -> RoomScene:
    """The app's room scene."""
    scene = app.find(RoomScene)[-1]
    assert isinstance(scene, RoomScene)
    return scene


def click(app: App, pos: tuple[int, int], scale: tuple[float, int, int]) -> None:
    """A click at logical ``pos`` delivered in window coordinates."""
    s, ox, oy = scale
    window_pos = (int(pos[0] * s) + ox, int(pos[1] * s) + oy)
    for kind in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP):
        app.handle_event(pygame.event.Event(kind, pos=window_pos, button=1))


REPLAY_GAME = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1", "f8e7",
               "f1e1", "b7b5", "a4b3", "d7d6", "c2c3", "e8g8", "h2h3", "c6b8", "d2d4", "b8d7",
               "c3c4", "c7c6", "c4b5", "a6b5", "b1c3", "c8b7", "c1g5", "b5b4", "b3c4", "h7h6",
               "g5h4", "b4c3", "b2c3", "f6e4", "h4e7", "d8e7", "e1e4", "d6d5", "c4d3", "d5e4",
               "d3e4", "e5d4", "c3d4", "d7f6", "e4d3", "f8d8", "d1c2", "d8d4", "f3d4", "e7e1",
               "g1h2", "b7c8", "a1e1", "c8e6", "d4e6", "f7e6", "e1e6", "g8h8", "c2c6", "a8a2"]
"""Sixty plies of a Ruy Lopez (the replay analysis mode)."""


def pct(values: list[float], p: float) -> float:
    """The ``p`` quantile of sorted ``values``."""
    return values[min(len(values) - 1, int(len(values) * p))]


def replay_analysis(seconds: float, size: tuple[int, int]) -> int:
    """Frame times of a replay scene while its analysis runs (``--replay-analysis``)."""
    from client.scenes.replay import ReplayScene

    app = App(Config(path=Path(os.devnull)), window_size=size)
    app.settle()
    scene = ReplayScene(app, "chess", None, None, REPLAY_GAME, {"first": "A", "second": "B"})
    assert not scene.error, scene.error
    app.push(scene)
    for _ in range(10):  # the replay as it shows before A is pressed (untimed)
        app.step(1 / 60, pygame.event.get())
        time.sleep(1 / 60)
    press_a = [pygame.event.Event(pygame.KEYDOWN, key=pygame.K_a, mod=0, unicode="a",
                                  scancode=0)]
    frames: list[float] = []
    cpu: list[float] = []
    started = time.perf_counter()
    while time.perf_counter() - started < seconds and (
            not frames or (scene.analysis is not None and scene.analysis.running)):
        scene.index = len(frames) // 30 % (len(REPLAY_GAME) + 1)  # a move every half second
        events = press_a if not frames else []
        t0, c0 = time.perf_counter(), time.thread_time()
        app.step(1 / 60, events + pygame.event.get())
        frames.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.thread_time() - c0) * 1000)
        time.sleep(1 / 60)  # as vsync would
    run = scene.analysis
    assert run is not None, "A did not start the analysis"
    elapsed = time.perf_counter() - started
    analysed = len(run.evals)
    run.cancel()
    run.wait(10)
    print(f"frame_time --replay-analysis: {len(frames)} frames in {elapsed:.1f} s, window "
          f"{size[0]}x{size[1]}, {analysed}/{run.total} positions analysed "
          f"({getattr(run, 'where', 'thread')})")
    print(f"  machine load average while measuring: {os.getloadavg()[0]:.2f} "
          f"on {os.cpu_count()} CPUs")
    print(f"  frame 0, in which A is pressed: {frames[0]:.1f} ms wall / {cpu[0]:.1f} ms CPU")
    slowest = sorted(range(len(frames)), key=lambda i: -frames[i])[:5]
    print("  slowest frames (frame number: wall ms / CPU ms): "
          + ", ".join(f"{i}: {frames[i]:.1f}/{cpu[i]:.1f}" for i in slowest))
    for label, values in (("all frames", frames), ("CPU per frame", cpu)):
        values.sort()
        print(f"  {label:13} longest {values[-1]:6.2f} ms  p99 {pct(values, 0.99):6.2f} ms  "
              f"p95 {pct(values, 0.95):6.2f} ms  median {statistics.median(values):6.2f} ms")
    print(f"  target: longest frame < 16 ms -> {'OK' if frames[-1] < 16 else 'OVER'}")
    return 0


def main() -> int:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--size", default="900x600")
    parser.add_argument("--spectators", type=int, default=5)
    parser.add_argument("--in-process", action="store_true", help="embed the server in-process")
    parser.add_argument("--replay-analysis", action="store_true",
                        help="a replay scene while its analysis runs (no server)")
    args = parser.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    if args.replay_analysis:
        return replay_analysis(args.seconds, (w, h))
    rng = random.Random(1)

    embedded: EmbeddedServer | None = None
    child = None
    if args.in_process:
        embedded = EmbeddedServer().start()
        url = embedded.url
    else:
        parent_end, child_end = multiprocessing.Pipe()
        child = multiprocessing.get_context("spawn").Process(target=serve, args=(child_end,))
        child.start()
        url = parent_end.recv()
    alice = App(Config(path=Path(os.devnull)), window_size=(w, h))
    bob = App(Config(path=Path(os.devnull)), headless=True)
    for app, name in ((alice, "Alice"), (bob, "Bob")):
        app.url = url
        app.local_server = True  # keeps tokens out of any config file
        app.connection = Connection(url, name)
        app.connection.start()
    apps = [alice, bob]
    wait(apps, lambda: bool(alice.welcome) and bool(bob.welcome))
    alice.settle()  # as App.run does before its loop

    frames: list[float] = []
    drawn: list[float] = []
    cpu: list[float] = []
    moves = games = chats = 0
    watchers: list[Connection] = []
    last_click: dict[int, float] = {}
    spectators = 0
    seen: list[str] = []
    slowest: list[tuple[float, float, str, int]] = []
    original = alice.dispatch_net

    def dispatch(event: Any) -> None:
        seen.append(event.data.get("type", "?") if event.kind == "message" else event.kind)
        original(event)

    alice.dispatch_net = dispatch  # type: ignore[method-assign]
    started = time.perf_counter()
    while time.perf_counter() - started < args.seconds:
        alice.send({"type": "create", "game": "hexgomoku", "color": "first"})
        wait(apps, lambda: bool(alice.find(RoomScene)) and room(alice).model.status != "over")
        code = room(alice).model.room
        bob.send({"type": "join", "room": code})
        wait(apps, lambda c=code: any(s.model.room == c for s in bob.find(RoomScene)))
        while room(alice).model.status != "over" and time.perf_counter() - started < args.seconds:
            for app in apps:
                scene = room(app)
                # Stay under the server's 20 messages/s per connection (moves + chat).
                if time.perf_counter() - last_click.get(id(app), 0.0) < 0.15:
                    continue
                if scene.model.is_my_turn() and scene.pending_move is None and scene.view:
                    last_click[id(app)] = time.perf_counter()
                    legal = scene.model.legal_moves()
                    if legal:
                        point = rng.choice(legal)
                        click(app, scene.view.pixel_of(point), app.viewport())
            if rng.random() < 0.01:
                bob.send({"type": "chat", "room": code, "text": f"message {chats}"})
                chats += 1
            if rng.random() < 0.02 and spectators < args.spectators:
                spectators += 1
                if child is not None:
                    parent_end.send(code)
                else:
                    watcher = Connection(url, f"Watcher{len(watchers)}")
                    watcher.start()
                    watcher.send({"type": "join", "room": code, "role": "spectator"})
                    watchers.append(watcher)
            seen.clear()
            t0, c0 = time.perf_counter(), time.thread_time()
            was_drawn = alice.step(1 / 60, pygame.event.get())
            frames.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.thread_time() - c0) * 1000)
            if was_drawn:
                drawn.append(frames[-1])
                slowest.append((frames[-1], cpu[-1], ",".join(seen) or "-", len(alice.stack)))
            bob.step(1 / 60)
            # Let the network threads run between frames, as vsync would.
            time.sleep(0.002)
        games += 1
        moves += len(room(alice).model.moves)
        for app in apps:
            for extra in list(app.stack[1:]) if app.stack else []:
                app.pop(extra)
    elapsed = time.perf_counter() - started
    for watcher in watchers:
        watcher.close()
    for app in apps:
        app.disconnect()
        app.local_server = None
    if embedded is not None:
        embedded.stop()
    if child is not None:
        parent_end.send("stop")
        child.join(10)

    where = "in-process" if args.in_process else "child process"
    print(f"frame_time: {len(frames)} frames ({len(drawn)} drawn) in {elapsed:.1f} s, "
          f"window {w}x{h}, server in a {where}, {games} games, {moves} moves, "
          f"{chats} chat lines, {spectators} spectators")
    print(f"  machine load average while measuring: {os.getloadavg()[0]:.2f} "
          f"on {os.cpu_count()} CPUs (wall-clock frames include waiting for a CPU)")
    for label, values in (("all frames", frames), ("drawn frames", drawn),
                          ("CPU per frame", cpu)):
        values.sort()
        if not values:
            continue

        def pct(p: float, v: list[float] = values) -> float:
            return v[min(len(v) - 1, int(len(v) * p))]

        print(f"  {label:12} longest {values[-1]:6.2f} ms  p99 {pct(0.99):6.2f} ms  "
              f"p95 {pct(0.95):6.2f} ms  median {statistics.median(values):6.2f} ms  "
              f"mean {statistics.fmean(values):6.2f} ms")
    print(f"  target: longest frame < 16 ms -> wall {'OK' if frames[-1] < 16 else 'OVER'}, "
          f"CPU {'OK' if cpu[-1] < 16 else 'OVER'}")
    print("  costliest drawn frames (CPU ms, wall ms, messages handled, scenes on the stack):")
    for ms, cpu_ms, kinds, depth in sorted(slowest, key=lambda s: -s[1])[:5]:
        print(f"    {cpu_ms:6.2f}  {ms:6.2f}  {kinds}  {depth}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
