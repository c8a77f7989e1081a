"""Number chess as a newcomer to the server plays it, through the real client against a real
server: the end of a game says why in words (the move limit with its number of plies), what
was found wrong is said in the player's terms, at 800x600 and 1280x800.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest

from client.app import App
from client.demo import demo_room
from client.local import EmbeddedServer
from client.scenes.dialogs import ExpressionDialog
from client.scenes.replay import ReplayScene
from client.scenes.result import ResultPanel
from client.screenshot import save
from client.ui import draw
from tests.client.conftest import SHOTS, FakeClock
from tests.client.helpers import click, key, open_app, pump, px, room_of
from tests.client.window_tools import drawn_whole

SIZES = ((800, 600), (1280, 800))


@pytest.fixture(scope="module")
def server() -> Iterator[EmbeddedServer]:
    """A real server on a loopback port, shared by this module's games."""
    embedded = EmbeddedServer().start()
    yield embedded
    embedded.stop()


def table(tmp_path: Path, server: EmbeddedServer, **create: Any) -> tuple[App, App]:
    """Alice opens a number chess room as the first player (``create``: more fields of the
    ``create`` message: a position, options), Bob joins it; both see the game on."""
    alice, bob = (
        open_app(tmp_path, name, server.url, clock=FakeClock()) for name in ("Alice", "Bob")
    )
    apps = [alice, bob]
    pump(apps, lambda: all(a.welcome for a in apps))
    alice.send({"type": "create", "game": "shuqi", "color": "first", **create})
    pump(apps, lambda: room_of_or_none(alice) is not None)
    bob.send({"type": "join", "room": room_of(alice).model.room})
    pump(
        apps, lambda: room_of_or_none(bob) is not None and room_of(alice).model.status == "playing"
    )
    return alice, bob


def room_of_or_none(app: App) -> Any:
    """The app's room scene, or ``None`` before it opens."""
    from client.scenes.room import RoomScene

    rooms = app.find(RoomScene)
    return rooms[-1] if rooms else None


def play(apps: list[App], app: App, *points: str) -> None:
    """``app``'s player clicks ``points``; waits until both saw the move."""
    n = len(room_of(app).model.moves)
    for point in points:
        click(app, px(app, point))
    pump(apps, lambda: all(len(room_of(a).model.moves) > n for a in apps))


def panel_texts(app: App) -> list[str]:
    """The lines the app's result panel shows (it must be on top)."""
    panel = app.top
    assert isinstance(panel, ResultPanel), panel
    with draw.collect_text() as texts:
        panel.draw(app.surface)
    return [t.value for t in texts]


def shots(app: App, name: str, later: float = 60.0) -> None:
    """What the app shows, at 800x600 and 1280x800, under /tmp/boardhall-shots, ``later``
    seconds on on the app's clock (by default a minute: a move's slide has landed and the result
    panel shows; 0 keeps a message said just now)."""
    clock = app.clock
    assert isinstance(clock, FakeClock)
    clock.now += later
    for size in SIZES:
        save(app, SHOTS / f"{name}-{size[0]}x{size[1]}.png", size)


def test_a_draw_by_the_move_limit_names_the_limit(tmp_path: Path, server: EmbeddedServer) -> None:
    """A room with max_plies 2: after two moves the game is drawn, and the result says the
    limit of 2 plies was reached (it read "The move limit", which limit unsaid)."""
    alice, bob = table(tmp_path, server, options={"max_plies": 2})
    apps = [alice, bob]
    play(apps, alice, "11,6", "10,5")
    play(apps, bob, "3,6", "4,5")
    pump(apps, lambda: all(isinstance(a.top, ResultPanel) for a in apps))
    for app in apps:
        lines = panel_texts(app)
        assert "Draw" in lines, lines
        assert any("Move limit of 2 plies reached" in line for line in lines), lines
        assert "2 plies" in room_of(app).status_line(), room_of(app).status_line()
    shots(alice, "shuqi-newcomer-move-limit")
    key(alice, pygame.K_p, "p")
    replay = alice.top
    assert isinstance(replay, ReplayScene)
    assert replay.result_line() == "Draw: move limit of 2 plies reached"
    shots(alice, "shuqi-newcomer-move-limit-replay")
    for app in apps:
        app.disconnect()


