"""Chess bots through an installed UCI engine (``boardhall bot --uci PATH``), via python-chess."""

from __future__ import annotations

from typing import Any

import chess
import chess.engine

from engines.search import Decision, level_info

DRAW_ACCEPT_BELOW = -150
START_TIMEOUT = 10.0
"""Seconds a UCI engine has to answer ``uci`` with ``uciok``."""


class UciDecider:
    """Chooses chess moves with a UCI engine, thinking the level's time (capped by the clock)."""

    def __init__(self, path: str, level: int, start_timeout: float = START_TIMEOUT) -> None:
        self.level = level_info(level)
        try:
            self.engine = chess.engine.SimpleEngine.popen_uci(path, timeout=start_timeout)
        except TimeoutError as exc:
            raise ValueError(
                f"cannot start the UCI engine {path!r}: it did not answer 'uci' within "
                f"{start_timeout:g} s (is it a UCI engine?)"
            ) from exc
        except (OSError, chess.engine.EngineError) as exc:
            reason = str(exc) or type(exc).__name__
            raise ValueError(
                f"cannot start the UCI engine {path!r}: {reason} (is it a UCI engine?)"
            ) from exc
        self.last_score = 0

    def decide(self, state: Any, seconds: float | None = None) -> Decision:
        """The engine's move in ``state``."""
        budget = self.level.seconds if seconds is None else min(seconds, self.level.seconds)
        board = state.board() if callable(getattr(state, "board", None)) else chess.Board(state.fen)
        limit = chess.engine.Limit(time=budget)
        result = self.engine.play(board, limit, info=chess.engine.INFO_SCORE)
        if result.move is None:
            raise ValueError("the UCI engine gave no move")
        score = result.info.get("score")
        if score is not None:
            self.last_score = score.pov(board.turn).score(mate_score=100_000) or 0
        return Decision("move", result.move.uci(), self.last_score, 0, 0, budget)

    def accepts_draw(self, state: Any = None, side: str | None = None) -> bool:
        """Accept a draw only when the engine's last search (its best move: no random choice)
        saw it clearly losing."""
        return self.last_score < DRAW_ACCEPT_BELOW

    def close(self) -> None:
        """Stop the engine process."""
        self.engine.quit()
