"""The searcher's custom-variant adapter: square-pair moves searched exactly as the engine's
notation would be (same moves, order, captures and keys: the same answer node for node), and
the analysis of a JBQ Xiangqi map still finds a won captain."""

from __future__ import annotations

import itertools
import os
import random
import re
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

import pytest

import engines
from engines.base import Engine
from engines.custom import CustomEngine, CustomState
from engines.search.adapter import EngineAdapter, SearchAdapter
from engines.search.analysis import analyse, judge
from engines.search.core import Limits, Searcher
from engines.search.evaluate.custom import CustomAdapter, evaluate_state, piece_values
from engines.search.player import make_adapter

MAPS = Path(os.environ.get("BOARDHALL_JBQ_MAPS", Path(os.environ["BOARDHALL_SHARED"], "jbq-maps")))
XIANGQI_MAP = MAPS / "中国象棋.xlsx"
TARGET = re.compile(r"\d+,\d+-(\d+),(\d+)")


def custom() -> CustomEngine:
    engine = engines.get("custom")
    assert isinstance(engine, CustomEngine)
    return engine


def by_notation(engine: Engine, state: Any) -> EngineAdapter:
    """The generic adapter over the engine's notation: what the custom adapter replaced."""

    def evaluate(engine: Engine, state: Any, side: str) -> int:
        return evaluate_state(state, 1 if side == "first" else 2)

    def captures(engine: Engine, state: Any, move: str) -> bool:
        found = TARGET.fullmatch(move)
        assert found is not None
        table = state.rules
        target = state.board[(int(found[1]) - 1) * table.cols + int(found[2]) - 1]
        own = 1 if state.turn == "first" else 2
        return bool(target) and table.side_of[target] not in (3, own)

    class ByNotation(EngineAdapter):
        def order_hint(self, move: Hashable) -> int:
            found = TARGET.fullmatch(str(move))
            assert found is not None
            table = self.state.rules
            target = self.state.board[(int(found[1]) - 1) * table.cols + int(found[2]) - 1]
            if target and table.captain[target]:
                return 100_000
            return piece_values(table)[target] if target else 0

    return ByNotation(engine, state, evaluate, captures)


def random_states(engine: Engine, variant: str, seed: int, plies: int) -> list[Any]:
    rng = random.Random(seed)
    states = [engine.start(variant)]
    while len(states) <= plies and engine.outcome(states[-1]) is None:
        states.append(engine.play(states[-1], rng.choice(engine.legal_moves(states[-1]))))
    return states


def searched(adapter: SearchAdapter) -> tuple[str | None, int, int, int]:
    """What a 1500-node search of ``adapter`` answers: best move, score, depth and nodes."""
    found = Searcher().search(adapter, Limits(nodes=1500))
    return (found.notation, found.score, found.depth, found.nodes)


@pytest.mark.parametrize("variant", ["xiangqi", "guards", "stones", "xiangqi-jbq"])
def test_the_pair_adapter_searches_as_the_notation_would(variant: str) -> None:
    """Self-check (xiangqi), board-dependent conditions (guards), neutral pieces (stones) and a
    JBQ map with promotion: the same best move, score, depth and node count."""
    engine = custom()
    if variant == "xiangqi-jbq":
        if not XIANGQI_MAP.exists():
            pytest.skip("JBQ maps not available")
        variant = engine.load_file(XIANGQI_MAP)
    for seed in (1, 2):
        for state in random_states(engine, variant, seed, 14)[6::4]:
            if engine.outcome(state) is not None:
                continue
            fast = searched(make_adapter(engine, state))
            assert fast == searched(by_notation(engine, state)), engine.position(state)


