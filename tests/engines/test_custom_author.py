"""A variant author's mistakes, as the documentation leads them to write files: each refused (or,
where harmless, read) with the file, the place and what was wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from engines.custom import VariantError
from engines.custom.catalog import load_file

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
