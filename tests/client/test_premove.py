"""The premove model (client/premove.py): which moves may be premoved, how clicks enter one, and
whether it is still legal once the opponent has moved. Pure: engines only, no window."""

from __future__ import annotations

from pathlib import Path

import pytest

import engines
from client.config import Config
from client.moves import MoveShape
from client.premove import (
    PREMOVE_CANCELLED,
    PREMOVE_GAMES,
    Premoves,
    Settled,
    premove_shapes,
    resolve,
    settle,
)

CHESS_AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
BISHOP_EYES_F2 = "rnbqk1nr/pppp1ppp/8/2b1p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 3"
"""Black to move; Bxf2+ is possible, after which White's king takes back on f2."""
PAWN_ON_E7 = "8/4P3/8/8/8/k7/8/K7 b - - 0 1"
DOUBLE_CAPTURE = "B:W30:B16,19,23"
"""Black to move: after 19-24, White's man on 30 must take two, 30x19x28 (over 24 and 23)."""
ONE_OR_MORE = "B:W30,35:B14,18,24"
"""Black to move. White's man on 30 takes one after 14-20 (30x19, over 24), must take two after
18-22 (30x19x10, on over 14) and after 18-23 (two ways on from 19: over 14 to 10, over 23 to 28),
and cannot take at all after 14-19."""


def state_of(game: str, position: str | None = None, variant: str | None = None) -> object:
    return engines.get(game).start(variant, position=position)


def keys(shapes: list[MoveShape]) -> set[tuple[str | None, tuple[str, ...], str]]:
    return {(s.origin, s.path, s.suffix) for s in shapes}


def ready(game: str, position: str | None = None, variant: str | None = None) -> Premoves:
    """A premove model for ``game`` at ``position`` (the opponent to move)."""
    premoves = Premoves()
    state = state_of(game, position, variant)
    premoves.prepare(("k", position), game, engines.get(game), state)
    return premoves


def test_chess_offers_what_can_be_legal_after_some_reply() -> None:
    """A move legal after one of the opponent's replies is offered, even onto a square our own
    piece holds now (the king takes back on f2); one no reply can make legal is not."""
    shapes = keys(premove_shapes("chess", engines.get("chess"), state_of("chess", BISHOP_EYES_F2)))
    assert ("e1", ("f2",), "") in shapes  # Kxf2 after ...Bxf2+: f2 holds our pawn now
    assert ("d2", ("d4",), "") in shapes
    assert ("a1", ("a3",), "") not in shapes  # our own pawn on a2 stays in the way
    assert ("e1", ("g1",), "") not in shapes  # the bishop on f1 cannot leave in Black's move


def test_chess_premove_is_sent_only_when_legal_after_the_reply() -> None:
    """e4-e5 is still legal after ...d5, not after ...e5: resolve gives its text, or None."""
    engine = engines.get("chess")
    state = state_of("chess", CHESS_AFTER_E4)
    push = MoveShape("e4e5", "e4", ("e5",))
    assert ("e4", ("e5",), "") in keys(premove_shapes("chess", engine, state))
    assert resolve("chess", engine, engine.play(state, "d7d5"), push) == "e4e5"
    assert resolve("chess", engine, engine.play(state, "e7e5"), push) is None


def test_promotion_premove_queens_by_default() -> None:
    """A pawn dropped on the last rank is a premove at once, promoting to a queen."""
    premoves = ready("chess", PAWN_ON_E7)
    assert premoves.click("e7").kind == "select"
    pick = premoves.click("e8")
    assert pick.kind == "choose"
    assert premoves.move is not None and premoves.move.suffix == "q"
    assert premoves.points() == ("e7", "e8")
    premoves.promote("n")
    assert premoves.move.suffix == "n"


def test_click_click_sets_replaces_and_an_empty_square_cancels() -> None:
    premoves = ready("chess", CHESS_AFTER_E4)
    premoves.click("d2")
    assert premoves.click("d4").kind == "send"
    assert premoves.points() == ("d2", "d4")
    premoves.click("g1")
    premoves.click("f3")
    assert premoves.points() == ("g1", "f3")  # one premove at a time: the new one replaces it
    premoves.click("g1")
    premoves.click("g1")  # the piece clicked again: put down, the premove stays
    assert premoves.points() == ("g1", "f3") and premoves.picker.selected is None
    premoves.click("d5")  # an empty square
    assert premoves.move is None and premoves.points() == ()


def test_clicking_the_opponents_piece_or_off_the_board_cancels() -> None:
    premoves = ready("chess", CHESS_AFTER_E4)
    premoves.click("d2")
    premoves.click("d4")
    premoves.click("d7")
    assert premoves.move is None
    premoves.click("d2")
    premoves.click("d4")
    premoves.click(None)
    assert premoves.move is None


def test_draughts_multi_capture_is_entered_as_a_path() -> None:
    """The path 30, 19, 28 is entered square by square; the premove is played only when the
    reply allows that very path."""
    engine = engines.get("draughts")
    state = state_of("draughts", DOUBLE_CAPTURE)
    premoves = ready("draughts", DOUBLE_CAPTURE)
    assert premoves.click("30").kind == "select"
    assert premoves.click("19").kind == "pending"
    assert premoves.click("28").kind == "send"
    assert premoves.points() == ("30", "19", "28")
    move = premoves.move
    assert move is not None
    assert resolve("draughts", engine, engine.play(state, "19-24"), move) == "30x28"
    assert resolve("draughts", engine, engine.play(state, "23-28"), move) is None


