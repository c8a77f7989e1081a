"""Bitboard geometry and move generation of draughts (RULES.md section 2).

Squares live in a compact bit layout with ghost bits: a dark square at column ``x`` and row ``y``
(row 0 at the top as White sees it) is bit ``(y * (size + 1) + x) // 2``. One step along a
diagonal is then a shift by a constant (5 or 6 on 10 x 10, 4 or 5 on 8 x 8), and a step off the
left or right edge lands on a ghost bit that the ``board`` mask drops, so whole sets of men move
with one shift.

A generated move is a :class:`Move` tuple ``(frm, to, captured, promotes)`` of bit indices and a
captured-pieces bitset. Captures follow the Turkish strike: captured pieces stay on the board until
the sequence ends (they block and cannot be jumped twice) while empty squares, the start square
included, may be crossed again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

Bitboard = int
"""A set of squares as an int, one bit per square of the compact layout."""


def bits(bb: Bitboard) -> list[int]:
    """The indices of the set bits of ``bb``, lowest first."""
    out = []
    while bb:
        low = bb & -bb
        out.append(low.bit_length() - 1)
        bb ^= low
    return out


# Directions: 0 up-left, 1 up-right, 2 down-left, 3 down-right ("up" is towards square 1).
# The reverse of direction d is 3 - d.
DIRECTIONS: tuple[tuple[int, int], ...] = ((-1, -1), (1, -1), (-1, 1), (1, 1))


class Move(NamedTuple):
    """One move: start and end bit, the captured pieces and whether the piece is crowned."""

    frm: int
    to: int
    captured: Bitboard
    promotes: bool


Path = tuple[int, ...]
"""Bit indices visited by a capture: the start, then every landing square."""


@dataclass(frozen=True)
class Rules:
    """What differs between the variants' move rules."""

    size: int
    """Board side: 10 or 8."""
    max_capture: bool
    """The longest capture sequence is compulsory (international, brazilian)."""
    promote_in_passing: bool
    """A man reaching the far row during a capture is crowned and goes on as a king (russian)."""


@dataclass(frozen=True)
class Geometry:
    """Precomputed tables of one board size."""

    size: int
    squares: int
    bit_of: tuple[int, ...]
    """Bit index of each square number (index 0 unused)."""
    square_of: dict[int, int]
    """Square number of each bit index of a real square."""
    board: Bitboard
    shifts: tuple[int, int, int, int]
    """Signed shift of one step in each direction."""
    neighbour: tuple[tuple[int, ...], ...]
    """neighbour[d][bit]: the next bit in direction d, or -1."""
    rays: tuple[tuple[tuple[int, ...], ...], ...]
    """rays[d][bit]: the bits from ``bit`` (exclusive) to the edge in direction d."""
    top_row: Bitboard
    """Squares of row 0 (White crowns there)."""
    bottom_row: Bitboard
    """Squares of the last row (Black crowns there)."""
    bits: tuple[int, ...] = field(repr=False, default=())
    """1 << i for every bit index i (a lookup is faster than a shift)."""


