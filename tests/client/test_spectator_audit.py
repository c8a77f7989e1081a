"""Watching a game: a spectator's room after its room has closed, and replaying a game the
server will not show (a private game of others, or a stale identity) in plain words."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest

from client import cli
from client.demo import demo_room
from client.scenes.replay import RecordError, fetch_record
from client.scenes.room import RoomScene
from client.ui import draw
from tests.client.helpers import FixedAnswer, fixed_http

PRIVATE_WORDS = "no game with that id, or a private game only its players can replay"
STALE_WORDS = "the server no longer knows your identity"


@pytest.fixture
def http_status() -> Iterator[FixedAnswer]:
    """A local HTTP server answering every GET with the status set on it (404 at first)."""
    with fixed_http(FixedAnswer(404)) as answer:
        yield answer


def test_a_refused_record_says_what_404_and_401_mean(http_status: FixedAnswer) -> None:
    """"HTTP Error 404" alone tells a user nothing: the words say it is no game, or a private
    one; a 401 says the saved identity is not known any more."""
    url = f"http://127.0.0.1:{http_status.port}/games/g1?format=json"
    with pytest.raises(RecordError) as missing:
        fetch_record(url)
    assert PRIVATE_WORDS in str(missing.value) and "404" in str(missing.value)
    http_status.status = 401
    with pytest.raises(RecordError) as stale:
        fetch_record(url, token="old")
    assert STALE_WORDS in str(stale.value) and "401" in str(stale.value)


def test_boardhall_replay_url_of_a_private_game_says_so(http_status: FixedAnswer,
                                                        capsys: Any) -> None:
    """``boardhall replay URL`` of a game the server will not show: one plain line."""
    url = f"http://127.0.0.1:{http_status.port}/games/g1?format=json"
    assert cli.main(["replay", url]) == 2
    err = capsys.readouterr().err
    assert PRIVATE_WORDS in err and "Traceback" not in err, err


def test_lobby_replay_of_a_private_game_says_what_it_means(ui: Any, http_status: FixedAnswer,
                                                           tmp_path: Path) -> None:
    """The lobby's Replay of a game id the server refuses says why in its status line."""

    lobby = ui.open_lobby()
    ui.app.url = f"ws://127.0.0.1:{http_status.port}/"
    lobby.replay_source.value = "g-private"
    lobby.start_replay("g-private")
    assert lobby.fetch is not None and lobby.fetch.wait(10), "no answer"
    ui.app.step(0.0)
    assert lobby.fetch is None
    assert PRIVATE_WORDS in lobby.status, lobby.status
    ui.shoot("spec-lobby-replay-private")


def test_a_watched_room_that_closed_says_so(ui: Any, monkeypatch: Any) -> None:
    """A spectator stays on a finished game after its players left; when the server has
    closed the room, a chat line's "no room 'old11'" becomes words, and the player cards stop
    saying "online"."""
    room = ui.open_room(demo_room("chess", plies=2, room="old11", you=None))
    assert isinstance(room, RoomScene)
    ui.message({"type": "over", "room": "old11", "game_id": "g-demo-1", "result": "first",
                "reason": "resignation", "position": "?"})
    ui.key(pygame.K_ESCAPE)  # close the result panel
    room.chat_field.value = "still here?"
    room.send_chat()
    chat = ui.sent("chat")[-1]
    ui.message({"type": "error", "re": chat["id"], "code": "unknown_room",
                "message": "no room 'old11'"})
    assert room.model.closed
    assert "closed" in room.message.lower() and "no room" not in room.message, room.message
    drawn: list[str] = []
    real_text = draw.text

    def text(surface: Any, words: str, *args: Any, **kwargs: Any) -> Any:
        drawn.append(words)
        return real_text(surface, words, *args, **kwargs)

    monkeypatch.setattr(draw, "text", text)
    ui.shoot("spec-watched-room-closed")
    assert "room closed" in drawn and not any("watching" in t for t in drawn), drawn


def test_an_answered_offer_reads_as_english(ui: Any) -> None:
    """Seen in a three-client session: Alice's declined draw offer read "Your a draw offer was
    declined."."""
    room = ui.open_room(demo_room("chess", plies=2, room="r1"))
    for kind, words in (("draw", "Your draw offer was declined."),
                        ("undo", "Your takeback offer was declined."),
                        ("rematch", "Your rematch offer was declined."),
                        ("swap", "Your offer to swap sides was declined.")):
        ui.message({"type": "answer", "room": "r1", "kind": kind, "accept": False,
                    "by": "second"})
        assert room.message == words
