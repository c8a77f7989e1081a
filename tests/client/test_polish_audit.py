"""Small room and replay defects: a draughts capture note that outlived its capture, the replay
of a game sat second shown the other way up, and a hot-seat status whose colour alternated."""

from __future__ import annotations

import shutil
from typing import Any

import pygame

import engines
from client.demo import demo_room
from client.scenes.replay import ReplayScene
from client.scenes.result import ResultPanel
from client.ui import draw, theme
from tests.client.helpers import StubConnection
from tests.client.window_tools import POLISH

TWO_PATHS = "W:W39:B21,31,32,33,40,42,43"
"""White's man on 39 takes four by two paths that both end on 17 (via 28 or via 48)."""


def shoot(ui: Any, name: str) -> None:
    """Save the frame under /tmp/polish too (for looking at)."""
    ui.shoot(name)
    POLISH.mkdir(parents=True, exist_ok=True)
    shutil.copy(ui.tmp_path / f"{name}.png", POLISH / f"{name}.png")


def test_the_several_captures_note_goes_when_the_capture_is_played(ui: Any) -> None:
    engine = engines.get("draughts")
    state = engine.start("international", position=TWO_PATHS)
    assert {"39x28x37x26x17", "39x48x37x26x17"} <= set(engine.legal_moves(state))
    snapshot = demo_room("draughts", "international", plies=0, room="DN1")
    snapshot.update(start=TWO_PATHS, position=TWO_PATHS, moves=[], turn="first")
    room = ui.open_room(snapshot)
    assert room.view is not None
    ui.click(room.view.pixel_of("39"))
    ui.click(room.view.pixel_of("17"))
    assert room.message.startswith("Several captures end there")
    shoot(ui, "draughts-several-captures-note")
    for square in ("28", "37", "26", "17"):
        ui.click(room.view.pixel_of(square))
    assert [m["move"] for m in ui.sent("move")] == ["39x28x37x26x17"]
    assert "Several captures" not in room.message, "the note outlived the capture it was about"
    ui.clock.now += 0.5
    after = engine.play(state, "39x28x37x26x17")
    ui.message({"type": "moved", "room": "DN1", "game_id": "g-demo-1", "ply": 0, "by": "first",
                "move": "39x28x37x26x17", "position": engine.position(after), "turn": "second",
                "clocks": snapshot["clocks"]})
    ui.app.step(0.1)
    assert "Several captures" not in room.message
    with draw.collect_text() as texts:
        ui.app.render()
    assert not any("Several captures" in t.value for t in texts)
    shoot(ui, "draughts-capture-played")


def test_a_note_for_another_click_stays_until_its_time(ui: Any) -> None:
    """Only the pick's own note goes with the move: a message from the server stays."""
    room = ui.open_room(demo_room("chess", plies=0, room="DN2"))
    room.say("Bob has joined.")
    assert room.view is not None
    ui.click(room.view.pixel_of("e2"))
    ui.click(room.view.pixel_of("e4"))
    assert ui.sent("move") and room.message == "Bob has joined."


def _finish_sat_second(ui: Any, room_id: str) -> Any:
    room = ui.open_room(demo_room("chess", plies=4, you="second", room=room_id))
    assert room.view is not None and room.view.flipped
    ui.message({"type": "over", "room": room_id, "game_id": "g-demo-1", "result": "second",
                "reason": "resign", "position": "?"})
    assert isinstance(ui.app.top, ResultPanel)
    return room


def test_replay_from_the_result_panel_keeps_the_side_the_player_sat(ui: Any) -> None:
    room = _finish_sat_second(ui, "RO1")
    ui.key(pygame.K_p)
    replay = ui.app.top
    assert isinstance(replay, ReplayScene) and replay.view is not None
    assert replay.view.flipped, "Black sat at the bottom in the room; the replay turned it"
    assert replay.view.pixel_of("e8")[1] > replay.view.pixel_of("e1")[1]
    shoot(ui, "replay-sat-second")
    ui.key(pygame.K_f)  # the replay's own Flip still turns it
    assert not replay.view.flipped
    assert room.view is not None and room.view.flipped


def test_replay_keeps_a_board_the_player_flipped_in_the_room(ui: Any) -> None:
    room = ui.open_room(demo_room("chess", plies=4, room="RO2"))
    ui.key(pygame.K_f)
    assert room.view is not None and room.view.flipped
    ui.message({"type": "over", "room": "RO2", "game_id": "g-demo-1", "result": "first",
                "reason": "resign", "position": "?"})
    ui.key(pygame.K_p)
    replay = ui.app.top
    assert isinstance(replay, ReplayScene) and replay.view is not None and replay.view.flipped


def test_hot_seat_status_has_one_colour_whoever_is_to_move(ui: Any) -> None:
    engine = engines.get("chess")
    snapshot = demo_room("chess", plies=0, room="HS2")
    snapshot["seats"]["first"]["name"], snapshot["seats"]["second"]["name"] = (
        "Player 1", "Player 2")
    room = ui.open_room(snapshot)
    ui.app.seat_connections = {"first": StubConnection(), "second": StubConnection()}
    state = engine.start()
    colours = {}
    for ply, move in enumerate(["e2e4", "e7e5", "g1f3"]):
        with draw.collect_text() as texts:
            ui.app.render()
        status = next(t for t in texts if t.value.endswith(" to move"))
        colours[status.value] = status.color
        shoot(ui, f"hot-seat-status-{ply}")
        state = engine.play(state, move)
        ui.message({"type": "moved", "room": "HS2", "game_id": "g-demo-1", "ply": ply,
                    "by": room.model.turn, "move": move, "position": engine.position(state),
                    "turn": state.turn, "clocks": snapshot["clocks"]})
        ui.app.step(0.016)
    assert set(colours) == {"Player 1 to move", "Player 2 to move"}
    assert set(colours.values()) == {theme.GOOD}, colours
