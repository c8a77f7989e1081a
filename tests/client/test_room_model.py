"""The client's mirror of a room follows the server's messages and survives bad ones."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from client.demo import demo_room
from client.room_model import RoomModel, clock_text, format_clock


def model_after(snapshot: dict[str, Any], now: float = 100.0) -> RoomModel:
    """A model that has seen ``snapshot``."""
    model = RoomModel(room=snapshot["room"])
    model.apply(snapshot, now)
    return model


def test_snapshot_rebuilds_the_engine_state() -> None:
    """The board state is replayed from the start and the moves."""
    snap = demo_room("hexgomoku", plies=5)
    model = model_after(snap)
    assert model.state is not None and model.state.ply == 5
    assert model.last_points() == (snap["moves"][-1],)
    assert model.engine_error == ""


def test_moved_appends_and_stale_copies_are_ignored() -> None:
    """A move for the current ply is played; a repeat is ignored; a gap asks for a resync."""
    model = model_after(demo_room("hexgomoku", plies=2))
    clocks = {"first": 1000, "second": 2000, "move": None, "running": "first"}
    model.apply({"type": "moved", "room": "K7QD", "ply": 2, "move": "3,3", "by": "first",
                 "turn": "second", "clocks": clocks, "position": "x"}, 101.0)
    assert model.moves[-1] == "3,3" and model.state.ply == 3
    model.apply({"type": "moved", "room": "K7QD", "ply": 2, "move": "3,3"}, 101.0)
    assert len(model.moves) == 3
    model.apply({"type": "moved", "room": "K7QD", "ply": 7, "move": "4,3"}, 101.0)
    assert model.needs_resync and len(model.moves) == 3


def test_clocks_count_down_locally_and_stop_at_zero() -> None:
    """Only the running side's clock moves between server messages, once that side has moved
    (before its first move the server does not count it: an abort deadline runs instead)."""
    waiting = model_after(demo_room("chess", plies=0))
    assert waiting.remaining_ms("first", 102.5) == waiting.remaining_ms("first", 100.0)
    model = model_after(demo_room("chess", plies=2))
    first, second = model.remaining_ms("first", 100.0), model.remaining_ms("second", 100.0)
    assert first is not None
    assert model.remaining_ms("first", 102.5) == first - 2500
    assert model.remaining_ms("second", 102.5) == second
    assert model.remaining_ms("first", 10_000.0) == 0


def test_over_freezes_clocks_and_records_the_result() -> None:
    """``over`` stops the clock and keeps result, reason and scores."""
    model = model_after(demo_room("chess", plies=2))
    model.apply({"type": "over", "room": "K7QD", "game_id": "g2", "result": "second",
                 "reason": "resign", "position": "?"}, 105.0)
    assert (model.status, model.result, model.reason) == ("over", "second", "resign")
    assert model.remaining_ms("first", 200.0) == model.remaining_ms("first", 105.0)
    assert model.legal_moves() == []


def test_offers_presence_and_chat() -> None:
    """Offers wait for an answer, presence flips connection, chat lines are kept."""
    model = model_after(demo_room("chess", plies=2))
    line = model.apply({"type": "offer", "room": "K7QD", "kind": "draw", "by": "second"}, 1.0)
    assert line == "Bob offers a draw."
    assert model.pending_offer() == {"kind": "draw", "by": "second"}
    model.apply({"type": "presence", "room": "K7QD", "seat": "second", "connected": False,
                 "spectators": 9}, 1.0)
    assert (model.seats["second"] or {}).get("connected") is False and model.spectators == 9
    model.apply({"type": "chat", "room": "K7QD", "from": "Bob", "role": "second", "text": "hi"}, 1)
    assert model.chat[-1].text == "hi"


def test_messages_for_other_rooms_are_ignored() -> None:
    """Nothing changes for a message naming another room."""
    model = model_after(demo_room("chess", plies=2))
    model.apply({"type": "over", "room": "OTHER", "result": "first"}, 1.0)
    assert model.status == "playing"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                  max_size=4),
    max_leaves=12,
)
fields = st.sampled_from(["room", "type", "ply", "move", "moves", "clocks", "seats", "result",
                          "status", "start", "game", "variant", "offers", "kind", "by", "you",
                          "scores", "spectators", "seat", "connected", "text", "turn"])
types = st.sampled_from(["room", "moved", "over", "presence", "offer", "answer", "chat", "x"])


@settings(max_examples=120, deadline=None)
@given(kind=types, extra=st.dictionaries(fields, json_values, max_size=8))
def test_no_message_crashes_the_model(kind: str, extra: dict[str, Any]) -> None:
    """Any mix of field values is absorbed without an exception."""
    model = model_after(demo_room("hexgomoku", plies=3))
    message = {**extra, "type": kind, "room": "K7QD"}
    model.apply(message, 5.0)
    model.remaining_ms("first", 6.0)
    model.move_ms(6.0)
    model.legal_moves()
    model.pending_offer()


def test_clock_words() -> None:
    """Clock settings and remaining times in words."""
    assert clock_text({"initial": 600, "increment": 5}) == "10+5"
    assert clock_text({"per_move": 30}) == "30 s/move"
    assert clock_text(None) == "untimed"
    assert format_clock(3_723_000) == "1:02:03"


def test_a_clock_face_runs_down_without_a_jump_into_tenths() -> None:
    """Seen every 0.1 s from 12 s to 8 s, the face never shows more time than is left and never
    drops by more than the 0.1 s that passed plus the second it rounds off: 0:11, 0:10, then
    9.9 (it read 0:11 until 10.0 s were left, so 0:10 never showed and 0:11 jumped to 9.9)."""

    def seconds(face: str) -> float:
        if ":" in face:
            minutes, secs = face.split(":")
            return int(minutes) * 60 + int(secs)
        return float(face)

    shown = [(ms, seconds(format_clock(ms))) for ms in range(12_000, 7_900, -100)]
    assert all(value <= ms / 1000 for ms, value in shown)
    assert all(before - after <= 1.0 for (_, before), (_, after) in itertools.pairwise(shown))
    assert format_clock(10_500) == "0:10" and format_clock(9_999) == "9.9"
    assert format_clock(300_000) == "5:00" and format_clock(299_400) == "4:59"


def test_a_record_catches_up_only_a_game_it_continues() -> None:
    """``apply_record`` adds the moves the client missed and the end; a record of some other
    game (its moves do not start with ours) or without an end leaves the room open."""
    snap = demo_room("hexgomoku", plies=2)
    model = model_after(snap)
    known = list(model.moves)
    assert not model.apply_record({"moves": ["9,9", *known], "result": "first"}, 100.0)
    assert (model.moves, model.status, model.closed) == (known, snap["status"], False)
    assert not model.apply_record({"moves": [*known, "3,3"], "result": None, "reason": None}, 100.0)
    assert model.moves == [*known, "3,3"] and model.status != "over"
    assert model.apply_record({"moves": [*known, "3,3"], "result": "second", "reason": "resign"},
                              100.0)
    assert (model.status, model.result, model.reason, model.closed) == (
        "over", "second", "resign", True)
    assert model.state is not None and model.state.ply == 3


def test_a_snapshot_answering_our_request_starts_the_chat_over() -> None:
    """The server follows the snapshot answering our join (it carries ``re``), and the one a
    hello naming the room in ``resumed`` brings, with the room's chat lines: the chat starts
    over there, so no line shows twice. Other snapshots (a takeback, the end) keep it."""

    def line(text: str) -> dict[str, Any]:
        return {"type": "chat", "room": "K7QD", "from": "ann", "role": "first", "text": text}

    def texts() -> list[str]:
        return [kept.text for kept in model.chat]

    snapshot = demo_room("chess", plies=2)
    model = model_after(snapshot)
    for text in ("hi", "gl"):
        model.apply(line(text), 100.0)
    model.apply(snapshot, 101.0)
    assert texts() == ["hi", "gl"]
    model.apply({**snapshot, "re": 7}, 102.0)
    assert texts() == []
    for text in ("hi", "gl"):
        model.apply(line(text), 102.0)
    assert texts() == ["hi", "gl"]

    model.apply({"type": "welcome", "player": "p1", "resumed": ["X1"]}, 103.0)
    model.apply(snapshot, 103.0)
    assert texts() == ["hi", "gl"]  # the hello resumed another room
    model.apply({"type": "welcome", "player": "p1", "resumed": ["K7QD"]}, 104.0)
    model.apply(snapshot, 104.0)
    assert texts() == []
    for text in ("hi", "gl", "back"):
        model.apply(line(text), 104.0)
    model.apply(snapshot, 105.0)  # only the first snapshot after the hello
    assert texts() == ["hi", "gl", "back"]


def test_a_chat_line_keeps_its_speakers_id_or_takes_the_seats() -> None:
    """A line's ``player`` is kept; a player's line from an older server (no ``player``) takes
    the id of the seat it came from; a spectator's such line has none."""
    m = RoomModel(room="R1")
    m.apply(demo_room("chess", plies=0, room="R1"), 0.0)
    seat_id = (m.seats["second"] or {})["player"]
    line = {"type": "chat", "room": "R1", "from": "Bob", "role": "second", "text": "hi"}
    m.apply({**line, "player": "p-own"}, 0.0)
    m.apply(line, 0.0)
    m.apply({**line, "role": "spectator", "from": "Eve"}, 0.0)
    assert [c.player for c in m.chat] == ["p-own", seat_id, ""]


