"""Browsing the moves in the room (lichess's way) through the real client against a real server on
loopback: Left/Right/Home/End and a click in the move list show an earlier position while the
clocks, players and chat stay live; a click on the board brings the game back; a move arriving
keeps the view (the line says so); a takeback clamps it; spectators and finished games too."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest

from client.app import App
from client.local import EmbeddedServer
from client.moves import points_of
from client.room_model import RoomModel
from client.scenes import room_panel
from client.scenes.result import ResultPanel
from client.scenes.room import RoomScene
from client.screenshot import save
from client.ui import draw, theme
from tests.client.helpers import (
    click,
    key,
    open_app,
    pump,
    px,
    room_of,
    sit_at_a_table,
    type_text,
)

Texts = list[tuple[str, Any]]

MAPS = Path(os.environ.get("BOARDHALL_JBQ_MAPS", Path(os.environ["BOARDHALL_SHARED"], "jbq-maps")))
XIANGQI_MAP = MAPS / "中国象棋.xlsx"
CHESS = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"]
"""Six plies whose move list reads e4 e5 Nf3 Nc6 Bc4 Nf6."""


@contextlib.contextmanager
def server_with_maps(tmp_path: Path) -> Iterator[EmbeddedServer]:
    """A real server on loopback whose custom variants include the JBQ Xiangqi map (read from
    the shared maps, copied into the test's own variants folder)."""
    variants = tmp_path / "variants"
    variants.mkdir()
    if XIANGQI_MAP.exists():
        shutil.copy(XIANGQI_MAP, variants / XIANGQI_MAP.name)
    server = EmbeddedServer(db=tmp_path / "db.sqlite", variants=variants).start()
    try:
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def table(tmp_path: Path, game: str = "chess", variant: str | None = None,
          watcher: bool = False) -> Iterator[list[App]]:
    """Alice (first) and Bob at a ``game`` table on a real server, and Carol watching when
    ``watcher``; every app disconnects at the end."""
    with server_with_maps(tmp_path) as server:
        names = ["Alice", "Bob", *(["Carol"] if watcher else [])]
        apps = [open_app(tmp_path, name, server.url) for name in names]
        try:
            sit_at_a_table(apps, game, **({"variant": variant} if variant else {}))
            yield apps
        finally:
            for app in apps:
                app.disconnect()


def play(apps: list[App], *moves: str) -> None:
    """The side to move plays each of ``moves`` through its room (as a click or typed move
    does); every app sees each one before the next."""
    for move in moves:
        n = len(room_of(apps[0]).model.moves)
        mover = next(a for a in apps[:2] if room_of(a).model.is_my_turn())
        room_of(mover).send_move(move)
        pump(apps, lambda n=n: all(  # type: ignore[misc]
            len(room_of(a).model.moves) == n + 1 for a in apps))


def play_first_legal(apps: list[App], count: int) -> None:
    """``count`` plies, each the first legal move the engine lists (any game)."""
    for _ in range(count):
        model = room_of(apps[0]).model
        play(apps, sorted(model.legal_moves())[0])


def drawn_texts(app: App, monkeypatch: pytest.MonkeyPatch) -> Texts:
    """Render ``app`` and return every text drawn, with its colour."""
    seen: Texts = []
    real = draw.text

    def recording(surface: pygame.Surface, value: str, pos: tuple[int, int], size: int = 18,
                  color: Any = theme.TEXT, *args: Any, **kwargs: Any) -> pygame.Rect:
        seen.append((value, color))
        return real(surface, value, pos, size, color, *args, **kwargs)

    monkeypatch.setattr(draw, "text", recording)
    try:
        app.step(0.0)
        app.render()
    finally:
        monkeypatch.setattr(draw, "text", real)
    return seen


def shows(scene: RoomScene, index: int) -> None:
    """Assert the room's board shows the position after ``index`` plies, marked as such."""
    m = scene.model
    assert scene.browse.state(m) is m.history[index]
    last = points_of(m.game, m.moves[index - 1]) if index else ()
    marks = scene.marks()
    assert marks.last_move == last
    assert marks.selected is None and not marks.targets and not marks.premove


def spot_of(scene: RoomScene, ply: int) -> tuple[int, int]:
    """Where the move list draws ply ``ply`` (its cell's centre)."""
    for _, _, spots in room_panel.move_spots(scene, room_panel.MOVES_RECT):
        for at, _, cell in spots:
            if at == ply:
                return cell.center
    raise AssertionError(f"ply {ply} is not in view in the move list")


def test_keys_step_through_the_game_and_the_line_says_where(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Left shows one ply back (board, last-move marks, move list, status line), Left again,
    Right forward, Home the start, End the live game; clocks and players stay live."""
    with table(tmp_path) as apps:
        play(apps, *CHESS)
        alice = apps[0]
        scene = room_of(alice)
        assert not scene.browse.active
        sent = len(alice.sent)
        key(alice, pygame.K_LEFT)
        shows(scene, 5)
        texts = drawn_texts(alice, monkeypatch)
        assert ("After 3. Bc4 · End: back to the game", theme.ACCENT) in texts
        assert ("Bc4", theme.ACCENT) in texts and ("Nf6", theme.TEXT) in texts
        key(alice, pygame.K_LEFT)
        shows(scene, 4)
        key(alice, pygame.K_RIGHT)
        shows(scene, 5)
        key(alice, pygame.K_HOME)
        shows(scene, 0)
        assert "Start position · End: back to the game" in [t for t, _ in
                                                        drawn_texts(alice, monkeypatch)]
        key(alice, pygame.K_END)
        assert not scene.browse.active and scene.browse.state(scene.model) is scene.model.state
        texts = drawn_texts(alice, monkeypatch)
        assert ("Your move", theme.GOOD) in texts and ("Nf6", theme.ACCENT) in texts
        key(alice, pygame.K_LEFT)
        key(alice, pygame.K_RIGHT)  # forward onto the last ply: the live position
        assert not scene.browse.active
        assert len(alice.sent) == sent  # browsing sends nothing


def test_a_click_in_the_move_list_shows_the_position_after_that_move(tmp_path: Path) -> None:
    """A click on Nf3 shows the position after it; a click on the last move is live again."""
    with table(tmp_path) as apps:
        play(apps, *CHESS)
        bob = apps[1]
        scene = room_of(bob)
        click(bob, spot_of(scene, 2))
        shows(scene, 3)
        assert scene.browse.active
        click(bob, spot_of(scene, 5))
        assert not scene.browse.active


def test_a_move_arriving_while_browsing_keeps_the_view_and_the_line_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bob looks at move 2 while Alice plays on: his board stays there and the line says the
    game went on; at the live position the board follows the game."""
    with table(tmp_path) as apps:
        play(apps, *CHESS[:4])
        alice, bob = apps[0], apps[1]
        scene = room_of(bob)
        key(bob, pygame.K_HOME)
        key(bob, pygame.K_RIGHT)
        key(bob, pygame.K_RIGHT)
        shows(scene, 2)
        play(apps, "f1c4")
        shows(scene, 2)
        texts = [t for t, _ in drawn_texts(bob, monkeypatch)]
        assert "Your move · " in texts  # Alice's move made it Bob's turn
        assert any(t.startswith("After 1… e5 · new move · End") for t in texts), texts
        key(bob, pygame.K_RIGHT)  # moving the view: the news is read
        assert "After 2. Nf3 · End: back to the game" in [
            t for t, _ in drawn_texts(bob, monkeypatch)]
        key(bob, pygame.K_END)
        play(apps, "g8f6")
        assert not scene.browse.active
        assert scene.browse.state(scene.model) is scene.model.history[6]
        assert room_of(alice).browse.state(room_of(alice).model) is room_of(alice).model.state


def test_a_click_on_a_browsed_board_only_brings_the_game_back(tmp_path: Path) -> None:
    """Alice, to move, looks back then clicks her knight: the live position comes back, nothing
    is selected or sent; her next clicks play as usual."""
    with table(tmp_path) as apps:
        play(apps, *CHESS[:2])
        alice = apps[0]
        scene = room_of(alice)
        key(alice, pygame.K_LEFT)
        click(alice, px(alice, "g1"))
        assert not scene.browse.active
        assert scene.picker.selected is None
        assert [m for m in alice.sent if m.get("type") == "move"][-1]["move"] == "e2e4"
        click(alice, px(alice, "g1"))
        click(alice, px(alice, "f3"))
        pump(apps, lambda: len(room_of(apps[1]).model.moves) == 3)
        assert scene.model.moves[-1] == "g1f3"


def test_a_drag_dropped_on_a_browsed_board_plays_nothing(tmp_path: Path) -> None:
    """Alice picks up her knight, steps back with Left while holding it and drops it on f3:
    nothing is played on the earlier position shown."""
    with table(tmp_path) as apps:
        play(apps, *CHESS[:2])
        alice = apps[0]
        scene = room_of(alice)
        sent = len(alice.sent)
        alice.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=px(alice, "g1"),
                                              button=1))
        key(alice, pygame.K_LEFT)
        alice.handle_event(pygame.event.Event(pygame.MOUSEMOTION, pos=px(alice, "f3"),
                                              rel=(0, 0), buttons=(1, 0, 0)))
        alice.handle_event(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=px(alice, "f3"),
                                              button=1))
        assert len(alice.sent) == sent and scene.pending_move is None
        shows(scene, 1)


