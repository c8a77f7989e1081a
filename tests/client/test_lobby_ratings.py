"""The lobby's rooms list shows the players' ratings beside their names where they fit in the
Players column, and the names alone where they do not (or from a server without ratings)."""

from __future__ import annotations

from typing import Any

from client.demo import demo_rooms
from client.scenes.lobby import ROOM_WIDTHS, LobbyScene
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
    """A row too wide with ratings for its column, even with its names cut to three letters,
    falls back to the names, whole where they fit, else shortened as the rated ones are."""
    cell = LobbyScene.room_row(
        _summary(["Alexandra", "Bartholomew"], [1523, 1480], [60, 60]))[PLAYERS]
    assert fitting(cell, 10_000, 16) == "Alexandra 1523 vs Bartholomew 1480"
    narrow = fonts.text_width("Ale. 1523 vs Bar. 1480", 16) - 1
    names = fitting(cell, narrow, 16)
    assert names.startswith("Alex") and " vs Bart" in names, names
    assert not any(ch.isdigit() for ch in names) and fonts.text_width(names, 16) <= narrow
    assert fitting(cell, 1, 16) == "Ale. vs Bar."


def test_a_server_without_ratings_or_with_odd_ones_shows_names() -> None:
    """No ratings, or lists that are not parallel to the names, show the names as before."""
    assert LobbyScene.room_row(_summary(["Al", "Bo"], None, None))[PLAYERS] == "Al vs Bo"
    odd = LobbyScene.room_row(_summary(["Al", "Bo"], [1523], "x"))[PLAYERS]
    assert odd == "Al vs Bo"
    plain = demo_rooms()["rooms"][0]
    plain.pop("ratings", None)
    assert LobbyScene.room_row(plain)[PLAYERS] == "Alice vs Bob"


def _shown_players(cell: str) -> str:
    """What the lobby's Players column shows of ``cell`` at the logical size."""
    return fitting(cell, ROOM_WIDTHS[PLAYERS] - 10, 16)


def test_two_player_rows_of_usual_names_show_both_ratings() -> None:
    """At the default window size the Players column holds two usual names with both ratings
    (it used to show 'Alice vs Bob' for these)."""
    rows = [r for r in demo_rooms()["rooms"] if len(r["seats"]) == 2]
    assert rows
    for r in rows:
        shown = _shown_players(LobbyScene.room_row(r)[PLAYERS])
        for name, rating in zip(r["seats"], r["ratings"], strict=True):
            assert name in shown and str(rating) in shown, shown


def test_long_names_are_abbreviated_before_the_ratings_go() -> None:
    """Names too long for the column with their ratings are cut (the longer one first, each
    keeping three letters, marked with '.') so that both ratings still show; the seeking row
    keeps its '(seeking)'."""
    cell = LobbyScene.room_row(
        _summary(["Alexandra", "Bartholomew"], [1523, 1480], [60, 200]))[PLAYERS]
    shown = _shown_players(cell)
    assert shown == "Alex. 1523 vs Bart. 1480?"
    seek = LobbyScene.room_row(_summary(["Maximilian-Alexander"], [1923], [60], seek=True))
    shown_seek = _shown_players(seek[PLAYERS])
    assert shown_seek.startswith("Maxim") and shown_seek.endswith(". 1923 (seeking)")


def test_the_lobby_rows_drawn_at_the_default_size_and_at_640x480(ui: Any) -> None:
    """The lobby with rated rooms, saved as PNGs: at 1280x800 the two-player rows show both
    ratings; at 640x480 (text kept readable, so relatively larger) no line of the room list
    leaves its column's box, and the rows fall back to the names."""
    from tests.client.window_tools import lines_inside, window_shot

    lobby = ui.open_lobby()
    rooms = demo_rooms()
    rooms["rooms"].append(
        _summary(["Alexandra", "Bartholomew"], [1523, 1480], [60, 200]) | {"room": "T3PQ"})
    ui.message(rooms)
    ui.app.step(0.0)
    _, big = window_shot(ui.app, (1280, 800), "lobby_ratings_1280x800")
    drawn = [item.value for item, _ in big]
    assert "Alice 1523 vs Bob 1480" in drawn and "Chen 1611 vs Dana 1500?" in drawn
    assert any(v.startswith("Alex") and v.endswith(" 1480?") for v in drawn), drawn
    _, small = window_shot(ui.app, (640, 480), "lobby_ratings_640x480")
    assert lines_inside(small, lobby.rooms_view.rect, (640, 480)) == []
    assert "Alice vs Bob" in [item.value for item, _ in small]


