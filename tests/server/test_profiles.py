"""``GET /players/ID``: a player's profile (name, when seen, every rating pool, totals over the
finished games) on a real server (loopback, port 0) with its SQLite database in a temporary
directory: games played there by real clients, ratings stored beforehand read as of now, and
the totals counted from indexes (query plans checked, an older database migrated), and the
most recent finished public games listed from each seat's view."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path
from typing import Any

from server.glicko2 import Rating, grown
from server.outputs import SaveGame, SaveIdentity, SaveMove, SaveRatings, StorageOp
from server.profiles import RECENT_GAMES, RECENT_QUERY, TOTALS_QUERY, profile_of
from server.ratings import NewRating
from server.storage import Storage
from server.testing import WireClient
from tests.server.http_tools import http_request as http
from tests.server.storage_tools import seed_ratings
from tests.server.tables import close_all, drawn_by_agreement, play, seated_pair, serving

DAY = 86400.0
T0 = 1_800_000_000.0
BLITZ = {"initial": 300, "increment": 3}


async def _private_chess(ann: WireClient, bob: WireClient) -> tuple[str, str]:
    """A private rated chess game, ann first, lost by ann's resignation: its room and id."""
    made = await ann.request(type="create", game="chess", color="first", private=True,
                             clock=BLITZ)
    code = made["room"]
    assert (await bob.request(type="join", room=code))["status"] == "playing"
    await play(ann, bob, code, ["e2e4", "e7e5"])
    await ann.request(type="resign", room=code)
    await ann.expect("room", room=code, status="over")
    return code, made["game_id"]


async def _drawn_hexgomoku(ann: WireClient, bob: WireClient) -> None:
    """An untimed (unrated) five in a row, bob first, drawn by agreement."""
    await drawn_by_agreement(bob, ann, "hexgomoku", ["0,0", "0,1"])


async def test_a_profile_after_rated_private_and_drawn_games(tmp_path: Path) -> None:
    """ann wins a rated five in a row, loses a private rated chess game and draws an unrated
    one, and leaves a live game going: her profile has both pools as the rooms showed them
    (one game each: provisional), and totals of three finished games (one each way), by
    game; the private game counts but is named nowhere in the profile, and another player's
    listing of her games leaves it out as before."""
    async with serving(tmp_path) as server:
        server.hall.ratings.wall = lambda: T0
        ann, bob, code = await seated_pair(server.url, clock=BLITZ)
        eve = await WireClient.connect(server.url, "eve")
        try:
            await play(ann, bob, code, ["0,0", "0,1"])
            won = await bob.request(type="resign", room=code)
            snap = await ann.expect("room", room=code, status="over")
            private_room, private_id = await _private_chess(ann, bob)
            await _drawn_hexgomoku(ann, bob)
            live = await ann.request(type="create", game="shuqi", color="first")
            await bob.request(type="join", room=live["room"])

            player = ann.welcome["player"]
            reply = await http(server, f"/players/{player}")
            assert reply.status == 200, reply.body
            assert reply.headers["cache-control"] == "no-store"
            assert reply.headers["content-type"] == "application/json; charset=utf-8"
            body = reply.json()
            assert (body["player"], body["name"]) == (player, "ann")
            pools = {p["key"]: p for p in body["ratings"]}
            assert set(pools) == {"hexgomoku", "chess"}
            hex_pool = pools["hexgomoku"]
            assert (hex_pool["game"], hex_pool["variant"]) == ("hexgomoku", "standard")
            assert hex_pool["rating"] == won["ratings"]["first"]["after"]
            assert hex_pool["rd"] == snap["seats"]["first"]["rd"]
            assert (hex_pool["games"], hex_pool["provisional"]) == (1, True)
            assert pools["chess"]["rating"] < 1500 < hex_pool["rating"]
            assert body["totals"] == {"games": 3, "wins": 1, "losses": 1, "draws": 1,
                                      "aborted": 0}
            assert body["by_game"] == {
                "hexgomoku": {"games": 2, "wins": 1, "losses": 0, "draws": 1, "aborted": 0},
                "chess": {"games": 1, "wins": 0, "losses": 1, "draws": 0, "aborted": 0},
            }
            assert body["first_seen"] <= body["last_seen"]
            assert body["first_seen"].endswith("Z") and body["last_seen"].endswith("Z")
            assert private_id not in reply.text and private_room not in reply.text

            bob_body = (await http(server, f"/players/{bob.welcome['player']}")).json()
            assert bob_body["totals"] == {"games": 3, "wins": 1, "losses": 1, "draws": 1,
                                          "aborted": 0}

            listed = (await http(server, f"/games?player={player}",
                                 headers=f"Authorization: Bearer {eve.welcome['token']}\r\n"))
            assert private_id not in {g["id"] for g in listed.json()["games"]}
        finally:
            await close_all(ann, bob, eve)


