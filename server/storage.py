"""Durable games and identities in SQLite (WAL), used from one dedicated thread.

:class:`Storage` methods are blocking and must run on the storage thread; :class:`AsyncStorage`
wraps them for the event loop (one worker thread, so writes happen in submission order).
"""

from __future__ import annotations

import asyncio
import json
import logging
import queue
import sqlite3
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypeVar, cast

from server.outputs import SaveGame, SaveIdentity, SaveMove, StorageOp, TruncateMoves

T = TypeVar("T")

log = logging.getLogger("boardhall.storage")

SCHEMA = """
CREATE TABLE IF NOT EXISTS identities (
    player TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    room TEXT NOT NULL,
    game TEXT NOT NULL,
    status TEXT NOT NULL,
    private INTEGER NOT NULL DEFAULT 0,
    first_player TEXT,
    second_player TEXT,
    created TEXT,
    ended TEXT,
    meta TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS games_status ON games(status);
CREATE INDEX IF NOT EXISTS games_first ON games(first_player, created);
CREATE INDEX IF NOT EXISTS games_second ON games(second_player, created);
CREATE TABLE IF NOT EXISTS moves (
    game_id TEXT NOT NULL,
    ply INTEGER NOT NULL,
    move TEXT NOT NULL,
    by TEXT NOT NULL,
    clock_ms INTEGER,
    lag_ms INTEGER NOT NULL DEFAULT 0,
    at TEXT NOT NULL,
    clocks TEXT NOT NULL,
    PRIMARY KEY (game_id, ply)
);
"""


INSERT_MOVES = (
    "INSERT OR REPLACE INTO moves SELECT "
    + ", ".join(f"json_extract(value, '$[{column}]')" for column in range(8))
    + " FROM json_each(?)"
)
"""Insert many moves, given as one JSON array of rows, in a single statement.

The sqlite3 module lets go of the GIL for every step of a statement, and under load taking it
back costs the storage thread up to a switch interval each time, so ``executemany`` over 300
rows took 200-270 ms at full speed (bench/README.md). One statement is one step."""


