"""A local game's room (``boardhall local``: hot-seat or against the computer) shows only what
applies on one computer: no ratings, no spectator count, no chat and no "private"; an online
room keeps them."""

from __future__ import annotations

from typing import Any

import pytest

from client.app import App
from client.config import Config
from client.local import EmbeddedServer, start_local
from client.scenes.room import RoomScene
from tests.client.helpers import pump, room_of
from tests.client.window_tools import window_shot

GAMES = ["chess", "draughts", "shuqi", "hexgomoku", "custom"]
SIZES = [(1280, 800), (800, 600)]
NOT_LOCAL = ("1500?", "watching", "private", "chat", "mute", "No messages yet.")
"""Words that mean nothing in a game on one computer."""


def _local_room(embedded: EmbeddedServer, game: str, bot: str | None) -> App:
    app = App(Config(persist=False), headless=True)
    start_local(app, embedded, game, None, bot)
    pump([app], lambda: bool(app.find(RoomScene)) and room_of(app).model.status == "playing")
    return app


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
    app = _local_room(embedded, game, bot)
    try:
        for size in SIZES:
            texts = _drawn(app, size, f"local-{game}-{bot or 'hotseat'}-{size[0]}x{size[1]}")
            assert "Player 1" in texts or "Player 1 (you)" in texts, texts
            assert "Resign" in texts and "Leave" in texts and "—" in texts, texts
            assert any(t.startswith("Clock: ") for t in texts), texts
            clutter = [t for t in texts if any(word in t for word in NOT_LOCAL)]
            assert not clutter, clutter
    finally:
        app.disconnect()


def test_a_local_field_still_takes_a_typed_move(embedded: EmbeddedServer) -> None:
    """The field under the board says how to type a move, and a typed move is played."""
    app = _local_room(embedded, "chess", None)
    try:
        room = room_of(app)
        assert "/e2e4" in room.chat_field.placeholder
        room.chat_field.value = "/e2e4"
        room.send_chat()
        pump([app], lambda: room.model.moves == ["e2e4"])
    finally:
        app.disconnect()


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

    app = _local_room(embedded, "chess", "1")
    try:
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
    finally:
        app.disconnect()
