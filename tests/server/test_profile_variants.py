"""``GET /players/ID`` counts finished games by game and variant too (``by_variant``), keyed as
the rating pools are: games of two custom variants and of chess played by real clients on a
real server (loopback, port 0, SQLite in a temporary directory); an older database's games
given their variant from their stored records when it first opens; the counts still read
from covering indexes alone."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path
from typing import Any

from engines import registry
from server.outputs import SaveGame, SaveIdentity
from server.profiles import TOTALS_QUERY, profile_of
from server.storage import VARIANTS_CHECK, Storage
from server.testing import WireClient
from tests.server.http_tools import http_request as http
from tests.server.tables import close_all, drawn_by_agreement, play, serving

BLITZ = {"initial": 300, "increment": 3}


def _opening(variant: str) -> list[str]:
    """A legal first move of each side in the custom ``variant``."""
    engine = registry.get("custom")
    state = engine.start(variant)
    first = engine.legal_moves(state)[0]
    return [first, engine.legal_moves(engine.play(state, first))[0]]


async def _custom(ann: WireClient, bob: WireClient, variant: str, ending: str) -> None:
    """A timed custom ``variant`` game, ann first: ``ann`` or ``bob`` resigns after a move
    each, or ann aborts it before any move (``abort``)."""
    made = await ann.request(
        type="create", game="custom", variant=variant, color="first", clock=BLITZ
    )
    code = made["room"]
    assert (await bob.request(type="join", room=code))["status"] == "playing"
    if ending == "abort":
        await ann.request(type="abort", room=code)
    else:
        await play(ann, bob, code, _opening(variant))
        await (ann if ending == "ann" else bob).request(type="resign", room=code)
    await ann.expect("room", room=code, status="over")


def _counts(games: int, wins: int, losses: int, draws: int, aborted: int) -> dict[str, int]:
    return {"games": games, "wins": wins, "losses": losses, "draws": draws, "aborted": aborted}


async def test_games_of_two_custom_variants_and_chess_are_counted_by_variant(
    tmp_path: Path,
) -> None:
    """ann wins and loses a Xiangqi game, loses a River Stones game (all three rated) and
    aborts another, and draws an untimed chess game; a Xiangqi game goes on. Her
    ``by_variant`` has Stones and Xiangqi (two finished games each, aborted ones counting: the
    tie goes by key) before chess, each keyed and spelled as her rating pool of it is;
    ``by_game`` and the totals still lump the custom games as before; bob's counts are hers
    the other way."""
    async with serving(tmp_path) as server:
        ann = await WireClient.connect(server.url, "ann")
        bob = await WireClient.connect(server.url, "bob")
        try:
            await _custom(ann, bob, "xiangqi", "bob")
            await _custom(ann, bob, "xiangqi", "ann")
            await _custom(ann, bob, "stones", "ann")
            await _custom(ann, bob, "stones", "abort")
            await drawn_by_agreement(bob, ann, "chess", ["e2e4", "e7e5"])
            live = await ann.request(type="create", game="custom", variant="xiangqi", color="first")
            await bob.request(type="join", room=live["room"])

            body = (await http(server, f"/players/{ann.welcome['player']}")).json()
            assert body["by_variant"] == [
                {
                    "key": "custom/stones",
                    "game": "custom",
                    "variant": "stones",
                    **_counts(1, 0, 1, 0, 1),
                },
                {
                    "key": "custom/xiangqi",
                    "game": "custom",
                    "variant": "xiangqi",
                    **_counts(2, 1, 1, 0, 0),
                },
                {"key": "chess", "game": "chess", "variant": "standard", **_counts(1, 0, 0, 1, 0)},
            ]
            spelled = [(v["key"], v["game"], v["variant"]) for v in body["by_variant"]]
            pools = [(p["key"], p["game"], p["variant"]) for p in body["ratings"]]
            assert sorted(pools) == sorted(spelled[:2])  # the timed custom games are rated
            assert body["by_game"] == {
                "custom": _counts(3, 1, 2, 0, 1),
                "chess": _counts(1, 0, 0, 1, 0),
            }
            assert body["totals"] == _counts(4, 1, 2, 1, 1)

            bob_body = (await http(server, f"/players/{bob.welcome['player']}")).json()
            assert [
                (v["key"], v["wins"], v["losses"], v["draws"], v["aborted"])
                for v in bob_body["by_variant"]
            ] == [
                ("custom/stones", 1, 0, 0, 1),
                ("custom/xiangqi", 1, 1, 0, 0),
                ("chess", 0, 0, 1, 0),
            ]
        finally:
            await close_all(ann, bob)


OLD_GAMES = """CREATE TABLE games (
    id TEXT PRIMARY KEY, room TEXT NOT NULL, game TEXT NOT NULL, status TEXT NOT NULL,
    private INTEGER NOT NULL DEFAULT 0, first_player TEXT, second_player TEXT, created TEXT,
    ended TEXT, meta TEXT NOT NULL, result TEXT);
