"""An audit of custom variants as a map author or downloader meets them (RULES.md section 5).

Every JBQ map of ../shared/jbq-maps and every shipped variant: loads, plays seeded random games to
an end RULES.md names, round-trips its position strings; hand-made positions check the move rules
(promotion, captures, neutrals, palace and river conditions) against the rules text; hostile and
broken files are refused with one clear error naming the file, in bounded time and memory.

The maps are read from ../shared/jbq-maps (MIT, see its LICENSE-NOTE.md), never copied here.
"""

from __future__ import annotations

import os
import random
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engines.base import BadPosition, IllegalMove
from engines.custom import CustomEngine, CustomState, VariantError
from engines.custom.catalog import load_directory, load_file, load_toml_text

MAPS = Path(os.environ.get("BOARDHALL_JBQ_MAPS", Path(os.environ["BOARDHALL_SHARED"], "jbq-maps")))
EXAMPLE = MAPS / "example(5x6).xlsx"
STANDARD = MAPS / "standard(7x7).xlsx"
XIANGQI = MAPS / "中国象棋.xlsx"
PLAYABLE_MAPS = [EXAMPLE, STANDARD, XIANGQI]
SHIPPED = ["xiangqi", "stones", "guards"]
REASONS = {"captain", "no_moves", "move_limit"}
"""Result reasons RULES.md section 5 gives a custom game that is played out (no resign/timeout)."""

needs_maps = pytest.mark.skipif(not EXAMPLE.exists(), reason="JBQ maps not available")


@pytest.fixture
def engine() -> CustomEngine:
    """An engine as a local tool uses it (map paths allowed)."""
    local = CustomEngine()
    local.accept_paths = True
    return local


def load(engine: CustomEngine, path: Path) -> str:
    return engine.resolve_variant(str(path))


def place(
    engine: CustomEngine,
    vid: str,
    cells: dict[tuple[int, int], str],
    turn: str = "first",
    counters: str = "0,0",
) -> CustomState:
    """A state of ``vid`` with only ``cells`` (``(row, col) -> "3"`` or ``"3*"``) on the board."""
    v = engine.definition(vid)
    rows = [["."] * v.cols for _ in range(v.rows)]
    for (r, c), code in cells.items():
        rows[r - 1][c - 1] = code
    text = f"{vid};{turn};{counters};" + "/".join(",".join(row) for row in rows)
    return engine.start(vid, position=text)


def targets(engine: CustomEngine, state: CustomState, square: str) -> set[str]:
    """Destinations of the legal moves from ``square``."""
    return {m.split("-")[1] for m in engine.legal_moves(state) if m.split("-")[0] == square}


# ---- 1. every map and shipped variant plays to an end, positions round-trip ---------------------


@pytest.mark.parametrize(
    "source", [*SHIPPED, *(pytest.param(p, marks=needs_maps, id=p.stem) for p in PLAYABLE_MAPS)]
)
def test_random_games_end_as_the_rules_say(engine: CustomEngine, source: str | Path) -> None:
    """Seeded random games of legal moves end with a result and reason RULES.md names; every
    position string on the way reloads as the same position with the same moves."""
    vid = load(engine, source) if isinstance(source, Path) else source
    seen: set[str] = set()
    for seed in range(12):
        rng = random.Random(seed)
        state = engine.start(vid, options={"max_plies": 150})
        while True:
            text = engine.position(state)
            again = engine.start(vid, position=text)
            assert engine.position(again) == text
            assert (again.board, again.turn, again.neutral) == (
                state.board,
                state.turn,
                state.neutral,
            )
            outcome = engine.outcome(state)
            if outcome is not None:
                break
            moves = engine.legal_moves(state)
            assert moves and engine.legal_moves(again) == moves
            state = engine.play(state, rng.choice(moves))
        assert engine.legal_moves(state) == []
        assert outcome.reason in REASONS
        assert (outcome.winner is None) == (outcome.reason != "captain" and (
            outcome.reason == "move_limit" or engine.definition(vid).rules.no_legal_move == "draw"
        ))
        with pytest.raises(IllegalMove, match="over"):
            engine.play(state, "1,1-1,2")
        seen.add(outcome.reason)
    assert "captain" in seen or "no_moves" in seen


