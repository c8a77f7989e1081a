"""Draughts for the searcher: the engine's bitboard states walked on a stack, an incremental
Zobrist key over the bitboards, and an evaluation of material (kings worth three men), tempo,
runaway men and structure (back-rank guards, centre, supported men), 100 units to a man."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from engines.base import Engine
from engines.draughts.board import bits
from engines.draughts.engine import GENERATORS, DraughtsEngine, DraughtsState
from engines.draughts.notation import LegalMove
from engines.search.adapter import MATE, ZobristTable

MAN = 100
KING = 300
_Z = ZobristTable(seed=50)


@dataclass(frozen=True)
class Tables:
    """Per-variant, per-bit tables; ``white`` ones are from White's view, ``black`` mirrored."""

    size: int
    advance: dict[bool, dict[int, int]]
    """Rows advanced from the own back rank, per colour (True = White)."""
    cone: dict[bool, dict[int, int]]
    """Squares ahead of a man that an opposing piece would need to stop it, per colour."""
    back_rank: dict[bool, int]
    centre: int
    behind: dict[bool, dict[int, int]]
    """The two squares diagonally behind a man (its supporters), per colour."""


def _tables(variant: str) -> Tables:
    geo = GENERATORS[variant].geo
    size, half = geo.size, geo.size // 2
    xy: dict[int, tuple[int, int]] = {}
    for bit, square in geo.square_of.items():
        y, c = divmod(square - 1, half)
        xy[bit] = (2 * c + (1 if y % 2 == 0 else 0), y)
    at = {v: k for k, v in xy.items()}
    advance: dict[bool, dict[int, int]] = {True: {}, False: {}}
    cone: dict[bool, dict[int, int]] = {True: {}, False: {}}
    behind: dict[bool, dict[int, int]] = {True: {}, False: {}}
    back = {True: 0, False: 0}
    centre = 0
    for bit, (x, y) in xy.items():
        for white in (True, False):
            forward = -1 if white else 1
            advance[white][bit] = (size - 1 - y) if white else y
            mask = 0
            for k in range(1, size):
                yy = y + forward * k
                if not 0 <= yy < size:
                    break
                for xx in range(x - k - 1, x + k + 2):
                    if (xx, yy) in at:
                        mask |= 1 << at[(xx, yy)]
            cone[white][bit] = mask
            support = 0
            for dx in (-1, 1):
                if (x + dx, y - forward) in at:
                    support |= 1 << at[(x + dx, y - forward)]
            behind[white][bit] = support
        if y == size - 1:
            back[True] |= 1 << bit
        if y == 0:
            back[False] |= 1 << bit
        if 2 <= x <= size - 3 and 3 <= y <= size - 4:
            centre |= 1 << bit
    return Tables(size, advance, cone, back, centre, behind)


TABLES: dict[str, Tables] = {variant: _tables(variant) for variant in GENERATORS}


def evaluate_bitboards(variant: str, white: int, black: int, kings: int) -> int:
    """The evaluation in units of 1/100 man from White's view."""
    t = TABLES[variant]
    pieces = (white | black).bit_count()
    endgame = pieces <= (12 if t.size == 10 else 8)
    score = 0
    for colour, own, opp in ((True, white, black), (False, black, white)):
        sign = 1 if colour else -1
        opp_kings = opp & kings
        men = own & ~kings
        side = KING * (own & kings).bit_count() + MAN * men.bit_count()
        advance, cone, behind = t.advance[colour], t.cone[colour], t.behind[colour]
        for bit in bits(men):
            adv = advance[bit]
            side += adv * (6 if endgame else 2)
            if not cone[bit] & opp and not opp_kings:
                side += 60 + 12 * adv
            if behind[bit] & own:
                side += 3
        if not opp_kings:
            side += 8 * (men & t.back_rank[colour]).bit_count()
        side += 4 * (own & t.centre).bit_count()
        score += sign * side
    return score


def _key(state: DraughtsState) -> int:
    key = _Z["black to move"] if state.turn == "second" else 0
    for name, bb in (("w", state.white), ("b", state.black), ("k", state.kings)):
        for bit in bits(bb):
            key ^= _Z[(name, bit)]
    return key


class DraughtsAdapter:
    """A draughts position for the searcher; moves are the engine's :class:`LegalMove` values."""

    has_captures = True
    captures_forced = True
    """When a capture exists every move captures: quiescence may not stand pat."""

    def __init__(self, engine: DraughtsEngine, state: DraughtsState) -> None:
        self.engine = engine
        self.stack = [state]
        self.keys = [_key(state)]

    def key(self) -> int:
        """Zobrist key, updated from the changed bits."""
        return self.keys[-1]

    def moves(self) -> list[Hashable]:
        """Every legal move (captures only when one exists, as the rules force)."""
        return list(self.engine.moves(self.stack[-1]))

    def noisy_moves(self) -> list[Hashable]:
        """The moves when they capture, else none."""
        moves = self.engine.moves(self.stack[-1])
        return list(moves) if moves and moves[0].is_capture else []

    def is_noisy(self, move: Hashable) -> bool:
        """Captures."""
        assert isinstance(move, LegalMove)
        return move.is_capture

    def order_hint(self, move: Hashable) -> int:
        """More captured pieces first, then crowning."""
        assert isinstance(move, LegalMove)
        return 100 * len(move.captured) + (50 if move.key[3] else 0)

    def push(self, move: Hashable) -> None:
        """Play ``move``."""
        assert isinstance(move, LegalMove)
        old = self.stack[-1]
        new = self.engine.apply(old, move)
        key = self.keys[-1] ^ _Z["black to move"]
        for name, a, b in (
            ("w", old.white, new.white),
            ("b", old.black, new.black),
            ("k", old.kings, new.kings),
        ):
            for bit in bits(a ^ b):
                key ^= _Z[(name, bit)]
        self.stack.append(new)
        self.keys.append(key)

    def pop(self) -> None:
        """Take back the last move."""
        self.stack.pop()
        self.keys.pop()

    def terminal(self, ply: int) -> int | None:
        """No move loses; the draw rules draw."""
        outcome = self.engine.outcome(self.stack[-1])
        if outcome is None:
            return None
        if outcome.winner is None:
            return 0
        return MATE - ply if outcome.winner == self.stack[-1].turn else -(MATE - ply)

    def evaluate(self) -> int:
        """From the side to move's view."""
        s = self.stack[-1]
        score = evaluate_bitboards(s.variant, s.white, s.black, s.kings)
        return score if s.turn == "first" else -score

    def notation(self, move: Hashable) -> str:
        """Canonical PDN move text."""
        assert isinstance(move, LegalMove)
        return move.text


def make_adapter(engine: Engine, state: DraughtsState) -> DraughtsAdapter:
    """The searcher's view of ``state``."""
    assert isinstance(engine, DraughtsEngine)
    return DraughtsAdapter(engine, state)


def evaluate(engine: Engine, state: DraughtsState, side: str) -> int:
    """The evaluation from ``side``'s view."""
    score = evaluate_bitboards(state.variant, state.white, state.black, state.kings)
    return score if side == "first" else -score