CREATE INDEX games_status ON games(status);
CREATE INDEX games_ended ON games(status, ended);
CREATE INDEX games_first ON games(first_player, created);
CREATE INDEX games_second ON games(second_player, created);
CREATE INDEX games_first_totals ON games(first_player, status, game, result, created, ended);
CREATE INDEX games_second_totals ON games(second_player, status, game, result, created, ended);
"""
"""The games table and its indexes as they were before the ``variant`` column."""


def _old_database(db: Path, games: list[tuple[str, Any, str | None]]) -> None:
    """A database of the schema before the ``variant`` column, with p1 (first) against p2 in
    each of ``games`` (game, the variant its record names, result), all finished."""
    Storage(db).close()
    seats = {"first": {"player": "p1", "name": "Ann"}, "second": {"player": "p2", "name": "Bo"}}
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("DROP TABLE games")
        conn.executescript(OLD_GAMES)
        for n, (game, variant, result) in enumerate(games):
            meta = {
                "id": f"g{n}",
                "game": game,
                "variant": variant,
                "status": "over",
                "result": result,
                "seats": seats,
            }
            conn.execute(
                "INSERT INTO games VALUES (?, 'R', ?, 'over', 0, 'p1', 'p2',"
                " '2026-01-01T10:00:00Z', '2026-01-01T10:30:00Z', ?, ?)",
                (f"g{n}", game, json.dumps(meta), result),
            )
        conn.execute("INSERT INTO identities VALUES ('p1', 'h1', 'Ann')")


def _indexes(db: Path) -> set[str]:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'").fetchall()
    return {name for (name,) in rows}


def _plan(db: Path, query: str, *args: Any) -> str:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        rows = conn.execute(f"EXPLAIN QUERY PLAN {query}", args).fetchall()
    return " | ".join(str(row[-1]) for row in rows)


def test_an_older_database_gets_each_game_s_variant_from_its_record(tmp_path: Path) -> None:
    """A database made before the ``variant`` column opens with it filled from each stored
    game's record (``standard`` where the record names none, or an empty one), the totals
    indexes of before replaced by the ones with the variant, and its games counted by
    variant; opening it again changes nothing."""
    db = tmp_path / "old.db"
    _old_database(
        db,
        [
            ("custom", "xiangqi", "first"),
            ("custom", "stones", "second"),
            ("custom", "xiangqi", "draw"),
            ("draughts", "brazilian", None),
            ("chess", "standard", "first"),
            ("chess", None, "second"),
            ("chess", "", "draw"),
        ],
    )
    assert "games_first_totals" in _indexes(db)
    for _ in range(2):
        storage = Storage(db)
        try:
            rows = storage.db.execute("SELECT id, variant FROM games ORDER BY id").fetchall()
            assert [tuple(row) for row in rows] == [
                ("g0", "xiangqi"),
                ("g1", "stones"),
                ("g2", "xiangqi"),
                ("g3", "brazilian"),
                ("g4", "standard"),
                ("g5", "standard"),
                ("g6", "standard"),
            ]
            found = profile_of(storage, "p1", lambda rating: rating)
            assert found is not None
            by_variant = {
                key: (t.wins, t.losses, t.draws, t.aborted) for key, t in found.by_variant.items()
            }
            assert by_variant == {
                "custom/xiangqi": (1, 0, 1, 0),
                "custom/stones": (0, 1, 0, 0),
                "draughts/brazilian": (0, 0, 0, 1),
                "chess": (1, 1, 1, 0),
            }
            assert found.by_game["custom"].games == 3
        finally:
            storage.close()
        indexes = _indexes(db)
        assert {"games_first_variant_totals", "games_second_variant_totals"} <= indexes
        assert not {"games_first_totals", "games_second_totals"} & indexes
    plan = _plan(db, TOTALS_QUERY, "p1")
    assert "COVERING INDEX games_first_variant_totals (first_player=?" in plan, plan


def test_a_new_game_row_keeps_its_variant(tmp_path: Path) -> None:
    """A game stored since gets its variant in its row as it is stored, and again when it
    is stored once more (the upsert at its end)."""
    db = tmp_path / "hall.db"
    storage = Storage(db)
    try:
        meta = {
            "id": "g1",
            "room": "R",
            "game": "draughts",
            "variant": "russian",
            "status": "playing",
            "seats": {},
        }
        storage.apply([SaveGame(meta)])
        storage.apply([SaveGame({**meta, "status": "over", "result": "draw"})])
        row = storage.db.execute("SELECT status, variant FROM games").fetchone()
        assert tuple(row) == ("over", "russian")
    finally:
        storage.close()


OLDER_SERVER_INSERT = (
    "INSERT INTO games (id, room, game, status, private, first_player, second_player, created,"
    " ended, meta, result) VALUES (?, 'R', ?, 'over', 0, 'p1', 'p2', '2026-02-01T10:00:00Z',"
    " '2026-02-01T10:30:00Z', ?, ?) ON CONFLICT(id) DO UPDATE SET status = excluded.status,"
    " meta = excluded.meta, result = excluded.result"
)
"""A finished game stored as a server that does not know the ``variant`` column stores one
(its upsert names every column but that one), so its row gets the column's default."""


