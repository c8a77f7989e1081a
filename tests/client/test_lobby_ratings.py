"""The lobby's rooms list shows the players' ratings beside their names where they fit in the
Players column, and the names alone where they do not (or from a server without ratings)."""

from __future__ import annotations

from typing import Any

from client.demo import demo_rooms
from client.scenes.lobby import LobbyScene
from client.ui import fonts
from client.ui.widgets import fitting

PLAYERS = 2
"""The Players column of a room row."""


def _summary(seats: list[str], ratings: Any, rds: Any, seek: bool = False) -> dict[str, Any]:
    return {"room": "K7QD", "game": "chess", "variant": "standard", "status": "playing",
            "seats": seats, "seek": seek, "ratings": ratings, "rds": rds}


def test_a_row_shows_ratings_beside_names_provisional_ones_with_a_question_mark() -> None:
    """Ratings follow the names; a deviation above 110 shows '?'; a bot (None) shows none."""
    cell = LobbyScene.room_row(_summary(["Al", "Bo"], [1523, 1480], [60, 200]))[PLAYERS]
    assert cell == "Al 1523 vs Bo 1480?"
    seek = LobbyScene.room_row(_summary(["Wei"], [1500], [350], seek=True))[PLAYERS]
    assert seek == "Wei 1500? (seeking)"
    bot = LobbyScene.room_row(_summary(["Al", "Stockfish"], [1523, None], [60, None]))[PLAYERS]
    assert bot == "Al 1523 vs Stockfish"


def test_names_alone_where_the_ratings_do_not_fit() -> None:
    """A row too wide with ratings for its column falls back to the names."""
    cell = LobbyScene.room_row(
        _summary(["Alexandra", "Bartholomew"], [1523, 1480], [60, 60]))[PLAYERS]
    assert fitting(cell, 10_000, 16) == "Alexandra 1523 vs Bartholomew 1480"
    assert fitting(cell, fonts.text_width("Alexandra vs Bartholomew", 16), 16) == (
        "Alexandra vs Bartholomew")


def test_a_server_without_ratings_or_with_odd_ones_shows_names() -> None:
    """No ratings, or lists that are not parallel to the names, show the names as before."""
    assert LobbyScene.room_row(_summary(["Al", "Bo"], None, None))[PLAYERS] == "Al vs Bo"
    odd = LobbyScene.room_row(_summary(["Al", "Bo"], [1523], "x"))[PLAYERS]
    assert odd == "Al vs Bo"
    plain = demo_rooms()["rooms"][0]
    plain.pop("ratings", None)
    assert LobbyScene.room_row(plain)[PLAYERS] == "Alice vs Bob"
