"""Soak under faults: scripted games while connections drop, the server is SIGKILLed, readers stall
(and, if asked, its disk refuses writes).

Tables of scripted players (all five games, Fischer clocks) play while a chaos task drops random
player and spectator connections (clean closes and aborted sockets; each comes back with ``hello``
and its token), slow readers join rooms and never read a byte, and the server is killed with
SIGKILL and restarted on the same database mid-game. Afterwards:

* every game in the database replays through its engine to the position the clients saw last,
  and its stored moves are exactly the moves the clients saw (none lost, none duplicated; every
  move a mover saw accepted is stored);
* every stored clock charge is within 100 ms of what the clients' move timestamps imply
  (``elapsed - lag_ms - increment``), and a move right after a restart is not charged the downtime;
* the server's memory after the clients leave and a ``gc.collect()`` is within 10 % of its
  baseline (taken on the restarted process after a warm-up game of each kind);
* with ``--disk-faults N``: N times, at seeded random moments, the server's disk refuses every
  write for ``--disk-fault-seconds`` (its ``RLIMIT_FSIZE`` lowered to 0: ``bench/diskfault.py``);
  each spell must make ``/healthz`` answer 503 ``storage_failing`` with ``/metrics``
  ``boardhall_storage_failing 1``, then, once the disk is back, both must say it writes again
  and its log must tell both; no move sent during the spell may reach a client before the disk
  is back. The moves held meanwhile are checked like any other (none lost, none doubled), and
  the turn after a held move is checked from when the held moves went out, as README says it
  starts only when the move is delivered.

Run: ``python bench/soak.py`` (about a minute); bigger: ``--tables 200 --rounds 3 --restarts 2``;
with disk faults: ``--disk-faults 4``.
Exits 1 and lists the violations when any check fails.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import gc
import json
import os
import random
import signal
import sqlite3
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from bench import diskfault, harness
from bench.scripts import GAMES, Script, playout, replay
from server import gcpolicy
from server.flags import bounded, names, whole

CLOCK = {"initial": 900, "increment": 1}
CLOCK_TOLERANCE_MS = 100
MEMORY_TOLERANCE = 0.10
KINDS = (
    "session",
    "seen",
    "stored",
    "replay",
    "clock",
    "restart_clock",
    "settle",
    "memory",
    "stalled",
    "disk_fault",
)
"""Kinds of violation: each is one of the properties checked."""


@dataclass
class SoakConfig:
    """The size and the faults of one soak run."""

    tables: int = 30
    """Games played at once."""
    rounds: int = 1
    """Games each table plays one after the other."""
    spectators: int = 1
    """Spectators per table."""
    plies: int = 60
    """Longest script (a script that does not end the game is resigned)."""
    think: tuple[float, float] = (0.02, 0.08)
    """Seconds a player waits before each move (pacing)."""
    drop_every: float = 0.1
    """Seconds between two dropped connections (0: none)."""
    restarts: int = 1
    """SIGKILL + restart of the server, spread over the run."""
    slow_readers: int = 6
    """Connections that join rooms as spectators and never read."""
    seed: int = 1
    games: tuple[str, ...] = GAMES
    """The games the tables play, in turn."""
    timed: bool = True
    """Fischer clocks (checked against the timestamps); untimed rooms otherwise."""
    timeout: float = 600.0
    """Seconds the tables get to play all their games; a table still playing then is reported
    as stalled, with what its clients and the server saw."""
    disk_faults: int = 0
    """Spells in which the server's disk refuses every write (its ``RLIMIT_FSIZE`` lowered to 0),
    begun at seeded random moments of the run. Every second one, while restarts are left, is
    overtaken halfway by the next SIGKILL + restart (taken early for it)."""
    disk_fault_seconds: float = 1.5
    """How long each spell lasts before the old limit is given back."""


@dataclass
class GameSeen:
    """One game as the clients saw it."""

    game_id: str
    game: str
    variant: str
    moves: list[str] = field(default_factory=list)
    positions: list[str] = field(default_factory=list)
    accepted: dict[int, str] = field(default_factory=dict)
    sends: dict[int, list[float]] = field(default_factory=dict)
    delivered: dict[int, float] = field(default_factory=dict)
    """When a client of the table first heard of each ply (a ``moved``)."""
    final: str | None = None
    over: bool = False


@dataclass
class SoakReport:
    """What a soak run did and found."""

    games: int = 0
    moves: int = 0
    drops: int = 0
    reconnects: int = 0
    restarts: int = 0
    slow_readers: int = 0
    clock_checked: int = 0
    clock_max_dev_ms: float = 0.0
    restart_moves: int = 0
    restart_before_ms: float = 0.0
    """Over the moves across a restart: the time their turns ran before the kill."""
    restart_charged_before_ms: float = 0.0
    """Of it, what the restarted server charged (up to its last stamp that it was alive)."""
    forgotten: int = 0
    """Hellos refused as bad_token for an identity the server never confirmed keeping (it had
    only said hello when its connection dropped or the server was killed): a new one is taken."""
    rejoined_ended: int = 0
    """Games that ended while a player was away, whose end it saw on joining the room again."""
    from_records: int = 0
    """Games whose end the clients learnt from the record (their room had closed)."""
    baseline_mb: float = 0.0
    after_mb: float = 0.0
    baseline_trim_mb: float = 0.0
    after_trim_mb: float = 0.0
    parts: dict[str, dict[str, int]] = field(default_factory=dict)
    """RssAnon/RssFile/RssShmem at the baseline and after."""
    first_peak_mb: float = 0.0
    disk_faults: int = 0
    """Spells of a disk that refuses writes, begun."""
    disk_faults_failing: int = 0
    """Of them, those the server answered with ``storage_failing`` (``/healthz`` 503 and
    ``boardhall_storage_failing 1``)."""
    disk_faults_resumed: int = 0
    """Of them, those after which the server wrote again (``/healthz`` ok again and
    ``boardhall_storage_failing 0``)."""
    disk_faults_cut: int = 0
    """Spells a SIGKILL + restart cut short (the restarted process writes freely)."""
    held_writes_most: int = 0
    """The most writes ``/healthz`` said were held at once."""
    held_turns: int = 0
    """Clock charges checked from the delivery of the move before (it was held by a fault)."""
    held_max_dev_ms: float = 0.0
    """The largest deviation among those (included in :attr:`clock_max_dev_ms`)."""
    storage_log: dict[str, int] = field(default_factory=dict)
    """Lines of the server's log about failing storage, by what they say."""
    seconds: float = 0.0
    violations: list[str] = field(default_factory=list)

    def of(self, kind: str) -> list[str]:
        """The violations of one kind."""
        return [v for v in self.violations if v.startswith(kind + ": ")]

    def _disk_fault_line(self) -> str:
        return (
            f"disk faults: {self.disk_faults} begun, {self.disk_faults_failing} made the storage "
            f"fail, {self.disk_faults_resumed} then written again, {self.disk_faults_cut} cut "
            f"short by a restart; most writes held {self.held_writes_most}; {self.held_turns} "
            f"turns after a held move checked from its delivery (largest deviation "
            f"{self.held_max_dev_ms:.1f} ms); server log: "
            + (", ".join(f"{k} {v}" for k, v in sorted(self.storage_log.items())) or "-")
        )

    def lines(self) -> list[str]:
        """Human-readable figures."""
        growth = (self.after_mb / self.baseline_mb - 1) * 100 if self.baseline_mb else 0.0
        base = self.baseline_trim_mb
        trimmed = (self.after_trim_mb / base - 1) * 100 if base else 0.0
        return [
            f"games {self.games}, moves {self.moves}, dropped connections {self.drops}, "
            f"reconnects {self.reconnects}, server restarts (SIGKILL) {self.restarts}, "
            f"slow readers {self.slow_readers}, identities never kept and taken anew "
            f"{self.forgotten}, {self.seconds:.1f} s",
            f"clocks: {self.clock_checked} move charges checked, largest deviation "
            f"{self.clock_max_dev_ms:.1f} ms (limit {CLOCK_TOLERANCE_MS}); {self.restart_moves} "
            f"moves across a restart charged neither the downtime nor less than the time "
            f"since the server was back, and {self.restart_charged_before_ms / 1000:.1f} s of "
            f"the {self.restart_before_ms / 1000:.1f} s their turns ran before the kill",
            f"games that ended while a player was away: {self.rejoined_ended} seen on joining "
            f"the room again, {self.from_records} from the record (the room had closed)",
            f"memory: baseline {self.baseline_mb:.1f} MB, after clients left + gc "
            f"{self.after_mb:.1f} MB ({growth:+.1f} %, limit +{MEMORY_TOLERANCE * 100:.0f} %); "
            f"after malloc_trim too: baseline {self.baseline_trim_mb:.1f} MB, after "
            f"{self.after_trim_mb:.1f} MB ({trimmed:+.1f} %); first process peak "
            f"{self.first_peak_mb:.1f} MB",
            "memory parts (MB): "
            + "; ".join(
                f"{when} " + ", ".join(f"{k} {v / 2**20:.1f}" for k, v in parts.items())
                for when, parts in self.parts.items()
            ),
            *([self._disk_fault_line()] if self.disk_faults else []),
            f"violations: {len(self.violations)}",
            *(f"  - {v}" for v in self.violations[:30]),
        ]


