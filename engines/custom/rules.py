"""Move generation for a compiled :class:`~engines.custom.definition.Variant`.

A board is a tuple of ints, one per square (index ``row * cols + col``, 0-based, row 0 at the
top): 0 is empty, otherwise ``type_id * 2 + promoted``. Everything that does not depend on the
board (which directions a piece type has on each square, the rays, the static conditions) is
computed once per variant; only the conditions of the ``conditions`` module that look at the
board (C, D, R, T) are evaluated during play, each in constant time from the board's
:class:`Census` (piece counts and lone pieces, made once per board), so that no map can make a
move list cost more than its rule texts are long.

The ``xiangqi`` module follows the JBQ extension: a horse jumps one orthogonal then one diagonal
square unless the orthogonal square (its leg) is occupied; an elephant moves exactly two squares
along its slide directions when the middle square (its eye) is empty, and never a single step; a
cannon moves like its rule says without capturing and captures over exactly one screen along the
four orthogonal lines; generals (role ``general``) of both sides in one column with nothing between
are "facing".
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from engines.custom.definition import PieceType, Variant
from engines.custom.grammar import DIRECTIONS, Atom, Condition, Direction, MoveRule

Board = tuple[int, ...]


class Census:
    """What the board-dependent conditions ask of one board: how many pieces of each type there
    are (index 0: all pieces) and where the only piece of a type stands (-1: none or several)."""

    __slots__ = ("counts", "only")

    def __init__(self, counts: list[int], only: list[int]):
        self.counts = counts
        self.only = only


DynamicTest = Callable[[Census, int], bool]
"""A board-dependent condition, asked with the board's census and the piece's square."""
Promotion = tuple[DynamicTest, ...] | bool
"""Per square: ``True`` (promotes), ``False`` (never), or board tests (promotes if any holds)."""

ORTHOGONAL = (2, 4, 5, 7)
_DIRECTION_OF = {delta: d for d, delta in DIRECTIONS.items()}
"""(row sign, column sign) -> keypad direction."""
_HORSE = ((2, (1, 3)), (4, (1, 6)), (5, (3, 8)), (7, (6, 8)))
"""Horse leg direction and the two diagonal directions continuing from the leg (JBQ's table)."""


def can_eat(mover_side: int, target_side: int) -> bool:
    """Whether a piece of ``mover_side`` may capture one of ``target_side`` (never neutrals)."""
    return mover_side != 3 and target_side != 3 and mover_side != target_side


@dataclass(frozen=True)
class _Entry:
    """One direction of a piece type on one square: its ray (1 square for steps) and test.

    Unconditional entries are shared by every piece type (one per square, direction and kind)."""

    ray: tuple[int, ...]
    dynamic: tuple[DynamicTest, ...] | None
    """``None``: always active; otherwise active when any test holds on the board."""
    dir: int = 0
    """The keypad direction of the ray."""


class Compiled:
    """Precomputed move tables of one variant."""

    def __init__(self, variant: Variant):
        self.variant = variant
        self.rows = variant.rows
        self.cols = variant.cols
        self.size = variant.rows * variant.cols
        n_codes = (len(variant.pieces) + 1) * 2
        self.side_of = [0] * n_codes
        self.captain = [False] * n_codes
        self.role = [""] * n_codes
        self.type_of = [0] * n_codes
        self.xiangqi = "xiangqi" in variant.modules
        self._static_memo: dict[Atom, frozenset[int]] = {}
        self._dynamic_memo: dict[Atom, DynamicTest] = {}
        self._plain: dict[tuple[int, int, bool], _Entry] = {}
        self._census: tuple[Board, Census] | None = None
        self.n_types = len(variant.pieces)
        self.rays: list[dict[int, tuple[int, ...]]] = [
            {d: self._ray(sq, d) for d in DIRECTIONS} for sq in range(self.size)
        ]
        self.steps: list[list[list[_Entry]]] = [[] for _ in range(n_codes)]
        self.slides: list[list[list[_Entry]]] = [[] for _ in range(n_codes)]
        self.promote: list[list[Promotion]] = [[] for _ in range(n_codes)]
        for p in variant.pieces:
            for promoted in (0, 1):
                code = p.id * 2 + promoted
                self.side_of[code] = p.side
                self.captain[code] = p.captain
                self.role[code] = p.role if self.xiangqi else ""
                self.type_of[code] = p.id
                rule = p.promoted_moves if promoted else p.moves
                self.steps[code], self.slides[code] = self._tables(rule)
                self.promote[code] = self._promotion_table(p, promoted)
        self._reach_tables: dict[int, list[int]] = {}
        self._paths: dict[int, int] = {}
        self.static_moves = all(
            e.dynamic is None
            for tables in (self.steps, self.slides)
            for t in tables
            for es in t
            for e in es
        )
        """Whether every move rule depends on the square alone (no board-dependent condition),
        so a piece's moves change only with the squares on its way."""
        self.static_promotion = all(
            test is True or test is False for table in self.promote for test in table
        )
        """Whether every promotion condition depends on the square alone (none on the board)."""

    def __reduce__(self) -> tuple[type[Compiled], tuple[Variant]]:
        """Pickled as its variant (the tables hold local functions): rebuilt where unpickled,
        so a custom game's states can be sent to the analysis process."""
        return (Compiled, (self.variant,))

    # ---- precomputation ---------------------------------------------------------------------

    def _ray(self, sq: int, d: int) -> tuple[int, ...]:
        dr, dc = DIRECTIONS[d]
        r, c = divmod(sq, self.cols)
        out = []
        r, c = r + dr, c + dc
        while 0 <= r < self.rows and 0 <= c < self.cols:
            out.append(r * self.cols + c)
            r, c = r + dr, c + dc
        return tuple(out)

    def _index(self, value: int, length: int) -> int:
        """JBQ coordinates: 1.. from the top/left, -1.. from the bottom/right; 0 never matches."""
        return value - 1 if value > 0 else value + length

    def _static(self, atom: Atom) -> frozenset[int]:
        """The squares where the board-independent condition X, Y, P or NP holds."""
        known = self._static_memo.get(atom)
        if known is None:
            known = self._static_memo[atom] = self._static_squares(atom)
        return known

    def _static_squares(self, atom: Atom) -> frozenset[int]:
        rows, cols = self.rows, self.cols
        if atom.name == "X":
            wanted = {self._index(a, rows) for a in atom.args}
            return frozenset(sq for sq in range(self.size) if sq // cols in wanted)
        if atom.name == "Y":
            wanted = {self._index(a, cols) for a in atom.args}
            return frozenset(sq for sq in range(self.size) if sq % cols in wanted)
        hits = set()
        for i in range(0, len(atom.args), 2):
            r, c = self._index(atom.args[i], rows), self._index(atom.args[i + 1], cols)
            if 0 <= r < rows and 0 <= c < cols:
                hits.add(r * cols + c)
        if atom.name == "P":
            return frozenset(hits)
        return frozenset(range(self.size)) - hits  # NP

    def _dynamic(self, atom: Atom) -> DynamicTest:
        """The test of a board-dependent condition (one per distinct atom of the variant)."""
        known = self._dynamic_memo.get(atom)
        if known is None:
            known = self._dynamic_memo[atom] = self._dynamic_test(atom)
        return known

    def _dynamic_test(self, atom: Atom) -> DynamicTest:
        args = atom.args
        cols = self.cols
        # A type id the variant does not have (validation refuses them in files): no such piece.
        wanted = args[0] if 0 <= args[0] <= self.n_types else -1
        if atom.name == "C":
            low, high = args[1], args[2]

            def count(census: Census, sq: int) -> bool:
                n = census.counts[wanted] if wanted >= 0 else 0
                return low <= n <= high

            return count
        if atom.name == "T":

            def not_single(census: Census, sq: int) -> bool:
                return wanted <= 0 or census.only[wanted] < 0

            return not_single
        cmp, limit = args[1], args[2]
        sides = frozenset(args[3:])
        is_d = atom.name == "D"

        def distance(census: Census, sq: int) -> bool:
            other = census.only[wanted] if wanted > 0 else -1
            if other < 0:
                return False
            orow, ocol = divmod(other, cols)
            row, col = divmod(sq, cols)
            dist = abs(orow - row) + abs(ocol - col)
            if not (
                (cmp == 1 and dist > limit)
                or (cmp == 0 and dist == limit)
                or (cmp == -1 and dist < limit)
            ):
                return False
            if is_d:
                return True
            # R: the side of this piece on which the other one stands (keypad numbering).
            vertical = 0 if orow < row else 1 if orow == row else 2
            horizontal = 0 if ocol < col else 1 if ocol == col else 2
            return (1, 2, 3, 4, 0, 5, 6, 7, 8)[vertical * 3 + horizontal] in sides

        return distance

    def _condition(self, cond: Condition) -> tuple[frozenset[int], tuple[DynamicTest, ...]]:
        """Squares where ``cond`` surely holds, and the board-dependent tests for the others."""
        static: set[int] = set()
        dynamic: list[DynamicTest] = []
        for atom in dict.fromkeys(cond):  # a repeated atom is tested once
            if atom.name in ("X", "Y", "P", "NP"):
                static |= self._static(atom)
            else:
                dynamic.append(self._dynamic(atom))
        return frozenset(static), tuple(dynamic)

    def _merged(self, dirs: tuple[Direction, ...]) -> dict[int, Condition | None]:
        """One condition per direction (``None``: unconditional); repeats are ORed together."""
        merged: dict[int, Condition | None] = {}
        for d in dirs:
            if d.dir in merged and merged[d.dir] is None:
                continue
            merged[d.dir] = None if not d.when else (merged.get(d.dir) or ()) + d.when
        return merged

    def _tables(self, rule: MoveRule) -> tuple[list[list[_Entry]], list[list[_Entry]]]:
        steps: list[list[_Entry]] = [[] for _ in range(self.size)]
        slides: list[list[_Entry]] = [[] for _ in range(self.size)]
        everywhere = frozenset(range(self.size))
        for dirs, table, is_step in ((rule.steps, steps, True), (rule.slides, slides, False)):
            for d, cond in sorted(self._merged(dirs).items()):
                static, dynamic = (everywhere, ()) if cond is None else self._condition(cond)
                for sq in range(self.size):
                    ray = self.rays[sq][d]
                    if not ray:
                        continue
                    if sq in static:
                        table[sq].append(self._plain_entry(sq, d, is_step))
                    elif dynamic:
                        table[sq].append(_Entry(ray[:1] if is_step else ray, dynamic, d))
        return steps, slides

    def _plain_entry(self, sq: int, d: int, is_step: bool) -> _Entry:
        """The shared unconditional entry of direction ``d`` on ``sq``."""
        key = (sq, d, is_step)
        entry = self._plain.get(key)
        if entry is None:
            ray = self.rays[sq][d]
            entry = self._plain[key] = _Entry(ray[:1] if is_step else ray, None, d)
        return entry

    def _promotion_table(self, piece: PieceType, promoted: int) -> list[Promotion]:
        if promoted or not piece.promote_when:
            return [False] * self.size
        static, dynamic = self._condition(piece.promote_when)
        return [True if sq in static else dynamic or False for sq in range(self.size)]

    def _reach(self, code: int, sq: int) -> int:
        """Every square the piece could ever move to from ``sq`` on some board (a superset), as a
        bit mask (bit ``t`` set: square ``t``)."""
        role = self.role[code]
        found: set[int] = set()
        if role != "elephant":
            found.update(e.ray[0] for e in self.steps[code][sq])
        for e in self.slides[code][sq]:
            found.update(e.ray[1:2] if role == "elephant" else e.ray)
        if role == "cannon":
            for d in ORTHOGONAL:
                found.update(self.rays[sq][d])
        elif role == "horse":
            for leg_dir, diagonals in _HORSE:
                leg = self.rays[sq][leg_dir]
                for d in diagonals if leg else ():
                    found.update(self.rays[leg[0]][d][:1])
        mask = 0
        for t in found:
            mask |= 1 << t
        return mask

    # ---- queries --------------------------------------------------------------------------------

    def census(self, board: Board) -> Census:
        """Piece counts and lone pieces of ``board`` (the last board asked about is kept)."""
        kept = self._census
        if kept is not None and kept[0] is board:
            return kept[1]
        counts = [0] * (self.n_types + 1)
        only = [-1] * (self.n_types + 1)
        type_of = self.type_of
        for sq, v in enumerate(board):
            if v:
                t = type_of[v]
                counts[t] += 1
                only[t] = sq if counts[t] == 1 else -1
        counts[0] = sum(counts)
        census = Census(counts, only)
        self._census = (board, census)
        return census

    def directions(self, board: Board, sq: int) -> tuple[list[int], list[int]]:
        """The step and slide directions of the piece on ``sq`` that are active on ``board``
        (its rule as conditioned there; module moves such as the horse's are not included)."""
        code = board[sq]
        census: Census | None = None
        out: tuple[list[int], list[int]] = ([], [])
        for kind, entries in enumerate((self.steps[code][sq], self.slides[code][sq])):
            for e in entries:
                if e.dynamic is not None:
                    census = census or self.census(board)
                    if not any(t(census, sq) for t in e.dynamic):
                        continue
                out[kind].append(e.dir)
        return out

    def unique_square(self, board: Board, type_id: int) -> int | None:
        """The square of the only piece of ``type_id``; ``None`` when there are none or several."""
        found = None
        for sq, v in enumerate(board):
            if v and self.type_of[v] == type_id:
                if found is not None:
                    return None
                found = sq
        return found

    def targets(self, board: Board, sq: int) -> list[int]:
        """Squares the piece on ``sq`` may move to (pseudo-legal; may contain duplicates)."""
        code = board[sq]
        side = self.side_of[code]
        side_of = self.side_of
        role = self.role[code]
        out: list[int] = []
        census: Census | None = None
        if role != "elephant":
            for e in self.steps[code][sq]:
                if e.dynamic is not None:
                    census = census or self.census(board)
                    if not any(t(census, sq) for t in e.dynamic):
                        continue
                t = e.ray[0]
                v = board[t]
                if not v or can_eat(side, side_of[v]):
                    out.append(t)
        for e in self.slides[code][sq]:
            if e.dynamic is not None:
                census = census or self.census(board)
                if not any(t(census, sq) for t in e.dynamic):
                    continue
            if role == "elephant":
                if len(e.ray) >= 2 and not board[e.ray[0]]:
                    v = board[e.ray[1]]
                    if not v or can_eat(side, side_of[v]):
                        out.append(e.ray[1])
                continue
            for t in e.ray:
                v = board[t]
                if not v:
                    out.append(t)
                else:
                    if can_eat(side, side_of[v]):
                        out.append(t)
                    break
        if role == "cannon":
            out = [t for t in out if not board[t]]
            rays = self.rays[sq]
            for d in ORTHOGONAL:
                screen = False
                for t in rays[d]:
                    v = board[t]
                    if not v:
                        continue
                    if screen:
                        if can_eat(side, side_of[v]):
                            out.append(t)
                        break
                    screen = True
        elif role == "horse":
            rays = self.rays[sq]
            for leg_dir, diagonals in _HORSE:
                leg = rays[leg_dir]
                if not leg or board[leg[0]]:
                    continue
                for d in diagonals:
                    jump = self.rays[leg[0]][d]
                    if jump:
                        v = board[jump[0]]
                        if not v or can_eat(side, side_of[v]):
                            out.append(jump[0])
        return out

    def moves(self, board: Board, side: int, neutrals: bool) -> list[tuple[int, int]]:
        """Pseudo-legal moves ``(from, to)`` of ``side``; ``neutrals``: may it move neutrals."""
        return sorted(set(self.iter_moves(board, side, neutrals)))

    def iter_moves(self, board: Board, side: int, neutrals: bool) -> Iterator[tuple[int, int]]:
        """The moves of :meth:`moves` lazily, unsorted and possibly repeated (for early exits)."""
        side_of = self.side_of
        for sq, v in enumerate(board):
            if not v:
                continue
            s = side_of[v]
            if s != side and (s != 3 or not neutrals):
                continue
            for t in self.targets(board, sq):
                yield sq, t

    def attacked(self, board: Board, target: int, by_side: int) -> bool:
        """Whether a piece of ``by_side`` could move onto ``target`` now."""
        side_of = self.side_of
        return self.attacked_from(
            board, target, [sq for sq, v in enumerate(board) if v and side_of[v] == by_side]
        )

    def attacked_from(self, board: Board, target: int, squares: Sequence[int]) -> bool:
        """:meth:`attacked` when ``squares`` are exactly the squares of the attacking side."""
        bit = 1 << target
        tables = self._reach_tables
        for sq in squares:
            code = board[sq]
            masks = tables.get(code) or self.reach_masks(code)
            if masks[sq] & bit and self._reaches(board, sq, target, code):
                return True
        return False

    def reaches(self, board: Board, sq: int, target: int) -> bool:
        """``target in self.targets(board, sq)``, looking only at the directions that lead from
        ``sq`` to ``target`` (the self-check asks this for every captain after every move)."""
        code = board[sq]
        if not code or not (self.reach_masks(code)[sq] >> target) & 1:
            return False
        return self._reaches(board, sq, target, code)

    def _reaches(self, board: Board, sq: int, target: int, code: int) -> bool:
        """:meth:`reaches` once the reach mask allows ``target``."""
        side_of = self.side_of
        v = board[target]
        if v and not can_eat(side_of[code], side_of[v]):
            return False
        cols = self.cols
        row, col = divmod(sq, cols)
        trow, tcol = divmod(target, cols)
        dr, dc = trow - row, tcol - col
        role = self.role[code]
        if role == "horse" and abs(dr) + abs(dc) == 3 and dr and dc:
            # The leg is the orthogonal neighbour on the long side of the jump.
            leg = sq + (dr // 2) * cols if abs(dr) == 2 else sq + dc // 2
            if not board[leg]:
                return True
        on_line = dr == 0 or dc == 0 or abs(dr) == abs(dc)
        if not on_line:
            return False
        d = _DIRECTION_OF[(dr > 0) - (dr < 0), (dc > 0) - (dc < 0)]
        distance = max(abs(dr), abs(dc))
        ray = self.rays[sq][d]
        if role == "cannon" and v:  # its rule's moves never capture: over exactly one screen
            return d in ORTHOGONAL and sum(1 for s in ray[: distance - 1] if board[s]) == 1
        census: Census | None = None
        if role != "elephant" and distance == 1:
            for e in self.steps[code][sq]:
                if e.dir == d:
                    if e.dynamic is None:
                        return True
                    census = census or self.census(board)
                    if any(t(census, sq) for t in e.dynamic):
                        return True
        for e in self.slides[code][sq]:
            if e.dir != d:
                continue
            if role == "elephant":
                if distance != 2 or board[ray[0]]:
                    return False
            elif any(board[s] for s in ray[: distance - 1]):
                return False
            if e.dynamic is None:
                return True
            census = census or self.census(board)
            return any(t(census, sq) for t in e.dynamic)
        return False

    def path_mask(self, sq: int, target: int) -> int:
        """Bit mask of the squares besides ``target`` whose contents :meth:`reaches` reads for a
        piece on ``sq`` when :attr:`static_moves` holds: those strictly between the two on a
        line, or the leg of a horse's jump (made once per pair of squares)."""
        key = sq * self.size + target
        mask = self._paths.get(key)
        if mask is None:
            mask = self._paths[key] = self._path(sq, target)
        return mask

    def _path(self, sq: int, target: int) -> int:
        cols = self.cols
        row, col = divmod(sq, cols)
        trow, tcol = divmod(target, cols)
        dr, dc = trow - row, tcol - col
        mask = 0
        if abs(dr) + abs(dc) == 3 and dr and dc:
            mask |= 1 << (sq + (dr // 2) * cols if abs(dr) == 2 else sq + dc // 2)
        elif (dr or dc) and (dr == 0 or dc == 0 or abs(dr) == abs(dc)):
            d = _DIRECTION_OF[(dr > 0) - (dr < 0), (dc > 0) - (dc < 0)]
            for s in self.rays[sq][d][: max(abs(dr), abs(dc)) - 1]:
                mask |= 1 << s
        return mask

    def reach_masks(self, code: int) -> list[int]:
        """Per square, a bit mask of every square a piece ``code`` could ever move to (built on
        first use; bit masks keep large boards small)."""
        table = self._reach_tables.get(code)
        if table is None:
            table = [self._reach(code, sq) for sq in range(self.size)]
            self._reach_tables[code] = table
        return table

    def reach(self, code: int) -> list[frozenset[int]]:
        """Per square, every square a piece ``code`` could ever move to (a superset)."""
        return [
            frozenset(t for t in range(self.size) if (mask >> t) & 1)
            for mask in self.reach_masks(code)
        ]

    def facing_generals(self, board: Board) -> tuple[int, int] | None:
        """Squares of two opposing generals in one column with nothing between (xiangqi)."""
        if not self.xiangqi:
            return None
        generals = [sq for sq, v in enumerate(board) if v and self.role[v] == "general"]
        return self.facing_among(board, generals)

    def facing_among(self, board: Board, generals: Sequence[int]) -> tuple[int, int] | None:
        """:meth:`facing_generals` when ``generals`` are, ascending, the generals' squares."""
        cols = self.cols
        for a in generals:
            for b in generals:
                if (
                    a < b
                    and a % cols == b % cols
                    and self.side_of[board[a]] != self.side_of[board[b]]
                ) and all(not board[s] for s in range(a + cols, b, cols)):
                    return a, b
        return None

    def promote_all(self, board: Sequence[int]) -> Board:
        """Promote every unpromoted piece whose promotion condition holds at its square."""
        snapshot = tuple(board)
        out = list(board)
        census: Census | None = None
        for sq, v in enumerate(snapshot):
            if not v or v & 1:
                continue
            test = self.promote[v][sq]
            if test is False:
                continue
            if test is not True:
                census = census or self.census(snapshot)
                if not any(t(census, sq) for t in test):
                    continue
            out[sq] = v | 1
        return tuple(out)

    def board_after(self, board: Board, move: tuple[int, int], settled: bool = False) -> Board:
        """``board`` with ``move`` played and promotions made. ``settled``: no piece of ``board``
        would promote where it stands (:meth:`promote_all` leaves it as it is); then, when every
        promotion condition depends on the square alone, only the moved piece can promote and
        the board is not scanned for others."""
        after = list(board)
        after[move[1]] = after[move[0]]
        after[move[0]] = 0
        if not self.variant.rules.promotion:
            return tuple(after)
        if settled and self.static_promotion:
            v = after[move[1]]
            if v and not v & 1 and self.promote[v][move[1]] is True:
                after[move[1]] = v | 1
            return tuple(after)
        return self.promote_all(after)

    def captains(self, board: Board, side: int) -> list[int]:
        """Squares of ``side``'s captains."""
        return [
            sq for sq, v in enumerate(board) if v and self.captain[v] and self.side_of[v] == side
        ]


def playability_problems(variant: Variant) -> list[str]:
    """Why every game of ``variant`` would be over at once, or could never be won by a side
    (empty when it can be played).

    A side none of whose pieces (nor any neutral piece) in the layout has a move on any square,
    whatever the board, can never move; and red must have a move in the start position. The
    check is of moves as the rules allow them before self-check (a map where red starts mated
    is not looked for). Where no legal move is a draw, each side needs a captain on the board, or
    capturing it is no way to win.
    """
    table = Compiled(variant)
    start = tuple(c * 2 if c else 0 for row in variant.layout for c in row)
    codes = {v for v in start if v}
    if variant.rules.promotion:
        codes |= {v | 1 for v in codes if variant.piece(v >> 1).promote_when}
    problems: list[str] = []
    words = {1: "red", 2: "blue"}
    armies = {side: [v for v in codes if table.side_of[v] == side] for side in words}
    for side, word in words.items():
        own = armies[side]
        if not own:
            problems.append(f"{word} can never move: board.layout has no {word} piece")
        elif not any(any(table.reach_masks(v)) for v in codes if table.side_of[v] in (side, 3)):
            problems.append(
                f"{word} can never move: no {word} or neutral piece of board.layout has a move on"
                " any square (moves ';', or conditions that never hold there)"
            )
    if variant.rules.no_legal_move == "draw":
        placed = {table.side_of[v] for v in codes if variant.piece(v >> 1).captain}
        problems += [
            f"{word} can never lose: board.layout has no {word} captain, and only capturing a"
            " captain wins (with no_legal_move = \"draw\"); make a piece captain = true (in a"
            " JBQ map 'c' in column D of sheet 'chesses') and place it, or set rules."
            "no_legal_move = \"lose\" (a side left without a move loses)"
            for side, word in words.items()
            if armies[side] and side not in placed
        ]
    if not problems and next(table.iter_moves(start, 1, True), None) is None:
        problems.append(
            "red has no legal move in the start position: every game would be over before it starts"
        )
    return problems
