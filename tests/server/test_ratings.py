"""Which games are rated and what they change, driven through the sans-I/O hall
(:class:`server.testing.HallDriver`), and how storage keeps ratings (once per game)."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from server.glicko2 import Rating
from server.outputs import SaveRatings
from server.ratings import (
    GameFacts,
    NewRating,
    RatingBook,
    rate_game,
    rating_key,
    unrated_because,
)
from server.storage import Storage
from server.testing import HallDriver

BLITZ = {"initial": 300, "increment": 3}
RATED = GameFacts("first", True, False, True, True, True)


def test_rating_keys_name_the_game_and_any_variant_but_standard() -> None:
    """One rating per game id and variant."""
    assert rating_key("chess", "standard") == "chess"
    assert rating_key("shuqi", "standard") == "shuqi"
    assert rating_key("draughts", "international") == "draughts/international"
    assert rating_key("custom", "xiangqi") == "custom/xiangqi"


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"result": None}, "no result"),
        ({"both_moved": False}, "a side never moved"),
        ({"any_bot": True}, "a bot played"),
        ({"timed": False}, "untimed"),
        ({"standard_start": False}, "started from a position"),
        ({"default_options": False}, "options other than the defaults"),
    ],
)
def test_each_rule_alone_makes_a_game_unrated(change: dict[str, Any], why: str) -> None:
    """A finished game is rated only when every rule holds; each failing one is named."""
    assert unrated_because(RATED) is None
    facts = GameFacts(**{**RATED.__dict__, **change})
    assert unrated_because(facts) == why


def test_a_game_is_rated_for_both_players_against_each_others_rating_before() -> None:
    """Both are rated against the other's rating before the game, in one period each."""
    strong, weak = Rating(1800, 60, 0.06, 40), Rating(1400, 200, 0.06, 3)
    a, b = rate_game(("ann", strong), ("bob", weak), "second")
    assert (a.player, a.before, b.player, b.before) == ("ann", strong, "bob", weak)
    assert a.after.rating < 1800 and b.after.rating > 1400
    assert b.after.rating - 1400 > 1800 - a.after.rating  # bob's RD is the larger
    assert (a.after.games, b.after.games) == (41, 4)
    with pytest.raises(ValueError, match="'aborted'"):
        rate_game(("ann", strong), ("bob", weak), "aborted")


def test_the_book_keeps_ratings_in_memory_over_older_stored_ones() -> None:
    """Loading a player already in memory keeps the newer ratings in memory."""
    book = RatingBook(lambda: 1_800_000_000.0)  # a fixed wall: nothing grows
    book.play("chess", "ann", "bob", "first")
    won = book.get("ann", "chess")
    book.load("ann", {"chess": Rating(1200)})
    assert book.get("ann", "chess") == won
    book.forget("ann")
    book.load("ann", {"chess": Rating(1200)})
    assert book.get("ann", "chess").rating == 1200
    assert book.get("ann", "draughts") == Rating()


def _finish(driver: HallDriver, game: str = "hexgomoku", **create: Any) -> tuple[int, int, str]:
    """ann and bob play one move each, then ann resigns; returns both and the room."""
    a, b, code = driver.table(game, **create)
    moves = {"hexgomoku": ("0,0", "0,1"), "chess": ("e2e4", "e7e5")}[game]
    driver.move(a, code, moves[0])
    driver.move(b, code, moves[1])
    assert driver.request(a, type="resign", room=code)["type"] == "over"
    return a, b, code


