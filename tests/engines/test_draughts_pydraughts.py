"""Differential test: our draughts move generator against pydraughts (test-only dependency).

On random positions (random playouts from the start, and random set-ups with many kings) the set
of legal moves, as (from, to, captured squares), must be the same in both, for all three variants.
pydraughts' internal ``Game`` uses the same square numbers as we do on every board; it reads the
first piece list of a PDN FEN as White whatever its letter says, so White is always written first
(``position()`` does that).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from engines.draughts import ENGINE, DraughtsState
from engines.draughts.fen import parse_position

game_module = pytest.importorskip("draughts.core.game")

PYDRAUGHTS_VARIANT = {"international": "standard", "brazilian": "brazilian", "russian": "russian"}
MoveSet = set[tuple[int, int, frozenset[int]]]


def theirs(variant: str, fen: str) -> MoveSet:
    """pydraughts' legal moves of a position."""
    return set(theirs_after(variant, fen))


def theirs_after(variant: str, fen: str) -> dict[tuple[int, int, frozenset[int]], set[str]]:
    """pydraughts' legal moves, each with the positions (their FEN) its paths lead to."""
    game = game_module.Game(PYDRAUGHTS_VARIANT[variant], fen)
    moves, captures = game.legal_moves()
    after: dict[tuple[int, int, frozenset[int]], set[str]] = {}
    for move, taken in zip(moves, captures, strict=True):
        played = game_module.Game(PYDRAUGHTS_VARIANT[variant], fen)
        for step in move:
            played.move(step)
        key = (move[0][0], move[-1][1], frozenset(c for c in taken if c is not None))
        after.setdefault(key, set()).add(played.get_li_fen())
    return after


def ours(state: DraughtsState) -> MoveSet:
    """Our legal moves (movement rules only)."""
    return {(m.frm, m.to, frozenset(m.captured)) for m in ENGINE.moves(state)}


def random_setup(variant: str, rng: random.Random) -> str:
    """A random legal-looking position with 2-14 pieces, about 40% kings."""
    squares = 50 if variant == "international" else 32
    half = 5 if squares == 50 else 4
    chosen = rng.sample(range(1, squares + 1), rng.randint(2, 14))
    white: list[str] = []
    black: list[str] = []
    for square in chosen:
        is_white = rng.random() < 0.5
        king = rng.random() < 0.4
        if (is_white and square <= half) or (not is_white and square > squares - half):
            king = True
        (white if is_white else black).append(("K" if king else "") + str(square))
    return f"{rng.choice('WB')}:W{','.join(white)}:B{','.join(black)}"


def playout(variant: str, rng: random.Random) -> DraughtsState:
    """A position after up to 80 random moves from the start."""
    state = ENGINE.start(variant)
    for _ in range(rng.randint(0, 80)):
        moves = ENGINE.moves(state)
        if not moves:
            break
        state = ENGINE.apply(state, rng.choice(moves))
    return state


def random_positions(variant: str, seed: str, count: int) -> Iterator[DraughtsState]:
    """``count`` positions: random set-ups and random playouts from the start, alternately."""
    rng = random.Random(seed)
    for i in range(count):
        yield playout(variant, rng) if i % 2 else ENGINE.start(variant, random_setup(variant, rng))


@pytest.mark.parametrize("variant", ["international", "brazilian", "russian"])
def test_legal_move_sets_match_pydraughts(variant: str) -> None:
    """150 random positions per variant: identical legal move sets, captures included."""
    captures = 0
    for state in random_positions(variant, f"draughts-{variant}", 150):
        fen = ENGINE.position(state)
        mine = ours(state)
        assert mine == theirs(variant, fen), fen
        captures += any(captured for _, _, captured in mine)
    # The sample must exercise captures, not only quiet moves.
    assert captures >= 30


def test_russian_and_brazilian_differ_where_the_rules_do() -> None:
    """Sanity of the oracle: pydraughts also lets a russian man stop short of the longest."""
    fen = "W:W23:B18,19,11"
    assert theirs("russian", fen) == ours(ENGINE.start("russian", fen))
    assert len(theirs("russian", fen)) == 2 and len(theirs("brazilian", fen)) == 1


@pytest.mark.parametrize("variant", ["international", "brazilian", "russian"])
def test_positions_after_each_move_match_pydraughts(variant: str) -> None:
    """After every legal move of 120 random positions the pieces are pydraughts' too: captured
    pieces gone, a man crowned only where the variant crowns it (at the end of the move, or in
    passing in russian), the other side to move."""
    squares = 50 if variant == "international" else 32
    crowned = 0
    for state in random_positions(variant, f"draughts-after-{variant}", 120):
        expected = theirs_after(variant, ENGINE.position(state))
        for move in ENGINE.moves(state):
            after = ENGINE.apply(state, move)
            key = (move.frm, move.to, frozenset(move.captured))
            wanted = {parse_position(fen, squares) for fen in expected[key]}
            assert ENGINE.setup(after) in wanted, (ENGINE.position(state), move.text)
            crowned += bool(move.key[3])
    assert crowned >= 5