async def test_stored_ratings_are_shown_as_of_today(tmp_path: Path) -> None:
    """Ratings stored long ago are shown with their deviation grown by the days away (an
    established rating 400 days old is provisional again), busiest pool first; a player with
    ratings and no game has zero totals and no times seen; a name in any script comes back."""
    db = tmp_path / "hall.db"
    old = Rating(1900, 60, 0.06, 40, updated=T0 - 400 * DAY)
    recent = Rating(1700, 50, 0.06, 90, updated=T0 - 2 * DAY)
    seed_ratings(db, {"p-mia": ("米娅", "draughts/russian", old)})
    storage = Storage(db)  # a second pool: another rated game's change
    storage.apply([SaveRatings("chess-1", "chess", (NewRating("p-mia", Rating(), recent),))])
    storage.close()
    async with serving(db) as server:
        server.hall.ratings.wall = lambda: T0
        body = (await http(server, "/players/p-mia")).json()
        assert body["name"] == "米娅"
        rows = [(p["key"], p["game"], p["variant"], p["rating"], p["rd"], p["games"],
                 p["provisional"]) for p in body["ratings"]]
        assert rows == [
            ("chess", "chess", "standard", 1700, round(grown(recent, T0).deviation), 90, False),
            ("draughts/russian", "draughts", "russian", 1900,
             round(grown(old, T0).deviation), 40, True),
        ]
        assert round(grown(old, T0).deviation) > 110 > 60
        assert body["totals"] == {"games": 0, "wins": 0, "losses": 0, "draws": 0, "aborted": 0}
        assert body["by_game"] == {}
        assert body["first_seen"] is None and body["last_seen"] is None


async def test_bad_profile_requests_name_what_was_wrong(tmp_path: Path) -> None:
    """An unknown id is a 404 naming it (decoded), an unknown query parameter a 400 naming
    it, and ``/players/`` (no id) is nothing; ``/`` lists the route."""
    async with serving(tmp_path) as server:
        for path, status, words in [
            ("/players/p-nobody", 404, ["'p-nobody'", "no player"]),
            ("/players/%E4%B8%AD", 404, ["'中'"]),
            ("/players/p1?token=x", 400, ["'token'"]),
            ("/players/p1?x=1&x=2", 400, ["'x'"]),
            ("/players/", 404, ["'/players/'"]),
            ("/players", 404, ["'/players'"]),
            ("/players/a/b", 404, ["'/players/a/b'"]),
            ("/players/a%ffb", 400, ["UTF-8"]),
        ]:
            reply = await http(server, path)
            assert reply.status == status, (path, reply.status, reply.body)
            assert all(word in reply.error for word in words), (path, reply.error)
            assert reply.headers["cache-control"] == "no-store", path
        assert "/players/ID" in (await http(server, "/")).json()["http"]


def _plan(db: Path, query: str, *args: Any) -> str:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        rows = conn.execute(f"EXPLAIN QUERY PLAN {query}", args).fetchall()
    return " | ".join(str(row[-1]) for row in rows)


def test_totals_are_read_from_covering_indexes(tmp_path: Path) -> None:
    """The totals of a player (by game and variant too) are searched in two covering indexes
    (one per seat), with no scan of the games table and no visit of its rows."""
    db = tmp_path / "hall.db"
    Storage(db).close()
    plan = _plan(db, TOTALS_QUERY, "p1")
    assert ("SEARCH games USING COVERING INDEX games_first_variant_totals (first_player=?"
            in plan), plan
    assert ("SEARCH games USING COVERING INDEX games_second_variant_totals (second_player=?"
            in plan), plan
    assert "SCAN games" not in plan, plan
    assert plan.count("COVERING INDEX") == 2, plan


