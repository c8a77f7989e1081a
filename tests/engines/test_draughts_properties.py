"""Hypothesis properties of the draughts engine: position strings, parsers, listed moves."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.base import BadPosition, IllegalMove
from engines.draughts import ENGINE
from engines.draughts.fen import Setup, format_position, parse_position

VARIANTS = st.sampled_from(["international", "brazilian", "russian"])


@st.composite
def setups(draw: st.DrawFn) -> tuple[str, Setup]:
    """A variant and a valid set-up of it (men never on their crowning row)."""
    variant = draw(VARIANTS)
    squares = 50 if variant == "international" else 32
    half = squares // (10 if squares == 50 else 8)
    chosen = draw(st.lists(st.integers(1, squares), unique=True, min_size=1, max_size=30))
    kinds = draw(st.lists(st.integers(0, 3), min_size=len(chosen), max_size=len(chosen)))
    wm: set[int] = set()
    wk: set[int] = set()
    bm: set[int] = set()
    bk: set[int] = set()
    for square, kind in zip(chosen, kinds, strict=True):
        if kind == 0 and square > half:
            wm.add(square)
        elif kind == 1 and square <= squares - half:
            bm.add(square)
        elif kind in (0, 2):
            wk.add(square)
        else:
            bk.add(square)
    setup = Setup(
        white_to_move=draw(st.booleans()),
        white_men=frozenset(wm),
        white_kings=frozenset(wk),
        black_men=frozenset(bm),
        black_kings=frozenset(bk),
    )
    return variant, setup


@given(setups())
def test_position_strings_round_trip(case: tuple[str, Setup]) -> None:
    """format -> parse gives the same set-up, and start/position give the same text back."""
    variant, setup = case
    squares = 50 if variant == "international" else 32
    text = format_position(setup)
    assert parse_position(text, squares) == setup
    state = ENGINE.start(variant, text)
    assert ENGINE.position(state) == text
    assert ENGINE.setup(state) == setup


FEN_ALPHABET = st.sampled_from(list("WBK:,-0123456789 .xH"))


@given(st.one_of(st.text(max_size=60), st.text(FEN_ALPHABET, max_size=60)), VARIANTS)
def test_no_string_crashes_the_position_parser(text: str, variant: str) -> None:
    """Any text either starts a game or raises BadPosition."""
    try:
        state = ENGINE.start(variant, text)
    except BadPosition as exc:
        assert str(exc)
    else:
        assert ENGINE.start(variant, ENGINE.position(state)) == state


MOVE_ALPHABET = st.sampled_from(list("0123456789-xX "))


@given(st.one_of(st.text(max_size=30), st.text(MOVE_ALPHABET, max_size=30)), VARIANTS)
@settings(suppress_health_check=[HealthCheck.too_slow])
def test_no_string_crashes_the_move_parser(text: str, variant: str) -> None:
    """Any move text either plays a legal move or raises IllegalMove."""
    position = "W:W28,K46,31,32:B22,K5,19,14" if variant == "international" else "W:W22,K29:B18,K4"
    state = ENGINE.start(variant, position)
    try:
        after = ENGINE.play(state, text)
    except IllegalMove as exc:
        assert str(exc)
    else:
        assert after.last_move in ENGINE.legal_moves(state)


@given(VARIANTS, st.integers(0, 2**32), st.integers(0, 60))
@settings(max_examples=40, deadline=None)
def test_every_listed_move_plays_and_names_itself(variant: str, seed: int, plies: int) -> None:
    """Along a random game, each listed move is accepted and becomes last_move verbatim."""
    rng = random.Random(seed)
    state = ENGINE.start(variant)
    for _ in range(plies):
        moves = ENGINE.legal_moves(state)
        if not moves:
            break
        for move in moves:
            after = ENGINE.play(state, move)
            assert after.last_move == move
            assert after.ply == state.ply + 1 and after.turn != state.turn
        assert len(set(moves)) == len(moves)
        state = ENGINE.play(state, rng.choice(moves))
