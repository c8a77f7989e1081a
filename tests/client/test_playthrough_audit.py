"""Whole games of each of the five games played through the client as a user plays them (mouse
clicks and drags, keys), against a real server, and what a user found wrong on the way:

- Ctrl+D (the lobby's Disconnect) in a room offered a draw; a modifier never makes a letter a
  shortcut now (room, lobby, result panel, replay, choice dialog).
- Draughts: clicking the first landing square of a capture played another (circular) capture
  that happened to end on that square; now the click waits for the next landing square (or the
  same square again, to end there).
- Number chess: the expression dialog's error was cut at a small window; it wraps now.
- Hexagonal five-in-a-row: a room with ``exact5`` did not say so (six in a row and the game went
  on, unexplained); the room's options are shown beside the clock.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygame
import pytest

from client.app import App
from client.demo import demo_room
from client.local import EmbeddedServer
from client.moves import MovePicker, MoveShape
from client.scenes.dialogs import ChoiceDialog, ExpressionDialog
from client.scenes.lobby import LobbyScene
from client.scenes.replay import ReplayScene
from client.scenes.result import ResultPanel
from client.scenes.room import RoomScene
from client.screenshot import save
from client.ui import draw
from client.ui.widgets import Toggle
from tests.client.helpers import (
    click,
    drag,
    drawn,
    key,
    open_app,
    pump,
    px,
    room_of,
    type_text,
)

SHOTS = Path("/tmp/playthrough")
SIZES = ((1280, 800), (640, 480))
CTRL, ALT = pygame.KMOD_CTRL, pygame.KMOD_ALT


# ---- driving the app as a user -------------------------------------------------------------


def shot(app: App, name: str) -> None:
    """Save what the app shows as windows of 1280x800 and 640x480 under /tmp/playthrough."""
    for size in SIZES:
        save(app, SHOTS / f"{name}-{size[0]}x{size[1]}.png", size)


def sent(app: App, kind: str) -> list[dict[str, Any]]:
    """Messages of ``kind`` the app sent."""
    return [m for m in app.sent if m.get("type") == kind]


def two_players(tmp_path: Path, server: EmbeddedServer, game: str, variant: str | None = None,
                position: str = "", options: str = "") -> tuple[App, App]:
    """Alice picks ``game`` in the lobby (variant, start position and options typed in the
    form), creates a room as the first player; Bob types its code and joins."""
    alice, bob = (open_app(tmp_path, name, server.url) for name in ("Alice", "Bob"))
    apps = [alice, bob]
    pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
    lobby = alice.top
    assert isinstance(lobby, LobbyScene)
    index = next(i for i, g in enumerate(alice.games) if g["game"] == game)
    click(alice, lobby.game_rows()[index].center)
    while variant and lobby.variant.value != variant:
        key(alice, pygame.K_v, "v")
    while lobby.color.value != "first":
        key(alice, pygame.K_o, "o")
    if position:
        click(alice, lobby.position.rect.center)
        type_text(alice, position)
    for item in options.split():  # name=value: each option has its widget in the lobby
        name, _, value = item.partition("=")
        widget = lobby.option_widgets[name]
        if isinstance(widget, Toggle):
            if widget.on != (value == "true"):
                click(alice, widget.rect.center)
        else:
            click(alice, widget.rect.center)
            type_text(alice, value)
    key(alice, pygame.K_ESCAPE)
    click(alice, lobby.create.rect.center)
    pump(apps, lambda: bool(alice.find(RoomScene)))
    code = room_of(alice).model.room
    bob_lobby = bob.top
    assert isinstance(bob_lobby, LobbyScene)
    click(bob, bob_lobby.code.rect.center)
    type_text(bob, code)
    key(bob, pygame.K_RETURN)
    pump(apps, lambda: bool(bob.find(RoomScene))
         and room_of(alice).model.status == "playing")
    return alice, bob


def play(apps: list[App], app: App, *points: str, how: str = "click") -> None:
    """``app``'s player clicks (or drags between) ``points``; waits until both saw the move."""
    n = len(room_of(app).model.moves)
    if how == "drag":
        drag(app, px(app, points[0]), px(app, points[1]))
    else:
        for point in points:
            click(app, px(app, point))
    pump(apps, lambda: all(len(room_of(a).model.moves) > n for a in apps))