def make_geometry(size: int) -> Geometry:
    """Build the tables of a ``size`` x ``size`` board."""
    half = size // 2
    width = size + 1
    squares = size * half
    coords: dict[int, tuple[int, int]] = {}
    bit_of = [0] * (squares + 1)
    for square in range(1, squares + 1):
        y, c = divmod(square - 1, half)
        x = 2 * c + (1 if y % 2 == 0 else 0)
        bit = (y * width + x) // 2
        bit_of[square] = bit
        coords[bit] = (x, y)
    nbits = max(coords) + 1
    at = {xy: bit for bit, xy in coords.items()}
    neighbour: list[tuple[int, ...]] = []
    rays: list[tuple[tuple[int, ...], ...]] = []
    shifts = []
    for dx, dy in DIRECTIONS:
        shifts.append((dy * width + dx) // 2)
        row_n = [-1] * nbits
        row_r: list[tuple[int, ...]] = [()] * nbits
        for bit, (x, y) in coords.items():
            ray = []
            cx, cy = x + dx, y + dy
            while (cx, cy) in at:
                ray.append(at[(cx, cy)])
                cx, cy = cx + dx, cy + dy
            row_r[bit] = tuple(ray)
            row_n[bit] = ray[0] if ray else -1
        neighbour.append(tuple(row_n))
        rays.append(tuple(row_r))
    top = sum(1 << bit_of[s] for s in range(1, half + 1))
    bottom = sum(1 << bit_of[s] for s in range(squares - half + 1, squares + 1))
    return Geometry(
        size=size,
        squares=squares,
        bit_of=tuple(bit_of),
        square_of={bit: square for square, bit in enumerate(bit_of) if square},
        board=sum(1 << bit for bit in coords),
        shifts=(shifts[0], shifts[1], shifts[2], shifts[3]),
        neighbour=tuple(neighbour),
        rays=tuple(rays),
        top_row=top,
        bottom_row=bottom,
        bits=tuple(1 << i for i in range(nbits + 1)),
    )


def _shift(bb: Bitboard, amount: int) -> Bitboard:
    return bb << amount if amount > 0 else bb >> -amount


class MoveGenerator:
    """Move generation and perft for one variant's rules.

    Positions are passed side-relative: ``own`` and ``opp`` are the pieces of the side to move and
    of the opponent, ``kings`` all kings, ``white`` whether the side to move is White.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.geo = make_geometry(rules.size)

    # ---- captures ------------------------------------------------------------------------------

    def captures(
        self, own: Bitboard, opp: Bitboard, kings: Bitboard, white: bool, with_paths: bool
    ) -> dict[tuple[int, int, Bitboard], list[tuple[bool, Path]]]:
        """Every legal capture, keyed by (from, to, captured), each with its (promotes, path) list.

        Empty when the side to move has no capture. Only the longest sequences are kept where the
        variant demands it.
        """
        geo = self.geo
        bits = geo.bits
        nb = geo.neighbour
        rays = geo.rays
        board = geo.board
        occupied = own | opp
        crown_row = geo.top_row if white else geo.bottom_row
        in_passing = self.rules.promote_in_passing
        found: list[tuple[int, int, Bitboard, bool, Path]] = []

        men = own & ~kings
        empty = board & ~occupied
        # Men with a capture in some direction: neighbour is an opponent, the square beyond empty.
        movers = 0
        for s in geo.shifts:
            movers |= _shift(_shift(empty, -s) & opp, -s)
        movers &= men
        own_kings = own & kings

        frm = 0
        emp = 0

        def king_dfs(sq: int, cap: Bitboard, path: Path, skip: int, crowned: bool) -> bool:
            any_capture = False
            for d in (0, 1, 2, 3):
                if d == skip:
                    continue
                ray = rays[d][sq]
                n = len(ray)
                i = 0
                while i < n and emp & bits[ray[i]]:
                    i += 1
                if i + 1 >= n:
                    continue
                target = bits[ray[i]]
                if not opp & target or cap & target:
                    continue
                j = i + 1
                if not emp & bits[ray[j]]:
                    continue
                any_capture = True
                cap2 = cap | target
                ends = []
                extended = False
                back = 3 - d
                while j < n and emp & bits[ray[j]]:
                    land = ray[j]
                    p2 = (*path, land) if with_paths else path
                    if king_dfs(land, cap2, p2, back, crowned):
                        extended = True
                    elif not extended:
                        ends.append((land, p2))
                    j += 1
                # A sequence may stop only where it cannot go on (Russian rule; implied by the
                # majority rule elsewhere).
                if not extended:
                    for land, p2 in ends:
                        found.append((frm, land, cap2, crowned, p2))
            return any_capture

        def man_dfs(sq: int, cap: Bitboard, path: Path, skip: int) -> bool:
            any_capture = False
            for d in (0, 1, 2, 3):
                if d == skip:
                    continue
                over = nb[d][sq]
                if over < 0:
                    continue
                target = bits[over]
                if not opp & target or cap & target:
                    continue
                land = nb[d][over]
                if land < 0 or not emp & bits[land]:
                    continue
                any_capture = True
                cap2 = cap | target
                p2 = (*path, land) if with_paths else path
                if bits[land] & crown_row:
                    if in_passing:
                        if not king_dfs(land, cap2, p2, 3 - d, True):
                            found.append((frm, land, cap2, True, p2))
                        continue
                    if not man_dfs(land, cap2, p2, 3 - d):
                        found.append((frm, land, cap2, True, p2))
                elif not man_dfs(land, cap2, p2, 3 - d):
                    found.append((frm, land, cap2, False, p2))
            return any_capture

        pieces = movers
        while pieces:
            low = pieces & -pieces
            pieces ^= low
            frm = low.bit_length() - 1
            emp = empty | low
            man_dfs(frm, 0, (frm,), -1)
        pieces = own_kings
        while pieces:
            low = pieces & -pieces
            pieces ^= low
            frm = low.bit_length() - 1
            emp = empty | low
            king_dfs(frm, 0, (frm,), -1, False)

        result: dict[tuple[int, int, Bitboard], list[tuple[bool, Path]]] = {}
        if not found:
            return result
        if self.rules.max_capture:
            best = max(cap.bit_count() for _, _, cap, _, _ in found)
            found = [f for f in found if f[2].bit_count() == best]
        for f, t, cap, crowned, path in found:
            result.setdefault((f, t, cap), []).append((crowned, path))
        return result

    # ---- all moves -----------------------------------------------------------------------------

    def quiet_moves(self, own: Bitboard, opp: Bitboard, kings: Bitboard, white: bool) -> list[Move]:
        """Every non-capturing move (legal only when there is no capture)."""
        geo = self.geo
        bits = geo.bits
        empty = geo.board & ~(own | opp)
        crown_row = geo.top_row if white else geo.bottom_row
        moves: list[Move] = []
        men = own & ~kings
        for s in geo.shifts[:2] if white else geo.shifts[2:]:
            targets = _shift(men, s) & empty
            while targets:
                low = targets & -targets
                targets ^= low
                to = low.bit_length() - 1
                moves.append(Move(to - s, to, 0, bool(low & crown_row)))
        own_kings = own & kings
        rays = geo.rays
        while own_kings:
            low = own_kings & -own_kings
            own_kings ^= low
            frm = low.bit_length() - 1
            for d in (0, 1, 2, 3):
                for to in rays[d][frm]:
                    if not empty & bits[to]:
                        break
                    moves.append(Move(frm, to, 0, False))
        return moves

    def moves(self, own: Bitboard, opp: Bitboard, kings: Bitboard, white: bool) -> list[Move]:
        """Every legal move (captures with duplicates removed, else quiet moves)."""
        caps = self.captures(own, opp, kings, white, False)
        if caps:
            return [Move(f, t, cap, paths[0][0]) for (f, t, cap), paths in caps.items()]
        return self.quiet_moves(own, opp, kings, white)

    def count(self, own: Bitboard, opp: Bitboard, kings: Bitboard, white: bool) -> int:
        """The number of legal moves, counting quiet moves with shifts and popcounts."""
        caps = self.captures(own, opp, kings, white, False)
        if caps:
            return len(caps)
        geo = self.geo
        empty = geo.board & ~(own | opp)
        men = own & ~kings
        total = 0
        for s in geo.shifts[:2] if white else geo.shifts[2:]:
            total += (_shift(men, s) & empty).bit_count()
        own_kings = own & kings
        if own_kings:
            for s in geo.shifts:
                reach = own_kings
                while reach:
                    reach = _shift(reach, s) & empty
                    total += reach.bit_count()
        return total

    # ---- perft -----------------------------------------------------------------------------------

    def perft(
        self, white_bb: Bitboard, black_bb: Bitboard, kings: Bitboard, white: bool, depth: int
    ) -> int:
        """Count the positions ``depth`` plies ahead (movement rules only, no draw rules)."""
        if depth <= 0:
            return 1
        own, opp = (white_bb, black_bb) if white else (black_bb, white_bb)
        return self._perft(own, opp, kings, white, depth)

    def _perft(self, own: Bitboard, opp: Bitboard, kings: Bitboard, white: bool, depth: int) -> int:
        if depth == 1:
            return self.count(own, opp, kings, white)
        bits = self.geo.bits
        total = 0
        recurse: Callable[[Bitboard, Bitboard, Bitboard, bool, int], int] = self._perft
        for frm, to, cap, promotes in self.moves(own, opp, kings, white):
            fb = bits[frm]
            tb = bits[to]
            new_kings = kings & ~cap
            if kings & fb:
                new_kings = (new_kings ^ fb) | tb
            elif promotes:
                new_kings |= tb
            total += recurse(opp & ~cap, (own ^ fb) | tb, new_kings, not white, depth - 1)
        return total