@needs_maps
@pytest.mark.parametrize("path", PLAYABLE_MAPS, ids=lambda p: p.stem)
def test_map_definitions_survive_variant_info(engine: CustomEngine, path: Path) -> None:
    """What the server sends (variant_info) and stores registers again as the same variant."""
    vid = load(engine, path)
    again = CustomEngine()
    assert again.load_data(engine.variant_info(vid)) == vid
    assert again.definition(vid) == engine.definition(vid)
    assert again.perft(again.start(vid), 2) == engine.perft(engine.start(vid), 2)


# ---- hand-made positions against the rules text -------------------------------------------------


@needs_maps
def test_example_promotion_is_for_good_and_changes_the_rule(engine: CustomEngine) -> None:
    """开干 (3, steps 2,4,5,7) reaching row 1 becomes 1,2,3,4,5,7 steps, also after stepping
    back; 曹子 (5) promoted slides down (7). Blue's pieces promote on the last row."""
    vid = load(engine, EXAMPLE)
    kings = {(1, 1): "2", (6, 5): "1"}
    s = place(engine, vid, {**kings, (2, 3): "3", (4, 3): "5*"})
    assert targets(engine, s, "2,3") == {"1,3", "2,2", "2,4", "3,3"}
    s = engine.play(s, "2,3-1,3")
    assert engine.position(s).split(";")[3].split("/")[0] == "2,.,3*,.,."
    s = engine.play(s, "1,1-2,1")
    assert targets(engine, s, "1,3") == {"1,2", "1,4", "2,3"}
    assert targets(engine, s, "4,3") == {"3,2", "3,3", "3,4", "5,3", "6,3"}  # 1,2,3 ; 7 slides
    s = engine.play(s, "1,3-2,3")
    assert "3*" in engine.position(s)  # promoted for good
    # An opposing piece standing where it promotes is promoted after any move (the scan).
    s = place(engine, vid, {**kings, (6, 1): "4", (4, 4): "3"})
    s = engine.play(s, "4,4-3,4")
    assert engine.position(s).split(";")[3].split("/")[5] == "4*,.,.,.,1"


@needs_maps
def test_example_captures_captains_and_neutrals(engine: CustomEngine) -> None:
    """Moving onto an opposing piece captures it; own pieces and neutrals are never captured;
    neutrals move for either player but never capture; taking a captain wins at once."""
    vid = load(engine, EXAMPLE)
    s = place(
        engine, vid, {(1, 1): "2", (6, 5): "1", (3, 3): "3", (2, 3): "4", (3, 4): "13", (3, 2): "9"}
    )
    assert targets(engine, s, "3,3") == {"2,3", "4,3"}  # 4 is blue; 13 neutral; 9 own
    assert targets(engine, s, "3,4") == {"2,4", "4,4", "3,5"}  # the egg: not onto 3,3
    after = engine.play(s, "3,3-2,3")
    assert engine.position(after).split(";")[3].split("/")[1] == ".,.,3,.,."
    s = place(engine, vid, {(1, 1): "2", (6, 5): "1", (2, 2): "1"})
    out = engine.outcome(engine.play(s, "2,2-1,1"))
    assert out is not None
    assert (out.winner, out.reason, out.highlight) == ("first", "captain", ("1,1",))


@needs_maps
def test_example_neutral_limit_two_turns_in_a_row(engine: CustomEngine) -> None:
    """The neutral limit: neutrals may be moved on at most 2 consecutive own turns; a turn without
    one starts the count again. Counters are in the position string."""
    vid = load(engine, EXAMPLE)
    s = place(engine, vid, {(1, 1): "2", (6, 5): "1", (3, 3): "13"})
    for move in ("3,3-4,3", "1,1-1,2", "4,3-3,3", "1,2-1,1"):
        s = engine.play(s, move)
    assert engine.position(s).split(";")[2] == "2,0"
    assert all(m.startswith("6,5-") for m in engine.legal_moves(s))
    with pytest.raises(IllegalMove, match="last 2 turns"):
        engine.play(s, "3,3-4,3")
    for move in ("6,5-6,4", "1,1-1,2"):
        s = engine.play(s, move)
    assert engine.position(s).split(";")[2] == "0,0" and "3,3-4,3" in engine.legal_moves(s)
    # Blue may move the same egg too, and has its own count.
    s = engine.play(s, "3,3-4,3")
    assert "4,3-5,3" in engine.legal_moves(s)
    assert engine.position(engine.play(s, "4,3-5,3")).split(";")[2] == "1,1"


