"""Chess (RULES.md section 1) on python-chess: UCI/SAN moves, FEN positions, PGN records.

Inside this package ``import chess`` is python-chess (absolute imports only).

>>> from engines import get
>>> game = get("chess")
>>> state = game.play(game.start(), "Nf3")
>>> state.last_move, state.turn
('g1f3', 'second')
"""

from engines.chess.engine import ENGINE, ChessEngine, ChessState

__all__ = ["ENGINE", "ChessEngine", "ChessState"]
