"""Property: no sequence of client messages (and time passing) breaks a room's invariants."""

from __future__ import annotations

import time
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.base import SIDES
from protocol.messages import CLIENT_FIELDS, CLIENT_TYPES
from server.testing import HallDriver

POINTS = ["0,0", "1,0", "2,0", "3,0", "4,0", "0,1", "1,1", "2,1", "3,1", "9,9", "x"]
KINDS = ["draw", "undo", "rematch", "swap"]

action = st.one_of(
    st.tuples(st.just("move"), st.integers(0, 2), st.sampled_from(POINTS), st.integers(-1, 2)),
    st.tuples(st.just("offer"), st.integers(0, 2), st.sampled_from(KINDS)),
    st.tuples(st.just("answer"), st.integers(0, 2), st.sampled_from(KINDS), st.booleans()),
    st.tuples(
        st.just("simple"),
        st.integers(0, 2),
        st.sampled_from(["resign", "abort", "timeout", "stop", "report", "leave"]),
    ),
    st.tuples(st.just("join"), st.integers(0, 2), st.sampled_from(["player", "spectator"])),
    st.tuples(st.just("chat"), st.integers(0, 2), st.text(max_size=8)),
    st.tuples(st.just("wait"), st.floats(0, 40)),
    st.tuples(st.just("drop"), st.integers(0, 2)),
)


def check_invariants(d: HallDriver) -> None:
    """What must hold for every room after every input."""
    for room in d.hall.rooms.values():
        assert len(room.states) == len(room.moves) + 1 == len(room.notes) + 1
        assert len(room.history) == len(room.moves) + 1
        assert room.state.ply == room.states[0].ply + len(room.moves)
        players = [s.player for s in room.seats.values() if s is not None]
        assert len(players) == len(set(players))
        if room.status == "playing":
            assert room.is_full()
        if room.status == "over":
            assert room.outcome is not None and set(room.offers) <= {"rematch"}
        else:
            assert room.outcome is None and "rematch" not in room.offers
        for kind, by in room.offers.items():
            assert kind in KINDS and by in SIDES
        for side in SIDES:
            assert room.clock.remaining[side] >= 0
        for index, note in enumerate(room.notes):
            assert note.by == room.states[index].turn
        assert room.spectators <= set(d.hall.sessions)
        view = room.view(None, d.now)
        assert view.moves == room.moves


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    clock=st.sampled_from([None, {"per_move": 20}, {"initial": 60, "increment": 1}]),
    actions=st.lists(action, max_size=40),
)
def test_no_message_sequence_breaks_a_room(
    clock: dict[str, int] | None, actions: list[Any]
) -> None:
    """Random moves, offers, answers, claims, joins, chats, waits and drops keep every invariant;
    every message with an id gets exactly one reply and no error is ever ``internal``."""
    d = HallDriver()
    a, b, code = d.table(clock=clock)
    conns = [a, b, d.player("sue")]
    for step in actions:
        kind, *args = step
        if kind == "wait":
            d.advance(args[0])
            check_invariants(d)
            continue
        conn = conns[args[0]]
        if kind == "drop":
            if conn in d.hall.sessions:
                d.drop(conn)
            check_invariants(d)
            continue
        if conn not in d.hall.sessions:
            continue
        room = d.hall.rooms.get(code)
        ply = len(room.moves) if room else 0
        fields: dict[str, Any]
        if kind == "move":
            fields = {"type": "move", "room": code, "ply": max(0, ply + args[2]), "move": args[1]}
        elif kind == "offer":
            fields = {"type": "offer", "room": code, "kind": args[1]}
        elif kind == "answer":
            fields = {"type": "answer", "room": code, "kind": args[1], "accept": args[2]}
        elif kind == "simple":
            fields = {"type": args[1], "room": code}
        elif kind == "join":
            fields = {"type": "join", "room": code, "role": args[1]}
        else:
            fields = {"type": "chat", "room": code, "text": args[1]}
        reply = d.request(conn, **fields)
        assert reply.get("code") != "internal", (fields, reply)
        check_invariants(d)


JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)
FIELDS = sorted({name for names in CLIENT_FIELDS.values() for name in names})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    messages=st.lists(
        st.tuples(
            st.sampled_from(CLIENT_TYPES),
            st.dictionaries(st.sampled_from(FIELDS), JUNK, max_size=4),
            st.booleans(),
        ),
        max_size=25,
    )
)
def test_junk_fields_never_break_the_hall(messages: list[Any]) -> None:
    """Messages of every type with junk field values: one reply each, never ``internal``."""
    d = HallDriver()
    a, b, code = d.table()
    for kind, fields, use_room in messages:
        if use_room:
            fields = {**fields, "room": code}
        reply = d.request(a if len(fields) % 2 else b, type=kind, **fields)
        assert reply.get("code") != "internal", (kind, fields, reply)
        check_invariants(d)


@given(st.lists(st.floats(0, 200_000, allow_nan=False), min_size=1, max_size=40))
def test_wall_time_is_the_formatted_second_whatever_the_order(nows: list[float]) -> None:
    """``Hall.wall`` formats each second once; any sequence of times (forwards, backwards,
    across second boundaries) gives what formatting each time afresh gives."""
    hall = HallDriver().hall
    for now in nows:
        expected = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now + hall.wall_offset))
        assert hall.wall(now) == expected
