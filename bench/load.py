"""Load figures of ``boardhall-server`` next to a bare ``websockets`` echo server.

G games of scripted players (a mix of all five games, random legal moves computed beforehand)
plus S spectators play on one server; the same client code then drives a bare echo server with
the same number of connections (a "move" is one frame echoed back: 2 frames handled). Two
phases each: full speed (every game always has a move in flight) and a steady total rate.

Printed per phase: accepted moves/s, frames the server handled per second (received + sent, as
counted by the clients), move latency (move sent -> ``moved`` received by the opponent; for the
echo: sent -> echo received) p50/p99, server CPU (% of one core) and memory (/proc), and the
ratios boardhall/echo.

Default (about a minute): ``python bench/load.py``. Full sizes (see bench/README.md)::

    python bench/load.py --games 1000 --spectators 1000 --rate 1000 --duration 20
    python bench/load.py --games 2500 --spectators 5000 --rate 500 --phases rate --no-echo
    python bench/load.py --games 1000 --spectators 1000 --rate 1000 --phases rate --rounds 3

``--rounds N`` alternates boardhall and the echoes N times and prints each ratio's median.

``--relay-loops uvloop`` also measures ``echo_server.py --relay``: boardhall's fan-out of each
move (opponent, mover, spectators) with no game, clock or storage, the floor under any server's
latency with this client.

``--stages FILE`` prints where each move's time went (bench/stages.py): inside the server stage
by stage, and the client's latency split into the way to the server, the time inside it, and the
way to the opponent.

``--url ws://127.0.0.1:PORT`` targets a running server (no /proc figures, no echo).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import importlib.util
import json
import math
import multiprocessing
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from websockets.asyncio.client import ClientConnection, connect

from bench import harness, targets
from bench.scripts import GAMES, Script, library
from server.flags import bounded, names, whole

UVLOOP = importlib.util.find_spec("uvloop") is not None
LOOPS = ("asyncio", "uvloop") if UVLOOP else ("asyncio",)
"""The event loops installed here, for the echo and the relay."""

CLOCKS: tuple[dict[str, int] | None, ...] = (
    None,
    {"initial": 3600, "increment": 5},
    {"per_move": 600},
)


TimedMove = tuple[str, int, float, float]
"""A measured move: room, ply, when it was sent (``time.perf_counter``) and its latency (s)."""


class Refused(Exception):
    """The server answered a request with an error."""


@dataclass
class Counters:
    """What one worker saw inside the measured window of a phase."""

    sent: int = 0
    received: int = 0
    moves: int = 0
    errors: int = 0
    restarts: int = 0
    timed: list[TimedMove] = field(default_factory=list)
    """Every move measured: its room, ply, when it was sent (``time.perf_counter``, one clock
    for every process on the machine) and its latency."""
    measuring: bool = False

    def snapshot(self) -> dict[str, Any]:
        """The figures so far, then start counting from zero."""
        found = {
            "sent": self.sent,
            "received": self.received,
            "moves": self.moves,
            "errors": self.errors,
            "restarts": self.restarts,
            "timed": self.timed,
        }
        self.sent = self.received = self.moves = self.errors = self.restarts = 0
        self.timed = []
        return found


@dataclass
class Plan:
    """What a worker runs: its tables and the phase windows (absolute monotonic times)."""

    url: str
    target: str
    """``"boardhall"``, ``"echo"`` (each move frame comes back to its sender) or ``"relay"``
    (``echo_server.py --relay``: players and spectators name their table and role in a ``seat``
    frame, and moves come back as boardhall's ``moved``)."""
    scripts: list[Script]
    clocks: list[dict[str, int] | None]
    spectators: list[int]
    phases: list[tuple[str, float, float, float]]
    """(name, start, end, total moves/s or 0 for full speed) per phase."""
    total_tables: int
    first_table: int
    uvloop: bool = False

    @property
    def echo(self) -> bool:
        """The target echoes each frame to its sender."""
        return self.target == "echo"

    @property
    def bare(self) -> bool:
        """A yardstick, not boardhall: no ``hello``, no rooms to open."""
        return self.target != "boardhall"


class Conn:
    """One client connection with request/reply bookkeeping on top of a counting reader."""

    def __init__(self, ws: ClientConnection, worker: Worker) -> None:
        self.ws = ws
        self.worker = worker
        self.pending: dict[Any, asyncio.Future[dict[str, Any]]] = {}
        self.table: Table | None = None
        self.side = ""
        self.task: asyncio.Task[None] | None = None

    async def send(self, data: dict[str, Any]) -> None:
        """Send one JSON frame (counted)."""
        counters = self.worker.counters
        if counters.measuring:
            counters.sent += 1
        await self.ws.send(json.dumps(data))

    async def request(self, data: dict[str, Any], timeout: float = 60.0) -> dict[str, Any]:
        """Send with an id and wait for the reply carrying it (an error raises :class:`Refused`)."""
        key = f"q{next(self.worker.ids)}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[key] = future
        await self.send({**data, "id": key})
        reply = await asyncio.wait_for(future, timeout)
        if reply.get("type") == "error":
            raise Refused(f"{data.get('type')}: {reply.get('code')} {reply.get('message')}")
        return reply

    async def read_all(self, parse: bool) -> None:
        """Count every frame; players parse theirs and route replies and opponents' moves."""
        counters = self.worker.counters
        echo = self.worker.plan.echo
        with contextlib.suppress(Exception):
            async for frame in self.ws:
                if counters.measuring:
                    counters.received += 1
                if not parse and not self.pending:
                    continue
                data = json.loads(frame)
                re = data.get("re")
                table = self.table
                if echo:
                    if table is not None:
                        table.arrived(data.get("ply"), data, own=True)
                    continue
                kind = data.get("type")
                if kind == "moved" and table is not None:
                    table.arrived(data.get("ply"), data, own=re is not None)
                elif kind == "error" and re is not None and table is not None:
                    table.refused(re, data)
                if re is not None:
                    future = self.pending.pop(re, None)
                    if future is not None and not future.done():
                        future.set_result(data)


class Table:
    """One game: two scripted players, its spectators, and the loop that plays the script."""

    def __init__(
        self, worker: Worker, index: int, script: Script, clock: dict[str, int] | None
    ) -> None:
        self.worker = worker
        self.index = index
        self.script = script
        self.clock = clock
        self.players: dict[str, Conn] = {}
        self.watchers: list[Conn] = []
        self.room = ""
        self.ply = 0
        self.expect: tuple[int, asyncio.Future[dict[str, Any]]] | None = None
        self.arrived_at = 0.0
        """When the awaited move reached the opponent's connection (``time.perf_counter``)."""

    def arrived(self, ply: Any, data: dict[str, Any], own: bool) -> None:
        """A ``moved`` (or an echo) for ``ply``: the mover's reply, or the opponent's copy."""
        counters = self.worker.counters
        echo = self.worker.plan.echo
        if own and counters.measuring:
            counters.moves += 1
        if (own if echo else not own) and self.expect is not None and self.expect[0] == ply:
            future = self.expect[1]
            if not future.done():
                self.arrived_at = time.perf_counter()
                future.set_result(data)

    def refused(self, re: Any, data: dict[str, Any]) -> None:
        """A move was refused: record it and let the loop start a new game."""
        if self.expect is not None and self.expect[0] == re:
            self.worker.counters.errors += 1
            future = self.expect[1]
            if not future.done():
                future.set_exception(Refused(f"{data.get('code')}: {data.get('message')}"))

    async def open(self) -> None:
        """Start a new room for this table's script (the first player creates, the second joins)."""
        first, second = self.players["first"], self.players["second"]
        if self.worker.plan.bare:
            self.ply = 0
            return
        old = self.room
        if old:
            for conn in (first, second, *self.watchers):
                await conn.send({"type": "leave", "room": old})
        create: dict[str, Any] = {
            "type": "create",
            "game": self.script.game,
            "variant": self.script.variant,
            "color": "first",
        }
        if self.clock:
            create["clock"] = self.clock
        room = await first.request(create)
        self.room = room["room"]
        await second.request({"type": "join", "room": self.room})
        for watcher in self.watchers:
            await watcher.send({"type": "join", "room": self.room, "role": "spectator"})
        self.ply = 0

    async def finish(self) -> None:
        """End a game whose script ran out before the engine ended it."""
        if self.worker.plan.bare or self.script.over:
            return
        with contextlib.suppress(Refused, TimeoutError):
            await self.players["first"].request({"type": "resign", "room": self.room})

    async def play(self) -> None:
        """Play the script over and over until the last phase ends."""
        plan = self.worker.plan
        loop = asyncio.get_running_loop()
        offset = random.Random(self.index).random()
        end = plan.phases[-1][2]
        counters = self.worker.counters
        last_slot = 0.0
        while time.monotonic() < end:
            if self.ply >= len(self.script.moves):
                await self.finish()
                counters.restarts += 1
                try:
                    await self.open()
                except (Refused, TimeoutError):
                    counters.errors += 1
                    await asyncio.sleep(1.0)
                    continue
            rate = self.worker.rate_now(time.monotonic())
            if rate > 0:
                interval = plan.total_tables / rate
                now = time.monotonic()
                base = offset * interval
                slot = base + (math.floor((now - base) / interval) + 1) * interval
                # a timer may fire a little early: never use the same slot twice
                slot = max(slot, last_slot + interval)
                last_slot = slot
                await asyncio.sleep(slot - now)
            side = self.script.sides[self.ply]
            move = {
                "type": "move",
                "room": self.room,
                "ply": self.ply,
                "move": self.script.moves[self.ply],
                "id": self.ply,
            }
            future: asyncio.Future[dict[str, Any]] = loop.create_future()
            self.expect = (self.ply, future)
            measured = counters.measuring
            began = time.perf_counter()
            await self.players[side].send(move)
            try:
                await asyncio.wait_for(future, 30.0)
            except (Refused, TimeoutError):
                counters.errors += 1
                self.ply = len(self.script.moves)
                continue
            if measured and counters.measuring:
                # received by the opponent: when its connection read the move, not when this
                # task got to run again
                counters.timed.append((self.room, self.ply, began, self.arrived_at - began))
            self.ply += 1


class Worker:
    """One client process: connects its tables, plays the phases, returns the counters."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.counters = Counters()
        self.ids = iter(range(1, 1 << 62))
        self.tables: list[Table] = []
        self.results: dict[str, dict[str, Any]] = {}

    def rate_now(self, now: float) -> float:
        """The total moves/s of the phase running at ``now`` (0: full speed)."""
        for _, _, end, rate in self.plan.phases:
            if now < end:
                return rate
        return 0.0

    async def _connect(self, limit: asyncio.Semaphore, parse: bool) -> Conn:
        async with limit:
            ws = await connect(
                self.plan.url,
                compression=None,
                max_size=None,
                open_timeout=120,
                ping_interval=None,
                close_timeout=1,
            )
            conn = Conn(ws, self)
            if not self.plan.bare:
                conn.task = asyncio.ensure_future(conn.read_all(parse))
                await conn.request({"type": "hello", "name": "load", "protocol": 1})
            else:
                conn.task = asyncio.ensure_future(conn.read_all(parse))
            return conn

    async def setup(self) -> None:
        """Connect every player and spectator and open the first rooms."""
        plan = self.plan
        limit = asyncio.Semaphore(50)
        for i, script in enumerate(plan.scripts):
            table = Table(self, plan.first_table + i, script, plan.clocks[i])
            self.tables.append(table)

        async def seat(table: Table, watchers: int) -> None:
            first, second = await asyncio.gather(
                self._connect(limit, True), self._connect(limit, True)
            )
            for side, conn in (("first", first), ("second", second)):
                conn.table, conn.side = table, side
                table.players[side] = conn
            table.watchers = list(
                await asyncio.gather(*(self._connect(limit, False) for _ in range(watchers)))
            )
            if plan.target == "relay":
                seats = [*table.players.items(), *(("spectator", w) for w in table.watchers)]
                for role, conn in seats:
                    await conn.send({"type": "seat", "table": table.index, "role": role})
            await table.open()

        await asyncio.gather(
            *(seat(t, n) for t, n in zip(self.tables, plan.spectators, strict=True))
        )

    async def run(self, ready: Any, go: Any, start: Any) -> dict[str, Any]:
        """Set up, report ready, wait for the common start, play every phase."""
        loop = asyncio.get_running_loop()
        began = time.monotonic()
        await self.setup()
        setup_s = time.monotonic() - began
        # this process's own collections must not count as server latency: the connections
        # made above live to the end, and the run is short enough to leave the collector off
        gc.collect()
        gc.freeze()
        gc.disable()
        ready.put({"ready": setup_s})
        await loop.run_in_executor(None, go.wait)
        origin = float(start.value)
        self.plan.phases = [(n, origin + a, origin + b, r) for n, a, b, r in self.plan.phases]
        await asyncio.sleep(max(0.0, origin - time.monotonic()))
        players = [asyncio.ensure_future(t.play()) for t in self.tables]
        for name, begin, end, _ in self.plan.phases:
            await asyncio.sleep(max(0.0, begin - time.monotonic()))
            self.counters.snapshot()
            self.counters.measuring = True
            cpu = time.process_time()
            await asyncio.sleep(max(0.0, end - time.monotonic()))
            self.counters.measuring = False
            self.results[name] = self.counters.snapshot()
            self.results[name]["cpu_s"] = time.process_time() - cpu
        for task in players:
            task.cancel()
        await asyncio.gather(*players, return_exceptions=True)
        return {"setup_s": setup_s, "phases": self.results}


def _worker_main(plan: Plan, queue: Any, go: Any, start: Any) -> None:
    harness.raise_fd_limit()
    try:
        coro = Worker(plan).run(queue, go, start)
        if plan.uvloop:
            import uvloop

            result = uvloop.run(coro)
        else:
            result = asyncio.run(coro)
        queue.put(result)
    except BaseException as exc:
        queue.put({"error": repr(exc)})
    finally:
        queue.close()
        queue.join_thread()
        os._exit(0)  # thousands of sockets: let the kernel close them


@dataclass
class PhaseFigures:
    """One phase against one target."""

    moves_s: float
    frames_s: float
    p50_ms: float
    p99_ms: float
    cpu_pct: float
    rss_mb: float
    errors: int
    restarts: int
    client_cpu_pct: float
    slow_windows: int = 0
    """100-ms windows holding the slowest 1 % of moves (see :func:`harness.tail_spread`)."""
    windows: int = 0
    p99_per_second_ms: float = 0.0
    """The median of each second's own p99."""

    @property
    def frames_per_cpu_s(self) -> float:
        """Frames handled per second of server CPU (independent of what else runs)."""
        return self.frames_s / (self.cpu_pct / 100) if self.cpu_pct else 0.0


def find_py_spy() -> str | None:
    """py-spy on PATH, or beside this interpreter (a virtualenv's ``bin`` need not be on PATH)."""
    beside = Path(sys.executable).parent / "py-spy"
    return shutil.which("py-spy") or (str(beside) if beside.is_file() else None)


def _profile_format(path: str) -> str:
    """py-spy's format for ``path``: speedscope (.json), raw stacks (.txt) or a flame graph."""
    if path.endswith(".json"):
        return "speedscope"
    return "raw" if path.endswith(".txt") else "flamegraph"


def run_target(
    url: str,
    pid: int | None,
    target: str,
    args: argparse.Namespace,
    scripts: list[Script],
    clocks: list[dict[str, int] | None],
    spectators: list[int],
    profile: str | None = None,
) -> tuple[dict[str, PhaseFigures], float, dict[str, list[TimedMove]]]:
    """Run the phases against ``url`` (a ``target`` of :class:`Plan`) with ``args.procs`` client
    processes; returns each phase's figures, the slowest process's setup seconds, and each
    phase's measured moves."""
    tables = len(scripts)
    procs = max(1, min(args.procs, tables))
    phases: list[tuple[str, float, float, float]] = []
    at = 0.0
    for name in args.phases:
        rate = 0.0 if name == "full" else float(args.rate)
        begin = at + args.warmup
        phases.append((name, begin, begin + args.duration, rate))
        at = begin + args.duration
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    go = context.Event()
    start_value = context.Value("d", 0.0)
    children = []
    for p in range(procs):
        part = list(range(p, tables, procs))
        plan = Plan(
            url=url,
            target=target,
            scripts=[scripts[i] for i in part],
            clocks=[clocks[i] for i in part],
            spectators=[spectators[i] for i in part],
            phases=phases,
            total_tables=tables,
            first_table=p * 100_000,
            uvloop=args.client_uvloop,
        )
        child = context.Process(
            target=_worker_main, args=(plan, queue, go, start_value), daemon=True
        )
        child.start()
        children.append(child)
    setup = 0.0
    for _ in children:
        message = queue.get(timeout=1800)
        if "error" in message:
            raise RuntimeError(f"a client process failed: {message['error']}")
        setup = max(setup, message["ready"])
    origin = time.monotonic() + 0.5
    start_value.value = origin
    go.set()
    phases = [(n, origin + a, origin + b, r) for n, a, b, r in phases]
    samples: dict[str, tuple[harness.ProcSample, harness.ProcSample]] = {}
    for name, start, end, _ in phases:
        time.sleep(max(0.0, start - time.monotonic()))
        before = harness.sample(pid) if pid else None
        spy = None
        if profile and name == phases[0][0] and pid:
            spy = subprocess.Popen(
                [
                    args.py_spy,
                    "record",
                    "--pid",
                    str(pid),
                    "--duration",
                    str(int(args.duration)),
                    "--format",
                    _profile_format(profile),
                    "--output",
                    profile,
                    "--nonblocking",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        time.sleep(max(0.0, end - time.monotonic()))
        after = harness.sample(pid) if pid else None
        if before and after:
            samples[name] = (before, after)
        if spy is not None:
            with contextlib.suppress(Exception):
                spy.wait(30)
    results = [queue.get(timeout=600) for _ in children]
    for child in children:
        child.join(10)
    failed = [r["error"] for r in results if "error" in r]
    if failed:
        raise RuntimeError(f"a client process failed: {failed[0]}")
    figures = {}
    timed: dict[str, list[TimedMove]] = {}
    for name, _, _, _ in phases:
        parts = [r["phases"][name] for r in results]
        timed[name] = [move for p in parts for move in p["timed"]]
        sent = sum(p["sent"] for p in parts)
        received = sum(p["received"] for p in parts)
        moves = sum(p["moves"] for p in parts)
        latencies = [latency for _, _, _, latency in timed[name]]
        spread = harness.tail_spread([(sent, latency) for _, _, sent, latency in timed[name]])
        cpu = rss = 0.0
        if name in samples:
            before, after = samples[name]
            cpu = harness.cpu_percent(before, after)
            rss = after.rss_bytes / 2**20
        figures[name] = PhaseFigures(
            moves_s=moves / args.duration,
            frames_s=(sent + received) / args.duration,
            p50_ms=harness.percentile(latencies, 50) * 1000,
            p99_ms=harness.percentile(latencies, 99) * 1000,
            cpu_pct=cpu,
            rss_mb=rss,
            errors=sum(p["errors"] for p in parts),
            restarts=sum(p["restarts"] for p in parts),
            client_cpu_pct=100.0 * sum(p["cpu_s"] for p in parts) / args.duration,
            slow_windows=spread.windows_hit,
            windows=spread.windows,
            p99_per_second_ms=spread.per_second_p99_median * 1000,
        )
    return figures, setup, timed


def _print_stages(path: Path, timed: dict[str, list[TimedMove]]) -> None:
    """Print the server's stage report and, per phase, where the client's latency went."""
    # imported here: it wraps the server's code, which the client processes need not load
    from bench.stages import split_latency

    _print_block("inside the server, ms (all phases)", path.read_text())
    moves_file = Path(f"{path}.moves")
    if not moves_file.exists():
        print(f"  no {moves_file}: the server wrote no per-move times (did it crash?)")
        return
    for name, moves in timed.items():
        _print_block(
            f"where the client's latency went, ms ({name} phase)", split_latency(moves_file, moves)
        )


def _print_block(title: str, text: str) -> None:
    print(f"  {title}:\n    " + text.strip().replace("\n", "\n    "))


def _ratios(b: PhaseFigures, e: PhaseFigures) -> dict[str, float]:
    """boardhall / echo for frames/s, p99 and frames per CPU-second (0 where the echo has 0)."""
    return {
        "frames": b.frames_s / e.frames_s if e.frames_s else 0.0,
        "p99": b.p99_ms / e.p99_ms if e.p99_ms else 0.0,
        "p99_per_second": (
            b.p99_per_second_ms / e.p99_per_second_ms if e.p99_per_second_ms else 0.0
        ),
        "frames_per_cpu": b.frames_per_cpu_s / e.frames_per_cpu_s if e.frames_per_cpu_s else 0.0,
    }


def _print_ratios(what: str, ratios: dict[str, float]) -> None:
    print(
        f"  {what}: frames/s {ratios['frames']:.2f}  p99 {ratios['p99']:.2f} (per-second "
        f"median {ratios['p99_per_second']:.2f})  frames per cpu-second "
        f"{ratios['frames_per_cpu']:.2f}"
    )


CLIENT_BOUND_PCT = 95.0
"""A load client process this busy (in % of one core) is what sets a phase's pace."""


def client_bound(f: PhaseFigures, procs: int) -> bool:
    """Whether the load clients, not the target, limited this phase: each of the ``procs``
    client processes was busy at least :data:`CLIENT_BOUND_PCT` % of the time."""
    return f.client_cpu_pct >= CLIENT_BOUND_PCT * procs


def _print(label: str, name: str, f: PhaseFigures, procs: int = 1) -> None:
    print(
        f"  {label:12} {name:5} moves/s {f.moves_s:9.1f}  frames/s {f.frames_s:9.1f}  "
        f"p50 {f.p50_ms:7.1f} ms  p99 {f.p99_ms:7.1f} ms  cpu {f.cpu_pct:5.1f}%  "
        f"rss {f.rss_mb:7.1f} MB  frames/cpu-s {f.frames_per_cpu_s:8.0f}  "
        f"clients' cpu {f.client_cpu_pct:5.1f}%  "
        f"errors {f.errors} restarts {f.restarts}  "
        f"slowest 1 % in {f.slow_windows}/{f.windows} 100-ms windows, "
        f"per-second p99 median {f.p99_per_second_ms:.1f} ms"
    )
    if client_bound(f, procs):
        print(
            f"  {'':12} {name:5} the load client was busy {f.client_cpu_pct / procs:.1f} % of "
            f"the time: this is the client's limit, not the {label} server's, and it moves "
            "from run to run"
        )


def build_parser() -> argparse.ArgumentParser:
    """Command-line flags."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add = parser.add_argument
    add("--games", type=whole(1), default=100, help="games played at once")
    add("--spectators", type=whole(0), default=100, help="spectators, spread over the games")
    add(
        "--rate",
        type=bounded(float, "moves per second above 0", 0.0, above=True),
        default=200.0,
        help="total moves/s of the steady phase",
    )
    add(
        "--duration",
        type=bounded(float, "seconds above 0", 0.0, above=True),
        default=8.0,
        help="seconds measured per phase",
    )
    add(
        "--warmup",
        type=bounded(float, "0 or more seconds", 0.0),
        default=3.0,
        help="seconds before each measured window",
    )
    add(
        "--phases",
        type=names(("full", "rate"), "phases"),
        default="full,rate",
        help="phases in order: full and/or rate",
    )
    add("--procs", type=whole(1), default=1, help="client processes")
    add("--url", default=None, help="target a running server instead of starting one")
    add("--server-args", default="", help="extra boardhall-server flags, e.g. '--sync normal'")
    add("--no-echo", action="store_true", help="skip the echo (and relay) comparisons")
    add(
        "--loop",
        default="auto",
        choices=["auto", "asyncio", "uvloop"],
        help="the server's --loop (auto: uvloop when installed, as boardhall-server does)",
    )
    add(
        "--echo-loops",
        type=names(LOOPS, "loops installed here", empty=True),
        default=",".join(LOOPS),
        help="loops to run the echo on, each measured and compared (default: both if installed)",
    )
    add(
        "--relay-loops",
        type=names(LOOPS, "loops installed here", empty=True),
        default="",
        help="also measure echo_server.py --relay (boardhall's fan-out with no game or storage: "
        "the floor under boardhall's latency) on these loops, e.g. 'uvloop' (default: none)",
    )
    add("--client-uvloop", action="store_true", help="client processes on uvloop")
    add(
        "--profile",
        default=None,
        help="py-spy output file for the first phase of the first round (.svg, .json, or .txt "
        "for raw stacks)",
    )
    add(
        "--rounds",
        type=whole(1),
        default=1,
        help="run boardhall and the echoes this many times, alternating, and print each "
        "ratio's median (p99 moves a lot from run to run on a shared machine)",
    )
    add(
        "--stages",
        default=None,
        help="write where each move's time went inside the server (bench/stages.py) to this "
        "file, and print it after each round with each move's client latency split into its "
        "way to the server, its time inside, and its way to the opponent",
    )
    add("--seed", type=int, default=1, help="seed of the scripted games")
    add(
        "--mix",
        type=names(GAMES, "games"),
        default=",".join(GAMES),
        help="games to play, comma-separated (default all five)",
    )
    add("--json", default=None, help="also write the figures to this JSON file")
    return parser


def _one_round(
    args: argparse.Namespace,
    scripts: list[Script],
    clocks: list[dict[str, int] | None],
    spectators: list[int],
    profile: str | None,
) -> dict[str, Any]:
    """boardhall, then each echo of ``--echo-loops`` and relay of ``--relay-loops``, one after
    the other; prints and returns their figures and the ratios."""
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        server = None
        if args.url:
            url, pid = args.url, None
        else:
            server = harness.boardhall(
                Path(tmp) / "load.db",
                # a long setup must not abort the first rooms before their first move
                extra=[
                    "--abort-after",
                    "86400",
                    "--loop",
                    args.loop,
                    *shlex.split(args.server_args),
                ],
                wrapper=True,
            )
            server.start()
            url, pid = server.url, server.pid
        try:
            base = harness.sample(pid).rss_bytes / 2**20 if pid else 0.0
            figures, setup, timed = run_target(
                url, pid, "boardhall", args, scripts, clocks, spectators, profile
            )
            peak = harness.sample(pid).hwm_bytes / 2**20 if pid else 0.0
        finally:
            if server is not None:
                server.stop()
        print(f"  boardhall: setup {setup:.1f} s, rss at start {base:.1f} MB, peak {peak:.1f} MB")
        if args.stages and server is not None:
            _print_stages(Path(args.stages), timed)
        for name, f in figures.items():
            _print("boardhall", name, f, args.procs)
        report["boardhall"] = {k: vars(v) for k, v in figures.items()}
        report["boardhall_peak_mb"] = peak
        if not args.no_echo and not args.url:
            yardsticks = [("echo", loop) for loop in args.echo_loops]
            yardsticks += [("relay", loop) for loop in args.relay_loops]
            for kind, loop in yardsticks:
                label = kind if loop == "asyncio" else f"{kind}-{loop}"
                yardstick = harness.echo(loop == "uvloop", relay=kind == "relay").start()
                try:
                    echoed, _, _ = run_target(
                        yardstick.url, yardstick.pid, kind, args, scripts, clocks, spectators
                    )
                finally:
                    yardstick.stop()
                for name, f in echoed.items():
                    _print(label, name, f, args.procs)
                report[label] = {k: vars(v) for k, v in echoed.items()}
                for name in figures:
                    ratios = _ratios(figures[name], echoed[name])
                    _print_ratios(f"ratio {name:5} boardhall/{label}", ratios)
                    report.setdefault("ratios", {}).setdefault(label, {})[name] = ratios
    return report


def _median_ratios(rounds: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, float]]]:
    """Each ratio's median over the rounds, per echo and phase."""
    found: dict[str, dict[str, dict[str, float]]] = {}
    for label, by_phase in rounds[0].get("ratios", {}).items():
        for name, ratios in by_phase.items():
            found.setdefault(label, {})[name] = {
                key: statistics.median(r["ratios"][label][name][key] for r in rounds)
                for key in ratios
            }
    return found


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the figures."""
    parser = build_parser()
    args = parser.parse_args(argv)
    args.py_spy = find_py_spy() if args.profile else None
    if args.profile and not args.py_spy:
        parser.error("--profile needs py-spy (pip install py-spy) on PATH or beside this Python")
    if args.stages:
        os.environ["BENCH_STAGES"] = str(Path(args.stages).resolve())  # read by gc_server.py
    harness.exit_on_sigterm()
    limit = harness.raise_fd_limit()
    began = time.monotonic()
    scripts_by_game = library(per_game=4, seed=args.seed)
    rng = random.Random(args.seed)
    mix: list[str] = args.mix
    scripts = [scripts_by_game[mix[i % len(mix)]][rng.randrange(4)] for i in range(args.games)]
    clocks = [CLOCKS[i % len(CLOCKS)] for i in range(args.games)]
    spectators = [args.spectators // args.games] * args.games
    for i in range(args.spectators % args.games):
        spectators[i] += 1
    connections = 2 * args.games + args.spectators
    print(
        f"boardhall load: {args.games} games ({', '.join(mix)}), {args.spectators} spectators, "
        f"{connections} connections, phases {','.join(args.phases)} ({args.duration:g} s each, "
        f"rate phase {args.rate:g} moves/s), {args.procs} client process(es), "
        f"server loop {args.loop}, client uvloop {args.client_uvloop}, "
        f"server flags {args.server_args or '-'}, "
        f"nofile {limit}, cpus {os.cpu_count()}, load average {os.getloadavg()[0]:.1f}"
    )
    report: dict[str, Any] = {"args": vars(args), "rounds": []}
    for number in range(1, args.rounds + 1):
        if args.rounds > 1:
            print(f" round {number} of {args.rounds} (load average {os.getloadavg()[0]:.1f})")
        found = _one_round(args, scripts, clocks, spectators, args.profile if number == 1 else None)
        report["rounds"].append(found)
        if number == 1:
            report.update(found)  # the first round's figures at the top, as with one round
    if args.rounds > 1:
        report["median_ratios"] = _median_ratios(report["rounds"])
        for label, by_phase in report["median_ratios"].items():
            for name, ratios in by_phase.items():
                _print_ratios(f"median of {args.rounds} rounds, {name:5} boardhall/{label}", ratios)
    judged = targets.verdicts(report)
    report["targets"] = [vars(verdict) for verdict in judged]
    if judged:
        print(" targets (" + ("medians of the rounds" if args.rounds > 1 else "one round") + "):")
        for verdict in judged:
            print(f"  {verdict.line()}")
    print(
        f"  wall time {time.monotonic() - began:.0f} s, load average now "
        f"{os.getloadavg()[0]:.1f} (the machine's 2 cores are shared)"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