def test_no_premove_is_entered_on_a_browsed_board(tmp_path: Path) -> None:
    """Bob, waiting for Alice, browses: his click on the board brings the game back and enters
    no premove; on the live position his premove is entered as usual."""
    with table(tmp_path) as apps:
        play(apps, *CHESS[:4])
        bob = apps[1]
        scene = room_of(bob)
        assert scene.premove_mode()
        key(bob, pygame.K_LEFT)
        click(bob, px(bob, "g8"))
        assert not scene.browse.active and scene.premoves.points() == ()
        click(bob, px(bob, "g8"))
        click(bob, px(bob, "f6"))
        assert scene.premoves.points() == ("g8", "f6")
        key(bob, pygame.K_LEFT)  # the premove belongs to the live position: not drawn here
        assert scene.marks().premove == ()
        key(bob, pygame.K_END)
        assert scene.marks().premove == ("g8", "f6")


def test_a_takeback_clamps_the_view_and_a_spectator_keeps_browsing(tmp_path: Path) -> None:
    """Alice looks at move 5 of 6 and asks to take back her Bc4 (two plies go); Bob accepts:
    her view past the new end shows the live position. Carol, watching at move 2, stays there
    and the line counts the shorter game."""
    with table(tmp_path, watcher=True) as apps:
        alice, bob, carol = apps
        play(apps, *CHESS)
        a, c = room_of(alice), room_of(carol)
        key(carol, pygame.K_HOME)
        key(carol, pygame.K_RIGHT)
        key(carol, pygame.K_RIGHT)
        shows(c, 2)
        key(alice, pygame.K_LEFT)
        shows(a, 5)
        key(alice, pygame.K_u, "u")
        pump(apps, lambda: room_of(bob).model.pending_offer() is not None)
        key(bob, pygame.K_y, "y")
        pump(apps, lambda: all(len(room_of(x).model.moves) == 4 for x in apps))
        alice.step(0.0)
        assert not a.browse.active and a.browse.state(a.model) is a.model.history[4]
        carol.step(0.0)
        shows(c, 2)
        assert c.browse.lines(c.model, c.move_rows())[0] == "After 1… e5 · End: back to the game"


