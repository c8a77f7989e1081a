"""A rated draughts game's PDN carries both players' ratings before the game as lidraughts
writes them (``WhiteElo``/``BlackElo``, the PGN names; PDN itself names no rating tag), and reads
back through the engine."""

from __future__ import annotations

import engines
from engines.base import RecordInfo


def _info(first_rating: int | None = None, second_rating: int | None = None) -> RecordInfo:
    return RecordInfo(
        variant="international",
        start="",
        moves=("32-28", "19-23"),
        first_name="Ann",
        second_name="Bob",
        first_rating=first_rating,
        second_rating=second_rating,
        result="first",
    )


def test_a_rated_game_s_pdn_has_both_ratings_as_elo_tags() -> None:
    """White (the first player) and Black get their ratings; the record still reads."""
    engine = engines.get("draughts")
    pdn = engine.record(_info(first_rating=1523, second_rating=1480))
    assert '[WhiteElo "1523"]' in pdn and '[BlackElo "1480"]' in pdn, pdn
    state = engine.from_record(pdn, "international")
    assert engine.position(state) == engine.position(engine.from_record(engine.record(_info())))


def test_an_unrated_game_s_pdn_has_no_rating_tags() -> None:
    """Without both ratings (unrated, or a bot's game) there is no Elo tag."""
    engine = engines.get("draughts")
    assert "Elo" not in engine.record(_info())
    assert "Elo" not in engine.record(_info(first_rating=1523))
