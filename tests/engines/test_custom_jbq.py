"""JBQ map import, the xiangqi module, perft tables, and the command lines.

The maps are read from ../shared/jbq-maps (MIT, see its LICENSE-NOTE.md); they are never
copied into the repository.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from engines.__main__ import main as engines_main
from engines.base import BadPosition, IllegalMove, UnknownVariant
from engines.custom import CustomEngine, CustomState, VariantError
from engines.custom.__main__ import main as custom_main
from engines.custom.catalog import load_toml_text
from engines.custom.jbq import load_map

MAPS = Path(os.environ.get("BOARDHALL_JBQ_MAPS", Path(os.environ["BOARDHALL_SHARED"], "jbq-maps")))
EXAMPLE = MAPS / "example(5x6).xlsx"
STANDARD = MAPS / "standard(7x7).xlsx"
XIANGQI = MAPS / "中国象棋.xlsx"
ARMY = MAPS / "27A行军棋(7x7).xlsx"

needs_maps = pytest.mark.skipif(not EXAMPLE.exists(), reason="JBQ maps not available")


def local_engine() -> CustomEngine:
    """An engine as a local tool uses it: variant file paths allowed."""
    local = CustomEngine()
    local.accept_paths = True
    return local


@pytest.fixture
def engine() -> CustomEngine:
    return local_engine()


@needs_maps
def test_example_map_perft(engine: CustomEngine) -> None:
    """example(5x6): 9, 79, 701, 6172 from the start (a finished position has no moves)."""
    state = engine.start(str(EXAMPLE))
    assert [engine.perft(state, d) for d in (1, 2, 3, 4)] == [9, 79, 701, 6172]


@needs_maps
def test_example_map_contents(engine: CustomEngine) -> None:
    """Sheets chesses/map/rules are read as RULES.md says."""
    vid = engine.resolve_variant(str(EXAMPLE))
    v = engine.definition(vid)
    assert vid == "example-5x6" and (v.rows, v.cols) == (6, 5)
    assert [p.name for p in v.pieces][:3] == ["JPS", "老精", "开干"]
    assert v.pieces[0].captain and v.pieces[1].captain and not v.pieces[2].captain
    assert v.pieces[12].side == 3  # 蛋 is neutral
    assert v.pieces[2].promote_text == "X[1]" and v.pieces[2].promoted_moves_text == "1,2,3,4,5,7;"
    assert v.rules.promotion and not v.rules.undo and v.rules.neutral_limit
    assert v.rules.no_legal_move == "draw" and not v.rules.self_check
    assert v.layout[-1] == (5, 3, 1, 3, 5) and v.layout[2] == (0, 13, 0, 0, 0)
    assert engine.allows_undo(vid) is False


@needs_maps
def test_standard_map_enables_conditions(engine: CustomEngine) -> None:
    """standard(7x7) uses R and T: the conditions module is turned on by the import."""
    v = load_map(str(STANDARD))
    assert v.modules == ("conditions",)
    state = engine.start(str(STANDARD))
    # Regression figures of this implementation (no independent source exists).
    assert [engine.perft(state, d) for d in (1, 2, 3)] == [28, 754, 19887]


@needs_maps
def test_standard_map_linked_pieces(engine: CustomEngine) -> None:
    """Piece 9 may step left only while its partner 11 is on its left side (R) or gone (T)."""
    vid = engine.resolve_variant(str(STANDARD))
    empty = [".", ".", ".", ".", ".", ".", "."]

    def position(cells: dict[tuple[int, int], int]) -> str:
        rows = [list(empty) for _ in range(7)]
        for (r, c), t in cells.items():
            rows[r - 1][c - 1] = str(t)
        return f"{vid};first;0,0;" + "/".join(",".join(r) for r in rows)

    # 9 at (4,4); 11 to its left at (4,2): direction 4 needs R[11|1|3|1|4|6] (distance > 3): no.
    near = engine.start(vid, position=position({(1, 1): 2, (7, 7): 1, (4, 4): 9, (4, 2): 11}))
    moves9 = {m for m in engine.legal_moves(near) if m.startswith("4,4-")}
    assert "4,4-4,3" not in moves9 and "4,4-3,4" in moves9
    # 11 gone: T[11] holds and direction 4 opens.
    alone = engine.start(vid, position=position({(1, 1): 2, (7, 7): 1, (4, 4): 9}))
    assert "4,4-4,3" in engine.legal_moves(alone)


@needs_maps
def test_jbq_xiangqi_map_gets_the_module_and_perft(engine: CustomEngine) -> None:
    """中国象棋.xlsx is recognised (known-maps table): xiangqi module, 44 and 1926 pseudo-legal."""
    vid = engine.resolve_variant(str(XIANGQI))
    v = engine.definition(vid)
    assert vid == "xiangqi-jbq" and v.name == "Xiangqi (JBQ rules)"
    assert v.modules == ("xiangqi",) and v.rules.no_legal_move == "lose"
    assert {p.name: p.role for p in v.pieces}["马"] == "horse"
    state = engine.start(vid)
    assert engine.perft(state, 1) == 44
    assert engine.perft(state, 2) == 1926


@needs_maps
def test_army_map_is_refused_naming_what_is_missing() -> None:
    """27A行军棋 needs extension columns and extra move groups: every one is named."""
    with pytest.raises(VariantError) as info:
        load_map(str(ARMY))
    text = str(info.value)
    for needed in ("is_pr", "epd", "banner", "move_in_banner", "move groups beyond the second"):
        assert needed in text
    assert "row 6 (piece id 5)" in text
    assert len(info.value.problems) >= 6


@needs_maps
def test_convert_command_round_trips(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, engine: CustomEngine
) -> None:
    """``python -m engines.custom convert MAP.xlsx`` writes TOML that loads as the same variant."""
    for path in (EXAMPLE, STANDARD, XIANGQI):
        assert custom_main(["convert", str(path)]) == 0
        text = capsys.readouterr().out
        assert text.startswith("# Converted from")
        assert load_toml_text(text) == load_map(str(path))
        target = tmp_path / f"{path.stem}.toml"
        target.write_text(text, encoding="utf-8")
        assert local_engine().perft(local_engine().start(str(target)), 1) == engine.perft(
            engine.start(str(path)), 1
        )


@needs_maps
def test_convert_command_refuses_with_the_problems(capsys: pytest.CaptureFixture[str]) -> None:
    """A refused map exits 2 and prints the problems on stderr, nothing on stdout."""
    assert custom_main(["convert", str(ARMY)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and "is_pr" in out.err


@needs_maps
def test_perft_command_takes_paths(capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m engines perft custom D --variant PATH`` prints the count last."""
    assert engines_main(["perft", "custom", "3", "--variant", str(EXAMPLE)]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == "701"
    assert engines_main(["perft", "custom", "2", "--variant", "xiangqi"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == "1920"
    assert engines_main(["perft", "custom", "1", "--variant", str(ARMY)]) == 2


@needs_maps
def test_paths_are_refused_by_default() -> None:
    """Variant text never names a file unless a local tool allows it: clients cannot make a
    server read its disk."""
    with pytest.raises(UnknownVariant):
        CustomEngine().resolve_variant(str(EXAMPLE))
    with pytest.raises(UnknownVariant):
        CustomEngine().start(str(EXAMPLE))
    with pytest.raises(UnknownVariant):
        CustomEngine().variant_info(str(EXAMPLE))  # never a path, whatever accept_paths says


@needs_maps
def test_missing_openpyxl_gives_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the optional extra, reading .xlsx says how to install it."""
    monkeypatch.setitem(sys.modules, "openpyxl", None)
    with pytest.raises(VariantError, match=r"pip install '\.\[xlsx\]' in a checkout"):
        load_map(str(EXAMPLE))


# ---- the xiangqi module -------------------------------------------------------------------------

EMPTY_ROW = ".,.,.,.,.,.,.,.,."


def xq(vid: str, cells: dict[tuple[int, int], int], turn: str = "first") -> str:
    rows = [EMPTY_ROW.split(",") for _ in range(10)]
    for (r, c), t in cells.items():
        rows[r - 1][c - 1] = str(t)
    return f"{vid};{turn};0,0;" + "/".join(",".join(r) for r in rows)


def moves_from(engine: CustomEngine, state: CustomState, square: str) -> set[str]:
    return {m.split("-")[1] for m in engine.legal_moves(state) if m.startswith(square + "-")}


@pytest.mark.parametrize("vid", ["xiangqi", pytest.param("xiangqi-jbq", marks=needs_maps)])
def test_horse_leg_elephant_eye_cannon_screen(engine: CustomEngine, vid: str) -> None:
    """Horse blocked by its leg, elephant by its eye, cannon captures over exactly one screen."""
    if vid == "xiangqi-jbq":
        engine.resolve_variant(str(XIANGQI))
    generals = {(10, 5): 1, (1, 4): 2}
    s = engine.start(vid, position=xq(vid, {**generals, (8, 3): 11}))
    assert moves_from(engine, s, "8,3") == {
        "6,2",
        "6,4",
        "7,1",
        "7,5",
        "9,1",
        "9,5",
        "10,2",
        "10,4",
    }
    s = engine.start(vid, position=xq(vid, {**generals, (8, 3): 11, (7, 3): 13, (8, 4): 3}))
    assert moves_from(engine, s, "8,3") == {"7,1", "9,1", "10,2", "10,4"}
    s = engine.start(vid, position=xq(vid, {**generals, (10, 3): 5, (9, 4): 13}))
    assert moves_from(engine, s, "10,3") == {"8,1"}
    # Cannon at 8,2: slides without capturing; captures 1,2 over the screen at 3,2 only.
    s = engine.start(
        vid, position=xq(vid, {**generals, (8, 2): 9, (3, 2): 12, (1, 2): 8, (8, 4): 14})
    )
    got = moves_from(engine, s, "8,2")
    assert "1,2" in got and "3,2" not in got and "8,4" not in got and "8,3" in got
    assert "2,2" not in got and "4,2" in got


@needs_maps
def test_jbq_flying_generals_lose_for_the_mover(engine: CustomEngine) -> None:
    """In the JBQ map a move that leaves the generals facing is allowed and loses."""
    vid = engine.resolve_variant(str(XIANGQI))
    s = engine.start(vid, position=xq(vid, {(10, 5): 1, (1, 5): 2, (5, 5): 7, (1, 1): 8}))
    assert "5,5-5,1" in engine.legal_moves(s)
    after = engine.play(s, "5,5-5,1")
    out = engine.outcome(after)
    assert out is not None and out.winner == "second" and out.reason == "captain"
    assert set(out.highlight) == {"1,5", "10,5"}


def test_real_xiangqi_forbids_facing_and_self_check(engine: CustomEngine) -> None:
    """Shipped Xiangqi: no move may leave the generals facing or the own general attacked."""
    s = engine.start(
        "xiangqi", position=xq("xiangqi", {(10, 5): 1, (1, 5): 2, (5, 5): 9, (6, 1): 8})
    )
    moves = engine.legal_moves(s)
    assert "5,5-5,1" not in moves and "5,5-4,5" in moves
    assert "10,5-10,4" in moves
    # The general may not step onto the chariot's file.
    s = engine.start(
        "xiangqi", position=xq("xiangqi", {(10, 5): 1, (1, 6): 2, (5, 4): 8, (2, 5): 4})
    )
    assert moves_from(engine, s, "10,5") == {"9,5"}
    with pytest.raises(IllegalMove, match="captain attacked"):
        engine.play(s, "10,5-10,4")


def test_real_xiangqi_checkmate_loses(engine: CustomEngine) -> None:
    """Two chariots mate the blue general: no legal move, blue loses (reason no_moves)."""
    s = engine.start(
        "xiangqi", position=xq("xiangqi", {(1, 4): 2, (1, 9): 7, (2, 1): 7, (10, 5): 1}, "second")
    )
    assert engine.legal_moves(s) == []
    out = engine.outcome(s)
    assert out is not None and out.winner == "first" and out.reason == "no_moves"


@pytest.mark.slow
def test_real_xiangqi_perft(engine: CustomEngine) -> None:
    """The known xiangqi perft from the start: 44, 1920, 79666."""
    s = engine.start("xiangqi")
    assert [engine.perft(s, d) for d in (1, 2, 3)] == [44, 1920, 79666]


def test_loaded_position_with_side_not_to_move_in_check_is_refused(engine: CustomEngine) -> None:
    """Real Xiangqi positions where the side that just moved is in check are impossible."""
    with pytest.raises(BadPosition, match="attacked"):
        engine.start("xiangqi", position=xq("xiangqi", {(1, 4): 2, (1, 9): 7, (10, 5): 1}))
    with pytest.raises(BadPosition, match="face"):
        engine.start("xiangqi", position=xq("xiangqi", {(1, 5): 2, (10, 5): 1}))