FIRST_START = "14,7 11,4 11,8 11,6 11,10 12,9 12,7 12,5 13,6 13,8"
"""First's pieces 0..9 on their home camp (the right one)."""
SECOND_TWO_HOME = "0,7 5,10 5,6 3,8 5,4 4,5 4,7 4,9 5,8 6,7"
"""Second's pieces, 0 (on 0,7) and 3 (on 3,8) still in their home camp, the others out."""


def test_a_report_says_which_pieces_stayed_home(tmp_path: Path, server: EmbeddedServer) -> None:
    """Bob (second) has made 30 moves with his 0 and 3 still at home: Alice reports and wins.
    Both panels say what the rule break was (they read "Alice reported your rule break" and
    no more) and the board marks the two pieces (it marked nothing)."""
    position = f"first;60;{FIRST_START};{SECOND_TWO_HOME}"
    alice, bob = table(tmp_path, server, position=position)
    apps = [alice, bob]
    key(alice, pygame.K_p, "p")
    key(alice, pygame.K_p, "p")  # confirmed
    pump(apps, lambda: all(isinstance(a.top, ResultPanel) for a in apps))
    assert room_of(bob).model.reason == "report"
    why = "pieces 0 and 3 were still at home after 30 moves (home limit 30)"
    assert f"Your {why}." in " ".join(panel_texts(bob)), panel_texts(bob)
    assert f"Bob's {why}." in " ".join(panel_texts(alice)), panel_texts(alice)
    shots(bob, "shuqi-newcomer-report")
    for app in apps:
        assert set(room_of(app).model.highlight) == {"0,7", "3,8"}
        key(app, pygame.K_ESCAPE)  # the panel closes: the board, marked
        assert set(room_of(app).marks().highlight) == {"0,7", "3,8"}
    shots(bob, "shuqi-newcomer-report-board")
    for app in apps:
        app.disconnect()


SECOND_AT_HOME_FIRST_IN = "0,7 3,10 3,6 3,8 3,4 2,5 2,7 2,9 1,8 1,6"
"""The left camp's points in number order: first's pieces all on their own numbers there."""


def test_a_stop_says_who_brought_all_ten_pieces_in(tmp_path: Path, server: EmbeddedServer) -> None:
    """Alice (first) has all ten pieces in Bob's camp and calls stop: the panels say so, and
    that the higher score wins (they read "Alice called stop", what allowed it unsaid)."""
    second = "14,7 11,4 11,8 11,6 11,10 12,9 12,7 7,8 8,9 9,10"  # 0-6 in their target: 91
    alice, bob = table(tmp_path, server, position=f"first;60;{SECOND_AT_HOME_FIRST_IN};{second}")
    apps = [alice, bob]
    key(alice, pygame.K_t, "t")
    key(alice, pygame.K_t, "t")  # confirmed
    pump(apps, lambda: all(isinstance(a.top, ResultPanel) for a in apps))
    assert room_of(bob).model.scores == {"first": 285, "second": 91}
    bob_lines, alice_lines = " ".join(panel_texts(bob)), " ".join(panel_texts(alice))
    assert "Alice had all ten pieces in your camp: the higher score wins." in bob_lines, bob_lines
    assert "You had all ten pieces in Bob's camp: the higher score wins." in alice_lines
    shots(bob, "shuqi-newcomer-stop")
    for app in apps:
        app.disconnect()


def sent(app: App, kind: str) -> list[dict[str, Any]]:
    """Messages of ``kind`` the app has sent."""
    return [m for m in app.sent if m.get("type") == kind]


def test_a_stop_or_report_that_would_be_refused_says_why_in_the_players_terms(
    tmp_path: Path, server: EmbeddedServer
) -> None:
    """At the start, Stop and Report asked to confirm, then the server refused them in the
    rules' words: 'first may call stop only on its own turn', 'stop needs all ten of first's
    pieces in its target camp L; not there: 0 on 14,7, ...', 'report refused: second has made
    0 moves (limit 30); its pieces in its home camp L: ...'. Now the room says at once why, in
    the player's terms, and asks nothing and sends nothing."""
    alice, bob = table(tmp_path, server)
    apps = [alice, bob]
    room = room_of(alice)
    key(alice, pygame.K_t, "t")
    assert room.message == (
        "You can call stop once all ten of your pieces stand in Bob's camp; not there yet: "
        "0, 1, 2, 3, 4, 5, 6, 7, 8, 9."
    )
    shots(alice, "shuqi-newcomer-stop-refused", later=0)
    key(alice, pygame.K_t, "t")  # not a confirmation: the same answer
    assert "Bob's camp" in room.message
    key(bob, pygame.K_t, "t")
    assert room_of(bob).message == "You can call stop only on your turn."
    key(alice, pygame.K_p, "p")
    assert room.message == (
        "Nothing to report yet: pieces may stay at home until their side has made 30 moves; "
        "Bob has made 0."
    )
    key(alice, pygame.K_p, "p")
    assert not sent(alice, "stop") and not sent(alice, "report") and not sent(bob, "stop")
    play(apps, alice, "11,6", "10,5")  # the game goes on
    assert room_of(bob).model.moves == ["11,6-10,5"]
    for app in apps:
        app.disconnect()


