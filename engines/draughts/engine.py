"""The draughts engine: international (FMJD, 10 x 10), brazilian and russian (8 x 8).

RULES.md section 2. States are frozen values holding three bitboards (White's pieces, Black's
pieces, all kings in the compact layout of :mod:`engines.draughts.board`) plus the counters the
draw rules need.

>>> from engines import get
>>> game = get("draughts")
>>> state = game.play(game.start(), "32-28")
>>> state.last_move, game.position(state)
('32-28', 'B:W28,31,33-50:B1-20')
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

from engines.base import (
    BadPosition,
    Engine,
    IllegalMove,
    Outcome,
    RecordInfo,
    Side,
    VariantInfo,
    other,
)
from engines.draughts.board import Bitboard, Geometry, MoveGenerator, Rules, bits
from engines.draughts.fen import Setup, parse_position
from engines.draughts.notation import LegalMove, choices_text, name_moves, parse_move


@dataclass(frozen=True)
class Variant:
    """A variant's rules, draw limits and PDN game type."""

    id: str
    name: str
    description: str
    rules: Rules
    game_type: int
    """PDN GameType tag value."""
    start: str
    """Standard start position string."""
    kings_only_plies: int
    """Plies of king moves without capture that draw (25 or 15 moves each)."""
    small_endgames: bool
    """The 16-move and 5-move endgame draws of FMJD (10 x 10 only)."""


VARIANTS: dict[str, Variant] = {
    v.id: v
    for v in (
        Variant(
            "international",
            "International draughts",
            "FMJD rules on 10 x 10: flying kings, men capture backwards, majority capture",
            Rules(size=10, max_capture=True, promote_in_passing=False),
            20,
            "W:W31-50:B1-20",
            50,
            True,
        ),
        Variant(
            "brazilian",
            "Brazilian draughts",
            "International rules on 8 x 8",
            Rules(size=8, max_capture=True, promote_in_passing=False),
            26,
            "W:W21-32:B1-12",
            30,
            False,
        ),
        Variant(
            "russian",
            "Russian draughts",
            "8 x 8, any capture sequence (not the longest), crowning in passing",
            Rules(size=8, max_capture=False, promote_in_passing=True),
            25,
            "W:W21-32:B1-12",
            30,
            False,
        ),
    )
}

GENERATORS: dict[str, MoveGenerator] = {v.id: MoveGenerator(v.rules) for v in VARIANTS.values()}

PositionKey = tuple[Bitboard, Bitboard, Bitboard, bool]
"""White, Black, kings, White to move: what threefold repetition compares."""

# FMJD article 6 endgames: (men, kings) of the stronger side against a lone king.
_ENDGAME_16 = frozenset({(0, 3), (1, 2), (2, 1)})
_ENDGAME_5 = frozenset({(0, 2), (1, 1), (0, 1)})


@dataclass(frozen=True, slots=True)
class DraughtsState:
    """An immutable draughts position with the history its draw rules need."""

    variant: str
    white: Bitboard
    black: Bitboard
    kings: Bitboard
    turn: Side
    ply: int = 0
    last_move: str | None = None
    kings_plies: int = 0
    """Consecutive plies of king moves without capture."""
    material_plies: int = 0
    """Plies since the material (men and kings of each side) last changed."""
    history: tuple[PositionKey, ...] = ()
    """Positions since the last capture or man move, this one last (for repetition)."""

    @property
    def key(self) -> PositionKey:
        """What repetition compares: the pieces and the side to move."""
        return (self.white, self.black, self.kings, self.turn == "first")


LEGAL_CACHE_POSITIONS = 1024
"""Positions whose legal moves are kept (about 3.3 KB each). A server needs two or so per live
game (the move is checked, then the new position's moves decide the end); at 4,096 a server's
memory kept growing by some 13.5 MB long after its games settled into a steady state."""


@lru_cache(maxsize=LEGAL_CACHE_POSITIONS)
def _legal(
    variant: str, white: Bitboard, black: Bitboard, kings: Bitboard, white_to_move: bool
) -> tuple[LegalMove, ...]:
    return _named(GENERATORS[variant], white, black, kings, white_to_move)


def _named(
    gen: MoveGenerator, white: Bitboard, black: Bitboard, kings: Bitboard, white_to_move: bool
) -> tuple[LegalMove, ...]:
    """The moves ``gen`` finds, named in PDN."""
    geo = gen.geo
    sq = geo.square_of
    own, opp = (white, black) if white_to_move else (black, white)
    caps = gen.captures(own, opp, kings, white_to_move, True)
    raw = []
    if caps:
        for (f, t, cap), entries in caps.items():
            paths = sorted({tuple(sq[b] for b in path) for _, path in entries})
            captured = tuple(sorted(sq[b] for b in bits(cap)))
            raw.append((sq[f], sq[t], captured, tuple(paths), (f, t, cap, entries[0][0])))
    else:
        for f, t, cap, promotes in gen.quiet_moves(own, opp, kings, white_to_move):
            raw.append((sq[f], sq[t], (), ((sq[f], sq[t]),), (f, t, cap, promotes)))
    return tuple(name_moves(raw))