def test_a_timed_game_from_the_start_is_rated_and_everyone_sees_it() -> None:
    """Resigning a timed game: both get ``over.ratings`` and then snapshots whose seats
    carry the new ratings; the write carries them with the game's end."""
    driver = HallDriver()
    a, b, code = driver.table("hexgomoku", clock=BLITZ)
    snap = driver.hall.rooms[code].view("first", driver.now).model_dump()
    assert snap["rated"] is True
    assert (snap["seats"]["first"]["rating"], snap["seats"]["first"]["rd"]) == (1500, 350)
    driver.move(a, code, "0,0")
    driver.move(b, code, "0,1")
    driver.writes.clear()
    over = driver.request(a, type="resign", room=code)
    assert over["ratings"]["first"]["before"] == 1500
    assert over["ratings"]["first"]["after"] < 1500 < over["ratings"]["second"]["after"]
    assert driver.last(b, "over")["ratings"] == over["ratings"]
    for conn in (a, b):
        seats = driver.last(conn, "room")["seats"]
        assert seats["first"]["rating"] == over["ratings"]["first"]["after"]
        assert seats["second"]["rating"] == over["ratings"]["second"]["after"]
        assert seats["second"]["rd"] < 350
    kinds = [type(w).__name__ for w in driver.writes]
    assert kinds == ["SaveGame", "SaveRatings"], kinds
    assert driver.writes[0].meta["ratings"] == over["ratings"]


@pytest.mark.parametrize(
    ("create", "why"),
    [
        ({}, "untimed"),
        ({"clock": BLITZ, "position": "second;0,0;"}, "a position"),
        ({"clock": BLITZ, "options": {"exact5": True}}, "an option"),
        ({"clock": BLITZ, "options": {"max_plies": 50}}, "a move limit"),
    ],
)
def test_games_that_are_not_rated_change_nothing(create: dict[str, Any], why: str) -> None:
    """Untimed, from a position, or with other options: no ratings in ``over``, no write,
    the seats' ratings stay 1500."""
    driver = HallDriver()
    a, b, code = driver.table("hexgomoku", **create)
    room = driver.hall.rooms[code]
    moves = ("1,1", "2,2") if "position" in create else ("0,0", "0,1")
    if "position" in create:
        driver.move(b, code, moves[0])
        driver.move(a, code, moves[1])
    else:
        driver.move(a, code, moves[0])
        driver.move(b, code, moves[1])
    over = driver.request(a, type="resign", room=code)
    assert over["type"] == "over" and over.get("ratings") is None, (why, over)
    assert not any(isinstance(w, SaveRatings) for w in driver.writes), why
    assert room.view(None, driver.now).seats.first.rating == 1500  # type: ignore[union-attr]
    assert room.view(None, driver.now).rated is False


def test_a_private_game_is_rated() -> None:
    """Private games count as public ones do."""
    driver = HallDriver()
    _, _, code = _finish(driver, clock=BLITZ, private=True)
    assert driver.hall.rooms[code].rating_changes is not None


def test_an_abort_or_a_resignation_before_both_moved_is_not_rated() -> None:
    """Aborted (no result), or resigned before the second side's first move."""
    driver = HallDriver()
    a, _, code = driver.table("hexgomoku", clock=BLITZ)
    driver.move(a, code, "0,0")
    assert driver.request(a, type="abort", room=code)["ratings"] is None
    a, b, code = driver.table("hexgomoku", clock=BLITZ)
    driver.move(a, code, "0,0")
    assert driver.request(b, type="resign", room=code)["ratings"] is None
    assert not any(isinstance(w, SaveRatings) for w in driver.writes)


def test_a_bot_program_s_games_are_not_rated_and_it_shows_no_rating() -> None:
    """A player whose hello says ``client: Bot ...`` is a bot: its seat has no rating and
    the game leaves the human's rating as it was."""
    driver = HallDriver()
    a = driver.player("ann")
    bot = driver.player("Stockfish", client="Bot stockfish 16")
    code = driver.request(a, type="create", game="hexgomoku", color="first", clock=BLITZ)["room"]
    assert driver.request(bot, type="join", room=code)["status"] == "playing"
    driver.move(a, code, "0,0")
    driver.move(bot, code, "0,1")
    over = driver.request(bot, type="resign", room=code)
    assert over["ratings"] is None
    seats = driver.last(a, "room")["seats"]
    assert seats["second"]["bot"] is True and seats["second"]["rating"] is None
    assert seats["first"]["rating"] == 1500 and seats["first"]["rd"] == 350