@needs_maps
def test_jbq_xiangqi_palace_and_river(engine: CustomEngine) -> None:
    """The JBQ Chinese-chess map's conditions: the general and advisors stay in the palace, the
    elephant does not cross the river, the soldier steps sideways only once promoted (row 5)."""
    vid = load(engine, XIANGQI)
    generals = {(10, 6): "1", (1, 4): "2"}
    s = place(engine, vid, {(8, 4): "1", (1, 6): "2"})
    assert targets(engine, s, "8,4") == {"8,5", "9,4"}  # not up (row 7), not left (column 3)
    s = place(engine, vid, {**generals, (9, 5): "3"})
    assert targets(engine, s, "9,5") == {"8,4", "8,6", "10,4"}  # 10,6 holds its own general
    s = place(engine, vid, {**generals, (8, 4): "3"})
    assert targets(engine, s, "8,4") == {"9,5"}
    s = place(engine, vid, {**generals, (8, 3): "5"})
    assert targets(engine, s, "8,3") == {"6,1", "6,5", "10,1", "10,5"}
    s = place(engine, vid, {**generals, (6, 3): "5", (7, 4): "13"})
    assert targets(engine, s, "6,3") == {"8,1"}  # never up from row 6; 8,5 has its eye blocked
    s = place(engine, vid, {**generals, (6, 2): "13"})
    assert targets(engine, s, "6,2") == {"5,2"}
    s = engine.play(s, "6,2-5,2")
    assert ",13*," in engine.position(s)
    s = engine.play(s, "1,4-1,5")
    assert targets(engine, s, "5,2") == {"4,2", "5,1", "5,3"}


@needs_maps
def test_standard_column_conditions_and_slides(engine: CustomEngine) -> None:
    """standard(7x7)'s 三金 (13): steps 1 on columns 4-6, 3 on 2-4, 4 on 7, 5 on 1; slides up."""
    vid = load(engine, STANDARD)
    kings = {(1, 7): "2", (7, 7): "1"}
    s = place(engine, vid, {**kings, (6, 1): "13", (3, 1): "17"})
    assert targets(engine, s, "6,1") == {"6,2", "5,1", "4,1"}  # the neutral egg stops the slide
    s = place(engine, vid, {**kings, (6, 4): "13", (5, 5): "4"})
    assert targets(engine, s, "6,4") == {"5,3", "5,5", *(f"{r},4" for r in range(1, 6))}


# ---- 2. bad files: one clear error naming the file, bounded time and memory ---------------------

TINY = """
[board]
rows = 3
cols = 3
layout = ["2 . .", ". . .", ". . 1"]
[[pieces]]
name = "K"
side = "red"
captain = true
moves = "{red}"
[[pieces]]
name = "k"
side = "blue"
captain = true
moves = "{blue}"
"""


def problems(text: str) -> str:
    with pytest.raises(VariantError) as info:
        load_toml_text(text, default_id="bad", source="bad.toml")
    assert str(info.value).startswith("bad.toml: ")
    return "\n".join(info.value.problems)


@pytest.mark.parametrize(
    ("red", "blue", "stuck"),
    [(";", ";", "red"), ("2(X[99]),4(Y[0]);", "7;", "red"), ("2,4;", ";", "blue")],
)
def test_variants_whose_pieces_cannot_move_are_refused(red: str, blue: str, stuck: str) -> None:
    """A map in which a side can never move would end every game at once (no_moves): refused,
    saying which side is stuck, instead of loading."""
    found = problems(TINY.format(red=red, blue=blue))
    assert f"{stuck} can never move" in found


def test_a_start_position_without_a_first_move_is_refused() -> None:
    """Red's king could move up, but a neutral wall that cannot move stands on the one square it
    could go to: every game would be over before it starts. Refused."""
    text = TINY.format(red="2;", blue="7;").replace(
        'layout = ["2 . .", ". . .", ". . 1"]', 'layout = ["2 . .", "3 . .", "1 . ."]'
    ) + '[[pieces]]\nname = "wall"\nside = "neutral"\nmoves = ";"\n'
    assert "red has no legal move in the start position" in problems(text)


