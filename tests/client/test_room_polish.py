"""A play-through of every game found four things to polish:

- At 640x480 the room's action buttons read "Offer d…", "Takeb…" (worst with number chess's five
  columns): a button whose label does not fit shows a short one ("Draw", "Undo"), and the full
  label with its key shows as a tooltip while the pointer is on it.
- Number chess: the expression dialog covered the right half of the board, where the first
  player's spans happen (and dimmed the rest): it goes beside the board now, and the board keeps
  showing the span (the spanned pieces marked) while the expression is typed.
- Lobby: game options were only placeholder text ("exact5=false") in a free-text field; each
  option is its own widget now (a toggle for a true/false option, a number field for a number),
  built from GameInfo.options, and quick games and created rooms send the chosen ones.
- Result: "18 moves" counted half-moves, and the player who resigned read "Bob won"; the count
  is said as each game's players count (chess and draughts moves are pairs, number chess plies,
  gomoku stones), and the result line says what happened from the reader's point of view.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygame
import pytest

from client.app import App
from client.demo import demo_room
from client.local import EmbeddedServer
from client.room_model import RoomModel
from client.scenes import room as room_module
from client.scenes.dialogs import ExpressionDialog
from client.scenes.lobby import LobbyScene
from client.scenes.result import ResultPanel
from client.scenes.room import RoomScene, result_text
from client.ui import draw, theme
from client.ui.widgets import Button, TextField, Toggle
from tests.client.helpers import StubConnection, open_app, pump
from tests.client.window_tools import on_window, render_at

GAMES = ("chess", "draughts", "shuqi", "hexgomoku", "custom")
SIZES = ((640, 480), (800, 600), (1280, 800))


def button_labels(recorded: list[tuple[Any, str, pygame.Rect]], button: Button
                  ) -> list[tuple[str, pygame.Rect]]:
    """The label line drawn for ``button`` (its text item at the label's size, inside it)."""
    return [(value, rect) for item, value, rect in recorded
            if item.size == button.size and button.rect.collidepoint(item.pos)]


# ---- 1. button labels -----------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("game", GAMES)
def test_room_buttons_read_whole_at_every_window_size(ui: Any, game: str,
                                                      size: tuple[int, int]) -> None:
    """Every action button of every game (a player's set and a spectator's) reads whole: its
    full label when it fits, else a short one; never a label cut with "…"."""
    for you in ("first", None):
        snapshot = demo_room(game, plies=4, you=you)
        if you is None:  # a spectator opens a room from the lobby: a fresh app
            ui.app.reset([])
        room = ui.open_room(snapshot)
        who = "player" if you else "spectator"
        recorded = render_at(ui.app, size, f"buttons-{game}-{who}")
        for button in room.buttons():
            labels = button_labels(recorded, button)
            assert len(labels) == 1, (button.label, labels)
            value, rect = labels[0]
            assert not value.endswith("…"), (game, size, who, button.label, value)
            assert value in (button.label, getattr(button, "short", "")), (button.label, value)
            assert on_window(button.rect, size).contains(rect), (button.label, rect)
        if size == (640, 480) and game == "shuqi" and you:
            shown = {b.action: v for b in room.buttons() for v, _ in button_labels(recorded, b)}
            assert shown["draw"] == "Draw" and shown["undo"] == "Undo", shown


def test_short_button_label_has_its_full_label_as_a_tooltip(ui: Any) -> None:
    """At 640x480 the pointer on "Draw" shows "Offer draw (D)"; the key still offers it."""
    room = ui.open_room(demo_room("shuqi", plies=4))
    draw_button = next(b for b in room.buttons() if b.action == "draw")
    ui.app.handle_event(pygame.event.Event(pygame.MOUSEMOTION, pos=draw_button.rect.center,
                                           rel=(0, 0), buttons=(0, 0, 0)))
    recorded = render_at(ui.app, (640, 480), "buttons-tooltip")
    values = [value for _, value, _ in recorded]
    assert "Offer draw  (D)" in values, values
    tip = next(rect for _, value, rect in recorded if value == "Offer draw  (D)")
    assert pygame.Rect(0, 0, 640, 480).contains(tip)
    full = render_at(ui.app, (1280, 800), "buttons-tooltip")
    assert "Offer draw  (D)" not in [value for _, value, _ in full]  # the label says it all
    ui.key(pygame.K_d, "d")
    assert ui.sent("offer")[-1]["kind"] == "draw"


# ---- 2. the expression dialog ---------------------------------------------------------------

SECOND_TO_MOVE = ("second;1;14,7 10,3 11,8 11,6 11,10 12,9 12,7 12,5 13,6 13,8;"
                  "0,7 3,10 3,6 3,8 3,4 2,5 2,7 2,9 1,8 1,6")


@pytest.mark.parametrize("you, position, span", [
    ("first", None, ("13,8", "12,7", "11,6", "10,5")),
    ("second", SECOND_TO_MOVE, ("1,6", "2,7", "3,8", "4,9")),
])
def test_expression_dialog_leaves_the_span_in_view(ui: Any, you: str, position: str | None,
                                                   span: tuple[str, ...]) -> None:
    """The dialog covers no point of the span (the mover, the spanned pieces, the landing
    point), and the board there is drawn as without the dialog (not dimmed); the spanned
    pieces are marked. At every window size its text stays inside it."""
    snapshot = demo_room("shuqi", position=position, plies=0, you=you)
    room = ui.open_room(snapshot)
    assert room.view is not None
    ui.click(room.view.pixel_of(span[0]))
    ui.click(room.view.pixel_of(span[-1]))
    dialog = ui.app.top
    assert isinstance(dialog, ExpressionDialog) and dialog.target == 9
    assert set(room.marks().highlight) >= set(span[1:-1]), room.marks()
    ui.app.render()
    shown = ui.app.surface.copy()
    alone = pygame.Surface(theme.LOGICAL_SIZE)
    alone.fill(theme.BG)
    room.draw(alone)
    for point in span:
        x, y = room.view.pixel_of(point)
        spot = pygame.Rect(x - 22, y - 22, 44, 44)
        assert not dialog.card.colliderect(spot), (point, dialog.card)
        for dx, dy in ((0, 0), (-12, 0), (12, 0), (0, -12), (0, 12)):
            assert shown.get_at((x + dx, y + dy)) == alone.get_at((x + dx, y + dy)), point
    ui.type("6*3")
    ui.key(pygame.K_RETURN)
    assert dialog.error
    for size in SIZES:
        recorded = render_at(ui.app, size, f"expression-{you}")
        card = on_window(dialog.card, size)
        for item, value, rect in recorded:
            if item.color == theme.FAINT and value.startswith("e.g."):
                continue  # the field's placeholder may be cut
            assert card.contains(rect), (size, value, rect, card)
            if item.color in (theme.MUTED, theme.BAD):
                assert not value.endswith("…"), (size, value)
    ui.key(pygame.K_ESCAPE)
    assert ui.app.top is room and not set(span[1:-1]) & set(room.marks().highlight)


# ---- 3. lobby options -----------------------------------------------------------------------


def pick_game(ui: Any, lobby: LobbyScene, game: str) -> None:
    """Click ``game``'s card in the lobby."""
    index = next(i for i, g in enumerate(ui.app.games) if g["game"] == game)
    ui.click(lobby.game_rows()[index].center)


def test_boolean_option_is_a_toggle_sent_with_seek_and_create(ui: Any) -> None:
    """Hexagonal five-in-a-row's ``exact5`` is a switch: off by default (nothing sent), on
    after a click, and then every quick game and created room carries it."""
    lobby = ui.open_lobby()
    pick_game(ui, lobby, "hexgomoku")
    widget = lobby.option_widgets["exact5"]
    assert isinstance(widget, Toggle) and not widget.on
    assert lobby.options_text is None, "no free-text field when every option has a widget"
    ui.key(pygame.K_F1)
    assert "options" not in ui.sent("join")[-1]
    ui.key(pygame.K_ESCAPE)
    lobby.queued = None
    ui.click(widget.rect.center)
    assert widget.on
    render_at(ui.app, (1280, 800), "lobby-options-hexgomoku")
    render_at(ui.app, (640, 480), "lobby-options-hexgomoku")
    ui.key(pygame.K_F2)
    assert ui.sent("join")[-1]["options"] == {"exact5": True}
    lobby.queued = None
    ui.key(pygame.K_n, mod=pygame.KMOD_CTRL)
    assert ui.sent("create")[-1]["options"] == {"exact5": True}


def test_number_options_are_number_fields(ui: Any) -> None:
    """Number chess's ``home_limit`` and ``max_plies`` are number fields showing their defaults;
    only digits go in; Tab reaches them; a changed one is sent, an untouched one is not."""
    lobby = ui.open_lobby()
    pick_game(ui, lobby, "shuqi")
    home, most = lobby.option_widgets["home_limit"], lobby.option_widgets["max_plies"]
    assert isinstance(home, TextField) and isinstance(most, TextField)
    assert "30" in home.placeholder and "400" in most.placeholder
    assert home in lobby.tab_order() and most in lobby.tab_order()
    ui.click(home.rect.center)
    ui.type("2x0")
    assert home.value == "20"
    render_at(ui.app, (1280, 800), "lobby-options-shuqi")
    render_at(ui.app, (640, 480), "lobby-options-shuqi")
    ui.key(pygame.K_ESCAPE)
    ui.key(pygame.K_n, mod=pygame.KMOD_CTRL)
    assert ui.sent("create")[-1]["options"] == {"home_limit": 20}
    ui.key(pygame.K_F1)
    assert ui.sent("join")[-1]["options"] == {"home_limit": 20}
    for game, size in (("shuqi", (640, 480)), ("custom", (800, 600))):
        pick_game(ui, lobby, game)
        recorded = render_at(ui.app, size, f"lobby-options-{game}")
        for widget in lobby.option_widgets.values():
            near = [value for item, value, _ in recorded
                    if widget.rect.inflate(0, 60).collidepoint(item.pos)]
            assert near and not any(v.endswith("…") for v in near), near


def test_new_options_get_widgets_by_themselves(ui: Any) -> None:
    """An option the client has never heard of gets a widget from its default's type; the
    free-text field comes back only for what has no room left."""
    lobby = ui.open_lobby()
    info = next(g for g in ui.app.games if g["game"] == "chess")
    info["options"] = {"chess960": False, "moves_to_go": 40, "opening": "e4"}
    lobby.enter()
    widgets = lobby.option_widgets
    assert isinstance(widgets["chess960"], Toggle)
    assert isinstance(widgets["moves_to_go"], TextField) and widgets["moves_to_go"].digits
    assert isinstance(widgets["opening"], TextField) and not widgets["opening"].digits
    assert lobby.options_text is None
    ui.click(widgets["chess960"].rect.center)
    ui.click(widgets["opening"].rect.center)
    ui.type("d4")
    ui.key(pygame.K_ESCAPE)
    ui.key(pygame.K_n, mod=pygame.KMOD_CTRL)
    assert ui.sent("create")[-1]["options"] == {"chess960": True, "opening": "d4"}
    info["options"] = {f"rule{i}": False for i in range(7)}
    lobby.enter()
    assert lobby.options_text is not None and lobby.options_text in lobby.tab_order()
    assert len(lobby.option_widgets) < 7
    render_at(ui.app, (1280, 800), "lobby-options-many")


def test_seek_with_options_is_matched_into_a_room_with_them(tmp_path: Path) -> None:
    """Two players pick number chess, set the home limit to 20 and press the first quick game:
    the server matches them into a room with that option."""
    server = EmbeddedServer().start()
    try:
        apps = [open_app(tmp_path, name, server.url) for name in ("Alice", "Bob")]
        pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
        for app in apps:
            lobby = app.top
            assert isinstance(lobby, LobbyScene)
            index = next(i for i, g in enumerate(app.games) if g["game"] == "shuqi")
            click(app, lobby.game_rows()[index].center)
            click(app, lobby.option_widgets["home_limit"].rect.center)
            app.handle_event(pygame.event.Event(pygame.TEXTINPUT, text="20"))
            app.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0,
                                                unicode=""))
            app.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_F1, mod=0,
                                                unicode=""))
        pump(apps, lambda: all(a.find(RoomScene) for a in apps))
        for app in apps:
            assert app.find(RoomScene)[-1].model.options.get("home_limit") == 20
            app.disconnect()
    finally:
        server.stop()


