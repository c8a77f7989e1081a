"""Variant definitions: the data model, validation of untrusted data, and TOML/JSON output.

:func:`parse_definition` turns a mapping (a parsed TOML file, or ``variant_info`` JSON) into a
:class:`Variant`, collecting EVERY problem with its location before raising one
:class:`VariantError`. Nothing here trusts its input: wrong types, huge sizes, unknown keys,
unknown directions, conditions or modules are all reported, never crashed on. FORMAT.md documents
the schema.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engines.base import BadPosition
from engines.custom.checks import kind as _kind
from engines.custom.checks import show as _show
from engines.custom.checks import unknown_keys as _unknown_keys
from engines.custom.grammar import (
    CORE_CONDITIONS,
    MODULE_CONDITIONS,
    Condition,
    MoveRule,
    condition_text,
    parse_condition,
    parse_move_rule,
)
from engines.custom.look import LOOK_KEYS, BoardLook, parse_look

FORMAT = "boardhall-variant/1"
"""Value of the ``format`` key of our variant files."""
MAX_ROWS = 20
MAX_COLS = 20
MAX_PIECE_TYPES = 64
MAX_NAME = 24
MAX_LABEL = 4
MAX_DESCRIPTION = 2000

MODULES = ("conditions", "xiangqi")
"""Built-in rule modules a variant may name."""
ROLES = ("general", "advisor", "elephant", "horse", "chariot", "cannon", "soldier")
"""Piece roles of the ``xiangqi`` module (general, elephant, horse and cannon change the rules)."""
SIDE_WORDS = {1: "red", 2: "blue", 3: "neutral"}
SIDE_NUMBERS = {"red": 1, "blue": 2, "neutral": 3, 1: 1, 2: 2, 3: 3}
NO_MOVE_RESULTS = ("lose", "draw")

ID_PATTERN = re.compile(r"[^\W_][\w.-]{0,47}")
"""Variant ids: letters/digits first, then letters, digits, ``_``, ``.`` or ``-`` (48 at most)."""

_TOP_KEYS = {"format", "id", "name", "description", "modules", "board", "rules", "pieces"}
_TOP_DERIVED = {"sides", "first", "undo_allowed"}
"""Keys :meth:`CustomEngine.variant_info` adds; accepted (and ignored) when read back."""
_BOARD_KEYS = {"rows", "cols", "layout"} | LOOK_KEYS
_BOARD_DERIVED = {"grid"}
_RULE_KEYS = {"promotion", "undo", "neutral_limit", "no_legal_move", "self_check"}
_PIECE_KEYS = {
    "name",
    "label",
    "side",
    "captain",
    "role",
    "moves",
    "promote_when",
    "promoted_moves",
    "promoted_name",
}
_PIECE_DERIVED = {"id", "steps", "slides", "promoted_steps", "promoted_slides"}
TYPE_CONDITIONS = ("C", "D", "R", "T")
"""Conditions whose first number names a piece type."""


class VariantError(BadPosition):
    """A variant file or map that cannot be used; ``problems`` lists every problem found."""

    def __init__(self, problems: Sequence[str], source: str = "variant"):
        self.problems = list(problems)
        self.source = source
        shown = self.problems[:40]
        more = len(self.problems) - len(shown)
        lines = "\n".join(f"  - {p}" for p in shown)
        tail = f"\n  ... and {more} more" if more > 0 else ""
        count = len(self.problems)
        plural = "" if count == 1 else "s"
        super().__init__(f"{source}: {count} problem{plural}:\n{lines}{tail}")


@dataclass(frozen=True)
class PieceType:
    """One piece type; its id is its 1-based position in the variant's piece list."""

    id: int
    name: str
    side: int
    """1 = red (first), 2 = blue (second), 3 = neutral."""
    moves: MoveRule
    captain: bool = False
    promote_when: Condition = ()
    """Empty: this type never promotes."""
    promoted_moves: MoveRule = field(default_factory=MoveRule)
    label: str = ""
    """A short Latin label for renderers without a CJK font (empty: derived from the name)."""
    promoted_name: str = ""
    role: str = ""
    """A role of the ``xiangqi`` module, or empty."""
    moves_text: str = ""
    promote_text: str = ""
    promoted_moves_text: str = ""


