"""Ratings in the room: beside each player's name ("Alice 1523", "1500?" while provisional)
and their change at the end ("+12"), in the player cards and the result panel."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from client.demo import demo_room
from client.room_model import RoomModel
from client.scenes.result import ResultPanel, ratings_line
from client.scenes.room_panel import card_name

RATINGS = {"first": {"before": 1500, "after": 1512}, "second": {"before": 1500, "after": 1488}}


def _rated(rd_first: int = 60, rd_second: int = 200, status: str = "playing") -> dict[str, Any]:
    snap = demo_room("chess", status=status)
    snap["seats"]["first"].update(rating=1523, rd=rd_first)
    snap["seats"]["second"].update(rating=1500, rd=rd_second)
    return snap


def _model(snap: dict[str, Any]) -> RoomModel:
    model = RoomModel(room=snap["room"])
    model.apply(snap, 100.0)
    return model


def test_a_rating_is_shown_with_a_question_mark_while_provisional() -> None:
    """RD above 110 is provisional ("1500?"); a bot or an older server's seat shows none."""
    model = _model(_rated())
    assert (model.rating_text("first"), model.rating_text("second")) == ("1523", "1500?")
    snap = _rated(rd_first=110)
    snap["seats"]["second"].update(rating=None, rd=None, bot=True)
    model = _model(snap)
    assert (model.rating_text("first"), model.rating_text("second")) == ("1523", "")
    assert card_name(model, "first") == "Alice 1523"
    assert card_name(model, "second") == "Bob"
    del snap["seats"]["first"]["rating"]
    assert _model(snap).rating_text("first") == ""


def test_the_change_comes_with_over_and_goes_with_the_next_game() -> None:
    """``over.ratings`` gives "+12" / "-12" (an even game "±0"); a snapshot of the finished
    room keeps it; the rematch's snapshot (playing) has none."""
    model = _model(_rated())
    assert model.rating_change("first") == ""
    model.apply({"type": "over", "room": "K7QD", "game_id": "g1", "result": "first",
                 "reason": "resign", "position": "x", "ratings": RATINGS}, 101.0)
    assert (model.rating_change("first"), model.rating_change("second")) == ("+12", "-12")
    snap = _rated(status="over")
    snap["ratings"] = RATINGS
    model.apply(snap, 102.0)
    assert model.rating_change("second") == "-12"
    even = {"first": {"before": 1500, "after": 1500}, "second": RATINGS["second"]}
    model.apply({**snap, "ratings": even}, 103.0)
    assert model.rating_change("first") == "±0"
    model.apply(_rated(), 104.0)
    assert model.rating_change("first") == ""
    model.apply({"type": "over", "room": "K7QD", "game_id": "g2", "result": None,
                 "reason": "aborted", "position": "x", "ratings": None}, 105.0)
    assert model.rating_change("first") == ""


def test_the_result_line_names_both_changes() -> None:
    """The result panel's ratings line: each player, the new rating and its change."""
    model = _model(_rated(status="over"))
    assert ratings_line(model) == ""
    model.apply({**_rated(status="over"), "ratings": RATINGS}, 101.0)
    assert ratings_line(model) == "Ratings:  Alice 1512 (+12)   ·   Bob 1488 (-12)"


def test_a_rated_room_and_its_result_render(ui: Any, tmp_path: Path) -> None:
    """The room with ratings in the player cards, then its end with the result panel; the
    pictures are copied to /tmp/ratings-*.png to look at."""
    room = ui.open_room(_rated())
    ui.shoot("ratings-room")
    assert card_name(room.model, "second") == "Bob 1500?"
    ui.message({"type": "over", "room": "K7QD", "game_id": "g1", "result": "first",
                "reason": "resign", "position": room.model.start, "ratings": RATINGS})
    snap = _rated(status="over")
    snap["seats"]["first"].update(rating=1512)
    snap["seats"]["second"].update(rating=1488)
    ui.message({**snap, "result": "first", "reason": "resign", "ratings": RATINGS})
    ui.app.step(0.0)
    assert any(isinstance(scene, ResultPanel) for scene in ui.app.stack)
    assert card_name(room.model, "first") == "Alice 1512 +12"
    ui.shoot("ratings-over")
    for name in ("ratings-room", "ratings-over"):
        shutil.copy(tmp_path / f"{name}.png", f"/tmp/{name}.png")
