"""Fixtures of the load, fault and bad-input tests: a real server on 127.0.0.1 port 0.

``live`` runs one :class:`server.net.BoardhallServer` on its own event-loop thread for a whole
module, so synchronous code (hypothesis tests with ``websockets.sync`` clients) can hammer it;
``run(coro)`` runs a coroutine on that loop. The repository root goes on ``sys.path`` so the
tests can import ``bench.*`` (the same code the load tools run).
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Coroutine, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

import pytest

from server.config import ServerConfig
from server.net import BoardhallServer

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

T = TypeVar("T")


class LiveServer:
    """A started server on a background loop thread."""

    def __init__(self, config: ServerConfig) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server = BoardhallServer("127.0.0.1", 0, ":memory:", config)
        self.run(self.server.start())
        self.url = self.server.url

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 60.0) -> T:
        """Run ``coro`` on the server's loop and return its result."""
        future: Future[T] = asyncio.run_coroutine_threadsafe(coro, self.loop)
        return future.result(timeout)

    def close(self) -> None:
        """Stop the server and its loop."""
        self.run(self.server.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


LENIENT = ServerConfig(
    flood_errors=10**9,
    messages_per_second=10**6,
    bots_available=False,
    rooms_per_identity=10**6,
)
"""Limits opened so a fuzzer can send thousands of bad frames on one connection."""


@pytest.fixture(scope="module")
def live() -> Iterator[LiveServer]:
    """One server per module with :data:`LENIENT` limits."""
    server = LiveServer(LENIENT)
    try:
        yield server
    finally:
        server.close()
