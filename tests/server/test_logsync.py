"""The write-ahead log is synced on its own thread: a write is called back (and its outputs sent)
only after the sync that covers it, a failed sync writes again, and a slow disk holds up the
moves being written, never the event loop."""

from __future__ import annotations

import asyncio
import errno
import os
import shutil
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from server.logsync import LogSyncer
from server.outputs import SaveGame
from server.storage import AsyncStorage, StorageFailing, WriteRefused
from tests.server.storage_tools import move, opened, plies_on_disk, until


class Disk:
    """``os.fdatasync`` with a hand on it: held syncs wait for :meth:`release`; queued errors
    are raised by the next syncs."""

    def __init__(self, real: Callable[[int], None]) -> None:
        self.real = real
        self.syncs = 0
        self.started = threading.Event()
        self.open = threading.Event()
        self.open.set()
        self.errors: list[Exception] = []
        self.failed_at: list[int] = []
        """The file's size at each failed sync."""

    def hold(self) -> None:
        self.started.clear()
        self.open.clear()

    def release(self) -> None:
        self.open.set()

    def fdatasync(self, fd: int) -> None:
        self.syncs += 1
        self.started.set()
        assert self.open.wait(60), "a held sync was never released"
        if self.errors:
            self.failed_at.append(os.fstat(fd).st_size)
            raise self.errors.pop(0)
        self.real(fd)


@pytest.fixture
def disk(monkeypatch: pytest.MonkeyPatch) -> Iterator[Disk]:
    fake = Disk(os.fdatasync)
    monkeypatch.setattr(os, "fdatasync", fake.fdatasync)
    yield fake
    fake.release()


async def on_thread(path: Path, **options: Any) -> AsyncStorage:
    """An opened storage that syncs its log on a thread, where :class:`Disk` can reach it (the
    helper process of the default does its own syncs: tests/server/test_synchelper.py)."""
    return await opened(path, sync_on_thread=True, **options)


async def _turns(count: int = 20) -> None:
    for _ in range(count):
        await asyncio.sleep(0)


async def test_a_write_is_called_back_only_once_the_log_is_synced(
    tmp_path: Path, disk: Disk
) -> None:
    store = await on_thread(tmp_path / "hall.db")
    disk.hold()
    written = store.submit([move(0)])
    assert await asyncio.to_thread(disk.started.wait, 10)
    read = asyncio.ensure_future(store.run(lambda: len(store.storage.moves("g1"))))
    await _turns()
    assert plies_on_disk(tmp_path / "hall.db") == [0]  # committed, not yet synced
    assert not written.done() and not read.done()
    assert store.held == 1
    disk.release()
    await asyncio.wait_for(written, 10)
    assert await asyncio.wait_for(read, 10) == 1
    await store.close()


async def test_commits_made_during_a_sync_share_the_next_one(tmp_path: Path, disk: Disk) -> None:
    store = await on_thread(tmp_path / "hall.db")
    disk.hold()
    first = store.submit([move(0)])
    assert await asyncio.to_thread(disk.started.wait, 10)
    later = []
    for ply in range(1, 6):  # five turns, five commits, while the first sync is held
        later.append(store.submit([move(ply)]))
        await asyncio.sleep(0)
    assert plies_on_disk(tmp_path / "hall.db") == [0, 1, 2, 3, 4, 5]
    assert not any(f.done() for f in [first, *later])
    syncs = disk.syncs
    disk.release()
    await asyncio.wait_for(asyncio.gather(first, *later), 10)
    assert disk.syncs == syncs + 1
    await store.close()


async def test_a_failed_sync_holds_its_writes_and_writes_them_again(
    tmp_path: Path, disk: Disk
) -> None:
    store = await on_thread(tmp_path / "hall.db", retry_first=0.001)
    disk.errors.append(OSError(errno.EIO, "Input/output error"))
    written = store.submit([move(0), move(1)])
    await asyncio.wait_for(written, 10)
    assert store.failures_total == 1 and store.failure is None
    assert disk.syncs == 2
    assert plies_on_disk(tmp_path / "hall.db") == [0, 1]
    await store.close()


async def test_a_sync_failing_until_close_loses_the_write_without_calling_it_done(
    tmp_path: Path, disk: Disk
) -> None:
    store = await on_thread(tmp_path / "hall.db", retry_first=3600)
    disk.errors += [OSError(errno.EIO, "Input/output error")] * 3
    written = store.submit([move(0)])
    await asyncio.wait_for(asyncio.to_thread(disk.started.wait, 10), 10)
    await until(lambda: store.failure is not None)
    assert isinstance(store.failure, OSError) and not written.done()
    await store.close()
    assert written.done() and "Input/output error" in str(written.exception())


