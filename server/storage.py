"""Durable games and identities in SQLite (WAL).

:class:`Storage` is one blocking connection; :class:`AsyncStorage` serves the event loop: writes
group-committed on the loop's thread at the end of each turn and made durable by a
:mod:`~server.logsync` syncer in a helper process, reads on a thread, the write-ahead log copied
back by a :class:`Checkpointer` on another. The loop never waits for the disk.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from server.dbcheck import check_database, stamp_version
from server.glicko2 import Rating
from server.logsync import LogSyncer, Syncer, start_syncer
from server.outputs import (
    SaveAlive,
    SaveChat,
    SaveGame,
    SaveIdentity,
    SaveMove,
    SaveOnline,
    SaveRatings,
    SaveStopped,
    StorageOp,
    TruncateMoves,
)
from server.ratings import STANDARD

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
    meta TEXT NOT NULL,
    result TEXT,
    variant TEXT NOT NULL DEFAULT 'standard'
);
CREATE INDEX IF NOT EXISTS games_status ON games(status);
CREATE INDEX IF NOT EXISTS games_ended ON games(status, ended);
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
CREATE TABLE IF NOT EXISTS chat (
    game_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    sender TEXT NOT NULL,
    role TEXT NOT NULL,
    audience TEXT NOT NULL,
    text TEXT NOT NULL,
    player TEXT,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS alive (
    id INTEGER PRIMARY KEY CHECK (id = 0),
    run TEXT NOT NULL,
    wall REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS stopped (
    id INTEGER PRIMARY KEY CHECK (id = 0),
    run TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS last_online (
    player TEXT PRIMARY KEY,
    at TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS variants_known (
    id INTEGER PRIMARY KEY CHECK (id = 0),
    upto INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS ratings (
    player TEXT NOT NULL,
    key TEXT NOT NULL,
    rating REAL NOT NULL,
    deviation REAL NOT NULL,
    volatility REAL NOT NULL,
    games INTEGER NOT NULL,
    updated REAL,
    PRIMARY KEY (player, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ratings_top ON ratings(key, rating DESC, player, deviation);
CREATE TABLE IF NOT EXISTS rating_changes (
    game_id TEXT NOT NULL,
    player TEXT NOT NULL,
    key TEXT NOT NULL,
    before REAL NOT NULL,
    after REAL NOT NULL,
    PRIMARY KEY (game_id, player)
) WITHOUT ROWID;
"""
"""Every table is created if missing when a database opens, so a database made before a table
was added (``chat``, ``alive``, ``stopped``, ``ratings``, ``rating_changes``, ``last_online``)
opens as it is and gets the new table empty (``variants_known`` too: every game's variant is
then checked once, see :data:`VARIANTS_CHECK`); so is every index (``games_ended`` and
``ratings_top``, built from the rows already there when an older database first opens). A
column added to a table since (:data:`ADDED_COLUMNS`) is added when an older database opens,
filled in the rows already there from what they hold, or empty (NULL); the indexes on such
columns (:data:`LATER_INDEXES`) are made after it."""

RECORDED_VARIANT = f"COALESCE(NULLIF(json_extract(meta, '$.variant'), ''), '{STANDARD}')"
"""The variant a game's stored record names, as SQL (as :func:`stored_variant` reads it)."""

ADDED_COLUMNS: tuple[tuple[str, str, str, str | None], ...] = (
    ("ratings", "updated", "REAL", None),
    ("chat", "player", "TEXT", None),
    ("games", "result", "TEXT", "json_extract(meta, '$.result')"),
    ("games", "variant", f"TEXT NOT NULL DEFAULT '{STANDARD}'", RECORDED_VARIANT),
)
"""``(table, column, type, fill)`` of each column added to a table after the table itself:
``fill`` is the SQL expression that fills it in the rows an older database has (None: they
keep NULL). A game's ``variant`` is the one its record names (as :func:`stored_variant` reads
it for the games written since)."""

VARIANTS_CHECK = (
    f"UPDATE games SET variant = {RECORDED_VARIANT} WHERE rowid > ?"
    f" AND variant = '{STANDARD}' AND {RECORDED_VARIANT} != '{STANDARD}'"
)
"""Give the games stored after rowid ``?`` whose ``variant`` is the column's default the one
their records name: the games an older server (one that does not know the column) stored
into a database this server had migrated got the default, whatever their variant. Only the
games after the last one known right are read (``variants_known``): a search by rowid, as a
game's row keeps its rowid and rows are never deleted, so every game stored since has a
greater one."""