class Peer:
    """A reconnecting client: a player seat or a spectator of one table."""

    def __init__(self, soak: Soak, table: Table, role: str, name: str) -> None:
        self.soak = soak
        self.table = table
        self.role = role
        self.name = name
        self.token: str | None = None
        self.ws: ClientConnection | None = None
        self.up = asyncio.Event()
        self.seated = False
        self.kept = False
        """The server has confirmed a seat or a watched room, so it keeps this identity (one
        that only said hello is forgotten when it disconnects: its token is then bad_token)."""

    async def run(self) -> None:
        """Stay connected until the soak ends, coming back after every drop."""
        soak = self.soak
        while not soak.finished:
            await soak.gate.wait()
            try:
                ws = await connect(
                    soak.url, compression=None, max_size=None, open_timeout=10, close_timeout=1
                )
            except (OSError, InvalidHandshake, TimeoutError):
                await asyncio.sleep(0.1)
                continue
            try:
                await self._session(ws)
            except (ConnectionClosed, OSError, TimeoutError):
                pass
            finally:
                self.up.clear()
                self.ws = None
                with contextlib.suppress(Exception):
                    await ws.close()
            if soak.finished:
                return
            soak.report.reconnects += 1
            await asyncio.sleep(soak.rng.uniform(0.02, 0.2))

    async def _session(self, ws: ClientConnection) -> None:
        hello: dict[str, Any] = {"type": "hello", "name": self.name, "protocol": 1, "id": "h"}
        if self.token:
            hello["token"] = self.token
        await ws.send(json.dumps(hello))
        async with asyncio.timeout(10):
            while True:
                data = json.loads(await ws.recv())
                if data.get("re") == "h":
                    break
                self.table.on_frame(self, data)
        if data.get("type") != "welcome":
            if not self.kept and data.get("code") == "bad_token":
                self.token = None  # never kept: a new identity, as the client takes one
                self.soak.report.forgotten += 1
                return
            self.soak.violation("session", f"{self.name}: hello with its token got {data}")
            return
        self.token = data["token"]
        table = self.table
        if self.role == "spectator" and table.room:
            await ws.send(json.dumps({"type": "join", "room": table.room, "role": "spectator"}))
        ended_away = None
        if self.role != "spectator":
            game = table.current
            on = self.seated and game is not None and not game.over
            if on and table.room not in data["resumed"]:
                ended_away = game  # or the server lost it: learn_end tells which
            for code in data["resumed"]:
                if code != table.room:  # created, but the reply was lost with the connection
                    await ws.send(json.dumps({"type": "leave", "room": code}))
        self.ws = ws
        self.up.set()
        if ended_away is not None:
            self.soak.spawn(table.learn_end(self, ended_away))
        async for frame in ws:
            table.on_frame(self, json.loads(frame))

    async def request(self, data: dict[str, Any], key: str, timeout: float = 10.0) -> Any:
        """Send with id ``key`` and wait for its reply (``None`` when the connection dropped)."""
        future = self.table.expect(key)
        ws = self.ws
        if ws is None:
            return None
        try:
            await ws.send(json.dumps({**data, "id": key}))
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except (ConnectionClosed, TimeoutError):
            # let the reader see the close (and clear ``up``) before the caller tries again
            await asyncio.sleep(0.05)
            return None