def _drive_syncer(
    path: Path, rounds: list[list[int]]
) -> tuple[list[tuple[int, OSError | None]], int]:
    """A fresh syncer on a new file at ``path``: each round's requests made at once, then the
    loop run until the round's last number is answered. What it was told, and how many syncs."""
    path.write_bytes(b"x")
    loop = asyncio.new_event_loop()
    heard: list[tuple[int, OSError | None]] = []
    awaited = 0

    def synced(number: int, error: OSError | None) -> None:
        heard.append((number, error))
        if number == awaited:
            loop.stop()

    syncer = LogSyncer(str(path), loop, synced)
    for numbers in rounds:
        awaited = numbers[-1]
        for number in numbers:
            syncer.request(number)
        give_up = loop.call_later(10, loop.stop)  # a dead syncer thread never answers
        loop.run_forever()
        give_up.cancel()
    syncer.close()
    loop.close()
    return heard, syncer.syncs


async def test_a_read_that_saw_a_write_whose_sync_failed_is_refused(
    tmp_path: Path, disk: Disk
) -> None:
    """The read saw the committed move; its sync then failed, so the move is held, not durable.
    The read used to go ahead once the sync had failed, and ``GET /games/ID`` showed the move.
    It is refused now, as is every read until the move is synced again; reads that only look up
    an identity (``held_ok``) still answer."""
    store = await on_thread(tmp_path / "hall.db", retry_first=3600)
    disk.hold()
    disk.errors.append(OSError(errno.EIO, "Input/output error"))
    written = store.submit([move(0)])
    assert await asyncio.to_thread(disk.started.wait, 10)
    read = asyncio.ensure_future(store.run(lambda: len(store.storage.moves("g1"))))
    await _turns()
    assert not read.done()
    disk.release()
    with pytest.raises(StorageFailing, match="Input/output error"):
        await asyncio.wait_for(read, 10)
    assert store.failure is not None and not written.done()
    with pytest.raises(StorageFailing):
        await store.run(lambda: len(store.storage.moves("g1")))
    assert await store.run(lambda: 7, held_ok=True) == 7
    await store.close()  # writes the held move: this sync succeeds
    await asyncio.wait_for(written, 10)
    assert plies_on_disk(tmp_path / "hall.db") == [0]


def test_the_syncer_reports_every_request_in_order(tmp_path: Path) -> None:
    """Fifty requests at once: answered in order, some covered together by one sync."""
    heard, syncs = _drive_syncer(tmp_path / "log", [list(range(1, 51))])
    numbers = [n for n, _ in heard]
    assert numbers == sorted(numbers) and numbers[-1] == 50
    assert all(error is None for _, error in heard)
    assert syncs == len(heard) <= 50


async def test_the_writing_connection_never_syncs_itself_when_the_syncer_does(
    tmp_path: Path,
) -> None:
    """Even ``NORMAL`` syncs the log's header whenever a commit starts the log over, on the
    loop; with the syncer, the writer runs with ``synchronous=OFF`` (and FULL for its close)."""
    durable = await opened(tmp_path / "durable.db")
    relaxed = await opened(tmp_path / "relaxed.db", durable=False)
    assert durable.writer.db.execute("PRAGMA synchronous").fetchone()[0] == 0
    assert relaxed.writer.db.execute("PRAGMA synchronous").fetchone()[0] == 1
    assert durable.writer.db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
    await durable.submit([move(0)])
    for store in (durable, relaxed):
        await store.close()
    assert plies_on_disk(tmp_path / "durable.db") == [0]
    assert not (tmp_path / "durable.db-wal").exists()  # the close checkpointed it all


def test_without_fdatasync_the_syncer_uses_fsync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """macOS and Windows have no ``os.fdatasync``."""
    log = tmp_path / "log"
    synced: list[int] = []
    monkeypatch.delattr(os, "fdatasync", raising=False)
    monkeypatch.setattr(os, "fsync", synced.append)
    assert _drive_syncer(log, [[1], [2]])[0] == [(1, None), (2, None)]
    assert len(synced) == 2


def test_an_unexpected_error_in_a_sync_is_reported_and_the_syncer_lives_on(
    tmp_path: Path, disk: Disk
) -> None:
    log = tmp_path / "log"
    disk.errors.append(RuntimeError("the disk driver broke"))
    (first, error), second = _drive_syncer(log, [[1], [2]])[0]
    assert first == 1 and isinstance(error, OSError) and "driver broke" in str(error)
    assert second == (2, None)