def test_a_report_when_no_piece_stayed_home_says_so(tmp_path: Path, server: EmbeddedServer) -> None:
    """Bob has made 30 moves and none of his pieces is at home: Report says there is nothing
    to report and why."""
    second = "5,10 5,6 5,4 4,5 4,7 4,9 5,8 6,7 6,5 6,9"
    alice, bob = table(tmp_path, server, position=f"first;60;{FIRST_START};{second}")
    key(alice, pygame.K_p, "p")
    assert room_of(alice).message == (
        "Nothing to report: none of Bob's pieces is at home (Bob has made 30 moves, home limit 30)."
    )
    assert not sent(alice, "report")
    for app in (alice, bob):
        app.disconnect()


@pytest.mark.parametrize("size", SIZES)
def test_a_two_line_message_is_read_whole_at_800x600(
    ui: Any, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The room's message box held one line at 800x600 (its text is drawn at the window's
    scale, larger than the logical box's share): a refusal such as Stop's, two lines long,
    showed 'You can call stop once all ten of your pieces stand in Bob's …'. The box now grows
    to the lines the message needs there."""
    room = ui.open_room(demo_room("shuqi", plies=0))
    ui.key(pygame.K_t, "t")
    assert room.message.startswith("You can call stop once")
    shown = drawn_whole(ui.app, pygame.Rect(800, 422, 464, 146), size, monkeypatch)
    assert room.message in " ".join(shown), list(shown)
    save(ui.app, SHOTS / f"shuqi-newcomer-message-{size[0]}x{size[1]}.png", size)


def test_a_move_typed_out_of_turn_says_whose_turn_it_is(
    tmp_path: Path, server: EmbeddedServer
) -> None:
    """Bob types a move while Alice is to move: the server answered "it is second's turn, not
    yours"-style words ('first'/'second' are no player's words); now the room says whose move
    it is, and sends nothing. His move typed on his turn is played."""
    alice, bob = table(tmp_path, server)
    apps = [alice, bob]
    room = room_of(bob)
    click(bob, room.chat_field.rect.center)
    for char in "/3,6-4,5":
        key(bob, 0, char)
    key(bob, pygame.K_RETURN)
    assert room.message == "Wait for your turn: it is Alice's move."
    assert not sent(bob, "move")
    play(apps, alice, "11,6", "10,5")
    click(bob, room.chat_field.rect.center)
    for char in "/3,6-4,5":
        key(bob, 0, char)
    key(bob, pygame.K_RETURN)
    pump(apps, lambda: len(room_of(alice).model.moves) == 2)
    assert room_of(alice).model.moves[-1] == "3,6-4,5"
    for app in apps:
        app.disconnect()


FIVE_ON_THE_NINES_POINT = "14,7 11,4 11,8 11,6 11,10 13,8 12,7 12,5 13,6 12,9"
"""First's start with its 5 and 9 swapped: the 5 on 13,8 lines up with 6 (12,7) and 3 (11,6)."""


def test_a_click_on_a_point_the_piece_cannot_reach_says_why(
    tmp_path: Path, server: EmbeddedServer
) -> None:
    """With a piece picked, a click on a point it cannot reach dropped the pick without a word
    (a newcomer could not tell why the 5 does not span 6 and 3 to 10,5, or why a point further
    along is out). Now the room says why and keeps the piece picked; a legal point then goes
    on as usual (a span asks for its expression)."""
    start = f"first;0;{FIVE_ON_THE_NINES_POINT};0,7 3,10 3,6 3,8 3,4 2,5 2,7 2,9 1,8 1,6"
    alice, bob = table(tmp_path, server, position=start)
    apps = [alice, bob]
    room = room_of(alice)
    click(alice, px(alice, "13,8"))
    assert room.picker.selected == "13,8" and "10,5" not in room.picker.targets()
    click(alice, px(alice, "10,5"))
    assert room.message == (
        "The 5 cannot span 6 and 3 to 10,5: no arithmetic of 6 and 3, each used once, makes 5."
    )
    assert room.picker.selected == "13,8"
    shots(alice, "shuqi-newcomer-no-span", later=0)
    click(alice, px(alice, "7,2"))
    assert room.message == "A jump lands right beyond the last piece it jumps (11,6)."
    click(alice, px(alice, "3,6"))
    assert room.message == "3,6 is taken: pieces move only to empty points."
    assert room.picker.selected == "13,8"
    click(alice, px(alice, "10,11"))  # still picked: its span over 9 and 4 is asked
    assert isinstance(alice.top, ExpressionDialog) and alice.top.target == 5
    for app in apps:
        app.disconnect()


@pytest.mark.parametrize("size", SIZES)
def test_the_rooms_limits_are_read_whole_beside_the_clock(
    ui: Any, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A room with its own move limit and home limit says them beside the clock; at 800x600
    the line was cut ('Clock: 30 s/move · draw after 2 pl…') though the space beside the
    short 国际数棋 under the title was free."""
    snapshot = demo_room("shuqi", plies=2)
    snapshot["options"] = {"max_plies": 100, "home_limit": 20}
    ui.open_room(snapshot)
    shown = drawn_whole(ui.app, pygame.Rect(800, 40, 480, 30), size, monkeypatch)
    line = next(text for text in shown if text.startswith("Clock:"))
    assert "100" in line and "20" in line and shown[line], shown
    save(ui.app, SHOTS / f"shuqi-newcomer-limits-{size[0]}x{size[1]}.png", size)


def test_the_replay_of_a_reported_game_shows_the_rule_break(
    ui: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The replay of a game won by a report read 'Alice reported Bob's rule break: Alice won'
    and showed nothing of it. At the last move it now marks the pieces left at home and says
    why under the moves, as the result panel does (a spectator's words)."""
    start = f"first;60;{FIRST_START};{SECOND_TWO_HOME}"
    moves = ["11,6-10,5", "4,5-3,4"]  # Bob's 5 goes back home: 0, 3 and 5 are there
    replay = ReplayScene(
        ui.app,
        "shuqi",
        None,
        start,
        moves,
        {"first": "Alice", "second": "Bob"},
        {},
        None,
        "first",
        "report",
    )
    ui.app.push(replay)
    assert not replay.error
    assert set(replay.highlight()) == {"0,7", "3,8", "3,4"}
    why = "Bob's pieces 0, 3 and 5 were still at home after 31 moves (home limit 30)."
    for size in SIZES:
        shown = drawn_whole(ui.app, pygame.Rect(800, 140, 464, 520), size, monkeypatch)
        assert why in " ".join(shown), list(shown)
        save(ui.app, SHOTS / f"shuqi-newcomer-replay-report-{size[0]}x{size[1]}.png", size)
    ui.key(pygame.K_HOME)
    assert replay.highlight() == ()
    assert why not in " ".join(
        drawn_whole(ui.app, pygame.Rect(800, 140, 464, 520), SIZES[0], monkeypatch)
    )


def test_a_picked_piece_says_how_it_can_move(tmp_path: Path, server: EmbeddedServer) -> None:
    """Picking a piece marked its points with small dots and said nothing: which is a step,
    which a span, and over which numbers, a newcomer could not tell. Now the room says it
    (the span's arithmetic is left to the player: the expression is asked on the span)."""
    alice, bob = table(tmp_path, server)
    apps = [alice, bob]
    room = room_of(alice)
    click(alice, px(alice, "13,8"))
    assert room.message == "The 9 can span 6 and 3 to 10,5 or 5 and 4 to 10,11."
    shots(alice, "shuqi-newcomer-picked-span", later=0)
    click(alice, px(alice, "11,6"))
    assert room.message == "The 3 can step to 10,5 or 10,7."
    click(alice, px(alice, "12,7"))
    assert room.message == "The 6 can hop over the 3 to 10,5 or over the 2 to 10,9."
    click(alice, px(alice, "12,7"))  # dropped: the line goes with it
    assert room.message == ""
    play(apps, alice, "11,6", "10,5")
    assert room.message == ""
    for app in apps:
        app.disconnect()
