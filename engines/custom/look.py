"""How a variant's board is drawn: the display hint of the ``[board]`` table.

``look = "cells"`` (the default) puts each piece in a square of a checkered grid;
``look = "intersections"`` puts them on the crossings of lines, as Xiangqi is played, optionally
with a river (a gap in the inner vertical lines, with up to two labels), palaces (rectangles whose
diagonals are drawn) and marks (small corner marks at start points). The hint is display only:
the rules never read it. FORMAT.md documents the keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engines.custom.checks import kind, show, unknown_keys

LOOKS = ("cells", "intersections")
"""The values of ``board.look``."""
LOOK_KEYS = frozenset({"look", "river", "palaces", "marks"})
"""The keys of the ``[board]`` table that belong to the display hint."""
MAX_PALACES = 16
MAX_RIVER_LABELS = 2
MAX_RIVER_LABEL = 8
"""Longest river label, in characters."""
_RIVER_KEYS = {"after_row", "labels"}
_PALACE_KEYS = {"rows", "cols"}
_PALACE_EXAMPLE = "{ rows = [1, 3], cols = [4, 6] }"


@dataclass(frozen=True)
class River:
    """A river between row ``after_row`` and the next: the inner vertical lines stop there."""

    after_row: int
    labels: tuple[str, ...] = ()
    """Shown in the river: the first on the left half, the second on the right."""


@dataclass(frozen=True)
class Palace:
    """A rectangle of intersections (first and last row, first and last column) whose two
    diagonals are drawn."""

    rows: tuple[int, int]
    cols: tuple[int, int]


@dataclass(frozen=True)
class BoardLook:
    """The display hint of a variant (the default: a checkered grid of cells)."""

    look: str = "cells"
    river: River | None = None
    palaces: tuple[Palace, ...] = ()
    marks: tuple[tuple[int, int], ...] = ()
    """Squares (row, column) with small corner marks around them (start points)."""

    def to_data(self) -> dict[str, Any]:
        """The hint's keys of the ``[board]`` table as plain data (none for the default look,
        so definitions without a hint read back exactly as they were written)."""
        if self == BoardLook():
            return {}
        data: dict[str, Any] = {"look": self.look}
        if self.river is not None:
            river: dict[str, Any] = {"after_row": self.river.after_row}
            if self.river.labels:
                river["labels"] = list(self.river.labels)
            data["river"] = river
        if self.palaces:
            data["palaces"] = [
                {"rows": list(p.rows), "cols": list(p.cols)} for p in self.palaces
            ]
        if self.marks:
            data["marks"] = [list(m) for m in self.marks]
        return data


def _whole(value: object, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _span(value: object, limit: int) -> tuple[int, int] | None:
    """``[first, last]`` with ``1 <= first < last <= limit``, else ``None``."""
    if (
        isinstance(value, list)
        and len(value) == 2
        and all(_whole(v, 1, limit) for v in value)
        and value[0] < value[1]
    ):
        return value[0], value[1]
    return None


def _river(raw: object, rows: int, problems: list[str]) -> River | None:
    where = "board.river"
    if not isinstance(raw, Mapping):
        problems.append(
            f'{where}: must be a table like {{ after_row = 5, labels = ["楚河", "漢界"] }},'
            f" not {kind(raw)}"
        )
        return None
    unknown_keys(raw, _RIVER_KEYS, f"{where}.", problems)
    count = len(problems)
    after = raw.get("after_row")
    if rows < 2:
        problems.append(f"{where}: a board of one row has no room for a river")
    elif "after_row" not in raw:
        problems.append(f"{where}.after_row: missing (the row the river runs below)")
    elif not _whole(after, 1, rows - 1):
        problems.append(
            f"{where}.after_row: must be a row number 1..{rows - 1} (the river runs below it),"
            f" not {show(after)}"
        )
    labels = raw.get("labels", [])
    if not isinstance(labels, list) or len(labels) > MAX_RIVER_LABELS:
        shown = len(labels) if isinstance(labels, list) else kind(labels)
        problems.append(
            f"{where}.labels: must be a list of at most {MAX_RIVER_LABELS} texts, not {shown}"
        )
        labels = []
    for i, label in enumerate(labels):
        if not isinstance(label, str):
            problems.append(f"{where}.labels[{i}]: must be text, not {kind(label)}")
        elif len(label) > MAX_RIVER_LABEL:
            problems.append(f"{where}.labels[{i}]: longer than {MAX_RIVER_LABEL} characters")
    if len(problems) > count or not isinstance(after, int):
        return None
    return River(after, tuple(labels))


def _palaces(raw: object, rows: int, cols: int, problems: list[str]) -> tuple[Palace, ...]:
    where = "board.palaces"
    if not isinstance(raw, list):
        problems.append(
            f"{where}: must be a list of tables like {_PALACE_EXAMPLE}, not {kind(raw)}"
        )
        return ()
    if len(raw) > MAX_PALACES:
        problems.append(f"{where}: {len(raw)} palaces, at most {MAX_PALACES}")
        return ()
    found: list[Palace] = []
    for i, entry in enumerate(raw):
        place = f"{where}[{i}]"
        if not isinstance(entry, Mapping):
            problems.append(f"{place}: must be a table like {_PALACE_EXAMPLE}, not {kind(entry)}")
            continue
        unknown_keys(entry, _PALACE_KEYS, f"{place}.", problems)
        spans: list[tuple[int, int]] = []
        for key, word, limit in (("rows", "row", rows), ("cols", "column", cols)):
            span = _span(entry.get(key), limit)
            if key not in entry:
                problems.append(f"{place}.{key}: missing (e.g. {_PALACE_EXAMPLE})")
            elif span is None:
                problems.append(
                    f"{place}.{key}: must be two {word} numbers [first, last] with"
                    f" 1 <= first < last <= {limit}, not {show(entry.get(key))}"
                )
            else:
                spans.append(span)
        if len(spans) == 2:
            found.append(Palace(spans[0], spans[1]))
    return tuple(found)


def _marks(raw: object, rows: int, cols: int, problems: list[str]) -> tuple[tuple[int, int], ...]:
    where = "board.marks"
    if not isinstance(raw, list):
        problems.append(
            f"{where}: must be a list of [row, column] pairs like [[3, 2], [4, 1]], not {kind(raw)}"
        )
        return ()
    if len(raw) > rows * cols:
        problems.append(f"{where}: {len(raw)} marks, at most {rows * cols} (one per square)")
        return ()
    found: list[tuple[int, int]] = []
    for i, entry in enumerate(raw):
        if not (
            isinstance(entry, list)
            and len(entry) == 2
            and _whole(entry[0], 1, rows)
            and _whole(entry[1], 1, cols)
        ):
            problems.append(
                f"{where}[{i}]: must be a [row, column] pair on the board (rows 1..{rows},"
                f" columns 1..{cols}), not {show(entry)}"
            )
        elif (entry[0], entry[1]) in found:
            problems.append(f"{where}[{i}]: {entry} is marked twice")
        else:
            found.append((entry[0], entry[1]))
    return tuple(found)


def parse_look(board: Mapping[str, Any], rows: int, cols: int, problems: list[str]) -> BoardLook:
    """The display hint of a ``[board]`` table of ``rows`` x ``cols`` squares; each problem is
    added to ``problems`` with its place (``board.river.after_row: ...``)."""
    look = board.get("look", "cells")
    if not isinstance(look, str) or look not in LOOKS:
        problems.append(f"board.look: must be 'cells' or 'intersections', not {show(look)}")
        look = "intersections"  # check the rest as if it were meant
        ok = False
    else:
        ok = True
    if look == "cells":
        for key in ("river", "palaces", "marks"):
            if key in board:
                problems.append(f"board.{key}: only drawn with look = 'intersections'")
        return BoardLook()
    river = _river(board["river"], rows, problems) if "river" in board else None
    palaces = _palaces(board["palaces"], rows, cols, problems) if "palaces" in board else ()
    marks = _marks(board["marks"], rows, cols, problems) if "marks" in board else ()
    if not ok:
        return BoardLook()
    return BoardLook(look, river, palaces, marks)
