"""Ratings on a real server on 127.0.0.1:0 with real WebSocket clients and SQLite files in
temporary directories: a rated game's end, a crash right after it, and a bot's game."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path
from typing import Any

from server.testing import ServerProcess, WireClient
from tests.server.http_tools import http_get
from tests.server.tables import close_all, play, seated_pair, serving

BLITZ = {"initial": 300, "increment": 3}
CREATE_BLITZ: dict[str, Any] = {
    "type": "create",
    "game": "hexgomoku",
    "color": "first",
    "clock": BLITZ,
}
"""ann's room for a rated game of five in a row (5+3)."""


async def _rated_end(ann: WireClient, bob: WireClient, code: str) -> dict[str, Any]:
    """One move each, then ann resigns: the ``over`` ann got (bob got the same)."""
    await play(ann, bob, code, ["0,0", "0,1"])
    over = await ann.request(type="resign", room=code)
    assert over["type"] == "over", over
    assert (await bob.expect("over", room=code))["ratings"] == over["ratings"]
    return over


def _stored(db: Path) -> tuple[list[tuple[Any, ...]], int]:
    """The ratings rows (player, key, games) and the number of stored rating changes."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        rows = conn.execute("SELECT player, key, games FROM ratings ORDER BY player").fetchall()
        changes = conn.execute("SELECT COUNT(*) FROM rating_changes").fetchone()[0]
    return rows, int(changes)


async def test_both_players_see_the_rating_change_and_the_new_ratings(tmp_path: Path) -> None:
    """A timed game ends by resignation: both get ``over.ratings`` and then a snapshot whose
    seats carry the new ratings, stored before anyone was told."""
    async with serving(tmp_path) as server:
        ann, bob, code = await seated_pair(server.url, clock=BLITZ)
        try:
            start = await ann.request(type="join", room=code)
            assert start["rated"] is True
            assert start["seats"]["first"]["rating"] == start["seats"]["second"]["rating"] == 1500
            over = await _rated_end(ann, bob, code)
            ratings = over["ratings"]
            assert ratings["first"]["before"] == ratings["second"]["before"] == 1500
            assert ratings["first"]["after"] < 1500 < ratings["second"]["after"]
            for wire in (ann, bob):
                snap = await wire.expect("room", room=code, status="over")
                assert snap["ratings"] == ratings
                assert snap["seats"]["first"]["rating"] == ratings["first"]["after"]
                assert snap["seats"]["second"]["rating"] == ratings["second"]["after"]
            rows, changes = _stored(tmp_path / "hall.db")
            assert [(key, games) for _, key, games in rows] == [("hexgomoku", 1)] * 2
            assert changes == 2
        finally:
            await close_all(ann, bob)


async def test_a_crash_after_the_end_keeps_the_ratings_and_applies_the_game_once(
    tmp_path: Path,
) -> None:
    """The server is killed (SIGKILL) right after a rated game's end: the restarted server
    shows the new ratings in the finished room and to each player's next game, and the game
    counts once; the next game builds on it."""
    db = tmp_path / "hall.db"
    process = await ServerProcess.start(str(db))
    try:
        ann, bob, code = await seated_pair(process.url, clock=BLITZ)
        over = await _rated_end(ann, bob, code)
        tokens = ann.welcome["token"], bob.welcome["token"]
        await process.kill()
        await close_all(ann, bob)
    finally:
        await process.kill()
    ratings = over["ratings"]
    for _ in range(2):  # twice: a restart applies nothing again
        async with serving(tmp_path) as server:
            ann = await WireClient.connect(server.url, "ann", token=tokens[0])
            bob = await WireClient.connect(server.url, "bob", token=tokens[1])
            try:
                snap = await ann.request(type="join", room=code)
                assert (snap["status"], snap["ratings"]) == ("over", ratings), snap
                assert snap["seats"]["first"]["rating"] == ratings["first"]["after"]
                assert snap["seats"]["second"]["rating"] == ratings["second"]["after"]
            finally:
                await close_all(ann, bob)
        rows, changes = _stored(db)
        assert [games for _, _, games in rows] == [1, 1] and changes == 2
    async with serving(tmp_path) as server:
        ann = await WireClient.connect(server.url, "ann", token=tokens[0])
        bob = await WireClient.connect(server.url, "bob", token=tokens[1])
        try:
            new = (await ann.request(**CREATE_BLITZ))["room"]
            snap = await bob.request(type="join", room=new)
            assert snap["seats"]["first"]["rating"] == ratings["first"]["after"]
            again = (await _rated_end(ann, bob, new))["ratings"]
            assert again["first"]["before"] == ratings["first"]["after"]
            assert again["second"]["before"] == ratings["second"]["after"]
        finally:
            await close_all(ann, bob)
    rows, changes = _stored(db)
    assert [games for _, _, games in rows] == [2, 2] and changes == 4


async def test_a_game_against_a_bot_program_changes_no_rating(tmp_path: Path) -> None:
    """A ``Bot ...`` client resigns a timed game against ann: no ratings in ``over``, none
    stored, and ann is still 1500 with the full deviation in her next snapshot."""
    async with serving(tmp_path) as server:
        ann = await WireClient.connect(server.url, "ann")
        bot = await WireClient.connect(server.url, "Robo", client="Bot robo 1.0")
        try:
            code = (await ann.request(**CREATE_BLITZ))["room"]
            snap = await bot.request(type="join", room=code)
            assert snap["rated"] is False and snap["seats"]["second"]["rating"] is None
            await play(ann, bot, code, ["0,0", "0,1"])
            over = await bot.request(type="resign", room=code)
            assert (over["type"], over["result"], over["ratings"]) == ("over", "first", None)
            snap = await ann.expect("room", room=code, status="over")
            assert (snap["seats"]["first"]["rating"], snap["seats"]["first"]["rd"]) == (1500, 350)
            assert _stored(tmp_path / "hall.db") == ([], 0)
        finally:
            await close_all(ann, bot)


async def test_records_carry_the_ratings_of_a_rated_game(tmp_path: Path) -> None:
    """The JSON record has each player's rating before the game and both changes; a chess
    PGN has WhiteElo and BlackElo; an unrated game's record has neither."""
    async with serving(tmp_path) as server:
        ann, bob, code = await seated_pair(server.url, clock=BLITZ, game="chess")
        try:
            await play(ann, bob, code, ["e2e4", "e7e5"])
            over = await bob.request(type="resign", room=code)
            ratings = over["ratings"]
            assert ratings["first"]["after"] > 1500
            status, body = await http_get(server.url, f"/games/{over['game_id']}?format=json")
            assert status == 200, body
            record = json.loads(body)
            assert record["ratings"] == ratings
            assert record["players"]["first"]["rating"] == 1500
            status, pgn = await http_get(server.url, f"/games/{over['game_id']}")
            assert '[WhiteElo "1500"]' in pgn and '[BlackElo "1500"]' in pgn, pgn
            fields: dict[str, Any] = {"type": "create", "game": "chess", "color": "first"}
            casual = (await ann.request(**fields))["room"]
            await bob.request(type="join", room=casual)
            await play(ann, bob, casual, ["e2e4", "e7e5"])
            over = await bob.request(type="resign", room=casual)
            assert over["ratings"] is None
            _, body = await http_get(server.url, f"/games/{over['game_id']}?format=json")
            assert json.loads(body)["ratings"] is None
            assert json.loads(body)["players"]["first"]["rating"] is None
            _, pgn = await http_get(server.url, f"/games/{over['game_id']}")
            assert "WhiteElo" not in pgn, pgn
        finally:
            await close_all(ann, bob)


