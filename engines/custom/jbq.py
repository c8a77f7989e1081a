"""Import of JBQ (精班棋) map workbooks (``.xlsx``) into Boardhall variants.

Layout (RULES.md section 5): sheet ``chesses`` (row 1 header; each later row one piece type, its
id is its row order: id, name, side, captain ``c``, movement, promotion condition, promoted
movement, then extension columns), sheet ``map`` (B1 rows, D1 columns, the grid from row 2, type
ids, empty = no piece), sheet ``rules`` (C2 promotion, C3 undo, C4 neutral limit; ``c`` = on).

JBQ extensions are Python files; Boardhall never runs them. The conditions of the "more movement
functions" extension (NP, C, D, R, T) are recognised and enable the built-in ``conditions``
module; the Chinese-chess map is recognised from its pieces and gets the ``xiangqi`` module (the
extension decides by piece names). Anything else an extension would provide (extension columns,
move groups beyond the second, unknown conditions) is refused with a message naming it.
"""

from __future__ import annotations

import os
import re
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engines.custom.checks import show
from engines.custom.definition import MAX_PIECE_TYPES, Variant, VariantError, parse_definition
from engines.custom.grammar import MODULE_CONDITIONS, parse_condition, parse_move_rule
from engines.custom.rules import playability_problems

MAX_XLSX_BYTES = 4 * 1024 * 1024
"""Largest workbook file read."""
MAX_XLSX_MEMBER_BYTES = 2 * 1024 * 1024
"""Largest unpacked member of a workbook (the real maps' largest is 9 KB; 64 piece rows with rules
of 4000 characters stay under 1 MB). openpyxl reads a whole sheet row, and every shared string,
into memory: a few hundred KB packed can unpack to a gigabyte of cells."""
MAX_XLSX_UNPACKED_BYTES = 8 * 1024 * 1024
"""Largest unpacked workbook (all members)."""
_MAX_SHEET_ROWS = 200
_MAX_SHEET_COLS = 40


@dataclass(frozen=True)
class KnownMap:
    """A published JBQ map that needs built-in modules, recognised by its board and piece names."""

    id: str
    name: str
    rows: int
    cols: int
    names: tuple[str, ...]
    modules: tuple[str, ...]
    no_legal_move: str = "draw"
    roles: dict[str, str] = field(default_factory=dict)
    """Piece name -> role (the JBQ extensions decide by name)."""
    description: str = ""


KNOWN_MAPS: tuple[KnownMap, ...] = (
    KnownMap(
        id="xiangqi-jbq",
        name="Xiangqi (JBQ rules)",
        rows=10,
        cols=9,
        names=("帅", "将", "仕", "士", "相", "象", "車", "車", "炮", "炮", "马", "马", "兵", "卒"),
        modules=("xiangqi",),
        no_legal_move="lose",
        roles={
            "帅": "general",
            "将": "general",
            "仕": "advisor",
            "士": "advisor",
            "相": "elephant",
            "象": "elephant",
            "車": "chariot",
            "炮": "cannon",
            "马": "horse",
            "兵": "soldier",
            "卒": "soldier",
        },
        description=(
            "JBQ's Chinese chess map with its extension's rules: no check, capturing the general"
            " wins, a move that leaves the generals facing loses."
        ),
    ),
)
"""The known-maps table: which JBQ maps get which modules."""


def slug(stem: str) -> str:
    """A variant id made from a file name: ``example(5x6)`` -> ``example-5x6``."""
    text = re.sub(r"[^\w.-]+", "-", stem).strip("-_.").lower()[:48].strip("-_.")
    return text or "variant"


def _cell_text(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).strip()
    return text or None


def _int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*-?[0-9]{1,4}\s*", value):
        return int(value)
    return None


def _held(value: object) -> str:
    """What a cell that should hold a number holds, for a problem message."""
    return "empty" if _cell_text(value) is None else f"not {show(value)}"


