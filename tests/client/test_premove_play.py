"""Premoves through the real client against a real server on loopback: entered during the
opponent's turn (click-click or drag), sent the instant the opponent's move arrives when still
legal, dropped with a calm notice when not, cancelled by right-click, Esc or an empty square."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest

from client.app import App
from client.local import EmbeddedServer
from client.scenes.dialogs import ChoiceDialog
from client.scenes.lobby import LobbyScene
from client.scenes.room import PENDING_WORDS, PREMOVE_CANCELLED, RoomScene
from tests.client.conftest import shoot
from tests.client.helpers import click, drag, key, pump, px, room_of, two_players_on_a_server


def table(alice: App, bob: App, game: str, **create: Any) -> None:
    """Alice creates a ``game`` room as the first seat, Bob joins it."""
    apps = [alice, bob]
    pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
    alice.send({"type": "create", "game": game, "color": "first", **create})
    pump(apps, lambda: bool(alice.find(RoomScene)))
    bob.send({"type": "join", "room": room_of(alice).model.room})
    pump(apps, lambda: bool(bob.find(RoomScene)) and room_of(alice).model.status == "playing"
         and room_of(bob).model.status == "playing")


@contextlib.contextmanager
def seated(tmp_path: Path, game: str, **create: Any) -> Iterator[tuple[EmbeddedServer, App, App]]:
    """A real server with Alice (first) and Bob at a ``game`` table (see :func:`table`)."""
    with two_players_on_a_server(tmp_path, tmp_path / "db.sqlite") as (server, alice, bob):
        table(alice, bob, game, **create)
        yield server, alice, bob


def play(app: App, *points: str) -> None:
    """Clicks on ``points`` of the app's board."""
    for point in points:
        click(app, px(app, point))


def moves_sent(app: App) -> list[tuple[int, str]]:
    return [(m["ply"], m["move"]) for m in app.sent if m.get("type") == "move"]


def right_click(app: App, pos: tuple[int, int]) -> None:
    for kind in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP):
        app.handle_event(pygame.event.Event(kind, pos=pos, button=3))


def test_chess_premoves_sent_dropped_and_cancelled(tmp_path: Path) -> None:
    """Bob's premove ...g8f6 is cancelled by a right-click; his ...e7e5, dragged, is sent the
    instant Alice's e2e4 arrives, for ply 1. Alice's d4-d5 (dragged during Bob's turn) is
    dropped when Bob blocks it with ...d7d5: nothing is sent, a calm notice says so."""
    with seated(tmp_path, "chess") as (_, alice, bob):
        apps = [alice, bob]
        b = room_of(bob)
        play(bob, "g8", "f6")
        assert b.premoves.points() == ("g8", "f6")
        right_click(bob, px(bob, "a4"))
        assert b.premoves.move is None
        drag(bob, px(bob, "e7"), px(bob, "e5"))
        assert b.premoves.points() == ("e7", "e5")
        assert moves_sent(bob) == []
        shoot(bob, tmp_path, "premove-chess")
        play(alice, "e2", "e4")
        pump(apps, lambda: all(len(room_of(a).model.moves) == 2 for a in apps))
        assert room_of(alice).model.moves == ["e2e4", "e7e5"]
        assert moves_sent(bob) == [(1, "e7e5")]
        assert b.premoves.move is None

        a = room_of(alice)
        play(alice, "d2", "d4")
        pump(apps, lambda: len(room_of(bob).model.moves) == 3)
        pump(apps, lambda: len(a.model.moves) == 3)
        drag(alice, px(alice, "d4"), px(alice, "d5"))
        assert a.premoves.points() == ("d4", "d5")
        play(bob, "d7", "d5")
        pump(apps, lambda: all(len(room_of(x).model.moves) == 4 for x in apps))
        alice.step(0.0)
        assert moves_sent(alice) == [(0, "e2e4"), (2, "d2d4")]
        assert a.premoves.move is None and a.message == PREMOVE_CANCELLED
        assert a.model.is_my_turn() and a.pending_move is None


