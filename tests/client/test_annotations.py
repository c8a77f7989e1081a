"""The checked king and the captured pieces: computed from engine states, shown in the room."""

from __future__ import annotations

from typing import Any

import pygame

import engines
from client.annotations import (
    CaptureTracker,
    check_squares,
    material_edge,
    taken,
    threatened_captains,
)
from client.boards import make_view
from client.demo import demo_room
from client.scenes.room import RoomScene

CHECK_LINE = ["e2e4", "d7d5", "e4d5", "d8d5", "b1c3", "d5e5"]
"""1. e4 d5 2. exd5 Qxd5 3. Nc3 Qe5+ : White's king on e1 is in check, one pawn each taken."""


def room_after(ui: Any, game: str, moves: list[str], variant: str | None = None,
               you: str | None = "first", code: str = "K7QD") -> RoomScene:
    """The app with a room of ``game`` after ``moves`` open (through the lobby, as a user)."""
    snapshot = demo_room(game, variant, plies=0, you=you, room=code)
    engine = engines.get(game)
    state = engine.start(snapshot["variant"], position=snapshot["start"])
    for move in moves:
        state = engine.play(state, move)
    snapshot.update(moves=list(moves), turn=state.turn)
    snapshot["clocks"]["running"] = state.turn
    room: RoomScene = ui.open_room(snapshot)
    return room


def states(game: str, moves: list[str], variant: str | None = None,
           position: str | None = None) -> list[Any]:
    """The engine states of a game: the start, then one after each move."""
    engine = engines.get(game)
    history = [engine.start(variant, position=position)]
    for move in moves:
        history.append(engine.play(history[-1], move))
    return history


def track(game: str, moves: list[str], variant: str | None = None) -> CaptureTracker:
    """A tracker that followed ``moves`` one at a time (as the room does while playing)."""
    view, tracker = make_view(game, variant), CaptureTracker()
    history = states(game, moves, variant)
    for n in range(1, len(history) + 1):
        tracker.update(view, (game, variant), history[:n])
    return tracker


def test_check_squares_names_the_checked_king_only_in_chess() -> None:
    """Check is read from the position: the side to move's king, nothing otherwise."""
    engine = engines.get("chess")
    state = engine.start(None)
    for move in CHECK_LINE:
        state = engine.play(state, move)
    assert check_squares("chess", engine.position(state)) == ("e1",)
    state = engine.play(state, "g1e2")
    assert check_squares("chess", engine.position(state)) == ()
    assert check_squares("draughts", "W:W31-50:B1-20") == ()
    assert check_squares("chess", "not a fen") == ()
    assert check_squares("chess", None) == ()


def test_taken_counts_only_the_opponents_vanished_pieces() -> None:
    """A promotion changes the mover's pieces and is not a capture; two equal men both count."""
    before = {"a": ("first", "P"), "b": ("second", "p"), "c": ("second", "p"), "d": (None, "3")}
    after = {"a2": ("first", "Q"), "d": (None, "3")}
    assert taken(before, after, "first") == ["p", "p"]
    assert taken(before, before, "first") == []
    assert taken(before, {"b": ("second", "p")}, "second") == ["3", "P"]


def test_chess_captures_en_passant_and_promotion() -> None:
    """En passant takes the passed pawn; a capture-promotion takes the rook, not a pawn."""
    line = ["e2e4", "a7a6", "e4e5", "d7d5", "e5d6", "a6a5", "d6c7", "a5a4", "c7b8q"]
    tracker = track("chess", line)
    assert tracker.captured == {"first": ["p", "p", "n"], "second": []}
    assert material_edge("chess", tracker.pieces) == {"first": 3 + 1 + 1 + 8}