def test_room_codes_show_whole_in_a_small_window(ui: Any) -> None:
    """A room's code is what a player tells or types: at 800x600 and 640x480 (text relatively
    larger) it was cut to "54v…"; now the Room column takes what the code needs from Players
    (the widths still fill the list), no line leaves its column's box, and at 1280x800 both
    ratings still show beside the names."""
    from tests.client.window_tools import lines_inside, window_shot

    lobby = ui.open_lobby()
    rooms = demo_rooms()
    rooms["rooms"].append(_summary(["Alice", "Bob"], [1523, 1480], [60, 60]) | {"room": "mwmwm"})
    rooms["rooms"].append(_summary(["Wei"], [1702], [200], seek=True) | {"room": "54vvw"})
    ui.message(rooms)
    ui.app.step(0.0)
    for size in ((800, 600), (640, 480)):
        _, shown = window_shot(ui.app, size, f"lobby_room_codes_{size[0]}x{size[1]}")
        drawn = [item.value for item, _ in shown]
        assert "mwmwm" in drawn and "54vvw" in drawn and "Room" in drawn, size
        assert lines_inside(shown, lobby.rooms_view.rect, size) == []
    _, big = window_shot(ui.app, (1280, 800), "lobby_room_codes_1280x800")
    assert "Alice 1523 vs Bob 1480" in [item.value for item, _ in big]
    widths = lobby.rooms_view.widths
    assert sum(widths) == sum(ROOM_WIDTHS) and widths[3:] == list(ROOM_WIDTHS[3:])


LONG_PAIR = ["Maximilian-Alexander", "Bartholomew-Christopher"]
"""Two long names that cannot both fit whole in one row of a small window's room list."""


def test_two_long_names_are_both_shortened_not_one_cut_off(ui: Any) -> None:
    """At 640x480 a row of two long names (rated or not) showed the first name cut ("Maximilian…")
    and lost the second player altogether; now each name is shortened, the longer first, as a
    rated row's are ("Maxim. vs Barth."), so both players can be told apart; a lone seeking
    long name keeps five letters and the start of its "(seeking)", a short one stays whole."""
    from client.ui import draw
    from tests.client.window_tools import lines_inside, window_shot

    lobby = ui.open_lobby()
    rooms = demo_rooms()
    rooms["rooms"][:0] = [
        _summary(LONG_PAIR, None, None) | {"room": "T3PQ"},
        _summary(LONG_PAIR, [1523, 1480], [60, 200]) | {"room": "T3PR"},
        _summary(["Maximilian-Alexander"], None, None, seek=True) | {"room": "T3PS"},
    ]
    ui.message(rooms)
    ui.app.step(0.0)
    for size in ((640, 480), (800, 600)):
        _, drawn = window_shot(ui.app, size, f"lobby_long_names_{size[0]}x{size[1]}")
        scale = min(size[0] / 1280, size[1] / 800)
        shown = [draw.placed(item, scale, (0, 0))[0] for item, _ in drawn
                 if lobby.rooms_view.rect.collidepoint(item.pos)]
        pairs = [v for v in shown if v.startswith("Maxi") and " vs Bart" in v]
        assert len(pairs) == 2, (size, [v for v in shown if "vs" in v or "seek" in v])
        assert all("…" not in v for v in pairs), pairs
        assert any(v.startswith("Maxim") and ". (se" in v for v in shown), shown
        assert any(v.startswith("Gita (seek") for v in shown), shown
        assert lines_inside(drawn, lobby.rooms_view.rect, size) == []