def click(app: App, pos: tuple[int, int]) -> None:
    """A left click."""
    for kind in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP):
        app.handle_event(pygame.event.Event(kind, pos=pos, button=1))


# ---- 4. the result --------------------------------------------------------------------------


def ended(game: str, result: str | None, reason: str, you: str | None, plies: int = 6,
          scores: dict[str, int] | None = None) -> RoomModel:
    """A room model of the demo ``game`` (Alice first, Bob second) ended so."""
    model = RoomModel(room="K7QD")
    model.apply(demo_room(game, plies=plies, you=you), 0.0)
    over: dict[str, Any] = {"type": "over", "room": "K7QD", "game_id": "g-demo-1",
                            "result": result, "reason": reason, "position": "?"}
    if scores:
        over["scores"] = scores
    model.apply(over, 0.0)
    return model


@pytest.mark.parametrize("game, reason, result, first, second, watcher", [
    ("chess", "resign", "second", "You resigned: Bob won", "Alice resigned: you win",
     "Alice resigned: Bob won"),
    ("chess", "resign", "first", "Bob resigned: you win", "You resigned: Alice won",
     "Bob resigned: Alice won"),
    ("chess", "timeout", "second", "You ran out of time: Bob won",
     "Alice ran out of time: you win", "Alice ran out of time: Bob won"),
    ("chess", "checkmate", "first", "You checkmated Bob: you win",
     "Alice checkmated you: Alice won", "Alice checkmated Bob: Alice won"),
    ("chess", "agreement", "draw", "Draw agreed", "Draw agreed", "Draw agreed"),
    ("chess", "aborted", None, "Game aborted before both sides moved",
     "Game aborted before both sides moved", "Game aborted before both sides moved"),
    ("chess", "stalemate", "draw", "Draw: stalemate", "Draw: stalemate", "Draw: stalemate"),
    ("hexgomoku", "five", "second", "Bob made five in a row: Bob won",
     "You made five in a row: you win", "Bob made five in a row: Bob won"),
    ("draughts", "no_moves", "first", "Bob had no move left: you win",
     "You had no move left: Alice won", "Bob had no move left: Alice won"),
    ("shuqi", "report", "second", "Bob reported your rule break: Bob won",
     "You reported Alice's rule break: you win", "Bob reported Alice's rule break: Bob won"),
    ("chess", "abandoned", "first", "Bob left the game: you win",
     "You left the game: Alice won", "Bob left the game: Alice won"),
])
def test_result_line_from_each_readers_point_of_view(
        game: str, reason: str, result: str | None, first: str, second: str,
        watcher: str) -> None:
    """The line says what happened and who won, as each player and a spectator read it."""
    for you, expected in (("first", first), ("second", second), (None, watcher)):
        assert result_text(ended(game, result, reason, you)) == expected, (reason, you)


