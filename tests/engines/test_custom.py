"""Rules of the custom engine (RULES.md section 5), on small variants built in the tests."""

from __future__ import annotations

import dataclasses
import gc
import random
import weakref
from typing import Any

import pytest

from engines.base import BadOption, BadPosition, IllegalMove
from engines.custom import CustomEngine, CustomState


@pytest.fixture
def engine() -> CustomEngine:
    return CustomEngine()


def definition(
    pieces: list[dict[str, Any]],
    layout: list[str],
    vid: str = "t",
    modules: tuple[str, ...] = (),
    **rules: Any,
) -> dict[str, Any]:
    """A variant definition in the file schema."""
    rows = len(layout)
    cols = len(layout[0].split())
    return {
        "id": vid,
        "name": vid,
        "modules": list(modules),
        "board": {"rows": rows, "cols": cols, "layout": layout},
        "rules": rules,
        "pieces": pieces,
    }


KING_R = {"name": "K", "side": "red", "captain": True, "moves": "1,2,3,4,5,6,7,8;"}
KING_B = {"name": "k", "side": "blue", "captain": True, "moves": "1,2,3,4,5,6,7,8;"}


def targets(engine: CustomEngine, state: CustomState, square: str) -> set[str]:
    """Destinations of the legal moves from ``square`` (``r,c``)."""
    return {m.split("-")[1] for m in engine.legal_moves(state) if m.split("-")[0] == square}


def place(vid: str, rows: list[str], turn: str = "first", counters: str = "0,0") -> str:
    """A position string from rows written with spaces."""
    return f"{vid};{turn};{counters};" + "/".join(",".join(r.split()) for r in rows)


# ---- directions and conditions ------------------------------------------------------------------


def test_keypad_directions_are_absolute_for_both_sides(engine: CustomEngine) -> None:
    """Direction 2 is up (towards row 1) for red and blue alike; 1..8 follow the keypad."""
    up = {"name": "U", "side": "red", "moves": "2;"}
    up_b = {"name": "u", "side": "blue", "moves": "2;"}
    allr = {"name": "A", "side": "red", "moves": "1,2,3,4,5,6,7,8;"}
    vid = engine.load_data(
        definition(
            [KING_R, KING_B, up, up_b, allr],
            ["2 . . . .", ". . 5 . .", ". . . 4 .", ". 3 . . .", "1 . . . ."],
        )
    )
    s = engine.start(vid)
    assert targets(engine, s, "4,2") == {"3,2"}
    assert targets(engine, s, "2,3") == {"1,2", "1,3", "1,4", "2,2", "2,4", "3,2", "3,3", "3,4"}
    s = engine.start(vid, position=engine.position(s).replace(";first;", ";second;"))
    assert targets(engine, s, "3,4") == {"2,4"}


def test_slides_stop_at_first_piece_and_capture_only_opponents(engine: CustomEngine) -> None:
    """A slide covers empty squares, may take the first opposing piece, never passes it."""
    rook = {"name": "R", "side": "red", "moves": ";2,5"}
    pawn_b = {"name": "p", "side": "blue", "moves": "7;"}
    pawn_r = {"name": "P", "side": "red", "moves": "2;"}
    vid = engine.load_data(
        definition(
            [KING_R, KING_B, rook, pawn_b, pawn_r],
            ["2 . . . .", ". . 4 . .", ". . . . .", ". . 3 . 5", "1 . . . ."],
        )
    )
    s = engine.start(vid)
    assert targets(engine, s, "4,3") == {"3,3", "2,3", "4,4"}


@pytest.mark.parametrize(
    ("rule", "square", "active"),
    [
        ("2(X[-1]);", "5,3", True),
        ("2(X[-1]);", "4,3", False),
        ("2(X[5]);", "5,3", True),
        ("2(Y[-2]);", "5,4", True),
        ("2(Y[2]);", "5,4", False),
        ("2(P[-1|-3]);", "5,3", True),
        ("2(P[5|3|1|1]);", "5,3", True),
        ("2(P[4|3]);", "5,3", False),
        ("2(X[0]);", "5,3", False),
        ("2(Y[0]);", "5,3", False),
        ("2(X[-6]);", "5,3", False),
        ("2(X[1]&Y[3]);", "5,3", True),
        ("2(X[1]&Y[1]);", "5,3", False),
    ],
)
def test_position_conditions_with_negative_indices_and_or(
    engine: CustomEngine, rule: str, square: str, active: bool
) -> None:
    """X/Y/P count from 1 at the top/left and -1 at the bottom/right; 0 never matches; & is OR."""
    piece = {"name": "Q", "side": "red", "moves": rule}
    r, c = (int(x) for x in square.split(","))
    rows = [["."] * 5 for _ in range(5)]
    rows[0][0] = "2"
    rows[0][4] = "1"
    rows[r - 1][c - 1] = "3"
    vid = engine.load_data(definition([KING_R, KING_B, piece], [" ".join(x) for x in rows]))
    s = engine.start(vid)
    assert targets(engine, s, square) == ({f"{r - 1},{c}"} if active else set())