@dataclass(frozen=True)
class Rules:
    """The rule switches of a variant."""

    promotion: bool = False
    undo: bool = True
    neutral_limit: bool = False
    """A player may move neutral pieces on at most 2 consecutive own turns."""
    no_legal_move: str = "draw"
    """``lose`` or ``draw`` for the side to move that has no legal move."""
    self_check: bool = False
    """Moves that leave one's own captain capturable (or, with ``xiangqi``, generals facing) are
    illegal. Off in JBQ maps (there is no check); on in Boardhall's real Xiangqi."""


@dataclass(frozen=True)
class Variant:
    """A validated variant definition."""

    id: str
    name: str
    rows: int
    cols: int
    pieces: tuple[PieceType, ...]
    layout: tuple[tuple[int, ...], ...]
    """Type ids per row from the top; 0 is an empty square."""
    rules: Rules = field(default_factory=Rules)
    modules: tuple[str, ...] = ()
    description: str = ""
    look: BoardLook = field(default_factory=BoardLook)
    """How clients draw the board (display only: the rules never read it)."""

    def piece(self, type_id: int) -> PieceType:
        """The piece type with 1-based ``type_id``."""
        return self.pieces[type_id - 1]

    def to_data(self, derived: bool = False) -> dict[str, Any]:
        """The definition as plain data in the file schema (``derived`` adds parsed moves/grid)."""
        pieces: list[dict[str, Any]] = []
        for p in self.pieces:
            entry: dict[str, Any] = {"name": p.name}
            if p.label:
                entry["label"] = p.label
            entry["side"] = SIDE_WORDS[p.side]
            entry["captain"] = p.captain
            if p.role:
                entry["role"] = p.role
            entry["moves"] = p.moves_text
            if p.promote_when:
                entry["promote_when"] = p.promote_text
                entry["promoted_moves"] = p.promoted_moves_text
                if p.promoted_name:
                    entry["promoted_name"] = p.promoted_name
            if derived:
                entry["id"] = p.id
                entry["steps"] = _dirs_data(p.moves.steps)
                entry["slides"] = _dirs_data(p.moves.slides)
                entry["promoted_steps"] = _dirs_data(p.promoted_moves.steps)
                entry["promoted_slides"] = _dirs_data(p.promoted_moves.slides)
            pieces.append(entry)
        board: dict[str, Any] = {
            "rows": self.rows,
            "cols": self.cols,
            "layout": [" ".join(str(c) if c else "." for c in row) for row in self.layout],
            **self.look.to_data(),
        }
        if derived:
            board["grid"] = [[c or None for c in row] for row in self.layout]
        return {
            "format": FORMAT,
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "modules": list(self.modules),
            "board": board,
            "rules": {
                "promotion": self.rules.promotion,
                "undo": self.rules.undo,
                "neutral_limit": self.rules.neutral_limit,
                "no_legal_move": self.rules.no_legal_move,
                "self_check": self.rules.self_check,
            },
            "pieces": pieces,
        }


def _dirs_data(dirs: Sequence[Any]) -> list[dict[str, Any]]:
    return [{"dir": d.dir, "when": condition_text(d.when)} for d in dirs]


# ---- validation ---------------------------------------------------------------------------------


def _text(
    data: Mapping[str, Any], key: str, where: str, problems: list[str], limit: int, default: str
) -> str:
    value = data.get(key, default)
    if not isinstance(value, str):
        problems.append(f"{where}{key}: must be text, not {_kind(value)}")
        return default
    if len(value) > limit:
        problems.append(f"{where}{key}: longer than {limit} characters")
        return value[:limit]
    return value


def _flag(
    data: Mapping[str, Any], key: str, where: str, problems: list[str], default: bool
) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        problems.append(f"{where}{key}: must be true or false, not {_show(value)}")
        return default
    return value


def _rule(text: object, where: str, problems: list[str]) -> tuple[MoveRule, str]:
    if not isinstance(text, str):
        problems.append(f"{where}: must be a movement rule text like '2,4;7', not {_kind(text)}")
        return MoveRule(), ";"
    rule, issues, extra = parse_move_rule(text)
    problems.extend(f"{where}: {p}" for p in issues)
    if extra:
        problems.append(
            f"{where}: move groups beyond the second ({';'.join(extra)[:60]!r}) need a JBQ"
            " extension Boardhall does not implement"
        )
    return rule, rule.text()


