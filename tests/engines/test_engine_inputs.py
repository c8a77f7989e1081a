"""Every engine refuses values that are not text with its own error, never a TypeError."""

from __future__ import annotations

import pytest

from engines import get
from engines.base import BadPosition, IllegalMove

GAMES = ["chess", "draughts", "shuqi", "hexgomoku", "custom"]
NOT_TEXT: list[object] = [None, 5, b"0,0", ["0,0"], 1.5]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("move", NOT_TEXT, ids=repr)
def test_a_move_that_is_not_text_is_an_illegal_move(game: str, move: object) -> None:
    engine = get(game)
    with pytest.raises(IllegalMove, match="text"):
        engine.play(engine.start(), move)  # type: ignore[arg-type]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("position", [5, b"first;;", ["x"], 1.5], ids=repr)
def test_a_position_that_is_not_text_is_a_bad_position(game: str, position: object) -> None:
    engine = get(game)
    with pytest.raises(BadPosition, match=r"text|string"):
        engine.start(position=position)  # type: ignore[arg-type]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("record", [5, b"{}", None], ids=repr)
def test_a_record_that_is_not_text_is_a_bad_position(game: str, record: object) -> None:
    with pytest.raises(BadPosition, match="text"):
        get(game).from_record(record)  # type: ignore[arg-type]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("variant", [5, ["a"], {"id": "x"}], ids=repr)
def test_a_variant_that_is_not_text_is_unknown(game: str, variant: object) -> None:
    """Also from a JSON record, where the variant is whatever the JSON holds."""
    import json

    from engines.base import UnknownVariant

    engine = get(game)
    with pytest.raises(UnknownVariant):
        engine.start(variant)  # type: ignore[arg-type]
    if game != "draughts":  # draughts records are PDN
        with pytest.raises(UnknownVariant):
            engine.from_record(json.dumps({"variant": variant, "moves": []}))


@pytest.mark.parametrize("text", ['{"moves": ["32-28"]}', "{ only a comment }", "{a} *"])
def test_a_pdn_record_without_tags_or_moves_is_refused(text: str) -> None:
    """Comments alone are no game (JSON was read as one comment: the start position)."""
    with pytest.raises(BadPosition, match="no PDN game"):
        get("draughts").from_record(text)
