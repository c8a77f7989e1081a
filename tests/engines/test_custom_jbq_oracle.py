"""Imported JBQ maps against an independent model of how JBQ plays them (RULES.md section 5).

The model below is written from RULES.md section 5 and the JBQ semantics it names (directions as
a keypad, steps and slides, conditions ORed with ``&``, JBQ's ``NP`` on 0-based squares, the
conditions C/D/R/T, capture of neutrals never, promotion scan after every move, neutral limit,
the Chinese-chess extension's horse, elephant, cannon and facing generals). It reads the JSON
dumps of the map workbooks in ../shared/jbq-maps (never copied here), so it shares no code with
the importer, which reads the ``.xlsx`` files. Seeded random games compare, at every ply, the
legal moves, the board after each move (promotions included) and the end of the game.

Where Boardhall decides otherwise (RULES.md: no move after the end, no-legal-move results, and
FORMAT.md's cannon that captures even without another move) the model follows Boardhall.
"""

from __future__ import annotations

import itertools
import json
import os
import random
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from engines.custom import CustomEngine, CustomState

MAPS = Path(os.environ.get("BOARDHALL_JBQ_MAPS", Path(os.environ["BOARDHALL_SHARED"], "jbq-maps")))
PLAYABLE = ["example(5x6)", "standard(7x7)", "中国象棋"]

needs_maps = pytest.mark.skipif(not (MAPS / "example(5x6).json").exists(), reason="no JBQ maps")

KEYPAD = ("123", "4.5", "678")
"""RULES.md's keypad around the piece ("1 2 3 / 4 . 5 / 6 7 8", 2 = up, towards row 1)."""
STEP = {
    int(key): (row - 1, col - 1)
    for row, line in enumerate(KEYPAD)
    for col, key in enumerate(line)
    if key != "."
}
"""Keypad direction -> (row step, column step)."""

Atom = tuple[str, tuple[int, ...]]
Rule = list[list[tuple[int, list[Atom]]]]
"""Groups (steps, slides) of (direction, conditions) as JBQ parses ``STEPS;SLIDES``."""


def parse_atoms(text: str) -> list[Atom]:
    """``X[1|2]&P[3|4]`` -> ``[("X", (1, 2)), ("P", (3, 4))]``."""
    atoms = []
    for part in text.split("&"):
        if part:
            name, _, rest = part.partition("[")
            atoms.append((name, tuple(int(n) for n in rest[:-1].split("|"))))
    return atoms


def parse_rule(text: str) -> Rule:
    """JBQ's movement rule: groups split by ';', directions by ',', each ``d`` or ``d(COND)``."""
    groups: Rule = []
    for group in text.split(";"):
        dirs = []
        for token in group.split(","):
            if not token:
                continue
            if "(" in token:
                head, _, cond = token.partition("(")
                dirs.append((int(head), parse_atoms(cond[:-1])))
            else:
                dirs.append((int(token), []))
        groups.append(dirs)
    return groups


@dataclass
class PieceType:
    """One row of the ``chesses`` sheet."""

    id: int
    name: str
    side: int
    captain: bool
    moves: Rule
    promote_when: list[Atom]
    promoted_moves: Rule