def test_a_spectator_steps_and_clicks_back_to_the_game(tmp_path: Path) -> None:
    """Carol steps back with the keys; a click on the board brings the game back (it said
    "You are watching" before, and still does on the live position)."""
    with table(tmp_path, watcher=True) as apps:
        carol = apps[2]
        play(apps, *CHESS[:3])
        scene = room_of(carol)
        key(carol, pygame.K_LEFT)
        key(carol, pygame.K_LEFT)
        shows(scene, 1)
        click(carol, px(carol, "e2"))
        assert not scene.browse.active and scene.message == ""
        click(carol, px(carol, "e2"))
        assert scene.message == "You are watching this game."


def test_chat_typing_keeps_the_arrow_keys(tmp_path: Path) -> None:
    """With the chat field focused Left/Right/Home/End move its caret, not the board; once it
    is left (Esc) they browse."""
    with table(tmp_path) as apps:
        play(apps, *CHESS[:2])
        alice = apps[0]
        scene = room_of(alice)
        key(alice, pygame.K_RETURN)
        assert scene.chat_field.focused
        type_text(alice, "gg")
        for code in (pygame.K_LEFT, pygame.K_HOME, pygame.K_RIGHT):
            key(alice, code)
        assert scene.chat_field.position == 1 and not scene.browse.active
        key(alice, pygame.K_END)
        assert scene.chat_field.position == 2 and not scene.browse.active
        key(alice, pygame.K_ESCAPE)
        key(alice, pygame.K_LEFT)
        shows(scene, 1)


