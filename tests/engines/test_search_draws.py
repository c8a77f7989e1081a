"""A bot's answer to a draw offer: a sound judgement of the position, the same at every level.

A level-1 hexgomoku bot accepted a draw after four stones: "accept when clearly losing" read the
score of its randomly chosen move (up to 1.5 stones below its best), so about one level-1 game in
four could be drawn by offering at once."""

from __future__ import annotations

from typing import Any

import pytest

from engines import get
from engines.search import BotPlayer


def _four_stones(seed: int) -> tuple[BotPlayer, Any]:
    """Human 0,0; the level-1 bot; human next to the first stone; the bot again: its player and
    the position after four stones (the bot's searches node-limited: the same every run)."""
    engine = get("hexgomoku")
    player = BotPlayer("hexgomoku", 1, seed=seed)
    state = engine.play(engine.start(None), "0,0")
    state = engine.play(state, str(player.decide(state, nodes=2000).move))
    free = {str(m) for m in engine.legal_moves(state)}
    state = engine.play(state, next(m for m in ("1,0", "0,1", "-1,0") if m in free))
    state = engine.play(state, str(player.decide(state, nodes=2000).move))
    return player, state


@pytest.mark.parametrize("seed", range(0, 40))
def test_a_level_one_bot_declines_a_draw_after_four_stones(seed: int) -> None:
    """Before: 28 seeds of 100 accepted (the randomised score of the move played, -178)."""
    player, state = _four_stones(seed)
    assert player.accepts_draw(state, "second") is False


@pytest.mark.parametrize(
    ("fen", "side", "accept"),
    [
        ("4k3/8/8/8/8/8/3QK3/8 b - - 0 1", "second", True),  # a queen down
        ("4k3/8/8/8/8/8/3QK3/8 b - - 0 1", "first", False),  # a queen up (the human to move)
        ("4k3/8/8/8/8/8/3QK3/8 w - - 0 1", "second", True),  # a queen down, the human to move
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "first", False),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "second", False),
    ],
)
def test_every_level_judges_an_offer_the_same(fen: str, side: str, accept: bool) -> None:
    """Lower levels play weaker, but judge offers as well: the same answer at every level,
    whatever the level last searched."""
    engine = get("chess")
    state = engine.start(position=fen)
    for level in (1, 2, 3, 8):
        player = BotPlayer("chess", level, seed=level)
        assert player.accepts_draw(state, side) is accept, level
        if engine.outcome(state) is None and state.turn == side:
            player.decide(state, nodes=500)
            assert player.accepts_draw(state, side) is accept, level