class PlainSelfCheck(CustomEngine):
    """The engine with the self-check as the rules define it: every move played on a fresh
    board with every square's promotion, then every enemy asked whether it reaches a captain and
    every pair of generals whether they face (what the one-look-per-position test replaced);
    captures picked from the whole move list."""

    def settled(self, state: CustomState) -> bool:
        return False

    def legal_captures(self, state: CustomState) -> list[tuple[int, int]]:
        return [move for move in self.legal_pairs(state) if state.board[move[1]]]

    def _safe_moves(self, state: CustomState) -> Callable[[tuple[int, int]], bool]:
        table = state.rules
        if not table.variant.rules.self_check:
            return lambda move: True
        side = 1 if state.turn == "first" else 2

        def safe(move: tuple[int, int]) -> bool:
            after = table.board_after(state.board, move)
            if table.facing_generals(after) is not None:
                return False
            captains = table.captains(after, side)
            return not any(table.attacked(after, sq, 3 - side) for sq in captains)

        return safe


@pytest.mark.parametrize("variant", ["xiangqi", "guards"])
def test_the_self_check_by_touched_squares_searches_as_the_plain_one(variant: str) -> None:
    """The built-in Xiangqi (the fast self-check) and a variant with board-dependent conditions
    (the scanning one): the same best move, score, depth and node count as the plain rules (and
    the quiescence's captures picked from the whole move list), on positions from random games,
    each read afresh from its position string for each engine."""
    fast_engine, plain_engine = custom(), PlainSelfCheck()
    compared = 0
    for seed in (1, 2, 3):
        for state in random_states(fast_engine, variant, seed, 30)[4::5]:
            if fast_engine.outcome(state) is not None:
                continue
            text = fast_engine.position(state)
            fast_state = fast_engine.start(variant, position=text)
            plain_state = plain_engine.start(variant, position=text)
            fast = searched(make_adapter(fast_engine, fast_state))
            assert fast == searched(make_adapter(plain_engine, plain_state)), text
            compared += 1
    assert compared >= 12


def test_the_pair_adapter_keys_moves_and_captures_follow_the_engine() -> None:
    engine = custom()
    states = random_states(engine, "xiangqi", 3, 40)
    adapter = CustomAdapter(engine, states[0])
    for before, after in itertools.pairwise(states):
        pairs = adapter.moves()
        assert [adapter.notation(m) for m in pairs] == engine.legal_moves(before)
        assert [adapter.notation(m) for m in adapter.noisy_moves()] == [
            m for m in engine.legal_moves(before) if by_notation(engine, before).is_noisy(m)
        ]
        move = next(m for m in pairs if adapter.notation(m) == after.last_move)
        adapter.push(move)
        assert engine.position(adapter.state) == engine.position(after)
        assert adapter.key() == make_adapter(engine, after).key()


def test_a_custom_adapter_wants_the_custom_engine() -> None:
    from engines.search.evaluate import custom as module

    chess = engines.get("chess")
    with pytest.raises(TypeError, match="custom engine, not 'chess'"):
        module.make_adapter(chess, custom().start("xiangqi"))


@pytest.mark.skipif(not XIANGQI_MAP.exists(), reason="JBQ maps not available")
def test_the_jbq_xiangqi_analysis_finds_the_general_taken() -> None:
    """A red chariot on the open file of the blue general takes it (JBQ: the game is won)."""
    engine = custom()
    variant = engine.load_file(XIANGQI_MAP)
    rows = [".,.,.,.,2,.,.,.,."] + [",".join("." * 9)] * 3 + [".,.,.,.,7,.,.,.,."]
    rows += [",".join("." * 9)] * 4 + [".,.,.,1,.,.,.,.,."]
    state = engine.start(variant, position=f"{variant};first;0,0;{'/'.join(rows)}")
    evals = analyse(engine, [state, engine.play(state, "5,5-1,5")])
    assert (evals[0].best, evals[0].mate) == ("5,5-1,5", 1)
    assert (evals[1].result, evals[1].mate) == ("first", 0)
    assert judge("custom", evals, ["5,5-1,5"])[0].verdict is None