def conditions_state(engine: CustomEngine, rule: str, extra: str = "") -> CustomState:
    """A 5x5 board: red piece Q (type 3) at 3,3 with ``rule``; marker pieces M (type 4)."""
    piece = {"name": "Q", "side": "red", "moves": rule}
    marker = {"name": "M", "side": "blue", "moves": ";"}
    layout = ["2 . . . .", ". . . . .", ". . 3 . .", ". . . . .", "1 . . . ."]
    if extra:
        layout = extra.split("/")
    vid = engine.load_data(
        definition([KING_R, KING_B, piece, marker], layout, modules=("conditions",))
    )
    return engine.start(vid)


@pytest.mark.parametrize(
    ("rule", "layout", "active"),
    [
        # NP: not on any of the pairs (read like P).
        ("2(NP[3|3]);", "", False),
        ("2(NP[1|1|-3|-2]);", "", True),
        # C[i|m|n]: count of type i (0 = every piece) within m..n.
        ("2(C[4|1|2]);", "2 . . . ./. . . . ./. . 3 . 4/. . . . ./1 . . . .", True),
        ("2(C[4|1|2]);", "", False),
        ("2(C[0|3|3]);", "", True),
        ("2(C[0|4|9]);", "", False),
        # D[i|t|d]: Manhattan distance to the only piece of type i: > (1), = (0), < (-1).
        ("2(D[4|0|3]);", "2 . . . ./. . . . ./. . 3 . ./. . . . 4/1 . . . .", True),
        ("2(D[4|1|3]);", "2 . . . ./. . . . ./. . 3 . ./. . . . 4/1 . . . .", False),
        ("2(D[4|-1|4]);", "2 . . . ./. . . . ./. . 3 . ./. . . . 4/1 . . . .", True),
        ("2(D[4|0|3]);", "2 . . . ./. . . . ./. . 3 . ./4 . . . 4/1 . . . .", False),
        # R: D plus the side where that piece stands (6 = down-left, 8 = down-right, 2 = up).
        ("2(R[4|1|0|8]);", "2 . . . ./. . . . ./. . 3 . ./. . . . 4/1 . . . .", True),
        ("2(R[4|1|0|6|7]);", "2 . . . ./. . . . ./. . 3 . ./. . . . 4/1 . . . .", False),
        ("2(R[4|1|0|2]);", "2 . 4 . ./. . . . ./. . 3 . ./. . . . ./1 . . . .", True),
        ("2(R[4|1|2|2]);", "2 . 4 . ./. . . . ./. . 3 . ./. . . . ./1 . . . .", False),
        # T[i]: NOT exactly one piece of type i.
        ("2(T[4]);", "", True),
        ("2(T[4]);", "2 . . . ./. . . . ./. . 3 . 4/. . . . ./1 . . . .", False),
        ("2(T[4]);", "2 . . . ./. . . . 4/. . 3 . 4/. . . . ./1 . . . .", True),
    ],
)
def test_conditions_module(engine: CustomEngine, rule: str, layout: str, active: bool) -> None:
    """NP, C, D, R, T evaluate like JBQ's extension (see FORMAT.md)."""
    s = conditions_state(engine, rule, layout)
    assert targets(engine, s, "3,3") == ({"2,3"} if active else set())


def test_module_conditions_follow_the_board_during_play(engine: CustomEngine) -> None:
    """A T condition turns on once its piece is captured (dynamic, not precomputed)."""
    piece = {"name": "Q", "side": "red", "moves": "5;2(T[4])"}
    marker = {"name": "M", "side": "blue", "moves": ";"}
    vid = engine.load_data(
        definition(
            [KING_R, KING_B, piece, marker],
            ["2 . . . .", ". . . . .", ". . 3 4 .", ". . . . .", "1 . . . ."],
            modules=("conditions",),
        )
    )
    s = engine.start(vid)
    assert targets(engine, s, "3,3") == {"3,4"}
    s = engine.play(s, "3,3-3,4")
    s = engine.play(s, "1,1-1,2")
    assert targets(engine, s, "3,4") == {"3,5", "2,4", "1,4"}


