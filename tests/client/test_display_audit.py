"""What users see, checked as a demanding user would: text stays inside its widgets in small
windows, CJK text is as tall as the Latin text beside it, a long name never hides the words
that say what happened, and a lost connection is said plainly and never leaves dead buttons."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pygame
import pytest

from client.demo import demo_room
from client.net import NetEvent
from client.scenes.connect import ConnectScene
from client.scenes.lobby import LobbyScene
from client.scenes.replay import BOARD_RECT as REPLAY_BOARD
from client.scenes.replay import ReplayScene
from client.scenes.result import ResultPanel
from client.scenes.room import RoomScene
from client.scenes.room_panel import CHAT_RECT, MESSAGE_RECT, MOVES_RECT
from client.ui import draw, fonts, theme
from tests.client.helpers import StubConnection
from tests.client.window_tools import lines_inside, window_bounds, window_shot

LONG = "Maximilian-Alexander von Hohenzollern"[:32]
CJK = "张伟王芳李娜刘洋陈静杨帆黄磊赵敏周杰吴"
SMALL_WINDOWS = [(640, 480), (800, 600)]


def awkward_room(ui: Any) -> RoomScene:
    """A long chess game between a long and a CJK name, with long chat lines and an error."""
    snapshot = demo_room("chess", plies=60)
    snapshot["seats"]["first"]["name"], snapshot["seats"]["second"]["name"] = LONG, CJK
    snapshot["spectators"] = 12345
    room: RoomScene = ui.open_room(snapshot)
    for sender, role, text in [
        (LONG, "second", "x" * 300),
        (CJK, "spectator", "这是一个非常长的中文句子没有空格用来测试换行是否正常工作" * 3),
        ("Bob", "first", "https://example.com/" + "a" * 120 + " ok"),
    ]:
        ui.message({"type": "chat", "room": "K7QD", "from": sender, "role": role, "text": text})
    ui.message({"type": "error", "code": "illegal_move", "room": "K7QD",
                "message": "Illegal move: " + "that piece cannot go there because " * 6})
    return room


def test_cjk_text_is_as_tall_as_the_latin_text_beside_it() -> None:
    """A CJK name drawn at the same size as a Latin one is about as tall, not twice as tall
    (it used to fill a chat line and a half and crowd the lines around it)."""
    if not fonts.has_cjk():
        pytest.skip("no CJK font on this machine")
    for size in (14, 19, 28):
        latin = fonts.measure("Alice", size)[1]
        assert fonts.measure(CJK, size)[1] <= latin * 1.4, size


@pytest.mark.parametrize("size", SMALL_WINDOWS)
def test_room_text_stays_in_its_boxes_in_a_small_window(ui: Any, size: tuple[int, int]) -> None:
    """In a small window text is drawn larger than the layout (to stay readable): chat lines,
    the error message and the move list are still cut and wrapped to fit their boxes."""
    room = awkward_room(ui)
    assert room.message
    _, recorded = window_shot(ui.app, size, f"audit-room-awkward-{size[0]}x{size[1]}")
    with fonts.displayed_at(min(size[0] / 1280, size[1] / 800)):
        message = room.message_rect()  # as tall as the message needs in this window
    assert message.top == MESSAGE_RECT.top and message.height >= MESSAGE_RECT.height
    chat = CHAT_RECT.copy()
    chat.top = message.bottom + 6
    chat.height = CHAT_RECT.bottom - chat.top
    for box in (chat, message, MOVES_RECT):
        assert not lines_inside(recorded, box, size), box


@pytest.mark.parametrize("size", [*SMALL_WINDOWS, (1280, 800)])
def test_chat_lines_do_not_overlap(ui: Any, size: tuple[int, int]) -> None:
    """Consecutive chat lines (CJK included) keep apart at every window size."""
    awkward_room(ui)
    _, recorded = window_shot(ui.app, size, f"audit-chat-{size[0]}x{size[1]}")
    chat = CHAT_RECT.copy()
    chat.top = MESSAGE_RECT.bottom + 6
    rects = sorted((rect for item, rect in recorded
                    if chat.collidepoint(item.pos) and item.value.strip()),
                   key=lambda r: r.top)
    assert len(rects) >= 2
    for upper, lower in itertools.pairwise(rects):
        assert upper.bottom <= lower.top + 1, (upper, lower)


def test_a_long_chat_word_starts_beside_the_name(ui: Any) -> None:
    """A link longer than a line is cut where it starts, not moved under a lonely ``Bob:``."""
    lines = fonts.wrap("Bob: https://example.com/" + "a" * 120, 14, 300)
    assert lines[0].startswith("Bob: https://") and len(lines) > 1
    assert all(fonts.text_width(line, 14) <= 300 for line in lines)


@pytest.mark.parametrize("size", SMALL_WINDOWS)
def test_connect_caret_sits_at_the_end_of_the_text(ui: Any, size: tuple[int, int]) -> None:
    """In a small window the caret follows the text as drawn (it sat inside the address)."""
    ui.app.push(ConnectScene(ui.app, "192.168.1.20", "Alice"))
    image, recorded = window_shot(ui.app, size, f"audit-connect-caret-{size[0]}x{size[1]}")
    field = ui.app.top.address.rect
    text_rect = next(rect for item, rect in recorded if item.value == "192.168.1.20")
    shown = window_bounds(field, size)
    row = shown.centery
    caret = [x for x in range(shown.left + 4, shown.right - 4)
             if _bluish(image.get_at((x, row)))]
    assert caret, "no caret drawn"
    assert min(caret) >= text_rect.right - 2, (caret, text_rect)


def _bluish(color: Any) -> bool:
    """The accent-coloured caret (blended with the field when a small window scales it)."""
    r, _g, b = int(color[0]), int(color[1]), int(color[2])
    return b >= 90 and b - r >= 45


@pytest.mark.parametrize("size", [*SMALL_WINDOWS, (1280, 800)])
def test_connect_failure_stays_inside_the_card(ui: Any, size: tuple[int, int]) -> None:
    """A long reason for a failed connection stays inside the card, cut with an ellipsis."""
    scene = ConnectScene(ui.app, "192.168.1.20", "Alice")
    ui.app.push(scene)
    scene.on_net(NetEvent("failed", text="Cannot reach ws://a-very-long-host.example.lan:8765/: "
                          + "connection refused; is the server running? " * 12))
    _, recorded = window_shot(ui.app, size, f"audit-connect-failed-{size[0]}x{size[1]}")
    card = window_bounds(scene.card, size)
    lines = [rect for item, rect in recorded if item.color == theme.BAD]
    assert lines and all(card.contains(rect) for rect in lines), (card, lines)
    values = [item.value for item, _ in recorded if item.color == theme.BAD]
    assert values[-1].endswith("…")


def test_long_names_keep_the_words_that_matter(ui: Any) -> None:
    """A long name is cut, not "(you)" on our card, "won" in the result, the other side's
    score, or "offers a rematch"."""
    snapshot = demo_room("shuqi", plies=4)
    snapshot["seats"]["first"]["name"], snapshot["seats"]["second"]["name"] = LONG, CJK
    room = ui.open_room(snapshot)
    ui.message({"type": "over", "room": "K7QD", "game_id": "g-demo-1", "result": "second",
                "reason": "stop", "scores": {"first": 30, "second": 12}, "position": "?"})
    ui.message({"type": "offer", "room": "K7QD", "kind": "rematch", "by": "second"})
    assert isinstance(ui.app.top, ResultPanel)
    _, recorded = window_shot(ui.app, (1280, 800), "audit-result-long-names")
    fitted = [item.value for item, _ in recorded]  # as drawn: cut to their widths
    assert any(v.endswith(" won") for v in fitted), fitted
    assert any(v.startswith("Scores:") and v.endswith(" 12") for v in fitted), fitted
    assert any("offers a rematch" in v for v in fitted), fitted
    ui.key(pygame.K_ESCAPE)
    with draw.collect_text() as texts:
        room.draw(ui.app.surface)
    cards = [t.value for t in texts if t.size == 19]
    assert any(v.endswith("(you)") for v in cards), cards


def test_replay_error_is_beside_the_board(ui: Any) -> None:
    """A record that stops early says why beside the board, not over its pieces."""
    from client.demo import pick_moves

    start, moves = pick_moves("chess", None, None, 30)
    moves.insert(20, "e2e5")
    replay = ReplayScene(ui.app, "chess", None, start, moves, {"first": "A", "second": "B"})
    ui.app.push(replay)
    assert replay.error
    with draw.collect_text() as texts:
        replay.draw(ui.app.surface)
    errors = [t for t in texts if t.color == theme.BAD]
    assert errors and not any(REPLAY_BOARD.collidepoint(t.pos) for t in errors)
    assert replay.shown[0] == "Na3", "the playable moves are listed in SAN"


def test_lost_connection_is_said_plainly_and_disables_what_cannot_work(
        ui: Any, tmp_path: Path) -> None:
    """The server goes away for good mid-game: the room says it is offline (the reason stays
    on screen), no button that needs the server stays enabled, a board click explains, and
    leaving goes back to the connect scene with the reason, ready to connect again."""
    room = ui.open_room(demo_room("chess", plies=4))
    ui.app.dispatch_net(NetEvent("reconnecting", text="Connection lost; reconnecting…"))
    ui.app.step(0.0)
    assert "Reconnecting" in room.status_line()
    assert not [b.action for b in room.buttons() if b.enabled
                and b.action not in ("flip", "coords", "premove", "slide", "sound", "leave",
                                      "result")]
    ui.app.dispatch_net(NetEvent("failed", text="Cannot reach ws://192.168.1.20:8765/: refused"))
    ui.app.step(0.0)
    ui.shoot("audit-room-offline")
    assert ui.app.notice.startswith("Cannot reach"), "the reason is shown over the room"
    assert "Offline" in room.status_line()
    enabled = [b.action for b in room.buttons() if b.enabled]
    assert set(enabled) <= {"flip", "coords", "premove", "slide", "sound", "leave",
                            "result"}, enabled
    sent = len(ui.app.sent)
    assert room.view is not None
    ui.click(room.view.pixel_of("e2"))
    assert len(ui.app.sent) == sent and "connect" in room.message.lower()
    assert not ui.app.find(LobbyScene), "an offline lobby (every button dead) is not kept"
    ui.key(pygame.K_ESCAPE)
    ui.app.step(0.0)
    top = ui.app.top
    assert isinstance(top, ConnectScene) and "Cannot reach" in top.message
    assert not ui.app.notice, "the reason is shown once, by the connect scene"
    assert top.connect_button.enabled


def test_takeback_needs_a_move_of_ours_to_take_back(ui: Any) -> None:
    """Takeback undoes the asker's own last move: off before we have moved (the server could
    only refuse it), on once we have."""
    room = ui.open_room(demo_room("chess", plies=0, you="second", room="TB1"))
    ui.app.step(0.0)
    assert not next(b for b in room.buttons() if b.action == "undo").enabled
    ui.message({"type": "moved", "room": "TB1", "ply": 0, "move": "e2e4", "by": "first",
                "position": "?", "turn": "second", "clocks": {}, "lag_ms": 0})
    ui.app.step(0.0)
    assert room.model.moves == ["e2e4"]
    assert not next(b for b in room.buttons() if b.action == "undo").enabled
    ui.key(pygame.K_u)
    assert not ui.sent("offer")
    ui.message({"type": "moved", "room": "TB1", "ply": 1, "move": "e7e5", "by": "second",
                "position": "?", "turn": "first", "clocks": {}, "lag_ms": 0})
    ui.app.step(0.0)
    assert next(b for b in room.buttons() if b.action == "undo").enabled


def test_window_size_has_a_floor(tmp_path: Path) -> None:
    """Below 640x480 text kept readable no longer fits its widgets: the command line refuses
    such a size by name, and the window cannot be made smaller."""
    import argparse
    import warnings

    from client.app import App
    from client.config import Config
    from client.flags import size

    with pytest.raises(argparse.ArgumentTypeError, match="from 640x480 to 7680x4320"):
        size("480x360")
    assert size("640x480") == (640, 480)
    app = App(Config(path=tmp_path / "c.json"), window_size=(400, 300))
    try:
        assert app.window is not None and app.window.get_size() == (640, 480)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            from pygame._sdl2.video import Window

            assert tuple(Window.from_display_module().minimum_size) == (640, 480)
    finally:
        pygame.display.quit()


def test_local_start_error_is_shown_whole_with_the_way_out(ui: Any) -> None:
    """A local game that cannot start says why in full (wrapped, not cut to one line) and
    how to quit."""
    from client.scenes.local_start import LocalStartScene

    scene = LocalStartScene(ui.app, "chess", None, None)
    ui.app.push(scene)
    scene.on_message({"type": "error", "code": "bad_option",
                      "message": "Cannot start the local game: " + "the option is not known " * 8
                      + "END"})
    with draw.collect_text() as texts:
        scene.draw(ui.app.surface)
    shown = " ".join(t.value for t in texts)
    assert "END" in shown and "Esc" in shown


def test_lobby_room_buttons_follow_the_picked_room(ui: Any) -> None:
    """Watch and Join seat are off until a room is picked; a seek cannot be watched; a full
    game's seat cannot be taken (J says why), except our own seat, which Join seat resumes."""
    from client.demo import demo_rooms

    lobby = ui.open_lobby()
    ui.message(demo_rooms())
    ui.app.step(0.0)
    assert not lobby.watch_room.enabled and not lobby.join_room.enabled
    codes = [r["room"] for r in lobby.rooms]
    lobby.rooms_view.selected = codes.index("P9LE")  # Wei seeking
    ui.app.step(0.0)
    assert lobby.join_room.enabled and not lobby.watch_room.enabled
    lobby.rooms_view.selected = codes.index("R4TB")  # Eve vs Frank, playing
    ui.app.step(0.0)
    assert lobby.watch_room.enabled and not lobby.join_room.enabled
    sent = len(ui.sent("join"))
    ui.key(pygame.K_j)
    assert len(ui.sent("join")) == sent and "Watch" in lobby.status
    lobby.rooms_view.selected = codes.index("K7QD")  # Alice (us) vs Bob
    ui.app.step(0.0)
    assert lobby.join_room.enabled