def test_a_finished_game_is_browsed_in_the_room(tmp_path: Path) -> None:
    """After Bob resigns and the result panel is closed, the room steps through the game; the
    end comes back with End."""
    with table(tmp_path) as apps:
        alice, bob = apps[0], apps[1]
        play(apps, *CHESS[:3])
        key(bob, pygame.K_r, "r")
        key(bob, pygame.K_r, "r")
        pump(apps, lambda: all(room_of(a).model.status == "over" for a in apps))
        assert isinstance(alice.top, ResultPanel)
        key(alice, pygame.K_ESCAPE)
        scene = room_of(alice)
        key(alice, pygame.K_HOME)
        shows(scene, 0)
        key(alice, pygame.K_RIGHT)
        shows(scene, 1)
        key(alice, pygame.K_END)
        assert not scene.browse.active


GAMES: list[tuple[str, str | None]] = [("chess", None), ("draughts", None), ("shuqi", None),
                                       ("hexgomoku", None), ("custom", "xiangqi-jbq")]


@pytest.mark.parametrize(("game", "variant"), GAMES)
def test_every_game_is_browsed(tmp_path: Path, game: str, variant: str | None) -> None:
    """Each game, a custom variant from the JBQ maps too: every ply is shown from the model's
    own states, with the move that led to it marked, and the board draws it (saved as
    /tmp/browse-GAME.png at the third position)."""
    if variant and not XIANGQI_MAP.exists():
        pytest.skip("the JBQ maps are not available")
    with table(tmp_path, game, variant) as apps:
        play_first_legal(apps, 4)
        bob = apps[1]
        scene = room_of(bob)
        key(bob, pygame.K_HOME)
        for index in range(5):
            shows(scene, index)
            if index == 2:  # saved as /tmp/browse-GAME.png
                out = tmp_path / f"browse-{game}.png"
                save(bob, out)
                shutil.copy(out, Path("/tmp") / out.name)
            key(bob, pygame.K_RIGHT)
        assert not scene.browse.active


def test_the_browse_view_on_its_own() -> None:
    """The view's index against a model: clamped steps, live at the end, another game live."""
    from client.browse import Browse

    model = RoomModel(room="R", game="hexgomoku", game_id="g1", moves=["0,0", "0,1", "1,0"])
    model.rebuild()
    browse = Browse()
    browse.follow(model)
    assert browse.key(model, pygame.K_LEFT) and browse.shown == 2
    assert not browse.key(model, pygame.K_a)
    browse.go(model, -4)
    assert browse.shown == 0
    browse.go(model, 99)
    assert browse.shown is None
    browse.go(model, 1)
    model.game_id = "g2"
    browse.follow(model)
    assert browse.shown is None