def _ended(reply: Any) -> bool:
    """Whether a reply says the game the client thought was on has ended."""
    return (
        isinstance(reply, dict)
        and reply.get("type") == "error"
        and reply.get("code") in ("game_over", "unknown_room")
    )


class Table:
    """Two seats and spectators playing ``rounds`` scripted games in successive rooms."""

    def __init__(self, soak: Soak, index: int, scripts: list[Script]) -> None:
        self.soak = soak
        self.index = index
        self.scripts = scripts
        self.script = scripts[0]
        self.players = {
            side: Peer(soak, self, side, f"t{index}{side[0]}") for side in ("first", "second")
        }
        self.watchers = [
            Peer(soak, self, "spectator", f"t{index}w{i}") for i in range(soak.config.spectators)
        ]
        self.room = ""
        self.current: GameSeen | None = None
        self.games: list[GameSeen] = []
        self.changed = asyncio.Event()
        self.replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.last_reply: Any = None
        """The reply to this table's last resignation (what a stall report shows)."""
        self.asked = 0
        """Requests this table made that need a key of their own."""

    def peers(self) -> list[Peer]:
        """Every client of this table."""
        return [*self.players.values(), *self.watchers]

    def expect(self, key: str) -> asyncio.Future[dict[str, Any]]:
        """A future for the reply carrying ``re`` = ``key``."""
        future = self.replies.get(key)
        if future is None or future.done():
            future = asyncio.get_running_loop().create_future()
            self.replies[key] = future
        return future

    def on_frame(self, peer: Peer, data: dict[str, Any]) -> None:
        """Fold one server frame into what the clients saw."""
        re = data.get("re")
        if isinstance(re, str):
            future = self.replies.pop(re, None)
            if future is not None and not future.done():
                future.set_result(data)
        game = self.current
        kind = data.get("type")
        if kind == "room" and peer.role == "spectator" and data.get("you") is None:
            peer.kept = True
        if game is None or data.get("room") != self.room:
            return
        if kind == "moved":
            ply, move = data["ply"], data["move"]
            game.delivered.setdefault(ply, time.monotonic())
            if ply == len(game.moves):
                game.moves.append(move)
                game.positions.append(data["position"])
            elif ply < len(game.moves):
                if game.moves[ply] != move:
                    self.soak.violation(
                        "seen", f"{game.game_id} ply {ply}: {move} after {game.moves[ply]}"
                    )
            else:
                self.soak.violation(
                    "seen", f"{game.game_id}: moved ply {ply} with {len(game.moves)} seen"
                )
            if re is not None:
                game.accepted[ply] = move
        elif kind == "room" and data.get("game_id") == game.game_id:
            moves = list(data["moves"])
            known = game.moves[: len(moves)]
            if moves[: len(known)] != known:
                self.soak.violation(
                    "seen", f"{game.game_id}: snapshot {moves} contradicts {game.moves}"
                )
            if len(moves) > len(game.moves):
                game.positions.extend([""] * (len(moves) - len(game.moves) - 1))
                game.positions.append(data["position"])
                game.moves = moves
            if data["status"] == "over":
                game.over = True
                game.final = data["position"]
        elif kind == "over" and data.get("game_id") == game.game_id:
            game.over = True
            game.final = data["position"]
        self.changed.set()

    async def learn_end(self, peer: Peer, game: GameSeen) -> None:
        """``game`` is on as far as this table's clients know, but the server says it is not
        (it is missing from ``welcome.resumed``, or a move got ``game_over`` or
        ``unknown_room``): it ended while they were away. Join the room again, as the client
        does after a reconnect, and see its end; when the room has closed (finished rooms are
        not restored after a restart) read the game's record instead. A game that is still on,
        or a record without an end, is a violation."""
        if game.over or game is not self.current:
            return
        self.asked += 1
        reply = await peer.request({"type": "join", "room": self.room}, f"e{self.asked}")
        if game.over:
            self.soak.report.rejoined_ended += 1
            return
        if reply is None:  # dropped again: asked again after the next welcome
            return
        if reply.get("type") == "room" and reply.get("game_id") == game.game_id:
            self.soak.violation(
                "session",
                f"{peer.name}: {game.game_id} is {reply.get('status')} on the server "
                "but was not resumed",
            )
            return
        if reply.get("code") != "unknown_room":
            self.soak.violation("session", f"{peer.name}: joining again got {reply}")
            return
        record = await self.soak.http_json(f"/games/{game.game_id}?format=json")
        if record.get("reason") is None:
            self.soak.violation(
                "session", f"{peer.name}: {game.game_id} has no room and its record no end"
            )
            return
        moves = [m["move"] for m in record["moves"]]
        if moves[: len(game.moves)] != game.moves:
            self.soak.violation("seen", f"{game.game_id}: record {moves} contradicts {game.moves}")
        self.soak.report.from_records += 1
        game.moves = moves
        game.final = replay(record["game"], record["variant"], record["start"], moves)
        game.over = True
        self.changed.set()

    async def leave_finished(self) -> None:
        """The players and the spectators leave the finished room, as the client does on its way
        to the lobby (a room everyone has left closes at once; one its players only dropped
        waits for them). A spectator that is not connected has no room to leave."""
        for peer in self.peers():
            for _ in range(20):
                if peer.role == "spectator" and not peer.up.is_set():
                    break
                await peer.up.wait()
                self.asked += 1
                reply = await peer.request({"type": "leave", "room": self.room}, f"l{self.asked}")
                if reply is not None:
                    break

    async def _wait_change(self, timeout: float) -> None:
        self.changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.changed.wait(), timeout)

    async def _open(self, script: Script) -> None:
        first, second = self.players["first"], self.players["second"]
        while True:
            await first.up.wait()
            key = f"c{self.index}-{len(self.games)}"
            create: dict[str, Any] = {
                "type": "create",
                "game": script.game,
                "variant": script.variant,
                "color": "first",
            }
            if self.soak.config.timed:
                create["clock"] = CLOCK
            created = await first.request(create, key)
            if created is None:
                continue
            if created.get("type") != "room":
                self.soak.violation("session", f"table {self.index}: create got {created}")
                return
            self.room = created["room"]
            first.seated = second.seated = False
            first.seated = first.kept = True
            self.current = GameSeen(created["game_id"], script.game, script.variant)
            self.games.append(self.current)
            break
        while True:
            await second.up.wait()
            joined = await second.request(
                {"type": "join", "room": self.room}, f"j{self.index}-{len(self.games)}"
            )
            if joined is None:
                continue
            if joined.get("type") == "room" and joined.get("you") == "second":
                second.seated = second.kept = True
                break
            if joined.get("type") == "error" and joined.get("code") == "room_full":
                # the first join was accepted; its reply was lost
                second.seated = second.kept = True
                break
            self.soak.violation("session", f"table {self.index}: join got {joined}")
            return
        for watcher in self.watchers:
            if watcher.ws is not None:
                with contextlib.suppress(ConnectionClosed):
                    await watcher.ws.send(
                        json.dumps({"type": "join", "room": self.room, "role": "spectator"})
                    )

    async def play(self) -> None:
        """Play every round's script to its end (resigning a script that does not end the game)."""
        soak = self.soak
        for script in self.scripts:
            self.script = script
            await self._open(script)
            game = self.current
            assert game is not None
            while not game.over:
                n = len(game.moves)
                if n >= len(script.moves):
                    first = self.players["first"]
                    await first.up.wait()
                    self.last_reply = await first.request(
                        {"type": "resign", "room": self.room}, f"r{game.game_id}"
                    )
                    if _ended(self.last_reply):
                        await self.learn_end(first, game)
                    await self._wait_change(1.0)
                    continue
                mover = self.players[script.sides[n]]
                await mover.up.wait()
                await asyncio.sleep(soak.rng.uniform(*soak.config.think))
                if len(game.moves) != n or mover.ws is None:
                    continue
                game.sends.setdefault(n, []).append(time.monotonic())
                move = {"type": "move", "room": self.room, "ply": n, "move": script.moves[n]}
                key = f"m{game.game_id}-{n}-{len(game.sends[n])}"
                reply = await mover.request(move, key, timeout=3.0)
                if _ended(reply):
                    await self.learn_end(mover, game)
                elif reply is not None and reply.get("type") == "error":
                    if reply.get("code") != "stale":
                        soak.violation("session", f"{game.game_id} ply {n}: {reply}")
                        return
                    await mover.request({"type": "join", "room": self.room}, f"s{key}")
                soak.progress += 1
                if not soak.slow_opened and soak.progress >= soak.total // 10:
                    soak.slow_opened = True
                    await soak.open_slow_readers()
                await soak.maybe_restart()
                soak.maybe_fault()
            await self.leave_finished()
            soak.report.games += 1


