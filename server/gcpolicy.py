"""The server process's garbage-collection policy: collections on a clock, from the event loop.

CPython starts a young collection after every 700 net allocations, and its pause is the walk over
every young object still alive. In a busy hall most of those are the objects each connection
keeps while it waits for its next frame (replaced on every frame, so always young) and the states
of moves made in the last seconds: at 1,000 moves/s over 3,000 connections a young collection
walked 50-70k objects, 25-45 ms every 2 s, and the middle generation 70 ms (bench/README.md).

Here automatic collection is off. The event loop runs a young collection every
:data:`YOUNG_EVERY_S` (only what was made since the last one: about a millisecond), and every
:data:`PROMOTE_EVERY_S` moves the survivors to the old generation without walking them
(``gc.freeze()`` then ``gc.unfreeze()``). A full collection every :data:`FULL_EVERY_S` frees
cycles among old objects. Closed connections leave no cycles (they are freed by reference
counting: ``tests/server/test_connection_cycles.py``), so little waits for the full collection;
a connection left in a cycle would stay until then, however long ago it closed.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time

log = logging.getLogger("boardhall.gc")

YOUNG_EVERY_S = 0.05
"""Seconds between young collections."""
PROMOTE_EVERY_S = 1.0
"""Seconds between moves of every survivor to the old generation."""
FULL_EVERY_S = 600.0
"""Seconds between full collections."""


def tune() -> None:
    """Collect once and turn automatic collection off (call once, before serving;
    :func:`run_collector` then does the collecting)."""
    gc.collect()
    gc.disable()


def promote() -> None:
    """Move every tracked object to the old generation without a collection."""
    gc.freeze()
    gc.unfreeze()


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


async def run_collector(
    young_every: float = YOUNG_EVERY_S,
    promote_every: float = PROMOTE_EVERY_S,
    full_every: float = FULL_EVERY_S,
) -> None:
    """Young collections, promotions and full collections on their clocks, until cancelled."""
    loop = asyncio.get_running_loop()
    next_promote = loop.time() + promote_every
    next_full = loop.time() + full_every
    while True:
        await asyncio.sleep(young_every)
        gc.collect(0)
        now = loop.time()
        if now >= next_full:
            collect_fully()
            next_full = now + full_every
            next_promote = now + promote_every
        elif now >= next_promote:
            promote()
            next_promote = now + promote_every
