"""The shared bot search of every Boardhall game.

- :mod:`engines.search.core`: iterative-deepening negamax with alpha-beta, a transposition table
  keyed by the adapter's (Zobrist) hash, killer and history move ordering, captures first,
  quiescence where the game has captures, and a hard time/node budget.
- :mod:`engines.search.adapter`: the interface the searcher walks, and a generic adapter over any
  engine's public interface.
- :mod:`engines.search.evaluate`: one module per game with its fast adapter and evaluation.
- :mod:`engines.search.levels`: the levels table (level L thinks at most 0.05 x 2^(L-1) s).
- :mod:`engines.search.player`: :class:`BotPlayer`, what a bot does next in a given state.
- :mod:`engines.search.analysis`: computer analysis of a finished game (an evaluation and best
  move per position, each move's drop in winning chances classified as inaccuracy / mistake /
  blunder, each player's accuracy).

Levels (also in the README):

=====  ===========  ================================================
Level  Think (max)  Play
=====  ===========  ================================================
1      0.05 s       random among moves within 150 units of the best
2      0.1 s        random among moves within 60 units of the best
3      0.2 s        best move found
4      0.4 s        best move found
5      0.8 s        best move found
6      1.6 s        best move found
7      3.2 s        best move found
8      6.4 s        best move found
=====  ===========  ================================================

100 units is about one pawn / one man of advantage; never more time than the clock allows.
"""

from engines.search.core import Limits, Searcher, SearchResult
from engines.search.levels import TABLE, level_info, think_seconds
from engines.search.player import BotPlayer, Decision, make_adapter

__all__ = [
    "TABLE",
    "BotPlayer",
    "Decision",
    "Limits",
    "SearchResult",
    "Searcher",
    "level_info",
    "make_adapter",
    "think_seconds",
]
