"""The variant file format: validation of untrusted files, directories, variant_info, TOML."""

from __future__ import annotations

import contextlib
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.base import BadPosition, EngineError, IllegalMove, UnknownVariant
from engines.custom import ENGINE, CustomEngine, VariantError, load_directory, parse_definition
from engines.custom.catalog import MAX_TOML_BYTES, load_file, load_toml_text, shipped
from engines.custom.definition import to_toml

GOOD = """
name = "Tiny"
description = "two kings and a rook"
[board]
rows = 3
cols = 3
layout = ["2 . .", ". . .", ". 3 1"]
[rules]
no_legal_move = "lose"
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
[[pieces]]
name = "R"
side = "red"
moves = ";2,4,5,7"
"""


def problems_of(text: str) -> list[str]:
    with pytest.raises(VariantError) as info:
        load_toml_text(text, default_id="bad")
    assert isinstance(info.value, BadPosition) and isinstance(info.value, EngineError)
    return info.value.problems


def test_good_file_loads() -> None:
    """A small valid file gives the variant it describes."""
    v = load_toml_text(GOOD, default_id="tiny")
    assert (v.id, v.name, v.rows, v.cols) == ("tiny", "Tiny", 3, 3)
    assert v.layout == ((2, 0, 0), (0, 0, 0), (0, 3, 1))
    assert v.rules.no_legal_move == "lose" and v.rules.undo and not v.rules.promotion


def test_every_problem_is_reported_with_its_location() -> None:
    """One error lists all problems, each naming the piece/field or layout cell."""
    text = """
modules = ["xiangqi", "magic"]
colour = "red"
[board]
rows = 3
cols = 3
layout = ["2 . .", ". 9 .", ". 3"]
[rules]
no_legal_move = "maybe"
undo = "yes"
[[pieces]]
name = "K"
side = "red"
captain = true
moves = "1,2,9;"
[[pieces]]
name = "k"
side = "purple"
moves = "2(Q[1]);7(NP[1|1])"
[[pieces]]
name = "N"
side = "neutral"
captain = true
moves = "2;;5"
promote_when = "X[1]"
role = "wizard"
"""
    found = problems_of(text)
    joined = "\n".join(found)
    expected = [
        "modules: unknown module 'magic'",
        "unknown key 'colour'",
        "board.layout row 2, column 2: '9'",
        "board.layout row 3: has 2 cells",
        "rules.no_legal_move",
        "rules.undo: must be true or false",
        "piece 1 (K).moves: steps: unknown direction '9'",
        "piece 2 (k).side",
        "piece 2 (k).moves: unknown condition Q",
        "condition NP needs module 'conditions'",
        "piece 3 (N).captain: a neutral piece cannot be a captain",
        "move groups beyond the second",
        "piece 3 (N).promoted_moves: missing",
        "unknown role 'wizard'",
    ]
    for fragment in expected:
        assert fragment in joined, fragment
    assert len(found) >= len(expected)
    assert "unknown condition Q" in joined


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (GOOD.replace("rows = 3", "rows = 1000000000"), "board.rows: 1000000000 is outside 1..20"),
        (GOOD.replace("cols = 3", "cols = 21"), "board.cols: 21 is outside 1..20"),
        (GOOD.replace("rows = 3", 'rows = "3"'), "board.rows: must be a whole number"),
        (GOOD.replace('name = "Tiny"', "name = 5"), "name: must be text"),
        ("a = " + "[" * 50000 + "]" * 50000, "nested too deeply"),
        ("pieces = 3\nboard = 4", "pieces: must be a non-empty list"),
        ("[[pieces]]\n" * 65 + "", "pieces: 65 piece types, at most 64"),
        ("= = =", "not valid TOML"),
        ("[board]\nrows = 1" + "0" * 5000, "not readable as TOML"),
        ("[board]\nrows = 9" + "9" * 4000, "board.rows: a huge number is outside"),
        (GOOD.replace(";2,4,5,7", ";2(X[" + "1|" * 70 + "1])"), "more than 64 numbers"),
        (GOOD.replace(";2,4,5,7", ";2(X[99999999999999999])"), "whole numbers"),
        (GOOD.replace(";2,4,5,7", ";2(R[1|1|3|4])"), "needs module 'conditions'"),
        (GOOD.replace(";2,4,5,7", ";" + "2," * 3000), "longer than 4000"),
        ('format = "other/9"\n' + GOOD, "format: must be"),
        (GOOD.replace('side = "red"\nmoves = ";2', 'side = true\nmoves = ";2'), "side: must be"),
        (GOOD.replace('layout = ["2 . .", ". . .", ". 3 1"]', "layout = 7"), "board.layout: must"),
    ],
)
def test_hostile_or_corrupt_files_give_our_error(text: str, fragment: str) -> None:
    """Huge boards, deep nesting, bad types, overlong rules: a VariantError, never a crash."""
    assert fragment in "\n".join(problems_of(text))


