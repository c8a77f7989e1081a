"""The room as a demanding user checks it: every game flips and toggles coordinates, every
protocol action has a button and a key, and a draughts selection is not lost by a stray click."""

from __future__ import annotations

import json
from typing import Any

import pygame
import pytest

import engines
from client.demo import demo_room
from client.scenes.result import ResultPanel
from client.scenes.room import ACTIONS, CONFIRM, RoomScene
from protocol import decode_client
from tests.client.helpers import running_clock_at_zero

GAMES = ["hexgomoku", "chess", "draughts", "shuqi", "custom"]
BOARD = pygame.Rect(16, 16, 768, 768)
STOP_NOW = (
    "first;60;0,7 3,10 3,6 3,8 3,4 2,5 2,7 2,9 1,8 1,6;"
    "14,7 11,4 11,8 11,6 11,10 12,9 12,7 12,5 13,6 13,8"
)
"""Number chess: first's ten pieces in its target camp, first to move: first may call stop.
(Where a stop or report would be refused the room says why at once and sends nothing.)"""
REPORT_NOW = (
    "first;60;14,7 11,4 11,8 11,6 11,10 12,9 12,7 12,5 13,6 13,8;"
    "0,7 5,10 5,6 3,8 5,4 4,5 4,7 4,9 5,8 6,7"
)
"""Number chess: second has made 30 moves with its 0 and 3 at home: first may report."""


def open_room(ui: Any, snapshot: dict[str, Any]) -> RoomScene:
    """The app with ``snapshot``'s room open, reached through connect and lobby."""
    room: RoomScene = ui.open_room(snapshot)
    return room


def board_pixels(surface: pygame.Surface) -> bytes:
    """The board area of a rendered frame."""
    return pygame.image.tobytes(surface.subsurface(BOARD), "RGB")


def button(room: RoomScene, action: str) -> Any:
    """The room's button for ``action``."""
    found = [b for b in room.buttons() if b.action == action]
    assert found, f"no button for {action}"
    return found[0]


@pytest.mark.parametrize("game", GAMES)
def test_flip_and_coordinates_change_every_board(ui: Any, game: str) -> None:
    """F turns the board (points move, the picture changes); K toggles coordinates (the
    picture changes and changes back)."""
    room = open_room(ui, demo_room(game, plies=6))
    assert room.view is not None
    point = next(iter(room.view.points()))
    before_xy = room.view.pixel_of(point)
    plain = board_pixels(ui.shoot(f"audit-{game}-coords-on"))
    ui.key(pygame.K_k)
    assert not room.coordinates
    word = "Numbers" if game == "draughts" else "Coords"
    assert button(room, "coords").label == f"{word} off"
    no_coords = board_pixels(ui.shoot(f"audit-{game}-coords-off"))
    assert no_coords != plain, f"{game}: the coordinates toggle changes nothing"
    ui.key(pygame.K_k)
    assert board_pixels(ui.shoot(f"audit-{game}-coords-on-again")) == plain
    ui.key(pygame.K_f)
    assert room.view.pixel_of(point) != before_xy
    assert board_pixels(ui.shoot(f"audit-{game}-flipped")) != plain
    ui.key(pygame.K_f)
    assert room.view.pixel_of(point) == before_xy


