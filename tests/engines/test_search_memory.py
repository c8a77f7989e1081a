"""What a bot's search keeps in memory: a level-8 chess bot held about 230 MB after one move,
most of it fresh :class:`chess.Move` objects in the per-move legal-move cache (up to 100,000
positions) and in the transposition table, never given back to the system."""

from __future__ import annotations

import gc
import random
import tracemalloc

from engines import get
from engines.search import Limits, Searcher, make_adapter

MIDDLEGAME = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def test_a_chess_search_holds_few_megabytes() -> None:
    """A 10,000-node search of a busy middlegame (a fifteenth of one level-8 move) peaked at
    26 MB of Python objects; with one shared move object per (from, to, promotion) its caches
    hold only references: 3.3 MB (same nodes, same answer)."""
    engine = get("chess")
    state = engine.start(position=MIDDLEGAME)
    searcher = Searcher(rng=random.Random(1))
    gc.collect()
    tracemalloc.start()
    try:
        result = searcher.search(make_adapter(engine, state), Limits(nodes=10_000))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.notation is not None
    assert peak < 8_000_000, f"peak {peak / 1e6:.1f} MB"


def test_the_shared_moves_change_no_search() -> None:
    """The same nodes and the same best move at a fixed depth as with the engine's own moves
    (the counts measured before the change)."""
    engine = get("chess")
    expected = {
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1": ("e2e4", 4, 3939),
        MIDDLEGAME: ("e2a6", 4, 33232),
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1": ("b4f4", 5, 6422),
    }
    for fen, (move, depth, nodes) in expected.items():
        state = engine.start(position=fen)
        result = Searcher(rng=random.Random(1)).search(
            make_adapter(engine, state), Limits(depth=depth)
        )
        assert (result.notation, result.depth, result.nodes) == (move, depth, nodes), fen