ANY_LENGTH: dict[str, MoveGenerator] = {
    v.id: MoveGenerator(dataclasses.replace(v.rules, max_capture=False))
    for v in VARIANTS.values()
    if v.rules.max_capture
}
"""The majority-capture variants' moves without that rule: the captures it forbids, to say why
one is refused (never to play one)."""


@lru_cache(maxsize=4096)
def _position(
    variant: str, white: Bitboard, black: Bitboard, kings: Bitboard, white_to_move: bool
) -> str:
    """The PDN FEN straight from the bitboards (the server writes one after every move)."""
    square_of = GENERATORS[variant].geo.square_of
    lists = []
    for own in (white, black):
        crowned = {square_of[b] for b in bits(own & kings)}
        items: list[str] = []
        start = end = -2
        for square in sorted(square_of[b] for b in bits(own)):
            if square not in crowned and square == end + 1 and start >= 0:
                end = square
                continue
            if start >= 0:
                items.append(str(start) if start == end else f"{start}-{end}")
            if square in crowned:
                items.append(f"K{square}")
                start = end = -2
            else:
                start = end = square
        if start >= 0:
            items.append(str(start) if start == end else f"{start}-{end}")
        lists.append(",".join(items))
    return f"{'W' if white_to_move else 'B'}:W{lists[0]}:B{lists[1]}"


def _squares(geo: Geometry, bb: Bitboard) -> frozenset[int]:
    return frozenset(geo.square_of[b] for b in bits(bb))