async def test_a_rated_draughts_game_s_pdn_carries_the_ratings(tmp_path: Path) -> None:
    """``GET /games/ID`` of a rated international draughts game serves PDN with WhiteElo and
    BlackElo (the ratings before the game)."""
    async with serving(tmp_path) as server:
        ann, bob, code = await seated_pair(server.url, clock=BLITZ, game="draughts")
        try:
            await play(ann, bob, code, ["32-28", "19-23"])
            over = await bob.request(type="resign", room=code)
            assert over["ratings"] is not None
            status, pdn = await http_get(server.url, f"/games/{over['game_id']}")
            assert status == 200, pdn
            assert '[WhiteElo "1500"]' in pdn and '[BlackElo "1500"]' in pdn, pdn
        finally:
            await close_all(ann, bob)


async def test_the_games_list_carries_the_player_s_rating_change(tmp_path: Path) -> None:
    """``GET /games?player=`` gives each rated game the listed player's rating change (after
    minus before, from that player's side) and an unrated game none."""
    async with serving(tmp_path) as server:
        ann, bob, code = await seated_pair(server.url, clock=BLITZ, game="chess")
        try:
            await play(ann, bob, code, ["e2e4", "e7e5"])
            over = await bob.request(type="resign", room=code)
            won = over["ratings"]["first"]["after"] - over["ratings"]["first"]["before"]
            lost = over["ratings"]["second"]["after"] - over["ratings"]["second"]["before"]
            assert won > 0 > lost
            casual = (await ann.request(type="create", game="chess", color="first"))["room"]
            await bob.request(type="join", room=casual)
            await play(ann, bob, casual, ["e2e4", "e7e5"])
            await bob.request(type="resign", room=casual)
            for who, change in ((ann, won), (bob, lost)):
                status, body = await http_get(
                    server.url, f"/games?player={who.welcome['player']}"
                )
                assert status == 200, body
                changes = {g["room"]: g["rating_change"] for g in json.loads(body)["games"]}
                assert changes == {code: change, casual: None}, changes
        finally:
            await close_all(ann, bob)