@dataclass
class Model:
    """A JBQ game: the board holds ``(type id, promoted)`` or ``None``, row 0 at the top."""

    types: list[PieceType]
    board: list[list[tuple[int, bool] | None]]
    promotion: bool
    neutral_limit: bool
    xiangqi: bool
    turn: int = 1
    neutral: list[int] = field(default_factory=lambda: [0, 0])
    winner: int | None = None

    @property
    def rows(self) -> int:
        return len(self.board)

    @property
    def cols(self) -> int:
        return len(self.board[0])

    def piece(self, r: int, c: int) -> PieceType | None:
        cell = self.board[r][c]
        return None if cell is None else self.types[cell[0] - 1]

    def squares_of(self, type_id: int) -> list[tuple[int, int]]:
        return [
            (r, c)
            for r in range(self.rows)
            for c in range(self.cols)
            if (cell := self.board[r][c]) is not None and cell[0] == type_id
        ]

    def holds(self, at: tuple[int, int], atoms: list[Atom]) -> bool:
        """JBQ's ``is_in_position``: true when ANY atom holds at ``at`` (0-based)."""

        def index(n: int, length: int) -> int:
            return n - 1 if n > 0 else n + length

        for name, args in atoms:
            if name == "X" and any(at[0] == index(a, self.rows) for a in args):
                return True
            if name == "Y" and any(at[1] == index(a, self.cols) for a in args):
                return True
            pairs = list(zip(args[::2], args[1::2], strict=True)) if name in ("P", "NP") else []
            if name == "P" and any(
                at == (index(a, self.rows), index(b, self.cols)) for a, b in pairs
            ):
                return True
            if name == "NP" and at not in pairs:  # JBQ compares the raw numbers, 0-based
                return True
            if name == "C":
                count = sum(
                    1
                    for row in self.board
                    for cell in row
                    if cell is not None and args[0] in (0, cell[0])
                )
                if args[1] <= count <= args[2]:
                    return True
            if name == "T" and len(self.squares_of(args[0])) != 1:
                return True
            if name in ("D", "R") and self._distance_holds(at, name, args):
                return True
        return False

    def _distance_holds(self, at: tuple[int, int], name: str, args: tuple[int, ...]) -> bool:
        found = self.squares_of(args[0])
        if len(found) != 1:
            return False
        (orow, ocol), (row, col) = found[0], at
        dist = abs(orow - row) + abs(ocol - col)
        if not {1: dist > args[2], 0: dist == args[2], -1: dist < args[2]}[args[1]]:
            return False
        if name == "D":
            return True
        vertical = 0 if orow < row else 1 if orow == row else 2
        horizontal = 0 if ocol < col else 1 if ocol == col else 2
        return (1, 2, 3, 4, 0, 5, 6, 7, 8)[vertical * 3 + horizontal] in args[3:]

    def can_eat(self, mover: int, target: int) -> bool:
        return mover != 3 and target != 3 and mover != target

    def inside(self, r: int, c: int) -> bool:
        return 0 <= r < self.rows and 0 <= c < self.cols

    def targets(self, r: int, c: int) -> set[tuple[int, int]]:
        """JBQ's ``get_can_go`` (with the Chinese-chess extension when the map has it)."""
        kind = self.piece(r, c)
        cell = self.board[r][c]
        assert kind is not None and cell is not None
        rule = kind.promoted_moves if cell[1] else kind.moves
        steps, slides = (
            [d for d, cond in group if not cond or self.holds((r, c), cond)] for group in rule[:2]
        )
        lines: list[list[tuple[int, int]]] = []
        for d in steps:
            t = (r + STEP[d][0], c + STEP[d][1])
            if self.inside(*t):
                other = self.piece(*t)
                if other is None or self.can_eat(kind.side, other.side):
                    lines.append([t])
        for d in slides:
            line: list[tuple[int, int]] = []
            t = (r + STEP[d][0], c + STEP[d][1])
            while self.inside(*t):
                other = self.piece(*t)
                if other is not None:
                    if self.can_eat(kind.side, other.side):
                        line.append(t)
                    break
                line.append(t)
                t = (t[0] + STEP[d][0], t[1] + STEP[d][1])
            lines.append(line)
        if self.xiangqi:
            lines = self._xiangqi(kind, (r, c), lines)
        return {t for line in lines for t in line}

    def _xiangqi(
        self,
        kind: PieceType,
        at: tuple[int, int],
        lines: list[list[tuple[int, int]]],
    ) -> list[list[tuple[int, int]]]:
        r, c = at
        if kind.name in ("相", "象"):
            # Steps are dropped (their lines hold one square); slides move exactly two squares.
            return [[line[1]] if len(line) >= 2 else [] for line in lines]
        if kind.name == "炮":
            quiet = [[t for t in line if self.piece(*t) is None] for line in lines]
            for d in (2, 4, 5, 7):
                screen = False
                t = (r + STEP[d][0], c + STEP[d][1])
                while self.inside(*t):
                    other = self.piece(*t)
                    if other is not None:
                        if screen:
                            if self.can_eat(kind.side, other.side):
                                quiet.append([t])
                            break
                        screen = True
                    t = (t[0] + STEP[d][0], t[1] + STEP[d][1])
            return quiet
        if kind.name == "马":
            for leg_dir, diagonals in ((2, (1, 3)), (4, (1, 6)), (5, (3, 8)), (7, (6, 8))):
                leg = (r + STEP[leg_dir][0], c + STEP[leg_dir][1])
                if not self.inside(*leg) or self.piece(*leg) is not None:
                    continue
                for d in diagonals:
                    t = (leg[0] + STEP[d][0], leg[1] + STEP[d][1])
                    if self.inside(*t):
                        other = self.piece(*t)
                        if other is None or self.can_eat(kind.side, other.side):
                            lines.append([t])
        return lines

    def moves(self) -> set[tuple[tuple[int, int], tuple[int, int]]]:
        """Every move of the side to move: its pieces, and neutrals unless limited now."""
        limited = self.neutral_limit and self.neutral[self.turn - 1] >= 2
        found = set()
        for r in range(self.rows):
            for c in range(self.cols):
                kind = self.piece(r, c)
                if kind is None or kind.side not in (self.turn, 3):
                    continue
                if kind.side == 3 and limited:
                    continue
                found |= {((r, c), t) for t in self.targets(r, c)}
        return found

    def play(self, frm: tuple[int, int], to: tuple[int, int]) -> None:
        """JBQ's ``Map.move`` then the extension's ``after_move``."""
        mover = self.piece(*frm)
        assert mover is not None
        if self.neutral_limit and mover.side == 3:
            self.neutral[self.turn - 1] += 1
        else:
            self.neutral[self.turn - 1] = 0
        taken = self.piece(*to)
        if taken is not None and taken.captain:
            self.winner = self.turn
        self.board[to[0]][to[1]], self.board[frm[0]][frm[1]] = self.board[frm[0]][frm[1]], None
        if self.promotion:
            for r in range(self.rows):
                for c in range(self.cols):
                    cell = self.board[r][c]
                    kind = self.piece(r, c)
                    if cell is None or kind is None or cell[1] or not kind.promote_when:
                        continue
                    if self.holds((r, c), kind.promote_when):
                        self.board[r][c] = (cell[0], True)
        if self.xiangqi and self.winner is None and self._generals_face():
            self.winner = 3 - self.turn
        self.turn = 3 - self.turn

    def _generals_face(self) -> bool:
        for c in range(self.cols):
            column = [self.piece(r, c) for r in range(self.rows)]
            names = [p.name for p in column if p is not None]
            for above, below in itertools.pairwise(names):
                if {above, below} == {"将", "帅"}:
                    return True
        return False

    def position_rows(self) -> str:
        return "/".join(
            ",".join("." if cell is None else f"{cell[0]}{'*' if cell[1] else ''}" for cell in row)
            for row in self.board
        )