def test_bad_files_on_disk(tmp_path: Path) -> None:
    """Non-UTF-8, oversized, wrongly named, corrupt .xlsx files: all refused with our error."""
    cases = {
        "latin.toml": b"name = '\xff'",
        "big.toml": b"#" * (MAX_TOML_BYTES + 10),
        "notes.txt": b"name = 'x'",
        "garbage.xlsx": bytes(range(256)) * 10,
    }
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
    with zipfile.ZipFile(tmp_path / "zip.xlsx", "w") as z:
        z.writestr("hello.txt", "not a workbook")
    for name in [*cases, "zip.xlsx", "missing.toml"]:
        with pytest.raises(VariantError):
            load_file(tmp_path / name)


def make_book(
    path: Path, chesses: list[list[Any]], grid: list[list[Any]], rules: bool = True
) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "chesses"
    for row in chesses:
        sheet.append(row)
    m = book.create_sheet("map")
    for row in grid:
        m.append(row)
    if rules:
        r = book.create_sheet("rules")
        for row in (
            ["编号", "描述", "选择"],
            [1, "启用升变", "c"],
            [2, "启用悔棋", None],
            [3, "x", "c"],
        ):
            r.append(row)
    book.save(path)


HEADER = ["编号", "名称", "归属", "首领", "可移动", "升变条件", "升变后可移动"]


def test_xlsx_written_here_imports(tmp_path: Path) -> None:
    """A workbook written here reads with the JBQ layout (B1 rows, D1 columns, rules C2..C4)."""
    path = tmp_path / "mini(3x3).xlsx"
    make_book(
        path,
        [HEADER, [1, "甲", 1, "c", "2,7;", None, ";"], [2, '"22"', 2, "c", "2,7;", None, ";"]],
        [["行", 3, "列", 3], [2, None, None], [None, None, None], [None, None, 1]],
    )
    engine = CustomEngine()
    engine.accept_paths = True
    vid = engine.resolve_variant(str(path))
    v = engine.definition(vid)
    assert vid == "mini-3x3" and v.pieces[1].name == "22" and v.layout[2] == (0, 0, 1)
    assert v.rules.promotion and not v.rules.undo and v.rules.neutral_limit


def test_xlsx_np_plays_as_jbq_computes_it(tmp_path: Path) -> None:
    """JBQ's NP compares 0-based squares with its raw numbers; the importer keeps that meaning."""
    path = tmp_path / "np.xlsx"
    make_book(
        path,
        [
            HEADER,
            [1, "甲", 1, "c", ";", None, ";"],
            [2, "乙", 2, "c", "5;", None, ";"],  # a map where blue never moves is refused
            [3, "丙", 1, None, "2(NP[1|1]);", None, ";"],
            [4, "丁", 1, None, "2(NP[-1|1]);", None, ";"],
        ],
        [["行", 3, "列", 3], [2, None, None], [None, 3, None], [1, 3, 4]],
    )
    engine = CustomEngine()
    engine.accept_paths = True
    vid = engine.resolve_variant(str(path))
    assert engine.definition(vid).pieces[2].moves_text == "2(NP[2|2]);"
    moves = engine.legal_moves(engine.start(vid))
    assert "2,2-1,2" not in moves  # 0-based (1, 1) is excluded by JBQ's NP[1|1]
    assert "3,2-2,2" not in moves  # blocked by the piece on 2,2
    assert "3,3-2,3" in moves  # NP[-1|1] excludes nothing in JBQ
    assert (
        parse_definition(
            {
                "id": "own",
                "modules": ["conditions"],
                "board": {"rows": 3, "cols": 3, "layout": ["2 . .", ". 3 .", "1 . ."]},
                "pieces": [
                    {"name": "K", "side": "red", "captain": True, "moves": ";"},
                    {"name": "k", "side": "blue", "captain": True, "moves": ";"},
                    {"name": "Q", "side": "red", "moves": "2(NP[2|2]);"},
                ],
            }
        )
        .pieces[2]
        .moves_text
        == "2(NP[2|2]);"
    )  # our own files: NP reads like P, unchanged


