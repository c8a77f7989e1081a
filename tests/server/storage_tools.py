"""Helpers shared by the storage tests: a move to write, what a fresh connection finds on disk,
an opened storage, waiting on the loop for a condition, and syncs held behind a gate."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from server.glicko2 import Rating
from server.outputs import SaveIdentity, SaveMove, SaveRatings, StorageOp
from server.ratings import NewRating
from server.storage import AsyncStorage, Storage


def move(ply: int, game: str = "g1") -> SaveMove:
    """A chess move of ``game`` at ``ply`` (its content does not matter to storage)."""
    return SaveMove(game, ply, "e2e4", "first", None, 0, "2026-11-24T10:00:00Z", {"first": 1})


def plies_on_disk(path: Path, game: str = "g1") -> list[int]:
    """The plies of ``game`` a fresh connection finds in the database at ``path``."""
    db = sqlite3.connect(path)
    try:
        rows = db.execute("SELECT ply FROM moves WHERE game_id = ? ORDER BY ply", (game,))
        return [ply for (ply,) in rows]
    finally:
        db.close()


async def opened(path: Path, **options: Any) -> AsyncStorage:
    """An :class:`AsyncStorage` on ``path``, open (close it in the test)."""
    store = AsyncStorage(path, **options)
    await store.open()
    return store


async def until(condition: Callable[[], object]) -> None:
    """Let the loop run until ``condition()`` holds (turns of the loop, not a timed sleep)."""
    async with asyncio.timeout(10):
        while not condition():
            await asyncio.sleep(0)


def seed_ratings(db: Path, players: dict[str, tuple[str, str, Rating]]) -> None:
    """Store each player (id: name, rating key, rating) as a rated game would (an identity, a
    rating change of its own game), before a server opens the database ``db``."""
    storage = Storage(db)
    try:
        ops: list[StorageOp] = []
        for n, (player, (name, key, rating)) in enumerate(players.items()):
            ops.append(SaveIdentity(player, f"hash-{player}", name))
            ops.append(SaveRatings(f"seeded-{n}", key, (NewRating(player, Rating(), rating),)))
        storage.apply(ops)
    finally:
        storage.close()


class Gate:
    """``os.fdatasync`` behind a gate: while held, each sync waits for a permit."""

    def __init__(self, real: Callable[[int], None]) -> None:
        self.real = real
        self.started = 0
        """Syncs begun."""
        self.done = 0
        """Syncs finished (the server hears of a sync only after this counts it)."""
        self._held = False
        self._permits = threading.Semaphore(0)
        self._changed = threading.Condition()
        self.errors: list[OSError] = []
        """Raised by the next syncs, one each, after they are let through."""

    def fdatasync(self, fd: int) -> None:
        with self._changed:
            self.started += 1
            held = self._held
            self._changed.notify_all()
        if held:
            assert self._permits.acquire(timeout=60), "a held sync was never let through"
        with self._changed:
            error = self.errors.pop(0) if self.errors else None
        if error is not None:
            with self._changed:
                self.done += 1
                self._changed.notify_all()
            raise error
        self.real(fd)
        with self._changed:
            self.done += 1
            self._changed.notify_all()

    def hold(self) -> None:
        with self._changed:
            self._held = True

    def allow(self, count: int = 1) -> None:
        """Let ``count`` held syncs through."""
        for _ in range(count):
            self._permits.release()

    def open(self) -> None:
        """Hold nothing any more."""
        with self._changed:
            self._held = False
        self.allow(1000)

    async def started_at_least(self, count: int) -> None:
        """Wait (off the loop) until ``count`` syncs have begun."""

        def wait() -> bool:
            with self._changed:
                return self._changed.wait_for(lambda: self.started >= count, 10)

        assert await asyncio.to_thread(wait), f"sync {count} never began"