def test_stop_names_who_called_it_and_the_scores() -> None:
    """Number chess: stop is called by the player to move; the result compares scores."""
    scores = {"first": 285, "second": 91}
    # 6 plies: first is to move, so first called stop
    assert result_text(ended("shuqi", "first", "stop", "first", scores=scores)) == (
        "You called stop: you win 285 to 91")
    assert result_text(ended("shuqi", "first", "stop", "second", scores=scores)) == (
        "Alice called stop: Alice won 285 to 91")
    assert result_text(ended("shuqi", "draw", "stop", None,
                             scores={"first": 90, "second": 90})) == (
        "Alice called stop: draw 90 to 90")


def test_result_panel_headline_is_the_readers(ui: Any) -> None:
    """The player who resigned reads "You resigned" big, and who won under it; the winner
    reads "You win" and why; in hot-seat play the winner is named."""
    room = ui.open_room(demo_room("chess", plies=6))
    ui.message({"type": "over", "room": "K7QD", "game_id": "g-demo-1", "result": "second",
                "reason": "resign", "position": "?"})
    panel = ui.app.top
    assert isinstance(panel, ResultPanel)
    recorded = render_at(ui.app, (1280, 800), "result-you-resigned")
    values = [value for _, value, _ in recorded]
    headline = next(item for item, _, _ in recorded if item.size == 36)
    assert headline.value == "You resigned" and headline.color == theme.BAD
    assert "Bob won" in values and "3 moves" in values, values
    render_at(ui.app, (640, 480), "result-you-resigned")
    assert room_module.result_lines(room.model) == ("You resigned", "Bob won")
    room.model.you = "second"
    assert room_module.result_lines(room.model) == ("You win", "Alice resigned")
    ui.app.seat_connections = {"first": StubConnection(), "second": StubConnection()}
    assert room_module.result_lines(room.model, hotseat=True) == ("Bob won", "Alice resigned")