def _check_atoms(
    rule_atoms: Sequence[Any], modules: Sequence[str], where: str, out: list[str], n_types: int
) -> None:
    for atom in rule_atoms:
        if atom.name in CORE_CONDITIONS:
            continue
        if atom.name in MODULE_CONDITIONS:
            if "conditions" not in modules:
                out.append(f"{where}: condition {atom.name} needs module 'conditions'")
            elif atom.name in TYPE_CONDITIONS and atom.args:
                # C[0|...] counts every piece; otherwise the first number is a piece type id.
                low = 0 if atom.name == "C" else 1
                if not low <= atom.args[0] <= n_types:
                    out.append(
                        f"{where}: condition {atom.text()}: there is no piece type"
                        f" {atom.args[0]} (piece types are 1..{n_types})"
                    )
            continue
        out.append(f"{where}: unknown condition {atom.name} (no built-in module provides it)")


def _parse_piece(
    index: int, raw: object, modules: Sequence[str], problems: list[str], n_types: int
) -> PieceType | None:
    if not isinstance(raw, Mapping):
        problems.append(f"piece {index + 1}: must be a table, not {_kind(raw)}")
        return None
    name0 = raw.get("name")
    label_name = f" ({name0[:MAX_NAME]})" if isinstance(name0, str) and name0 else ""
    where = f"piece {index + 1}{label_name}."
    _unknown_keys(raw, _PIECE_KEYS | _PIECE_DERIVED, where, problems)
    name = _text(raw, "name", where, problems, MAX_NAME, "")
    if not name.strip():
        problems.append(f"{where}name: must not be empty")
    label = _text(raw, "label", where, problems, MAX_LABEL, "")
    if label and not label.isascii():
        problems.append(f"{where}label: must be Latin (ASCII) text")
    side_raw = raw.get("side")
    side = SIDE_NUMBERS.get(side_raw) if isinstance(side_raw, str | int) else None
    if isinstance(side_raw, bool) or side is None:
        problems.append(
            f"{where}side: must be red, blue or neutral (1, 2, 3), not {_show(side_raw)}"
        )
        side = 1
    captain = _flag(raw, "captain", where, problems, False)
    if captain and side == 3:
        problems.append(f"{where}captain: a neutral piece cannot be a captain")
    role = _text(raw, "role", where, problems, 16, "")
    if role:
        if role not in ROLES:
            problems.append(f"{where}role: unknown role {role!r} (known: {', '.join(ROLES)})")
        elif "xiangqi" not in modules:
            problems.append(f"{where}role: role {role!r} needs module 'xiangqi'")
    if "moves" not in raw:
        problems.append(f'{where}moves: missing (e.g. moves = "2,4,5,7;")')
    moves, moves_text = _rule(raw.get("moves", ";"), f"{where}moves", problems)
    _check_atoms(moves.atoms(), modules, f"{where}moves", problems, n_types)
    promote_when: Condition = ()
    promote_text = ""
    when_raw = raw.get("promote_when", "")
    if not isinstance(when_raw, str):
        problems.append(f"{where}promote_when: must be a condition text, not {_kind(when_raw)}")
    elif when_raw.strip():
        promote_when, issues = parse_condition(when_raw)
        problems.extend(f"{where}promote_when: {p}" for p in issues)
        _check_atoms(promote_when, modules, f"{where}promote_when", problems, n_types)
        promote_text = condition_text(promote_when)
    promoted_moves, promoted_text = _rule(
        raw.get("promoted_moves", ";"), f"{where}promoted_moves", problems
    )
    _check_atoms(promoted_moves.atoms(), modules, f"{where}promoted_moves", problems, n_types)
    if promote_when and "promoted_moves" not in raw:
        problems.append(f"{where}promoted_moves: missing (the piece has promote_when)")
    promoted_name = _text(raw, "promoted_name", where, problems, MAX_NAME, "")
    return PieceType(
        id=index + 1,
        name=name,
        side=side,
        moves=moves,
        captain=captain,
        promote_when=promote_when,
        promoted_moves=promoted_moves,
        label=label,
        promoted_name=promoted_name,
        role=role,
        moves_text=moves_text,
        promote_text=promote_text,
        promoted_moves_text=promoted_text,
    )