def test_two_games_in_a_row_build_on_each_other() -> None:
    """The second rated game starts from the first's new ratings; another game's rating
    (chess) is untouched."""
    driver = HallDriver()
    a, b, code = _finish(driver, clock=BLITZ)
    first = driver.hall.rooms[code].rating_changes
    assert first is not None
    player = driver.hall.rooms[code].seats["first"].player  # type: ignore[union-attr]
    c = driver.request(a, type="create", game="hexgomoku", color="first", clock=BLITZ)["room"]
    driver.request(b, type="join", room=c)
    driver.move(a, c, "0,0")
    driver.move(b, c, "0,1")
    again = driver.request(a, type="resign", room=c)["ratings"]
    assert again["first"]["before"] == first.first.after
    assert again["first"]["after"] < first.first.after
    assert driver.hall.ratings.get(player, "chess") == Rating()


# ---- storage --------------------------------------------------------------------------------


def _change(player: str, before: float, after: float, games: int) -> NewRating:
    return NewRating(player, Rating(before, 350, 0.06, games - 1), Rating(after, 300, 0.06, games))


def test_a_game_s_ratings_are_applied_once_whatever_writes_it_again(tmp_path: Path) -> None:
    """The same game's write applied twice (a retried commit) changes nothing the second
    time; a later game's ratings are not undone by an earlier game written again."""
    storage = Storage(tmp_path / "hall.db")
    try:
        one = SaveRatings(
            "g1", "chess", (_change("p1", 1500, 1600, 1), _change("p2", 1500, 1400, 1))
        )
        two = SaveRatings(
            "g2", "chess", (_change("p1", 1600, 1650, 2), _change("p2", 1400, 1350, 2))
        )
        storage.apply([one])
        storage.apply([two])
        storage.apply([one])
        assert storage.ratings("p1")["chess"].rating == 1650
        assert storage.ratings("p2")["chess"].games == 2
        assert storage.ratings_of(["p1", "p3"]) == {"p1": storage.ratings("p1")}
        rows = storage.db.execute("SELECT COUNT(*) FROM rating_changes").fetchone()[0]
        assert rows == 4
    finally:
        storage.close()


def test_an_older_database_gets_the_ratings_tables(tmp_path: Path) -> None:
    """A database made before ratings opens with the tables added, empty."""
    db = tmp_path / "old.db"
    Storage(db).close()
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("DROP TABLE ratings")
        conn.execute("DROP TABLE rating_changes")
    storage = Storage(db)
    try:
        assert storage.ratings("anyone") == {}
        storage.apply([SaveRatings("g1", "chess", (_change("p1", 1500, 1600, 1),))])
        assert storage.ratings("p1")["chess"].rating == 1600
    finally:
        storage.close()


def test_a_game_against_the_server_s_bot_is_not_rated() -> None:
    """A timed room against the computer (``opponent: bot:1``): not rated from the start,
    the bot's seat shows no rating, and the end changes no rating."""
    driver = HallDriver()
    ann = driver.player("ann")
    room = driver.request(
        ann, type="create", game="hexgomoku", color="first", opponent="bot:1", clock=BLITZ
    )
    assert room["rated"] is False and room["seats"]["second"]["rating"] is None
    code = room["room"]
    bot = driver.player("Bot L1", client="bot/1", token=driver.bots[-1].token)
    driver.request(bot, type="join", room=code)
    driver.move(ann, code, "0,0")
    driver.move(bot, code, "0,1")
    over = driver.request(ann, type="resign", room=code)
    assert (over["type"], over["ratings"]) == ("over", None)
    assert not any(isinstance(w, SaveRatings) for w in driver.writes)
    player = driver.hall.rooms[code].seats["first"].player  # type: ignore[union-attr]
    assert driver.hall.ratings.get(player, "hexgomoku") == Rating()
