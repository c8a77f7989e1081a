"""A rating's deviation grows with the days since it was last updated (Glicko-2 step 6, a day a
rating period for this, as lichess does), capped at the initial 350, whenever it is used; storage
keeps when each rating was last updated (a column an older database gets)."""

from __future__ import annotations

import contextlib
import math
import sqlite3
from pathlib import Path

import pytest

from server.glicko2 import INITIAL_DEVIATION, SCALE, Rating, grown
from server.outputs import SaveRatings
from server.ratings import RatingBook
from server.storage import Storage
from server.testing import HallDriver

DAY = 86400.0
T0 = 1_800_000_000.0
BLITZ = {"initial": 300, "increment": 3}


class FakeWall:
    """A wall clock the test moves by hand."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _expected_deviation(deviation: float, volatility: float, days: float) -> float:
    phi = deviation / SCALE
    return min(math.sqrt(phi * phi + days * volatility * volatility) * SCALE, INITIAL_DEVIATION)


def test_the_deviation_grows_by_the_volatility_per_day_away_capped_at_350() -> None:
    """Step 6 once per day of inactivity; never above the initial deviation."""
    rating = Rating(1700, 60, 0.06, 30, updated=T0)
    assert grown(rating, T0) == rating
    later = grown(rating, T0 + 10 * DAY)
    assert later.deviation == pytest.approx(_expected_deviation(60, 0.06, 10))
    assert later.deviation > 60
    assert (later.rating, later.volatility, later.games, later.updated) == (1700, 0.06, 30, T0)
    assert grown(rating, T0 + 100_000 * DAY).deviation == INITIAL_DEVIATION
    assert grown(Rating(1700, 60, 0.06, 30), T0 + 10 * DAY).deviation == 60  # time unknown
    assert grown(rating, T0 - DAY).deviation == 60  # a clock set back grows nothing


def test_the_book_grows_a_rating_when_used_and_rates_from_the_grown_one() -> None:
    """Shown and played ratings are grown by the days since the last update; the game's new
    rating is stamped with the time it was played."""
    wall = FakeWall(T0)
    book = RatingBook(wall)
    book.load("p1", {"chess": Rating(1700, 60, 0.06, 30, updated=T0)})
    book.load("p2", {"chess": Rating(1500, 60, 0.06, 30, updated=T0)})
    assert book.get("p1", "chess").deviation == 60
    wall.now = T0 + 30 * DAY
    grown_deviation = _expected_deviation(60, 0.06, 30)
    assert book.get("p1", "chess").deviation == pytest.approx(grown_deviation)
    first, _ = book.play("chess", "p1", "p2", "first")
    assert first.before.deviation == pytest.approx(grown_deviation)
    assert first.after.updated == wall.now
    assert book.get("p1", "chess") == first.after


def test_storage_keeps_when_a_rating_was_updated(tmp_path: Path) -> None:
    """The time of the last update round-trips through storage."""
    wall = FakeWall(T0 + 5 * DAY)
    book = RatingBook(wall)
    changes = book.play("chess", "p1", "p2", "draw")
    storage = Storage(tmp_path / "hall.db")
    try:
        storage.apply([SaveRatings("g1", "chess", changes)])
        assert storage.ratings("p1")["chess"].updated == T0 + 5 * DAY
    finally:
        storage.close()


def test_an_older_database_gets_the_updated_column(tmp_path: Path) -> None:
    """A ratings table made before the column opens with it added; its ratings read as of an
    unknown time (not grown) until their next game."""
    db = tmp_path / "old.db"
    Storage(db).close()
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("DROP TABLE ratings")
        conn.execute(
            "CREATE TABLE ratings (player TEXT NOT NULL, key TEXT NOT NULL, rating REAL NOT NULL,"
            " deviation REAL NOT NULL, volatility REAL NOT NULL, games INTEGER NOT NULL,"
            " PRIMARY KEY (player, key)) WITHOUT ROWID"
        )
        conn.execute("INSERT INTO ratings VALUES ('old', 'chess', 1600, 80, 0.06, 12)")
    storage = Storage(db)
    try:
        assert storage.ratings("old") == {"chess": Rating(1600, 80, 0.06, 12)}
        book = RatingBook(FakeWall(T0))
        changes = book.play("chess", "p1", "p2", "first")
        storage.apply([SaveRatings("g1", "chess", changes)])
        assert storage.ratings("p1")["chess"].updated == T0
    finally:
        storage.close()


def test_a_rating_shown_in_a_room_grows_with_the_days_since_its_last_game() -> None:
    """After a rated game, a new room 200 days later shows the same rating with a larger
    deviation, and the next game is rated from it (the hall's driver clock is its wall)."""
    driver = HallDriver()
    a, b, code = driver.table("hexgomoku", clock=BLITZ)
    driver.move(a, code, "0,0")
    driver.move(b, code, "0,1")
    over = driver.request(a, type="resign", room=code)["ratings"]
    rd = driver.last(a, "room")["seats"]["first"]["rd"]
    driver.advance(200 * DAY)
    c = driver.request(a, type="create", game="hexgomoku", color="first", clock=BLITZ)["room"]
    driver.request(b, type="join", room=c)
    seat = driver.last(a, "room")["seats"]["first"]
    assert seat["rating"] == over["first"]["after"]
    assert rd < seat["rd"] <= 350
