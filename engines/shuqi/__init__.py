"""Number chess 国际数棋 (game id ``shuqi``): see RULES.md section 3.

``ENGINE`` is the engine; :func:`solve` finds a span expression (used by bots and the client's
hint button); ``ENGINE.scores(state)`` gives both players' current product-sums.
"""

from engines.shuqi.engine import ENGINE, ShuqiEngine, ShuqiState, parse_position
from engines.shuqi.expr import ExpressionError, evaluate
from engines.shuqi.solver import solve

__all__ = [
    "ENGINE",
    "ExpressionError",
    "ShuqiEngine",
    "ShuqiState",
    "evaluate",
    "parse_position",
    "solve",
]