class Soak:
    """One soak run."""

    def __init__(self, config: SoakConfig, db: Path) -> None:
        self.config = config
        self.db = db
        self.rng = random.Random(config.seed)
        self.report = SoakReport()
        self.gate = asyncio.Event()
        self.gate.set()
        self.finished = False
        self.server: harness.Subprocess | None = None
        self.url = ""
        self.port = 0
        self.progress = 0
        self.total = 0
        self.restart_points: list[int] = []
        self.restart_windows: list[tuple[float, float]] = []
        self.restarting = False
        self.slow: list[asyncio.StreamWriter] = []
        self.slow_opened = False
        self.restored = 0
        self.tables: list[Table] = []
        self.fault_points: list[int] = []
        self.faults: list[Fault] = []
        self.fault_tasks: list[asyncio.Future[None]] = []
        self.faulting = False
        self.killed_at = 0.0
        """When the server was last SIGKILLed."""

    def violation(self, kind: str, text: str) -> None:
        """Record a failed check of ``kind`` (see :data:`KINDS`)."""
        self.report.violations.append(f"{kind}: {text}")

    async def start_server(self, port: int = 0) -> None:
        """Start ``boardhall-server`` (under the gc wrapper) on ``port`` with the soak database."""
        faults = self.config.disk_faults > 0
        server = harness.boardhall(
            self.db,
            port=port,
            wrapper=True,
            extra=["--log-level", "warning"] if faults else None,  # "storage writes again"
            on_stderr=self._log_line if faults else None,
        )
        await asyncio.to_thread(server.start)
        self.server, self.url, self.port = server, server.url, server.port
        self.restored = int((await self.health())["rooms"])

    async def maybe_restart(self, now: bool = False) -> None:
        """SIGKILL and restart the server when the run reaches the next restart point (``now``:
        take the next restart at once, if any is left)."""
        if not self.restart_points or self.restarting:
            return
        if not now and self.progress < self.restart_points[0]:
            return
        self.restart_points.pop(0)
        self.restarting = True
        try:
            await self._restart()
        finally:
            self.restarting = False

    async def _restart(self) -> None:
        assert self.server is not None
        self.gate.clear()
        self.report.first_peak_mb = max(
            self.report.first_peak_mb, harness.sample(self.server.pid).hwm_bytes / 2**20
        )
        killed = self.killed_at = time.monotonic()
        self.server.kill()
        for writer in self.slow:
            writer.close()
        self.slow.clear()
        await self.start_server(self.port)
        listening = time.monotonic()
        self.restart_windows.append((killed, listening))
        self.report.restarts += 1
        await self.measure_baseline()
        self.gate.set()
        await self.open_slow_readers()

    def _log_line(self, line: str) -> None:
        """Count a server log line about failing storage (on the pipe's reading thread)."""
        kind = diskfault.storage_log_kind(line)
        if kind is not None:
            log = self.report.storage_log
            log[kind] = log.get(kind, 0) + 1

    def maybe_fault(self) -> None:
        """Begin the next disk fault when the run reaches its point (not while another fault or a
        restart is on: it waits for the next move after them)."""
        if (
            not self.fault_points
            or self.progress < self.fault_points[0]
            or self.faulting
            or self.restarting
        ):
            return
        self.fault_points.pop(0)
        self.faulting = True
        self.fault_tasks.append(asyncio.ensure_future(self.disk_fault()))

    async def disk_fault(self) -> None:
        """Refuse the server's writes for ``disk_fault_seconds``, then give the disk back; check
        that it said ``storage_failing`` meanwhile and writes again after."""
        try:
            await self._disk_fault()
        finally:
            self.faulting = False

    async def _disk_fault(self) -> None:
        server, report = self.server, self.report
        assert server is not None
        try:
            before = diskfault.refuse_writes(server.pid)
        except ProcessLookupError:  # killed for a restart just now
            return
        fault = Fault(time.monotonic())  # every commit from now on fails
        self.faults.append(fault)
        report.disk_faults += 1
        number = report.disk_faults
        failing = False
        overtaken = number % 2 == 0 and bool(self.restart_points)
        while time.monotonic() < fault.began + self.config.disk_fault_seconds:
            failing = await self._storage_says_failing() or failing
            if overtaken and time.monotonic() >= fault.began + self.config.disk_fault_seconds / 2:
                overtaken = False
                await self.maybe_restart(now=True)
            await asyncio.sleep(0.05)
        if self.server is server and server.alive():
            with contextlib.suppress(ProcessLookupError):
                diskfault.allow_writes(server.pid, before)
                fault.restored = time.monotonic()
        else:
            fault.restored = self.killed_at
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.server is not server or not server.alive():
                report.disk_faults_cut += 1  # the restarted process writes freely
                fault.cut = True
                fault.restored = min(fault.restored, self.killed_at)
                fault.ended = self.killed_at
                report.disk_faults_failing += failing
                return
            status, body = await self.http_get("/healthz")
            if status == 200 and json.loads(body).get("status") == "ok":
                fault.ended = time.monotonic()
                break
            failing = await self._storage_says_failing() or failing
            await asyncio.sleep(0.05)
        report.disk_faults_failing += failing
        if not failing:
            self.violation(
                "disk_fault",
                f"fault {number}: the server never said storage_failing in "
                f"{self.config.disk_fault_seconds:g} s of refused writes",
            )
        if fault.ended == float("inf"):
            self.violation(
                "disk_fault", f"fault {number}: storage still failing 20 s after the disk was back"
            )
            return
        status, metrics = await self.http_get("/metrics")
        if diskfault.storage_failing(metrics) is not False:
            self.violation(
                "disk_fault", f"fault {number}: /healthz is ok but /metrics says storage failing"
            )
            return
        report.disk_faults_resumed += 1

    async def _storage_says_failing(self) -> bool:
        """Whether ``/healthz`` answers 503 ``storage_failing`` and ``/metrics`` agrees (False
        while the server is down)."""
        status, body = await self.http_get("/healthz")
        if status != 503:
            return False
        health = json.loads(body)
        if health.get("status") != "storage_failing":
            return False
        held = int(health.get("held_writes", 0))
        self.report.held_writes_most = max(self.report.held_writes_most, held)
        _, metrics = await self.http_get("/metrics")
        return diskfault.storage_failing(metrics) is True

    async def measure_baseline(self) -> None:
        """Warm the (re)started server, collect garbage, read RSS.

        The warm-up plays as many games at once as there are tables, each with the tables'
        spectators (fresh random games of the same kinds and length, no faults), so the baseline
        already holds what a server of this size keeps: allocator high water, SQLite's page
        cache, engine caches of a round's worth of positions. Growth past it after more rounds is
        what a leak would show (or a bounded cache still filling, as draughts' legal moves did
        at 4,096 positions: bench/README.md, twelfth session).
        """
        assert self.server is not None
        config = self.config
        scripts = [
            playout(config.games[t % len(config.games)], 500_000 + t, config.plies)
            for t in range(config.tables)
        ]
        await asyncio.gather(*(self._warm_game(script) for script in scripts))
        await self.settle(self.restored)
        self.report.baseline_mb = await self.collected_rss()
        self.report.baseline_trim_mb = await self.collected_rss(signal.SIGUSR2)
        self.report.parts["baseline"] = harness.rss_parts(self.server.pid)

    async def _warm_game(self, script: Script) -> None:
        a = await connect(self.url, compression=None)
        b = await connect(self.url, compression=None)
        watchers = [
            await connect(self.url, compression=None) for _ in range(self.config.spectators)
        ]

        async def ask(ws: ClientConnection, data: dict[str, Any]) -> dict[str, Any]:
            await ws.send(json.dumps({**data, "id": "w"}))
            while True:
                reply = json.loads(await ws.recv())
                if reply.get("re") == "w":
                    if reply.get("type") == "error":
                        raise RuntimeError(f"warm-up {data['type']} refused: {reply}")
                    return reply

        await ask(a, {"type": "hello", "name": "warm-a", "protocol": 1})
        await ask(b, {"type": "hello", "name": "warm-b", "protocol": 1})
        room = (await ask(a, {"type": "create", "game": script.game, "color": "first"}))["room"]
        await ask(b, {"type": "join", "room": room})
        for i, ws in enumerate(watchers):
            await ask(ws, {"type": "hello", "name": f"warm-w{i}", "protocol": 1})
            await ask(ws, {"type": "join", "room": room, "role": "spectator"})
        for ply, move in enumerate(script.moves):
            mover = a if script.sides[ply] == "first" else b
            await ask(mover, {"type": "move", "room": room, "ply": ply, "move": move})
        if not script.over:
            await ask(a, {"type": "resign", "room": room})
        for ws in (a, b, *watchers):  # as the client does on its way back to the lobby
            await ask(ws, {"type": "leave", "room": room})
        for ws in (a, b, *watchers):
            await ws.close()

    async def collected_rss(self, sig: signal.Signals = signal.SIGUSR1) -> float:
        """RSS (MB) of the server after a ``gc.collect()`` (SIGUSR1 to the wrapper; SIGUSR2:
        ``malloc_trim``)."""
        assert self.server is not None
        os.kill(self.server.pid, sig)
        await asyncio.sleep(0.5)
        return harness.sample(self.server.pid).rss_bytes / 2**20

    async def http_get(self, path: str) -> tuple[int, str]:
        """GET ``path``: the status and the body, whatever the status (0 and "" when the server
        cannot be reached, as while it restarts)."""
        url = f"http://127.0.0.1:{self.port}{path}"

        def get() -> tuple[int, str]:
            try:
                with urllib.request.urlopen(url, timeout=5) as response:
                    return response.status, response.read().decode()
            except urllib.error.HTTPError as error:
                return error.code, error.read().decode()
            except OSError:
                return 0, ""

        return await asyncio.to_thread(get)

    async def http_json(self, path: str) -> dict[str, Any]:
        """GET ``path`` from the server's HTTP side, as JSON."""
        url = f"http://127.0.0.1:{self.port}{path}"
        body = await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=5).read())
        found: dict[str, Any] = json.loads(body)
        return found

    async def health(self) -> dict[str, Any]:
        """The server's /healthz."""
        return await self.http_json("/healthz")

    async def settle(self, rooms: int = 0, timeout: float = 20.0) -> dict[str, Any]:
        """Wait until /healthz shows no connection and only ``rooms`` rooms left."""
        deadline = time.monotonic() + timeout
        health: dict[str, Any] = {}
        while time.monotonic() < deadline:
            health = await self.health()
            if health.get("connections") == 0 and health.get("rooms") == rooms:
                return health
            await asyncio.sleep(0.2)
        self.violation("settle", f"the server did not empty after the clients left: {health}")
        return health

    async def open_slow_readers(self) -> None:
        """Raw WebSocket clients that join busy rooms as spectators and never read again."""
        rooms = [t.room for t in self.tables if t.room]
        for i in range(self.config.slow_readers if rooms else 0):
            with contextlib.suppress(OSError):
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
                key = base64.b64encode(os.urandom(16)).decode()
                writer.write(
                    (
                        f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nUpgrade: websocket\r\n"
                        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                        "Sec-WebSocket-Version: 13\r\n\r\n"
                    ).encode()
                )
                await reader.readuntil(b"\r\n\r\n")
                writer.write(_frame({"type": "hello", "name": f"slow{i}", "protocol": 1}))
                for room in self.rng.sample(rooms, min(5, len(rooms))):
                    writer.write(_frame({"type": "join", "room": room, "role": "spectator"}))
                await writer.drain()
                self.slow.append(writer)
                self.report.slow_readers += 1

    async def chaos(self) -> None:
        """Drop a random connection every ``drop_every`` seconds (half clean, half aborted)."""
        if self.config.drop_every <= 0:
            return
        while not self.finished:
            await asyncio.sleep(self.config.drop_every)
            peers = [p for t in self.tables for p in t.peers() if p.ws is not None]
            if not peers or not self.gate.is_set():
                continue
            ws = self.rng.choice(peers).ws
            if ws is None:
                continue
            self.report.drops += 1
            if self.rng.random() < 0.5:
                ws.transport.abort()
            else:
                self.spawn(ws.close())

    def spawn(self, coro: Any) -> None:
        """Run ``coro`` in the background."""
        task = asyncio.ensure_future(coro)
        task.add_done_callback(lambda t: t.cancelled() or t.exception())

    async def run(self) -> SoakReport:
        """Play, fault, leave, then check the database, the clocks and the memory."""
        began = time.monotonic()
        config = self.config
        await self.start_server()
        per_game = [
            [
                playout(
                    config.games[(t + r) % len(config.games)],
                    config.seed * 7919 + t * 31 + r,
                    config.plies,
                )
                for r in range(config.rounds)
            ]
            for t in range(config.tables)
        ]
        self.tables = [Table(self, t, per_game[t]) for t in range(config.tables)]
        self.total = sum(len(s.moves) for scripts in per_game for s in scripts)
        self.restart_points = [
            self.total * (k + 1) // (config.restarts + 1) for k in range(config.restarts)
        ]
        faults = random.Random(f"disk faults {config.seed}")
        self.fault_points = sorted(
            faults.randint(self.total // 20, self.total * 9 // 10)
            for _ in range(config.disk_faults)
        )
        if config.restarts == 0:
            await self.measure_baseline()
        peers = [asyncio.ensure_future(p.run()) for t in self.tables for p in t.peers()]
        chaos = asyncio.ensure_future(self.chaos())
        plays = [asyncio.ensure_future(t.play()) for t in self.tables]
        try:
            done, pending = await asyncio.wait(plays, timeout=config.timeout)
            for task in done:
                task.result()
            for table, task in zip(self.tables, plays, strict=True):
                if task in pending:
                    self.violation("stalled", await self.describe_stall(table))
                    task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        finally:
            self.finished = True
            chaos.cancel()
            for writer in self.slow:
                writer.close()
            for table in self.tables:
                for peer in table.peers():
                    if peer.ws is not None:
                        with contextlib.suppress(Exception):
                            await peer.ws.close()
            for task in peers:
                task.cancel()
            await asyncio.gather(*peers, chaos, *self.fault_tasks, return_exceptions=True)
        await self.settle(rooms=len(self.report.of("stalled")))  # their games are still on
        self.report.after_mb = await self.collected_rss()
        self.report.after_trim_mb = await self.collected_rss(signal.SIGUSR2)
        assert self.server is not None
        self.report.parts["after"] = harness.rss_parts(self.server.pid)
        self.server.stop()
        self.report.seconds = time.monotonic() - began
        self.check_database()
        self.check_storage_log()
        if self.report.after_mb > self.report.baseline_mb * (1 + MEMORY_TOLERANCE):
            self.violation(
                "memory",
                f"memory after the clients left {self.report.after_mb:.1f} MB is over "
                f"{self.report.baseline_mb:.1f} MB + {MEMORY_TOLERANCE * 100:.0f} %",
            )
        return self.report

    async def describe_stall(self, table: Table) -> str:
        """What the clients of a table still playing saw, and what the server says of its game."""
        game = table.current
        seats = ", ".join(
            f"{p.name} up={p.up.is_set()} seated={p.seated}" for p in table.players.values()
        )
        text = (
            f"table {table.index} still playing after {self.config.timeout:g} s: room "
            f"{table.room or '-'}, script {table.script.game} of {len(table.script.moves)} moves, "
            f"clients saw {len(game.moves) if game else 0} moves "
            f"(over {game.over if game else '-'})"
            f"; {seats}; awaited replies {sorted(table.replies)}; last resignation's reply "
            f"{table.last_reply}"
        )
        if game is None:
            return text
        try:
            stored = await self.http_json(f"/games/{game.game_id}?format=json")
            return (
                f"{text}; server: result {stored.get('result')}, reason {stored.get('reason')}, "
                f"{len(stored.get('moves', []))} stored moves"
            )
        except (OSError, ValueError) as exc:
            return f"{text}; server: /games/{game.game_id} failed: {exc}"

    def check_storage_log(self) -> None:
        """The server logged each spell of failing storage, and its end (unless it was killed
        first)."""
        report = self.report
        failed = report.storage_log.get("failed", 0)
        again = report.storage_log.get("written again", 0)
        if failed < report.disk_faults_failing:
            self.violation(
                "disk_fault",
                f"the server logged {failed} storage failures for {report.disk_faults_failing} "
                "spells of failing storage",
            )
        if again < report.disk_faults_resumed:
            self.violation(
                "disk_fault",
                f"the server logged writing again {again} times after "
                f"{report.disk_faults_resumed} spells of failing storage ended",
            )

    def check_database(self) -> None:
        """Replay every game from the database and compare it with what the clients saw."""
        db = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)
        self.check_faults()
        seen = {g.game_id: g for t in self.tables for g in t.games}
        for game_id, meta_text in db.execute("SELECT id, meta FROM games"):
            meta = json.loads(meta_text)
            if game_id not in seen:
                continue
            client = seen[game_id]
            rows = db.execute(
                "SELECT ply, move, by, lag_ms, clocks FROM moves WHERE game_id = ? ORDER BY ply",
                (game_id,),
            ).fetchall()
            moves = [r[1] for r in rows]
            self.report.moves += len(moves)
            if [r[0] for r in rows] != list(range(len(rows))):
                self.violation(
                    "stored", f"{game_id}: stored plies {[r[0] for r in rows]} are not 0..n-1"
                )
            if moves != client.moves:
                self.violation(
                    "stored",
                    f"{game_id}: stored {len(moves)} moves differ from the clients' "
                    f"{len(client.moves)}",
                )
            for ply, move in client.accepted.items():
                if ply >= len(moves) or moves[ply] != move:
                    self.violation("stored", f"{game_id}: accepted ply {ply} {move} is not stored")
            try:
                final = replay(meta["game"], meta["variant"], meta["start"], moves)
            except Exception as exc:
                self.violation("replay", f"{game_id}: the stored moves do not replay: {exc}")
                continue
            if final != (client.final or (client.positions[-1] if client.positions else final)):
                self.violation(
                    "replay", f"{game_id}: replayed position differs from the clients' last one"
                )
            if meta.get("status") != "over":
                self.violation(
                    "stored", f"{game_id}: stored status {meta.get('status')} after the end"
                )
            if self.config.timed:
                self.check_clocks(game_id, rows, client)
        missing = set(seen) - {r[0] for r in db.execute("SELECT id FROM games")}
        for game_id in missing:
            self.violation("stored", f"{game_id}: seen by the clients but not stored")
        db.close()

    def check_clocks(self, game_id: str, rows: list[Any], client: GameSeen) -> None:
        """Each stored charge against the clients' send times (single sends only)."""
        increment = CLOCK["increment"] * 1000
        left: dict[str, int] = {}
        moved: set[str] = set()
        for ply, _, by, lag_ms, clocks_text in rows:
            clocks = json.loads(clocks_text)
            before = left.get(by, CLOCK["initial"] * 1000)
            left = {k: int(v) for k, v in clocks.items()}
            if by not in moved:
                moved.add(by)
                if left[by] != before:
                    self.violation("clock", f"{game_id} ply {ply}: a first move changed the clock")
                continue
            charged = before - left[by] + increment
            sends, previous = client.sends.get(ply, []), client.sends.get(ply - 1, [])
            if len(sends) != 1 or len(previous) != 1:
                continue
            held, start = self.turn_start(previous[0], client.delivered.get(ply - 1))
            if start is None:
                continue
            spans = [w for w in self.restart_windows if start <= w[1] <= sends[0]]
            if spans:
                # the time before the kill counts (up to the server's last stamp that it was
                # alive, about a second before), the downtime does not
                self.report.restart_moves += 1
                killed, back = spans[0][0], spans[-1][1]
                since_back = (sends[0] - back) * 1000 - lag_ms
                at_most = ((sends[0] - start) - sum(b - k for k, b in spans)) * 1000 - lag_ms
                if charged > at_most + CLOCK_TOLERANCE_MS:
                    self.violation(
                        "restart_clock",
                        f"{game_id} ply {ply}: charged {charged} ms across a restart, more than "
                        f"the {at_most:.0f} ms the server was up",
                    )
                elif charged < since_back - CLOCK_TOLERANCE_MS:
                    self.violation(
                        "restart_clock",
                        f"{game_id} ply {ply}: charged {charged} ms across a restart, less than "
                        f"the {since_back:.0f} ms since the server was back",
                    )
                self.report.restart_charged_before_ms += max(0, charged - max(0, since_back))
                self.report.restart_before_ms += max(0, (killed - start) * 1000)
                continue
            implied = (sends[0] - start) * 1000 - lag_ms
            deviation = abs(charged - implied)
            self.report.clock_checked += 1
            if held:
                self.report.held_turns += 1
                self.report.held_max_dev_ms = max(self.report.held_max_dev_ms, deviation)
            self.report.clock_max_dev_ms = max(self.report.clock_max_dev_ms, deviation)
            if deviation > CLOCK_TOLERANCE_MS:
                self.violation(
                    "clock",
                    f"{game_id} ply {ply}: charged {charged} ms, timestamps imply {implied:.0f} ms",
                )

    def check_faults(self) -> None:
        """Check that no move sent during a disk fault reached a client before the disk was
        back (:meth:`check_nothing_delivered`), and find when each fault's held moves went out
        (its :attr:`Fault.release`): the first time a client heard of a move sent once, before
        the disk was back, and heard of after. Every commit fails from the fault's start until
        the disk is back, so such a move was held, and all the held moves went out together
        after the one commit that took them."""
        games = [game for table in self.tables for game in table.games]
        for number, fault in enumerate(self.faults, 1):
            if not fault.cut:
                self.check_nothing_delivered(number, fault, games)
            fault.release = min(
                (
                    game.delivered[ply]
                    for game in games
                    for ply, sends in game.sends.items()
                    if len(sends) == 1 and sends[0] < fault.restored <= game.delivered.get(ply, 0.0)
                ),
                default=float("inf"),
            )

    def check_nothing_delivered(self, number: int, fault: Fault, games: list[GameSeen]) -> None:
        """No move sent while the disk refused every write reached a client before the disk
        was back (it cannot have been on disk: README, "nobody is told of a move before it is
        on disk")."""
        for game in games:
            for ply, sends in game.sends.items():
                arrived = game.delivered.get(ply)
                if arrived is None or not fault.began < sends[0] < arrived < fault.restored:
                    continue
                self.violation(
                    "disk_fault",
                    f"fault {number}: {game.game_id} ply {ply}, sent {sends[0] - fault.began:.3f} "
                    f"s into it, reached a client {arrived - fault.began:.3f} s into it, before "
                    f"the disk was back ({fault.restored - fault.began:.3f} s)",
                )

    def turn_start(self, sent: float, arrived: float | None) -> tuple[bool, float | None]:
        """When the turn after a move sent at ``sent`` (first heard of by a client at
        ``arrived``, None: by none) began, and whether that move was held by a disk fault.

        A held move's turn begins when the move is delivered (README: "the turn after a held
        move starts only when the move is delivered"): when the fault's held moves went out
        (:attr:`Fault.release`; from each client's own time of hearing of them, at the run's
        busiest moment, the soak's late reading of its frames would count as the server's
        error). A move is held when it is sent before the disk is back and heard of after. None
        when no client heard of a move that may have been held (it cannot be told)."""
        for fault in self.faults:
            if fault.cut or sent >= fault.restored:
                continue  # a restart's own check covers a fault it cut short
            if arrived is None:
                if sent > fault.began - 1.0:
                    return True, None
                continue
            if arrived >= fault.restored:
                return True, max(sent, fault.release)
        return False, sent


