"""The lobby as a user meets it: rooms listed by game name, and a multi-line record pasted as
the start of a new room, accepted by a real server."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import chess
import pygame

from client.app import App
from client.config import Config
from client.demo import demo_rooms, demo_welcome
from client.local import EmbeddedServer
from client.scenes.connect import ConnectScene
from client.scenes.lobby import LobbyScene, game_label
from client.scenes.room import RoomScene
from client.ui.widgets import TextField

PGN = """[Event "Casual"]
[White "A"]
[Black "B"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *
"""






def test_room_list_names_games_and_variants(ui: Any) -> None:
    """Rooms show the game's name; a variant other than the game's first shows by its name."""
    ui.app.url, ui.app.address = "ws://h:8765/", "h"
    ui.app.push(ConnectScene(ui.app, "h", "Alice"))
    welcome = demo_welcome()
    ui.message(welcome)
    lobby = ui.app.top
    assert isinstance(lobby, LobbyScene)
    rooms = demo_rooms()
    rooms["rooms"][3]["variant"] = "russian"
    ui.message(rooms)
    games = [row[1] for row in lobby.rooms_view.rows]
    assert games == ["Chess", "Hex five", "Number chess", "Russian draughts", "Chess"]  # short
    assert game_label("custom", "xiangqi", welcome["games"]) == "Xiangqi"
    assert game_label("nonesuch", "odd", []) == "nonesuch (odd)"
    assert game_label(None, None, []) == "?"


def test_text_field_keeps_pasted_lines_only_when_multiline() -> None:
    """A multi-line field keeps line breaks (shown as ¶); others drop them, as before."""
    multi = TextField(pygame.Rect(0, 0, 300, 40), "Start", multiline=True)
    multi.insert("line one\r\nline two\tend")
    assert multi.value == "line one\nline two end"
    single = TextField(pygame.Rect(0, 0, 300, 40), "Name")
    single.insert("a\nb")
    assert single.value == "ab"
    surface = pygame.Surface((320, 60))
    multi.draw(surface)  # draws without error, line breaks as one visible mark


def test_pasted_multi_line_pgn_starts_a_room_on_a_real_server(
    embedded: EmbeddedServer, tmp_path: Path, pump_until: Callable[..., None]
) -> None:
    """Paste a PGN with headers and line breaks into the start field, press Ctrl+N: the room
    opens from the record's position."""
    app = App(Config(path=tmp_path / "c.json"), headless=True)
    scene = ConnectScene(app, embedded.url, "Paster")
    app.push(scene)
    scene.submit()
    try:
        pump_until(app, lambda: isinstance(app.top, LobbyScene))
        lobby = app.top
        assert isinstance(lobby, LobbyScene)
        lobby.game_index = next(i for i, g in enumerate(app.games) if g["game"] == "chess")
        lobby.position.focused = True
        lobby.position.insert(PGN)  # what Ctrl+V does with the clipboard's text
        assert "\n" in lobby.position.value
        lobby.position.focused = False
        app.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_n,
                                            mod=pygame.KMOD_CTRL, unicode=""))
        create = [m for m in app.sent if m["type"] == "create"][-1]
        assert create["record"].startswith('[Event "Casual"]\n')
        pump_until(app, lambda: bool(app.find(RoomScene)) and app.find(RoomScene)[-1]
                   .model.state is not None)
        room = app.find(RoomScene)[-1]
        board = chess.Board()
        for san in ("e4", "e5", "Nf3", "Nc6", "Bb5", "a6"):
            board.push_san(san)
        position = room.model.engine.position(room.model.state)  # type: ignore[union-attr]
        assert position.split()[:4] == board.fen().split()[:4]
    finally:
        app.disconnect()


def test_start_field_hint_follows_the_game(ui: Any) -> None:
    """The start-position hint names the chosen game's own formats."""
    lobby = ui.open_lobby()
    hints = {}
    for i, game in enumerate(ui.app.games):
        lobby.game_index = i
        lobby._refresh_game()
        hints[game["game"]] = lobby.position.placeholder
    assert "FEN" in hints["chess"] and "PDN" in hints["draughts"]
    assert "FEN" not in hints["hexgomoku"] and "TURN;BLACK;WHITE" in hints["hexgomoku"]
    assert "TURN;PLY" in hints["shuqi"]


def test_join_watch_and_disconnect_have_keys(ui: Any) -> None:
    """In the code field Enter joins and Shift+Enter watches; Ctrl+D disconnects."""
    lobby = ui.open_lobby()
    assert (lobby.join.hint, lobby.watch_code.hint) == ("Enter", "Shift+Enter")
    lobby.code.value, lobby.code.focused = "AB12", True
    ui.key(pygame.K_RETURN, mod=pygame.KMOD_SHIFT)
    assert ui.sent("join")[-1] == {"type": "join", "room": "AB12", "role": "spectator",
                                   "id": ui.sent("join")[-1]["id"]}
    lobby.code.value, lobby.code.focused = "AB12", True
    ui.key(pygame.K_RETURN)
    assert ui.sent("join")[-1]["role"] == "player"
    ui.shoot("lobby-keys")
    ui.key(pygame.K_d, mod=pygame.KMOD_CTRL)
    assert lobby not in ui.app.stack


def test_the_replay_label_stays_in_the_middle_column_of_a_small_window(ui: Any) -> None:
    """At 640x480 text is drawn relatively larger: the replay field's label ("Replay a game:
    its id, or a record file (JSON, PGN, PDN)") ran on under the right column's buttons; it is
    cut with an ellipsis at the middle column's edge."""
    from tests.client.window_tools import render_at

    lobby = ui.open_lobby()
    ui.message(demo_rooms())
    for size in ((640, 480), (1280, 800)):
        lines = render_at(ui.app, size, "lobby-replay-label")
        label = next(rect for item, _, rect in lines if item.value.startswith("Replay a game"))
        scale = min(size[0] / 1280, size[1] / 800)
        offset = int((size[0] - 1280 * scale) / 2)
        column_end = offset + round((lobby.replay_button.rect.right) * scale)
        assert label.right <= column_end, (size, label, column_end)


def test_the_opponent_choice_says_which_computer_level_is_strongest(ui: Any) -> None:
    """"computer, level 3" alone left a player guessing whether 1 or 8 is the strong end: with
    the computer picked, the label over the choice says it (drawn whole, inside the middle
    column, at both window sizes); with a person picked it is the plain label."""
    from tests.client.window_tools import render_at

    lobby = ui.open_lobby()
    for value, want in (("", None), ("bot:1", "1 easiest"), ("bot:8", "8 strongest")):
        lobby.opponent.select(value)
        for size in ((1280, 800), (800, 600)):
            lines = render_at(ui.app, size, f"lobby-opponent-{value.replace(':', '') or 'person'}")
            label = next((item, shown, rect) for item, shown, rect in lines
                         if item.value.startswith("Opponent"))
            if want is None:
                assert label[1].split() == ["Opponent", "(B)"], label
                continue
            assert want in label[1] and "…" not in label[1], label
            scale = min(size[0] / 1280, size[1] / 800)
            offset = int((size[0] - 1280 * scale) / 2)
            assert label[2].right <= offset + round(lobby.create.rect.right * scale), label
