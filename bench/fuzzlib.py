"""The protocol fuzzer's oracle and frame generator (used by ``bench/fuzz.py`` and the tests).

:func:`expect` says what DESIGN.md requires for one frame: an ``error`` with a code (and ``re``
when an id can be read) on a connection that stays open, exactly one reply for a valid message
carrying an ``id``, 1009 for a frame over the limit. A text frame that is not UTF-8 is closed
with 1007 by the WebSocket layer itself (RFC 6455 section 8.1 makes that mandatory).
:class:`Prober` sends one frame followed by a ``ping`` barrier and checks every frame that came
back in between against the oracle, strictly (standard JSON, protocol shape, no ``internal``).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import re
import string
import sys
import threading
import urllib.request
from collections.abc import Coroutine
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from bench.scripts import Script, playout
from protocol import (
    CLIENT_FIELDS,
    CLIENT_TYPES,
    ProtocolError,
    decode_client,
    decode_server,
    limits,
)
from server.config import ServerConfig
from server.net import BoardhallServer
from server.testing import WireClient

T = TypeVar("T")

FIELDS = CLIENT_FIELDS
"""Every field of every client message type (from the protocol's models)."""
ALL_FIELDS = tuple(sorted({f for fields in FIELDS.values() for f in fields}))


class Violation(AssertionError):
    """The server did not answer a frame the way DESIGN.md says."""


@dataclass(frozen=True)
class Expect:
    """What the server must do with one frame."""

    close: int | None = None
    """The close code it must close with, or ``None``: it stays open."""
    error: str | None = None
    """The error code it must answer with (``None``: the frame is a valid message)."""
    re: str | int | None = None
    """The ``re`` of the one reply (or error) it must send."""
    any_re: bool = False
    """The error may or may not carry ``re`` (JSON nested near the parser's recursion limit)."""


def frame_bytes(frame: str | bytes) -> int:
    """The size of a frame's payload on the wire."""
    return len(frame.encode("utf-8", "surrogatepass")) if isinstance(frame, str) else len(frame)


def expect(frame: str | bytes, text: bool = True) -> Expect:
    """What DESIGN.md says the server does with ``frame`` (``text``: sent as a text frame)."""
    if frame_bytes(frame) > limits.FRAME_BYTES:
        return Expect(close=1009)
    if isinstance(frame, bytes) and text:
        try:
            frame.decode("utf-8")
        except UnicodeDecodeError:
            return Expect(close=1007)
    if isinstance(frame, str):
        try:
            frame.encode("utf-8")
        except UnicodeEncodeError:
            return Expect(close=1007)
    try:
        message = decode_client(frame)
    except ProtocolError as exc:
        return Expect(error=exc.code.value, re=exc.re)
    except RecursionError:
        # Where the limit falls depends on the stack depth of the caller: the server may parse
        # a frame this process cannot, and then name the field; either way it is bad_message.
        return Expect(error="bad_message", any_re=True)
    return Expect(re=message.id)


def strict_json(frame: str | bytes) -> dict[str, Any]:
    """Parse a server frame as standard JSON (no NaN or Infinity) into an object."""

    def refuse(name: str) -> Any:
        raise Violation(f"server sent non-standard JSON {name}: {frame!r:.200}")

    data = json.loads(frame, parse_constant=refuse)
    if not isinstance(data, dict):
        raise Violation(f"server sent a non-object: {frame!r:.200}")
    return data


class Prober:
    """One fuzzing connection (said hello) that checks every answer against :func:`expect`."""

    def __init__(self, url: str, hello: bool = True) -> None:
        self.url = url
        self.barriers = itertools.count(1)
        ws = connect(url, max_size=None, compression=None, open_timeout=30)
        self.ws: ClientConnection = ws.__enter__()
        self.frames = 0
        self.closes: dict[int, int] = {}
        if hello:
            reply = self.exchange_message({"type": "hello", "name": "fuzz", "protocol": 1, "id": 0})
            if not any(d.get("type") == "welcome" for d in reply):
                raise Violation(f"hello got {reply}")

    def reopen(self) -> None:
        """A new connection (said hello) after the server closed this one."""
        fresh = Prober(self.url)
        self.ws = fresh.ws

    def close(self) -> None:
        """Close the connection."""
        self.ws.close()

    def exchange_message(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        """Send one JSON object and check the answer; returns what came back."""
        return self.exchange(json.dumps(data))

    def _read_until(self, barrier: str) -> list[dict[str, Any]]:
        got: list[dict[str, Any]] = []
        while True:
            raw = self.ws.recv(timeout=30)
            data = strict_json(raw)
            try:
                decode_server(raw)
            except Exception as exc:
                raise Violation(f"server sent a frame outside the protocol: {raw!r:.300}") from exc
            if data.get("re") == barrier:
                if data.get("type") == "pong" or data.get("code") == "hello_first":
                    return got
                raise Violation(f"the ping barrier got {data}")
            got.append(data)

    def exchange(self, frame: str | bytes, text: bool = True) -> list[dict[str, Any]]:
        """Send ``frame``, then a ping barrier; check everything in between against the oracle."""
        wanted = expect(frame, text)
        self.frames += 1
        barrier = f"barrier-{next(self.barriers)}"
        try:
            if isinstance(frame, bytes):
                self.ws.send(frame, text=text)
            else:
                self.ws.send(frame)
            self.ws.send(json.dumps({"type": "ping", "id": barrier}))
            got = self._read_until(barrier)
        except ConnectionClosed as exc:
            code = exc.rcvd.code if exc.rcvd is not None else None
            self.reopen()
            if wanted.close is None or code != wanted.close:
                raise Violation(
                    f"connection closed with {code} ({exc.rcvd.reason if exc.rcvd else ''}) "
                    f"after {frame!r:.200}; expected {wanted}"
                ) from exc
            self.closes[code] = self.closes.get(code, 0) + 1
            return []
        if wanted.close is not None:
            raise Violation(f"{frame!r:.200} should have closed with {wanted.close}; got {got}")
        check(wanted, got, frame)
        return got


def check(wanted: Expect, got: list[dict[str, Any]], frame: str | bytes) -> None:
    """Raise :class:`Violation` unless ``got`` (the frames before the barrier) fits ``wanted``."""
    internal = [d for d in got if d.get("type") == "error" and d.get("code") == "internal"]
    if internal:
        raise Violation(f"internal error for {frame!r:.300}: {internal}")
    if wanted.error is not None:
        errors = [d for d in got if d.get("type") == "error"]
        if not wanted.any_re:
            errors = [d for d in errors if d.get("re") == wanted.re]
        if wanted.re is None and not wanted.any_re:
            errors = [d for d in errors if "re" not in d]
        if len(errors) != 1 or errors[0]["code"] != wanted.error:
            raise Violation(f"{frame!r:.300} wanted one {wanted.error} (re {wanted.re}), got {got}")
        return
    if wanted.re is not None:
        replies = [d for d in got if d.get("re") == wanted.re]
        if len(replies) != 1:
            raise Violation(f"{frame!r:.300} wanted one reply with re {wanted.re!r}, got {got}")


# ---- a server on a thread, a game beside the fuzzer ------------------------------------------

ROOM = "@ROOM"
"""Replaced by the side game's room code when a frame is sent."""

LENIENT = ServerConfig(
    flood_errors=10**9,
    messages_per_second=10**6,
    bots_available=False,
    rooms_per_identity=10**6,
)
"""Limits opened so a fuzzer can send thousands of bad frames on one connection."""


class LiveServer:
    """A started :class:`BoardhallServer` (in-memory database) with a loop thread for clients.

    By default the server runs on that thread; with ``process=True`` it runs in a child process
    (``bench/lenient_server.py``), so the fuzzer and the server use two cores.
    """

    def __init__(self, config: ServerConfig = LENIENT, process: bool = False) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server: BoardhallServer | None = None
        self.child: Any = None
        if process:
            from bench import harness

            argv = [sys.executable, str(Path(__file__).with_name("lenient_server.py"))]
            self.child = harness.Subprocess(argv, "lenient server").start()
            self.url = self.child.url
        else:
            self.server = BoardhallServer("127.0.0.1", 0, ":memory:", config)
            self.run(self.server.start())
            self.url = self.server.url

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 60.0) -> T:
        """Run ``coro`` on the loop thread and return its result."""
        future: Future[T] = asyncio.run_coroutine_threadsafe(coro, self.loop)
        return future.result(timeout)

    def internal_errors(self) -> int:
        """How many ``internal`` errors the server has sent (its metrics)."""
        if self.server is not None:
            return int(self.server.metrics.errors.get("internal", 0))
        url = self.url.replace("ws://", "http://") + "/metrics"
        text = urllib.request.urlopen(url, timeout=10).read().decode()
        found = re.search(r'boardhall_errors_total\{code="internal"\} (\d+)', text)
        return int(found.group(1)) if found else 0

    def alive(self) -> bool:
        """Whether the server still runs."""
        return self.child.alive() if self.child is not None else self.thread.is_alive()

    def close(self) -> None:
        """Stop the server and the loop."""
        if self.server is not None:
            self.run(self.server.stop())
        if self.child is not None:
            self.child.stop()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


class SideGame:
    """A scripted chess game between two players with a spectator, advanced one move per step."""

    def __init__(self, live: LiveServer) -> None:
        self.live = live
        self.script: Script = playout("chess", seed=7, max_plies=400)
        self.players: dict[str, WireClient] = {}
        self.watcher: WireClient | None = None
        self.room = ""
        self.ply = 0
        self.games = 0
        self.moves_seen = 0
        live.run(self._open())

    async def _open(self) -> None:
        if not self.players:
            for side in ("first", "second"):
                self.players[side] = await WireClient.connect(self.live.url, side)
            self.watcher = await WireClient.connect(self.live.url, "watcher")
        created = await self.players["first"].request(type="create", game="chess", color="first")
        self.room = created["room"]
        joined = await self.players["second"].request(type="join", room=self.room)
        assert joined["status"] == "playing", joined
        assert self.watcher is not None
        watched = await self.watcher.request(type="join", room=self.room, role="spectator")
        assert watched["type"] == "room", watched
        self.ply = 0
        self.games += 1

    async def _step(self) -> None:
        if self.ply >= len(self.script.moves):
            await self._open()
        side = self.script.sides[self.ply]
        mover, other = self.players[side], self.players["second" if side == "first" else "first"]
        move = self.script.moves[self.ply]
        reply = await mover.request(type="move", room=self.room, ply=self.ply, move=move)
        assert reply["type"] == "moved" and reply["move"] == move, reply
        position = self.script.positions[self.ply]
        for wire in (other, self.watcher):
            assert wire is not None
            seen = await wire.expect("moved", room=self.room, ply=self.ply)
            assert seen["move"] == move and seen["position"] == position, seen
        self.ply += 1
        self.moves_seen += 1
        for wire in (*self.players.values(), self.watcher):
            assert wire is not None
            errors = wire.take_all("error")
            assert not errors, errors
            wire.inbox.clear()

    def step(self) -> None:
        """Play the next scripted move and check the opponent and the spectator saw it."""
        self.live.run(self._step())


class Fuzzer:
    """The prober plus the side game: every ``every`` frames the game moves once."""

    def __init__(self, live: LiveServer, every: int = 10) -> None:
        self.live = live
        self.side = SideGame(live)
        self.prober = Prober(live.url)
        self.sent = 0
        self.every = every

    def send(self, frame: str | bytes, text: bool = True) -> list[dict[str, Any]]:
        """Send one frame (``@ROOM`` replaced) through the oracle; advance the side game."""
        if isinstance(frame, str):
            frame = frame.replace(ROOM, self.side.room)
        got = self.prober.exchange(frame, text)
        self.sent += 1
        if self.sent % self.every == 0:
            self.side.step()
        return got

    def send_message(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        """Send one JSON object."""
        return self.send(json.dumps(data))


# ---- a fast random generator (bench/fuzz.py) -------------------------------------------------

JUNK: tuple[Any, ...] = (
    None,
    True,
    False,
    0,
    -1,
    1,
    2**63,
    -(2**70),
    0.5,
    1e308,
    "",
    "x",
    "é",
    "\u0000",
    "\ud7ff",
    "😀",
    [],
    {},
    [1, 2],
    {"a": 1},
    "a" * 300,
)


class Generator:
    """Random and mutated client frames, seeded; knows a live room and its legal moves."""

    def __init__(self, seed: int, room: str = "abcde", moves: tuple[str, ...] = ("0,0",)) -> None:
        self.rng = random.Random(seed)
        self.room = room
        self.moves = moves
        self.ids = itertools.count(1)

    def value(self, name: str, depth: int = 0) -> Any:
        """A value for field ``name``: often right, often wrong."""
        rng = self.rng
        if rng.random() < 0.3:
            return self.junk(depth)
        good: dict[str, Any] = {
            "name": self.text(40),
            "protocol": rng.choice([1, 1, 0, 2, -1]),
            "token": self.text(140),
            "client": self.text(70),
            "game": rng.choice(["chess", "draughts", "shuqi", "hexgomoku", "custom", "go", ""]),
            "variant": rng.choice(["standard", "international", "xiangqi", "nope", None]),
            "clock": rng.choice(
                [{"initial": 60}, {"per_move": 20}, {"initial": -1}, {"x": 1}, {"initial": 10**9}]
            ),
            "options": rng.choice([{}, {"exact5": True}, {"max_plies": 3}, {"bogus": 1}]),
            "position": self.text(5000),
            "record": self.text(60),
            "color": rng.choice(["first", "second", "random", "red"]),
            "private": rng.choice([True, False]),
            "opponent": rng.choice(["bot:1", "bot:99", "human"]),
            "room": rng.choice([self.room, self.room, "zzzzz", "", "x" * 70]),
            "role": rng.choice(["player", "spectator", "king"]),
            "watch": rng.choice([True, False]),
            "ply": rng.choice([0, 1, 2, 3, 10**12, -1]),
            "move": rng.choice([*self.moves, self.text(10), "x" * 201]),
            "reason": self.text(600),
            "kind": rng.choice(["draw", "undo", "rematch", "swap", "hug"]),
            "accept": rng.choice([True, False]),
            "text": self.text(600),
            "t": rng.choice([1, 1.5, -3, None]),
        }
        return good.get(name, self.junk(depth))

    def text(self, longest: int) -> str:
        """Random text up to ``longest`` characters (sometimes longer than a field allows)."""
        rng = self.rng
        size = rng.choice([0, 1, 5, longest // 2, longest])
        alphabet = string.printable + "éü漢字😀\u200b\u0000\x7f"
        return "".join(rng.choice(alphabet) for _ in range(size))

    def junk(self, depth: int = 0) -> Any:
        """A value of a random JSON type."""
        rng = self.rng
        if depth < 3 and rng.random() < 0.2:
            if rng.random() < 0.5:
                return [self.junk(depth + 1) for _ in range(rng.randrange(4))]
            return {self.text(6): self.junk(depth + 1) for _ in range(rng.randrange(4))}
        return rng.choice(JUNK)

    def message(self) -> dict[str, Any]:
        """A message of a random type with a random subset of fields (right or wrong)."""
        rng = self.rng
        kind = rng.choice(CLIENT_TYPES) if rng.random() < 0.9 else self.junk()
        data: dict[str, Any] = {"type": kind}
        fields = FIELDS.get(kind, ALL_FIELDS) if isinstance(kind, str) else ALL_FIELDS
        for name in fields:
            if rng.random() < 0.7:
                data[name] = self.value(name)
        if rng.random() < 0.1:
            data[rng.choice((*ALL_FIELDS, "colour", "x"))] = self.junk()
        if rng.random() < 0.1:
            data.pop("type", None)
        data["id"] = self.ident()
        return data

    def ident(self) -> Any:
        """Mostly a fresh id; sometimes one of the wrong types or too long."""
        rng = self.rng
        if rng.random() < 0.85:
            return rng.choice([f"f{next(self.ids)}", next(self.ids)])
        return rng.choice([None, True, 1.5, [1], {"a": 1}, "i" * 65, -5])

    def frame(self) -> tuple[str | bytes, bool]:
        """One frame and whether it goes as a text frame."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.6:
            data = self.message()
            if rng.random() < 0.1:
                del data["id"]
            return json.dumps(data, ensure_ascii=rng.random() < 0.5), True
        if roll < 0.7:
            text = json.dumps(self.message())
            cut = rng.randrange(len(text) + 1)
            return text[:cut] + rng.choice(["", "}", "]", "\\", '"', "\x00"]), True
        if roll < 0.75:
            depth = rng.choice([100, 1000, 5000, 30000])
            opener = rng.choice(["[", '{"a":'])
            closer = "]" if opener == "[" else "}"
            head = '{"type":"ping","id":"deep","t":'
            return head + opener * depth + "1" + closer * depth + "}", True
        if roll < 0.8:
            return rng.choice(["null", "1", '"x"', "[]", "true", "{}", '{"type":null}', ""]), True
        if roll < 0.87:
            return json.dumps(self.message()).encode("utf-8"), False
        if roll < 0.92:
            return bytes(rng.randrange(256) for _ in range(rng.randrange(40))), False
        if roll < 0.95:
            size = rng.choice([limits.FRAME_BYTES - 100, limits.FRAME_BYTES - 1])
            body = '{"type":"chat","room":"' + self.room + '","id":"big","text":"'
            return body + "x" * (size - len(body) - 2) + '"}', True
        if roll < 0.97:
            return "x" * (limits.FRAME_BYTES + rng.randrange(1, 5000)), True
        return b'{"type":"ping","id":"bad"}' + bytes([rng.choice([0xFF, 0xC0, 0xED])]), True
