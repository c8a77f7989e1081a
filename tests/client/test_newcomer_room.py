"""What a first-time user met in a room against a real server:

- the room they opened said "Waiting for an opponent: room code m…" in an 800x600 window (and
  "(Ctrl+C copi…" at 1280x800): the code their friend needs was cut; the line now takes a
  shorter form that keeps the code whole;
- in a Fischer room (3+2) their clock ran down during their first move (2:58, 2:57…) and jumped
  back to 3:00 once they moved: the server starts each side's clock only after that side's
  first move (DESIGN.md, Clocks), so the client no longer counts it down before then; what
  runs instead, the first move's abort deadline, was nowhere to be seen: the status line says
  how long is left for it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from client.app import App
from client.local import EmbeddedServer
from client.room_model import format_clock
from client.scenes.lobby import LobbyScene
from client.scenes.room import RoomScene
from tests.client.conftest import FakeClock
from tests.client.helpers import open_app, pump, room_of
from tests.client.window_tools import render_at

FISCHER = {"initial": 180, "increment": 2}


def _room_created_by(app: App, clock: dict[str, int] | None = None) -> RoomScene:
    """``app`` opens a chess room as the first player and waits for it."""
    pump(app, lambda: isinstance(app.top, LobbyScene))
    create: dict[str, object] = {"type": "create", "game": "chess", "color": "first"}
    app.send({**create, "clock": clock} if clock else create)
    pump(app, lambda: bool(app.find(RoomScene)))
    return room_of(app)


@pytest.mark.parametrize("size", [(1280, 800), (800, 600), (640, 480)])
def test_a_waiting_room_shows_its_whole_code(
    tmp_path: Path, embedded: EmbeddedServer, size: tuple[int, int]
) -> None:
    """The creator's status line names the room code whole at every window size, and still
    says what to do with it where there is room."""
    alice = open_app(tmp_path, "Alice", embedded.url)
    try:
        room = _room_created_by(alice)
        code = room.model.room
        shown = [value for _, value, _ in render_at(alice, size, f"waiting-code-{size[0]}")]
        status = [value for value in shown if code in value and "Room" not in value]
        assert status, f"no status line names the code {code}: {shown}"
        assert not any("…" in value for value in status), status
        if size == (1280, 800):
            assert status[0].startswith("Waiting for an opponent: ") and "Ctrl+C" in status[0]
    finally:
        alice.disconnect()


def test_the_main_clock_waits_for_each_sides_first_move(
    tmp_path: Path, embedded: EmbeddedServer
) -> None:
    """In a 3+2 room the mover's main time stays 3:00 through each side's first move (as the
    server counts it) and runs from the side's second move on."""
    clock = FakeClock()
    alice = open_app(tmp_path, "Alice", embedded.url, clock=clock)
    bob = open_app(tmp_path, "Bob", embedded.url)
    apps = [alice, bob]
    try:
        room = _room_created_by(alice, FISCHER)
        pump(bob, lambda: isinstance(bob.top, LobbyScene))
        bob.send({"type": "join", "room": room.model.room})
        pump(apps, lambda: room.model.status == "playing" and bool(bob.find(RoomScene)))
        clock.now += 5
        assert room.model.remaining_ms("first", clock.now) == 180_000
        assert room.clock_face()[0] == format_clock(180_000) == "3:00"
        # what does run is the first move's abort deadline (30 s on this server): said
        assert room.status_forms()[0] == "Your move · 25 s left for your first move"
        shown = [value for _, value, _ in render_at(alice, (800, 600), "first-move-800")]
        assert any(value.startswith("Your move · 25 s") for value in shown), shown

        for ply, move in enumerate(["e2e4", "e7e5"]):
            mover = alice if ply % 2 == 0 else bob
            mover.send({"type": "move", "room": room.model.room, "ply": ply, "move": move})
            pump(apps, lambda n=ply + 1: len(room.model.moves) == n)  # type: ignore[misc]
        clock.now += 5
        left = room.model.remaining_ms("first", clock.now)
        assert left is not None and 174_000 <= left <= 175_000  # its second move: running
        assert room.status_forms() == ["Your move"]
    finally:
        for app in apps:
            app.disconnect()


def test_a_name_is_written_as_its_player_typed_it() -> None:
    """Bob, whose friend typed her name "alice", read "Alice checkmated you: alice won": a
    sentence that begins with a player's name keeps the name as typed; our own words still
    begin with a capital."""
    from client.demo import demo_room
    from client.room_model import RoomModel
    from client.scenes.room import result_lines, result_text

    snapshot = demo_room("chess", plies=4, you="second")
    snapshot["seats"]["first"]["name"] = "alice"
    snapshot["seats"]["second"]["name"] = "bob"
    model = RoomModel(room=snapshot["room"])
    model.apply(snapshot, 0.0)
    model.apply({"type": "over", "room": model.room, "game_id": "g1", "result": "first",
                 "reason": "checkmate", "position": "?"}, 1.0)  # fmt: skip
    assert result_text(model) == "alice checkmated you: alice won"
    assert result_lines(model) == ("alice won", "alice checkmated you")
    model.you = "first"
    assert result_text(model) == "You checkmated bob: you win"
    assert result_lines(model) == ("You win", "You checkmated bob")