def test_playable_start_is_accepted() -> None:
    """The immobility check refuses nothing a game can be played with."""
    v = load_toml_text(TINY.format(red="2;", blue="7;"), default_id="ok")
    assert v.id == "ok"


@needs_maps
def test_immobile_xlsx_map_is_refused_naming_the_file(tmp_path: Path) -> None:
    """The same for a JBQ workbook: every movement ';'."""
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "chesses"
    chesses: list[list[Any]] = [
        ["编号", "名称", "归属", "首领", "可移动", "升变条件", "升变后可移动"],
        [1, "甲", 1, "c", ";", None, ";"],
        [2, "乙", 2, "c", ";", None, ";"],
    ]
    for row in chesses:
        sheet.append(row)
    grid = book.create_sheet("map")
    cells: list[list[Any]] = [["行", 2, "列", 2], [2, None], [None, 1]]
    for row in cells:
        grid.append(row)
    book.create_sheet("rules")
    book.save(tmp_path / "frozen.xlsx")
    with pytest.raises(VariantError) as info:
        load_file(tmp_path / "frozen.xlsx")
    assert str(info.value).startswith("frozen.xlsx: ") and "red can never move" in str(info.value)


@pytest.mark.parametrize(
    ("rule", "fragment"),
    [
        ("2(T[33]);", "T[33]: there is no piece type 33"),
        ("2(D[0|1|2]);", "D[0|1|2]: there is no piece type 0"),
        ("2(R[9|1|0|1]);", "R[9|1|0|1]: there is no piece type 9"),
        ("2(C[4|0|1]);", "C[4|0|1]: there is no piece type 4"),
    ],
)
def test_conditions_name_existing_piece_types(rule: str, fragment: str) -> None:
    """C/D/R/T name a piece type: one that does not exist is a typo, refused (C[0] counts all)."""
    text = 'modules = ["conditions"]\n' + TINY.format(red=rule, blue="7;")
    assert fragment in problems(text)
    assert load_toml_text(
        'modules = ["conditions"]\n' + TINY.format(red="2(C[0|0|9]&T[2]);", blue="7;")
    )


def test_neutral_counters_need_the_neutral_limit(engine: CustomEngine) -> None:
    """Counters other than 0,0 mean nothing without the neutral limit: refused, not carried on."""
    text = engine.position(engine.start("xiangqi")).replace(";0,0;", ";2,1;")
    with pytest.raises(BadPosition, match="no neutral limit"):
        engine.start(None, position=text)
    assert engine.start(None, position=engine.position(engine.start("stones")).replace(
        ";0,0;", ";2,1;")).neutral == (2, 1)


@needs_maps
def test_excel_lock_files_do_not_break_a_directory(tmp_path: Path) -> None:
    """Excel leaves ``~$NAME.xlsx`` beside a workbook it has open: skipped, not a bad map."""
    (tmp_path / "example.xlsx").write_bytes(EXAMPLE.read_bytes())
    (tmp_path / "~$example.xlsx").write_bytes(b"\x05Alice" + b" " * 160)
    assert [v.id for v in load_directory(tmp_path)] == ["example"]


def test_an_id_clash_names_the_file(tmp_path: Path) -> None:
    """A file whose id is a built-in variant's: the error names the file and the variant."""
    text = TINY.format(red="2;", blue="7;")
    (tmp_path / "mygame.toml").write_text('id = "xiangqi"\n' + text, encoding="utf-8")
    with pytest.raises(VariantError) as info:
        CustomEngine().load_directory(tmp_path)
    assert "mygame.toml: id 'xiangqi' is already used by Xiangqi" in str(info.value)
    # Reported with the other files' problems, not only once those are mended.
    (tmp_path / "broken.toml").write_text("rows = ", encoding="utf-8")
    with pytest.raises(VariantError) as info:
        CustomEngine().load_directory(tmp_path)
    assert "broken.toml: not valid TOML" in str(info.value)
    assert "mygame.toml: id 'xiangqi' is already used" in str(info.value)