LATER_INDEXES = """
DROP INDEX IF EXISTS games_first_totals;
DROP INDEX IF EXISTS games_second_totals;
CREATE INDEX IF NOT EXISTS games_first_variant_totals
    ON games(first_player, status, game, variant, result, created, ended);
CREATE INDEX IF NOT EXISTS games_second_variant_totals
    ON games(second_player, status, game, variant, result, created, ended);
"""
"""Indexes on columns of :data:`ADDED_COLUMNS`, made once those are there. The
``*_variant_totals`` pair holds all a player's profile counts
(:data:`server.profiles.TOTALS_QUERY`), so it is read from them alone, never from the table's
rows. It replaces the ``*_totals`` pair of before the ``variant`` column (the same without it),
dropped when an older database opens."""


def stored_variant(meta: dict[str, Any]) -> str:
    """The ``variant`` column of a game's row: the variant its record names, ``standard``
    (as a rating key reads it, :func:`server.ratings.rating_key`) when it names none.

    >>> stored_variant({"variant": "russian"}), stored_variant({"variant": None})
    ('russian', 'standard')
    """
    return str(meta.get("variant") or STANDARD)


INSERT_MOVES = (
    "INSERT OR REPLACE INTO moves SELECT "
    + ", ".join(f"json_extract(value, '$[{column}]')" for column in range(8))
    + " FROM json_each(?)"
)
"""Insert many moves, given as one JSON array of rows, in a single statement.

The sqlite3 module lets go of the GIL for every step of a statement, and under load taking it
back cost the writing thread up to a switch interval each time (when it was a storage thread
beside the busy loop, an ``executemany`` over 300 rows took 200-270 ms at full speed,
bench/README.md). One statement is one step."""

INSERT_MOVE = "INSERT OR REPLACE INTO moves VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
"""Insert one move: at a steady rate most commits hold one, and this skips building and parsing
the JSON array."""

_BINDABLE = frozenset({str, int, float, type(None)})
"""Types :data:`INSERT_MOVE` stores as :data:`INSERT_MOVES` does. Anything else (a bug) takes
the JSON array, which stores it as JSON text rather than failing the commit as the database's
fault (a failed commit is held and tried again)."""


