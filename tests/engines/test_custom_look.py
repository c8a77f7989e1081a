"""The board's display hint in variant files (``look``, ``river``, ``palaces``, ``marks``).

Display only: parsed and validated like every other field, sent in ``variant_info``, written back
by ``to_toml``; the rules never read it. JBQ maps (read from ../shared/jbq-maps) have none.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.custom import ENGINE, CustomEngine, VariantError, parse_definition
from engines.custom.catalog import load_file, load_toml_text
from engines.custom.definition import to_toml
from engines.custom.look import BoardLook, Palace, River, parse_look

MAPS = Path(os.environ.get("BOARDHALL_JBQ_MAPS", Path(os.environ["BOARDHALL_SHARED"], "jbq-maps")))

TINY = """
name = "Tiny"
[board]
rows = 4
cols = 3
layout = ["2 . .", ". . .", ". . .", ". . 1"]
{extra}
[[pieces]]
name = "K"
side = "red"
captain = true
moves = "1,2,3,4,5,6,7,8;"
[[pieces]]
name = "k"
side = "blue"
captain = true
moves = "1,2,3,4,5,6,7,8;"
"""


def tiny(extra: str) -> str:
    return TINY.replace("{extra}", extra)


def problems_of(text: str) -> list[str]:
    with pytest.raises(VariantError) as info:
        load_toml_text(text, default_id="bad")
    return info.value.problems


def test_xiangqi_is_drawn_on_intersections_with_river_palaces_and_marks() -> None:
    """The shipped Xiangqi asks for its real board: lines, 楚河 漢界 after row 5, two palaces."""
    look = CustomEngine().definition("xiangqi").look
    assert look.look == "intersections"
    assert look.river == River(after_row=5, labels=("楚河", "漢界"))
    assert look.palaces == (Palace(rows=(1, 3), cols=(4, 6)), Palace(rows=(8, 10), cols=(4, 6)))
    cannons_and_soldiers = {(3, 2), (3, 8), (8, 2), (8, 8)} | {
        (r, c) for r in (4, 7) for c in (1, 3, 5, 7, 9)
    }
    assert set(look.marks) == cannons_and_soldiers and len(look.marks) == 14


def test_variant_info_carries_the_hint_and_old_files_keep_cells() -> None:
    """variant_info's board has the hint for Xiangqi; other variants send exactly what they did."""
    board = ENGINE.variant_info("xiangqi")["board"]
    assert board["look"] == "intersections"
    assert board["river"] == {"after_row": 5, "labels": ["楚河", "漢界"]}
    assert board["palaces"][1] == {"rows": [8, 10], "cols": [4, 6]}
    assert [3, 2] in board["marks"]
    for vid in ("stones", "guards"):
        assert ENGINE.definition(vid).look == BoardLook()
        assert set(ENGINE.variant_info(vid)["board"]) == {"rows", "cols", "layout", "grid"}
    assert load_toml_text(tiny(""), "tiny").look == BoardLook(look="cells")


def test_hint_round_trips_through_toml_and_variant_info() -> None:
    """to_toml writes the hint back; variant_info read back (as stored with a game) keeps it."""
    v = CustomEngine().definition("xiangqi")
    assert load_toml_text(to_toml(v)) == v
    again = parse_definition(ENGINE.variant_info("xiangqi"))
    assert again.look == v.look
    text = tiny('look = "intersections"\nriver = { after_row = 2 }')
    v = load_toml_text(text, "t")
    assert v.look == BoardLook("intersections", River(2, ()))
    assert load_toml_text(to_toml(v)) == v