@pytest.mark.parametrize("size", [(640, 480), (1280, 800)])
def test_move_list_entries_keep_apart(ui: Any, size: tuple[int, int]) -> None:
    """In a long number chess game (move numbers past 100, long spans) no move-list entry
    runs into the next one on its line, in a small window too."""
    ui.open_room(demo_room("shuqi", plies=260))
    _, recorded = window_shot(ui.app, size, f"audit-moves-long-{size[0]}x{size[1]}")
    entries = [rect for item, rect in recorded if MOVES_RECT.collidepoint(item.pos)]
    assert len(entries) > 10  # six lines of two moves (one column: number chess's are long)
    for one in entries:
        for other in entries:
            if one is not other and abs(one.centery - other.centery) < 4 and one.left < other.left:
                assert one.right + 2 <= other.left, (one, other)


def test_hot_seat_result_names_the_winner(ui: Any) -> None:
    """In hot-seat play both seats are the user's: the end names who won ("Player 1 won"),
    not "You win", and is not coloured as a loss or a win for one side."""
    room = ui.open_room(demo_room("chess", plies=4, room="HS1"))
    room.model.seats["first"]["name"], room.model.seats["second"]["name"] = (
        "Player 1", "Player 2")
    ui.app.seat_connections = {"first": StubConnection(), "second": StubConnection()}
    ui.message({"type": "over", "room": "HS1", "game_id": "g-demo-1", "result": "first",
                "reason": "resign", "position": "?"})
    panel = ui.app.top
    assert isinstance(panel, ResultPanel)
    with draw.collect_text() as texts:
        panel.draw(ui.app.surface)
    headline = next(t for t in texts if t.size == 36)
    assert headline.value == "Player 1 won" and headline.color == theme.TEXT
    assert room.status_line() == "Player 2 resigned: Player 1 won"