def test_xlsx_problems_are_all_named(tmp_path: Path) -> None:
    """Missing sheet, unknown condition, extension column and bad grid ids in one message."""
    path = tmp_path / "broken.xlsx"
    make_book(
        path,
        [
            [*HEADER, "is_pr"],
            [1, "甲", 1, "c", "2(Z[1]),7;", None, ";", "c"],
            [2, "乙", 5, "c", "2,7;", None, ";", None],
        ],
        [["行", 2, "列", 2], [2, 7], [None, 1]],
        rules=False,
    )
    with pytest.raises(VariantError) as info:
        load_file(path)
    text = str(info.value)
    for fragment in (
        "sheet 'rules' is missing",
        "side (column C)",
        "'is_pr'",
        "'7' is not a piece",
    ):
        assert fragment in text, fragment


def test_directory_loading_all_or_nothing(tmp_path: Path) -> None:
    """load_directory registers every file, or none and lists each bad file by name."""
    good = tmp_path / "good"
    good.mkdir()
    (good / "tiny.toml").write_text(GOOD, encoding="utf-8")
    (good / "readme.md").write_text("ignored", encoding="utf-8")
    engine = CustomEngine()
    assert engine.load_directory(good) == ["tiny"]
    assert "tiny" in [v.id for v in engine.variants()]
    assert engine.start("tiny").turn == "first"

    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "a.toml").write_text(GOOD.replace('name = "Tiny"', 'id = "same"'), encoding="utf-8")
    (bad / "b.toml").write_text(GOOD.replace('name = "Tiny"', 'id = "same"'), encoding="utf-8")
    (bad / "c.toml").write_text("rows = ", encoding="utf-8")
    fresh = CustomEngine()
    with pytest.raises(VariantError) as info:
        fresh.load_directory(bad)
    text = str(info.value)
    assert "b.toml: id 'same' is also the id of a.toml" in text and "c.toml:" in text
    with pytest.raises(UnknownVariant):
        fresh.resolve_variant("same")


def test_module_level_load_directory_and_id_clash(tmp_path: Path) -> None:
    """engines.custom.load_directory uses ENGINE; a taken id with another variant is refused."""
    d = tmp_path / "v"
    d.mkdir()
    (d / "xiangqi.toml").write_text(GOOD, encoding="utf-8")
    with pytest.raises(VariantError, match="already used"):
        load_directory(d)
    assert ENGINE.definition("xiangqi").rows == 10


def test_variants_listing_and_info() -> None:
    """variants() lists the shipped variants with descriptions; variant_info is complete JSON."""
    engine = CustomEngine()
    listed = engine.variants()
    assert [v.id for v in listed][:3] == ["xiangqi", "stones", "guards"]
    assert all(v.description for v in listed)
    assert engine.default_variant() == "xiangqi"
    info = engine.variant_info("xiangqi")
    json.dumps(info)
    assert info["board"]["rows"] == 10 and info["board"]["cols"] == 9
    assert info["board"]["grid"][9][4] == 1
    horse = info["pieces"][10]
    assert horse["name"] == "傌" and horse["side"] == "red" and horse["role"] == "horse"
    general = info["pieces"][0]
    assert general["captain"] is True and general["id"] == 1
    assert {"dir": 2, "when": "X[-1|-2]"} in general["steps"]
    soldier = info["pieces"][12]
    assert soldier["promote_when"] and [s["dir"] for s in soldier["promoted_steps"]] == [2, 4, 5]
    again = CustomEngine()
    copy = again.definition(again.load_data({**info, "id": "copy"}))  # as stored by the server
    assert copy == parse_definition({**info, "id": "copy"})
    assert (copy.pieces, copy.layout, copy.rules) == (
        engine.definition("xiangqi").pieces,
        engine.definition("xiangqi").layout,
        engine.definition("xiangqi").rules,
    )
    with pytest.raises(UnknownVariant):
        engine.variant_info("nope")