@pytest.fixture
def server() -> Any:
    """A real server on a loopback port."""
    embedded = EmbeddedServer().start()
    yield embedded
    embedded.stop()


# ---- the defects -----------------------------------------------------------------------------


def test_ctrl_letter_is_not_a_room_shortcut(ui: Any) -> None:
    """Ctrl+D (the lobby's Disconnect) or Alt+R in a room does nothing; D alone offers a
    draw, R alone asks to resign."""
    room = ui.open_room(demo_room("chess", plies=4))
    for code, mod in ((pygame.K_d, CTRL), (pygame.K_d, pygame.KMOD_LCTRL), (pygame.K_d, ALT),
                      (pygame.K_d, pygame.KMOD_META), (pygame.K_r, ALT), (pygame.K_f, CTRL)):
        ui.key(code, "", mod)
    assert not ui.sent("offer") and not ui.sent("resign")
    assert not room.flipped and "Resign?" not in room.message
    ui.key(pygame.K_d, "d", pygame.KMOD_NUM)  # Num Lock on is not a modifier
    assert [m["kind"] for m in ui.sent("offer")] == ["draw"]
    ui.key(pygame.K_f, "f", pygame.KMOD_SHIFT)
    assert room.flipped


def test_ctrl_letter_is_not_a_shortcut_elsewhere(ui: Any) -> None:
    """The lobby (W, J, V...), the result panel (M, P, L, Y, N), the replay (F, K) and the
    promotion chooser (Q, R, B, N) take letters only without Ctrl or Alt."""
    lobby = ui.open_lobby()
    variant, private = lobby.variant.index, lobby.private.on
    for code in (pygame.K_p, pygame.K_v, pygame.K_k, pygame.K_o, pygame.K_b):
        ui.key(code, "", CTRL)
    assert (lobby.variant.index, lobby.private.on) == (variant, private)
    ui.key(pygame.K_p, "p")
    assert lobby.private.on != private

    snapshot = demo_room("chess", plies=4)
    room = ui.open_room(snapshot)
    ui.message(drawn(room.model.room) | {"game_id": snapshot["game_id"]})
    assert isinstance(ui.app.top, ResultPanel)
    for code in (pygame.K_m, pygame.K_p, pygame.K_l):
        ui.key(code, "", CTRL)
    assert isinstance(ui.app.top, ResultPanel) and not ui.sent("offer")
    ui.key(pygame.K_p, "p")
    replay = ui.app.top
    assert isinstance(replay, ReplayScene)
    flipped = replay.view.flipped if replay.view else None
    ui.key(pygame.K_f, "", CTRL)
    assert (replay.view.flipped if replay.view else None) == flipped

    chosen: list[str] = []
    dialog = ChoiceDialog(ui.app, "Promote to", [("Queen", "q", "e7e8q"),
                                                 ("Knight", "n", "e7e8n")], chosen.append)
    ui.app.push(dialog)
    ui.key(pygame.K_n, "n", ALT)
    assert not chosen and ui.app.top is dialog
    ui.key(pygame.K_n, "n")
    assert chosen == ["e7e8n"]


def test_landing_square_that_ends_another_capture_waits() -> None:
    """37x26 lands first on 28; 37x28 (a circle) ends on 28. A click on 28 must not play the
    circle: it waits for the next landing square, or 28 again to end there."""
    shapes = [MoveShape("37x26", "37", ("28", "19", "8", "17", "26")),
              MoveShape("37x28", "37", ("28", "17", "8", "19", "28")),
              MoveShape("37x28", "37", ("28", "19", "8", "17", "28"))]
    picker = MovePicker("draughts", shapes)
    picker.click("37")
    pick = picker.click("28")
    assert pick.kind == "pending" and "28" in pick.message, pick
    assert picker.targets() >= {"28", "19", "17"}
    for point in ("19", "8", "17"):
        assert picker.click(point).kind == "pending"
    last = picker.click("26")
    assert (last.kind, last.moves) == ("send", ["37x26"])
    picker.reset(shapes)
    picker.click("37")
    picker.click("28")
    assert picker.click("28").moves == ["37x28"]  # the same square again: the circle