def test_incremental_and_full_replay_agree_and_undo_recomputes() -> None:
    """Following move by move, jumping in with a snapshot, and taking a move back all agree."""
    view = make_view("chess")
    stepped = track("chess", CHECK_LINE)
    jumped = CaptureTracker()
    jumped.update(view, ("chess", None), states("chess", CHECK_LINE))
    assert stepped.captured == jumped.captured == {"first": ["p"], "second": ["P"]}
    jumped.update(view, ("chess", None), states("chess", CHECK_LINE[:3]))
    assert jumped.captured == {"first": ["p"], "second": []}
    jumped.update(view, ("chess", "rematch"), states("chess", []))
    assert jumped.captured == {"first": [], "second": []}


def test_a_position_the_renderer_cannot_read_keeps_what_is_known() -> None:
    """A state the renderer cannot read stops the count without an exception."""
    view, tracker = make_view("chess"), CaptureTracker()
    history = states("chess", ["e2e4", "d7d5", "e4d5"])
    tracker.update(view, ("chess",), [*history, "not a position"])
    assert tracker.captured == {"first": ["p"], "second": []}
    tracker.update(view, ("chess",), [])
    assert tracker.captured == {"first": [], "second": []}


def test_draughts_multi_capture_counts_every_man() -> None:
    """A triple capture in draughts takes three men."""
    engine = engines.get("draughts")
    start = "W:W33:B28,17,K7"
    assert engine.legal_moves(engine.start("international", position=start)) == ["33x2"]
    tracker = CaptureTracker()
    tracker.update(make_view("draughts", "international"), ("draughts",),
                   states("draughts", ["33x2"], "international", start))
    assert sorted(tracker.captured["first"]) == ["B", "b", "b"]


def test_custom_pieces_have_owners_and_icons() -> None:
    """Custom pieces map to seats by side (red first); every piece type has an icon."""
    engine = engines.get("custom")
    view = make_view("custom", "xiangqi", engine.variant_info("xiangqi"))
    pieces = view.pieces_of(engine.start("xiangqi"))
    owners = {owner for owner, _ in pieces.values()}
    assert owners == {"first", "second"}
    for _, code in pieces.values():
        icon = view.piece_icon(code, 24)
        assert icon is not None and 18 <= icon.get_width() <= 40
    assert view.piece_icon("999", 24) is None
    assert make_view("hexgomoku").pieces_of(None) == {}


def test_room_highlights_check_while_playing(ui: Any) -> None:
    """The checked king's square is in the board's highlight during play, gone after a reply."""
    room = room_after(ui, "chess", CHECK_LINE)
    assert room.marks().highlight == ("e1",)
    ui.shoot("room-chess-check")
    engine = engines.get("chess")
    state = room.model.state
    after = engine.play(state, "g1e2")
    ui.message({"type": "moved", "room": room.model.room, "ply": len(CHECK_LINE), "move": "g1e2",
                "by": "first", "position": engine.position(after), "turn": "second",
                "clocks": {"first": 280_000, "second": 260_000, "move": None,
                           "running": "second"}, "lag_ms": 0})
    assert room.marks().highlight == ()


def test_room_card_shows_captured_pieces(ui: Any) -> None:
    """Each player's card shows the pieces they took; a fresh game shows none."""
    room = room_after(ui, "chess", [])
    before = ui.shoot("room-chess-no-captures")
    room = room_after(ui, "chess", CHECK_LINE[:4], code="K7QE")
    after = ui.shoot("room-chess-captures")
    assert room.captures.captured == {"first": ["p"], "second": ["P"]}
    # Both cards: the captured pawn appears right of "online".
    for top in (74, 154):
        strip = pygame.Rect(880, top + 38, 200, 24)
        changed = sum(before.get_at((x, y)) != after.get_at((x, y))
                      for x in range(strip.left, strip.right, 2)
                      for y in range(strip.top, strip.bottom, 2))
        assert changed > 20, f"no captured piece drawn in the card at y={top}"


def test_spectator_sees_captures_and_check(ui: Any) -> None:
    """Watching, the same marks and captures are shown."""
    room = room_after(ui, "chess", CHECK_LINE, you=None)
    assert room.marks().highlight == ("e1",)
    assert room.captures.captured["second"] == ["P"]
    ui.shoot("room-chess-check-spectator")