class DraughtsEngine(Engine):
    """International, brazilian and russian draughts."""

    game: ClassVar[str] = "draughts"
    name: ClassVar[str] = "Draughts"
    default_options: ClassVar[Mapping[str, Any]] = {}

    def variants(self) -> list[VariantInfo]:
        """International first (the default), then the 8 x 8 variants."""
        return [VariantInfo(v.id, v.name, v.description) for v in VARIANTS.values()]

    # ---- positions -----------------------------------------------------------------------------

    def start(
        self,
        variant: str | None = None,
        position: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> DraughtsState:
        """The start state of ``variant``, or the given PDN FEN position of it."""
        vid = self.resolve_variant(variant)
        self.validate_options(options)
        spec = VARIANTS[vid]
        setup = parse_position(
            spec.start if position is None else position, GENERATORS[vid].geo.squares
        )
        geo = GENERATORS[vid].geo
        bit = geo.bit_of
        white = sum(1 << bit[s] for s in setup.white_men | setup.white_kings)
        black = sum(1 << bit[s] for s in setup.black_men | setup.black_kings)
        kings = sum(1 << bit[s] for s in setup.white_kings | setup.black_kings)
        if not white and not black:
            raise BadPosition("the position has no pieces at all")
        turn: Side = "first" if setup.white_to_move else "second"
        key = (white, black, kings, setup.white_to_move)
        return DraughtsState(vid, white, black, kings, turn, history=(key,))

    def position(self, state: DraughtsState) -> str:
        """The PDN FEN of ``state`` (what ``format_position(self.setup(state))`` writes)."""
        white_to_move = state.turn == "first"
        return _position(state.variant, state.white, state.black, state.kings, white_to_move)

    def setup(self, state: DraughtsState) -> Setup:
        """The pieces of ``state`` as square numbers."""
        geo = GENERATORS[state.variant].geo
        return Setup(
            white_to_move=state.turn == "first",
            white_men=_squares(geo, state.white & ~state.kings),
            white_kings=_squares(geo, state.white & state.kings),
            black_men=_squares(geo, state.black & ~state.kings),
            black_kings=_squares(geo, state.black & state.kings),
        )

    # ---- moves ---------------------------------------------------------------------------------

    def moves(self, state: DraughtsState) -> tuple[LegalMove, ...]:
        """The legal moves by the movement rules alone (draw rules not applied)."""
        return _legal(state.variant, state.white, state.black, state.kings, state.turn == "first")

    def legal_moves(self, state: DraughtsState) -> list[str]:
        """Canonical texts of the legal moves, ordered by start, end and path."""
        if self.outcome(state) is not None:
            return []
        return [m.text for m in self.moves(state)]

    def parse_move(self, state: DraughtsState, text: str) -> LegalMove:
        """The legal move ``text`` names; raises :class:`IllegalMove` (for a capture that the
        majority rule forbids, saying so: how many pieces it takes, how many must be taken)."""
        squares = GENERATORS[state.variant].geo.squares
        moves = self.moves(state)
        try:
            return parse_move(text, moves, squares)
        except IllegalMove:
            try:
                short = parse_move(text, self.shorter_captures(state), squares)
            except IllegalMove:
                short = None
            if short is None:
                raise
        most = len(moves[0].captured)
        taken = len(short.captured)
        raise IllegalMove(
            f"{short.text} takes {taken} piece{'' if taken == 1 else 's'}: the most pieces must "
            f"be taken, {most} ({choices_text(moves)})"
        )

    def shorter_captures(self, state: DraughtsState) -> tuple[LegalMove, ...]:
        """The captures the majority rule forbids in ``state`` (complete captures by the
        movement rules that take fewer pieces than the legal ones); none in russian draughts,
        which has no such rule."""
        gen = ANY_LENGTH.get(state.variant)
        if gen is None:
            return ()
        legal = self.moves(state)
        if not legal or not legal[0].is_capture:
            return ()
        most = len(legal[0].captured)
        every = _named(gen, state.white, state.black, state.kings, state.turn == "first")
        return tuple(m for m in every if len(m.captured) < most)

    def play(self, state: DraughtsState, move: str) -> DraughtsState:
        """The state after ``move`` (``32-28``, ``28x19`` or a full path ``28x19x10``)."""
        over = self.outcome(state)
        if over is not None:
            raise IllegalMove(f"the game is over ({over.reason})")
        return self.apply(state, self.parse_move(state, move))

    def apply(self, state: DraughtsState, move: LegalMove) -> DraughtsState:
        """The state after a legal move of ``state`` (no checks)."""
        frm, to, cap, promotes = move.key
        fb, tb = 1 << frm, 1 << to
        white, black, kings = state.white, state.black, state.kings
        king_move = bool(kings & fb)
        kings &= ~cap
        if king_move:
            kings = (kings ^ fb) | tb
        elif promotes:
            kings |= tb
        if state.turn == "first":
            white = (white ^ fb) | tb
            black &= ~cap
        else:
            black = (black ^ fb) | tb
            white &= ~cap
        # Only a king's quiet move can be undone; anything else makes earlier positions
        # unreachable, so the repetition history restarts.
        reversible = king_move and not cap
        material_changed = bool(cap) or (promotes and not king_move)
        key = (white, black, kings, state.turn != "first")
        return DraughtsState(
            state.variant,
            white,
            black,
            kings,
            other(state.turn),
            state.ply + 1,
            move.text,
            kings_plies=state.kings_plies + 1 if reversible else 0,
            material_plies=0 if material_changed else state.material_plies + 1,
            history=(*state.history, key) if reversible else (key,),
        )

    # ---- the end -------------------------------------------------------------------------------

    def outcome(self, state: DraughtsState) -> Outcome | None:
        """No pieces or no move loses; then the draw rules of the variant."""
        waiting = state.black if state.turn == "first" else state.white
        if not waiting:
            # Only a loaded position gets here (a move never takes the mover's last piece): the
            # side not to move has no pieces and has lost, whatever the side to move could do.
            return Outcome(winner=state.turn, reason="no_moves")
        if not self.moves(state):
            return Outcome(winner=other(state.turn), reason="no_moves")
        if state.history.count(state.key) >= 3:
            return Outcome(winner=None, reason="repetition")
        spec = VARIANTS[state.variant]
        if spec.small_endgames:
            config = _endgame(state)
            if config in _ENDGAME_5 and state.material_plies >= 10:
                return Outcome(winner=None, reason="endgame_5")
            if config in _ENDGAME_16 and state.material_plies >= 32:
                return Outcome(winner=None, reason="endgame_16")
        if state.kings_plies >= spec.kings_only_plies:
            return Outcome(winner=None, reason="kings_only")
        return None

    # ---- records -------------------------------------------------------------------------------

    def record(self, info: RecordInfo) -> str:
        """The game as PDN."""
        from engines.draughts.pdn import write_pdn

        return write_pdn(self, info)

    def from_record(
        self,
        text: str,
        variant: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> DraughtsState:
        """The final state of a PDN game, or the state of a PDN FEN position string.

        Draughts has no options of its own: ``options`` are only checked (:class:`BadOption`).
        """
        from engines.draughts.pdn import read_pdn

        self.validate_options(options)
        return read_pdn(self, text, variant)

    # ---- perft ---------------------------------------------------------------------------------

    def perft(self, state: DraughtsState, depth: int) -> int:
        """Positions ``depth`` plies ahead by the movement rules alone (as published tables)."""
        gen = GENERATORS[state.variant]
        if depth > 0 and not (state.black if state.turn == "first" else state.white):
            return 0  # the side not to move has no pieces: the game is over (see outcome)
        return gen.perft(state.white, state.black, state.kings, state.turn == "first", depth)


def _endgame(state: DraughtsState) -> tuple[int, int] | None:
    """(men, kings) of the side facing a lone king, or ``None`` if neither side has a lone king."""
    kings = state.kings
    wm = (state.white & ~kings).bit_count()
    wk = (state.white & kings).bit_count()
    bm = (state.black & ~kings).bit_count()
    bk = (state.black & kings).bit_count()
    if (bm, bk) == (0, 1):
        return (wm, wk)
    if (wm, wk) == (0, 1):
        return (bm, bk)
    return None


ENGINE = DraughtsEngine()
"""The registered engine instance."""