def test_expression_error_wraps_in_a_small_window(ui: Any) -> None:
    """The engine's reason for a wrong expression is read whole at 640x480 (it was cut)."""
    reason = ("illegal span 13,8-10,5=6*3: it has value 18, needed 9 (the moving piece's "
              "number); used 3, 6 as expected")
    dialog = ExpressionDialog(ui.app, "13,8-10,5", "3, 6", 9, "6+3", lambda e: reason,
                              lambda e: None)
    ui.app.push(dialog)
    ui.type("6*3")
    ui.key(pygame.K_RETURN)
    assert dialog.error == reason
    for scale in (1.0, 0.5):
        with draw.collect_text(scale) as texts:
            dialog.draw(ui.app.surface)
        shown = []
        for item in texts:
            value, _, rect = draw.placed(item, scale, (0, 0))
            if item.color == draw.theme.BAD:
                shown.append(value)
                card = dialog.card
                assert rect.bottom <= card.bottom * scale + 1, (value, rect, scale)
        assert " ".join(shown) == reason, (scale, shown)


def test_room_says_exact_five(ui: Any) -> None:
    """A hexgomoku room with exact5 says so beside the clock (a default option says
    nothing)."""
    snapshot = demo_room("hexgomoku", plies=2)
    snapshot["options"] = {"exact5": True}
    room = ui.open_room(snapshot)
    with draw.collect_text() as texts:
        room.draw(ui.app.surface)
    assert any("exactly five" in t.value for t in texts), [t.value for t in texts]
    ui.shoot("hex-exact5-room")
    snapshot = demo_room("hexgomoku", plies=2, room="other")
    snapshot["options"] = {"exact5": False}
    room = ui.open_room(snapshot)
    with draw.collect_text() as texts:
        room.draw(ui.app.surface)
    assert not any("five" in t.value.lower() for t in texts if "Clock" in t.value)


# ---- whole games, as a user plays them ---------------------------------------------------------


def test_chess_game(tmp_path: Path, server: EmbeddedServer) -> None:
    """En passant, castling by dragging and by clicking the king two squares, promotion
    through the chooser, check shown, a draw offer declined, Ctrl+D offers nothing, resign;
    the result panel and the replay."""
    alice, bob = two_players(tmp_path, server, "chess")
    apps = [alice, bob]
    for app, a, b in ((alice, "e2", "e4"), (bob, "a7", "a6"), (alice, "e4", "e5"),
                      (bob, "d7", "d5")):
        play(apps, app, a, b)
    click(alice, px(alice, "e5"))
    assert room_of(alice).picker.targets() == {"d6", "e6"}  # en passant offered
    play(apps, alice, "d6")
    for app, a, b in ((bob, "g8", "f6"), (alice, "g1", "f3"), (bob, "g7", "g6"),
                      (alice, "f1", "e2"), (bob, "f8", "g7")):
        play(apps, app, a, b)
    play(apps, alice, "e1", "g1", how="drag")
    play(apps, bob, "e8", "g8")
    shot(alice, "chess-castled")
    play(apps, alice, "d6", "c7")
    play(apps, bob, "a6", "a5")
    click(alice, px(alice, "c7"))
    click(alice, px(alice, "b8"))
    chooser = alice.top
    assert isinstance(chooser, ChoiceDialog)
    assert [(b.label, k) for b, k, _ in chooser.buttons] == [
        ("Queen", "q"), ("Rook", "r"), ("Bishop", "b"), ("Knight", "n")]
    shot(alice, "chess-promotion-chooser")
    key(alice, pygame.K_n, "n")
    pump(apps, lambda: len(room_of(bob).model.moves) == 15)
    assert room_of(alice).shown_moves() == [
        "e4", "a6", "e5", "d5", "exd6", "Nf6", "Nf3", "g6", "Be2", "Bg7", "O-O", "O-O",
        "dxc7", "a5", "cxb8=N"]

    key(alice, pygame.K_d, "d")
    pump(apps, lambda: room_of(bob).model.pending_offer() is not None)
    shot(bob, "chess-draw-offer")
    key(bob, pygame.K_n, "n")
    pump(apps, lambda: "declined" in room_of(alice).message)
    key(bob, pygame.K_d, "", CTRL)  # the lobby's Disconnect: no draw offer here
    assert [m["kind"] for m in sent(bob, "offer")] == []
    assert "Esc" in room_of(bob).message

    play(apps, bob, "d8", "d4")
    play(apps, alice, "h2", "h3")
    play(apps, bob, "d4", "f2")
    assert room_of(alice).check() == ("g1",) and room_of(alice).shown_moves()[-1] == "Qxf2+"
    shot(alice, "chess-check")
    key(alice, pygame.K_r, "r")
    key(alice, pygame.K_r, "r")
    pump(apps, lambda: all(room_of(a).model.status == "over" for a in apps))
    assert (room_of(bob).model.result, room_of(bob).model.reason) == ("second", "resign")
    assert isinstance(alice.top, ResultPanel) and isinstance(bob.top, ResultPanel)
    shot(alice, "chess-result")
    key(alice, pygame.K_p, "p")
    replay = alice.top
    assert isinstance(replay, ReplayScene) and replay.moves == room_of(alice).model.moves
    key(alice, pygame.K_LEFT)
    shot(alice, "chess-replay")
    for app in apps:
        app.disconnect()


