"""The ``custom`` engine: data-defined variants (RULES.md section 5).

States are frozen values. A move is ``r,c-r,c`` (1-based, row 1 at the top). The position string
is ``VARIANT;TURN;N1,N2;ROWS``: rows from the top separated by ``/``, cells by ``,``; ``.`` is
empty, otherwise a piece type id, with ``*`` after a promoted piece.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from engines.base import (
    SIDES,
    BadPosition,
    Engine,
    IllegalMove,
    Outcome,
    Side,
    UnknownVariant,
    VariantInfo,
    other,
)
from engines.custom import catalog
from engines.custom.definition import Variant, VariantError
from engines.custom.rules import Board, Compiled
from engines.custom.safety import MoveTest, move_safety

_MOVE = re.compile(r"\s*([0-9]{1,2})\s*,\s*([0-9]{1,2})\s*-\s*([0-9]{1,2})\s*,\s*([0-9]{1,2})\s*")
MAX_POSITION_CHARS = 4096


def _side_number(side: Side) -> int:
    return 1 if side == "first" else 2


@functools.cache
def _cell_texts(codes: int) -> tuple[str, ...]:
    """Position-string text of every cell code ``0..codes-1`` (``.``, ``N`` or ``N*``)."""
    return tuple("." if not v else f"{v >> 1}{'*' if v & 1 else ''}" for v in range(codes))


@dataclass(frozen=True)
class CustomState:
    """A position of a custom variant, and how it came about."""

    variant: str
    board: Board
    turn: Side
    rules: Compiled = field(compare=False, hash=False, repr=False)
    """The variant's move tables (not part of the value)."""
    ply: int = 0
    last_move: str | None = None
    neutral: tuple[int, int] = (0, 0)
    """Consecutive own turns on which red / blue moved a neutral piece (0..2)."""
    finished: Outcome | None = None
    """Set when a move ended the game (a captain captured, generals left facing)."""
    max_plies: int = 400
    _memo: dict[str, Any] = field(compare=False, hash=False, repr=False, default_factory=dict)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without the memo (a cache, and it may hold local functions)."""
        return {k: v for k, v in self.__dict__.items() if k != "_memo"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, _memo={})


class CustomEngine(Engine):
    """Rectangular boards, pieces with step/slide rules, captains, neutrals, promotion."""

    game = "custom"
    name = "Custom variants"
    default_options: ClassVar[Mapping[str, Any]] = {"max_plies": 400}

    def __init__(self) -> None:
        self.accept_paths = False
        """Whether :meth:`resolve_variant` loads a ``.toml``/``.xlsx`` path. Off by default, so
        variant text from a client can never make a server read its files; local tools load a file
        explicitly with :meth:`load_file`."""
        self._lock = threading.Lock()
        self._variants: dict[str, Variant] = {}
        self._compiled: dict[str, Compiled] = {}
        self._shipped: list[str] = []
        for v in catalog.shipped():
            self._variants[v.id] = v
            self._shipped.append(v.id)

    # ---- variants ------------------------------------------------------------------------------

    def register(self, variant: Variant) -> str:
        """Make ``variant`` playable under its id (refused if a different one has that id)."""
        with self._lock:
            known = self._variants.get(variant.id)
            if known is not None and known != variant:
                raise VariantError(
                    [f"id {variant.id!r} is already used by another variant"], variant.id
                )
            self._variants[variant.id] = variant
        return variant.id

    def load_directory(self, directory: str | os.PathLike[str]) -> list[str]:
        """Load and register every variant file of ``directory`` (the server's ``--variants``).

        All or nothing: raises :class:`VariantError` listing every problem of every file.
        """

        def clash(v: Variant) -> str | None:
            known = self._variants.get(v.id)
            if known is None or known == v:
                return None
            whose = "a built-in variant" if v.id in self._shipped else "loaded before"
            return (
                f"id {v.id!r} is already used by {known.name} ({whose}); give this variant"
                " another id"
            )

        found = catalog.load_directory_files(directory, clash)
        return [self.register(v) for _, v in found]

    def load_file(self, path: str | os.PathLike[str]) -> str:
        """Load and register one ``.toml`` file or ``.xlsx`` map; returns its variant id."""
        return self.register(catalog.load_file(path))

    def load_data(self, data: Mapping[str, Any]) -> str:
        """Register a definition given as data (``variant_info`` JSON, e.g. from storage)."""
        from engines.custom.definition import parse_definition

        return self.register(parse_definition(data, source="variant data"))

    def definition(self, variant: str) -> Variant:
        """The :class:`Variant` of a known id; raises :class:`UnknownVariant`."""
        found = self._variants.get(variant)
        if found is None:
            raise UnknownVariant(
                f"custom has no variant {variant[:60]!r}; known: {', '.join(self._variants)}"
            )
        return found

    def variants(self) -> list[VariantInfo]:
        """Shipped variants first (the default is Xiangqi), then loaded ones."""
        order = self._shipped + sorted(k for k in self._variants if k not in self._shipped)
        return [
            VariantInfo(v.id, v.name, v.description) for v in (self._variants[k] for k in order)
        ]

    def resolve_variant(self, variant: str | None) -> str:
        """A known id, or (with :attr:`accept_paths`) the path of a ``.toml`` or ``.xlsx`` file."""
        if variant is None or variant == "":
            return self.default_variant()
        if not isinstance(variant, str):
            raise UnknownVariant(
                f"a custom variant is named by its id (text), not {type(variant).__name__};"
                f" known: {', '.join(self._variants)}"
            )
        if variant in self._variants:
            return variant
        looks_like_path = variant.lower().endswith(catalog.VARIANT_SUFFIXES)
        if self.accept_paths and looks_like_path and os.path.isfile(variant):
            return self.load_file(variant)
        return self.definition(variant).id

    def variant_info(self, variant: str) -> dict[str, Any]:
        """The definition as JSON data: everything a client needs to draw and explain it.

        Only ids are accepted here (never paths: ``GET /variants/ID`` passes client text)."""
        v = self.definition(variant or self.default_variant())
        info = v.to_data(derived=True)
        info["sides"] = {"1": "red", "2": "blue", "3": "neutral"}
        info["first"] = "red"
        info["undo_allowed"] = v.rules.undo
        return info

    def allows_undo(self, variant: str) -> bool:
        """Whether takeback offers are allowed in ``variant`` (else the server refuses them)."""
        return self.definition(variant or self.default_variant()).rules.undo

    def compiled(self, variant: str) -> Compiled:
        """Move tables of a known variant (built once)."""
        with self._lock:
            table = self._compiled.get(variant)
            v = self.definition(variant)
            if table is None or table.variant != v:
                table = Compiled(v)
                self._compiled[variant] = table
            return table

    # ---- the game ------------------------------------------------------------------------------

    def start(
        self,
        variant: str | None = None,
        position: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> CustomState:
        """The start position of ``variant`` or the position string ``position``."""
        opts = self.validate_options(options)
        if position is not None and not isinstance(position, str):
            raise BadPosition(f"a custom position must be text, not {type(position).__name__}")
        if position is not None and position.strip():
            return self._parse_position(position, variant, opts["max_plies"])
        vid = self.resolve_variant(variant)
        table = self.compiled(vid)
        v = table.variant
        board = tuple(c * 2 if c else 0 for row in v.layout for c in row)
        return CustomState(vid, board, "first", table, max_plies=opts["max_plies"])

    def _parse_position(self, text: str, variant: str | None, max_plies: int) -> CustomState:
        if len(text) > MAX_POSITION_CHARS:
            raise BadPosition(f"position string longer than {MAX_POSITION_CHARS} characters")
        parts = text.strip().split(";")
        if len(parts) != 4:
            raise BadPosition(
                "a custom position is VARIANT;TURN;N1,N2;ROWS (4 parts separated by ';'),"
                f" got {len(parts)} part(s)"
            )
        vid_text, turn, counters, rows_text = (p.strip() for p in parts)
        if vid_text not in self._variants:
            raise BadPosition(f"position names unknown variant {vid_text[:50]!r}")
        if variant:
            wanted = self.resolve_variant(variant)
            if wanted != vid_text:
                raise BadPosition(f"position is of variant {vid_text!r}, not {wanted!r}")
        table = self.compiled(vid_text)
        v = table.variant
        problems: list[str] = []
        if turn not in ("first", "second"):
            problems.append(f"turn must be 'first' or 'second', not {turn[:20]!r}")
        counts = counters.split(",")
        if len(counts) != 2 or not all(c.strip() in ("0", "1", "2") for c in counts):
            problems.append(
                f"neutral counters must be two numbers 0..2 like '0,1', not {counters[:20]!r}"
            )
            neutral = (0, 0)
        else:
            neutral = (int(counts[0]), int(counts[1]))
            if neutral != (0, 0) and not v.rules.neutral_limit:
                problems.append(
                    f"neutral counters must be 0,0: variant {v.id} has no neutral limit,"
                    f" not {counters[:20]!r}"
                )
        rows = rows_text.split("/")
        board: list[int] = []
        if len(rows) != v.rows:
            problems.append(f"{len(rows)} rows, variant {v.id} has {v.rows}")
        for r, row in enumerate(rows[: v.rows]):
            cells = row.split(",")
            if len(cells) != v.cols:
                problems.append(f"row {r + 1} has {len(cells)} cells, variant {v.id} has {v.cols}")
            for c, cell in enumerate(cells[: v.cols]):
                cell = cell.strip()
                promoted = cell.endswith("*")
                core = cell[:-1] if promoted else cell
                if core == "." and not promoted:
                    board.append(0)
                elif (
                    core.isascii()
                    and core.isdigit()
                    and len(core) <= 3
                    and 1 <= int(core) <= len(v.pieces)
                ):
                    piece = v.piece(int(core))
                    if promoted and not (v.rules.promotion and piece.promote_when):
                        why = (
                            "promotion is off in this variant"
                            if piece.promote_when
                            else "it has no promotion condition"
                        )
                        problems.append(
                            f"row {r + 1}, column {c + 1}: piece {core} ({piece.name}) is"
                            f" marked promoted ({cell[:10]!r}) but never promotes: {why}"
                        )
                    board.append(int(core) * 2 + promoted)
                else:
                    problems.append(f"row {r + 1}, column {c + 1}: bad cell {cell[:10]!r}")
                    board.append(0)
            board.extend(0 for _ in range(v.cols - len(cells)))
        if problems:
            raise BadPosition("bad position: " + "; ".join(problems))
        final = tuple(board[: v.rows * v.cols])
        side: Side = "first" if turn == "first" else "second"
        state = CustomState(vid_text, final, side, table, 0, None, neutral, None, max_plies)
        return replace(state, finished=self._judge_loaded(state))

    def _judge_loaded(self, state: CustomState) -> Outcome | None:
        """A loaded position may already be decided: a side that started with captains and has
        none left has lost; generals left facing (xiangqi, JBQ rules) lost for the last mover."""
        table = state.rules
        v = table.variant
        lost: list[Side] = []
        for number, side in ((1, SIDES[0]), (2, SIDES[1])):
            starts_with_captain = any(
                t and v.piece(t).captain and v.piece(t).side == number
                for row in v.layout
                for t in row
            )
            if starts_with_captain and not table.captains(state.board, number):
                lost.append(side)
        if len(lost) == 2:
            raise BadPosition("both sides have lost all their captains")
        if lost:
            return Outcome(winner=other(lost[0]), reason="captain")
        facing = table.facing_generals(state.board)
        if facing is not None:
            if v.rules.self_check:
                raise BadPosition("the generals face each other on an open file")
            # The side that just moved left them facing and lost.
            return Outcome(
                winner=state.turn, reason="captain", highlight=self._names(table, facing)
            )
        if v.rules.self_check:
            waiting = 3 - _side_number(state.turn)
            if any(
                table.attacked(state.board, sq, 3 - waiting)
                for sq in table.captains(state.board, waiting)
            ):
                raise BadPosition("the side not to move has its captain attacked")
        return None

    @staticmethod
    def _names(table: Compiled, squares: tuple[int, ...]) -> tuple[str, ...]:
        return tuple(f"{s // table.cols + 1},{s % table.cols + 1}" for s in squares)

    def _notation(self, table: Compiled, move: tuple[int, int]) -> str:
        a, b = move
        cols = table.cols
        return f"{a // cols + 1},{a % cols + 1}-{b // cols + 1},{b % cols + 1}"

    def _pseudo(self, state: CustomState) -> list[tuple[int, int]]:
        table = state.rules
        side = _side_number(state.turn)
        neutrals = not table.variant.rules.neutral_limit or state.neutral[side - 1] < 2
        return table.moves(state.board, side, neutrals)

    def _pairs(self, state: CustomState) -> list[tuple[int, int]]:
        """Moves of the side to move, ignoring whether the game is over."""
        memo = state._memo.get("pairs")
        if memo is not None:
            return list(memo)
        safe = self._safety(state)
        pairs = [move for move in self._pseudo(state) if safe(move)]
        state._memo["pairs"] = pairs
        return pairs

    def _safety(self, state: CustomState) -> MoveTest:
        """:meth:`_safe_moves` of ``state``, made once per state (a move is checked against the
        state before it, and the state after it is asked whether any move is left). The check
        keeps the board, not the state, so the memo makes no reference cycle."""
        memo = state._memo
        safe = memo.get("safety")
        if safe is None:
            safe = memo["safety"] = self._safe_moves(state)
        return safe

    def _safe_moves(self, state: CustomState) -> MoveTest:
        """Whether a pseudo-legal move of ``state`` neither faces the generals nor leaves a
        captain attacked (always true without the self-check rule)."""
        side = _side_number(state.turn)
        return move_safety(state.rules, state.board, side, self.settled(state))

    def settled(self, state: CustomState) -> bool:
        """Whether a move from ``state`` changes no square but its two: promotions depend on
        the square alone and no piece of ``state`` would promote where it stands (so a move
        promotes at most the moved piece). Every state a move made is settled; a loaded one is
        looked at once. False when the variant has no promotion or board-dependent ones."""
        table = state.rules
        if not (table.variant.rules.promotion and table.static_promotion):
            return False
        memo = state._memo
        found = memo.get("settled")
        if found is None:
            found = memo["settled"] = table.promote_all(state.board) == state.board
        return bool(found)

    def _is_legal(self, state: CustomState, pair: tuple[int, int]) -> bool:
        """``pair in self._pairs(state)`` without building every move when not memoised."""
        memo = state._memo.get("pairs")
        if memo is not None:
            return pair in memo
        table = state.rules
        code = state.board[pair[0]]
        if not code:
            return False
        side = _side_number(state.turn)
        owner = table.side_of[code]
        neutrals = not table.variant.rules.neutral_limit or state.neutral[side - 1] < 2
        if owner != side and (owner != 3 or not neutrals):
            return False
        if pair[1] not in table.targets(state.board, pair[0]):
            return False
        return self._safety(state)(pair)

    def _has_move(self, state: CustomState) -> bool:
        """Whether the side to move has any legal move (stops at the first one found)."""
        memo = state._memo.get("pairs")
        if memo is not None:
            return bool(memo)
        table = state.rules
        side = _side_number(state.turn)
        neutrals = not table.variant.rules.neutral_limit or state.neutral[side - 1] < 2
        safe = self._safety(state)
        return any(safe(move) for move in table.iter_moves(state.board, side, neutrals))

    def legal_moves(self, state: CustomState) -> list[str]:
        """Every legal move as ``r,c-r,c``; empty once the game is over."""
        if self.outcome(state) is not None:
            return []
        return [self._notation(state.rules, m) for m in self._pairs(state)]

    def legal_pairs(self, state: CustomState) -> list[tuple[int, int]]:
        """:meth:`legal_moves` as ``(from, to)`` square indexes (``row * cols + col``, 0-based),
        for searchers that would otherwise spell and parse every move."""
        if self.outcome(state) is not None:
            return []
        return list(self._pairs(state))

    def legal_captures(self, state: CustomState) -> list[tuple[int, int]]:
        """The moves of :meth:`legal_pairs` that take a piece, in the same order; only they are
        put to the self-check (a searcher's quiescence asks for nothing else)."""
        if self.outcome(state) is not None:
            return []
        board = state.board
        memo = state._memo.get("pairs")
        if memo is not None:
            return [move for move in memo if board[move[1]]]
        safe = self._safety(state)
        return [move for move in self._pseudo(state) if board[move[1]] and safe(move)]

    def play_pair(self, state: CustomState, pair: tuple[int, int]) -> CustomState:
        """The state after ``pair``, which must be one of :meth:`legal_pairs` of ``state`` (not
        checked again: a searcher plays only the moves it was given)."""
        return self._apply(state, pair)

    def pair_notation(self, state: CustomState, pair: tuple[int, int]) -> str:
        """``pair`` in the notation of :meth:`play` (``r,c-r,c``)."""
        return self._notation(state.rules, pair)

    def play(self, state: CustomState, move: str) -> CustomState:
        """The state after ``move`` (``r,c-r,c``); raises :class:`IllegalMove`."""
        if not isinstance(move, str):
            raise IllegalMove(
                f"a move must be text like 7,2-6,2 (row,col-row,col), not {type(move).__name__}"
            )
        m = _MOVE.fullmatch(move) if len(move) < 40 else None
        if m is None:
            raise IllegalMove(
                f"bad move {str(move)[:40]!r}: write it as row,col-row,col (e.g. 7,2-6,2)"
            )
        table = state.rules
        r1, c1, r2, c2 = (int(g) - 1 for g in m.groups())
        if not (
            0 <= r1 < table.rows
            and 0 <= r2 < table.rows
            and 0 <= c1 < table.cols
            and 0 <= c2 < table.cols
        ):
            raise IllegalMove(f"move {move.strip()!r} leaves the {table.rows}x{table.cols} board")
        if self.outcome(state) is not None:
            raise IllegalMove("the game is over")
        pair = (r1 * table.cols + c1, r2 * table.cols + c2)
        if not self._is_legal(state, pair):
            raise IllegalMove(self._why_illegal(state, pair, move.strip()))
        return self._apply(state, pair)

    def _why_illegal(self, state: CustomState, pair: tuple[int, int], text: str) -> str:
        table = state.rules
        code = state.board[pair[0]]
        side = _side_number(state.turn)
        if not code:
            return f"{text}: there is no piece on the first square"
        owner = table.side_of[code]
        if owner not in (side, 3):
            return f"{text}: that piece belongs to the opponent"
        if owner == 3 and table.variant.rules.neutral_limit and state.neutral[side - 1] >= 2:
            return f"{text}: neutral pieces were moved on your last 2 turns"
        if (pair in self._pseudo(state)) and table.variant.rules.self_check:
            return f"{text}: it would leave your captain attacked"
        return f"{text}: that piece cannot move there"

    def _apply(self, state: CustomState, pair: tuple[int, int]) -> CustomState:
        table = state.rules
        rules = table.variant.rules
        mover = _side_number(state.turn)
        moved = state.board[pair[0]]
        captured = state.board[pair[1]]
        neutral = list(state.neutral)
        if rules.neutral_limit and table.side_of[moved] == 3:
            neutral[mover - 1] += 1
        else:
            neutral[mover - 1] = 0
        settled = self.settled(state)
        board = table.board_after(state.board, pair, settled)
        finished = None
        if captured and table.captain[captured]:
            finished = Outcome(
                winner=state.turn, reason="captain", highlight=self._names(table, (pair[1],))
            )
        elif not rules.self_check:
            facing = table.facing_generals(board)
            if facing is not None:
                finished = Outcome(
                    winner=other(state.turn), reason="captain", highlight=self._names(table, facing)
                )
        after = CustomState(
            state.variant,
            board,
            other(state.turn),
            table,
            ply=state.ply + 1,
            last_move=self._notation(table, pair),
            neutral=(neutral[0], neutral[1]),
            finished=finished,
            max_plies=state.max_plies,
        )
        if rules.promotion and table.static_promotion:
            after._memo["settled"] = True  # every piece that could promote has
        return after

    def outcome(self, state: CustomState) -> Outcome | None:
        """Captain captured / generals left facing, no legal move, or the ply limit."""
        if state.finished is not None:
            return state.finished
        memo = state._memo
        if "outcome" in memo:
            cached: Outcome | None = memo["outcome"]
            return cached
        result: Outcome | None = None
        if not self._has_move(state):
            if state.rules.variant.rules.no_legal_move == "lose":
                result = Outcome(winner=other(state.turn), reason="no_moves")
            else:
                result = Outcome(winner=None, reason="no_moves")
        elif state.max_plies and state.ply >= state.max_plies:
            result = Outcome(winner=None, reason="move_limit")
        memo["outcome"] = result
        return result

    def position(self, state: CustomState) -> str:
        """``VARIANT;TURN;N1,N2;ROWS``."""
        memo = state._memo
        cached = memo.get("position")
        if cached is not None:
            text: str = cached
            return text
        table = state.rules
        board = state.board
        cols = table.cols
        cell = _cell_texts(len(table.side_of))
        rows = "/".join(
            ",".join([cell[v] for v in board[start : start + cols]])
            for start in range(0, table.rows * cols, cols)
        )
        text = f"{state.variant};{state.turn};{state.neutral[0]},{state.neutral[1]};{rows}"
        memo["position"] = text
        return text

    def perft(self, state: CustomState, depth: int) -> int:
        """Positions at exactly ``depth`` plies (finished positions have no moves)."""
        if depth == 0:
            return 1
        if self.outcome(state) is not None:
            return 0
        pairs = self._pairs(state)
        if depth == 1:
            return len(pairs)
        return sum(self.perft(self._apply(state, m), depth - 1) for m in pairs)