@dataclass
class Fault:
    """One spell of a disk refusing the server's writes."""

    began: float
    """When every write began to fail (``time.monotonic()``)."""
    restored: float = float("inf")
    """When the disk was given back (or the server was killed)."""
    ended: float = float("inf")
    """When the server said it writes again (``/healthz`` ok)."""
    cut: bool = False
    """A SIGKILL + restart came first (the restarted server writes freely)."""
    release: float = float("inf")
    """When the moves it held went out (:meth:`Soak.check_faults`)."""


def _frame(data: dict[str, Any]) -> bytes:
    """A masked client text frame."""
    payload = json.dumps(data).encode()
    mask = os.urandom(4)
    size = len(payload)
    head = bytes([0x81, 0x80 | size]) if size < 126 else bytes([0x81, 0xFE]) + size.to_bytes(2)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def soak(config: SoakConfig, db: Path) -> SoakReport:
    """Run one soak against a fresh server on ``db`` (stopped however the run ends)."""
    run = Soak(config, db)
    # The client keeps every send time, so its own full collections grew to 90 ms pauses, which
    # the clock check reads as the server's error: it collects as the server does instead.
    automatic = gc.isenabled()
    gcpolicy.tune()
    collector = asyncio.ensure_future(gcpolicy.run_collector())
    try:
        return await run.run()
    finally:
        collector.cancel()
        if automatic:
            gc.enable()
        if run.server is not None:
            run.server.stop()