def rewritten_map(path: Path, name: str, change: Callable[[bytes], bytes]) -> None:
    """The example map with one member of the workbook changed."""
    with zipfile.ZipFile(EXAMPLE) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in src.infolist():
            data = src.read(info.filename)
            out.writestr(info.filename, change(data) if info.filename == name else data)


@needs_maps
@pytest.mark.parametrize(
    ("member", "change"),
    [
        (  # 3.5 million shared strings: 150 KB packed, 60 MB of XML
            "xl/sharedStrings.xml",
            lambda d: d.replace(b"</sst>", b"<si><t>a</t></si>" * 3_500_000 + b"</sst>"),
        ),
        (  # one row of 1.5 million cells in the map sheet: openpyxl builds them all
            "xl/worksheets/sheet2.xml",
            lambda d: d.replace(b"</row>", b'<c r="ZZ1"><v>1</v></c>' * 1_500_000 + b"</row>", 1),
        ),
    ],
    ids=["shared-strings", "wide-row"],
)
def test_xlsx_that_unpacks_too_large_is_refused_at_once(
    tmp_path: Path, member: str, change: Callable[[bytes], bytes]
) -> None:
    """Small files that unpack to tens of MB took 5-20 s and up to 1 GB to read: refused first."""
    path = tmp_path / "bomb.xlsx"
    rewritten_map(path, member, change)
    assert path.stat().st_size < 400_000
    before = time.perf_counter()
    with pytest.raises(VariantError, match="unpacks to") as info:
        load_file(path)
    assert time.perf_counter() - before < 2
    assert str(info.value).startswith("bomb.xlsx: ") and member in str(info.value)


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (b"PK\x03\x04 truncated", "not a zip archive"),
        (b"name,side\nK,1\n", "not a zip archive"),
    ],
)
def test_xlsx_that_is_no_zip_says_so_in_words(tmp_path: Path, data: bytes, fragment: str) -> None:
    """A .csv or a truncated download saved as .xlsx: plain words, not an exception class."""
    path = tmp_path / "map.xlsx"
    path.write_bytes(data)
    with pytest.raises(VariantError) as info:
        load_file(path)
    text = str(info.value)
    assert text.startswith("map.xlsx: ") and fragment in text and "BadZipFile" not in text


def heavy_variant(rows: int, atoms: int) -> str:
    """Every piece a captain whose slides carry many distinct, always-false count conditions (no
    short cut), with promotion and self-check on: the most work per square the format allows."""
    cond = "&".join(f"C[0|{k + 1}|{k}]" for k in range(atoms))
    rule = "2,7;" + ",".join(f"{d}({cond})" for d in range(1, 9))
    pieces = []
    for i in range(16):
        pieces.append(
            f'[[pieces]]\nname = "p{i}"\nside = "{"red" if i % 2 == 0 else "blue"}"\n'
            f'captain = true\nmoves = "{rule}"\npromote_when = "{cond}"\npromoted_moves = ";"\n'
        )
    layout = []
    for r in range(rows):
        cells = [
            str(2 + 2 * ((r * rows + c) % 8)) if r < 3 else
            str(1 + 2 * ((r * rows + c) % 8)) if r >= rows - 3 else "."
            for c in range(rows)
        ]
        layout.append('"' + " ".join(cells) + '"')
    return (
        'modules = ["conditions"]\n[rules]\npromotion = true\nself_check = true\n'
        f"[board]\nrows = {rows}\ncols = {rows}\nlayout = [{', '.join(layout)}]\n"
        + "\n".join(pieces)
    )


def test_board_conditions_cost_does_not_grow_with_the_board_per_test() -> None:
    """Count conditions (C, T, D, R) were evaluated by scanning the whole board, once per
    condition, per direction, per piece, per self-check probe: 137 s for one move list on a
    20 x 20 board. Now each board is counted once."""
    v = load_toml_text(heavy_variant(20, 40), default_id="heavy")
    engine = CustomEngine()
    engine.register(v)
    before = time.perf_counter()
    state = engine.start("heavy")
    moves = engine.legal_moves(state)
    state = engine.play(state, moves[0])
    engine.outcome(state)
    assert time.perf_counter() - before < 2