def _older_server_writes(db: Path, games: list[tuple[str, str, Any, str | None]]) -> None:
    """Each of ``games`` (id, game, the variant its record names, result) stored into ``db`` by
    an older server, p1 first against p2."""
    seats = {"first": {"player": "p1", "name": "Ann"}, "second": {"player": "p2", "name": "Bo"}}
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        for game_id, game, variant, result in games:
            meta = {
                "id": game_id,
                "game": game,
                "variant": variant,
                "status": "over",
                "result": result,
                "seats": seats,
            }
            conn.execute(OLDER_SERVER_INSERT, (game_id, game, json.dumps(meta), result))


def _variants(db: Path) -> dict[str, str]:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return dict(conn.execute("SELECT id, variant FROM games").fetchall())


def _migrated_with_a_game(db: Path) -> None:
    """A database opened (so migrated) by this server, which stored p1 and a Russian draughts
    game of hers, and closed it."""
    storage = Storage(db)
    try:
        meta = {
            "id": "new",
            "room": "R",
            "game": "draughts",
            "variant": "russian",
            "status": "over",
            "result": "first",
            "seats": {"first": {"player": "p1"}, "second": {"player": "p2"}},
        }
        storage.apply([SaveIdentity("p1", "h1", "Ann"), SaveGame(meta)])
    finally:
        storage.close()


async def test_games_an_older_server_stored_after_the_migration_get_their_variants(
    tmp_path: Path,
) -> None:
    """A database this server migrated, then written by an older server (its games' rows get
    the column's default, ``standard``): the next start finds those rows and gives each the
    variant its record names, so ``/players/ID`` counts them under their variants; the chess
    game and the game this server stored keep theirs."""
    db = tmp_path / "hall.db"
    _migrated_with_a_game(db)
    _older_server_writes(
        db,
        [
            ("x1", "custom", "xiangqi", "first"),
            ("x2", "custom", "xiangqi", "second"),
            ("b1", "draughts", "brazilian", "draw"),
            ("c1", "chess", None, "first"),
        ],
    )
    assert _variants(db)["x1"] == "standard"  # the gap: the default, not the record's
    async with serving(db) as server:
        body = (await http(server, "/players/p1")).json()
    by_variant = {v["key"]: (v["wins"], v["losses"], v["draws"]) for v in body["by_variant"]}
    assert by_variant == {
        "custom/xiangqi": (1, 1, 0),
        "draughts/brazilian": (0, 0, 1),
        "draughts/russian": (1, 0, 0),
        "chess": (1, 0, 0),
    }
    assert _variants(db) == {
        "new": "russian",
        "x1": "xiangqi",
        "x2": "xiangqi",
        "b1": "brazilian",
        "c1": "standard",
    }


def test_rows_already_checked_are_not_read_again_at_the_next_open(tmp_path: Path) -> None:
    """An open checks only the games stored since the database was last known right (the last
    close, or open, of this server): a game checked before whose variant column were somehow
    wrong is left as it is (its record is not read again), while one an older server stored
    since is corrected, after a crash (a server that never closed it) too."""
    db = tmp_path / "hall.db"
    _migrated_with_a_game(db)
    _older_server_writes(db, [("x1", "custom", "xiangqi", "first")])
    Storage(db).close()
    assert _variants(db)["x1"] == "xiangqi"
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("UPDATE games SET variant = 'standard' WHERE id = 'x1'")  # checked before
    _older_server_writes(db, [("x2", "custom", "stones", "draw")])

    crashed = Storage(db)
    crashed.apply(
        [
            SaveGame(
                {
                    "id": "mine",
                    "room": "R",
                    "game": "custom",
                    "variant": "stones",
                    "status": "playing",
                    "seats": {},
                }
            )
        ]
    )
    assert _variants(db) == {"new": "russian", "x1": "standard", "x2": "stones", "mine": "stones"}
    crashed.db.close()  # killed: never closed
    _older_server_writes(db, [("x3", "custom", "xiangqi", "second")])
    Storage(db).close()
    assert _variants(db) == {
        "new": "russian",
        "x1": "standard",
        "x2": "stones",
        "mine": "stones",
        "x3": "xiangqi",
    }


def test_a_database_migrated_before_the_check_was_kept_is_checked_once(tmp_path: Path) -> None:
    """A database with the ``variant`` column but no record of which games were checked (an
    earlier version of this server migrated it) has every game checked at its first open."""
    db = tmp_path / "hall.db"
    _migrated_with_a_game(db)
    _older_server_writes(db, [("x1", "custom", "xiangqi", "first")])
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("DROP TABLE variants_known")
    Storage(db).close()
    assert _variants(db) == {"new": "russian", "x1": "xiangqi"}


def test_the_check_is_a_search_from_the_last_game_checked(tmp_path: Path) -> None:
    """The check reads games by rowid from the last one checked on, never a scan."""
    db = tmp_path / "hall.db"
    Storage(db).close()
    plan = _plan(db, VARIANTS_CHECK, 0)
    assert "SEARCH games USING INTEGER PRIMARY KEY (rowid>?)" in plan, plan