def _parse_layout(
    raw: object, rows: int, cols: int, n_types: int, problems: list[str]
) -> tuple[tuple[int, ...], ...]:
    empty = tuple(tuple(0 for _ in range(cols)) for _ in range(rows))
    if not isinstance(raw, list):
        problems.append(f"board.layout: must be a list of row texts, not {_kind(raw)}")
        return empty
    if len(raw) != rows:
        problems.append(f"board.layout: has {len(raw)} rows, board.rows is {rows}")
    grid: list[tuple[int, ...]] = []
    for r, line in enumerate(raw[:MAX_ROWS]):
        if not isinstance(line, str) or len(line) > 400:
            problems.append(f"board.layout row {r + 1}: must be a text of cells like '1 . 3'")
            grid.append(tuple(0 for _ in range(cols)))
            continue
        cells = [c for c in re.split(r"[\s,]+", line.strip()) if c]
        if len(cells) != cols:
            problems.append(
                f"board.layout row {r + 1}: has {len(cells)} cells, board.cols is {cols}"
            )
        row: list[int] = []
        for c, cell in enumerate(cells[:cols]):
            if cell == "." or not n_types:  # without piece types, "pieces" is the problem
                row.append(0)
            elif cell.isascii() and cell.isdigit() and len(cell) <= 3 and 1 <= int(cell) <= n_types:
                row.append(int(cell))
            else:
                problems.append(
                    f"board.layout row {r + 1}, column {c + 1}: {cell[:20]!r} is not '.' or a"
                    f" piece id 1..{n_types}"
                )
                row.append(0)
        row.extend(0 for _ in range(cols - len(row)))
        grid.append(tuple(row))
    while len(grid) < rows:
        grid.append(tuple(0 for _ in range(cols)))
    return tuple(grid[:rows])


def _board_size(board: Mapping[str, Any], problems: list[str]) -> tuple[int, int, bool]:
    sizes = []
    ok = True
    for key, limit in (("rows", MAX_ROWS), ("cols", MAX_COLS)):
        value = board.get(key)
        if isinstance(value, bool) or not isinstance(value, int):
            problems.append(f"board.{key}: must be a whole number 1..{limit}, not {_show(value)}")
            sizes.append(1)
            ok = False
        elif not 1 <= value <= limit:
            shown = value if abs(value) < 10**12 else "a huge number"
            problems.append(f"board.{key}: {shown} is outside 1..{limit}")
            sizes.append(1)
            ok = False
        else:
            sizes.append(value)
    return sizes[0], sizes[1], ok


