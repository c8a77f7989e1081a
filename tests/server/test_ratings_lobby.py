"""The lobby list carries the seated players' ratings beside their names (``RoomSummary``'s
``ratings`` and ``rds``, parallel to ``seats``), driven through the sans-I/O hall."""

from __future__ import annotations

from typing import Any

from protocol.messages import RoomSummary
from server.testing import HallDriver

BLITZ = {"initial": 300, "increment": 3}


def _listed(driver: HallDriver, conn: int) -> list[dict[str, Any]]:
    return list(driver.request(conn, type="list")["rooms"])


def test_the_lobby_list_carries_the_seated_players_ratings_in_seat_order() -> None:
    """After a rated game, a new room lists both players' new ratings and deviations, in the
    order of the names; a watcher who never played sees them too."""
    driver = HallDriver()
    a, b, code = driver.table("hexgomoku", clock=BLITZ)
    driver.move(a, code, "0,0")
    driver.move(b, code, "0,1")
    over = driver.request(a, type="resign", room=code)["ratings"]
    c = driver.request(b, type="create", game="hexgomoku", color="first", clock=BLITZ)["room"]
    driver.request(a, type="join", room=c)
    carl = driver.player("carl")
    (line,) = [r for r in _listed(driver, carl) if r["room"] == c]
    assert line["seats"] == ["bob", "ann"]
    assert line["ratings"] == [over["second"]["after"], over["first"]["after"]]
    assert all(rd < 350 for rd in line["rds"])


def test_a_waiting_room_and_a_seek_list_the_one_rating_and_bots_none() -> None:
    """A waiting room's and a seek's one player have a rating; the server's bot has none."""
    driver = HallDriver()
    ann = driver.player("ann")
    room = driver.request(ann, type="create", game="chess", color="first", clock=BLITZ)["room"]
    bob = driver.player("bob")
    driver.request(bob, type="join", game="hexgomoku", clock=BLITZ)
    lines = {r["room"]: r for r in _listed(driver, driver.player("carl"))}
    assert lines[room]["ratings"] == [1500] and lines[room]["rds"] == [350]
    (seek,) = [r for r in lines.values() if r["seek"]]
    assert seek["ratings"] == [1500] and seek["rds"] == [350]


def test_an_older_summary_without_ratings_still_reads() -> None:
    """The fields are optional: a summary from a server before them parses with none."""
    old = RoomSummary.model_validate(
        {
            "room": "ABCD",
            "game": "chess",
            "variant": "standard",
            "status": "waiting",
            "seats": ["ann"],
        }
    )
    assert old.ratings is None and old.rds is None
