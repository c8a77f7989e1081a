"""Helpers shared by the storage tests: a move to write, what a fresh connection finds on disk,
an opened storage, and waiting on the loop for a condition."""

from __future__ import annotations

import asyncio
import sqlite3
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