def test_an_older_database_gets_the_result_column_filled_and_indexed(tmp_path: Path) -> None:
    """A games table made before the ``result`` column (and the ``variant`` one) opens with
    them added and filled from each stored game's record, and with the totals indexes; its
    games then count (by variant too: chess's own)."""
    db = tmp_path / "old.db"
    Storage(db).close()
    seats = {"first": {"player": "p1", "name": "Ann"}, "second": {"player": "p2", "name": "Bo"}}
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("DROP TABLE games")
        conn.execute(
            "CREATE TABLE games (id TEXT PRIMARY KEY, room TEXT NOT NULL, game TEXT NOT NULL,"
            " status TEXT NOT NULL, private INTEGER NOT NULL DEFAULT 0, first_player TEXT,"
            " second_player TEXT, created TEXT, ended TEXT, meta TEXT NOT NULL)"
        )
        for n, result in enumerate(["first", "second", "first", None]):
            meta = {"id": f"g{n}", "status": "over", "result": result, "seats": seats}
            conn.execute(
                "INSERT INTO games VALUES (?, 'R', 'chess', 'over', 0, 'p1', 'p2',"
                " '2026-01-01T10:00:00Z', '2026-01-01T10:30:00Z', ?)",
                (f"g{n}", json.dumps(meta)),
            )
        conn.execute("INSERT INTO identities VALUES ('p1', 'h1', 'Ann')")
    storage = Storage(db)
    try:
        found = profile_of(storage, "p1", lambda rating: rating)
        assert found is not None
        assert (found.totals.wins, found.totals.losses, found.totals.aborted) == (2, 1, 1)
        assert list(found.by_variant) == ["chess"]
        assert found.by_variant["chess"] == found.totals
        assert [g["id"] for g in found.recent] == ["g3", "g2", "g1", "g0"]  # stored order
        assert [g["plies"] for g in found.recent] == [0, 0, 0, 0]
    finally:
        storage.close()
    assert "games_first_variant_totals" in _plan(db, TOTALS_QUERY, "p1")
    assert "games_first (first_player=?)" in _plan(db, RECENT_QUERY, "p1", RECENT_GAMES)


# ---- recent games -------------------------------------------------------------------------


def test_recent_games_are_read_newest_first_from_each_seat_s_index(tmp_path: Path) -> None:
    """The recent games are a search of ``games_first`` and of ``games_second`` (each walked
    in order of start, merged), never a scan of the games table, nor a sort of all a
    player's games (only of the ten merged)."""
    db = tmp_path / "hall.db"
    Storage(db).close()
    plan = _plan(db, RECENT_QUERY, "p1", RECENT_GAMES)
    assert "SEARCH games USING INDEX games_first (first_player=?)" in plan, plan
    assert "SEARCH games USING INDEX games_second (second_player=?)" in plan, plan
    assert "MERGE (UNION ALL)" in plan, plan
    assert "SCAN games" not in plan, plan
    assert plan.count("TEMP B-TREE") == 1, plan  # the outer order of the ten, no more
    assert "SEARCH moves USING COVERING INDEX" in plan, plan


def _career(db: Path, games: int) -> None:
    """``p-ann`` and ``p-bob`` with ``games`` stored games one minute apart (``g0`` first):
    every third game with ann second, every sixth private (from ``g1``), every fifth still
    going (from ``g4``), the results turning first / second / draw / aborted, and ``g0`` with
    two moves."""
    storage = Storage(db)
    ops: list[StorageOp] = [SaveIdentity("p-ann", "h-ann", "Ann"),
                            SaveIdentity("p-bob", "h-bob", "名字很长的鲍勃")]
    for n in range(games):
        ann = {"player": "p-ann", "name": "Ann"}
        bob = {"player": "p-bob", "name": "名字很长的鲍勃"}
        seats = {"first": bob, "second": ann} if n % 3 == 2 else {"first": ann, "second": bob}
        result = ["first", "second", "draw", None][n % 4]
        ops.append(SaveGame({
            "id": f"g{n}", "room": f"R{n}", "game": "chess", "variant": None,
            "status": "playing" if n % 5 == 4 else "over", "private": n % 6 == 1,
            "seats": seats, "result": result,
            "reason": "aborted" if result is None else "resign",
            "created": f"2026-11-20T10:{n:02d}:00Z", "ended": f"2026-11-20T10:{n:02d}:30Z"}))
    ops += [SaveMove("g0", ply, move, side, None, 0, "2026-11-20T10:00:10Z", {})
            for ply, (move, side) in enumerate([("e2e4", "first"), ("e7e5", "second")])]
    storage.apply(ops)
    storage.close()


def _view(game: dict[str, Any]) -> tuple[Any, ...]:
    return game["id"], game["seat"], game["outcome"], game["result"]