def test_large_variants_compile_in_bounded_memory() -> None:
    """A 20 x 20 board with 64 piece types that all step and slide every way, with self-check:
    the move tables share their unconditional entries and keep reach sets as bit masks (over
    100 MB before)."""
    import tracemalloc

    pieces = "\n".join(
        f'[[pieces]]\nname = "p{i}"\nside = "{"red" if i % 2 == 0 else "blue"}"\n'
        f'captain = {"true" if i < 2 else "false"}\nmoves = "1,2,3,4,5,6,7,8;1,2,3,4,5,6,7,8"\n'
        for i in range(64)
    )
    rows = [" ".join(str(2 + 2 * ((c + 20 * r) % 32)) for c in range(20)) for r in range(2)]
    rows += [" ".join(["."] * 20)] * 16
    rows += [" ".join(str(1 + 2 * ((c + 20 * r) % 32)) for c in range(20)) for r in (1, 0)]
    layout = ", ".join(f'"{row}"' for row in rows)
    v = load_toml_text(
        f"[rules]\nself_check = true\n[board]\nrows = 20\ncols = 20\nlayout = [{layout}]\n"
        + pieces,
        default_id="big",
    )
    engine = CustomEngine()
    engine.register(v)
    tracemalloc.start()
    try:
        state = engine.start("big")
        for _ in range(4):
            state = engine.play(state, engine.legal_moves(state)[-1])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 40_000_000, peak


CONDITIONS = ["X[1]", "X[-1]", "Y[2|-2]", "P[1|1|-1|-1]", "NP[2|2]", "C[0|2|9]", "C[3|1|1]",
              "D[1|-1|3]", "D[2|1|2]", "R[1|1|0|1|2|3]", "T[3]", "T[2]", "X[0]"]


def random_rule(rng: random.Random) -> str:
    groups = []
    for _ in range(2):
        dirs = []
        for d in rng.sample(range(1, 9), rng.randint(0, 5)):
            if rng.random() < 0.4:
                dirs.append(f"{d}({'&'.join(rng.sample(CONDITIONS, rng.randint(1, 3)))})")
            else:
                dirs.append(str(d))
        groups.append(",".join(dirs))
    return ";".join(groups)


def random_definition(rng: random.Random, vid: str) -> dict[str, Any]:
    rows, cols, n = rng.randint(3, 8), rng.randint(3, 8), rng.randint(3, 8)
    pieces: list[dict[str, Any]] = []
    for i in range(n):
        side = ["red", "blue"][i] if i < 2 else rng.choice(["red", "blue", "neutral"])
        piece: dict[str, Any] = {
            "name": f"p{i}", "side": side, "captain": i < 2, "moves": random_rule(rng)
        }
        if rng.random() < 0.4:
            piece["promote_when"] = rng.choice(CONDITIONS)
            piece["promoted_moves"] = random_rule(rng)
        if side != "neutral" and rng.random() < 0.5:
            piece["role"] = rng.choice(["horse", "cannon", "elephant", "general"])
        pieces.append(piece)
    layout = [
        " ".join(str(rng.randint(1, n)) if rng.random() < 0.45 else "." for _ in range(cols))
        for _ in range(rows)
    ]
    return {
        "id": vid,
        "modules": ["conditions", "xiangqi"],
        "board": {"rows": rows, "cols": cols, "layout": layout},
        "rules": {"promotion": True, "self_check": rng.random() < 0.5},
        "pieces": pieces,
    }


def test_directed_attack_test_agrees_with_the_move_list() -> None:
    """``reaches(board, a, b)`` (the self-check's question) is ``b in targets(board, a)`` for
    every pair of squares, on random variants with every role, condition and promotion."""
    rng = random.Random(5)
    engine = CustomEngine()
    checked = 0
    for i in range(60):
        vid = engine.load_data(random_definition(rng, f"r{i}"))
        state = engine.start(vid, options={"max_plies": 12})
        table = state.rules
        while True:
            board = state.board
            for a, code in enumerate(board):
                if not code:
                    continue
                reached = set(table.targets(board, a))
                for b in range(len(board)):
                    assert table.reaches(board, a, b) == (b in reached), (vid, board, a, b)
                    checked += 1
            moves = engine.legal_moves(state)
            if not moves:
                break
            state = engine.play(state, rng.choice(moves))
    assert checked > 50_000