@pytest.mark.parametrize("game, plies, words", [
    ("chess", 18, "9 moves"), ("chess", 7, "4 moves"), ("draughts", 6, "3 moves"),
    ("shuqi", 18, "18 plies"), ("hexgomoku", 12, "12 stones"), ("custom", 1, "1 ply"),
])
def test_moves_counted_as_players_count(ui: Any, game: str, plies: int, words: str) -> None:
    """Chess and draughts moves are pairs (as their move numbers); number chess and custom
    games count plies (their move limits do); five-in-a-row counts stones."""
    ui.open_room(demo_room(game, plies=plies))
    ui.message({"type": "over", "room": "K7QD", "game_id": "g-demo-1", "result": "draw",
                "reason": "agreement", "position": "?"})
    panel = ui.app.top
    assert isinstance(panel, ResultPanel)
    with draw.collect_text() as texts:
        panel.draw(ui.app.surface)
    assert words in [t.value for t in texts], [t.value for t in texts]


def test_hot_seat_and_spectator_read_names(ui: Any) -> None:
    """Nobody is "you" in hot-seat play or to a spectator."""
    model = ended("chess", "first", "timeout", None)
    assert room_module.result_lines(model) == ("Alice won", "Bob ran out of time")
    model = ended("chess", "second", "resign", "first")
    assert room_module.result_lines(model, hotseat=True) == ("Bob won", "Alice resigned")


def test_option_switch_by_keyboard(ui: Any) -> None:
    """Tab reaches an option's switch first; Space flips it; Esc leaves it and the letter
    shortcuts work again."""
    lobby = ui.open_lobby()
    pick_game(ui, lobby, "hexgomoku")
    switch = lobby.option_widgets["exact5"]
    assert isinstance(switch, Toggle)
    ui.key(pygame.K_TAB)
    assert switch.focused
    ui.key(pygame.K_SPACE, " ")
    assert switch.on
    ui.key(pygame.K_ESCAPE)
    assert not switch.focused
    ui.key(pygame.K_F1)
    assert ui.sent("join")[-1]["options"] == {"exact5": True}