def main(argv: list[str] | None = None) -> int:
    """Run the soak and print its figures; exit 1 on any violation."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add = parser.add_argument
    defaults = SoakConfig()
    add("--tables", type=whole(1), default=defaults.tables, help="games played at once")
    add(
        "--rounds",
        type=whole(1),
        default=defaults.rounds,
        help="games per table, one after another",
    )
    add("--spectators", type=whole(0), default=defaults.spectators, help="spectators per table")
    add("--plies", type=whole(1), default=defaults.plies, help="longest scripted game")
    add(
        "--drop-every",
        type=bounded(float, "0 (no drops) or more seconds", 0.0),
        default=defaults.drop_every,
        help="seconds between drops",
    )
    add("--restarts", type=whole(0), default=defaults.restarts, help="server SIGKILL + restarts")
    add(
        "--slow-readers",
        type=whole(0),
        default=defaults.slow_readers,
        help="never-reading clients",
    )
    add("--seed", type=int, default=defaults.seed)
    add(
        "--mix",
        type=names(GAMES, "games"),
        default=",".join(GAMES),
        help="games the tables play, comma-separated",
    )
    add("--untimed", action="store_true", help="rooms without clocks")
    add(
        "--timeout",
        type=bounded(float, "seconds above 0", 0.0, above=True),
        default=defaults.timeout,
        help="seconds to play every game before a table still playing is reported as stalled",
    )
    add(
        "--disk-faults",
        type=whole(0),
        default=defaults.disk_faults,
        help="spells of a disk refusing the server's writes, at seeded random moments",
    )
    add(
        "--disk-fault-seconds",
        type=bounded(float, "seconds above 0", 0.0, above=True),
        default=defaults.disk_fault_seconds,
        help="how long each disk fault lasts",
    )
    args = parser.parse_args(argv)
    if args.disk_faults and not diskfault.available():
        parser.error("--disk-faults needs prlimit (Linux) to refuse the server's writes")
    harness.exit_on_sigterm()
    harness.raise_fd_limit()
    config = SoakConfig(
        tables=args.tables,
        rounds=args.rounds,
        spectators=args.spectators,
        plies=args.plies,
        drop_every=args.drop_every,
        restarts=args.restarts,
        slow_readers=args.slow_readers,
        seed=args.seed,
        games=tuple(args.mix),
        timed=not args.untimed,
        timeout=args.timeout,
        disk_faults=args.disk_faults,
        disk_fault_seconds=args.disk_fault_seconds,
    )
    with tempfile.TemporaryDirectory() as tmp:
        report = asyncio.run(soak(config, Path(tmp) / "soak.db"))
    print(f"boardhall soak: {config}")
    for line in report.lines():
        print("  " + line)
    return 1 if report.violations else 0


if __name__ == "__main__":
    sys.exit(main())
