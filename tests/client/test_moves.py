"""Clicks to moves, using the real engines' legal moves."""

from __future__ import annotations

import engines
from client.moves import MovePicker, legal_shapes, points_of, shape


def picker_for(game: str, position: str | None = None, variant: str | None = None) -> MovePicker:
    """A picker over the legal moves of a real position."""
    engine = engines.get(game)
    state = engine.start(variant, position=position)
    return MovePicker(game, legal_shapes(game, engine, state))


def test_shapes_of_each_notation() -> None:
    """Each game's canonical strings split into origin, path and suffix."""
    assert shape("hexgomoku", "-3,7").origin is None
    assert shape("chess", "e7e8q").suffix == "q"
    assert shape("draughts", "28x19x10").path == ("19", "10")
    assert shape("shuqi", "13,8-10,5=6+3").target == "10,5"
    assert shape("custom", "7,2-6,2").origin == "7,2"
    assert points_of("chess", "e2e4") == ("e2", "e4")
    assert points_of("hexgomoku", None) == ()


def test_hexgomoku_places_on_empty_points_only() -> None:
    """A click on an empty point sends it; an occupied point is refused with a reason."""
    picker = picker_for("hexgomoku", "second;0,0;")
    assert picker.placement
    assert picker.click("1,0").kind == "send"
    refused = picker.click("0,0")
    assert refused.kind == "illegal" and "0,0" in refused.message


def test_chess_select_then_target() -> None:
    """e2 then e4 sends e2e4; a click on a piece without moves explains."""
    picker = picker_for("chess")
    assert picker.click("e2").kind == "select"
    assert picker.targets() == {"e3", "e4"}
    assert picker.click("e4").moves == ["e2e4"]
    assert picker.click("e1").kind == "illegal"


def test_chess_promotion_asks_which_piece() -> None:
    """A pawn reaching the last rank offers the four promotions."""
    picker = picker_for("chess", "8/P7/8/8/8/8/8/k6K w - - 0 1")
    picker.click("a7")
    pick = picker.click("a8")
    assert pick.kind == "choose"
    assert sorted(pick.moves) == ["a7a8b", "a7a8n", "a7a8q", "a7a8r"]


def test_draughts_multi_capture_by_landing_squares() -> None:
    """35 -> 24 -> 13 by clicking each landing square, or the end square at once."""
    picker = picker_for("draughts", "W:W35:B19,30,1")
    assert picker.click("35").kind == "select"
    assert {"24", "13"} <= picker.targets()
    assert picker.click("24").kind == "pending"
    assert picker.targets() == {"13"}
    assert picker.click("13").moves == ["35x13"]
    picker.click("35")
    assert picker.click("13").moves == ["35x13"]


def test_shuqi_span_asks_for_an_expression() -> None:
    """A span opens the expression dialog with a valid expression as the hint."""
    picker = picker_for("shuqi")
    assert picker.click("13,8").kind == "select"
    pick = picker.click("10,5")
    assert pick.kind == "expression"
    body, _, expression = pick.moves[0].partition("=")
    assert body == "13,8-10,5" and sorted(expression.replace("+", "")) == ["3", "6"]


def test_clicking_outside_clears_the_selection() -> None:
    """None (outside the board) forgets the selected piece."""
    picker = picker_for("chess")
    picker.click("g1")
    assert picker.selected == "g1"
    assert picker.click(None).kind == "none"
    assert picker.selected is None


def test_draughts_selection_survives_clicks_that_mean_nothing() -> None:
    """Another movable man re-selects; a stuck own man keeps the selection and says why (a
    capture is compulsory); a wrong square halfway through a capture keeps the path."""
    picker = picker_for("draughts", "W:W35,45:B19,30,1")
    picker.own = frozenset({"35", "45"})
    assert picker.click("35").kind == "select"
    stuck = picker.click("45")
    assert stuck.kind == "illegal" and "compulsory" in stuck.message
    assert picker.selected == "35"
    assert picker.click("24").kind == "pending"
    wrong = picker.click("40")
    assert wrong.kind == "illegal" and "13" in wrong.message
    assert picker.selected == "35" and picker.partial == ["24"]
    assert picker.click("13").moves == ["35x13"]
    quiet = picker_for("draughts", None)
    quiet.own = frozenset(str(n) for n in range(31, 51))
    assert quiet.click("32").kind == "select"
    assert quiet.click("33").kind == "select" and quiet.selected == "33"
    assert quiet.click("45").kind == "illegal" and quiet.selected == "33"
    assert quiet.click("25").kind == "none" and quiet.selected is None


def test_chess_king_onto_its_rook_castles() -> None:
    """With the king selected, its rook's square is a target that castles on that side (lichess's
    "either" castling method); the rook still moves when picked on its own."""
    picker = picker_for("chess", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    picker.click("e1")
    assert {"g1", "h1", "c1", "a1"} <= picker.targets()
    assert (picker.click("h1").moves, picker.click("e1").kind) == (["e1g1"], "select")
    assert picker.click("a1").moves == ["e1c1"]
    assert picker.click("h1").kind == "select" and "h4" in picker.targets()
    without = picker_for("chess", "r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1")  # no short castling
    without.click("e1")
    assert "h1" not in without.targets() and "a1" in without.targets()
