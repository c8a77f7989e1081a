"""Position strings of every game (RULES.md sections 1-5) under mutation: refused or exact.

Valid position strings (the start and positions of seeded random games) are edited at random,
with each game's own characters. An edited string is either refused with ``BadPosition`` (a
reason in words) or read as a position that RULES.md allows (distinct points, the side to move
that the counts or the ply imply, no five yet, no man on its crowning row, ...) and whose
canonical string reads back as the very same position: the same canonical text, side to move and
legal moves. Nothing else may escape.
"""

from __future__ import annotations

import os
import random
import re
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines import registry
from engines.base import BadPosition, Engine
from engines.custom import CustomEngine
from engines.draughts import ENGINE as DRAUGHTS
from engines.hexgomoku import winning_line

GAMES: dict[str, tuple[str | None, str]] = {
    "chess": (None, "pnbrqkPNBRQK12345678/ wb-KQkqabcdefgh0"),
    "draughts": (None, "WBK:,-0123456789 ."),
    "shuqi": (None, "firstsecond;0123456789, "),
    "hexgomoku": (None, "firstsecond;-0123456789, "),
    "custom": ("xiangqi", "xiangqi;firstsecond0123456789,./* "),
    "jbq-map": ("example-5x6", "example-5x6;firstsecond0123456789,./* "),
}
"""Game (or the JBQ map example(5x6), with promotion and neutral counters) -> (variant, the
characters edits draw from)."""
EXAMPLE_MAP = (
    Path(os.environ.get("BOARDHALL_JBQ_MAPS", Path(os.environ["BOARDHALL_SHARED"], "jbq-maps")))
    / "example(5x6).xlsx"
)

HAVE_MAPS = EXAMPLE_MAP.exists()


@cache
def engine_of(game: str) -> Engine:
    """The registered engine, or for ``jbq-map`` a custom engine that has loaded the map."""
    if game != "jbq-map":
        return registry.get(game)
    local = CustomEngine()
    local.load_file(EXAMPLE_MAP)
    return local


@cache
def samples(game: str) -> tuple[str, ...]:
    """The start position and the positions of two seeded random games, every fifth ply."""
    engine = engine_of(game)
    variant = GAMES[game][0]
    found = [engine.position(engine.start(variant))]
    rng = random.Random(f"positions-{game}")
    for _ in range(2):
        state = engine.start(variant)
        for ply in range(60):
            moves = engine.legal_moves(state)
            if not moves:
                break
            state = engine.play(state, rng.choice(moves))
            if ply % 5 == 4:
                found.append(engine.position(state))
    return tuple(found)


_TOKENS = re.compile(r"([ ;:/]+)")
"""What separates the items of a position string (points, squares, rows, fields)."""


@st.composite
def edited(draw: st.DrawFn) -> tuple[str, str]:
    """A game and one of its valid position strings with one to three random edits: a character
    inserted, deleted or replaced, or one item (a point, a square list, a row) copied over
    another, which makes repeated points and wrong counts."""
    game = draw(st.sampled_from([g for g in sorted(GAMES) if g != "jbq-map" or HAVE_MAPS]))
    text = draw(st.sampled_from(samples(game)))
    alphabet = GAMES[game][1]
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(("insert", "delete", "replace", "copy")))
        if kind == "copy":
            parts = _TOKENS.split(text)
            items = range(0, len(parts), 2)
            source, target = draw(st.sampled_from(items)), draw(st.sampled_from(items))
            parts[target] = parts[source]
            text = "".join(parts)
            continue
        at = draw(st.integers(0, len(text)))
        char = draw(st.sampled_from(alphabet))
        if kind == "insert":
            text = text[:at] + char + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + 1 :]
        else:
            text = text[:at] + char + text[at + 1 :]
    return game, text


def holds_the_rules(game: str, state: Any) -> None:
    """What RULES.md requires of every position the game accepts."""
    if game == "chess":
        assert state.board().is_valid()
    elif game == "draughts":
        setup = DRAUGHTS.setup(state)
        white = setup.white_men | setup.white_kings
        black = setup.black_men | setup.black_kings
        assert not white & black and (white or black)
        assert all(s > 5 for s in setup.white_men) and all(s <= 45 for s in setup.black_men)
    elif game == "shuqi":
        assert len(set(state.squares)) == 20
        assert (state.ply % 2 == 0) == (state.turn == "first")
    elif game == "hexgomoku":
        assert not state.black & state.white
        assert len(state.black) - len(state.white) == (0 if state.turn == "first" else 1)
        for stones in (state.black, state.white):
            assert not any(winning_line(stones, p, state.exact5) for p in stones)
    else:
        assert len(state.board) == state.rules.rows * state.rules.cols
        assert all(0 <= n <= 2 for n in state.neutral)


def read_back(engine: Engine, variant: str | None, state: Any) -> str:
    """The canonical string of ``state``, checked to be a fixed point that means the same."""
    canonical: str = engine.position(state)
    again = engine.start(variant, position=canonical)
    assert engine.position(again) == canonical
    assert again.turn == state.turn
    assert sorted(engine.legal_moves(again)) == sorted(engine.legal_moves(state))
    return canonical


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited())
def test_edited_position_strings_are_refused_or_read_exactly(case: tuple[str, str]) -> None:
    """An edited position string is refused with a reason, or means one exact position."""
    game, text = case
    engine = engine_of(game)
    variant = GAMES[game][0]
    try:
        state = engine.start(variant, position=text)
    except BadPosition as exc:
        assert str(exc).strip(), f"{game}: empty reason for {text!r}"
        return
    holds_the_rules(game, state)
    read_back(engine, variant, state)


def test_every_sample_reads_back_as_itself() -> None:
    """The unedited samples (starts and positions of random games) are fixed points."""
    for game in GAMES:
        if game == "jbq-map" and not HAVE_MAPS:
            continue
        engine = engine_of(game)
        for text in samples(game):
            variant = GAMES[game][0]
            assert read_back(engine, variant, engine.start(variant, position=text)) == text
