"""Fixtures for server tests: a real server on 127.0.0.1 port 0 and real WebSocket clients.

Use in any test under tests/server/::

    async def test_something(server, client):
        ann = await client("ann")              # connected and welcomed
        room = await ann.request(type="create", game="hexgomoku")

``server`` is a started :class:`server.net.BoardhallServer` (in-memory SQLite unless a test
builds its own); ``client(name)`` opens a :class:`server.testing.WireClient`, closed at the end.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.testing import BoardhallServer, WireClient, running_server
from tests.server.helpers import Factory


@pytest.fixture
async def server() -> AsyncIterator[BoardhallServer]:
    """A running server on a free loopback port, with an in-memory database."""
    async with running_server(host="127.0.0.1", port=0, db=":memory:") as running:
        yield running


@pytest.fixture
async def client(
    server: BoardhallServer,
) -> AsyncIterator[Factory]:
    """A factory of connected clients: ``await client("ann")`` says hello as ann."""
    opened: list[WireClient] = []

    async def make(name: str | None = None, **kwargs: Any) -> WireClient:
        wire = await WireClient.connect(server.url, name, **kwargs)
        opened.append(wire)
        return wire

    yield make
    for wire in opened:
        await wire.close()