@pytest.mark.parametrize("game", GAMES)
def test_every_protocol_action_has_a_button_and_a_key(ui: Any, game: str) -> None:
    """Each action of the protocol that applies to the game has a button labelled with its key;
    clicking the button and pressing the key send the same message."""
    room = open_room(ui, running_clock_at_zero(demo_room(game, plies=1)))  # time to claim
    expected = {"resign", "abort", "draw", "undo", "rematch", "swap", "timeout", "leave",
                "flip", "coords", "result", "slide", "sound"}
    if game == "shuqi":
        expected |= {"stop", "report"}
    else:  # the premove setting (number chess has no premoves)
        expected |= {"premove"}
    shown = {b.action for b in room.buttons()}
    assert shown == expected
    keys = {a.name: a for a in ACTIONS}
    for name in ("resign", "abort", "draw", "undo", "timeout"):  # shuqi's claims: below
        b = button(room, name)
        assert b.enabled, f"{name} should apply during the game"
        assert b.hint == keys[name].key_text
        presses = 2 if name in CONFIRM else 1  # game-ending actions ask twice
        count = len(ui.app.sent)
        for _ in range(presses):
            ui.click(b.rect.center)
        by_click = {k: v for k, v in ui.app.sent[-1].items() if k != "id"}
        assert len(ui.app.sent) == count + 1
        for _ in range(presses):
            ui.key(keys[name].key)
        by_key = {k: v for k, v in ui.app.sent[-1].items() if k != "id"}
        assert by_click == by_key, name
        assert by_key["room"] == room.model.room


@pytest.mark.parametrize(("name", "position"), [("stop", STOP_NOW), ("report", REPORT_NOW)])
def test_number_chess_claims_button_and_key_send_the_same(
    ui: Any, name: str, position: str
) -> None:
    """Stop (T) and Report (P), where the claim holds: the button and the key each send it,
    once asked twice."""
    room = open_room(ui, demo_room("shuqi", position=position, plies=0))
    b = button(room, name)
    action = next(a for a in ACTIONS if a.name == name)
    assert b.enabled and b.hint == action.key_text
    for _ in range(2):
        ui.click(b.rect.center)
    for _ in range(2):
        ui.key(action.key)
    clicked, pressed = ({k: v for k, v in m.items() if k != "id"} for m in ui.sent(name))
    assert clicked == pressed == {"type": name, "room": room.model.room}
    for message in ui.sent(name):  # as the server decodes it
        decode_client(json.dumps(message))


def test_abort_only_before_both_sides_moved(ui: Any) -> None:
    """Abort applies while a side has not moved yet, then it is disabled and its key is inert."""
    room = open_room(ui, demo_room("chess", plies=1))
    assert button(room, "abort").enabled
    ui.key(pygame.K_a)
    ui.key(pygame.K_a)
    assert ui.sent("abort")[-1]["room"] == "K7QD"
    room2 = open_room(ui, demo_room("chess", plies=2, room="AB12"))
    assert not button(room2, "abort").enabled
    count = len(ui.sent("abort"))
    ui.key(pygame.K_a)
    assert len(ui.sent("abort")) == count


def test_spectator_has_only_view_actions(ui: Any) -> None:
    """A spectator gets flip, coordinates, slides, sound and leave; no game action is shown or
    sent by key."""
    room = open_room(ui, demo_room("chess", plies=4, you=None))
    assert {b.action for b in room.buttons()} == {"flip", "coords", "leave", "result", "sit",
                                                  "slide", "sound"}
    assert not button(room, "sit").enabled, "no free seat in a game on"
    for key in (pygame.K_r, pygame.K_d, pygame.K_c, pygame.K_a):
        ui.key(key)
    assert not [m for m in ui.app.sent if m["type"] in ("resign", "offer", "timeout", "abort")]


def test_result_panel_accepts_a_rematch_offer(ui: Any) -> None:
    """After the end, the opponent's rematch offer turns Rematch into Accept: one click answers."""
    room = open_room(ui, demo_room("chess", plies=4))
    ui.message({"type": "over", "room": "K7QD", "game_id": "g-demo-1", "result": "second",
                "reason": "resign", "position": "?"})
    panel = ui.app.top
    assert isinstance(panel, ResultPanel)
    ui.message({"type": "offer", "room": "K7QD", "kind": "rematch", "by": "second"})
    ui.shoot("result-rematch-offered")
    assert panel.buttons[0].label == "Accept"
    ui.click(panel.buttons[0].rect.center)
    answer = ui.sent("answer")[-1]
    assert (answer["kind"], answer["accept"]) == ("rematch", True)
    assert not ui.sent("offer"), "accepting must not send a crossing offer"
    assert room.model.pending_offer() is None