# ---- neutrals, promotion, captains, results -----------------------------------------------------

NEUTRAL = {"name": "N", "side": "neutral", "moves": "2,4,5,7;"}
ROOK_R = {"name": "R", "side": "red", "moves": ";2,4,5,7"}
ROOK_B = {"name": "r", "side": "blue", "moves": ";2,4,5,7"}


def neutral_variant(engine: CustomEngine, limit: bool = True) -> str:
    return engine.load_data(
        definition(
            [KING_R, KING_B, ROOK_R, ROOK_B, NEUTRAL],
            ["2 . . . 4", ". . . . .", ". . 5 . .", ". . . . .", "1 . . . 3"],
            neutral_limit=limit,
        )
    )


def test_neutral_pieces_block_everyone_and_are_never_captured(engine: CustomEngine) -> None:
    """Rooks stop before a neutral piece; a neutral piece moves only onto empty squares."""
    vid = neutral_variant(engine)
    s = engine.start(
        vid, position=place(vid, ["2 . . . .", ". . . . .", "3 . 5 . 4", ". . 3 . .", "1 . 4 . ."])
    )
    assert "3,3" not in targets(engine, s, "3,1")
    assert "3,3" not in targets(engine, s, "4,3")
    assert targets(engine, s, "3,3") == {"2,3", "3,2", "3,4"}  # never onto the rook at 4,3


def test_neutral_limit_two_consecutive_turns(engine: CustomEngine) -> None:
    """After moving neutrals on 2 own turns in a row, a player may not move one; counters reset."""
    vid = neutral_variant(engine)
    s = engine.start(vid)
    s = engine.play(s, "3,3-2,3")  # red, neutral 1
    s = engine.play(s, "2,3-3,3")  # blue may move it too (blue: 1)
    assert engine.position(s).split(";")[2] == "1,1"
    s = engine.play(s, "3,3-3,2")  # red, neutral 2
    s = engine.play(s, "1,5-2,5")  # blue moves its rook: blue counter back to 0
    assert engine.position(s).split(";")[2] == "2,0"
    assert targets(engine, s, "3,2") == set()
    with pytest.raises(IllegalMove, match="neutral"):
        engine.play(s, "3,2-3,3")
    s = engine.play(s, "5,5-4,5")  # red moves its own piece: red counter resets
    s = engine.play(s, "3,2-3,3")  # blue, neutral 1
    assert engine.position(s).split(";")[2] == "0,1"
    assert targets(engine, s, "3,3")  # red may move it again
    assert engine.position(engine.start(vid)).split(";")[2] == "0,0"  # per game


def test_neutral_counters_round_trip_in_position(engine: CustomEngine) -> None:
    """The counters belong to the state: a position string restores them."""
    vid = neutral_variant(engine)
    text = place(
        vid, ["2 . . . 4", ". . . . .", ". . 5 . .", ". . . . .", "1 . . . 3"], "first", "2,1"
    )
    s = engine.start(vid, position=text)
    assert engine.position(s) == text
    assert targets(engine, s, "3,3") == set()
    unlimited = CustomEngine()
    vid2 = neutral_variant(unlimited, limit=False)
    # Without the limit the counters are always 0,0 (every move resets them): others are refused.
    with pytest.raises(BadPosition, match="no neutral limit"):
        unlimited.start(vid2, position=text)
    s2 = unlimited.start(vid2, position=text.replace(";2,1;", ";0,0;"))
    assert targets(unlimited, s2, "3,3") == {"2,3", "3,2", "3,4", "4,3"}


def test_promotion_scan_after_every_move_is_for_good(engine: CustomEngine) -> None:
    """Every piece standing on its condition after any move promotes, and stays promoted."""
    pawn = {
        "name": "P",
        "side": "red",
        "moves": "2;",
        "promote_when": "X[1]&P[3|5]",
        "promoted_moves": "7,4;",
        "promoted_name": "G",
    }
    vid = engine.load_data(
        definition(
            [KING_R, KING_B, pawn],
            ["2 . . . .", ". . . 3 .", ". . . . .", ". . . . 3", "1 . . . ."],
            promotion=True,
        )
    )
    s = engine.start(vid)
    s = engine.play(s, "2,4-1,4")
    assert engine.position(s).split(";")[3].split("/")[0] == "2,.,.,3*,."
    s = engine.play(s, "1,1-1,2")
    assert targets(engine, s, "1,4") == {"2,4", "1,3"}
    s = engine.play(s, "4,5-3,5")  # onto P[3|5]
    assert engine.position(s).split(";")[3].split("/")[2] == ".,.,.,.,3*"
    s = engine.play(s, "1,2-1,1")
    s = engine.play(s, "1,4-2,4")  # away from row 1: still promoted
    assert engine.position(s).split(";")[3].split("/")[1] == ".,.,.,3*,."