def test_shipped_variants_show_the_features() -> None:
    """Shipped originals use neutral pieces, promotion and conditions (module and core)."""
    by_id = {v.id: v for v in shipped()}
    stones, guards = by_id["stones"], by_id["guards"]
    assert any(p.side == 3 for p in stones.pieces) and stones.rules.neutral_limit
    assert stones.rules.promotion and any(p.promote_when for p in stones.pieces)
    assert any(d.when for p in stones.pieces for d in p.moves.slides)
    assert guards.modules == ("conditions",)
    names = {a.name for p in guards.pieces for a in p.moves.atoms() + list(p.promote_when)}
    assert {"D", "R", "T", "C"} <= names
    assert by_id["xiangqi"].rules.self_check and by_id["xiangqi"].modules == ("xiangqi",)


@pytest.mark.parametrize("vid", ["xiangqi", "stones", "guards"])
def test_toml_output_round_trips(vid: str) -> None:
    """to_toml writes a file that loads as the same variant (quotes and CJK included)."""
    v = CustomEngine().definition(vid)
    tricky = v.__class__(**{**v.__dict__, "description": 'say "hi" \\ 你好\nline'})
    assert load_toml_text(to_toml(tricky, header="a\nb")) == tricky


# ---- nothing crashes the parsers ----------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300))
def test_any_text_as_a_variant_file_gives_variant_error_or_variant(text: str) -> None:
    """No text crashes the loader."""
    with contextlib.suppress(VariantError):
        load_toml_text(text)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 30) | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(
    st.fixed_dictionaries(
        {},
        optional={
            "board": st.fixed_dictionaries(
                {}, optional={"rows": json_values, "cols": json_values, "layout": json_values}
            ),
            "pieces": st.lists(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "name": json_values,
                        "side": json_values,
                        "moves": st.text(alphabet="0123456789;,()[]|&-XYPNCDRT", max_size=30),
                        "promote_when": json_values,
                        "captain": json_values,
                    },
                ),
                max_size=4,
            ),
            "rules": json_values,
            "modules": json_values,
            "id": json_values,
        },
    )
)
def test_any_data_as_a_definition(data: dict[str, Any]) -> None:
    """Arbitrary JSON-like definitions give a Variant or a VariantError."""
    with contextlib.suppress(VariantError):
        parse_definition(data)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=120))
def test_any_position_or_move_text(text: str) -> None:
    """Position strings raise BadPosition only; move texts raise IllegalMove only."""
    engine = ENGINE
    for candidate in (text, "xiangqi;" + text, "stones;first;0,0;" + text):
        with contextlib.suppress(BadPosition):
            engine.start(None, position=candidate)
    with contextlib.suppress(IllegalMove):
        engine.play(engine.start("stones"), text)


def test_check_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m engines.custom check`` says ok for good files and lists problems of bad ones."""
    from engines.custom.__main__ import main

    good, bad = tmp_path / "tiny.toml", tmp_path / "bad.toml"
    good.write_text(GOOD, encoding="utf-8")
    bad.write_text(GOOD.replace('moves = ";2,4,5,7"', 'moves = "9;"'), encoding="utf-8")
    assert main(["check", str(good)]) == 0
    assert "ok (tiny: Tiny, 3x3)" in capsys.readouterr().out
    assert main(["check", str(good), str(bad)]) == 2
    out = capsys.readouterr()
    assert "unknown direction '9'" in out.err and "tiny.toml: ok" in out.out


@pytest.mark.parametrize("cond", ["X[١]", "P[1|٢]", "Y[-３]"])
def test_condition_numbers_are_ascii_digits_only(cond: str) -> None:
    """A condition's numbers in other scripts' digits are refused (``X[١]`` was read as X[1])."""
    from engines.custom.grammar import parse_condition

    atoms, problems = parse_condition(cond)
    assert atoms == () and any("whole numbers" in p for p in problems)
