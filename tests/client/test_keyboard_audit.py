"""Keyboard-only play: every text field of the lobby is reached with Tab (a room code can be
typed and joined without a mouse), a waiting room's code is in plain view and copied with
Ctrl+C to tell a friend, and a move is typed in each game's notation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygame
import pytest

from client.demo import demo_room
from client.scenes.lobby import LobbyScene
from client.scenes.result import ResultPanel
from client.scenes.room import RoomScene
from client.ui import theme, widgets
from tests.client.helpers import drawn, key, next_game, open_app, room_of, type_text


def focused_label(lobby: LobbyScene) -> list[str]:
    """Labels of the lobby's focused fields."""
    return [f.label for f in lobby.fields if f.focused]


def recorder(copied: list[str]) -> Any:
    """A stand-in for :func:`widgets.copy_text` that keeps what it was given."""

    def copy(text: str) -> bool:
        copied.append(text)
        return True

    return copy


def test_tab_reaches_every_lobby_field_in_layout_order(ui: Any) -> None:
    """Tab walks options (a game with options), start position, room code, replay; Shift+Tab
    walks back; Esc leaves the fields so the letter shortcuts work again."""
    lobby = ui.open_lobby()
    assert not focused_label(lobby)
    order = []
    for _ in range(len(lobby.tab_order())):
        ui.key(pygame.K_TAB)
        order.append(focused_label(lobby))
    assert [o[0] for o in order] == [f.label for f in lobby.tab_order()]
    assert all(len(o) == 1 for o in order)
    assert lobby.code in lobby.tab_order() and lobby.replay_source in lobby.tab_order()
    assert lobby.tab_order().index(lobby.position) < lobby.tab_order().index(lobby.code) \
        < lobby.tab_order().index(lobby.replay_source)
    ui.key(pygame.K_TAB)  # wraps to the first
    assert focused_label(lobby) == [lobby.tab_order()[0].label]
    ui.key(pygame.K_TAB, mod=pygame.KMOD_SHIFT)  # and back to the last
    assert focused_label(lobby) == [lobby.tab_order()[-1].label]
    ui.key(pygame.K_TAB, "\t")  # a Tab's text never lands in the field
    assert "\t" not in lobby.replay_source.value and lobby.replay_source.value == ""
    ui.key(pygame.K_ESCAPE)
    assert not focused_label(lobby)
    ui.shoot("kb-lobby-tab")


def test_room_code_typed_and_joined_with_the_keyboard_only(ui: Any) -> None:
    """Tab to the room code, type it (its letters are not shortcuts there), Enter joins and
    Shift+Enter watches."""
    lobby = ui.open_lobby()
    for _ in range(6):
        if lobby.code.focused:
            break
        ui.key(pygame.K_TAB)
    assert lobby.code.focused, "Tab never reaches the room code"
    surface = ui.shoot("kb-lobby-code-focused")
    top = (lobby.code.rect.centerx, lobby.code.rect.top)
    assert surface.get_at(top)[:3] == theme.ACCENT  # the focused field shows it
    for ch in "wjpk":  # Watch, Join seat, Private, Clock shortcuts elsewhere
        ui.key(getattr(pygame, f"K_{ch}"), ch)
    assert lobby.code.value == "wjpk"
    assert not lobby.private.on
    ui.key(pygame.K_RETURN)
    assert ui.sent("join")[-1]["room"] == "wjpk"
    assert ui.sent("join")[-1]["role"] == "player"
    ui.key(pygame.K_RETURN, mod=pygame.KMOD_SHIFT)
    assert ui.sent("join")[-1]["role"] == "spectator"


def test_waiting_room_shows_its_code_and_copies_it(ui: Any, monkeypatch: Any) -> None:
    """A room waiting for a friend says which code to give, and Ctrl+C puts it on the
    clipboard (or says there is no clipboard, and the code stays on screen)."""
    snapshot = demo_room("chess", plies=0, status="waiting", room="ab3cd")
    snapshot["seats"]["second"] = None
    snapshot["private"] = True
    room = ui.open_room(snapshot)
    assert isinstance(room, RoomScene)
    copied: list[str] = []
    monkeypatch.setattr(widgets, "copy_text", recorder(copied))
    assert "ab3cd" in room.status_line()
    ui.key(pygame.K_c, "c", pygame.KMOD_CTRL)
    assert copied == ["ab3cd"]
    assert "ab3cd" in room.message and "copied" in room.message.lower()
    assert not ui.sent("timeout")  # C (Claim time) is not what Ctrl+C does
    ui.shoot("kb-room-code-copied")

    monkeypatch.setattr(widgets, "copy_text", lambda text: False)
    ui.key(pygame.K_c, "c", pygame.KMOD_CTRL)
    assert "ab3cd" in room.message and "clipboard" in room.message.lower()