def test_promotion_scan_includes_pieces_that_did_not_move(engine: CustomEngine) -> None:
    """The scan covers the whole board: a piece already on its square, or one whose count
    condition (C) becomes true after someone else's capture, promotes too."""
    pawn_b = {
        "name": "p",
        "side": "blue",
        "moves": "7;",
        "promote_when": "P[3|3]&C[0|0|4]",
        "promoted_moves": "2,7;",
    }
    vid = engine.load_data(
        definition(
            [KING_R, KING_B, ROOK_R, pawn_b],
            ["2 . . . .", ". . . . .", ". . 4 . .", ". . . . .", "1 . . . 3"],
            modules=("conditions",),
            promotion=True,
        )
    )
    s = engine.start(vid)
    assert "*" not in engine.position(s)  # no scan before the first move
    s = engine.play(s, "5,1-4,1")  # an unrelated red move: the pawn on 3,3 promotes
    assert engine.position(s).split(";")[3].split("/")[2] == ".,.,4*,.,."
    text = place(vid, ["2 . . . .", ". 4 . . .", ". . . . .", ". . . . .", "1 . . . 3"])
    s = engine.start(vid, position=text)
    s = engine.play(s, "5,5-4,5")  # 4 pieces remain but nothing was captured: C holds anyway
    assert engine.position(s).split(";")[3].split("/")[1] == ".,4*,.,.,."
    text = place(vid, ["2 . . . .", ". 4 . . 4", ". . . . .", ". . . . .", "1 . . . 3"])
    s = engine.start(vid, position=text)
    s = engine.play(s, "5,5-4,5")
    assert "*" not in engine.position(s)  # 5 pieces: C[0|0|4] false, not on 3,3
    s = engine.play(s, "1,1-1,2")
    s = engine.play(s, "4,5-2,5")  # the rook captures: 4 pieces left, the other pawn promotes
    assert engine.position(s).split(";")[3].split("/")[1] == ".,4*,.,.,3"


def test_promotion_off_never_promotes(engine: CustomEngine) -> None:
    """With rules.promotion false the promotion condition is ignored."""
    pawn = {
        "name": "P",
        "side": "red",
        "moves": "2;",
        "promote_when": "X[1]",
        "promoted_moves": "7;",
    }
    vid = engine.load_data(
        definition(
            [KING_R, KING_B, pawn],
            ["2 . . . .", ". . . 3 .", ". . . . .", ". . . . .", "1 . . . ."],
        )
    )
    s = engine.play(engine.start(vid), "2,4-1,4")
    assert "*" not in engine.position(s)


def test_a_piece_that_never_promotes_cannot_be_marked_promoted(engine: CustomEngine) -> None:
    """``*`` marks a promoted piece: a type without a promotion condition, or any type in a
    variant with promotion off, is never promoted, so ``1*`` is refused naming the cell (it was
    read as a piece with the empty promoted rule, one that could not move at all)."""
    start = engine.position(engine.start("xiangqi"))
    general = start.replace("7,11,5,3,1,3", "7,11,5,3,1*,3")
    with pytest.raises(BadPosition, match=r"row 10, column 5: piece 1 .* never promotes"):
        engine.start("xiangqi", position=general)
    soldier = start.replace("13,.,13,.,13", "13*,.,13,.,13", 1)
    assert engine.position(engine.start("xiangqi", position=soldier)) == soldier
    pawn = {"name": "P", "side": "red", "moves": "2;", "promote_when": "X[1]",
            "promoted_moves": "7;"}  # fmt: skip
    off = engine.load_data(
        definition([KING_R, KING_B, pawn], ["2 . . . .", ". . . . .", "3 . . . 1"])
    )
    with pytest.raises(BadPosition, match="promotion is off"):
        engine.start(off, position=place(off, ["2 . . . .", ". . . . .", "3* . . . 1"]))
    assert engine.start(off, position=place(off, ["2 . . . .", ". . . . .", "3 . . . 1"]))


def test_capturing_any_captain_wins(engine: CustomEngine) -> None:
    """Two blue captains: taking either one wins at once; then no moves are accepted."""
    vid = engine.load_data(
        definition(
            [KING_R, KING_B, ROOK_R],
            ["2 . . . 2", ". . . . .", ". . . . .", ". . . . .", "1 . . . 3"],
        )
    )
    s = engine.start(vid)
    assert "5,5-1,5" in engine.legal_moves(s)  # no check rule: moves are pseudo-legal
    after = engine.play(s, "5,5-1,5")
    out = engine.outcome(after)
    assert out is not None and out.winner == "first" and out.reason == "captain"
    assert out.highlight == ("1,5",)
    assert engine.legal_moves(after) == []
    with pytest.raises(IllegalMove, match="over"):
        engine.play(after, "1,1-2,1")
    assert engine.perft(after, 1) == 0


