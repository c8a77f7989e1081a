"""A variant author's mistakes, as the documentation leads them to write files: each refused (or,
where harmless, read) with the file, the place and what was wrong."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engines.custom import CustomEngine, VariantError
from engines.custom.catalog import load_file
from tests.engines.test_custom_audit import EXAMPLE, needs_maps

SKIRMISH = """\
format = "boardhall-variant/1"
name = "Skirmish"

[board]
rows = 4
cols = 4
layout = [
  "4 5 6 .",
  "5 5 . .",
  ". . 2 2",
  ". 3 2 1",
]

[rules]
promotion = true

[[pieces]]
name = "Rook"
side = "red"
moves = ";2,4,5,7"

[[pieces]]
name = "Pawn"
side = "red"
moves = "1,2,3;"
promote_when = "X[1]"
promoted_moves = "1,2,3,4,5,6,7,8;"

[[pieces]]
name = "King"
side = "red"
captain = true
moves = "1,2,3,4,5,6,7,8;"

[[pieces]]
name = "Rook"
side = "blue"
moves = ";2,4,5,7"

[[pieces]]
name = "Pawn"
side = "blue"
moves = "6,7,8;"

[[pieces]]
name = "King"
side = "blue"
captain = true
moves = "1,2,3,4,5,6,7,8;"
"""


def problems_of_file(path: Path) -> list[str]:
    """The problems listed for ``path``, checking the error names the file first."""
    with pytest.raises(VariantError) as info:
        load_file(path)
    assert str(info.value).startswith(f"{path.name}: ")
    return info.value.problems


def test_the_example_loads(tmp_path: Path) -> None:
    """The file these tests break is itself sound."""
    path = tmp_path / "skirmish.toml"
    path.write_text(SKIRMISH, encoding="utf-8")
    variant = load_file(path)
    assert (variant.id, variant.rows, variant.cols, len(variant.pieces)) == ("skirmish", 4, 4, 6)


def test_a_utf8_file_saved_with_a_byte_order_mark_loads(tmp_path: Path) -> None:
    """Windows editors (Notepad's "UTF-8 with BOM", Excel's CSV-minded tools) start UTF-8 files
    with U+FEFF. tomllib refused it as 'Invalid statement (at line 1, column 1)', which points at
    nothing the author can see; the mark is not content, so the file reads as without it."""
    path = tmp_path / "skirmish.toml"
    path.write_bytes(b"\xef\xbb\xbf" + SKIRMISH.encode("utf-8"))
    assert load_file(path).name == "Skirmish"


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (SKIRMISH.replace('"Skirmish"', '"Skïrmish"').encode("latin-1"), "line 2, column 11"),
        (SKIRMISH.encode("utf-16"), "UTF-16"),
        (SKIRMISH.encode("utf-16-le"), "UTF-16"),
    ],
)
def test_a_file_in_another_encoding_names_the_line_and_column(
    tmp_path: Path, data: bytes, fragment: str
) -> None:
    """A Latin-1 'ï' was reported as 'not UTF-8 text (byte 41)': the author's editor shows lines
    and columns, not byte offsets. A UTF-16 file (Notepad's "Unicode") is named as such."""
    path = tmp_path / "skirmish.toml"
    path.write_bytes(data)
    (problem,) = problems_of_file(path)
    assert problem.startswith("not UTF-8 text") and fragment in problem
    assert "save" in problem


def test_a_piece_is_named_by_its_id_as_the_layout_uses_it(tmp_path: Path) -> None:
    """Piece ids start at 1 (FORMAT.md; the layout uses them), but problems named the second piece
    'pieces[1]', so an author looking for piece 1 fixed the wrong [[pieces]] table, and with both
    sides' pieces named alike ('Rook' is 1 and 4 here) the name did not tell them apart."""
    path = tmp_path / "skirmish.toml"
    text = SKIRMISH.replace('moves = "1,2,3;"', 'moves = "1,2,9;"')
    path.write_text(text.replace('side = "blue"\nmoves = ";2,4,5,7"', 'side = "bleu"\nmoves = ";"'))
    assert problems_of_file(path) == [
        "piece 2 (Pawn).moves: steps: unknown direction '9' (directions are 1 to 8)",
        "piece 4 (Rook).side: must be red, blue or neutral (1, 2, 3), not 'bleu'",
    ]


def test_a_board_without_captains_is_refused_where_nobody_could_win(tmp_path: Path) -> None:
    """Only capturing a captain wins (no_legal_move defaults to draw), so a file without any
    ``captain = true`` loaded as 'ok' and every game of it could only be drawn. Refused, naming
    each side without a captain on the board and the two ways out."""
    path = tmp_path / "skirmish.toml"
    path.write_text(SKIRMISH.replace("captain = true\n", ""), encoding="utf-8")
    found = problems_of_file(path)
    assert [p.split(":")[0] for p in found] == [
        "red can never lose",
        "blue can never lose",
    ]
    assert "board.layout has no blue captain" in found[1]
    assert "captain = true" in found[1] and 'no_legal_move = "lose"' in found[1]


def test_a_side_whose_captain_is_not_placed_is_refused(tmp_path: Path) -> None:
    """Blue's king is a captain, but the layout forgot to place it (its square holds a rook)."""
    path = tmp_path / "skirmish.toml"
    path.write_text(SKIRMISH.replace('"4 5 6 .",', '"4 5 4 .",'), encoding="utf-8")
    (problem,) = problems_of_file(path)
    assert problem.startswith("blue can never lose: board.layout has no blue captain")


def test_without_captains_a_side_left_without_moves_loses(tmp_path: Path) -> None:
    """With ``no_legal_move = "lose"`` a game without captains is decided (capture everything, or
    leave the other side without a move): accepted."""
    path = tmp_path / "skirmish.toml"
    text = SKIRMISH.replace("captain = true\n", "")
    path.write_text(text.replace("promotion = true", 'promotion = true\nno_legal_move = "lose"'))
    assert load_file(path).rules.no_legal_move == "lose"


def edited_map(tmp_path: Path, name: str, cells: dict[tuple[str, str], object]) -> Path:
    """A copy of the real example map (never into the repository) with some cells changed."""
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.load_workbook(EXAMPLE)
    for (sheet, cell), value in cells.items():
        book[sheet][cell] = value
    path = tmp_path / name
    book.save(path)
    return path


@needs_maps
def test_a_jbq_map_without_captains_is_refused(tmp_path: Path) -> None:
    """JBQ maps play with no_legal_move = draw: the example map with its two 'c' cleared could
    never be won. The problem says where a JBQ map marks a captain."""
    path = edited_map(
        tmp_path, "nocaptain.xlsx", {("chesses", "D2"): None, ("chesses", "D3"): None}
    )
    found = problems_of_file(path)
    assert len(found) == 2 and all("column D of sheet 'chesses'" in p for p in found)


@needs_maps
@pytest.mark.parametrize(
    ("cells", "expected"),
    [
        (
            {("map", "B1"): "six"},
            "sheet 'map' cell B1 (rows): must be a whole number 1..20, not 'six'",
        ),
        (
            {("map", "D1"): 5.5},
            "sheet 'map' cell D1 (columns): must be a whole number 1..20, not 5.5",
        ),
        ({("map", "B1"): 50}, "sheet 'map' cell B1 (rows): must be a whole number 1..20, not 50"),
        ({("map", "B1"): None}, "sheet 'map' cell B1 (rows): must be a whole number 1..20, empty"),
        (
            {("chesses", "C3"): "blue"},
            "sheet 'chesses' row 3: side (column C) must be 1, 2 or 3, not 'blue'",
        ),
        (
            {("chesses", "C3"): None},
            "sheet 'chesses' row 3: side (column C) must be 1, 2 or 3, empty",
        ),
        (
            {("map", "C4"): "JPS"},
            "sheet 'map' cell C4 (row 4, column 3): 'JPS' is not a piece id 1..13",
        ),
    ],
)
def test_a_jbq_map_cell_of_the_wrong_kind_is_named_with_what_it_holds(
    tmp_path: Path, cells: dict[tuple[str, str], object], expected: str
) -> None:
    """'B1 (rows) and D1 (columns) must be 1..20, got 0, 5' for a B1 holding 'six' (or 5.5)
    reported a 0 the sheet does not hold; a side 'blue' was 'must be 1, 2 or 3' without saying
    what was there. Each problem now names the cell as Excel does and what it holds."""
    assert problems_of_file(edited_map(tmp_path, "example.xlsx", cells)) == [expected]


def test_pieces_written_as_one_table_is_one_problem_that_says_how(tmp_path: Path) -> None:
    """``[pieces]`` (one bracket pair) instead of ``[[pieces]]`` gave the pieces problem and then
    one 'is not '.' or a piece id 1..0' per occupied square (10 more here), burying the cause."""
    path = tmp_path / "skirmish.toml"
    before, first, _ = SKIRMISH.split("[[pieces]]", 2)
    path.write_text(before + "[pieces]" + first, encoding="utf-8")
    assert problems_of_file(path) == [
        "pieces: is one table ([pieces]); write [[pieces]] (two brackets) before each piece type"
    ]


FORMAT_MD = Path(__file__).resolve().parents[2] / "engines" / "custom" / "FORMAT.md"


def test_the_format_documents_example_is_a_sound_variant(tmp_path: Path) -> None:
    """FORMAT.md's first variant, copied as an author would, loads under the id it promises and
    plays as its comments say: a red pawn that reaches row 1 becomes a queen."""
    text = FORMAT_MD.read_text(encoding="utf-8")
    example = text.split("```toml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "skirmish.toml"
    path.write_text(example, encoding="utf-8")
    variant = load_file(path)
    assert (variant.id, variant.name, variant.rows, variant.cols) == ("skirmish", "Skirmish", 6, 6)
    assert [(p.name, p.side, p.captain) for p in variant.pieces] == [
        ("Rook", 1, False),
        ("Pawn", 1, False),
        ("King", 1, True),
        ("Rook", 2, False),
        ("Pawn", 2, False),
        ("King", 2, True),
    ]
    engine = CustomEngine()
    engine.register(variant)
    rows = [". . 6 . . .", "2 . . . . .", *[". . . . . ."] * 3, ". . 3 . . ."]
    board = "/".join(row.replace(" ", ",") for row in rows)
    state = engine.start("skirmish", position=f"skirmish;first;0,0;{board}")
    after = engine.play(state, "2,1-1,1")
    assert engine.position(after).split(";")[3].startswith("2*")


@needs_maps
@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda sheet: sheet.delete_cols(3),
            "sheet 'chesses' row 1: column C is titled '首领' (captain), which belongs in column"
            " D; a column was deleted or moved. JBQ's columns are A 编号 (id), B 名称 (name),"
            " C 归属 (side), D 首领 (captain), E 可移动 (movement), F 升变条件 (promotion"
            " condition), G 升变后可移动 (promoted movement)",
        ),
        (
            lambda sheet: sheet.insert_cols(2),
            "sheet 'chesses' row 1: column C is titled '名称' (name), which belongs in column"
            " B; a column was deleted or moved. JBQ's columns are A 编号 (id), B 名称 (name),"
            " C 归属 (side), D 首领 (captain), E 可移动 (movement), F 升变条件 (promotion"
            " condition), G 升变后可移动 (promoted movement)",
        ),
    ],
    ids=["deleted", "inserted"],
)
def test_a_jbq_map_with_a_column_deleted_or_inserted_says_so_once(
    tmp_path: Path, change: Any, expected: str
) -> None:
    """Deleting the side column moved every later one left: 39 problems followed, one or two per
    piece (a side of 'c', movements read from the promotion column), none naming the cause. The
    header row still says which title sits where: one problem naming the first misplaced one."""
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.load_workbook(EXAMPLE)
    change(book["chesses"])
    path = tmp_path / "example.xlsx"
    book.save(path)
    assert problems_of_file(path) == [expected]