def parse_definition(data: object, default_id: str = "", source: str = "variant") -> Variant:
    """Validate ``data`` (the file schema, see FORMAT.md) and build the :class:`Variant`.

    Raises :class:`VariantError` listing every problem with its location.
    """
    problems: list[str] = []
    if not isinstance(data, Mapping):
        raise VariantError([f"the definition must be a table/object, not {_kind(data)}"], source)
    _unknown_keys(data, _TOP_KEYS | _TOP_DERIVED, "", problems)
    fmt = data.get("format", FORMAT)
    if fmt != FORMAT:
        problems.append(f"format: must be {FORMAT!r}, not {_show(fmt)}")
    vid = _text(data, "id", "", problems, 48, default_id)
    if not ID_PATTERN.fullmatch(vid):
        problems.append(
            f"id: {vid[:48]!r} is not a valid id (letters, digits, '_', '.', '-'; 48 at most)"
        )
    name = _text(data, "name", "", problems, 60, vid)
    if not name.strip():
        problems.append("name: must not be empty")
    description = _text(data, "description", "", problems, MAX_DESCRIPTION, "")

    modules_raw = data.get("modules", [])
    modules: list[str] = []
    if not isinstance(modules_raw, list) or not all(isinstance(m, str) for m in modules_raw):
        problems.append("modules: must be a list of module names")
    else:
        for m in modules_raw[:16]:
            if m not in MODULES:
                problems.append(
                    f"modules: unknown module {m[:40]!r} (built-in modules: {', '.join(MODULES)})"
                )
            elif m not in modules:
                modules.append(m)

    rules_raw = data.get("rules", {})
    rules = Rules()
    if not isinstance(rules_raw, Mapping):
        problems.append(f"rules: must be a table, not {_kind(rules_raw)}")
    else:
        _unknown_keys(rules_raw, _RULE_KEYS, "rules.", problems)
        # RULES.md 5: no legal move loses with the xiangqi module and draws otherwise, unless
        # the variant says.
        no_move = rules_raw.get("no_legal_move", "lose" if "xiangqi" in modules else "draw")
        if no_move not in NO_MOVE_RESULTS:
            problems.append(f"rules.no_legal_move: must be 'lose' or 'draw', not {_show(no_move)}")
            no_move = "draw"
        rules = Rules(
            promotion=_flag(rules_raw, "promotion", "rules.", problems, False),
            undo=_flag(rules_raw, "undo", "rules.", problems, True),
            neutral_limit=_flag(rules_raw, "neutral_limit", "rules.", problems, False),
            no_legal_move=no_move,
            self_check=_flag(rules_raw, "self_check", "rules.", problems, False),
        )

    pieces_raw = data.get("pieces")
    pieces: list[PieceType] = []
    if isinstance(pieces_raw, Mapping):
        problems.append(
            "pieces: is one table ([pieces]); write [[pieces]] (two brackets) before each piece"
            " type"
        )
    elif not isinstance(pieces_raw, list) or not pieces_raw:
        problems.append("pieces: must be a non-empty list of piece tables ([[pieces]])")
    elif len(pieces_raw) > MAX_PIECE_TYPES:
        problems.append(f"pieces: {len(pieces_raw)} piece types, at most {MAX_PIECE_TYPES}")
    else:
        for i, raw in enumerate(pieces_raw):
            piece = _parse_piece(i, raw, modules, problems, len(pieces_raw))
            if piece is not None:
                pieces.append(piece)

    board_raw = data.get("board")
    rows = cols = 1
    layout: tuple[tuple[int, ...], ...] = ((0,),)
    look = BoardLook()
    if not isinstance(board_raw, Mapping):
        problems.append("board: missing table with rows, cols and layout")
    else:
        _unknown_keys(board_raw, _BOARD_KEYS | _BOARD_DERIVED, "board.", problems)
        rows, cols, ok = _board_size(board_raw, problems)
        if ok:
            if rows * cols < 2:
                problems.append("board: needs at least 2 squares")
            n_types = len(pieces_raw) if isinstance(pieces_raw, list) else 0
            layout = _parse_layout(board_raw.get("layout"), rows, cols, n_types, problems)
            look = parse_look(board_raw, rows, cols, problems)
    if problems:
        raise VariantError(problems, source)
    return Variant(
        id=vid,
        name=name,
        rows=rows,
        cols=cols,
        pieces=tuple(pieces),
        layout=layout,
        rules=rules,
        modules=tuple(modules),
        description=description,
        look=look,
    )


# ---- TOML output ---------------------------------------------------------------------------


def _toml_str(value: str) -> str:
    out = ['"']
    for ch in value:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _toml_str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def to_toml(variant: Variant, header: str = "") -> str:
    """The variant as a Boardhall variant file (TOML); ``header`` lines become comments."""
    data = variant.to_data()
    lines = [f"# {h}".rstrip() for h in header.splitlines()]
    for key in ("format", "id", "name", "description", "modules"):
        lines.append(f"{key} = {_toml_value(data[key])}")
    lines += ["", "[board]", f"rows = {variant.rows}", f"cols = {variant.cols}", "layout = ["]
    lines += [f"    {_toml_str(row)}," for row in data["board"]["layout"]]
    lines += ["]"]
    lines += [f"{k} = {_toml_value(v)}" for k, v in variant.look.to_data().items()]
    lines += ["", "[rules]"]
    lines += [f"{k} = {_toml_value(v)}" for k, v in data["rules"].items()]
    for i, piece in enumerate(data["pieces"]):
        lines += ["", f"[[pieces]]  # id {i + 1}"]
        lines += [f"{k} = {_toml_value(v)}" for k, v in piece.items()]
    return "\n".join(lines) + "\n"