def test_lobby_says_why_nothing_happens_while_reconnecting(ui: Any) -> None:
    """While the connection is down, Create room (or a quick game) sends nothing that would be
    lost: the lobby says it is not connected instead of silently doing nothing."""
    lobby = ui.open_lobby()
    ui.app.dispatch_net(NetEvent("reconnecting", text="Connection lost; reconnecting…"))
    sent = len(ui.app.sent)
    ui.key(pygame.K_n, mod=pygame.KMOD_CTRL)
    ui.key(pygame.K_F1)
    assert len(ui.app.sent) == sent
    assert "Not connected" in lobby.status


@pytest.mark.parametrize("size", [*SMALL_WINDOWS, (1280, 800)])
def test_an_offers_accept_and_decline_keep_their_keys_inside(
    ui: Any, size: tuple[int, int]
) -> None:
    """The offer banner's Accept (Y) and Decline (N) were 34 pixels tall: in a small window
    (text relatively larger) their keys ran onto the buttons' bottom edges. Each button's label
    and key now stay inside it at every window size."""
    from client.demo import demo_room

    ui.open_lobby()
    ui.message(demo_room("chess", plies=4))
    room = ui.app.top
    ui.message({"type": "offer", "room": "K7QD", "kind": "draw", "by": "second"})
    ui.app.step(0.0)
    _, recorded = window_shot(ui.app, size, f"audit-offer-{size[0]}x{size[1]}")
    for button in room.offer_buttons:
        inside = [item.value for item, _ in recorded if button.rect.collidepoint(item.pos)]
        assert sorted(inside) == sorted([button.label, button.hint]), inside
        assert not lines_inside(recorded, button.rect, size), (button.label, size)


