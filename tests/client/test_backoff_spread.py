"""Reconnection waits are spread, so clients dropped together do not come back together."""

from __future__ import annotations

import asyncio
import random

import pytest

import client.net
from client.backoff import SPREAD, spread
from client.net import Connection


def test_a_wait_is_spread_by_a_fifth_either_way() -> None:
    """The planned wait times 0.8 to 1.2: the ends of the draw give the ends of the range, and
    a thousand clients planning the same 2 s wait come back at many different moments."""
    assert spread(2.0, lambda: 0.0) == pytest.approx(2.0 * (1 - SPREAD))
    assert spread(2.0, lambda: 1.0) == pytest.approx(2.0 * (1 + SPREAD))
    draw = random.Random(7).random
    waits = [spread(2.0, draw) for _ in range(1000)]
    assert min(waits) >= 1.6 and max(waits) <= 2.4
    assert len({round(w, 3) for w in waits}) > 300


async def test_the_connection_waits_the_spread_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The connection's own pause (not a test's injected one) waits what ``spread`` says, not
    the planned time: a plan of an hour spread to nothing returns at once."""
    asked: list[float] = []

    def nothing(seconds: float) -> float:
        asked.append(seconds)
        return 0.0

    monkeypatch.setattr(client.net, "spread", nothing)
    conn = Connection("ws://127.0.0.1:9", "Alice")
    conn._outbox = asyncio.Queue()
    await asyncio.wait_for(conn._sleep(3600.0), 5.0)
    assert asked == [3600.0]


def test_spreading_leaves_the_shared_random_state_alone() -> None:
    """A connection's thread retrying in the background draws its spread from its own
    generator: the ``random`` module's state, which other code (and Hypothesis) relies on, is
    the same after a thousand draws."""
    before = random.getstate()
    for _ in range(1000):
        spread(1.0)
    assert random.getstate() == before
