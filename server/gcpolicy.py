"""The server process's garbage-collection policy: short young collections, timed full ones.

CPython's defaults (700, 10, 10) make a busy hall run a full collection over every connection
and room every few seconds, a pause of hundreds of milliseconds that every move in flight waits
out. Here young collections run on 10,000 net allocations (a few milliseconds each), the middle
generation on 10 of those, and CPython never starts a full collection by itself: the server
runs one every :data:`FULL_EVERY_S` seconds, so cyclic garbage that lived long enough to reach
the old generation (closed connections, finished rooms) is still freed at a known pace.
Objects made while starting up are frozen out of every collection.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time

log = logging.getLogger("boardhall.gc")

THRESHOLDS = (10_000, 10, 1_000_000)
"""Young, middle and old thresholds for :func:`gc.set_threshold`; the old one is out of reach."""
FULL_EVERY_S = 600.0
"""Seconds between the server's own full collections."""


def tune() -> None:
    """Freeze what exists now and set :data:`THRESHOLDS` (call once, before serving)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)


def collect_fully() -> float:
    """One full collection; returns how long it took in seconds."""
    began = time.perf_counter()
    found = gc.collect()
    took = time.perf_counter() - began
    log.info(
        "full garbage collection",
        extra={"fields": {"collected": found, "ms": round(took * 1000, 1)}},
    )
    return took


async def collect_periodically(every: float = FULL_EVERY_S) -> None:
    """Run :func:`collect_fully` every ``every`` seconds until cancelled."""
    while True:
        await asyncio.sleep(every)
        collect_fully()