def test_a_player_who_drops_during_the_game_is_away_not_gone() -> None:
    """A player cannot leave a game in progress (the server refuses ``leave``), so a
    ``presence`` with ``connected: false`` then means the connection dropped: the notice says
    "away", as the player's card does, not that the player left the room; after the end the
    player may really have left."""
    model = model_after(demo_room("chess", plies=2))
    gone = {"type": "presence", "room": "K7QD", "seat": "second", "connected": False,
            "spectators": 0}
    assert model.apply(gone, 1.0) == "Bob is away."
    assert model.apply({**gone, "connected": True}, 1.0) == "Bob is back."
    model.apply({"type": "over", "room": "K7QD", "game_id": "g-demo-1", "result": "first",
                 "reason": "resignation", "position": "?"}, 2.0)
    assert model.apply(gone, 3.0) == "Bob left the room."


def test_a_custom_variant_only_the_server_knows_is_learned_from_variant_info() -> None:
    """A server started with ``--variants DIR`` (a JBQ map) runs in another process: this
    client's engine has never heard of the variant, and the room said "Cannot follow this
    game: position names unknown variant 'standard-7x7'" with an empty board. The snapshot's
    ``variant_info`` is there so any client can follow it: the model registers it."""
    import engines

    snapshot = demo_room("custom", plies=2, variant="xiangqi")
    info = {**snapshot["variant_info"], "id": "xiangqi-from-afar", "name": "Far Xiangqi"}
    custom = engines.get("custom")
    assert "xiangqi-from-afar" not in {v.id for v in custom.variants()}
    start = (snapshot["start"] or "").replace("xiangqi;", "xiangqi-from-afar;", 1) or None
    model = model_after({**snapshot, "variant": "xiangqi-from-afar", "variant_info": info,
                         "start": start, "position": start})
    assert model.engine_error == ""
    assert model.state is not None and model.moves == snapshot["moves"]
    assert model.legal_moves()