@pytest.mark.parametrize("size", [(1280, 800), (640, 480)])
def test_a_browsed_room_as_shown(tmp_path: Path, size: tuple[int, int],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A long chess game browsed back to its second ply, with a new move since: the move list
    is scrolled back to that move, and the line is read in the status place at both sizes (a
    shorter form in the small window). Saved as /tmp/browse-WxH.png."""
    moves = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "d2d3", "f8c5", "c2c3", "d7d6",
             "e1g1", "e8g8", "b1d2", "a7a6", "c4b3", "c5a7", "h2h3", "h7h6", "f1e1", "f8e8",
             "d2f1", "c8e6", "b3c2", "d6d5", "e4d5", "f6d5", "f1g3", "d8d6"]
    with table(tmp_path) as apps:
        play(apps, *moves[:26])
        bob = apps[1]
        scene = room_of(bob)
        for _ in range(24):
            key(bob, pygame.K_LEFT)
        play(apps, moves[26])  # Alice plays on
        shows(scene, 2)
        texts = drawn_texts(bob, monkeypatch)
        assert ("e5", theme.ACCENT) in texts  # the move shown, scrolled into the move list
        line = "After 1… e5 · new move · End"
        assert any(t.startswith(line) for t, _ in texts), texts
        out = tmp_path / f"browse-{size[0]}x{size[1]}.png"
        save(bob, out, size)
        shutil.copy(out, Path("/tmp") / out.name)


def test_a_browsed_position_is_judged_again_when_the_game_changed_under_it() -> None:
    """The check at ply 3 (Qh5+) is marked; after a snapshot puts another game line under the
    same ply (a takeback, then other moves) the mark goes with it."""
    from client.browse import Browse

    model = RoomModel(room="R", game="chess", game_id="g1",
                      moves=["e2e4", "f7f5", "d1h5", "g7g6"])
    model.rebuild()
    browse = Browse()
    browse.follow(model)
    browse.go(model, 3)
    assert browse.marks(model, None, True).highlight == ("e8",)
    model.moves = ["e2e4", "f7f5", "g1f3", "g8f6"]
    model.rebuild()
    browse.follow(model)
    assert browse.shown == 3
    assert browse.marks(model, None, True).highlight == ()


@pytest.mark.parametrize("size", [(1280, 800), (640, 480)])
def test_your_move_stays_in_the_line_while_browsing(
        tmp_path: Path, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch) -> None:
    """Alice, to move, steps back: the line still says it is her move (in its colour) and then
    where she is, whole, at both window sizes; Bob, waiting, reads only where he is. Saved as
    /tmp/polish2-browse-WxH.png."""
    from tests.client.helpers import status_parts

    with table(tmp_path) as apps:
        play(apps, *CHESS)
        alice, bob = apps[0], apps[1]
        key(alice, pygame.K_LEFT)
        parts = status_parts(alice, size, monkeypatch)
        assert parts[0][:2] == ("Your move · ", theme.GOOD), parts
        assert parts[1][1] == theme.ACCENT and "End" in parts[1][0]
        assert all(whole for _, _, whole in parts), parts
        if size == (1280, 800):
            assert parts[1][0] == "After 3. Bc4 · End: back to the game"
        out = tmp_path / f"polish2-browse-{size[0]}x{size[1]}.png"
        save(alice, out, size)
        shutil.copy(out, Path("/tmp") / out.name)
        key(bob, pygame.K_LEFT)
        parts = status_parts(bob, size, monkeypatch)
        assert len(parts) == 1 and parts[0][1] == theme.ACCENT
        assert "Your move" not in parts[0][0] and "End" in parts[0][0]