LAYOUT_AT = SKIRMISH.index("layout = [")
LAYOUT = SKIRMISH[LAYOUT_AT : SKIRMISH.index("]\n", LAYOUT_AT) + 2]


@pytest.mark.parametrize(
    ("forgotten", "expected"),
    [
        ("rows = 4\n", "board.rows: must be a whole number 1..20, not a missing key"),
        ('side = "red"\n', "piece 1 (Rook).side: must be red, blue or neutral (1, 2, 3), not a"),
        (LAYOUT, "board.layout: must be a list of row texts, not a missing key"),
    ],
    ids=["rows", "side", "layout"],
)
def test_a_missing_key_is_called_missing_not_none(
    tmp_path: Path, forgotten: str, expected: str
) -> None:
    """A forgotten ``rows``, ``side`` or ``layout`` was reported as 'not None' or 'not
    NoneType': Python's words for a value the author never wrote."""
    path = tmp_path / "skirmish.toml"
    path.write_text(SKIRMISH.replace(forgotten, "", 1), encoding="utf-8")
    (problem,) = problems_of_file(path)
    assert problem.startswith(expected) and "None" not in problem, problem


def test_check_reads_a_directory_as_the_server_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``check DIR`` was 'a variant file must end in .toml': the author could not check what
    ``boardhall-server --variants DIR`` would load. It now loads the directory as the server
    does (every file, ids against each other and the built-in variants) and names the files the
    server would not read."""
    from engines.custom.__main__ import main

    (tmp_path / "a.toml").write_text(SKIRMISH, encoding="utf-8")
    (tmp_path / "notes.md").write_text("ideas", encoding="utf-8")
    assert main(["check", str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"{tmp_path}: ok (a: Skirmish, 4x4)\n"
    (tmp_path / "b.toml").write_text(SKIRMISH.replace("format", 'id = "stones"\nformat'))
    (tmp_path / "c.toml.txt").write_text(SKIRMISH, encoding="utf-8")
    assert main(["check", str(tmp_path)]) == 2
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err.splitlines() == [
        f"error: {tmp_path}: 1 problem:",
        "  - b.toml: id 'stones' is already used by River Stones (a built-in variant); give this"
        " variant another id",
        "warning: c.toml.txt is not read: a variant file's name ends in .toml or .xlsx (Windows"
        " may hide a .txt ending: rename the file)",
    ]


def test_check_warns_of_promotions_that_can_never_happen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``promote_when`` is read only with ``rules.promotion = true``. A file that forgot the
    switch was 'ok' and its pawns never promoted: legal (a converted JBQ map may have it so),
    but ``check`` now says which pieces' promotions are never used."""
    from engines.custom.__main__ import main

    path = tmp_path / "skirmish.toml"
    path.write_text(SKIRMISH.replace("promotion = true", "promotion = false"), encoding="utf-8")
    assert main(["check", str(path)]) == 0
    said = capsys.readouterr()
    assert said.out == f"{path}: ok (skirmish: Skirmish, 4x4)\n"
    assert said.err == (
        "warning: skirmish.toml: piece 2 (Pawn).promote_when is never used: rules.promotion is"
        " false\n"
    )
    path.write_text(SKIRMISH, encoding="utf-8")
    assert main(["check", str(path)]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ("2(X[1],4;", "steps: direction '2(X[1]' opens '(' and never closes it"),
        ("2X[1]),4;", "steps: direction '2X[1])' closes ')' it never opened"),
        ("2,4;7(X[1]", "slides: direction '7(X[1]' opens '(' and never closes it"),
    ],
)
def test_a_condition_missing_a_parenthesis_says_so(
    tmp_path: Path, rule: str, expected: str
) -> None:
    """'2(X[1]' was an 'unknown direction ... (directions are 1 to 8)', which sends the author
    looking at the digit; the missing ')' is what is wrong."""
    path = tmp_path / "skirmish.toml"
    path.write_text(SKIRMISH.replace('moves = "1,2,3;"', f'moves = "{rule}"'), encoding="utf-8")
    assert problems_of_file(path) == [f"piece 2 (Pawn).moves: {expected}"]