def load_model(name: str) -> Model:
    """The model of a map from its JSON dump (sheet name -> rows of raw cell values)."""
    sheets = json.loads((MAPS / f"{name}.json").read_text(encoding="utf-8"))
    types = []
    for i, row in enumerate(sheets["chesses"][1:], start=1):
        types.append(
            PieceType(
                id=i,
                name=str(row[1]).strip('"'),
                side=int(row[2]),
                captain=row[3] == "c",
                moves=parse_rule(str(row[4])),
                promote_when=parse_atoms(row[5]) if row[5] else [],
                promoted_moves=parse_rule(str(row[6] or ";")),
            )
        )
    grid = sheets["map"]
    rows, cols = int(grid[0][1]), int(grid[0][3])
    board: list[list[tuple[int, bool] | None]] = [
        [(int(v), False) if v else None for v in grid[r + 1][:cols]] for r in range(rows)
    ]
    switches = [row[2] == "c" for row in sheets["rules"][1:4]]
    return Model(
        types=types,
        board=board,
        promotion=switches[0],
        neutral_limit=switches[2],
        xiangqi=name == "中国象棋",
    )


def texts(model: Model) -> set[str]:
    """The model's moves in Boardhall notation (1-based ``r,c-r,c``)."""
    return {f"{a + 1},{b + 1}-{c + 1},{d + 1}" for (a, b), (c, d) in model.moves()}


def winner_word(side: int | None) -> str | None:
    return None if side is None else "first" if side == 1 else "second"


@pytest.fixture(scope="module")
def engine() -> CustomEngine:
    local = CustomEngine()
    local.accept_paths = True
    return local


@needs_maps
@pytest.mark.parametrize("name", PLAYABLE)
def test_start_position_matches_the_map(engine: CustomEngine, name: str) -> None:
    """The imported start position is the ``map`` sheet's grid, red to move, counters 0,0."""
    vid = engine.resolve_variant(str(MAPS / f"{name}.xlsx"))
    model = load_model(name)
    assert engine.position(engine.start(vid)) == f"{vid};first;0,0;{model.position_rows()}"


@needs_maps
@pytest.mark.parametrize("name", PLAYABLE)
def test_random_games_play_as_jbq_plays_them(engine: CustomEngine, name: str) -> None:
    """Seeded random games: the same legal moves, the same board (promotions, neutral counters)
    after every move, and the same end, captain captured or generals left facing."""
    vid = engine.resolve_variant(str(MAPS / f"{name}.xlsx"))
    rng = random.Random(f"jbq-oracle-{name}")
    plies = 0
    ended = 0
    for _ in range(12):
        model = load_model(name)
        state: CustomState = engine.start(vid)
        while True:
            over = engine.outcome(state)
            if model.winner is not None:
                assert over is not None and over.reason == "captain", engine.position(state)
                assert over.winner == winner_word(model.winner)
                ended += 1
                break
            if over is not None and over.reason == "move_limit":
                assert state.ply == state.max_plies
                break
            expected = texts(model)
            assert set(engine.legal_moves(state)) == expected, engine.position(state)
            if over is not None:
                assert over.reason == "no_moves" and not expected, over
                break
            move = rng.choice(sorted(expected))
            (fr, fc), (tr, tc) = ((int(n) - 1 for n in p.split(",")) for p in move.split("-"))
            model.play((fr, fc), (tr, tc))
            state = engine.play(state, move)
            plies += 1
            counters = f"{model.neutral[0]},{model.neutral[1]}"
            turn = "first" if model.turn == 1 else "second"
            assert engine.position(state) == f"{vid};{turn};{counters};{model.position_rows()}"
    assert plies > 200 and ended >= 1
