"""The self-check rule: which pseudo-legal moves of a position leave one of the mover's captains
attacked or, under the ``xiangqi`` module, the two generals facing (such moves are illegal).

:func:`move_safety` looks at the board once per position and then answers per move. A move
only empties its first square and fills its second, and promotion never changes a piece's side,
captain flag or role, so after the move the captains are the old ones (one of them perhaps on
the second square), the attackers are the old enemies less a captured one, and the generals are
the old ones moved or captured.

When no move rule depends on the board beyond the squares on a piece's way (no ``conditions``
module test is live) and no piece but the moved one can promote, an enemy's attack on a captain
that stays where it is changes only if the move took that enemy or touched its path (the squares
between them, a horse's leg), and two generals' open file only if the move touched the squares
between them. Those attacks and files are then judged once per position, and a move that moves
neither a captain nor a general looks only at what it touched; the others scan the board after
the move.
"""

from __future__ import annotations

from collections.abc import Callable

from engines.custom.rules import Board, Compiled

Pair = tuple[int, int]
"""A move as ``(from, to)`` square indexes."""
MoveTest = Callable[[Pair], bool]
"""Whether a pseudo-legal move of the position is safe (legal under the self-check)."""


def always_safe(move: Pair) -> bool:
    """Every move is safe (variants without the self-check rule)."""
    return True


def move_safety(table: Compiled, board: Board, side: int, settled: bool) -> MoveTest:
    """The self-check test of ``side``'s pseudo-legal moves on ``board`` (1 red, 2 blue).

    ``settled``: no piece of ``board`` would promote where it stands (then, with promotions
    that depend on the square alone, only a moved piece promotes)."""
    if not table.variant.rules.self_check:
        return always_safe
    side_of, captain, role = table.side_of, table.captain, table.role
    captains: list[int] = []
    enemies: list[int] = []
    generals: list[int] = []
    xiangqi = table.xiangqi
    for sq, v in enumerate(board):
        if v:
            owner = side_of[v]
            if owner == side:
                if captain[v]:
                    captains.append(sq)
            elif owner != 3:
                enemies.append(sq)
            if xiangqi and role[v] == "general":
                generals.append(sq)
    scan = _scanning_test(table, board, side, settled, captains, enemies, generals)
    others_promote = table.variant.rules.promotion and not (table.static_promotion and settled)
    if not table.static_moves or others_promote:
        return scan
    return _touch_test(table, board, settled, captains, enemies, generals, scan)


def _scanning_test(
    table: Compiled,
    board: Board,
    side: int,
    settled: bool,
    captains: list[int],
    enemies: list[int],
    generals: list[int],
) -> MoveTest:
    """The test that plays each move on a copy of the board and asks every enemy again."""
    side_of, captain = table.side_of, table.captain

    def safe(move: Pair) -> bool:
        a, b = move
        after = table.board_after(board, move, settled)
        if generals:
            moved = sorted(b if sq == a else sq for sq in generals if sq != b)
            if table.facing_among(after, moved) is not None:
                return False
        attackers = [sq for sq in enemies if sq != b]
        for sq in {b if sq == a else sq for sq in captains} | {b}:
            v = after[sq]
            if (
                v
                and captain[v]
                and side_of[v] == side
                and table.attacked_from(after, sq, attackers)
            ):
                return False
        return True

    return safe


def _touch_test(
    table: Compiled,
    board: Board,
    settled: bool,
    captains: list[int],
    enemies: list[int],
    generals: list[int],
    scan: MoveTest,
) -> MoveTest:
    """The test that judges each attack and open file once and a move by the squares it
    touches (``scan`` for the moves of captains and generals and onto their squares); only
    valid when :attr:`Compiled.static_moves` holds and no other piece can promote."""
    cols, side_of = table.cols, table.side_of
    threats: list[tuple[int, int, int, bool]] = []
    """(enemy's square, captain's square, the enemy's path to it, whether it attacks it now)"""
    reach_masks = table.reach_masks
    for target in captains:
        bit = 1 << target
        for sq in enemies:
            if reach_masks(board[sq])[sq] & bit:
                path = table.path_mask(sq, target)
                threats.append((sq, target, path, table.reaches(board, sq, target)))
    files: list[tuple[int, int]] = []
    """(the squares between two opposing generals in one column, how many are occupied)"""
    for low in generals:
        for high in generals:
            if (
                low < high
                and low % cols == high % cols
                and side_of[board[low]] != side_of[board[high]]
            ):
                between = range(low + cols, high, cols)
                files.append((sum(1 << s for s in between), sum(1 for s in between if board[s])))
    scanned = frozenset(captains) | frozenset(generals)
    watched = 0
    for threat in threats:
        watched |= threat[2]
    in_check = any(threat[3] for threat in threats)

    def safe(move: Pair) -> bool:
        a, b = move
        if a in scanned or b in scanned:
            return scan(move)
        for between, blockers in files:
            # Open after the move: b is not between them and a was the only piece between.
            if not (between >> b) & 1 and blockers == (between >> a) & 1:
                return False
        touched = (1 << a) | (1 << b)
        if not in_check and not watched & touched:
            return True  # every attack as it was (taking an enemy can only end one)
        after: Board | None = None
        for sq, target, path, attacks in threats:
            if sq == b:
                continue
            if path & touched:
                after = after or table.board_after(board, move, settled)
                if table.reaches(after, sq, target):
                    return False
            elif attacks:
                return False
        return True

    return safe
