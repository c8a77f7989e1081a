"""``GET /ratings?game=G[&variant=V][&limit=N]``: the top players of one rating pool, on a real
server (loopback, port 0) with its SQLite database in a temporary directory: players put there
by real rated games, and ratings stored beforehand (some old, some new) read as the server
shows them elsewhere, their deviation grown by the days away."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from server.glicko2 import Rating, grown
from server.leaderboard import TOP_QUERY
from server.storage import Storage
from server.testing import WireClient
from tests.server.http_tools import http_request as http
from tests.server.storage_tools import seed_ratings
from tests.server.tables import close_all, play, seated_pair, serving

DAY = 86400.0
T0 = 1_800_000_000.0
BLITZ = {"initial": 300, "increment": 3}


def _rd(rating: Rating, now: float) -> int:
    return round(grown(rating, now).deviation)


async def test_rated_games_put_both_players_on_the_board(tmp_path: Path) -> None:
    """After one rated game of five in a row, both players are listed, the winner first, with
    the ratings, deviations and player ids the room showed; one game each leaves both
    provisional. Other pools are empty; draughts without a variant is the international pool."""
    async with serving(tmp_path) as server:
        server.hall.ratings.wall = lambda: T0  # the room and the list see the same moment
        ann, bob, code = await seated_pair(server.url, clock=BLITZ)
        try:
            await play(ann, bob, code, ["0,0", "0,1"])
            over = await ann.request(type="resign", room=code)
            snap = await ann.expect("room", room=code, status="over")
            reply = await http(server, "/ratings?game=hexgomoku")
            assert reply.status == 200, reply.body
            assert reply.headers["cache-control"] == "no-store"
            body = reply.json()
            assert (body["game"], body["variant"], body["key"]) == (
                "hexgomoku",
                "standard",
                "hexgomoku",
            )
            assert body["limit"] == 20
            listed = body["players"]
            assert [p["name"] for p in listed] == ["bob", "ann"]
            assert [p["player"] for p in listed] == [bob.welcome["player"], ann.welcome["player"]]
            assert [p["rank"] for p in listed] == [1, 2]
            assert listed[0]["rating"] == over["ratings"]["second"]["after"]
            assert listed[1]["rating"] == over["ratings"]["first"]["after"]
            assert listed[0]["rd"] == snap["seats"]["second"]["rd"]
            assert listed[1]["rd"] == snap["seats"]["first"]["rd"]
            assert all(p["games"] == 1 and p["provisional"] is True for p in listed)

            assert (await http(server, "/ratings?game=chess")).json()["players"] == []
            draughts = (await http(server, "/ratings?game=draughts")).json()
            assert (draughts["key"], draughts["players"]) == ("draughts/international", [])
        finally:
            await close_all(ann, bob)


async def test_established_players_first_each_as_of_today(tmp_path: Path) -> None:
    """Established players (deviation at most 110 once grown by the days away) by rating, then
    the provisional ones by rating: a player 400 days away is provisional again though stored
    at 60; a rating of an unknown time is shown as stored; ``limit`` cuts the list."""
    old = Rating(1900, 60, 0.06, 40, updated=T0 - 400 * DAY)
    top = Rating(1800, 70, 0.06, 30, updated=T0 - 10 * DAY)
    mid = Rating(1700, 50, 0.06, 90, updated=T0)
    new = Rating(2000, 300, 0.06, 1, updated=T0)
    unknown = Rating(1600, 90, 0.06, 12)
    db = tmp_path / "hall.db"
    seed_ratings(
        db,
        {
            "p-old": ("Olga", "draughts/russian", old),
            "p-top": ("Tomás", "draughts/russian", top),
            "p-mid": ("米娅", "draughts/russian", mid),
            "p-new": ("Ned", "draughts/russian", new),
            "p-low": ("Lou", "draughts/russian", unknown),
            "p-chess": ("Carl", "chess", Rating(2500, 50, 0.06, 9, updated=T0)),
        },
    )
    async with serving(db) as server:
        server.hall.ratings.wall = lambda: T0
        body = (await http(server, "/ratings?game=draughts&variant=russian")).json()
        assert body["key"] == "draughts/russian"
        players = body["players"]
        rows = [(p["name"], p["rating"], p["rd"], p["games"], p["provisional"]) for p in players]
        assert rows == [
            ("Tomás", 1800, _rd(top, T0), 30, False),
            ("米娅", 1700, 50, 90, False),
            ("Lou", 1600, 90, 12, False),
            ("Ned", 2000, 300, 1, True),
            ("Olga", 1900, _rd(old, T0), 40, True),
        ]
        assert 70 < _rd(top, T0) <= 110 < _rd(old, T0)
        assert [p["rank"] for p in body["players"]] == [1, 2, 3, 4, 5]
        cut = (await http(server, "/ratings?game=draughts&variant=russian&limit=2")).json()
        assert [p["name"] for p in cut["players"]] == ["Tomás", "米娅"] and cut["limit"] == 2
        four = (await http(server, "/ratings?game=draughts&variant=russian&limit=4")).json()
        assert [p["name"] for p in four["players"]] == ["Tomás", "米娅", "Lou", "Ned"]

        server.hall.ratings.wall = lambda: T0 + 365 * DAY  # a year on: nobody is established
        later = (await http(server, "/ratings?game=draughts&variant=russian")).json()
        names = [p["name"] for p in later["players"]]
        assert names == ["Lou", "Ned", "Olga", "Tomás", "米娅"]  # Lou's time is not known
        assert [p["provisional"] for p in later["players"]] == [False] + [True] * 4
        assert later["players"][2]["rd"] == _rd(old, T0 + 365 * DAY)


async def test_a_wire_client_sees_its_own_row(tmp_path: Path) -> None:
    """The ids listed are the ids ``welcome`` gives, so a client finds its own row."""
    async with serving(tmp_path) as server:
        ann, bob, code = await seated_pair(server.url, clock=BLITZ)
        carl = await WireClient.connect(server.url, "carl")
        try:
            await play(ann, bob, code, ["0,0", "0,1"])
            await bob.request(type="resign", room=code)
            listed = (await http(server, "/ratings?game=hexgomoku&limit=1")).json()["players"]
            assert [p["player"] for p in listed] == [ann.welcome["player"]]
            assert carl.welcome["player"] not in {p["player"] for p in listed}
        finally:
            await close_all(ann, bob, carl)


def _plan(db: Path) -> str:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        rows = conn.execute(f"EXPLAIN QUERY PLAN {TOP_QUERY}", ("chess", 111.0)).fetchall()
    return " | ".join(str(row[-1]) for row in rows)


def test_the_query_reads_the_pool_in_rating_order_from_an_index(tmp_path: Path) -> None:
    """The top of a pool is searched in the ``ratings_top`` index, in its order (no sort, no
    scan of the table); a database made before the index gets it when it opens."""
    db = tmp_path / "hall.db"
    Storage(db).close()
    plan = _plan(db)
    assert "ratings_top" in plan, plan
    assert "TEMP B-TREE" not in plan and "SCAN r " not in f"{plan} ", plan
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("DROP INDEX ratings_top")
    assert "ratings_top" not in _plan(db)
    Storage(db).close()
    assert "ratings_top" in _plan(db)
