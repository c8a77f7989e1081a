"""Scripted games: random legal playouts of every game, computed before a run starts.

A scripted player sends the moves of its script in order; the moves were picked with
``engine.legal_moves(state)`` from a seeded generator, so a run is reproducible and the clients
spend no time on rules while the server is measured.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import engines

GAMES = ("hexgomoku", "chess", "draughts", "shuqi", "custom")


@dataclass(frozen=True)
class Script:
    """One random legal game."""

    game: str
    variant: str
    moves: tuple[str, ...]
    sides: tuple[str, ...]
    """The side to move before each move."""
    positions: tuple[str, ...]
    """The position after each move."""
    start: str
    over: bool
    """Whether the last move ends the game."""

    def final(self, plies: int) -> str:
        """The position after ``plies`` moves."""
        return self.positions[plies - 1] if plies else self.start


def playout(game: str, seed: int, max_plies: int = 300) -> Script:
    """A random legal game of ``game`` (default variant) of at most ``max_plies`` moves."""
    engine = engines.get(game)
    variant = engine.default_variant()
    rng = random.Random(seed)
    state: Any = engine.start(variant)
    start = engine.position(state)
    moves: list[str] = []
    sides: list[str] = []
    positions: list[str] = []
    over = False
    while len(moves) < max_plies:
        legal = engine.legal_moves(state)
        if not legal:
            break
        move = rng.choice(legal)
        sides.append(state.turn)
        state = engine.play(state, move)
        moves.append(state.last_move or move)
        positions.append(engine.position(state))
        if engine.outcome(state) is not None:
            over = True
            break
    return Script(game, variant, tuple(moves), tuple(sides), tuple(positions), start, over)


def library(per_game: int = 4, seed: int = 1, max_plies: int = 300) -> dict[str, list[Script]]:
    """``per_game`` scripts of each of the five games."""
    return {
        game: [playout(game, seed * 1000 + i, max_plies) for i in range(per_game)] for game in GAMES
    }


def replay(game: str, variant: str, start: str, moves: list[str]) -> str:
    """The position after ``moves`` from ``start`` through the engine (raises on an illegal one)."""
    engine = engines.get(game)
    state: Any = engine.start(variant, start)
    for move in moves:
        state = engine.play(state, move)
    return engine.position(state)