def _column_name(col: int) -> str:
    """A column as Excel names it: ``_column_name(3) == "C"``, ``_column_name(27) == "AA"``."""
    letters = ""
    while col:
        col, rest = divmod(col - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def _cell_name(row: int, col: int) -> str:
    """A cell as Excel names it: ``_cell_name(4, 3) == "C4"`` (1-based row and column)."""
    return f"{_column_name(col)}{row}"


JBQ_COLUMNS = (
    ("编号", "id"),
    ("名称", "name"),
    ("归属", "side"),
    ("首领", "captain"),
    ("可移动", "movement"),
    ("升变条件", "promotion condition"),
    ("升变后可移动", "promoted movement"),
)
"""The titles of JBQ's sheet ``chesses``, columns A to G, and what each column holds."""


def _moved_column(header: Sequence[Any]) -> str | None:
    """The problem of a ``chesses`` header row in which a JBQ title stands in another column than
    its own (a column deleted, inserted or moved: every later cell is then read as the wrong
    thing), else ``None``. Headers with other titles are not judged."""
    for col, value in enumerate(header[: _MAX_SHEET_COLS], 1):
        title = _cell_text(value)
        for own, (known, meaning) in enumerate(JBQ_COLUMNS, 1):
            if title == known and own != col:
                columns = ", ".join(
                    f"{_column_name(n)} {t} ({m})" for n, (t, m) in enumerate(JBQ_COLUMNS, 1)
                )
                return (
                    f"sheet 'chesses' row 1: column {_column_name(col)} is titled {title!r}"
                    f" ({meaning}), which belongs in column {_column_name(own)};"
                    f" a column was deleted or moved. JBQ's columns are {columns}"
                )
    return None


_NP = re.compile(r"NP\[([^\[\]]*)\]")


def jbq_np(text: str | None) -> str | None:
    """Rewrite JBQ's ``NP[...]`` so it means what JBQ computes.

    JBQ's extension compares the piece's 0-based square with NP's raw numbers, so ``NP[2|5]``
    there excludes the square (3, 6), and negative numbers exclude nothing. Boardhall reads NP like
    P (1-based, negatives from the end), so each pair ``a|b`` becomes ``a+1|b+1`` and pairs with a
    negative number are dropped (``NP[0|0]``, never excluding anything, if none is left).
    """
    if text is None or "NP[" not in text:
        return text

    def fix(m: re.Match[str]) -> str:
        parts = m.group(1).split("|")
        if len(parts) % 2 or not all(re.fullmatch(r"-?[0-9]{1,6}", p.strip()) for p in parts):
            return m.group(0)  # malformed: left for validation to report
        nums = [int(p) for p in parts]
        pairs = [(a + 1, b + 1) for a, b in zip(nums[::2], nums[1::2], strict=True) if a >= 0 <= b]
        return "NP[" + "|".join(f"{a}|{b}" for a, b in pairs or [(0, 0)]) + "]"

    return _NP.sub(fix, text)


def _rows(book: Any, name: str, problems: list[str]) -> list[tuple[Any, ...]] | None:
    if name not in book.sheetnames:
        problems.append(f"sheet {name!r} is missing (sheets: {', '.join(book.sheetnames)[:200]})")
        return None
    sheet = book[name]
    rows = []
    for row in sheet.iter_rows(
        min_row=1, max_row=_MAX_SHEET_ROWS, max_col=_MAX_SHEET_COLS, values_only=True
    ):
        rows.append(tuple(row))
    while rows and all(v is None or v == "" for v in rows[-1]):
        rows.pop()
    return rows


def _cell(rows: Sequence[Sequence[Any]], r: int, c: int) -> Any:
    """Cell at 1-based row ``r`` and column ``c``, ``None`` outside the data."""
    if r - 1 < len(rows) and c - 1 < len(rows[r - 1]):
        return rows[r - 1][c - 1]
    return None


def _open_book(path: str) -> Any:
    name = os.path.basename(path)
    try:
        import openpyxl
    except ImportError as exc:  # the optional extra `xlsx`
        raise VariantError(
            ["reading JBQ .xlsx maps needs openpyxl: the xlsx extra (pip install '.[xlsx]' in a"
             " checkout, or pip install openpyxl)"], name
        ) from exc
    try:
        size = os.path.getsize(path)
    except OSError as exc:
        raise VariantError([f"cannot read the file: {exc.strerror}"], name) from exc
    if size > MAX_XLSX_BYTES:
        raise VariantError([f"file is {size} bytes, larger than {MAX_XLSX_BYTES}"], name)
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except zipfile.BadZipFile as exc:
        raise VariantError(
            ["not a zip archive, so not an .xlsx workbook (an .xls or .csv file renamed, or an"
             " unfinished download?)"], name
        ) from exc
    except (OSError, ValueError) as exc:
        raise VariantError([f"cannot read the file as a zip archive: {exc}"], name) from exc
    problems = [
        f"workbook member {m.filename[:80]} unpacks to {m.file_size} bytes, more than"
        f" {MAX_XLSX_MEMBER_BYTES} (a JBQ map's members are a few KB)"
        for m in members
        if m.file_size > MAX_XLSX_MEMBER_BYTES
    ]
    unpacked = sum(m.file_size for m in members)
    if unpacked > MAX_XLSX_UNPACKED_BYTES:
        problems.append(
            f"workbook unpacks to {unpacked} bytes, more than {MAX_XLSX_UNPACKED_BYTES}"
        )
    if problems:
        raise VariantError(problems, name)
    try:
        return openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many types for corrupt files
        raise VariantError(
            [f"not a readable .xlsx workbook ({type(exc).__name__}: {str(exc)[:100]})"], name
        ) from exc


def read_map(path: str) -> dict[str, Any]:
    """Read a JBQ map workbook into the Boardhall file schema (a dict); raises VariantError."""
    book = _open_book(path)
    try:
        return _read_book(book, path)
    except VariantError:
        raise
    except Exception as exc:  # a corrupt workbook must never crash a caller
        raise VariantError(
            [f"unreadable workbook content ({type(exc).__name__}: {str(exc)[:100]})"],
            os.path.basename(path),
        ) from exc
    finally:
        book.close()


def _read_book(book: Any, path: str) -> dict[str, Any]:
    problems: list[str] = []
    chesses = _rows(book, "chesses", problems)
    grid_rows = _rows(book, "map", problems)
    rules_rows = _rows(book, "rules", problems)
    pieces: list[dict[str, Any]] = []
    uses_conditions = False
    moved = _moved_column(chesses[0]) if chesses else None
    if moved is not None:
        problems.append(moved)
        chesses = None  # every later cell would be read as another column's: no more problems
    if chesses is not None:
        header = chesses[0] if chesses else ()
        body = chesses[1:]
        if not body:
            problems.append("sheet 'chesses' has no piece rows")
        if len(body) > MAX_PIECE_TYPES:
            problems.append(
                f"sheet 'chesses' has {len(body)} piece rows, at most {MAX_PIECE_TYPES}"
            )
            body = body[:MAX_PIECE_TYPES]
        used_ext: dict[str, list[int]] = {}
        for i, row in enumerate(body):
            where = f"sheet 'chesses' row {i + 2}"
            name = _cell_text(_cell(body, i + 1, 2))
            side = _int(_cell(body, i + 1, 3))
            captain = _cell_text(_cell(body, i + 1, 4)) == "c"
            moves = jbq_np(_cell_text(_cell(body, i + 1, 5)))
            when = jbq_np(_cell_text(_cell(body, i + 1, 6)))
            promoted = jbq_np(_cell_text(_cell(body, i + 1, 7))) or ";"
            if name is None:
                problems.append(f"{where}: the name (column B) is empty")
            if side not in (1, 2, 3):
                problems.append(
                    f"{where}: side (column C) must be 1, 2 or 3, {_held(_cell(body, i + 1, 3))}"
                )
            if moves is None:
                problems.append(f"{where}: the movement (column E) is empty; use ';' for none")
            for col in range(8, len(row) + 1):
                if _cell_text(_cell(body, i + 1, col)) is not None:
                    title = _cell_text(_cell([header], 1, col)) or f"column {col}"
                    used_ext.setdefault(title, []).append(i + 1)
            for text in (moves or ";", promoted):
                rule, _, _ = parse_move_rule(text)
                if any(a.name in MODULE_CONDITIONS for a in rule.atoms()):
                    uses_conditions = True
            if when:
                atoms, _ = parse_condition(when)
                uses_conditions |= any(a.name in MODULE_CONDITIONS for a in atoms)
            entry: dict[str, Any] = {
                "name": (name or "?").strip('"')[:24] or "?",
                "side": side if side in (1, 2, 3) else 1,
                "captain": captain,
                "moves": moves or ";",
            }
            if when:
                entry["promote_when"] = when
                entry["promoted_moves"] = promoted
            pieces.append(entry)
        for title, ids in used_ext.items():
            problems.append(
                f"sheet 'chesses': extension column {title!r} (used by piece ids"
                f" {', '.join(map(str, ids[:10]))}) needs a JBQ extension Boardhall does not"
                " implement"
            )
    rows = cols = 0
    layout: list[str] = []
    if grid_rows is not None:
        rows = _int(_cell(grid_rows, 1, 2)) or 0
        cols = _int(_cell(grid_rows, 1, 4)) or 0
        for size, col, what in ((rows, 2, "rows"), (cols, 4, "columns")):
            if not 1 <= size <= 20:
                problems.append(
                    f"sheet 'map' cell {_cell_name(1, col)} ({what}): must be a whole number"
                    f" 1..20, {_held(_cell(grid_rows, 1, col))}"
                )
        if 1 <= rows <= 20 and 1 <= cols <= 20:
            for r in range(rows):
                cells = []
                for c in range(cols):
                    value = _cell(grid_rows, r + 2, c + 1)
                    number = _int(value)
                    if value is None or value == "" or number == 0 or not pieces:
                        cells.append(".")  # without pieces, sheet 'chesses' is the problem
                    elif number is None or not 1 <= number <= max(1, len(pieces)):
                        problems.append(
                            f"sheet 'map' cell {_cell_name(r + 2, c + 1)} (row {r + 2}, column"
                            f" {c + 1}): {str(value)[:20]!r} is not a piece id 1..{len(pieces)}"
                        )
                        cells.append(".")
                    else:
                        cells.append(str(number))
                layout.append(" ".join(cells))
    switches = [False, False, False]
    if rules_rows is not None:
        switches = [_cell_text(_cell(rules_rows, r, 3)) == "c" for r in (2, 3, 4)]
    stem = os.path.splitext(os.path.basename(path))[0]
    data: dict[str, Any] = {
        "id": slug(stem),
        "name": stem[:60],
        "description": f"JBQ map {os.path.basename(path)[:80]} (imported).",
        "modules": ["conditions"] if uses_conditions else [],
        "board": {"rows": rows, "cols": cols, "layout": layout},
        "rules": {
            "promotion": switches[0],
            "undo": switches[1],
            "neutral_limit": switches[2],
            "no_legal_move": "draw",
            "self_check": False,
        },
        "pieces": pieces,
    }
    known = match_known(rows, cols, [p["name"] for p in pieces])
    if known is not None:
        data["id"] = known.id
        data["name"] = known.name
        data["description"] = known.description
        data["modules"] = sorted(set(data["modules"]) | set(known.modules))
        data["rules"]["no_legal_move"] = known.no_legal_move
        for piece in pieces:
            if piece["name"] in known.roles:
                piece["role"] = known.roles[piece["name"]]
    if grid_rows is not None and chesses is not None and layout:
        try:
            parse_definition(data, source=os.path.basename(path))
        except VariantError as exc:
            problems.extend(re.sub(r"^piece (\d+)", _row_name, p) for p in exc.problems)
    if problems:
        raise VariantError(problems, os.path.basename(path))
    return data


def _row_name(m: re.Match[str]) -> str:
    return f"sheet 'chesses' row {int(m[1]) + 1} (piece id {m[1]})"


def match_known(rows: int, cols: int, names: Sequence[str]) -> KnownMap | None:
    """The known-maps entry whose board size and piece names match, if any."""
    for known in KNOWN_MAPS:
        if (known.rows, known.cols, known.names) == (rows, cols, tuple(names)):
            return known
    return None


def load_map(path: str) -> Variant:
    """Import a JBQ ``.xlsx`` map as a validated :class:`Variant`; raises VariantError."""
    data = read_map(path)
    variant = parse_definition(data, source=os.path.basename(path))
    problems = playability_problems(variant)
    if problems:
        raise VariantError(problems, os.path.basename(path))
    return variant