def enter_30x19() -> Premoves:
    """White's premove 30x19 in :data:`ONE_OR_MORE`: 19 is clicked twice, as a capture that may
    go on is ended where it lands."""
    premoves = ready("draughts", ONE_OR_MORE)
    assert premoves.click("30").kind == "select"
    assert premoves.click("19").kind == "pending"  # 30x19 ends there, the longer ones go on
    assert premoves.click("19").kind == "send"
    assert premoves.points() == ("30", "19")
    return premoves


@pytest.mark.parametrize(("reply", "settled"), [
    ("14-20", Settled("30x19", "")),  # legal as entered: played as entered
    ("18-22", Settled("30x10", "Premove played as 30x19x10: the longer capture is compulsory.")),
    ("18-23", Settled(None, "Premove cancelled: a longer capture is compulsory, and it goes on "
                            "from 19 in more than one way.")),
    ("14-19", Settled(None, PREMOVE_CANCELLED)),  # no capture at all now
])
def test_a_draughts_capture_premove_grows_to_the_one_longer_capture_now_compulsory(
        reply: str, settled: Settled) -> None:
    """Majority capture: when the opponent's move makes a longer capture compulsory and the
    entered path begins exactly one of the legal captures, the premove becomes that capture;
    when it begins several, it is dropped saying why; an illegal one is dropped as ever."""
    engine = engines.get("draughts")
    after = engine.play(state_of("draughts", ONE_OR_MORE), reply)
    premoves = enter_30x19()
    move = premoves.move
    assert move is not None
    assert settle("draughts", engine, after, move) == settled
    assert premoves.take("draughts", engine, after) == settled
    assert premoves.move is None
    assert resolve("draughts", engine, after, move) == settled.text


def test_a_premoved_step_is_dropped_when_a_capture_becomes_compulsory() -> None:
    """A step (30-25) entered while a reply may make a capture compulsory is dropped with the
    usual notice when it does."""
    engine = engines.get("draughts")
    premoves = ready("draughts", ONE_OR_MORE)
    premoves.click("30")
    premoves.click("25")
    assert premoves.points() == ("30", "25")
    after = engine.play(state_of("draughts", ONE_OR_MORE), "18-22")
    assert premoves.take("draughts", engine, after) == Settled(None, PREMOVE_CANCELLED)


def test_hexgomoku_offers_every_free_point() -> None:
    engine = engines.get("hexgomoku")
    state = engine.play(engine.start(None), "0,0")
    shapes = premove_shapes("hexgomoku", engine, state)
    assert {s.target for s in shapes} == set(engine.legal_moves(state))
    assert "0,0" not in {s.target for s in shapes}
    premoves = ready("hexgomoku", "second;0,0;")
    assert premoves.click("1,0").kind == "send" and premoves.points() == ("1,0",)
    assert premoves.click("0,0").kind == "illegal" and premoves.move is None  # a stone is there
    point = MoveShape("1,0", None, ("1,0",))
    assert resolve("hexgomoku", engine, engine.play(state, "2,0"), point) == "1,0"
    assert resolve("hexgomoku", engine, engine.play(state, "1,0"), point) is None


def test_custom_variant_has_premoves() -> None:
    engine = engines.get("custom")
    variant = engine.default_variant()
    start = engine.start(variant)
    state = engine.play(start, engine.legal_moves(start)[0])
    shapes = premove_shapes("custom", engine, state)
    assert shapes and all(s.origin is not None for s in shapes)
    reply = engine.legal_moves(state)[0]
    after = engine.play(state, reply)
    legal_now = engine.legal_moves(after)
    assert any(resolve("custom", engine, after, s) == s.text for s in shapes
               if s.text in legal_now)


def test_number_chess_has_none() -> None:
    assert "shuqi" not in PREMOVE_GAMES
    assert {"chess", "draughts", "hexgomoku", "custom"} <= PREMOVE_GAMES
    engine = engines.get("shuqi")
    assert premove_shapes("shuqi", engine, engine.start(None)) == []


def test_a_new_position_forgets_the_selection_and_clear_forgets_the_premove() -> None:
    premoves = ready("chess", CHESS_AFTER_E4)
    premoves.click("d2")
    premoves.click("d4")
    premoves.click("g1")
    engine = engines.get("chess")
    premoves.prepare(("other",), "chess", engine, state_of("chess", BISHOP_EYES_F2))
    assert premoves.picker.selected is None and premoves.move is not None
    assert premoves.clear() is True
    assert premoves.move is None and premoves.clear() is False


def test_off_means_no_candidates() -> None:
    premoves = ready("chess", CHESS_AFTER_E4)
    premoves.enabled = False
    premoves.prepare(("again",), "chess", engines.get("chess"), state_of("chess", CHESS_AFTER_E4))
    assert premoves.picker.shapes == []


@pytest.mark.parametrize(("stored", "expected"), [(None, True), (False, False), (True, True),
                                                   ("no", True), (0, True)])
def test_config_keeps_the_premove_setting(tmp_path: Path, stored: object,
                                          expected: bool) -> None:
    """On by default; a value that is not a boolean is ignored (on); off survives a save."""
    import json

    path = tmp_path / "config.json"
    data: dict[str, object] = {"name": "Alice"}
    if stored is not None:
        data["premoves"] = stored
    path.write_text(json.dumps(data))
    config = Config.load(path)
    assert config.premoves is expected and config.problem == ""
    config.premoves = False
    assert config.save()
    assert json.loads(path.read_text())["premoves"] is False
    assert Config.load(path).premoves is False and Config.load(path).name == "Alice"