XIANGQI_CHECK = ["8,2-6,2", "3,8-10,8", "6,2-6,3", "3,2-3,1", "6,3-6,7", "3,1-3,4", "8,8-9,8",
                 "4,1-5,1", "9,8-9,4", "1,8-3,9", "6,7-6,5"]
"""Ends with red's cannon on 6,5 checking blue's general on 1,5 over the soldier on 4,5."""


def test_custom_captain_in_check_is_found_both_ways() -> None:
    """A threatened captain is found by the opponent's moves (guards), and through the engine's
    refusal to hand over the turn with a captain attacked (xiangqi)."""
    engine = engines.get("custom")
    view = make_view("custom", "xiangqi", engine.variant_info("xiangqi"))
    state = states("custom", XIANGQI_CHECK, "xiangqi")[-1]
    assert state.turn == "second" and view.captains_of(state, "second") == {"1,5"}
    assert threatened_captains(engine, "xiangqi", engine.position(state), {"1,5"}) == ("1,5",)
    quiet = states("custom", XIANGQI_CHECK[:-1], "xiangqi")[-1]
    assert threatened_captains(engine, "xiangqi", engine.position(quiet),
                               view.captains_of(quiet, quiet.turn)) == ()
    guards = ["6,4-5,3", "2,2-3,2", "5,1-4,1", "1,4-2,4", "5,6-4,6", "2,4-3,4", "5,3-5,4",
              "2,5-3,5", "5,4-6,4", "3,2-4,2", "6,5-5,4", "2,1-3,1", "6,2-5,3", "1,3-2,4",
              "5,3-4,4", "2,4-1,3", "6,4-5,3", "1,2-2,3", "5,4-4,3"]
    history = states("custom", guards, "guards")
    gview = make_view("custom", "guards", engine.variant_info("guards"))
    before, after = history[-2], history[-1]
    assert threatened_captains(engine, "guards", engine.position(after),
                               gview.captains_of(after, after.turn)) == ("3,4",)
    assert threatened_captains(engine, "guards", engine.position(before),
                               gview.captains_of(before, before.turn)) == ()
    assert threatened_captains(engine, "guards", "nonsense", {"1,1"}) == ()
    assert threatened_captains(engine, "guards", engine.position(after), set()) == ()


def test_room_highlights_a_custom_captain_in_check(ui: Any) -> None:
    """In a custom room, the side to move's threatened captain glows like a checked king."""
    room = room_after(ui, "custom", XIANGQI_CHECK, "xiangqi", you="second")
    assert room.marks().highlight == ("1,5",)
    ui.shoot("room-custom-check")


def test_replay_marks_a_custom_captain_in_check(ui: Any) -> None:
    """Stepping through a custom game, the position with the general in check marks it."""
    from client.scenes.replay import ReplayScene

    engine = engines.get("custom")
    scene = ReplayScene(ui.app, "custom", "xiangqi", None, XIANGQI_CHECK, {},
                        variant_info=engine.variant_info("xiangqi"))
    ui.app.push(scene)
    assert scene.highlight() == ("1,5",)
    ui.key(pygame.K_LEFT)
    assert scene.highlight() == ()


def test_replay_shows_what_each_side_took_so_far(ui: Any) -> None:
    """Stepping back in a replay takes the captures back too."""
    from client.scenes.replay import ReplayScene

    scene = ReplayScene(ui.app, "chess", None, None, CHECK_LINE, {"first": "Ann", "second": "Ben"})
    ui.app.push(scene)
    ui.shoot("replay-chess-captures")
    assert scene.captures.captured == {"first": ["p"], "second": ["P"]}
    ui.key(pygame.K_LEFT)
    ui.key(pygame.K_LEFT)
    ui.key(pygame.K_LEFT)
    ui.app.step(0.0)
    assert scene.captures.captured == {"first": ["p"], "second": []}
    ui.key(pygame.K_HOME)
    ui.app.step(0.0)
    assert scene.captures.captured == {"first": [], "second": []}