@pytest.mark.parametrize("size", [(1920, 1080), (800, 600), (1280, 900)])
def test_a_dialog_dims_the_letterbox_bars_too(ui: Any, size: tuple[int, int]) -> None:
    """A window of another shape than the layout shows bars beside it (a big screen's sides, a
    4:3 window's top and bottom). The result panel dims everything under it: the bars too, so
    they do not show as lighter strips beside the dimmed room; without a dialog they are the
    room's own background. (A scaled-down window's smoothing may shift a colour by a step or
    two.)"""
    ui.open_room(demo_room("chess", plies=4, room="BIG"))
    image, _ = window_shot(ui.app, size, f"bars-room-{size[0]}x{size[1]}")
    (w, h), (lw, lh) = size, theme.LOGICAL_SIZE
    scale = min(w / lw, h / lh)
    ox, oy = int((w - lw * scale) / 2), int((h - lh * scale) / 2)
    assert (ox, oy) != (0, 0), "the window has no bars"
    assert image.get_at((0, 0))[:3] == theme.BG
    ui.message({"type": "over", "room": "BIG", "game_id": "g-demo-1", "result": "first",
                "reason": "resign", "position": "?"})
    assert isinstance(ui.app.top, ResultPanel)
    image, _ = window_shot(ui.app, size, f"bars-result-{size[0]}x{size[1]}")
    inside = image.get_at((ox + round(4 * scale), oy + round(4 * scale)))  # the room's margin
    bar = image.get_at((0, 0))
    assert inside[:3] != theme.BG
    assert all(abs(b - i) <= 3 for b, i in zip(bar[:3], inside[:3], strict=True)), (bar, inside)