def test_chess_promotion_to_each_piece(tmp_path: Path, server: EmbeddedServer) -> None:
    """Four pawns promote by click or drag, to a queen, rook, bishop and knight (each key of
    the chooser, and a click on its button)."""
    alice, bob = two_players(tmp_path, server, "chess",
                             position="8/PPPP4/8/7k/8/8/8/4K3 w - - 0 1")
    apps = [alice, bob]
    for i, (pawn, letter) in enumerate((("a7", "q"), ("b7", "r"), ("c7", "b"), ("d7", "n"))):
        target = pawn[0] + "8"
        if i % 2:
            drag(alice, px(alice, pawn), px(alice, target))
        else:
            click(alice, px(alice, pawn))
            click(alice, px(alice, target))
        chooser = alice.top
        assert isinstance(chooser, ChoiceDialog)
        if letter == "b":
            click(alice, next(b.rect.center for b, k, _ in chooser.buttons if k == "b"))
        else:
            key(alice, getattr(pygame, f"K_{letter}"), letter)
        pump(apps, lambda n=2 * i + 1: len(room_of(bob).model.moves) == n)  # type: ignore[misc]
        assert room_of(alice).model.moves[-1] == f"{pawn}{target}{letter}"
        if room_of(bob).model.status == "over":
            break
        black = room_of(bob).model
        assert black.engine is not None
        reply = sorted(black.engine.legal_moves(black.state))[0]  # the lone king steps
        play(apps, bob, reply[:2], reply[2:4])
    assert [m[-1] for m in room_of(alice).model.moves[::2]] == ["q", "r", "b", "n"]
    for app in apps:
        app.disconnect()


