"""A room's line of states: every state can be read back, but only a few are held."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engines
from server.stateline import CHECKPOINT_EVERY, RECENT, StateLine


def _played(game: str, plies: int, seed: int) -> tuple[Any, list[Any], list[str]]:
    """A random game: the engine, every state from the start, and the canonical moves."""
    engine = engines.get(game)
    rng = random.Random(seed)
    states = [engine.start()]
    moves: list[str] = []
    while len(moves) < plies and engine.outcome(states[-1]) is None:
        legal = engine.legal_moves(states[-1])
        if not legal:
            break
        state = engine.play(states[-1], rng.choice(legal))
        states.append(state)
        moves.append(state.last_move)
    return engine, states, moves


def _line(engine: Any, states: list[Any], moves: list[str]) -> StateLine:
    line = StateLine(engine, states[0])
    for state, move in zip(states[1:], moves, strict=True):
        line.append(state, move)
    return line


@pytest.mark.parametrize("game", ["chess", "draughts", "hexgomoku", "shuqi", "custom"])
def test_every_state_reads_back_equal_to_the_one_played(game: str) -> None:
    engine, states, moves = _played(game, 90, seed=7)
    line = _line(engine, states, moves)
    assert len(line) == len(states)
    for index, state in enumerate(states):
        assert line[index] == state
        assert line[index - len(states)] == state
    assert line[-1] is states[-1]


def test_only_the_start_checkpoints_and_recent_states_are_held() -> None:
    engine, states, moves = _played("chess", 200, seed=3)
    assert len(moves) >= 100
    line = _line(engine, states, moves)
    held = set(line._kept)
    last = len(states) - 1
    expected = {i for i in range(0, last + 1, CHECKPOINT_EVERY)} | set(
        range(last - RECENT + 1, last + 1)
    )
    assert held == expected
    for index in held:
        assert line._kept[index] is states[index]


@settings(max_examples=40, deadline=None)
@given(
    plies=st.integers(0, 80), cuts=st.lists(st.integers(1, 80), max_size=4), seed=st.integers(0, 50)
)
def test_truncate_then_play_on_matches_a_fresh_line(plies: int, cuts: list[int], seed: int) -> None:
    engine, states, moves = _played("hexgomoku", plies, seed)
    line = _line(engine, states, moves)
    for cut in cuts:
        keep = min(cut, len(line))
        line.truncate(keep)
        states, moves = states[:keep], moves[: keep - 1]
        assert len(line) == keep
        assert line[-1] == states[-1]
        legal = engine.legal_moves(states[-1])
        if legal and engine.outcome(states[-1]) is None:
            nxt = engine.play(states[-1], legal[seed % len(legal)])
            line.append(nxt, nxt.last_move)
            states.append(nxt)
            moves.append(nxt.last_move)
    assert [line[i] for i in range(len(line))] == states


def test_bad_indexes_are_refused_and_change_nothing() -> None:
    engine, states, moves = _played("chess", 10, seed=1)
    line = _line(engine, states, moves)
    with pytest.raises(IndexError, match="state 11 of a line of 11"):
        line[11]
    with pytest.raises(IndexError):
        line[-12]
    with pytest.raises(IndexError, match="cannot keep 0 states"):
        line.truncate(0)
    with pytest.raises(IndexError, match="cannot keep 12 states"):
        line.truncate(12)
    assert len(line) == 11 and line[-1] is states[-1]


def test_a_settled_line_keeps_the_start_and_the_end_and_rebuilds_the_rest() -> None:
    engine, states, moves = _played("chess", 70, seed=5)
    line = _line(engine, states, moves)
    line.settle()
    assert set(line._kept) == {0, len(states) - 1}
    assert line[0] is states[0] and line[-1] is states[-1]
    assert [line[i] for i in range(len(line))] == states