def test_ctrl_c_in_the_chat_copies_the_code_not_a_letter(ui: Any, monkeypatch: Any) -> None:
    """Ctrl+C while typing in the chat copies the code; no "c" gets typed."""
    room = ui.open_room(demo_room("chess", plies=0, status="waiting", room="ab3cd"))
    copied: list[str] = []
    monkeypatch.setattr(widgets, "copy_text", recorder(copied))
    ui.key(pygame.K_RETURN)
    assert room.chat_field.focused
    ui.key(pygame.K_c, "", pygame.KMOD_CTRL)
    assert copied == ["ab3cd"] and room.chat_field.value == ""


def test_copy_text_falls_back_without_a_clipboard() -> None:
    """With the dummy video driver there may be no clipboard: copying says False, never
    raises."""
    assert widgets.copy_text("ab3cd") in (True, False)


def test_join_private_room_by_typed_code_with_two_real_clients(
        tmp_path: Path, embedded: Any, pump_until: Any) -> None:
    """Alice creates a private room with P and Ctrl+N; Bob, keyboard only, Tabs to the code,
    types it and presses Enter; a third client watches with Shift+Enter."""
    alice = open_app(tmp_path, "Alice", embedded.url)
    bob = open_app(tmp_path, "Bob", embedded.url)
    carol = open_app(tmp_path, "Carol", embedded.url)
    apps = [alice, bob, carol]
    pump_until(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))

    def press(app: Any, key: int, text: str = "", mod: int = 0) -> None:
        app.handle_event(pygame.event.Event(pygame.KEYDOWN, key=key, mod=mod, unicode=text))
        if text:
            app.handle_event(pygame.event.Event(pygame.TEXTINPUT, text=text))

    press(alice, pygame.K_p, "p")
    press(alice, pygame.K_n, "", pygame.KMOD_CTRL)
    pump_until(apps, lambda: isinstance(alice.top, RoomScene) and alice.top.model.game != "")
    room = alice.top
    assert isinstance(room, RoomScene) and room.model.private
    code = room.model.room
    assert code in room.status_line()
    for app, mod in ((bob, 0), (carol, pygame.KMOD_SHIFT)):
        lobby = app.top
        assert isinstance(lobby, LobbyScene)
        for _ in range(6):
            if lobby.code.focused:
                break
            press(app, pygame.K_TAB)
        assert lobby.code.focused, "Tab never reaches the room code"
        for ch in code:
            press(app, pygame.key.key_code(ch), ch)
        press(app, pygame.K_RETURN, "", mod)
    pump_until(apps, lambda: isinstance(bob.top, RoomScene) and isinstance(carol.top, RoomScene)
               and room.model.status == "playing")
    assert isinstance(bob.top, RoomScene) and bob.top.model.you in ("first", "second")
    assert isinstance(carol.top, RoomScene) and carol.top.model.you is None


def test_leaving_a_rematch_goes_to_the_lobby_not_the_last_game(ui: Any) -> None:
    """A rematch opens a new room; the finished one goes (with a leave sent), so Esc, Esc from
    the rematch is back in the lobby rather than in the game before it."""
    snapshot = demo_room("chess", plies=2, room="old11")
    room = ui.open_room(snapshot)
    ui.message(drawn("old11"))
    rematch = next_game(snapshot, "new22", you="second")
    ui.message(rematch)
    assert isinstance(ui.app.top, RoomScene) and ui.app.top.model.room == "new22"
    assert room not in ui.app.stack
    assert any(m["room"] == "old11" for m in ui.sent("leave"))
    ui.key(pygame.K_ESCAPE)
    ui.key(pygame.K_ESCAPE)
    assert isinstance(ui.app.top, LobbyScene)


