"""SQLite's write-ahead log is copied back on the checkpoint thread, never inside a commit."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from pathlib import Path

import pytest

from server.outputs import SaveMove, TruncateMoves
from server.storage import AsyncStorage, Checkpointer, Storage


def _moves(storage: Storage, first: int, count: int) -> None:
    for ply in range(first, first + count):
        storage.apply(
            [SaveMove("g1", ply, "0,0", "first", None, 0, "2026-11-22T00:00:00Z", {"first": 1})]
        )


def _frames(path: Path) -> tuple[int, int]:
    """``(frames in the log, frames copied back)`` without copying anything."""
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA busy_timeout=1000")
        _, frames, copied = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    return frames, copied


def test_commits_leave_the_log_alone_until_the_checkpointer_runs(tmp_path: Path) -> None:
    path = tmp_path / "hall.db"
    storage = Storage(path, checkpoints=False)
    _moves(storage, 0, 1500)  # more than the 1,000 pages SQLite would checkpoint at
    assert storage.db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
    log_bytes = (tmp_path / "hall.db-wal").stat().st_size
    assert log_bytes > 1000 * 4096

    checkpointer = Checkpointer(str(path), restart_frames=100)
    with sqlite3.connect(path, isolation_level=None) as db:
        checkpointer.checkpoint(db)
    assert (checkpointer.runs, checkpointer.restarts) == (1, 1)
    _moves(storage, 1500, 3)  # the log was rewound: these go to its start
    frames, _ = _frames(path)
    assert frames < 20
    assert len(storage.moves("g1")) == 1503
    storage.close()


def test_a_failed_checkpoint_is_logged_and_the_next_one_tries_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "hall.db"
    Storage(path).close()
    checkpointer = Checkpointer(str(path))
    db = sqlite3.connect(path)
    db.close()
    with caplog.at_level(logging.ERROR, logger="boardhall.storage"):
        checkpointer.checkpoint(db)  # a closed connection: sqlite3.ProgrammingError
    assert "checkpoint failed" in caplog.text
    assert checkpointer.runs == 0


async def test_async_storage_checkpoints_files_on_a_thread_and_stops_it(tmp_path: Path) -> None:
    path = tmp_path / "hall.db"
    store = AsyncStorage(path)
    await store.open()
    checkpointer = store.checkpointer
    assert checkpointer is not None and checkpointer._thread is not None
    thread = checkpointer._thread
    assert thread.is_alive()
    storage = store.storage
    await store.run(lambda: _moves(storage, 0, 50))
    await store.close()
    assert not thread.is_alive() and store.checkpointer is None
    reopened = Storage(path)
    assert [m["ply"] for m in reopened.moves("g1")] == list(range(50))
    reopened.close()


async def test_an_in_memory_database_is_a_temporary_file_removed_on_close() -> None:
    store = AsyncStorage(":memory:")
    await store.open()
    path = Path(store.writer.path)
    assert path.exists() and path.parent.name.startswith("boardhall-")
    await store.submit([SaveMove("g1", 0, "e2e4", "first", None, 0, "2026-11-22T00:00:00Z", {})])
    storage = store.storage
    assert [m["move"] for m in await store.run(lambda: storage.moves("g1"))] == ["e2e4"]
    await store.close()
    assert not path.parent.exists()


def test_a_batch_keeps_its_order_around_a_truncation(tmp_path: Path) -> None:
    """Runs of moves are inserted together, but never across an undo's truncation."""
    storage = Storage(tmp_path / "hall.db")

    def move(ply: int, text: str) -> SaveMove:
        return SaveMove("g1", ply, text, "first", None, 0, "2026-11-22T00:00:00Z", {"first": 1})

    storage.apply([move(0, "a"), move(1, "b"), move(2, "c"), TruncateMoves("g1", 1), move(1, "B")])
    assert [(m["ply"], m["move"]) for m in storage.moves("g1")] == [(0, "a"), (1, "B")]
    storage.close()


async def test_every_write_of_a_group_commit_is_settled(tmp_path: Path) -> None:
    store = AsyncStorage(tmp_path / "hall.db")
    await store.open()
    futures = [
        store.submit(
            [SaveMove("g2", ply, "x", "first", None, 0, "2026-11-22T00:00:00Z", {"first": 1})]
        )
        for ply in range(20)
    ]
    await asyncio.gather(*futures)
    storage = store.storage
    assert len(await store.run(lambda: storage.moves("g2"))) == 20
    await store.close()


class _FlakyCursor:
    """A connection whose checkpoints fail while ``full`` is set, as on a full disk."""

    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(path, isolation_level=None)
        self.full = False

    def execute(self, sql: str) -> sqlite3.Cursor:
        if self.full:
            raise sqlite3.OperationalError("database or disk is full")
        return self.db.execute(sql)


def test_a_checkpoint_that_keeps_failing_is_logged_once_a_minute_not_every_try(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "hall.db"
    Storage(path, checkpoints=False).close()
    now = [100.0]
    checkpointer = Checkpointer(str(path), clock=lambda: now[0])
    cursor = _FlakyCursor(path)
    cursor.full = True
    with caplog.at_level(logging.WARNING, logger="boardhall.storage"):
        for _ in range(240):  # a minute of tries, every 0.25 s
            checkpointer.checkpoint(cursor)  # type: ignore[arg-type]
            now[0] += 0.25
        checkpointer.checkpoint(cursor)  # type: ignore[arg-type]
        cursor.full = False
        checkpointer.checkpoint(cursor)  # type: ignore[arg-type]
    lines = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert lines == [
        ("ERROR", "checkpoint failed (trying again every 0.25 s)"),
        ("WARNING", "checkpoint failed 241 times in a row: database or disk is full"),
        ("WARNING", "checkpoints work again after 241 failures"),
    ]
    assert caplog.records[0].exc_info is not None  # the first one carries the traceback
    assert (checkpointer.failures, checkpointer.runs) == (0, 1)
    cursor.db.close()