def test_draughts_game(tmp_path: Path, server: EmbeddedServer) -> None:
    """Two majority captures from 37: 37x28 circles back to 28, 37x26 goes through 28. The
    user clicks the landing squares of 37x26 one by one and gets 37x26 (a click on 28 played
    37x28); then a man reaches the far row and is crowned; the move list reads as PDN."""
    alice, bob = two_players(tmp_path, server, "draughts",
                             position="W:W9,37,48:B32,21,22,23,12,13,45")
    apps = [alice, bob]
    room = room_of(alice)
    click(alice, px(alice, "37"))
    assert room.picker.targets() == {"26", "28"}
    shot(alice, "draughts-capture-choice")
    click(alice, px(alice, "28"))
    assert room.pending_move is None and "28 again" in room.message
    shot(alice, "draughts-capture-pending")
    for point in ("19", "8", "17"):
        click(alice, px(alice, point))
    assert room.picker.partial == ["28", "19", "8", "17"]
    shot(alice, "draughts-capture-path")
    play(apps, alice, "26")
    assert room.model.moves == ["37x26"]
    play(apps, bob, "22", "27")
    play(apps, alice, "9", "3")
    assert room.model.engine is not None
    assert "K3" in room.model.engine.position(room.model.state)
    shot(alice, "draughts-king")
    shot(bob, "draughts-king-second")
    assert room_of(bob).shown_moves() == ["37x26", "22-27", "9-3"]
    for app in apps:
        app.disconnect()


def test_draughts_same_ends_need_the_path(tmp_path: Path, server: EmbeddedServer) -> None:
    """A king with two captures from 16 to 21 taking different men: a click on 21 says to
    click the landing squares; clicking them plays the full-path move."""
    alice, bob = two_players(tmp_path, server, "draughts", position="W:WK16:B23,17,13,44,38")
    apps = [alice, bob]
    room = room_of(alice)
    click(alice, px(alice, "16"))
    click(alice, px(alice, "21"))
    assert room.pending_move is None and "landing squares in order" in room.message
    shot(alice, "draughts-same-ends")
    play(apps, alice, "49", "40", "12", "21")
    assert room_of(bob).model.moves == ["16x49x40x12x21"]
    for app in apps:
        app.disconnect()


def test_number_chess_game(tmp_path: Path, server: EmbeddedServer) -> None:
    """A span asks for the expression over the spanned numbers: a wrong one is refused with
    the reason, a right one is played as FROM-TO=EXPRESSION. Then stop, and the scores."""
    alice, bob = two_players(tmp_path, server, "shuqi")
    apps = [alice, bob]
    click(alice, px(alice, "13,8"))
    click(alice, px(alice, "10,5"))
    dialog = alice.top
    assert isinstance(dialog, ExpressionDialog) and dialog.target == 9
    type_text(alice, "6*3")
    key(alice, pygame.K_RETURN)
    assert "18" in dialog.error and alice.top is dialog
    shot(alice, "shuqi-expression-error")
    for _ in range(3):
        key(alice, pygame.K_BACKSPACE)
    type_text(alice, "3+6")
    shot(alice, "shuqi-expression")
    key(alice, pygame.K_RETURN)
    pump(apps, lambda: len(room_of(bob).model.moves) == 1)
    assert room_of(bob).model.moves == ["13,8-10,5=3+6"]
    with draw.collect_text() as texts:
        room_of(alice).draw(alice.surface)
    assert not any("home limit" in t.value or "plies" in t.value for t in texts)  # defaults
    for app in apps:
        app.disconnect()

    left = "0,7 3,10 3,6 3,8 3,4 2,5 2,7 2,9 1,8 1,6"  # first's pieces on their target camp
    second = "14,7 11,4 11,8 11,6 11,10 12,9 12,7 7,8 8,9 9,10"  # 0-6 on theirs: 91
    position = f"first;60;{left};{second}"
    # new players (their own config files): Alice and Bob above would resume their game
    alice, bob = two_players(tmp_path / "again", server, "shuqi", position=position)
    apps = [alice, bob]
    key(alice, pygame.K_t, "t")
    assert "stop" in room_of(alice).message.lower() and not sent(alice, "stop")
    key(alice, pygame.K_t, "t")
    pump(apps, lambda: all(room_of(a).model.status == "over" for a in apps))
    model = room_of(bob).model
    assert (model.result, model.reason, model.scores) == ("first", "stop",
                                                          {"first": 285, "second": 91})
    assert isinstance(bob.top, ResultPanel)
    with draw.collect_text() as texts:
        bob.top.draw(bob.surface)
    assert any("285" in t.value and "91" in t.value for t in texts)
    shot(bob, "shuqi-stop-result")
    for app in apps:
        app.disconnect()


