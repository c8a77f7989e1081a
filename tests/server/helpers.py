"""Helpers shared by several server test modules (test modules import from here, never from
one another)."""

from __future__ import annotations

import asyncio


class MovedClock:
    """The loop's monotonic clock plus a lead the test moves on by hand: give it to a server
    (``keepalive_clock=``), whose own timers still run on real time and read it."""

    def __init__(self) -> None:
        self.lead = 0.0
        self.loop = asyncio.get_running_loop()

    def __call__(self) -> float:
        return self.loop.time() + self.lead