def test_rules_never_read_the_hint() -> None:
    """Xiangqi without its hint plays exactly the same moves."""
    engine = CustomEngine()
    info = engine.variant_info("xiangqi")
    board = {k: v for k, v in info["board"].items() if k in ("rows", "cols", "layout")}
    plain = engine.load_data({**info, "id": "plain", "board": board})
    assert engine.definition(plain).look == BoardLook()
    state = engine.start("xiangqi")
    plain_state = engine.start(plain)
    for move in ("8,2-8,5", "1,2-3,3", "10,8-8,7"):
        assert sorted(engine.legal_moves(state)) == sorted(engine.legal_moves(plain_state))
        state, plain_state = engine.play(state, move), engine.play(plain_state, move)


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        ('look = "dots"', "board.look: must be 'cells' or 'intersections', not 'dots'"),
        ("look = 3", "board.look: must be 'cells' or 'intersections', not 3"),
        ("river = { after_row = 2 }", "board.river: only drawn with look = 'intersections'"),
        ("palaces = []", "board.palaces: only drawn with look = 'intersections'"),
        ("marks = [[1, 1]]", "board.marks: only drawn with look = 'intersections'"),
        ('look = "intersections"\nriver = 5', "board.river: must be a table like"),
        (
            'look = "intersections"\nriver = { after_row = 4 }',
            "board.river.after_row: must be a row number 1..3 (the river runs below it), not 4",
        ),
        (
            'look = "intersections"\nriver = { after_row = 0 }',
            "board.river.after_row: must be a row number 1..3",
        ),
        (
            'look = "intersections"\nriver = { after_row = true }',
            "board.river.after_row: must be a row number 1..3 (the river runs below it), not True",
        ),
        ('look = "intersections"\nriver = { labels = ["a"] }', "board.river.after_row: missing"),
        (
            'look = "intersections"\nriver = { after_row = 2, labels = "楚河" }',
            "board.river.labels: must be a list of at most 2 texts, not str",
        ),
        (
            'look = "intersections"\nriver = { after_row = 2, labels = ["a", "b", "c"] }',
            "board.river.labels: must be a list of at most 2 texts, not 3",
        ),
        (
            'look = "intersections"\nriver = { after_row = 2, labels = ["a", 5] }',
            "board.river.labels[1]: must be text, not int",
        ),
        (
            'look = "intersections"\nriver = { after_row = 2, labels = ["river of stars"] }',
            "board.river.labels[0]: longer than 8 characters",
        ),
        (
            'look = "intersections"\nriver = { after_row = 2, colour = "blue" }',
            "board.river: unknown key 'colour'",
        ),
        ('look = "intersections"\npalaces = 3', "board.palaces: must be a list of tables like"),
        (
            'look = "intersections"\npalaces = [7]',
            "board.palaces[0]: must be a table like { rows = [1, 3], cols = [4, 6] }, not int",
        ),
        (
            'look = "intersections"\npalaces = [{ rows = [3, 1], cols = [1, 3] }]',
            "board.palaces[0].rows: must be two row numbers [first, last] with"
            " 1 <= first < last <= 4, not [3, 1]",
        ),
        (
            'look = "intersections"\npalaces = [{ rows = [1, 2], cols = [1, 4] }]',
            "board.palaces[0].cols: must be two column numbers [first, last] with"
            " 1 <= first < last <= 3, not [1, 4]",
        ),
        (
            'look = "intersections"\npalaces = [{ rows = [1, 2] }]',
            "board.palaces[0].cols: missing",
        ),
        (
            'look = "intersections"\npalaces = [{ rows = [1, 2], cols = [1, 2], at = 1 }]',
            "board.palaces[0]: unknown key 'at'",
        ),
        ('look = "intersections"\nmarks = "3,2"', "board.marks: must be a list of [row, column]"),
        (
            'look = "intersections"\nmarks = [[1, 1], [5, 1]]',
            "board.marks[1]: must be a [row, column] pair on the board (rows 1..4, columns"
            " 1..3), not [5, 1]",
        ),
        (
            'look = "intersections"\nmarks = [[1, 1], [1, 1]]',
            "board.marks[1]: [1, 1] is marked twice",
        ),
        ('look = "intersections"\nmarks = [[1, "a"]]', "board.marks[0]: must be a [row, column]"),
        ('look = "intersections"\nborder = 2', "board: unknown key 'border'"),
    ],
)
def test_bad_hints_are_named(extra: str, fragment: str) -> None:
    """Each bad value names the field and the problem, beside the file's other problems."""
    found = "\n".join(problems_of(tiny(extra)))
    assert fragment in found


def test_every_bad_hint_is_reported_at_once_with_the_file_name(tmp_path: Path) -> None:
    """A file with several bad hint fields: one error naming the file and every field."""
    path = tmp_path / "wrong.toml"
    path.write_text(
        tiny(
            'look = "intersections"\nriver = { after_row = 9, labels = [1] }\n'
            "palaces = [{ rows = [1, 1], cols = [1, 2] }]\nmarks = [[0, 0]]"
        ),
        encoding="utf-8",
    )
    with pytest.raises(VariantError) as info:
        load_file(path)
    message = str(info.value)
    assert message.startswith("wrong.toml: 4 problems")
    for field in ("board.river.after_row", "board.river.labels[0]", "board.palaces[0].rows",
                  "board.marks[0]"):
        assert field in message, field


def test_too_many_palaces_or_marks() -> None:
    """Lists are bounded: at most 16 palaces and one mark per square."""
    palaces = ", ".join(["{ rows = [1, 2], cols = [1, 2] }"] * 17)
    found = problems_of(tiny(f'look = "intersections"\npalaces = [{palaces}]'))
    assert any("board.palaces: 17 palaces, at most 16" in p for p in found)
    marks = ", ".join(["[1, 1]"] * 13)
    found = problems_of(tiny(f'look = "intersections"\nmarks = [{marks}]'))
    assert any("board.marks: 13 marks, at most 12 (one per square)" in p for p in found)


def test_jbq_xiangqi_map_keeps_the_cells_look() -> None:
    """JBQ workbooks carry no display hint: even its Chinese-chess map is drawn as cells."""
    v = load_file(MAPS / "中国象棋.xlsx")
    assert v.modules == ("xiangqi",)  # recognised as Xiangqi for its rules ...
    assert v.look == BoardLook()  # ... but not given a look it never asked for


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 12) | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=16,
)
hint_keys = st.sampled_from(["look", "river", "palaces", "marks", "after_row", "labels"])


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(hint_keys, json_values | st.just("intersections"), max_size=4),
    st.integers(1, 20),
    st.integers(1, 20),
)
def test_any_hint_data_gives_a_look_or_named_problems(
    board: dict[str, Any], rows: int, cols: int
) -> None:
    """Arbitrary data never crashes the parser: problems each name a board key, and whatever
    look comes back lies on the board."""
    problems: list[str] = []
    look = parse_look(board, rows, cols, problems)
    assert look.look in ("cells", "intersections")
    assert all(p.startswith("board.") for p in problems), problems
    if look.look == "cells":
        assert look == BoardLook()
    if look.river is not None:
        assert 1 <= look.river.after_row < rows
    for p in look.palaces:
        assert 1 <= p.rows[0] < p.rows[1] <= rows and 1 <= p.cols[0] < p.cols[1] <= cols
    for r, c in look.marks:
        assert 1 <= r <= rows and 1 <= c <= cols
