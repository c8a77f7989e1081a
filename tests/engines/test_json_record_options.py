"""The engines' own JSON record carries the game's options, and ``from_record`` replays under them
(or under the options it is given, for a record without its own): a game played with
``exact5`` or a raised ``max_plies`` reads back to its end instead of "the game is over"."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engines import get
from engines.base import BadOption, BadPosition, RecordInfo

BLACK = ["0,0", "1,0", "2,0", "4,0", "5,0", "3,0"]
WHITE = ["0,3", "-3,5", "2,-4", "-5,1", "4,3", "-2,-2"]
SIX_LINE = tuple(m for pair in zip(BLACK, WHITE, strict=True) for m in pair)
"""Black makes a line of six at ply 11; white plays on at ply 12."""


def played(game: str, moves: tuple[str, ...], options: dict[str, Any]) -> Any:
    """The state after ``moves`` from the start under ``options``."""
    engine = get(game)
    state = engine.start(None, None, options)
    for move in moves:
        state = engine.play(state, move)
    return state


def shuqi_game(plies: int) -> tuple[str, ...]:
    """``plies`` legal number chess moves (random, fixed seed) under ``max_plies`` 600."""
    engine = get("shuqi")
    state, rng, moves = engine.start(None, None, {"max_plies": 600}), random.Random(1), []
    for _ in range(plies):
        state = engine.play(state, rng.choice(engine.legal_moves(state)))
        moves.append(state.last_move)
    return tuple(moves)


@pytest.mark.parametrize(
    ("game", "moves", "options"),
    [
        ("hexgomoku", SIX_LINE, {"exact5": True}),
        ("shuqi", shuqi_game(410), {"max_plies": 600, "home_limit": 30}),
    ],
    ids=["hexgomoku-exact5", "shuqi-max_plies-600"],
)
def test_a_json_record_replays_under_the_options_it_was_played_with(
    game: str, moves: tuple[str, ...], options: dict[str, Any]
) -> None:
    engine = get(game)
    text = engine.record(RecordInfo(variant="standard", start="", moves=moves, options=options))
    assert json.loads(text)["options"] == options
    end = played(game, moves, options)
    assert engine.position(engine.from_record(text)) == engine.position(end)
    assert engine.outcome(engine.from_record(text)) is None


def test_a_json_record_without_options_replays_under_the_given_ones() -> None:
    engine = get("hexgomoku")
    text = json.dumps({"moves": list(SIX_LINE)})
    final = engine.from_record(text, None, {"exact5": True})
    assert engine.position(final) == engine.position(
        played("hexgomoku", SIX_LINE, {"exact5": True})
    )
    with pytest.raises(BadPosition, match="move 12"):
        engine.from_record(text)


def test_a_records_own_options_come_before_the_given_ones() -> None:
    engine = get("hexgomoku")
    text = json.dumps({"moves": list(SIX_LINE), "options": {"exact5": True}})
    assert engine.outcome(engine.from_record(text, None, {"exact5": False})) is None


def test_a_record_only_writes_the_games_own_options() -> None:
    """A server-side option (chess-style ``max_plies`` kept by the room) is not the engine's."""
    engine = get("hexgomoku")
    info = RecordInfo(variant="standard", start="", moves=(), options={"exact5": True, "x": 1})
    assert json.loads(engine.record(info))["options"] == {"exact5": True}


def test_a_position_record_reads_with_the_given_options() -> None:
    """A position string as a record: a line of six is a position under ``exact5``."""
    engine = get("hexgomoku")
    end = engine.position(played("hexgomoku", SIX_LINE, {"exact5": True}))
    assert engine.position(engine.from_record(end, None, {"exact5": True})) == end


def test_bad_record_options_are_a_bad_option_naming_it() -> None:
    engine = get("hexgomoku")
    with pytest.raises(BadOption, match="'exact6'"):
        engine.from_record(json.dumps({"moves": [], "options": {"exact6": True}}))


@pytest.mark.parametrize("game", ["chess", "draughts"])
def test_pgn_and_pdn_records_take_options_and_check_them(game: str) -> None:
    """Chess and draughts have no engine options: an empty set reads, any other is refused."""
    engine = get(game)
    start = engine.position(engine.start())
    record = engine.record(RecordInfo(variant=engine.default_variant(), start=start, moves=()))
    assert engine.position(engine.from_record(record, None, {})) == start
    with pytest.raises(BadOption, match="'exact5'"):
        engine.from_record(record, None, {"exact5": True})