def test_loaded_position_without_captain_is_decided(engine: CustomEngine) -> None:
    """A position string where blue has no captain left is a win for red."""
    vid = engine.load_data(
        definition(
            [KING_R, KING_B, ROOK_R],
            ["2 . . . .", ". . . . .", ". . . . .", ". . . . .", "1 . . . 3"],
        )
    )
    s = engine.start(
        vid,
        position=place(
            vid, [". . . . 3", ". . . . .", ". . . . .", ". . . . .", "1 . . . ."], "second"
        ),
    )
    out = engine.outcome(s)
    assert out is not None and out.winner == "first" and out.reason == "captain"


@pytest.mark.parametrize(
    ("rules", "modules", "winner"),
    [
        ({"no_legal_move": "lose"}, (), "first"),
        ({"no_legal_move": "draw"}, (), None),
        ({"no_legal_move": "draw"}, ("xiangqi",), None),
        ({}, (), None),
        ({}, ("xiangqi",), "first"),
    ],
)
def test_no_legal_move_setting(
    engine: CustomEngine, rules: dict[str, str], modules: tuple[str, ...], winner: str | None
) -> None:
    """A side without legal moves loses or draws, as the variant says; when it does not say,
    it loses with the xiangqi module and draws otherwise (RULES.md section 5)."""
    stuck = {"name": "S", "side": "blue", "moves": "7;"}
    vid = engine.load_data(
        definition(
            [KING_R, {**KING_B, "moves": ";"}, stuck, ROOK_R],
            ["2 . . . .", ". . . . .", ". . . . .", ". . . . .", "1 3 . . 4"],
            modules=modules,
            **rules,
        )
    )
    assert engine.definition(vid).rules.no_legal_move == ("lose" if winner else "draw")
    s = engine.start(
        vid,
        position=place(
            vid, ["2 . . . .", ". . . . .", ". . . . .", ". . . . .", "1 3 . . 4"], "second"
        ),
    )
    out = engine.outcome(s)
    assert out is not None and out.winner == winner and out.reason == "no_moves"
    assert engine.legal_moves(s) == []


def test_max_plies_option(engine: CustomEngine) -> None:
    """The room option max_plies (default 400) draws with reason move_limit."""
    vid = engine.load_data(definition([KING_R, KING_B], ["2 . .", ". . .", ". . 1"]))
    s = engine.start(vid, options={"max_plies": 2})
    s = engine.play(engine.play(s, "3,3-2,3"), "1,1-1,2")
    out = engine.outcome(s)
    assert out is not None and out.winner is None and out.reason == "move_limit"
    assert engine.start(vid).max_plies == 400
    with pytest.raises(BadOption):
        engine.start(vid, options={"max_plies": "many"})
    with pytest.raises(BadOption):
        engine.start(vid, options={"ply_cap": 3})


def test_undo_switch_is_exposed(engine: CustomEngine) -> None:
    """The undo rule shows in variant_info and allows_undo (the server refuses offers)."""
    vid = engine.load_data(definition([KING_R, KING_B], ["2 .", ". 1"], undo=False))
    assert engine.allows_undo(vid) is False
    assert engine.variant_info(vid)["rules"]["undo"] is False
    assert engine.variant_info(vid)["undo_allowed"] is False
    assert engine.allows_undo("xiangqi") is True


# ---- states, notation, positions ---------------------------------------------------------------