def test_esc_and_an_empty_square_cancel_and_the_setting_turns_them_off(tmp_path: Path) -> None:
    with seated(tmp_path, "chess") as (_, alice, bob):
        apps = [alice, bob]
        b = room_of(bob)
        play(bob, "e7", "e5")
        key(bob, pygame.K_ESCAPE)
        assert b.premoves.move is None and bob.find(RoomScene) == [b]  # Esc did not leave
        play(bob, "e7", "e5", "a5")  # a5: an empty square
        assert b.premoves.move is None
        play(bob, "b8", "c6")
        key(bob, pygame.K_q, "q")  # premoves off: the premove goes too
        assert b.premoves.move is None and bob.config.premoves is False
        play(bob, "b8", "c6")
        assert b.premoves.move is None and b.message != ""
        play(alice, "e2", "e4")
        pump(apps, lambda: len(b.model.moves) == 1)
        bob.step(0.0)
        assert moves_sent(bob) == []
        key(bob, pygame.K_q, "q")
        assert bob.config.premoves is True


@pytest.mark.parametrize(("pick", "sent"), [("n", "e7e8n"), ("", "e7e8q")])
def test_promotion_premove_queens_unless_another_piece_is_picked(tmp_path: Path, pick: str,
                                                                 sent: str) -> None:
    """White's pawn on e7: Alice drops it on e8 during Black's turn: a queen at once, and a
    dialog beside the board offers the others. She picks the knight, or nothing (the dialog
    goes when the premove is played); Black moves; the premove is sent."""
    with seated(tmp_path, "chess", position="8/4P3/8/8/8/k7/8/K7 b - - 0 1") as (_, alice, bob):
        apps = [alice, bob]
        a = room_of(alice)
        drag(alice, px(alice, "e7"), px(alice, "e8"))
        assert a.premoves.move is not None and a.premoves.move.suffix == "q"
        assert isinstance(alice.top, ChoiceDialog)
        if pick:
            key(alice, getattr(pygame, f"K_{pick}"), pick)
            assert alice.top is a and a.premoves.move.suffix == pick
        play(bob, "a3", "b3")
        pump(apps, lambda: len(room_of(alice).model.moves) == 2)
        assert moves_sent(alice) == [(1, sent)]
        assert not alice.find(ChoiceDialog)


def test_draughts_multi_capture_premove(tmp_path: Path) -> None:
    """Black to move; Alice (White) enters the capture path 30, 19, 28; Bob's 19-24 opens it and
    it is sent at once as the engine writes it."""
    with seated(tmp_path, "draughts", position="B:W30,45:B16,19,23,3") as (_, alice, bob):
        apps = [alice, bob]
        a = room_of(alice)
        play(alice, "30", "19", "28")
        assert a.premoves.points() == ("30", "19", "28")
        shoot(alice, tmp_path, "premove-draughts")
        play(bob, "19", "24")
        pump(apps, lambda: len(room_of(bob).model.moves) == 2)
        assert moves_sent(alice) == [(1, "30x28")]


@pytest.mark.parametrize(("reply", "sent", "notice"), [
    ("14-20", [(1, "30x19")], ""),
    ("18-22", [(1, "30x10")], "Premove played as 30x19x10: the longer capture is compulsory."),
    ("18-23", [], "Premove cancelled: a longer capture is compulsory, and it goes on from 19 in "
                  "more than one way."),
    ("14-19", [], PREMOVE_CANCELLED),
])
def test_draughts_capture_premove_grows_to_the_compulsory_longer_capture(
        tmp_path: Path, reply: str, sent: list[tuple[int, str]], notice: str) -> None:
    """Alice (White) premoves 30x19 (19 clicked twice: the capture may go on from there). Bob's
    reply decides: 14-20 leaves it legal (sent as entered); 18-22 makes 30x19x10 compulsory
    (sent as that, and said); 18-23 makes two captures of two compulsory, both through 19
    (dropped, saying why); 14-19 leaves no capture (dropped as any illegal premove)."""
    with seated(tmp_path, "draughts", position="B:W30,35:B14,18,24") as (_, alice, bob):
        apps = [alice, bob]
        a = room_of(alice)
        play(alice, "30", "19", "19")
        assert a.premoves.points() == ("30", "19")
        play(bob, *reply.split("-"))
        pump(apps, lambda: len(a.model.moves) == 1)
        alice.step(0.0)
        assert moves_sent(alice) == sent
        assert a.premoves.move is None
        if notice:
            assert a.message == notice
        if sent:
            pump(apps, lambda: len(room_of(bob).model.moves) == 2)
            assert a.model.moves[1] == sent[0][1]
        shoot(alice, tmp_path, f"premove-draughts-after-{reply}")