async def test_a_broken_write_beside_a_failed_sync_is_refused_once_and_the_rest_written(
    tmp_path: Path, disk: Disk
) -> None:
    """The failed sync puts the whole commit back, the broken write too; the retry refuses it
    again and it hears of that once."""
    store = await on_thread(tmp_path / "hall.db", retry_first=0.001)
    disk.errors.append(OSError(errno.EIO, "Input/output error"))
    heard: list[tuple[str, BaseException | None]] = []
    store.write([move(0)], lambda _, error: heard.append(("good", error)))
    store.write([SaveGame(meta={"room": "K7QD"})], lambda _, error: heard.append(("bad", error)))
    await store.submit([move(1)])
    assert [name for name, _ in heard] == ["good", "bad"]
    assert heard[0][1] is None and isinstance(heard[1][1], WriteRefused)
    assert store.failures_total == 1 and disk.syncs == 2
    assert plies_on_disk(tmp_path / "hall.db") == [0, 1]
    await store.close()


def _log_salt(path: Path) -> bytes:
    """The salt in a write-ahead log's header: a new one each time the log starts over."""
    return path.read_bytes()[16:24]


def _crash_copy(db: Path, into: Path, lost: tuple[int, int] | None, salt: bytes) -> Path:
    """The database and its log as a crash would leave them, with the log's bytes ``lost``
    zeroed if the log is still the one whose header has ``salt`` (the pages a failed sync did
    not write; a log started over since has no such bytes)."""
    into.mkdir()
    shutil.copy(db, into / db.name)
    log = into / f"{db.name}-wal"
    shutil.copy(f"{db}-wal", log)
    if lost is not None and _log_salt(log) == salt:
        data = bytearray(log.read_bytes())
        start, end = lost
        data[start:end] = bytes(end - start)
        log.write_bytes(bytes(data))
    return into / db.name


async def test_after_a_failed_sync_the_log_starts_over_so_a_crash_keeps_the_rewritten_moves(
    tmp_path: Path, disk: Disk
) -> None:
    """fsyncgate: a failed ``fdatasync`` may have dropped the log's pages it could not write,
    and the next sync succeeds all the same. Moves written again after the failure must not
    sit in the log behind that hole, where crash recovery stops reading: the log is copied into
    the database and started over first."""
    path = tmp_path / "hall.db"
    store = await on_thread(path, retry_first=0.001)
    assert store.checkpointer is not None
    await asyncio.to_thread(store.checkpointer.stop)  # no checkpoint but the one under test
    await store.submit([move(0)])
    wal = Path(f"{path}-wal")
    before, salt = wal.stat().st_size, _log_salt(wal)
    disk.errors.append(OSError(errno.EIO, "Input/output error"))
    await store.submit([move(1), move(2)])
    assert store.failures_total == 1 and len(disk.failed_at) == 1
    lost = (before, disk.failed_at[0])
    assert lost[1] > lost[0]  # the failed commit's frames
    await store.submit([move(3)])
    crashed = _crash_copy(path, tmp_path / "crash", lost, salt)
    assert plies_on_disk(crashed) == [0, 1, 2, 3]
    with sqlite3.connect(crashed) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    await store.close()


async def test_without_a_failed_sync_the_log_is_not_started_over(
    tmp_path: Path, disk: Disk
) -> None:
    """The emulated crash of the test above loses nothing when no sync failed (the control:
    starting the log over is the failure path's, not every commit's)."""
    path = tmp_path / "hall.db"
    store = await on_thread(path)
    assert store.checkpointer is not None
    await asyncio.to_thread(store.checkpointer.stop)
    await store.submit([move(0)])
    wal = Path(f"{path}-wal")
    salt = _log_salt(wal)
    await store.submit([move(1), move(2)])
    assert _log_salt(wal) == salt
    assert plies_on_disk(_crash_copy(path, tmp_path / "crash", None, salt)) == [0, 1, 2]
    await store.close()


async def test_a_log_that_cannot_start_over_yet_keeps_its_writes_held(
    tmp_path: Path, disk: Disk
) -> None:
    """A reader in the way of the restart: the writes stay held and go in once it is gone."""
    path = tmp_path / "hall.db"
    store = await on_thread(path, retry_first=0.001)
    await store.submit([move(0)])
    reader = sqlite3.connect(path)
    reader.execute("BEGIN")
    assert reader.execute("SELECT count(*) FROM moves").fetchone()[0] == 1
    disk.errors.append(OSError(errno.EIO, "Input/output error"))
    written = store.submit([move(1)])
    await until(lambda: store.failures_total >= 2)
    assert "busy" in str(store.failure) and not written.done()
    reader.execute("COMMIT")
    reader.close()
    await asyncio.wait_for(written, 10)
    assert store.failure is None and plies_on_disk(path) == [0, 1]
    await store.close()