def test_draughts_click_on_a_stuck_man_keeps_the_selection(ui: Any) -> None:
    """With a capture compulsory, clicking another own man says why and keeps the selected one."""
    engine = engines.get("draughts")
    start = "W:W35,45:B19,30,1"
    snapshot = demo_room("draughts", "international", plies=0)
    snapshot.update(start=start, position=start, moves=[], turn="first")
    assert engine.legal_moves(engine.start("international", position=start))
    room = open_room(ui, snapshot)
    assert room.view is not None
    ui.click(room.view.pixel_of("35"))
    assert room.picker.selected == "35"
    ui.click(room.view.pixel_of("45"))
    assert room.picker.selected == "35"
    assert "compulsory" in room.message
    ui.shoot("room-draughts-compulsory")


def test_replay_marks_check_and_the_winning_line_and_has_view_buttons(ui: Any) -> None:
    """Stepping through a chess game shows the checked king at the check; a finished hexgomoku
    game shows its five at the end; Flip and Coordinates have buttons as well as keys."""
    from client.scenes.replay import ReplayScene

    line = ["e2e4", "d7d5", "e4d5", "d8d5", "b1c3", "d5e5", "g1e2"]
    scene = ReplayScene(ui.app, "chess", None, None, line, {"first": "Ann", "second": "Ben"})
    ui.app.push(scene)
    ui.key(pygame.K_LEFT)
    assert scene.index == 6 and scene.highlight() == ("e1",)
    ui.shoot("replay-chess-check")
    ui.key(pygame.K_RIGHT)
    assert scene.highlight() == ()
    actions = {b.action: b for b in scene.buttons}
    assert {"flip", "coords", "close", "home", "back", "forward", "end"} <= set(actions)
    assert scene.view is not None
    e1 = scene.view.pixel_of("e1")
    ui.click(actions["flip"].rect.center)
    assert scene.view.pixel_of("e1") != e1
    ui.click(actions["coords"].rect.center)
    assert not scene.coordinates and actions["coords"].label == "Coords off"
    ui.key(pygame.K_ESCAPE)

    engine = engines.get("hexgomoku")
    state, moves = engine.start(None), []
    for move in ["0,0", "0,3", "1,0", "1,3", "2,0", "2,3", "3,0", "3,3", "4,0"]:
        state = engine.play(state, move)
        moves.append(move)
    outcome = engine.outcome(state)
    assert outcome is not None
    five = ReplayScene(ui.app, "hexgomoku", None, None, moves, {})
    ui.app.push(five)
    assert set(five.highlight()) == {"0,0", "1,0", "2,0", "3,0", "4,0"}
    ui.shoot("replay-hexgomoku-five")
    ui.key(pygame.K_LEFT)
    assert five.highlight() == ()


def test_chat_hint_fits_who_is_typing(ui: Any) -> None:
    """A player is told how to type a move in the game's notation; a spectator is not."""
    from client.scenes.room import chat_hint

    room = open_room(ui, demo_room("draughts", plies=2))
    assert "/32-28" in room.chat_field.placeholder
    watcher = open_room(ui, demo_room("draughts", plies=2, you=None, room="W1"))
    assert watcher.chat_field.placeholder == "Enter: chat with the other spectators  ·  B: mute"
    assert "/" not in chat_hint("chess", True, over=True)