def test_hexgomoku_exact5_and_the_winning_five(tmp_path: Path, server: EmbeddedServer) -> None:
    """exact5 typed in the lobby's options: six in a row goes on (and the room says why);
    a plain game's five is highlighted."""
    alice, bob = two_players(tmp_path, server, "hexgomoku", options="exact5=true")
    apps = [alice, bob]
    assert room_of(alice).model.options == {"exact5": True}
    black = ["0,0", "1,0", "2,0", "3,0", "5,0", "4,0"]
    white = ["0,1", "1,1", "2,1", "3,1", "-3,3"]
    for i, point in enumerate(black):
        play(apps, alice, point)
        if i < len(white):
            play(apps, bob, white[i])
    assert room_of(alice).model.status == "playing"  # six is not five
    shot(alice, "hex-exact5-six")
    for app in apps:
        app.disconnect()

    # new players (their own config files): Alice and Bob above would resume their game
    alice, bob = two_players(tmp_path / "again", server, "hexgomoku")
    apps = [alice, bob]
    black = ["0,0", "1,-1", "2,-2", "3,-3", "4,-4"]
    white = ["0,1", "1,1", "2,1", "3,1"]
    for i, point in enumerate(black):
        play(apps, alice, point)
        if i < len(white):
            play(apps, bob, white[i])
    pump(apps, lambda: all(room_of(a).model.status == "over" for a in apps))
    assert set(room_of(bob).model.highlight) == set(black)
    shot(alice, "hex-win-result")
    key(alice, pygame.K_ESCAPE)
    shot(alice, "hex-win-line")
    for app in apps:
        app.disconnect()


def test_custom_variant_game(tmp_path: Path, server: EmbeddedServer) -> None:
    """River Stones: the second player sees its own side at the bottom; a soldier reaching
    the far row becomes a knight; capturing the king wins."""
    position = ("stones;first;0,0;4,.,8,2,8,.,4/.,5,.,6,6,6,./.,.,.,.,.,.,./9,.,.,9,.,.,9/"
                ".,.,.,.,.,.,./.,.,5,5,5,5,./3,.,7,1,7,.,3")
    alice, bob = two_players(tmp_path, server, "custom", variant="stones", position=position)
    apps = [alice, bob]
    a_view, b_view = room_of(alice).view, room_of(bob).view
    assert a_view is not None and b_view is not None
    assert not a_view.flipped and b_view.flipped
    assert a_view.pixel_of("7,4")[1] > a_view.pixel_of("1,4")[1]  # red's home at Alice's bottom
    assert b_view.pixel_of("1,4")[1] > b_view.pixel_of("7,4")[1]  # blue's at Bob's
    play(apps, alice, "2,2", "1,2")
    model = room_of(bob).model
    assert model.engine is not None
    assert "5*" in model.engine.position(model.state).split(";")[3]
    shot(bob, "custom-promoted-second")
    for app, a, b in ((bob, "2,6", "3,6"), (alice, "1,2", "1,3"), (bob, "2,5", "3,5"),
                      (alice, "1,3", "1,4")):
        play(apps, app, a, b)
    pump(apps, lambda: all(room_of(a).model.status == "over" for a in apps))
    assert (model.result, model.reason) == ("first", "captain")
    shot(bob, "custom-result-second")
    for app in apps:
        app.disconnect()


def test_expression_error_goes_when_the_expression_changes(ui: Any) -> None:
    """The reason a wrong expression was refused stays only until the user edits it (it
    stood under "3+6" and read as if 3+6 were wrong)."""
    dialog = ExpressionDialog(ui.app, "13,8-10,5", "3, 6", 9, "6+3", lambda e: "no", lambda e: None)
    ui.app.push(dialog)
    ui.type("6*3")
    ui.key(pygame.K_RETURN)
    assert dialog.error == "no"
    ui.key(pygame.K_BACKSPACE)
    assert dialog.error == ""
    ui.key(pygame.K_RETURN)
    ui.type("+")
    assert dialog.error == ""
