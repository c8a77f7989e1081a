"""Local hot-seat play through the real embedded server: offers made by either seat reach the
window (the other seat answers them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygame

from client.app import App
from client.config import Config
from client.local import EmbeddedServer, start_local
from client.scenes.room import RoomScene
from tests.client.helpers import click, key, pump, px, room_of


def _hot_seat_chess(tmp_path: Path, embedded: EmbeddedServer) -> tuple[App, RoomScene]:
    app = App(Config(path=tmp_path / "local.json"), headless=True)
    start_local(app, embedded, "chess")
    pump([app], lambda: bool(app.find(RoomScene))
         and room_of(app).model.status == "playing", timeout=15)
    return app, room_of(app)


def test_hot_seat_takeback_of_the_first_players_move(tmp_path: Path,
                                                     embedded: EmbeddedServer) -> None:
    """White moves, U asks for the takeback: the banner shows it and Y takes the move back
    (the offer used to go to the second seat's connection and was never seen)."""
    app, scene = _hot_seat_chess(tmp_path, embedded)
    try:
        for ply, (a, b) in enumerate([("e2", "e4"), ("e7", "e5"), ("g1", "f3")]):
            click(app, px(scene, a))
            click(app, px(scene, b))
            pump([app], lambda n=ply + 1: len(scene.model.moves) == n)  # type: ignore[misc]
        key(app, pygame.K_u)
        pump([app], lambda: scene.model.pending_offer() is not None, timeout=5)
        key(app, pygame.K_y)
        pump([app], lambda: len(scene.model.moves) == 2, timeout=5)
        assert scene.model.turn == "first"
    finally:
        app.disconnect()


def test_hot_seat_rematch(tmp_path: Path, embedded: EmbeddedServer) -> None:
    """After a resignation, M on the result panel offers a rematch and Y starts it."""
    app, scene = _hot_seat_chess(tmp_path, embedded)
    try:
        click(app, px(scene, "e2"))
        click(app, px(scene, "e4"))
        pump([app], lambda: len(scene.model.moves) == 1)
        key(app, pygame.K_r)
        key(app, pygame.K_r)
        pump([app], lambda: scene.model.status == "over")
        first_game = scene.model.game_id
        key(app, pygame.K_m)
        pump([app], lambda: room_of(app).model.pending_offer() is not None, timeout=5)
        key(app, pygame.K_y)
        pump([app], lambda: room_of(app).model.status == "playing"
             and room_of(app).model.game_id != first_game, timeout=10)
        new = room_of(app)
        click(app, px(new, "e2"))
        click(app, px(new, "e4"))
        pump([app], lambda: len(new.model.moves) == 1, timeout=5)
    finally:
        app.disconnect()


def test_hot_seat_swap_sides(tmp_path: Path, embedded: EmbeddedServer) -> None:
    """S before the first move, Y: the seats swap, and White's move is still played by a click
    (it goes through the connection that now holds White)."""
    app, scene = _hot_seat_chess(tmp_path, embedded)
    try:
        key(app, pygame.K_s)
        pump([app], lambda: scene.model.pending_offer() is not None, timeout=5)
        key(app, pygame.K_y)
        pump([app], lambda: scene.model.you == "second", timeout=5)
        click(app, px(scene, "e2"))
        click(app, px(scene, "e4"))
        pump([app], lambda: len(scene.model.moves) == 1, timeout=5)
        click(app, px(scene, "e7"))
        click(app, px(scene, "e5"))
        pump([app], lambda: len(scene.model.moves) == 2, timeout=5)
    finally:
        app.disconnect()


def test_replay_from_the_result_panel_says_how_the_game_ended(ui: Any) -> None:
    """P on the result panel replays the game just finished, with its result line in the
    room's words (a spectator's: names, never "you"), not only the players' names."""
    from client.demo import demo_room
    from client.scenes.replay import ReplayScene
    from client.ui import draw

    ui.open_room(demo_room("chess", plies=4, room="RP1"))
    ui.message({"type": "over", "room": "RP1", "game_id": "g-demo-1", "result": "second",
                "reason": "resign", "position": "?"})
    ui.key(pygame.K_p)
    replay = ui.app.top
    assert isinstance(replay, ReplayScene)
    assert (replay.result, replay.reason) == ("second", "resign")
    with draw.collect_text() as texts:
        replay.draw(ui.app.surface)
    assert any(t.value == "Alice resigned: Bob won" for t in texts), [t.value for t in texts]
    ui.shoot("replay-from-result-panel")


def test_confirmed_action_clears_its_question(ui: Any) -> None:
    """R, R resigns: the "Press R again to confirm" question goes away at once (it stayed in
    the panel beside the result, asking for a press that can no longer do anything)."""
    from client.demo import demo_room

    room = ui.open_room(demo_room("chess", plies=4, room="CQ1"))
    ui.key(pygame.K_r)
    assert "again to confirm" in room.message
    ui.key(pygame.K_r)
    assert ui.sent("resign")
    assert "again to confirm" not in room.message


BLACK_FIRST = "4k3/P7/8/8/8/8/7p/4K3 b - - 0 40"


def test_replay_move_list_of_a_start_with_black_to_move(ui: Any) -> None:
    """A record from a FEN with Black to move at move 40: the list reads "40. … h1=Q+" and
    "41. Kd2 Kd7", not Black's move in White's column as move 1."""
    from client.scenes.replay import ReplayScene
    from client.ui import draw

    replay = ReplayScene(ui.app, "chess", None, BLACK_FIRST,
                         ["h2h1q", "e1d2", "e8d7", "a7a8q", "h1h6"], {"first": "W", "second": "B"})
    ui.app.push(replay)
    with draw.collect_text() as texts:
        replay.draw(ui.app.surface)
    values = [t.value for t in texts]
    at = values.index("40.")
    assert values[at + 1: at + 3] == ["…", "h1=Q+"]
    at = values.index("41.")
    assert values[at + 1: at + 3] == ["Kd2", "Kd7"]
    ui.shoot("replay-black-first")


def test_room_move_list_of_a_start_with_the_second_side_to_move(ui: Any) -> None:
    """The room's list of a game started with the second side to move (a draughts PDN FEN with
    Black to move) puts the first move in the second column."""
    from client.demo import demo_room
    from client.ui import draw

    snapshot = demo_room("draughts", plies=0, room="BF1")
    snapshot["start"] = "B:W28,33:B19,10"
    snapshot["moves"] = []
    room = ui.open_room(snapshot)
    ui.message({"type": "moved", "room": "BF1", "ply": 0, "move": "19-23", "by": "second"})
    ui.message({"type": "moved", "room": "BF1", "ply": 1, "move": "28x19", "by": "first"})
    assert room.model.moves == ["19-23", "28x19"]
    with draw.collect_text() as texts:
        room.draw(ui.app.surface)
    values = [t.value for t in texts]
    at = values.index("1.")
    assert values[at + 1: at + 3] == ["…", "19-23"]
    assert values[at + 3] == "2." and values[at + 4] == "28x19"
    ui.shoot("room-black-first")


def test_the_starting_line_names_the_game_in_words(tmp_path: Path,
                                                   monkeypatch: Any) -> None:
    """``boardhall local --game shuqi`` said "Starting a local shuqi game…", the protocol's
    id, a word the window shows nowhere else; it names the game as the lobby does."""
    from client.scenes import local_start

    app = App(Config(path=tmp_path / "local.json"), headless=True)
    seen: list[str] = []
    real = local_start.draw.text

    def record(surface: Any, value: str, *args: Any, **kwargs: Any) -> Any:
        seen.append(value)
        return real(surface, value, *args, **kwargs)

    monkeypatch.setattr(local_start.draw, "text", record)
    local_start.LocalStartScene(app, "shuqi", None, None).draw(pygame.Surface((1280, 800)))
    assert seen == ["Starting a local Number chess game…"]