class Storage:
    """One SQLite database file (blocking; use from a single thread).

    With ``checkpoints=False`` this connection never copies the write-ahead log back into the
    database itself (a :class:`Checkpointer` must), so no commit waits for that copy and its
    syncs.
    """

    def __init__(self, path: str | Path, durable: bool = True, checkpoints: bool = True) -> None:
        self.path = str(path)
        self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        if self.path != ":memory:":
            self.db.execute("PRAGMA journal_mode=WAL")
            if not checkpoints:
                self.db.execute("PRAGMA wal_autocheckpoint=0")
        self.db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        self.db.executescript(SCHEMA)
        self._writer = self.db.cursor()
        """The one cursor writes go through: ``Connection.execute`` makes a cursor per call, and
        CPython's sqlite3 keeps a weak reference to each in a list it prunes only every 200th
        cursor, so those weak references outlived many commits and kept allocator arenas from
        being returned to the system."""

    def close(self) -> None:
        """Close the database."""
        self.db.close()

    def apply(self, ops: Iterable[StorageOp]) -> None:
        """Write ``ops`` in one transaction."""
        batch = list(ops)
        only_moves = [op for op in batch if isinstance(op, SaveMove)]
        if len(only_moves) == len(batch):
            # the usual batch: one statement is its own transaction, so one step (one release
            # and retake of the GIL) instead of three with BEGIN and COMMIT
            self._save_moves([_move_row(op) for op in only_moves])
            return
        db = self._writer
        db.execute("BEGIN")
        try:
            moves: list[tuple[Any, ...]] = []
            for op in batch:
                if isinstance(op, SaveMove):
                    moves.append(_move_row(op))
                    continue
                self._save_moves(moves)
                if isinstance(op, SaveGame):
                    meta = op.meta
                    seats = meta.get("seats") or {}
                    db.execute(
                        "INSERT OR REPLACE INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            meta["id"],
                            meta["room"],
                            meta["game"],
                            meta["status"],
                            int(bool(meta.get("private"))),
                            (seats.get("first") or {}).get("player"),
                            (seats.get("second") or {}).get("player"),
                            meta.get("created"),
                            meta.get("ended"),
                            json.dumps(meta, ensure_ascii=False),
                        ),
                    )
                elif isinstance(op, TruncateMoves):
                    db.execute(
                        "DELETE FROM moves WHERE game_id = ? AND ply >= ?", (op.game_id, op.ply)
                    )
                elif isinstance(op, SaveIdentity):
                    db.execute(
                        "INSERT INTO identities VALUES (?, ?, ?) ON CONFLICT(player) "
                        "DO UPDATE SET name = excluded.name",
                        (op.player, op.token_hash, op.name),
                    )
            self._save_moves(moves)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _save_moves(self, rows: list[tuple[Any, ...]]) -> None:
        """Insert the moves gathered so far in one statement (and empty the list)."""
        if rows:
            self._writer.execute(INSERT_MOVES, (json.dumps(rows, ensure_ascii=False),))
            rows.clear()

    def identity(self, token_hash: str) -> tuple[str, str, str] | None:
        """``(player, token_hash, name)`` of a token hash, if known."""
        row = self.db.execute(
            "SELECT player, token_hash, name FROM identities WHERE token_hash = ?", (token_hash,)
        ).fetchone()
        return (row[0], row[1], row[2]) if row else None

    def unfinished(self) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
        """Every waiting or playing game with its moves, oldest first."""
        rows = self.db.execute(
            "SELECT meta FROM games WHERE status IN ('waiting', 'playing') ORDER BY created"
        ).fetchall()
        return [(meta, self.moves(meta["id"])) for meta in (json.loads(r[0]) for r in rows)]

    def moves(self, game_id: str) -> list[dict[str, Any]]:
        """The stored moves of a game in order."""
        rows = self.db.execute(
            "SELECT ply, move, by, clock_ms, lag_ms, at, clocks FROM moves WHERE game_id = ? "
            "ORDER BY ply",
            (game_id,),
        ).fetchall()
        return [
            {
                "ply": r["ply"],
                "move": r["move"],
                "by": r["by"],
                "clock_ms": r["clock_ms"],
                "lag_ms": r["lag_ms"],
                "at": r["at"],
                "clocks": json.loads(r["clocks"]),
            }
            for r in rows
        ]

    def game(self, game_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        """A game's metadata and moves."""
        row = self.db.execute("SELECT meta FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            return None
        return json.loads(row[0]), self.moves(game_id)

    def games_of(self, player: str, limit: int = 50) -> list[dict[str, Any]]:
        """The most recent games of ``player`` (metadata only), newest first."""
        rows = self.db.execute(
            "SELECT meta FROM games WHERE (first_player = ? OR second_player = ?) "
            "AND status != 'closed' ORDER BY created DESC LIMIT ?",
            (player, player, limit),
        ).fetchall()
        return [json.loads(r[0]) for r in rows]


def _move_row(op: SaveMove) -> tuple[Any, ...]:
    """``op`` as a row of the moves table."""
    return (
        op.game_id,
        op.ply,
        op.move,
        op.by,
        op.clock_ms,
        op.lag_ms,
        op.at,
        json.dumps(op.clocks),
    )


class Checkpointer:
    """Copies the write-ahead log back into the database on its own thread and connection.

    SQLite normally does this inside whichever commit makes the log pass 1,000 pages, and that
    commit (with every move queued behind it) then waits for the copy and two syncs. Here a
    passive checkpoint runs every ``every`` seconds beside the writer, never blocking it. A
    passive checkpoint cannot rewind the log while commits keep coming, so once the log passes
    ``restart_frames`` a restarting checkpoint briefly holds the writer back and rewinds it.
    """

    def __init__(self, path: str, every: float = 0.25, restart_frames: int = 16_384) -> None:
        self.path = path
        self.every = every
        self.restart_frames = restart_frames
        self.runs = 0
        self.restarts = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Open a connection and start checkpointing."""
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA busy_timeout=5000")
        self._thread = threading.Thread(target=self._work, args=(db,), name="checkpoint")
        self._thread.daemon = True
        self._thread.start()

    def _work(self, db: sqlite3.Connection) -> None:
        try:
            cursor = db.cursor()  # one cursor: see Storage._writer
            while not self._stop.wait(self.every):
                self.checkpoint(cursor)
        finally:
            db.close()

    def checkpoint(self, db: sqlite3.Connection | sqlite3.Cursor) -> None:
        """One passive checkpoint, and a restarting one if the log has grown past the limit."""
        try:
            _, frames, _ = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            self.runs += 1
            if frames > self.restart_frames:
                db.execute("PRAGMA wal_checkpoint(RESTART)").fetchall()
                self.restarts += 1
        except sqlite3.Error:
            log.exception("checkpoint failed (the next one will try again)")

    def stop(self) -> None:
        """Stop and wait for the thread (the last connection to close checkpoints the rest)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None


class AsyncStorage:
    """:class:`Storage` on its own thread, awaited from the event loop.

    Writes are group-committed: the writes of one turn of the event loop go to the thread as one
    job (one wake-up of the thread, not one per write), the thread takes every job waiting in its
    queue and commits them in one transaction (``synchronous=FULL``), then calls each write back
    on its event loop (one wake-up of the loop per batch), so the cost of a durable commit is
    shared under load. Reads and writes run in submission order.
    """

    def __init__(self, path: str | Path, durable: bool = True) -> None:
        self._path = path
        self._durable = durable
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()  # C: no Condition
        self._thread: threading.Thread | None = None
        self._storage: Storage | None = None
        self.checkpointer: Checkpointer | None = None
        self._turn_ops: list[StorageOp] = []  # this turn's writes, sent as one job at its end
        self._turn_thens: list[Done] = []

    async def open(self) -> None:
        """Start the storage thread, open the database on it, start checkpointing beside it."""
        self._thread = threading.Thread(target=self._work, name="storage", daemon=True)
        self._thread.start()
        on_disk = str(self._path) != ":memory:"
        self._storage = await self.run(
            lambda: Storage(self._path, durable=self._durable, checkpoints=not on_disk)
        )
        if on_disk:
            self.checkpointer = Checkpointer(str(self._path))
            self.checkpointer.start()

    def _work(self) -> None:
        held: _Job | None = None
        while True:
            job = held if held is not None else self._queue.get()
            held = None
            if job is None:
                return
            if job.ops is None:
                self._run_call(job)
                continue
            batch = [job]
            while True:
                try:
                    nxt = self._queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is None or nxt.ops is None:
                    self._run_writes(batch)
                    batch = []
                    if nxt is None:
                        return
                    held = nxt
                    break
                batch.append(nxt)
            self._run_writes(batch)

    def _run_call(self, job: _Job) -> None:
        try:
            assert job.fn is not None
            result = job.fn()
        except BaseException as exc:  # handed to the awaiting coroutine
            job.loop.call_soon_threadsafe(job.then, None, exc)
        else:
            job.loop.call_soon_threadsafe(job.then, result, None)

    def _run_writes(self, batch: list[_Job]) -> None:
        if not batch:
            return
        error: BaseException | None = None
        try:
            assert self._storage is not None
            self._storage.apply(op for job in batch for op in job.ops or ())
        except BaseException as exc:
            error = exc
        # one wake-up of each event loop for the whole batch, not one per write
        by_loop: dict[asyncio.AbstractEventLoop, list[Done]] = {}
        for job in batch:
            by_loop.setdefault(job.loop, []).append(job.then)
        for loop, thens in by_loop.items():
            loop.call_soon_threadsafe(_call_all, thens, None, error)

    async def run(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the storage thread."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._send_turn()
        self._queue.put(_Job(loop, partial(_settle, future), None, fn))
        return cast(T, await future)

    @property
    def storage(self) -> Storage:
        """The blocking storage (only for use inside :meth:`run`)."""
        assert self._storage is not None, "storage is not open"
        return self._storage

    def submit(self, ops: list[StorageOp]) -> asyncio.Future[Any]:
        """Queue ``ops``; the future completes once they are committed."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.write(ops, partial(_settle, future))
        return future

    def write(self, ops: list[StorageOp], then: Done) -> None:
        """Queue ``ops``; ``then(None, error)`` runs on this event loop once they are committed
        (``error`` None) or failed. Cheaper than :meth:`submit` when hundreds wait at once."""
        if not self._turn_thens:
            asyncio.get_running_loop().call_soon(self._send_turn)
        self._turn_ops.extend(ops)
        self._turn_thens.append(then)

    def _send_turn(self) -> None:
        if not self._turn_thens:
            return
        ops, self._turn_ops = self._turn_ops, []
        thens, self._turn_thens = self._turn_thens, []
        job = _Job(asyncio.get_running_loop(), partial(_call_all, thens), ops, None)
        self._queue.put(job)

    async def close(self) -> None:
        """Finish pending work and close the database."""
        if self._thread is None:
            return
        if self.checkpointer is not None:
            await asyncio.get_running_loop().run_in_executor(None, self.checkpointer.stop)
            self.checkpointer = None
        if self._storage is not None:
            storage = self._storage
            await self.run(storage.close)
        self._queue.put(None)
        await asyncio.get_running_loop().run_in_executor(None, self._thread.join)
        self._thread = None


Done = Callable[[Any, BaseException | None], None]
"""Told ``(result, error)`` when a storage job is over, on the event loop that queued it."""


@dataclass(slots=True)
class _Job:
    loop: asyncio.AbstractEventLoop
    then: Done
    ops: list[StorageOp] | None
    fn: Callable[[], Any] | None


def _call_all(thens: list[Done], _: Any, error: BaseException | None) -> None:
    for then in thens:
        try:
            then(None, error)
        except Exception:  # the others must still hear of their writes
            log.exception("a storage write's callback failed")


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)