def test_an_opponent_away_on_their_turn_is_not_said_to_be_thinking(ui: Any) -> None:
    """The opponent's laptop sleeps on their turn: the status line says they are away (and, in
    a timed game, that their clock runs) rather than that they are thinking; back, they are
    thinking again. An untimed game says only that they are away."""
    snapshot = demo_room("chess", plies=3, you="first", room="ZZ1")
    room = ui.open_room(snapshot)
    assert room.status_line() == "Bob is thinking…"
    presence = {"type": "presence", "room": "ZZ1", "seat": "second", "spectators": 0}
    ui.message({**presence, "connected": False})
    assert room.status_line() == "Bob is away · their clock runs"
    ui.message({**presence, "connected": True})
    assert room.status_line() == "Bob is thinking…"
    untimed = ui.open_room({**demo_room("chess", plies=3, you="first", room="ZZ2"), "clock": {}})
    ui.message({**presence, "room": "ZZ2", "connected": False})
    assert untimed.status_line() == "Bob is away"


def test_a_spectator_is_told_the_player_to_move_is_away(ui: Any) -> None:
    """Watching, while the player to move is dropped: the status line said "Bob to move · you
    are watching" for as long as Bob was gone; it now says he is away, and "to move" again once
    he is back."""
    snapshot = demo_room("chess", plies=3, you=None, room="ZZ3")
    room = ui.open_room(snapshot)
    assert room.status_line() == "Bob to move · you are watching"
    presence = {"type": "presence", "room": "ZZ3", "seat": "second", "spectators": 1}
    ui.message({**presence, "connected": False})
    assert room.status_line() == "Bob is away · you are watching"
    ui.message({**presence, "connected": True})
    assert room.status_line() == "Bob to move · you are watching"
