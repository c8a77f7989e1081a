"""A local game's room (``boardhall local``: hot-seat or against the computer) shows only what
applies on one computer: no room code, ratings, spectator count, chat or "private", the move
list in the chat box's place; an online room keeps them."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from client.app import App
from client.config import Config
from client.local import EmbeddedServer, start_local
from client.scenes.room import RoomScene
from client.ui import theme
from tests.client.helpers import click, pump, room_of
from tests.client.window_tools import window_shot

GAMES = ["chess", "draughts", "shuqi", "hexgomoku", "custom"]
SIZES = [(1280, 800), (800, 600)]
NOT_LOCAL = ("1500?", "watching", "private", "chat", "mute", "No messages yet.")
"""Words that mean nothing in a game on one computer."""


@contextlib.contextmanager
def _local_room(embedded: EmbeddedServer, game: str, bot: str | None) -> Iterator[App]:
    """An app playing ``game`` locally on ``embedded`` (hot-seat, or against ``bot``); it
    disconnects at the end."""
    app = App(Config(persist=False), headless=True)
    try:
        start_local(app, embedded, game, None, bot)
        pump([app], lambda: bool(app.find(RoomScene)) and room_of(app).model.status == "playing")
        yield app
    finally:
        app.disconnect()


def _drawn(app: App, size: tuple[int, int], name: str) -> list[str]:
    _, recorded = window_shot(app, size, name)
    return [item.value for item, _ in recorded]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("bot", [None, "1"], ids=["hot-seat", "computer"])
def test_a_local_room_shows_only_what_applies(
    embedded: EmbeddedServer, game: str, bot: str | None
) -> None:
    """Both window sizes: the names, clocks, status and the working buttons are there; no
    rating, spectator count, chat words or "private" is."""
    with _local_room(embedded, game, bot) as app:
        for size in SIZES:
            texts = _drawn(app, size, f"local-{game}-{bot or 'hotseat'}-{size[0]}x{size[1]}")
            assert "Player 1" in texts or "Player 1 (you)" in texts, texts
            assert "Resign" in texts and "Leave" in texts and "—" in texts, texts
            assert any(t.startswith("Clock: ") for t in texts), texts
            clutter = [t for t in texts if any(word in t for word in NOT_LOCAL)]
            assert not clutter, clutter


def test_a_local_field_still_takes_a_typed_move(embedded: EmbeddedServer) -> None:
    """The field under the board says how to type a move, and a typed move is played."""
    with _local_room(embedded, "chess", None) as app:
        room = room_of(app)
        assert "/e2e4" in room.chat_field.placeholder
        room.chat_field.value = "/e2e4"
        room.send_chat()
        pump([app], lambda: room.model.moves == ["e2e4"])


def test_an_online_room_keeps_ratings_spectators_and_chat(ui: Any) -> None:
    """A room on a server elsewhere still shows them."""
    from client.demo import demo_room

    snapshot = demo_room("chess", plies=2, room="ON1")
    snapshot["private"] = True
    snapshot["seats"]["first"].update(rating=1500, rd=350)
    ui.open_room(snapshot)
    texts = _drawn(ui.app, (1280, 800), "online-room-keeps-its-words")
    assert any("watching" in t for t in texts), texts
    assert "Room ON1 · private" in texts, texts
    assert any("1500?" in t for t in texts), texts
    assert any(t.startswith("Enter: chat") for t in texts), texts


def test_a_local_result_says_no_rating_change(embedded: EmbeddedServer) -> None:
    """Even if the local server sends rating changes with the result, the result panel does not
    show them: they are forgotten when the program ends."""
    from client.net import NetEvent
    from client.scenes.result import ResultPanel

    with _local_room(embedded, "chess", "1") as app:
        room = room_of(app)
        ratings = {
            "first": {"before": 1500, "after": 1512, "change": 12},
            "second": {"before": 1500, "after": 1488, "change": -12},
        }
        over = {
            "type": "over",
            "room": room.model.room,
            "game_id": room.model.game_id,
            "result": "first",
            "reason": "resign",
            "ratings": ratings,
        }
        app.dispatch_net(NetEvent("message", data=over))
        pump([app], lambda: bool(app.find(ResultPanel)))
        texts = _drawn(app, (1280, 800), "local-result-no-ratings")
        assert "Game over" in texts, texts
        assert not [t for t in texts if "1512" in t or "+12" in t], texts


CHAT_GAP = (1000, 418)
"""A point between the online move list and the chat box (the panel's background there)."""


@pytest.mark.parametrize("game", GAMES)
def test_a_local_room_has_no_code_and_a_taller_move_list(
    embedded: EmbeddedServer, game: str
) -> None:
    """Nobody can join a game on one computer: no "Room CODE" is drawn, and the empty chat box
    is gone, its space the move list's (which runs on over where the gap before the chat was,
    showing more lines); the typing field is still under it."""
    from client.scenes import room_panel

    with _local_room(embedded, game, None) as app:
        room = room_of(app)
        for size in SIZES:
            texts = _drawn(app, size, f"local-{game}-moves-{size[0]}x{size[1]}")
            assert not [t for t in texts if t.startswith("Room ")], texts
        rect = room_panel.moves_rect(room)
        assert rect.top == room_panel.MOVES_RECT.top and rect.collidepoint(CHAT_GAP)
        assert rect.bottom < room.chat_field.rect.top
        assert room_panel.move_rows_in(rect) > room_panel.move_rows_in(room_panel.MOVES_RECT)
        image, _ = window_shot(app, (1280, 800), f"local-{game}-taller-moves")
        below = (1000, room_panel.LOCAL_MESSAGE_RECT.centery)  # no hole before the field
        assert image.get_at(CHAT_GAP)[:3] == image.get_at(below)[:3] == theme.INPUT_BG[:3]


def test_a_local_move_list_shows_more_moves(embedded: EmbeddedServer) -> None:
    """Sixteen chess moves typed in hot-seat: all eight lines show, no scrolling needed (the
    online list shows six), and a click on a move where the chat box was browses to it."""
    from client.scenes import room_panel

    with _local_room(embedded, "chess", None) as app:
        room = room_of(app)
        moves = [f"{f}{r}{f}{r + s}" for f in "abcdefgh" for r, s in ((2, 1), (7, -1))]
        for n, move in enumerate(moves, start=1):
            room.chat_field.value = f"/{move}"
            room.send_chat()
            pump([app], lambda: len(room.model.moves) == n)  # noqa: B023 (called at once)
        spots = room_panel.move_spots(room, room_panel.moves_rect(room))
        assert [number for number, _, _ in spots] == [f"{n}." for n in range(1, 9)]
        ply, _, cell = spots[-1][2][0]  # h3, on the eighth line: where the chat box was
        assert ply == 14 and cell.top > room_panel.CHAT_RECT.top
        click(app, cell.center)
        assert room.browse.active and room.browse.index(room.model) == 15
        texts = _drawn(app, (800, 600), "local-chess-sixteen-moves-800x600")
        assert "a3" in texts or "a2a3" in texts, texts


def test_a_local_game_has_no_code_to_copy(embedded: EmbeddedServer) -> None:
    """Ctrl+C in a local game says there is nothing to share instead of offering the code."""
    import pygame

    from tests.client.helpers import key

    with _local_room(embedded, "chess", None) as app:
        room = room_of(app)
        key(app, pygame.K_c, "c", pygame.KMOD_CTRL)
        assert room.model.room not in room.message and "this computer" in room.message


def test_the_mute_key_in_a_local_game_does_not_speak_of_chat(embedded: EmbeddedServer) -> None:
    """B (pick a chat line to mute) in a local game said "No chat line from anyone else to mute
    here.", of a chat the game does not show; it now says the game has no chat."""
    import pygame

    from tests.client.helpers import key

    with _local_room(embedded, "chess", None) as app:
        room = room_of(app)
        key(app, pygame.K_b, "b")
        assert room.message == "A game on this computer has no chat to mute.", room.message
        assert room.chat_pick is None


def test_an_online_room_keeps_its_chat_box(ui: Any) -> None:
    """Online the move list and the chat keep their places (the gap between them shows)."""
    from client.demo import demo_room
    from client.scenes import room_panel

    room = ui.open_room(demo_room("chess", plies=2, room="ON1"))
    assert room_panel.moves_rect(room) == room_panel.MOVES_RECT
    image, _ = window_shot(ui.app, (1280, 800), "online-room-keeps-its-chat-box")
    assert image.get_at(CHAT_GAP)[:3] != theme.INPUT_BG[:3]