def test_states_are_immutable_values(engine: CustomEngine) -> None:
    """play returns a new state; the old one is unchanged; states are frozen and hashable."""
    s = engine.start("stones")
    before = engine.position(s)
    t = engine.play(s, engine.legal_moves(s)[0])
    assert engine.position(s) == before and s.ply == 0 and s.last_move is None
    assert t.ply == 1 and t.turn == "second" and t.last_move == engine.legal_moves(s)[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.turn = "second"  # type: ignore[misc]
    assert hash(s) != hash(t) or s != t
    assert engine.start("stones") == s


def test_notation_and_position_round_trip_on_random_games(engine: CustomEngine) -> None:
    """Every legal move's text plays as itself; position strings reload the same position."""
    rng = random.Random(7)
    for vid in ("xiangqi", "stones", "guards"):
        s = engine.start(vid)
        for _ in range(60):
            moves = engine.legal_moves(s)
            if not moves:
                break
            move = rng.choice(moves)
            s = engine.play(s, move)
            assert s.last_move == move
            again = engine.start(vid, position=engine.position(s))
            assert engine.position(again) == engine.position(s)
            assert engine.legal_moves(again) == engine.legal_moves(s)


def test_move_text_is_forgiving_about_spaces_only(engine: CustomEngine) -> None:
    """``7,2 - 6,2`` is accepted and printed canonically; other shapes are refused clearly."""
    s = engine.start("xiangqi")
    assert engine.play(s, " 7,1 - 6,1 ").last_move == "7,1-6,1"
    for bad in ("", "7,1", "7-1", "a,b-c,d", "7,1-6,1-5,1", "99,1-98,1", "0,1-1,1"):
        with pytest.raises(IllegalMove):
            engine.play(s, bad)
    with pytest.raises(IllegalMove, match="opponent"):
        engine.play(s, "4,1-5,1")
    with pytest.raises(IllegalMove, match="no piece"):
        engine.play(s, "5,1-4,1")


@pytest.mark.parametrize("text", ["٧,١-٦,١", "7,1-٦,1", "７,1-6,1"])
def test_move_digits_are_ascii_only(engine: CustomEngine, text: str) -> None:
    """``r,c-r,c`` in Arabic-Indic or full-width digits is refused (``٧,١-٦,١`` was 7,1-6,1)."""
    with pytest.raises(IllegalMove, match="row,col-row,col"):
        engine.play(engine.start("xiangqi"), text)


@pytest.mark.parametrize(
    "text",
    [
        "xiangqi;first;0,0",
        "nope;first;0,0;.",
        "xiangqi;third;0,0;" + "/".join([",".join(["."] * 9)] * 10),
        "xiangqi;first;3,0;" + "/".join([",".join(["."] * 9)] * 10),
        "xiangqi;first;0,0;" + "/".join([",".join(["."] * 9)] * 9),
        "xiangqi;first;0,0;" + "/".join([",".join(["99"] * 9)] * 10),
        "xiangqi;first;0,0;" + "/".join([",".join(["1**"] * 9)] * 10),
        "x" * 5000,
    ],
)
def test_bad_position_strings(engine: CustomEngine, text: str) -> None:
    """Malformed position strings raise BadPosition naming the problem."""
    with pytest.raises(BadPosition):
        engine.start(None, position=text)


def test_position_of_other_variant_is_refused(engine: CustomEngine) -> None:
    """start(variant=A, position of B) is a BadPosition."""
    with pytest.raises(BadPosition, match="variant"):
        engine.start("stones", position=engine.position(engine.start("xiangqi")))


CONDITIONS = ["X[1]", "X[-1]", "Y[2|-2]", "P[1|1|-1|-1]", "NP[2|2]", "C[0|2|9]", "C[3|1|1]"]
CONDITIONS += ["D[1|-1|3]", "D[2|1|2]", "R[1|1|0|1|2|3]", "T[3]", "T[5]", "X[0]"]


STATIC_CONDITIONS = ["X[1]", "X[-1]", "Y[2|-2]", "P[1|1|-1|-1]", "NP[2|2]", "X[2|3]", "Y[1]"]
"""Conditions on the square alone (the self-check's fast path is for these)."""


def random_rule(rng: random.Random, conditions: list[str] | None = None) -> str:
    conditions = conditions or CONDITIONS
    groups = []
    for _ in range(2):
        dirs = []
        for d in rng.sample(range(1, 9), rng.randint(0, 4)):
            if rng.random() < 0.4:
                dirs.append(f"{d}({'&'.join(rng.sample(conditions, rng.randint(1, 2)))})")
            else:
                dirs.append(str(d))
        groups.append(",".join(dirs))
    return ";".join(groups)


def random_definition(
    rng: random.Random, vid: str, conditions: list[str] | None = None
) -> dict[str, Any]:
    # At least 5 piece types: CONDITIONS name types up to 5 (a missing type is refused).
    conditions = conditions or CONDITIONS
    rows, cols, n = rng.randint(2, 7), rng.randint(2, 7), rng.randint(5, 7)
    pieces: list[dict[str, Any]] = []
    for i in range(n):
        side = ["red", "blue"][i] if i < 2 else rng.choice(["red", "blue", "neutral"])
        piece: dict[str, Any] = {
            "name": f"p{i}",
            "side": side,
            "captain": i < 2 or (side != "neutral" and rng.random() < 0.2),
            "moves": random_rule(rng, conditions),
        }
        if rng.random() < 0.4:
            piece["promote_when"] = rng.choice(conditions)
            piece["promoted_moves"] = random_rule(rng, conditions)
        if side != "neutral" and rng.random() < 0.3:
            piece["role"] = rng.choice(["horse", "cannon", "elephant", "general"])
        pieces.append(piece)
    layout = [
        " ".join(str(rng.randint(1, n)) if rng.random() < 0.3 else "." for _ in range(cols))
        for _ in range(rows)
    ]
    rules = {
        "promotion": rng.random() < 0.7,
        "neutral_limit": rng.random() < 0.5,
        "self_check": rng.random() < 0.3,
        "no_legal_move": rng.choice(["lose", "draw"]),
    }
    return {
        "id": vid,
        "modules": ["conditions", "xiangqi"],
        "board": {"rows": rows, "cols": cols, "layout": layout},
        "rules": rules,
        "pieces": pieces,
    }


def test_random_variants_play_and_round_trip(engine: CustomEngine) -> None:
    """Random definitions (every condition, module and switch) play random games without errors;
    each reachable position reloads from its string with the same legal moves."""
    rng = random.Random(11)
    played = 0
    for i in range(40):
        vid = engine.load_data(random_definition(rng, f"r{i}"))
        s = engine.start(vid)
        played += 1
        for _ in range(30):
            moves = engine.legal_moves(s)
            if not moves:
                assert engine.outcome(s) is not None
                break
            s = engine.play(s, rng.choice(moves))
            if engine.outcome(s) is None:
                again = engine.start(vid, position=engine.position(s))
                assert engine.legal_moves(again) == engine.legal_moves(s)
    assert played == 40


def reference_pairs(engine: CustomEngine, state: CustomState) -> set[tuple[int, int]]:
    """The legal moves by the rules' plain definition: every board scanned afresh per move."""
    table = state.rules
    pairs = engine._pseudo(state)
    if not table.variant.rules.self_check:
        return set(pairs)
    side = 1 if state.turn == "first" else 2
    kept = set()
    for move in pairs:
        board = table.board_after(state.board, move)  # every square's promotion checked
        if table.facing_generals(board) is not None:
            continue
        if any(table.attacked(board, sq, 3 - side) for sq in table.captains(board, side)):
            continue
        kept.add(move)
    return kept


@pytest.mark.parametrize("vid", ["xiangqi", "stones", "guards"])
def test_fast_paths_agree_with_the_full_move_list(engine: CustomEngine, vid: str) -> None:
    """The early-exit legality and "has a move" checks of the hot path match the move list.

    Every state is re-read from its position string so that nothing is memoised yet, and every
    pair whose first square holds a piece is tried, legal or not (neither check memoises its
    answer).
    """
    rng = random.Random(7)
    for _ in range(2):
        state = engine.start(vid, options={"max_plies": 60})
        while engine.outcome(state) is None:
            fresh = engine.start(vid, position=engine.position(state))
            cold = engine.start(vid, position=engine.position(state))
            full = set(engine._pairs(cold))
            assert full == reference_pairs(engine, cold)
            assert engine._has_move(fresh) == bool(full)
            size = len(state.board)
            for a in range(size):
                if not fresh.board[a]:
                    continue
                for b in range(size):
                    assert engine._is_legal(fresh, (a, b)) == ((a, b) in full), (a, b)
            state = engine.play(state, rng.choice(engine.legal_moves(state)))
        assert engine.outcome(state) == engine.outcome(dataclasses.replace(state, _memo={}))


def test_xiangqi_moves_match_the_plain_self_check_filter_on_long_games(
    engine: CustomEngine,
) -> None:
    """Checks, pins, facing generals and captures in longer games: the one-scan safety test
    keeps exactly the moves the plain definition keeps."""
    rng = random.Random(21)
    checks = 0
    for _ in range(6):
        state = engine.start("xiangqi", options={"max_plies": 150})
        while engine.outcome(state) is None:
            legal = set(engine._pairs(state))
            reference = reference_pairs(engine, state)
            assert legal == reference
            checks += len(engine._pseudo(state)) - len(reference)
            state = engine.play(state, rng.choice(engine.legal_moves(state)))
    assert checks > 0  # some pseudo-legal moves were refused


def test_the_self_check_by_touched_squares_keeps_what_the_plain_filter_keeps(
    engine: CustomEngine,
) -> None:
    """Random self-check variants whose moves and promotions depend on the square alone (the
    fast path: attacks and open files judged once per position, a move by the squares it
    touches): horses' legs, elephants' eyes, cannons' screens, several captains, neutral
    pieces, generals of either side, starts with pieces on their promotion squares. Every
    reachable position keeps exactly the moves the plain definition keeps."""
    rng = random.Random(25)
    touched = refused = 0
    for i in range(150):
        data = random_definition(rng, f"s{i}", STATIC_CONDITIONS)
        data["rules"]["self_check"] = True
        try:
            vid = engine.load_data(data)
        except BadPosition:
            continue  # a layout the rules refuse (e.g. red can never move)
        table = engine.compiled(vid)
        assert table.static_moves
        state = engine.start(vid)
        for _ in range(40):
            if engine.outcome(state) is not None:
                break
            legal = set(engine._pairs(state))
            reference = reference_pairs(engine, state)
            assert legal == reference, engine.position(state)
            refused += len(engine._pseudo(state)) - len(reference)
            promotes = table.variant.rules.promotion
            touched += not promotes or engine.settled(state)
            state = engine.play_pair(state, rng.choice(sorted(legal)))
    assert touched > 1000 and refused > 500


def test_xiangqi_positions_with_soldiers_yet_to_promote_are_checked_by_scanning(
    engine: CustomEngine,
) -> None:
    """A loaded Xiangqi position may hold an unpromoted soldier across the river (it promotes
    after any move): such a position is not settled, and its moves are still the plain
    definition's, and the position after a move is settled."""
    rows = [". . . 4 2 4 . . .", ". . . . . . . . .", ". . . . 6 . . . ."]
    rows += [". . . . . . . . .", "7 . . . . . . . .", ". . . . . . . . ."]
    rows += [". . . . . . . . .", ". . . . 14 . . . .", ". . . . . . . . .", ". . . 1 . . . . ."]
    state = engine.start("xiangqi", position=place("xiangqi", rows))
    assert not engine.settled(state)
    assert set(engine._pairs(state)) == reference_pairs(engine, state)
    after = engine.play(state, "10,4-10,5")
    assert engine.settled(after) and "14*" in engine.position(after)
    assert set(engine._pairs(after)) == reference_pairs(engine, after)


@pytest.mark.parametrize("vid", ["xiangqi", "stones", "guards"])
def test_legal_captures_are_the_legal_moves_that_take(engine: CustomEngine, vid: str) -> None:
    """What the searcher's quiescence asks for, with and without the move list made first, and
    nothing once the game is over."""
    rng = random.Random(5)
    takes = 0
    state = engine.start(vid, options={"max_plies": 80})
    while engine.outcome(state) is None:
        text = engine.position(state)
        cold = engine.start(vid, position=text)
        captures = engine.legal_captures(cold)
        assert "pairs" not in cold._memo  # the move list was not made for them
        full = engine.legal_pairs(engine.start(vid, position=text))
        assert captures == [m for m in full if state.board[m[1]]]
        moves = engine.legal_moves(state)
        assert "pairs" in state._memo
        assert engine.legal_captures(state) == captures  # from the memoised move list
        takes += len(captures)
        state = engine.play(state, rng.choice(moves))
    assert engine.legal_captures(state) == [] and takes > 0


def test_a_state_and_its_memoised_checks_are_freed_without_the_collector(
    engine: CustomEngine,
) -> None:
    """The memoised self-check keeps the board, not the state: no reference cycle, so a room's
    old states go as soon as nothing holds them, not at the next garbage collection."""
    state = engine.start("xiangqi")
    assert engine.legal_moves(state) and engine.outcome(state) is None
    assert "safety" in state._memo
    gone = weakref.ref(state)
    gc.disable()
    try:
        del state
        assert gone() is None
    finally:
        gc.enable()


@pytest.mark.parametrize("vid", ["xiangqi", "guards", "stones"])
def test_a_state_pickles_with_its_rules_and_plays_on_the_same(
    engine: CustomEngine, vid: str
) -> None:
    """The analysis sends a game's first state to another process: the rules' tables (local
    functions for board-dependent conditions) are rebuilt there, the memo (the self-check's
    local function) is left behind, and the game goes on alike."""
    import pickle

    rng = random.Random(4)
    state = engine.start(vid)
    for _ in range(10):
        moves = engine.legal_moves(state)
        if not moves:
            break
        state = engine.play(state, rng.choice(moves))
    legal = engine.legal_moves(state)
    assert state._memo  # the legal moves made its memo
    copy = pickle.loads(pickle.dumps(state))
    assert copy == state and copy.rules is not state.rules and not copy._memo
    assert engine.position(copy) == engine.position(state)
    assert engine.legal_moves(copy) == legal
    assert engine.outcome(copy) == engine.outcome(state)