def test_another_game_does_not_close_a_finished_room_of_other_players(ui: Any) -> None:
    """Only a rematch (the same two players) replaces a finished room: watching a finished
    game of others, a room of someone else opening keeps it."""
    room = ui.open_room(demo_room("chess", plies=2, room="old11", you=None))
    ui.message(drawn("old11"))
    other = demo_room("chess", plies=0, room="new22")
    other["seats"]["second"] = {"player": "p-carol", "name": "Carol", "connected": True,
                                "bot": False}
    ui.message(other)
    assert room in ui.app.stack


def test_the_keypad_enter_closes_the_result_as_enter_does(ui: Any) -> None:
    """Enter closed the result panel, the keypad's Enter did nothing there (every other scene
    takes both); now it closes it too, back to the finished room."""
    room = ui.open_room(demo_room("chess", plies=2, room="K7QD"))
    ui.message(drawn("K7QD"))
    assert isinstance(ui.app.top, ResultPanel)
    ui.key(pygame.K_KP_ENTER)
    assert ui.app.top is room
    ui.shoot("kb-result-closed-by-keypad-enter")


TYPED_GAMES: list[tuple[str, str | None, list[str]]] = [
    ("chess", None, ["e4", "e7e5", "Nf3"]),
    ("draughts", None, ["32-28", "19-23", "28x19"]),
    ("shuqi", None, ["14,7-10,3=1+7-8", "0,7-4,11=1+7-8"]),
    ("hexgomoku", None, ["0,0", "1,0"]),
    ("custom", "xiangqi", ["7,1-6,1", "1,1-2,1"]),
]
"""Opening moves of each game as a player types them (SAN, PDN, a span with its expression,
a placement, row,col pairs)."""


@pytest.mark.parametrize(("game", "variant", "moves"), TYPED_GAMES,
                         ids=[g for g, _, _ in TYPED_GAMES])
def test_a_move_typed_in_each_game_is_played(
        tmp_path: Path, embedded: Any, pump_until: Any, game: str, variant: str | None,
        moves: list[str]) -> None:
    """Without the mouse, a move is made in each of the five games as the chat field's hint
    says: Enter, ``/`` and the move in the game's notation, Enter; the real server plays it
    and the opponent sees it (a number chess span typed without its expression is refused
    with what it needs)."""
    alice = open_app(tmp_path, "Alice", embedded.url)
    bob = open_app(tmp_path, "Bob", embedded.url)
    apps = [alice, bob]
    pump_until(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
    alice.send({"type": "create", "game": game, "color": "first"}
               | ({"variant": variant} if variant else {}))
    pump_until(apps, lambda: isinstance(alice.top, RoomScene))
    bob.send({"type": "join", "room": room_of(alice).model.room})
    pump_until(apps, lambda: isinstance(bob.top, RoomScene)
               and room_of(alice).model.status == "playing")

    def type_move(app: Any, move: str) -> None:
        key(app, pygame.K_RETURN)
        type_text(app, "/" + move)
        key(app, pygame.K_RETURN)

    if game == "shuqi":
        type_move(alice, moves[0].partition("=")[0])
        pump_until(apps, lambda: "needs an expression" in room_of(alice).message)
    for ply, move in enumerate(moves, 1):
        type_move(apps[(ply - 1) % 2], move)
        pump_until(apps, lambda n=ply: len(room_of(bob).model.moves) == n)
    assert len(room_of(alice).model.moves) == len(moves)
    for app in apps:
        app.disconnect()


def test_the_lobby_sound_button_has_a_key(ui: Any) -> None:
    """The lobby's Sound button was the one button there without a key (the room's V is the
    lobby's variant key): S now flips it, as its hint says; an S typed into a field is a
    letter, not the shortcut."""
    lobby = ui.open_lobby()
    assert lobby.sound_button.hint == "S"
    ui.key(pygame.K_s, "s")
    assert ui.app.config.sound is False and lobby.sound_button.label == "Sound off"
    ui.key(pygame.K_TAB)
    ui.key(pygame.K_s, "s")
    assert ui.app.config.sound is False and "s" in [f.value for f in lobby.fields]
    ui.key(pygame.K_ESCAPE)
    ui.key(pygame.K_s, "s")
    assert ui.app.config.sound is True and lobby.sound_button.label == "Sound on"
    ui.shoot("kb-lobby-sound-key")