def test_hexgomoku_premove_sent_then_one_taken_by_the_opponent(tmp_path: Path) -> None:
    with seated(tmp_path, "hexgomoku") as (_, alice, bob):
        apps = [alice, bob]
        b = room_of(bob)
        play(bob, "1,0")
        assert b.premoves.points() == ("1,0",)
        shoot(bob, tmp_path, "premove-hexgomoku")
        play(alice, "0,0")
        pump(apps, lambda: len(room_of(alice).model.moves) == 2)
        assert moves_sent(bob) == [(1, "1,0")]
        play(bob, "2,0")  # Bob premoves where Alice then plays: dropped
        play(alice, "2,0")
        pump(apps, lambda: len(b.model.moves) == 3)
        bob.step(0.0)
        assert moves_sent(bob) == [(1, "1,0")] and b.message == PREMOVE_CANCELLED


def test_spectators_have_no_premoves_and_a_takeback_clears_one(tmp_path: Path) -> None:
    from tests.client.helpers import open_app

    with seated(tmp_path, "chess") as (server, alice, bob):
        carol = open_app(tmp_path, "Carol", server.url)
        apps = [alice, bob, carol]
        try:
            pump(apps, lambda: isinstance(carol.top, LobbyScene))
            carol.send({"type": "join", "room": room_of(alice).model.room, "role": "spectator"})
            pump(apps, lambda: bool(carol.find(RoomScene)))
            c = room_of(carol)
            play(carol, "e7", "e5")
            assert c.premoves.move is None and c.premoves.picker.selected is None
            play(alice, "e2", "e4")
            pump(apps, lambda: len(room_of(bob).model.moves) == 1
                 and len(room_of(alice).model.moves) == 1)
            a = room_of(alice)
            play(alice, "d2", "d4")
            assert a.premoves.points() == ("d2", "d4")
            key(alice, pygame.K_u, "u")  # Alice asks to take e2e4 back; Bob accepts
            pump(apps, lambda: room_of(bob).model.pending_offer() is not None)
            key(bob, pygame.K_y, "y")
            pump(apps, lambda: a.model.moves == [])
            assert a.premoves.move is None
        finally:
            carol.disconnect()


def test_a_drop_and_the_game_end_clear_the_premove(tmp_path: Path) -> None:
    """A premove does not outlive the connection it was entered on, nor the game."""
    with seated(tmp_path, "hexgomoku") as (_, alice, bob):
        apps = [alice, bob]
        b = room_of(bob)
        play(bob, "1,0")
        assert bob.connection is not None
        bob.connection.drop()
        pump(apps, lambda: bob.net_status != "online")
        assert b.premoves.move is None
        pump(apps, lambda: bob.net_status == "online"
             and (b.model.seats.get("second") or {}).get("connected") is True)
        play(bob, "1,0")
        assert b.premoves.points() == ("1,0",)
        key(alice, pygame.K_r, "r")
        key(alice, pygame.K_r, "r")  # resign, confirmed
        pump(apps, lambda: b.model.status == "over")
        assert b.premoves.move is None and moves_sent(bob) == []


def test_a_premove_dropped_with_the_connection_is_said_not_lost_silently(tmp_path: Path) -> None:
    """Bob's premove goes with the connection (the position it was for may not come back): the
    room says so, and the line is still there once he is back, so he knows to play it again."""
    with seated(tmp_path, "hexgomoku") as (_, alice, bob):
        apps = [alice, bob]
        b = room_of(bob)
        play(bob, "1,0")
        assert b.premoves.points() == ("1,0",)
        assert bob.connection is not None
        bob.connection.drop()
        pump(apps, lambda: bob.net_status != "online")
        assert b.premoves.move is None
        assert b.message.startswith("Your premove 1,0 was cancelled"), b.message
        pump(apps, lambda: bob.net_status == "online"
             and (b.model.seats.get("second") or {}).get("connected") is True)
        bob.step(0.0)
        assert b.message.startswith("Your premove 1,0 was cancelled"), b.message
        shoot(bob, tmp_path, "premove_dropped_with_the_connection")