async def test_recent_games_newest_first_public_and_finished_from_each_seat(
    tmp_path: Path,
) -> None:
    """Of 18 stored games, the profile lists the 10 most recent that are over and public,
    newest first, each from the profile's player's seat: a win for one is a loss for the
    other, a draw and an aborted game the same for both; the private and unfinished ones
    are never named (the JSON holds neither id), and each entry is what ``/games?player=``
    gives for the same game."""
    db = tmp_path / "hall.db"
    _career(db, 18)
    private = {f"g{n}" for n in range(18) if n % 6 == 1}
    going = {f"g{n}" for n in range(18) if n % 5 == 4}
    listed = [f"g{n}" for n in reversed(range(18)) if f"g{n}" not in private | going]
    assert len(listed) == RECENT_GAMES + 2  # the two oldest are left out
    async with serving(db) as server:
        ann = await http(server, "/players/p-ann")
        bob = (await http(server, "/players/p-bob")).json()
        recent = ann.json()["recent"]
        assert [g["id"] for g in recent] == listed[:RECENT_GAMES]
        assert all(f'"{game}"' not in ann.text for game in private | going | {"g0"})
        assert [_view(g) for g in recent[:7]] == [
            ("g17", "second", "win", "second"), ("g16", "first", "win", "first"),
            ("g15", "first", "aborted", None), ("g12", "first", "win", "first"),
            ("g11", "second", "aborted", None), ("g10", "first", "draw", "draw"),
            ("g8", "second", "loss", "first")]
        assert [_view(g) for g in bob["recent"][:7]] == [
            ("g17", "first", "loss", "second"), ("g16", "second", "loss", "first"),
            ("g15", "second", "aborted", None), ("g12", "second", "loss", "first"),
            ("g11", "first", "aborted", None), ("g10", "second", "draw", "draw"),
            ("g8", "first", "win", "first")]
        first = recent[0]
        assert first["seats"]["first"] == {"player": "p-bob", "name": "名字很长的鲍勃"}
        assert (first["game"], first["status"], first["reason"], first["private"]) == (
            "chess", "over", "resign", False)
        assert (first["ended"], first["plies"], first["rating_change"]) == (
            "2026-11-20T10:17:30Z", 0, None)
        games = (await http(server, "/games?player=p-ann")).json()["games"]
        assert [g for g in games if g["id"] in {x["id"] for x in recent}] == recent
        assert {g["id"] for g in games} == set(listed) | going  # the listing: all public
        assert all(g["outcome"] is None for g in games if g["id"] in going)


async def test_an_old_game_s_moves_are_counted_and_few_games_all_listed(tmp_path: Path) -> None:
    """A player with fewer finished public games than the limit has them all, with their
    stored moves counted; a player with none has an empty list; an unknown id is still a
    404."""
    db = tmp_path / "hall.db"
    _career(db, 3)
    storage = Storage(db)
    storage.apply([SaveIdentity("p-new", "h-new", "New")])
    storage.close()
    async with serving(db) as server:
        recent = (await http(server, "/players/p-ann")).json()["recent"]
        assert [(g["id"], g["plies"], g["outcome"]) for g in recent] == [
            ("g2", 0, "draw"), ("g0", 2, "win")]  # g1 is private
        assert (await http(server, "/players/p-new")).json()["recent"] == []
        assert (await http(server, "/players/p-gone")).status == 404


async def test_recent_games_played_over_the_wire(tmp_path: Path) -> None:
    """ann wins a five in a row, loses a private chess game, draws another five in a row and
    aborts a third; a game goes on. Her profile lists the three public finished ones newest
    first (win, draw... as she and bob each see them), with their moves counted."""
    async with serving(tmp_path) as server:
        ann, bob, code = await seated_pair(server.url, clock=BLITZ)
        try:
            await play(ann, bob, code, ["0,0", "0,1"])
            await bob.request(type="resign", room=code)
            await ann.expect("room", room=code, status="over")
            _, private_id = await _private_chess(ann, bob)
            await _drawn_hexgomoku(ann, bob)
            made = await ann.request(type="create", game="hexgomoku", color="first")
            await bob.request(type="join", room=made["room"])
            await ann.request(type="abort", room=made["room"])
            await ann.expect("room", room=made["room"], status="over")
            live = await ann.request(type="create", game="shuqi", color="first")
            await bob.request(type="join", room=live["room"])

            views = []
            for wire in (ann, bob):
                reply = await http(server, f"/players/{wire.welcome['player']}")
                assert private_id not in reply.text
                views.append([(g["game"], g["seat"], g["outcome"], g["reason"], g["plies"])
                              for g in reply.json()["recent"]])
            assert views == [
                [("hexgomoku", "first", "aborted", "aborted", 0),
                 ("hexgomoku", "second", "draw", "agreement", 2),
                 ("hexgomoku", "first", "win", "resign", 2)],
                [("hexgomoku", "second", "aborted", "aborted", 0),
                 ("hexgomoku", "first", "draw", "agreement", 2),
                 ("hexgomoku", "second", "loss", "resign", 2)],
            ]
        finally:
            await close_all(ann, bob)
