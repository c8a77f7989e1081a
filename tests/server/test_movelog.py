"""A room's notes and clock history: flat arrays that read back as what was recorded."""

from __future__ import annotations

import pytest

from server.movelog import ClockHistory, MoveNote, MoveNotes
from server.testing import HallDriver


def test_notes_read_back_as_recorded_and_truncate() -> None:
    notes = MoveNotes()
    written = [
        MoveNote("first", 59_000, 12, "2026-11-22T13:27:57Z"),
        MoveNote("second", None, 0, "2026-11-22T13:27:57Z"),
        MoveNote("first", -1, 3, "not a time"),  # kept as given
        MoveNote("second", 0, 2**40, "2026-02-30T00:00:00Z"),  # no such day: kept as given
    ]
    for note in written:
        notes.append(note)
    assert list(notes) == written
    assert notes[-1] == written[-1]
    assert notes.sides() == {"first", "second"}
    assert (notes.last_by("first"), notes.last_by("second")) == (2, 3)
    notes.truncate(1)
    assert list(notes) == written[:1]
    assert notes.last_by("second") is None
    notes.append(written[3])
    assert list(notes) == [written[0], written[3]]
    with pytest.raises(IndexError):
        notes[2]


def test_clock_history_reads_back_copies() -> None:
    history = ClockHistory({"first": 60_000, "second": 60_000}, {"first": False, "second": False})
    history.append({"first": 58_000, "second": 60_000}, {"first": True, "second": False})
    remaining, moved = history[-1]
    assert (remaining, moved) == (
        {"first": 58_000, "second": 60_000},
        {"first": True, "second": False},
    )
    remaining["first"] = 0  # a copy: the history is unchanged
    assert history[1][0]["first"] == 58_000
    history.truncate(1)
    assert len(history) == 1
    assert history[0] == ({"first": 60_000, "second": 60_000}, {"first": False, "second": False})


def test_a_finished_room_keeps_its_moves_and_notes_but_only_two_states() -> None:
    d = HallDriver()
    a, b, code = d.table(clock={"initial": 60, "increment": 1})
    played = ["0,0", "0,1", "1,0", "1,1", "2,0", "2,1"]
    for ply, move in enumerate(played):
        d.move((a, b)[ply % 2], code, move)
    room = d.hall.rooms[code]
    assert d.request(a, type="resign", room=code)["type"] == "over"
    assert room.status == "over"
    assert room.moves == played
    assert [note.by for note in room.notes] == ["first", "second"] * 3
    assert len(room.history) == len(played) + 1
    assert set(room.states._kept) == {0, len(played)}
    assert room.engine.position(room.states[3]) == room.engine.position(
        room.engine.play(room.engine.play(room.engine.play(room.states[0], "0,0"), "0,1"), "1,0")
    )
