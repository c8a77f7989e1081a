"""A TCP proxy between a client and a real server, for network-failure tests.

It runs on its own thread and event loop, listens on 127.0.0.1 port 0 and forwards every
connection to the server. A test can make the network misbehave on demand, with no sleeping:

- :meth:`Proxy.hold` keeps what one side sends (a slow server: the client's move waits in the
  proxy) until :meth:`Proxy.release` forwards it;
- :meth:`Proxy.blackhole` drops everything both ways on the open connections and keeps their
  sockets open (a Wi-Fi link that died: no reset, no close, only silence);
- :meth:`Proxy.cut` resets every open connection at once, and what was held is lost.

New connections after a :meth:`Proxy.blackhole` or a :meth:`Proxy.cut` are forwarded normally.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from dataclasses import dataclass, field
from typing import Any, Literal

Side = Literal["up", "down"]
"""``up``: what the client sends to the server; ``down``: what the server sends back."""


@dataclass
class _Pair:
    client: asyncio.StreamWriter
    server: asyncio.StreamWriter
    silent: bool = False
    held: dict[str, list[bytes]] = field(default_factory=lambda: {"up": [], "down": []})


class Proxy:
    """Forward 127.0.0.1:``port`` to 127.0.0.1:``target``."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = 0
        self.holding: set[str] = set()
        self.pairs: list[_Pair] = []
        self.forwarded = {"up": 0, "down": 0}
        """Bytes forwarded each way (held bytes count once released)."""
        self.loop = asyncio.new_event_loop()
        self._server: asyncio.Server | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="test-proxy", daemon=True)

    def url(self, scheme: str = "ws") -> str:
        """The address a client connects to."""
        return f"{scheme}://127.0.0.1:{self.port}/"

    def start(self) -> Proxy:
        """Listen; returns once the port is known."""
        self._thread.start()
        assert self._ready.wait(10), "the proxy did not start"
        return self

    def stop(self) -> None:
        """Close everything and end the thread."""
        self._call(self._stop)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)

    def hold(self, side: Side = "up") -> None:
        """Keep what ``side`` sends (on every connection, new ones too) until :meth:`release`."""
        self._call(lambda: self.holding.add(side))

    def release(self, side: Side = "up") -> None:
        """Forward what was held and stop holding."""
        self._call(lambda: self._release(side))

    def blackhole(self) -> None:
        """Drop everything on the open connections, both ways, without closing them."""

        def silence() -> None:
            for pair in self.pairs:
                pair.silent = True

        self._call(silence)

    def cut(self) -> None:
        """Reset every open connection (both ends see a reset; held bytes are lost)."""

        def reset() -> None:
            for pair in self.pairs:
                for writer in (pair.client, pair.server):
                    writer.transport.abort()
            self.pairs.clear()

        self._call(reset)

    def held(self, side: Side = "up") -> int:
        """How many bytes ``side`` has waiting in the proxy."""
        return int(self._call(lambda: sum(len(b) for p in self.pairs for b in p.held[side])))

    # ---- the proxy's thread ------------------------------------------------------------------

    def _call(self, fn: Any) -> Any:
        async def run() -> Any:
            return fn()

        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._listen())
        self._ready.set()
        self.loop.run_forever()
        with contextlib.suppress(Exception):
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
        self.loop.close()

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def _stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for pair in self.pairs:
            for writer in (pair.client, pair.server):
                writer.transport.abort()
        self.pairs.clear()
        for task in asyncio.all_tasks(self.loop):
            if task is not asyncio.current_task():
                task.cancel()

    def _release(self, side: str) -> None:
        self.holding.discard(side)
        for pair in self.pairs:
            out = pair.server if side == "up" else pair.client
            for chunk in pair.held[side]:
                out.write(chunk)
                self.forwarded[side] += len(chunk)
            pair.held[side].clear()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.transport.abort()
            return
        pair = _Pair(writer, up_writer)
        self.pairs.append(pair)
        await asyncio.gather(self._pump(pair, reader, up_writer, "up"),
                             self._pump(pair, up_reader, writer, "down"),
                             return_exceptions=True)

    async def _pump(self, pair: _Pair, reader: asyncio.StreamReader,
                    writer: asyncio.StreamWriter, side: str) -> None:
        try:
            while chunk := await reader.read(65536):
                if pair.silent:
                    continue
                if side in self.holding:
                    pair.held[side].append(chunk)
                    continue
                writer.write(chunk)
                self.forwarded[side] += len(chunk)
        except (OSError, asyncio.IncompleteReadError):
            pass
        if not pair.silent and pair in self.pairs:  # an end closed: close the other one
            with contextlib.suppress(OSError, RuntimeError):
                writer.close()