class Storage:
    """One SQLite database file (blocking; use from a single thread).

    With ``checkpoints=False`` this connection never copies the write-ahead log back into the
    database itself (a :class:`Checkpointer` must), so no commit waits for that copy and its
    syncs. With ``synced_elsewhere`` as well, it never syncs at all (``synchronous=OFF``):
    whoever uses it must sync the log after each commit before relying on it (a
    :mod:`server.logsync` syncer). Even ``NORMAL`` syncs the log's header whenever a
    commit starts the log over after a checkpoint; the log sync after that commit covers the
    header too, and the checkpoints, on their own connection, still sync what they copy.
    """

    def __init__(
        self,
        path: str | Path,
        durable: bool = True,
        checkpoints: bool = True,
        synced_elsewhere: bool = False,
    ) -> None:
        assert not (checkpoints and synced_elsewhere), "its checkpoints would not be synced"
        self.path = str(path)
        self.synced_elsewhere = synced_elsewhere
        self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        check_database(self.db)  # before anything below changes the file
        if self.path != ":memory:":
            self.db.execute("PRAGMA journal_mode=WAL")
            if not checkpoints:
                self.db.execute("PRAGMA wal_autocheckpoint=0")
        self._mode = "OFF" if synced_elsewhere else "FULL" if durable else "NORMAL"
        self.db.execute(f"PRAGMA synchronous={self._mode}")
        self.db.executescript(SCHEMA)
        stamp_version(self.db)
        added = self._add_columns()
        self.db.executescript(LATER_INDEXES)
        self._check_variants(("games", "variant") in added)
        self._writer = self.db.cursor()
        """The one cursor writes go through: ``Connection.execute`` makes a cursor per call, and
        CPython's sqlite3 keeps a weak reference to each in a list it prunes only every 200th
        cursor, so those weak references outlived many commits and kept allocator arenas from
        being returned to the system."""

    def _add_columns(self) -> set[tuple[str, str]]:
        """Add to an older database's tables the columns of :data:`ADDED_COLUMNS` they lack,
        each with its rows filled in the same transaction; the ``(table, column)`` added."""
        added = set()
        for table, column, kind, fill in ADDED_COLUMNS:
            have = {row[1] for row in self.db.execute(f"PRAGMA table_info({table})")}
            if column in have:
                continue
            added.add((table, column))
            self.db.execute("BEGIN")
            try:
                self.db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
                if fill is not None:
                    self.db.execute(f"UPDATE {table} SET {column} = {fill}")
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
        return added

    def _check_variants(self, filled: bool) -> None:
        """Correct the variant of the games an older server stored since the last game known
        right (:data:`VARIANTS_CHECK`), and remember the last game as known right. ``filled``:
        the column has just been filled from every record. A database that names no last game
        known right (migrated by a version of this server that did not keep it) has every game
        checked, once."""
        last = self.db.execute("SELECT MAX(rowid) FROM games").fetchone()[0] or 0
        row = self.db.execute("SELECT upto FROM variants_known WHERE id = 0").fetchone()
        known = last if filled else row[0] if row is not None else 0
        if row is not None and row[0] == last:
            return  # nothing stored since: no write at all (a second connection opening)
        self.db.execute("BEGIN")
        try:
            if known < last:
                self.db.execute(VARIANTS_CHECK, (known,))
            self.db.execute("INSERT OR REPLACE INTO variants_known VALUES (0, ?)", (last,))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        """Close the database (the last connection to close checkpoints the log, synced),
        remembering every game stored as known right (this server stored them so, or checked
        them when it opened the database), so that the next open checks none of them."""
        if self.synced_elsewhere:
            self.db.execute("PRAGMA synchronous=FULL")
        try:
            self._check_variants(filled=True)
        except sqlite3.Error as error:  # a failing disk: the next open checks a little more
            log.warning("could not note the games' variants as checked: %s", error)
        self.db.close()

    def restart_log(self) -> None:
        """Copy the whole write-ahead log into the database, sync the database and empty the
        log, so the next commit starts a new log; raises :class:`sqlite3.OperationalError` if a
        reader or another checkpoint is in the way for longer than 0.2 s.

        After a failed sync of the log, Linux may have dropped the pages it could not write
        and reports that only once: the next sync succeeds with a hole in the log on the disk,
        and a crash recovery stops reading the log at that hole, dropping every later commit.
        The copy reads the log through the cache, which still holds those pages."""
        db = self._writer
        db.execute("PRAGMA synchronous=FULL")
        db.execute("PRAGMA busy_timeout=200")
        try:
            busy, _, _ = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        finally:
            db.execute(f"PRAGMA synchronous={self._mode}")
            db.execute("PRAGMA busy_timeout=5000")
        if busy:
            raise sqlite3.OperationalError("cannot start the write-ahead log over: it is busy")

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
                    db.execute(  # an upsert keeps the row's rowid: the order games began in
                        "INSERT INTO games (id, room, game, status, private, first_player, "
                        "second_player, created, ended, meta, result, variant) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                        "ON CONFLICT(id) DO UPDATE SET room = excluded.room, "
                        "game = excluded.game, status = excluded.status, "
                        "private = excluded.private, first_player = excluded.first_player, "
                        "second_player = excluded.second_player, created = excluded.created, "
                        "ended = excluded.ended, meta = excluded.meta, "
                        "result = excluded.result, variant = excluded.variant",
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
                            meta.get("result"),
                            stored_variant(meta),
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
                elif isinstance(op, SaveRatings):
                    self._save_ratings(op)
                elif isinstance(op, SaveAlive):
                    db.execute("INSERT OR REPLACE INTO alive VALUES (0, ?, ?)", (op.run, op.wall))
                elif isinstance(op, SaveStopped):
                    db.execute("INSERT OR REPLACE INTO stopped VALUES (0, ?)", (op.run,))
                elif isinstance(op, SaveOnline):
                    db.execute(
                        "INSERT OR REPLACE INTO last_online VALUES (?, ?)", (op.player, op.at)
                    )
                elif isinstance(op, SaveChat):
                    db.execute(
                        "INSERT OR REPLACE INTO chat "
                        "(game_id, seq, sender, role, audience, text, player) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (op.game_id, op.seq, op.sender, op.role, op.audience, op.text, op.player),
                    )
                    if op.keep_from > 0:
                        db.execute(
                            "DELETE FROM chat WHERE game_id = ? AND seq < ?",
                            (op.game_id, op.keep_from),
                        )
            self._save_moves(moves)
            db.execute("COMMIT")
        except BaseException:
            if self.db.in_transaction:  # some errors (a full disk) have rolled it back already
                db.execute("ROLLBACK")
            raise

    def _save_ratings(self, op: SaveRatings) -> None:
        """Apply a rated game's new ratings unless its changes are stored already (a game is
        never applied twice, whatever writes it again)."""
        db = self._writer
        for change in op.changes:
            db.execute(
                "INSERT OR IGNORE INTO rating_changes VALUES (?, ?, ?, ?, ?)",
                (op.game_id, change.player, op.key, change.before.rating, change.after.rating),
            )
            if db.rowcount != 1:
                continue
            new = change.after
            db.execute(
                "INSERT OR REPLACE INTO ratings"
                " (player, key, rating, deviation, volatility, games, updated)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    change.player,
                    op.key,
                    new.rating,
                    new.deviation,
                    new.volatility,
                    new.games,
                    new.updated,
                ),
            )

    def _save_moves(self, rows: list[tuple[Any, ...]]) -> None:
        """Insert the moves gathered so far in one statement (and empty the list)."""
        if len(rows) == 1 and all(type(value) in _BINDABLE for value in rows[0]):
            self._writer.execute(INSERT_MOVE, rows[0])
        elif rows:
            self._writer.execute(INSERT_MOVES, (json.dumps(rows, ensure_ascii=False),))
        rows.clear()

    def identity(self, token_hash: str) -> tuple[str, str, str] | None:
        """``(player, token_hash, name)`` of a token hash, if known."""
        row = self.db.execute(
            "SELECT player, token_hash, name FROM identities WHERE token_hash = ?", (token_hash,)
        ).fetchone()
        return (row[0], row[1], row[2]) if row else None

    def ratings(self, player: str) -> dict[str, Rating]:
        """``player``'s stored ratings by key (none for a player never rated)."""
        rows = self.db.execute(
            "SELECT key, rating, deviation, volatility, games, updated FROM ratings"
            " WHERE player = ?",
            (player,),
        ).fetchall()
        return {r[0]: Rating(r[1], r[2], r[3], r[4], r[5]) for r in rows}

    def ratings_of(self, players: Iterable[str]) -> dict[str, dict[str, Rating]]:
        """The stored ratings of each of ``players`` who has any."""
        found = {player: self.ratings(player) for player in players}
        return {player: ratings for player, ratings in found.items() if ratings}

    def alive(self) -> tuple[str, float] | None:
        """``(run, wall)`` of the last stamp that the server was alive, if any."""
        row = self.db.execute("SELECT run, wall FROM alive WHERE id = 0").fetchone()
        return (str(row[0]), float(row[1])) if row else None

    def stopped(self) -> str | None:
        """The run that last stopped cleanly, if any."""
        row = self.db.execute("SELECT run FROM stopped WHERE id = 0").fetchone()
        return str(row[0]) if row else None

    def unfinished(self) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
        """Every waiting or playing game with its moves, oldest first."""
        rows = self.db.execute(
            "SELECT meta FROM games WHERE status IN ('waiting', 'playing') ORDER BY created"
        ).fetchall()
        return [(meta, self.moves(meta["id"])) for meta in (json.loads(r[0]) for r in rows)]

    FINISHED_SINCE = (
        "SELECT meta FROM games WHERE status = 'over' AND ended >= ? ORDER BY ended"
    )
    """Games that ended at or after a time (``ended`` is ISO 8601 UTC to the second, so it
    sorts as text): searched in the ``games_ended`` index, not a scan of every game."""

    def finished_since(self, since: str) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
        """Every game that ended at or after ``since`` (as :meth:`Hall.wall` writes times) and
        whose room had not closed (everyone left it), with its moves, oldest end first: the
        finished rooms a restart brings back."""
        rows = self.db.execute(self.FINISHED_SINCE, (since,)).fetchall()
        metas = [meta for meta in (json.loads(r[0]) for r in rows) if not meta.get("closed")]
        return [(meta, self.moves(meta["id"])) for meta in metas]

    def unfinished_chat(
        self, finished: Iterable[str] = ()
    ) -> dict[str, list[dict[str, Any]]]:
        """The kept chat lines of every waiting or playing game, and of the games ``finished``
        (ids), by game id, each game's in the order they were said:
        ``{seq, sender, role, audience, text, player}`` (``player``: the speaker's id, None
        for a line stored before lines kept it)."""
        rows = self.db.execute(
            "SELECT c.game_id, c.seq, c.sender, c.role, c.audience, c.text, c.player "
            "FROM chat AS c "
            "JOIN games AS g ON g.id = c.game_id WHERE g.status IN ('waiting', 'playing') "
            "ORDER BY c.game_id, c.seq"
        ).fetchall()
        for game_id in finished:
            rows += self.db.execute(
                "SELECT game_id, seq, sender, role, audience, text, player FROM chat "
                "WHERE game_id = ? ORDER BY seq",
                (game_id,),
            ).fetchall()
        found: dict[str, list[dict[str, Any]]] = {}
        for r in rows:
            found.setdefault(r["game_id"], []).append(
                {k: r[k] for k in ("seq", "sender", "role", "audience", "text", "player")}
            )
        return found

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

    def games_of(
        self, player: str, limit: int = 50, viewer: str | None = None
    ) -> list[dict[str, Any]]:
        """The ``limit`` most recent games of ``player`` that ``viewer`` may see (metadata and
        ``plies``, the number of moves stored), newest first (games begun in the same second in
        the order they were first stored): private games only when ``viewer`` is seated in
        them."""
        rows = self.db.execute(
            "SELECT meta, (SELECT COUNT(*) FROM moves WHERE moves.game_id = games.id) "
            "FROM games WHERE (first_player = ?1 OR second_player = ?1) "
            "AND status != 'closed' "
            "AND (private = 0 OR first_player = ?2 OR second_player = ?2) "
            "ORDER BY created DESC, rowid DESC LIMIT ?3",  # created is to the second
            (player, viewer, limit),
        ).fetchall()
        return [{**json.loads(meta), "plies": plies} for meta, plies in rows]


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

    TELL_EVERY_S = 60.0
    """How often a checkpoint that keeps failing is logged again."""

    def __init__(
        self,
        path: str,
        every: float = 0.25,
        restart_frames: int = 16_384,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = path
        self.every = every
        self.restart_frames = restart_frames
        self.runs = 0
        self.restarts = 0
        self.failures = 0
        """Checkpoints failed since the last one that worked."""
        self._clock = clock
        self._last_told = 0.0
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
        except sqlite3.Error as error:
            self.failures += 1
            if self.failures == 1:
                log.exception("checkpoint failed (trying again every %g s)", self.every)
                self._last_told = self._clock()
            else:  # a full disk fails every try: one line with the reason each minute at most
                now = self._clock()
                if now - self._last_told >= self.TELL_EVERY_S:
                    log.warning("checkpoint failed %d times in a row: %s", self.failures, error)
                    self._last_told = now
            return
        if self.failures:
            log.warning("checkpoints work again after %d failures", self.failures)
            self.failures = 0

    def stop(self) -> None:
        """Stop and wait for the thread (the last connection to close checkpoints the rest)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None


def database_files(path: str | Path) -> list[Path]:
    """The files of the SQLite database at ``path`` in WAL mode: itself, its log, its index."""
    return [Path(f"{path}{suffix}") for suffix in ("", "-wal", "-shm")]


class AsyncStorage:
    """The database for the event loop: writes committed on the loop's thread and synced on
    another, reads on a third.

    Writes are group-committed on the event loop's own thread: every write queued during one
    turn of the loop is committed in one transaction once the turn's other callbacks are done:
    into the write-ahead log, not synced (with ``durable`` the writing connection never syncs;
    see :class:`Storage`). With ``durable``, a syncer (:mod:`server.logsync`: a helper process,
    or a thread with ``sync_on_thread``) then syncs the log, and only then is each write called
    back, in order; commits made while a sync runs are covered by the next one. So the loop
    never waits for the disk (DESIGN.md): a disk in a slow spell delays the moves being written,
    not every room, ping and timer. Committing on a storage thread as well cost more (steady p99
    4.9-5.1 ms against 3.7-4.0 ms, bench/README.md), as each batch waited twice for the GIL.

    A commit that fails (a full disk, an I/O error, a database made read-only) is not given up:
    its writes stay queued, nothing of them is called back, and the whole queue is committed
    again after ``retry_first`` seconds, doubling up to ``retry_most``, until it succeeds. So an
    output that waits for its write is never sent before the write is durable, and no write is
    lost while the process lives; writing every op again is safe, as each one replaces by its key.
    :attr:`failure` says what went wrong while writes are held.

    Reads (:meth:`run`) run on a reader thread with a connection of their own, so a long read
    never holds up the loop; a read sees every write queued before it (those are committed
    first), and returns only once every commit it may have seen is synced, so it shows nothing
    that may not survive a crash. ``":memory:"`` is a throwaway
    database: a temporary file, removed by :meth:`close`.
    """

    def __init__(
        self,
        path: str | Path,
        durable: bool = True,
        after_commit: Callable[[], None] | None = None,
        on_health: Callable[[bool], None] | None = None,
        retry_first: float = 0.05,
        retry_most: float = 2.0,
        sync_on_thread: bool = False,
    ) -> None:
        self._path = path
        self._sync_on_thread = sync_on_thread
        """Sync the log on a thread, not in a helper process (see :mod:`server.logsync`)."""
        self._durable = durable
        self._after_commit = after_commit
        """Called once a turn's writes have all been called back (to act on them together)."""
        self._on_health = on_health
        """Told ``False`` when a spell of failed commits starts, ``True`` when it ends (before
        the held writes are called back: :meth:`held_games` still names their games)."""
        self._throwaway: tempfile.TemporaryDirectory[str] | None = None
        self._reads: ThreadPoolExecutor | None = None
        self._writer: Storage | None = None
        self._reader: Storage | None = None
        self.checkpointer: Checkpointer | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._turn_ops: list[StorageOp] = []  # this turn's writes, committed at its end
        self._turn_sizes: list[int] = []  # how many of them each write has
        self._turn_thens: list[Done] = []
        self.retry_first = retry_first
        self.retry_most = retry_most
        self.failure: BaseException | None = None
        """The last commit's error while writes are held for another try (None when healthy)."""
        self.failing_since: float | None = None
        """``time.monotonic()`` of the first failed commit of the current spell."""
        self.failures_total = 0
        self.observe_commit: Callable[[float], None] | None = None
        """Told the seconds from the start of each commit until its writes are durable (for
        ``/metrics``; not for a commit of liveness stamps alone)."""
        self._commit_started = 0.0
        self._retry_in = retry_first
        self._retry: asyncio.TimerHandle | None = None
        self._syncer: Syncer | None = None
        self._commits = 0  # numbers the commits whose log syncs are awaited
        self._syncing: deque[_Batch] = deque()  # committed, waiting for their sync
        self._sync_waiters: list[tuple[int, asyncio.Future[None]]] = []
        self._log_suspect = False
        """A log sync failed: the log is started over (see :meth:`Storage.restart_log`)
        before the next commit."""
        self._unsynced_seen: tuple[int, OSError] | None = None
        """After a failed log sync: the commit that writes its writes again, and the error.
        Until that commit is synced the reader sees those writes though they are not durable."""

    def held_games(self) -> set[str]:
        """The games with a move among the writes waiting for a commit."""
        return {op.game_id for op in self._turn_ops if isinstance(op, SaveMove)}

    @property
    def held(self) -> int:
        """How many writes are not durable yet (a turn's worth normally; more while failing)."""
        return len(self._turn_thens) + sum(len(batch.thens) for batch in self._syncing)

    async def open(self) -> None:
        """Open the database (the writer here, the reader on its thread), start checkpointing."""
        path, durable = str(self._path), self._durable
        if path == ":memory:":
            self._throwaway = tempfile.TemporaryDirectory(prefix="boardhall-")
            path, durable = str(Path(self._throwaway.name) / "throwaway.db"), False
        self._writer = Storage(path, durable=False, checkpoints=False, synced_elsewhere=durable)
        self._reads = ThreadPoolExecutor(1, thread_name_prefix="boardhall-reads")
        loop = self._loop = asyncio.get_running_loop()  # kept: getting it is a system call
        if durable:
            start = LogSyncer if self._sync_on_thread else start_syncer
            self._syncer = start(path + "-wal", loop, self._synced)
        self._reader = await loop.run_in_executor(
            self._reads, partial(Storage, path, durable=durable, checkpoints=False)
        )
        self.checkpointer = Checkpointer(path)
        self.checkpointer.start()

    @property
    def syncer(self) -> Syncer | None:
        """What syncs the log (None when not ``durable``)."""
        return self._syncer

    @property
    def storage(self) -> Storage:
        """The reading connection (only for use inside :meth:`run`)."""
        assert self._reader is not None, "storage is not open"
        return self._reader

    @property
    def writer(self) -> Storage:
        """The writing connection (used by :meth:`write`, on the event loop's thread)."""
        assert self._writer is not None, "storage is not open"
        return self._writer

    async def run(self, fn: Callable[[], T], *, held_ok: bool = False) -> T:
        """Run ``fn`` on the reader thread, seeing the writes queued before it, and return once
        every commit it may have seen is durable.

        The reader sees each commit as soon as it is made, synced or not, and commits go on
        while it reads: so the wait comes after the read, for every commit made by then (a
        wait before it let in those made between the wait and the read).

        Raises:
            StorageFailing: a log sync failed and the writes it held are not yet synced again:
                what was read may hold them, committed but not durable (a failed commit shows
                nothing, so reads go on while commits fail); ``held_ok`` reads answer anyway
                (an identity looked up for a ``hello``, which shows no game).
        """
        assert self._reads is not None and self._loop is not None, "storage is not open"
        if self.failure is None:
            self._commit_turn()
        result = await self._loop.run_in_executor(self._reads, fn)
        await self.durable_so_far()  # a read never shows what may not survive a crash
        if self._unsynced_seen is not None and not held_ok:
            raise StorageFailing(self._unsynced_seen[1])
        return result

    def submit(self, ops: list[StorageOp]) -> asyncio.Future[Any]:
        """Queue ``ops``; the future completes once they are durable."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.write(ops, partial(_settle, future))
        return future

    def write(self, ops: list[StorageOp], then: Done) -> None:
        """Queue ``ops`` with this turn's writes; ``then(None, error)`` runs on this event loop
        once they are durable (``error`` None: committed and, with ``durable``, synced).
        ``error`` is :class:`WriteRefused` for a write that can never be stored (its ops are
        broken), or :class:`StorageClosed` if the storage closed before it could be written.
        Cheaper than :meth:`submit` when hundreds wait at once."""
        if not self._turn_thens and self.failure is None:  # while failing, the retry commits
            assert self._loop is not None, "storage is not open"
            self._loop.call_soon(self._commit_turn)
        self._turn_ops.extend(ops)
        self._turn_sizes.append(len(ops))
        self._turn_thens.append(then)

    def _commit_turn(self) -> bool:
        """Commit the writes queued so far as one transaction and call each of them back (after
        the log sync, with ``durable``), or, if the database fails, keep them queued and try
        again later. Whether none is left."""
        if not self._turn_thens:
            return True
        self._commit_started = time.perf_counter()
        try:
            if self._log_suspect:  # no commit may follow a part of the log that failed
                self.writer.restart_log()
                self._log_suspect = False
            self.writer.apply(self._turn_ops)
        except sqlite3.Error as exc:
            self._failed(exc)
            return False
        except Exception:  # not the database's fault: one of the writes is broken
            return self._commit_one_by_one()
        self._recovered()
        self._settle(len(self._turn_thens), [])
        return True

    def _commit_one_by_one(self) -> bool:
        """Commit each queued write on its own, refusing the broken ones, so that one broken
        write holds back nobody else's."""
        refused: list[tuple[int, BaseException]] = []
        start = 0
        for index, size in enumerate(self._turn_sizes):
            try:
                self.writer.apply(self._turn_ops[start : start + size])
            except sqlite3.Error as exc:
                self._settle(index, refused)
                self._failed(exc)
                return False
            except Exception as exc:
                log.error("a write cannot be stored", exc_info=exc)
                refused.append((index, WriteRefused(f"{type(exc).__name__}: {exc}")))
            start += size
        self._recovered()
        self._settle(len(self._turn_thens), refused)
        return True

    def _settle(self, count: int, refused: list[tuple[int, BaseException]]) -> None:
        """The first ``count`` queued writes are over (committed, or ``refused`` by index):
        unqueue them and call them back."""
        ops, sizes, thens = self._unqueue(count)
        errors = dict(refused)
        if self._syncer is None:
            self._call_back(thens, errors)
            if self.observe_commit is not None and not _stamps_only(ops, thens):
                self.observe_commit(time.perf_counter() - self._commit_started)
            return
        if _stamps_only(ops, thens):
            # committed is all a stamp needs: a killed process leaves it in the log, and it is
            # never ahead of an earlier write; the next commit's sync makes it durable too
            _call_all(thens, errors)
            return
        self._commits += 1
        self._syncing.append(
            _Batch(self._commits, ops, sizes, thens, errors, self._commit_started)
        )
        self._syncer.request(self._commits)

    def _unqueue(self, count: int) -> tuple[list[StorageOp], list[int], list[Done]]:
        """Take the first ``count`` queued writes off the queue: their ops, sizes and thens."""
        if count == len(self._turn_thens):
            taken = self._turn_ops, self._turn_sizes, self._turn_thens
            self._turn_ops, self._turn_sizes, self._turn_thens = [], [], []
            return taken
        taken = (
            self._turn_ops[: sum(self._turn_sizes[:count])],
            self._turn_sizes[:count],
            self._turn_thens[:count],
        )
        del self._turn_ops[: len(taken[0])]
        del self._turn_sizes[:count]
        del self._turn_thens[:count]
        return taken

    def _call_back(self, thens: list[Done], errors: dict[int, BaseException]) -> None:
        _call_all(thens, errors)
        if self._after_commit is not None:
            self._after_commit()

    def _synced(self, number: int, error: OSError | None) -> None:
        """The log sync covering commits up to ``number`` is over: call their writes back, or,
        if it failed, queue the writes of every commit still waiting for a sync again, ahead of
        the rest, to be committed into a log started over."""
        if error is None:
            durable = 0
            while self._syncing and self._syncing[0].number <= number:
                batch = self._syncing.popleft()
                _call_all(batch.thens, batch.refused)
                durable += 1
                if self.observe_commit is not None:
                    self.observe_commit(time.perf_counter() - batch.started)
            if durable and self._after_commit is not None:  # once for all the sync covered
                self._after_commit()
            if self._unsynced_seen is not None and number >= self._unsynced_seen[0]:
                self._unsynced_seen = None
        else:
            self._log_suspect = True
            if self._syncing:
                # all of them, refused writes too: the retry refuses those again; the next
                # commit writes them again, and until it is synced the reader sees them
                self._unsynced_seen = (self._commits + 1, error)
                for batch in reversed(self._syncing):
                    self._turn_ops[:0] = batch.ops
                    self._turn_sizes[:0] = batch.sizes
                    self._turn_thens[:0] = batch.thens
                self._syncing.clear()
                self._failed(error)
        # after a failure the reads waiting go ahead (the writes are queued again)
        last = self._commits if error is not None else number
        ready = [waiter for n, waiter in self._sync_waiters if n <= last]
        self._sync_waiters = [(n, w) for n, w in self._sync_waiters if n > last]
        for waiter in ready:
            if not waiter.done():
                waiter.set_result(None)

    async def durable_so_far(self) -> None:
        """Wait until every commit made so far is synced (or its sync failed)."""
        if not self._syncing:
            return
        assert self._loop is not None, "storage is not open"
        waiter = self._loop.create_future()
        self._sync_waiters.append((self._commits, waiter))
        await waiter

    def _recovered(self) -> None:
        """Every held write is committed: back to committing each turn."""
        if self.failure is not None:
            log.warning(
                "storage writes again: %d held writes committed after %.1f s",
                self.held,
                time.monotonic() - (self.failing_since or 0.0),
            )
            self.failure = self.failing_since = None
            self._retry_in = self.retry_first
            if self._on_health is not None:
                self._on_health(True)

    def _failed(self, error: BaseException) -> None:
        """Hold the queued writes and schedule another try."""
        self.failures_total += 1
        first, self.failure = self.failure is None, error
        if first:
            self.failing_since = time.monotonic()
            log.error(
                "storage write failed; holding %d writes (and their outputs) and trying again",
                self.held,
                exc_info=error,
            )
            if self._on_health is not None:
                self._on_health(False)
        else:
            log.warning("storage write failed again (%s); %d writes held", error, self.held)
        if self._retry is None:
            assert self._loop is not None, "storage is not open"
            self._retry = self._loop.call_later(self._retry_in, self._try_again)
            self._retry_in = min(self._retry_in * 2, self.retry_most)

    def _try_again(self) -> None:
        self._retry = None
        self._commit_turn()

    async def close(self) -> None:
        """Commit what is queued, finish the reads, close the database."""
        if self._writer is None:
            return
        for _ in range(2):  # a sync that fails puts its writes back: one more try for those
            self._commit_turn()
            await self.durable_so_far()
            if self._retry is not None:
                self._retry.cancel()
                self._retry = None
            if not self.held:
                break
        if self.held:  # what the failing database did not take is lost
            log.error("storage closed with %d writes not committed", self.held)
            lost = StorageClosed(f"not written before the storage closed: {self.failure}")
            _, _, thens = self._unqueue(len(self._turn_thens))
            _call_all(thens, dict.fromkeys(range(len(thens)), lost))
        loop = asyncio.get_running_loop()
        if self.checkpointer is not None:
            await loop.run_in_executor(None, self.checkpointer.stop)
            self.checkpointer = None
        if self._reads is not None:
            if self._reader is not None:
                await loop.run_in_executor(self._reads, self._reader.close)
                self._reader = None
            self._reads.shutdown(wait=True)
            self._reads = None
        if self._syncer is not None:
            await self._syncer.aclose()
            self._syncer = None
        self._writer.close()  # the last connection: copies the log back into the database
        self._writer = None
        if self._throwaway is not None:
            self._throwaway.cleanup()
            self._throwaway = None


Done = Callable[[Any, BaseException | None], None]
"""Told ``(result, error)`` when a storage job is over, on the event loop that queued it."""


@dataclass(slots=True)
class _Batch:
    """One commit's writes, waiting for the log sync that makes them durable."""

    number: int
    ops: list[StorageOp]
    sizes: list[int]
    thens: list[Done]
    refused: dict[int, BaseException]
    started: float = 0.0
    """``time.perf_counter()`` when the commit began (for ``/metrics``)."""


class WriteRefused(Exception):
    """A write that can never be stored: building its rows failed (a bug, not the disk)."""


class StorageClosed(Exception):
    """A write the failing database had not taken when the storage closed."""


class StorageFailing(Exception):
    """A read refused while the storage fails: it may have seen writes that are not durable."""

    def __init__(self, failure: BaseException) -> None:
        self.failure = failure
        super().__init__(
            f"the database is failing ({str(failure) or type(failure).__name__}); try again"
        )


def _call_all(thens: list[Done], errors: dict[int, BaseException]) -> None:
    """Call back each write with its error (by index; None for those not in ``errors``)."""
    for index, then in enumerate(thens):
        try:
            then(None, errors.get(index))
        except Exception:  # the others must still hear of their writes
            log.exception("a storage write's callback failed")


_STAMPS = (SaveAlive, SaveOnline)
"""Writes that need no log sync of their own: a killed process leaves them in the log, and the
next commit's sync makes them durable too."""


def _stamps_only(ops: list[StorageOp], thens: list[Done]) -> bool:
    """Whether a commit holds only stamps (one op each): O(1) for a batch of moves."""
    return (
        bool(ops)
        and type(ops[0]) in _STAMPS
        and len(ops) == len(thens)
        and all(type(op) in _STAMPS for op in ops)
    )


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)
