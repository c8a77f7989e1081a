"""The interface the searcher plays through, and a generic adapter over any engine.

A :class:`SearchAdapter` is a *mutable* view of one position that the searcher walks with
``push``/``pop``. Each game can supply a fast adapter (its own board arrays and an incremental
Zobrist hash); :class:`EngineAdapter` works for any :class:`engines.base.Engine` through its public
interface (states are values, so ``push`` keeps a stack of them) given an evaluation function.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Protocol, TypeVar

from engines.base import Engine, Side

MATE = 1_000_000
"""Score of a won position (minus the plies it takes); losses are negative."""
MATE_BOUND = MATE - 10_000
"""Scores at or beyond this magnitude are mates."""

Move = Hashable
"""An adapter's own move object (opaque to the searcher; must be hashable)."""


class SearchAdapter(Protocol):
    """A position the searcher walks; scores are always from the side to move's view."""

    has_captures: bool
    """Whether quiescence search applies (the game has captures)."""

    def key(self) -> int:
        """Hash of the current position (incremental, Zobrist-style where the adapter can)."""
        ...

    def moves(self) -> list[Move]:
        """Moves to search here (all legal moves, or a pruned candidate list)."""
        ...

    def noisy_moves(self) -> list[Move]:
        """Captures (and promotions) for quiescence; only called when ``has_captures``."""
        ...

    def is_noisy(self, move: Move) -> bool:
        """Whether ``move`` is a capture (ordered first)."""
        ...

    def order_hint(self, move: Move) -> int:
        """A static ordering bonus (bigger first), e.g. MVV-LVA; 0 when there is none."""
        ...

    def push(self, move: Move) -> None:
        """Make ``move``."""
        ...

    def pop(self) -> None:
        """Take back the last pushed move."""
        ...

    def terminal(self, ply: int) -> int | None:
        """The score if the game is over here (``-MATE + ply`` for a loss), else ``None``."""
        ...

    def evaluate(self) -> int:
        """Static evaluation from the side to move's view."""
        ...

    def notation(self, move: Move) -> str:
        """Canonical notation of ``move`` in the current position."""
        ...


Evaluator = Callable[[Engine, Any, Side], int]
"""``evaluate(engine, state, side) -> score`` from ``side``'s view (positive is good)."""


T = TypeVar("T")

CACHE_LIMIT = 50_000
"""Positions a move cache holds before it starts again (a long analysis would grow it)."""


def remembered(
    cache: dict[int, Sequence[T]], key: int, make: Callable[[], Sequence[T]]
) -> list[T]:
    """A copy of ``cache[key]``, made with ``make`` the first time (the cache emptied once it
    holds :data:`CACHE_LIMIT` positions)."""
    found = cache.get(key)
    if found is None:
        found = make()
        if len(cache) > CACHE_LIMIT:
            cache.clear()
        cache[key] = found
    return list(found)


def outcome_score(winner: Side | None, to_move: Side, ply: int) -> int:
    """Negamax score of a finished game for the side to move, ``ply`` plies from the root."""
    if winner is None:
        return 0
    return MATE - ply if winner == to_move else -(MATE - ply)


class NoCaptures:
    """Mixin for adapters of games without captures: nothing for quiescence to search."""

    def noisy_moves(self) -> list[Hashable]:
        """No captures in this game."""
        return []

    def is_noisy(self, move: Hashable) -> bool:
        """No captures in this game."""
        return False


class StateStack:
    """What adapters over an engine's immutable states share: the states walked so far on a
    stack, each with its position key, and the engine's outcome as a score."""

    def __init__(self, engine: Any, state: Any, key: int) -> None:
        self.engine = engine
        self.stack: list[Any] = [state]
        self._keys: list[int] = [key]

    @property
    def state(self) -> Any:
        """The current engine state."""
        return self.stack[-1]

    def key(self) -> int:
        """The current position's key."""
        return self._keys[-1]

    def _pushed(self, state: Any, key: int) -> None:
        self.stack.append(state)
        self._keys.append(key)

    def pop(self) -> None:
        """Back to the previous state."""
        self.stack.pop()
        self._keys.pop()

    def terminal(self, ply: int) -> int | None:
        """Score of the engine's outcome, if any."""
        state = self.state
        outcome = self.engine.outcome(state)
        if outcome is None:
            return None
        return outcome_score(outcome.winner, state.turn, ply)


class EngineAdapter(StateStack):
    """A :class:`SearchAdapter` over any engine's public interface.

    Moves are the engine's notation strings. The key hashes the engine's position string (not
    incremental: per-game adapters do better); ``noisy`` tells captures apart when the game has
    them.
    """

    def __init__(
        self,
        engine: Engine,
        state: Any,
        evaluate: Evaluator,
        noisy: Callable[[Engine, Any, str], bool] | None = None,
    ) -> None:
        super().__init__(engine, state, hash(engine.position(state)))
        self._evaluate = evaluate
        self._noisy = noisy
        self.has_captures = noisy is not None
        self._moves_cache: dict[int, Sequence[Hashable]] = {}

    def _key_of(self, state: Any) -> int:
        """Hash of the position string."""
        return hash(self.engine.position(state))

    def moves(self) -> list[Hashable]:
        """The engine's legal moves."""
        return remembered(
            self._moves_cache, self._keys[-1], lambda: self.engine.legal_moves(self.state)
        )

    def noisy_moves(self) -> list[Hashable]:
        """The legal captures."""
        if self._noisy is None:
            return []
        noisy = self._noisy
        return [m for m in self.moves() if noisy(self.engine, self.state, str(m))]

    def is_noisy(self, move: Hashable) -> bool:
        """Whether ``move`` captures."""
        return self._noisy is not None and self._noisy(self.engine, self.state, str(move))

    def order_hint(self, move: Hashable) -> int:
        """No static hint."""
        return 0

    def push(self, move: Hashable) -> None:
        """Play ``move`` through the engine."""
        state = self.engine.play(self.state, str(move))
        self._pushed(state, self._key_of(state))

    def evaluate(self) -> int:
        """The game's evaluation from the side to move's view."""
        return self._evaluate(self.engine, self.state, self.state.turn)

    def notation(self, move: Hashable) -> str:
        """Moves already are notation."""
        return str(move)


class ZobristTable:
    """Random 64-bit keys for ``(slot, value)`` pairs, built lazily from a fixed seed."""

    def __init__(self, seed: int = 20261122) -> None:
        self._rng = random.Random(seed)
        self._keys: dict[Hashable, int] = {}

    def __getitem__(self, item: Hashable) -> int:
        key = self._keys.get(item)
        if key is None:
            key = self._keys[item] = self._rng.getrandbits(64)
        return key