@pytest.mark.parametrize("size", [(1280, 800), (800, 600), (640, 480)])
def test_the_room_lists_titles_and_clocks_are_never_cut(ui: Any, size: tuple[int, int]) -> None:
    """At 800x600 the lobby's room list read "Vie…" over its last column, "20 s/m…" for a
    chess seek's clock and "Number c…": each takes a shorter whole form where its column is
    narrow ("View.", "20 s", "Num. chess"; at 640x480 only the title and the clocks are sure to
    be whole, the names being cut there as before)."""
    from client.demo import demo_rooms
    from client.scenes.lobby import LIST_RECT

    ui.open_lobby()
    ui.message(demo_rooms())
    scale = min(size[0] / 1280, size[1] / 800)
    top = int((size[1] - 800 * scale) / 2) + round(LIST_RECT.top * scale)
    listed = [
        value
        for item, value, rect in render_at(ui.app, size, f"room-list-{size[0]}")
        if item.pos[0] >= LIST_RECT.left and rect.top >= top - 2 and item.size <= 16
    ]
    assert "Viewers" in listed or "View." in listed, listed
    assert {"20 s/move", "20 s"} & set(listed), listed
    cut = [value for value in listed if value.endswith("…")]
    if size == (640, 480):  # text twice its share: names and games may be cut there
        cut = [value for value in cut if value.startswith(("Vi", "2", "3"))]
    assert not cut, cut


@pytest.mark.parametrize("size", [(1280, 800), (800, 600), (640, 480)])
def test_the_lobby_line_and_a_notice_share_the_bottom(ui: Any, size: tuple[int, int]) -> None:
    """With the app's notice up (a new identity, a lost connection), the lobby's own line, the
    answer to what the user just did ("Pick a player in the list first ..."), ran under the
    notice's panel, cut by it: now the notice keeps to the right of the bottom strip and the
    line to its left, in two lines where one does not fit, neither cut."""
    from client.app import RENEWED, Severity
    from tests.client.window_tools import window_bounds

    said = "Pick a player in the list first (Up/Down, or a click)."
    lobby = ui.open_lobby()
    lobby.say(said, (200, 80, 80))
    ui.app.tell(RENEWED, Severity.INFO)
    shown = render_at(ui.app, size, f"lobby-notice-{size[0]}")
    panel = window_bounds(lobby.notice_rect(), size)
    status = [(value, rect) for item, value, rect in shown
              if item.size == 16 and item.pos[1] >= 740 and item.pos[0] < 640]  # fmt: skip
    assert " ".join(value for value, _ in status) == said, status
    for value, rect in status:
        assert not rect.colliderect(panel), (value, rect, panel)
    if size != (1280, 800):  # at the logical size the notice is drawn, not recorded
        notice = [rect for _, value, rect in shown if value == RENEWED]
        assert notice and panel.contains(notice[0]), (notice, panel)

    long = (
        "Not connected to the server: wait until it is back (see the top right), or "
        "Disconnect (Ctrl+D)."
    )  # what the lobby says while the notice says it reconnects
    lobby.say(long, (200, 80, 80))
    shown = render_at(ui.app, size, f"lobby-notice-long-{size[0]}")
    status = [(value, rect) for item, value, rect in shown
              if item.size == 16 and item.pos[1] >= 740 and item.pos[0] < 640]  # fmt: skip
    assert " ".join(value for value, _ in status) == long, status  # in one or two lines
    assert not any(rect.colliderect(panel) for _, rect in status), status


@pytest.mark.parametrize("severity", ["info", "warning"])
def test_news_in_a_room_leaves_the_board_clear(ui: Any, severity: str) -> None:
    """Two people on one computer: the second window's "Another Boardhall window uses your
    saved identity ..." (news, for 20 s) lay over the bottom of the board, on that player's
    own back rank, as they started the game. News and a lost connection alike now go over the
    side panel's header, clear of the board and of the move list."""
    from client.app import SECOND_WINDOW, Severity
    from client.demo import demo_room
    from client.scenes.room import BOARD_RECT
    from client.scenes.room_panel import MOVES_RECT

    room = ui.open_room(demo_room("chess", plies=0))
    ui.app.tell(SECOND_WINDOW, Severity(severity))
    box, _ = ui.app.notice_box()
    assert not box.colliderect(BOARD_RECT) and not box.colliderect(MOVES_RECT), box
    assert room.notice_rect().colliderect(box)
    render_at(ui.app, (800, 600), f"room-notice-{severity}")
