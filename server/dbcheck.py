"""Whether a SQLite file is a Boardhall database this server may use, told before it is changed.

A database is stamped with :data:`SCHEMA_VERSION` (SQLite's ``user_version``) when this server
opens it. A server that changes the schema in a way an older server cannot write to raises the
number, and an older server then refuses the file instead of holding every move it cannot store.
A file of another program (tables, but not Boardhall's) is refused too, before the server turns it
into a write-ahead-log database and adds its own tables to it.
"""

from __future__ import annotations

import sqlite3

SCHEMA_VERSION = 1
"""The database layout this server writes (0: a database of a server before the stamp)."""

GAMES_COLUMNS = frozenset({"id", "room", "game", "status", "meta"})
"""The columns every Boardhall ``games`` table has had."""


class NotBoardhall(sqlite3.DatabaseError):
    """The file is a SQLite database this server must not use (the message says why)."""


def check_database(db: sqlite3.Connection) -> None:
    """Raise :class:`NotBoardhall` if ``db`` was written by a newer server or by another program;
    read only."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise NotBoardhall(
            f"it was written by a newer Boardhall server (database schema {version}, this "
            f"server knows up to {SCHEMA_VERSION}): run that server's version, or start this one "
            "on a backup made before the upgrade"
        )
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables:
        return  # a new, empty database
    if "games" not in tables:
        shown = ", ".join(sorted(tables)[:5])
        raise NotBoardhall(
            f"it is not a Boardhall database (its tables are {shown}): is --db the right file?"
        )
    columns = {row[1] for row in db.execute("PRAGMA table_info(games)")}
    if not columns >= GAMES_COLUMNS:
        missing = ", ".join(sorted(GAMES_COLUMNS - columns))
        raise NotBoardhall(
            f"it is not a Boardhall database (its games table has no {missing}): is --db the "
            "right file?"
        )


def stamp_version(db: sqlite3.Connection) -> None:
    """Mark ``db`` (a connection without implicit transactions) as of :data:`SCHEMA_VERSION`;
    when it already is, write the same number in a transaction rolled back, which changes
    nothing but raises ``sqlite3.OperationalError`` (SQLITE_READONLY) for a file this process
    may not write: SQLite opens such a file read-only without a word, and the server would
    find out only at the first move."""
    if db.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    finally:
        db.execute("ROLLBACK")