def test_connection_notice_keeps_clear_of_buttons_and_messages(ui: Any) -> None:
    """While reconnecting, the notice sits over the side panel's header, over no square of the
    board: no button is covered; room messages go beside the board, over no piece and clear of
    the notice."""
    from client.net import NetEvent
    from client.scenes.room import MESSAGE_RECT

    room = open_room(ui, demo_room("chess", plies=4))
    ui.app.dispatch_net(NetEvent("reconnecting", text="Connection lost; reconnecting…"))
    ui.message({"type": "presence", "room": "K7QD", "seat": "second", "connected": False,
                "spectators": 2})
    assert room.message and ui.app.notice
    notice, _ = ui.app.notice_box()
    assert not BOARD.colliderect(notice)
    assert not [b.action for b in room.buttons() if b.rect.colliderect(notice)]
    assert not MESSAGE_RECT.colliderect(BOARD) and not MESSAGE_RECT.colliderect(notice)
    assert not [b.action for b in room.buttons() if b.rect.colliderect(MESSAGE_RECT)]
    frame = ui.shoot("room-chess-reconnecting")
    assert frame.get_at(notice.center)[:3] != frame.get_at((notice.centerx, notice.bottom + 30))[:3]
    assert frame.get_at((MESSAGE_RECT.left, MESSAGE_RECT.centery))[:3] == room.message_color


def test_claim_time_applies_to_an_absent_opponent_or_a_clock_at_zero(ui: Any) -> None:
    """Untimed with the opponent here: nothing to claim; away: it applies. Timed: only once the
    opponent's running clock reads zero (before that the server could only refuse)."""
    snapshot = demo_room("chess", plies=2, room="UT1")
    snapshot["clock"], snapshot["clocks"] = {}, {}
    room = open_room(ui, snapshot)
    assert not button(room, "timeout").enabled
    ui.message({"type": "presence", "room": "UT1", "seat": "second", "connected": False,
                "spectators": 0})
    ui.app.step(0.0)
    assert button(room, "timeout").enabled
    snapshot = demo_room("chess", plies=2, room="TT1", you="second")  # first (White) to move
    snapshot["clocks"]["first"] = 1_500
    timed_room = open_room(ui, snapshot)
    ui.app.step(0.0)
    assert not button(timed_room, "timeout").enabled, "1.5 s left: nothing to claim yet"
    ui.clock.now += 1.6
    ui.app.step(0.0)
    assert button(timed_room, "timeout").enabled, "the opponent's clock reads 0:00"
    mine = demo_room("chess", plies=2, room="TT2")  # our own clock at zero: not a claim
    mine["clocks"]["first"] = 0
    own_room = open_room(ui, mine)
    ui.app.step(0.0)
    assert not button(own_room, "timeout").enabled
    per_move = demo_room("shuqi", plies=2, room="TT3", you="second")
    per_move["clocks"]["move"] = 0
    shuqi_room = open_room(ui, per_move)
    ui.app.step(0.0)
    assert button(shuqi_room, "timeout").enabled, "the per-move limit is up"


def test_game_ending_actions_ask_twice_and_forget_when_late(ui: Any) -> None:
    """Resign needs a second press within a few seconds; a late second press or another action
    in between starts over; the question is shown near the board."""
    from client.scenes.room import CONFIRM_SECONDS

    room = open_room(ui, demo_room("chess", plies=4))
    ui.key(pygame.K_r)
    assert not ui.sent("resign") and "again" in room.message
    ui.shoot("room-chess-confirm-resign")
    ui.clock.now += CONFIRM_SECONDS + 0.1
    ui.key(pygame.K_r)
    assert not ui.sent("resign"), "a late second press only asks again"
    ui.key(pygame.K_f)
    ui.key(pygame.K_r)
    assert not ui.sent("resign"), "another action in between forgets the question"
    ui.key(pygame.K_r)
    assert len(ui.sent("resign")) == 1


