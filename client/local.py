"""Local play: a Boardhall server embedded in this process, reached over loopback.

Hot-seat uses the same code path as online play: two connections (one per seat) to the embedded
server, and the room scene sends each move through the connection of the side to move. Against
the computer the room is created with ``opponent: bot:LEVEL``.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from client.app import App

DEFAULT_NAMES = ("Player 1", "Player 2")


class EmbeddedServer:
    """A :class:`server.net.BoardhallServer` running on its own thread and event loop.

    Args:
        db: SQLite file (``":memory:"``: forgotten on exit).
        port: TCP port on 127.0.0.1 (0 picks a free one).
        kwargs: passed to ``BoardhallServer`` (``config``, ``ping_interval``, ...).
    """

    def __init__(self, db: str | Path = ":memory:", port: int = 0, **kwargs: Any) -> None:
        self.db = db
        self.port = port
        self.kwargs = kwargs
        self.server: Any = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self.error: BaseException | None = None

    @property
    def url(self) -> str:
        """The ``ws://127.0.0.1:PORT/`` (or ``wss://``) URL of the running server."""
        assert self.server is not None, "not started"
        scheme = "wss" if self.kwargs.get("ssl_context") is not None else "ws"
        return f"{scheme}://127.0.0.1:{self.server.port}/"

    def start(self, timeout: float = 20.0) -> EmbeddedServer:
        """Start and wait until it listens; raises ``RuntimeError`` if it cannot."""
        self._thread = threading.Thread(target=self._run, name="boardhall-server", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout) or self.server is None:
            raise RuntimeError(f"the embedded server did not start: {self.error}")
        return self

    def stop(self) -> None:
        """Stop the server and its thread."""
        loop, stop = self.loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stop.set)
        if self._thread is not None:
            self._thread.join(10)

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:  # reported to start() through self.error
            self.error = exc
            self._ready.set()

    async def _main(self) -> None:
        from server.net import BoardhallServer

        self.loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        server = BoardhallServer(host="127.0.0.1", port=self.port, db=self.db, **self.kwargs)
        await server.start()
        self.server = server
        self._ready.set()
        try:
            await self._stop.wait()
        finally:
            await server.stop()


def start_local(app: App, embedded: EmbeddedServer, game: str, variant: str | None = None,
                bot: str | None = None) -> None:
    """Connect ``app`` to ``embedded`` (both seats for hot-seat) and open the local game."""
    from client.net import Connection
    from client.scenes.local_start import LocalStartScene

    app.local_server = embedded
    app.url = app.address = embedded.url
    app.net_status = "connecting"
    app.connection = Connection(embedded.url, DEFAULT_NAMES[0])
    app.connection.start()
    if bot is None:
        helper = Connection(embedded.url, DEFAULT_NAMES[1])
        helper.start()
        app.seat_connections = {"first": app.connection, "second": helper}
    app.push(LocalStartScene(app, game, variant, bot))


def run_local(game: str, variant: str | None, bot: str | None,
              size: tuple[int, int] = (1280, 800)) -> int:
    """Open the window for a local game (hot-seat, or against a bot at level ``bot``)."""
    import engines
    from client.app import App
    from client.config import Config

    try:
        variant = engines.variant_or_file(engines.get(game), variant)
        engines.get(game).resolve_variant(variant)
    except engines.EngineError as exc:
        print(f"boardhall local: {exc}")
        return 2
    app = App(Config.load(), window_size=size)
    start_local(app, EmbeddedServer().start(), game, variant, bot)
    app.run()
    return 0