def test_a_premove_is_entered_while_our_own_move_is_on_its_way(tmp_path: Path) -> None:
    """Alice plays e2-e4 and, before the server has confirmed it, enters e4xd5 (a premove from
    the square her pawn is going to): the board shows her move played, nothing more is sent.
    She picks up her knight while the confirmation arrives and drops it back (the half-entered
    premove survives the confirmation); Bob answers d7-d5 and e4xd5 goes at once for ply 2."""
    with seated(tmp_path, "chess") as (_, alice, bob):
        apps = [alice, bob]
        a = room_of(alice)
        play(alice, "e2", "e4")
        assert a.pending_move == "e2e4" and len(a.model.moves) == 0
        assert a.premove_mode()
        assert a.marks().last_move == ("e2", "e4")  # the board shows the move on its way
        play(alice, "e4", "d5")
        assert a.premoves.points() == ("e4", "d5")
        assert a.message != PENDING_WORDS
        play(alice, "g1")
        pump(apps, lambda: len(room_of(bob).model.moves) == 1 and len(a.model.moves) == 1)
        assert a.pending_move is None and a.premoves.picker.selected == "g1"
        play(alice, "g1")  # put down again: the premove stays
        assert a.premoves.points() == ("e4", "d5")
        play(bob, "d7", "d5")
        pump(apps, lambda: all(len(room_of(x).model.moves) == 3 for x in apps))
        assert moves_sent(alice) == [(0, "e2e4"), (2, "e4d5")]


def test_a_refused_move_takes_the_premove_entered_on_it_along(tmp_path: Path) -> None:
    """A premove entered on top of a move the server then refuses is cancelled with it (it
    was meant for a position that never came); the board is Alice's to move again."""
    from client.net import NetEvent

    with seated(tmp_path, "chess") as (_, alice, _bob):
        a = room_of(alice)
        play(alice, "e2", "e4")
        play(alice, "g1", "f3")
        assert a.premoves.points() == ("g1", "f3")
        sent = max(a.my_requests)
        alice.dispatch_net(NetEvent("message", data={
            "type": "error", "code": "illegal_move", "message": "Illegal move.", "re": sent,
            "room": a.model.room}))
        assert a.pending_move is None and a.premoves.move is None
        assert not a.premove_mode() and a.marks().last_move == ()
        assert "Illegal move." in a.message


def violet(colour: Any) -> bool:
    """A premove mark's colour: blue and red well above green (the normal targets are green)."""
    r, g, b = colour[:3]
    return b > g + 25 and r > g


@pytest.mark.parametrize(("game", "piece", "target", "own", "own_target"), [
    ("chess", "e7", "e6", "e2", "e3"),
    ("draughts", "19", "23", "32", "28"),
    ("custom", "3,8", "4,8", "8,2", "7,2"),
])
def test_a_premove_being_entered_shows_its_targets_in_the_premove_colour(
        tmp_path: Path, game: str, piece: str, target: str, own: str, own_target: str) -> None:
    """Bob picks up a piece during Alice's turn: its target (an empty point) is marked violet,
    as the premove will be, while Alice's own targets on her turn stay green."""
    create = {"variant": "xiangqi"} if game == "custom" else {}
    with seated(tmp_path, game, **create) as (_, alice, bob):
        b, a = room_of(bob), room_of(alice)
        play(bob, piece)
        assert b.premoves.picker.selected == piece and target in b.marks().targets
        assert b.marks().premoving
        surface = shoot(bob, tmp_path, f"premove-targets-{game}")
        assert violet(surface.get_at(px(bob, target))), surface.get_at(px(bob, target))
        play(alice, own)
        assert a.picker.selected == own and not a.marks().premoving
        surface = shoot(alice, tmp_path, f"targets-{game}")
        assert not violet(surface.get_at(px(alice, own_target)))


@pytest.mark.parametrize("size", [(1280, 800), (640, 480)])
def test_the_status_line_says_a_premove_is_set_and_how_to_cancel_it(
        tmp_path: Path, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch) -> None:
    """Bob's premove ...e7-e5 is in the status line (whole, in the premove's colour) at both
    window sizes, with Esc to cancel it where there is room; after Esc the line is the turn's
    again. Saved as /tmp/polish2-premove-WxH.png."""
    import shutil

    from client.screenshot import save
    from tests.client.helpers import status_parts

    with seated(tmp_path, "chess") as (_, _alice, bob):
        play(bob, "e7", "e5")
        parts = status_parts(bob, size, monkeypatch)
        line = "".join(text for text, _, _ in parts)
        assert "Premove: e7-e5" in line and all(whole for _, _, whole in parts), parts
        if size == (1280, 800):
            assert line == "Alice is thinking… · Premove: e7-e5 · Esc cancels"
        out = tmp_path / f"polish2-premove-{size[0]}x{size[1]}.png"
        save(bob, out, size)
        shutil.copy(out, Path("/tmp") / out.name)
        key(bob, pygame.K_ESCAPE)
        parts = status_parts(bob, size, monkeypatch)
        assert [text for text, _, _ in parts] == ["Alice is thinking…"]