def test_result_panel_comes_back_after_closing(ui: Any) -> None:
    """Esc closes the result panel to look at the board; G (or the Result button) brings it back
    with its Replay; every button stays inside the window, also with number chess's fourteen."""
    from client.scenes.replay import ReplayScene

    room = open_room(ui, demo_room("shuqi", plies=4))
    assert not button(room, "result").enabled
    ui.message({"type": "over", "room": "K7QD", "game_id": "g-demo-1", "result": "first",
                "reason": "stop", "scores": {"first": 30, "second": 12}, "position": "?"})
    assert isinstance(ui.app.top, ResultPanel)
    ui.key(pygame.K_ESCAPE)
    ui.app.step(0.0)
    assert ui.app.top is room and button(room, "result").enabled
    ui.shoot("room-shuqi-over-closed")
    ui.key(pygame.K_g)
    panel = ui.app.top
    assert isinstance(panel, ResultPanel)
    ui.key(pygame.K_p)
    assert isinstance(ui.app.top, ReplayScene)
    window = pygame.Rect(0, 0, 1280, 800)
    assert all(window.contains(b.rect) for b in room.buttons())
    assert len(room.buttons()) == 15  # three full rows of five


def test_a_report_half_asked_when_the_game_ends_leaves_p_to_the_result_panel(ui: Any) -> None:
    """Number chess: P once asks "Report a rule break? Press P ... again"; the game ends before
    the second press (the opponent calls stop). The question goes with the game, so nothing
    on screen still says P reports: on the result panel P is Replay (and reports nothing), and
    back in the finished room P does nothing."""
    from client.scenes.replay import ReplayScene

    room = open_room(ui, demo_room("shuqi", position=REPORT_NOW, plies=0, room="SQ9"))
    ui.key(pygame.K_p)
    assert room.message == CONFIRM["report"]
    ui.message({"type": "over", "room": "SQ9", "game_id": room.model.game_id, "result": "second",
                "reason": "stop", "scores": {"first": 12, "second": 30}, "position": "?"})
    assert isinstance(ui.app.top, ResultPanel)
    ui.shoot("room-shuqi-report-asked-then-over")
    assert "Press P" not in room.message, room.message
    ui.key(pygame.K_p)
    assert isinstance(ui.app.top, ReplayScene) and not ui.sent("report")
    ui.key(pygame.K_ESCAPE)
    ui.app.step(0.0)
    assert ui.app.top is room
    ui.key(pygame.K_p)
    assert ui.app.top is room and not ui.sent("report") and "Press P" not in room.message


def test_a_spectator_takes_a_free_seat(ui: Any) -> None:
    """Watching a room that waits for a player, J (or Take seat) joins it as the player."""
    snapshot = demo_room("hexgomoku", plies=0, you=None, room="SIT1")
    snapshot.update(status="waiting")
    snapshot["seats"]["second"] = None
    room = open_room(ui, snapshot)
    assert button(room, "sit").enabled
    ui.key(pygame.K_j)
    join = ui.sent("join")[-1]
    assert (join["room"], join["role"]) == ("SIT1", "player")


def test_running_clock_redraws_as_it_counts_down(ui: Any) -> None:
    """With no message arriving, the running clock's face changes as local time passes (a new
    frame is drawn for it), down to tenths under ten seconds; the waiting clock stays put."""
    from client.ui import draw

    snapshot = demo_room("chess", plies=3, room="CLK1")  # second has moved: its clock runs
    snapshot["clocks"].update(first=300_000, second=12_000, running="second")
    room = open_room(ui, snapshot)

    def faces() -> list[str]:
        with draw.collect_text() as texts:
            room.draw(ui.app.surface)
        return [t.value for t in texts if t.size == 28]

    assert faces() == ["0:12", "5:00"]  # opponent (second) on top, running
    ui.app.step(0.0)
    ui.clock.now += 1.0
    assert ui.app.step(0.0), "a frame is drawn when the clock's face changes"
    assert faces() == ["0:11", "5:00"]
    ui.clock.now += 1.5
    ui.app.step(0.0)
    assert faces() == ["9.5", "5:00"]
    ui.clock.now += 0.1
    assert ui.app.step(0.0)
    assert faces() == ["9.4", "5:00"]
    assert not ui.app.step(0.0), "nothing to redraw while the face is the same"
