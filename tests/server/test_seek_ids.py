"""Seek ids reach players in the lobby list (``RoomSummary.room``, with ``seek: true``), so one
given where a room is expected gets an error saying what it is, still ``unknown_room``."""

from __future__ import annotations

from server.testing import HallDriver


def _seek(d: HallDriver) -> tuple[int, str]:
    """A player seeking a chess game, and the seek's id as the lobby lists it."""
    seeker = d.player("sam")
    assert d.request(seeker, type="join", game="chess")["type"] == "queued"
    listed = d.request(d.player("lou"), type="list")["rooms"]
    assert [r["seek"] for r in listed] == [True]
    return seeker, listed[0]["room"]


def test_watching_a_seek_says_it_is_a_seek_waiting_to_be_matched() -> None:
    d = HallDriver()
    _, seek = _seek(d)
    error = d.request(d.player("ann"), type="join", room=seek, role="spectator")
    assert error["type"] == "error" and error["code"] == "unknown_room"
    assert error["room"] == seek
    assert "seek waiting to be matched, not a room" in error["message"]


def test_a_room_message_naming_a_seek_says_it_is_a_seek() -> None:
    d = HallDriver()
    _, seek = _seek(d)
    error = d.request(d.player("ann"), type="chat", room=seek, text="hi")
    assert error["code"] == "unknown_room" and "seek waiting to be matched" in error["message"]


def test_joining_a_seek_already_matched_says_the_seek_is_gone() -> None:
    d = HallDriver()
    _, seek = _seek(d)
    assert d.request(d.player("bob"), type="join", room=seek)["type"] == "room"  # matched
    error = d.request(d.player("ann"), type="join", room=seek)
    assert error["code"] == "unknown_room"
    assert "seek no longer open" in error["message"] and "not a room" in error["message"]


def test_an_unknown_room_code_is_still_just_no_room() -> None:
    d = HallDriver()
    error = d.request(d.player("ann"), type="join", room="abcde", role="spectator")
    assert (error["code"], error["message"]) == ("unknown_room", "no room 'abcde'")
