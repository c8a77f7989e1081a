"""The hall's timer heap stays bounded under many timed moves (sans-I/O, injected clock).

Every timed move changes its room's deadline and pushes a heap entry; the entry it replaces
must not pile up until its old deadline passes, or a busy server holds one entry per move for
as long as its clocks run (hours with long clocks). Flags must still fire on time.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from bench.scripts import playout
from server.config import ServerConfig
from server.hall import Hall
from server.outputs import Outputs


def _send(hall: Hall, conn: int, now: float, **fields: Any) -> Outputs:
    return hall.receive(conn, json.dumps(fields), now)


def _replies(out: Outputs) -> list[dict[str, Any]]:
    return [json.loads(message.model_dump_json(by_alias=True)) for _, message in out.sends]


def _table(hall: Hall, first: int, second: int, now: float, clock: dict[str, int]) -> str:
    for conn in (first, second):
        hall.connect(conn, "127.0.0.1", now)
        _send(hall, conn, now, type="hello", name=f"p{conn}", protocol=1)
    created = _replies(
        _send(hall, first, now, type="create", game="hexgomoku", color="first", clock=clock, id="c")
    )
    code = next(r["room"] for r in created if r.get("re") == "c")
    _send(hall, second, now, type="join", room=code)
    return code


def test_the_timer_heap_stays_bounded_while_timed_games_are_played() -> None:
    """2,000+ timed moves over 20 rooms leave at most a few entries per room in the heap."""
    hall = Hall(ServerConfig(messages_per_second=10**6))
    now = 1000.0
    rooms = []
    for t in range(20):
        code = _table(hall, 2 * t + 1, 2 * t + 2, now, {"initial": 3600, "increment": 5})
        rooms.append((code, 2 * t + 1, 2 * t + 2, playout("hexgomoku", seed=t, max_plies=120)))
    largest = 0
    moved = 0
    for ply in range(120):
        for code, first, second, script in rooms:
            if ply >= len(script.moves) or (script.over and ply == len(script.moves) - 1):
                continue
            now += 0.01
            conn = first if script.sides[ply] == "first" else second
            out = _send(hall, conn, now, type="move", room=code, ply=ply, move=script.moves[ply])
            assert any(r["type"] == "moved" for r in _replies(out))
            moved += 1
            largest = max(largest, len(hall._wakes))
    assert moved > 1000
    assert largest <= 2 * len(hall.rooms) + 64 + 1, (largest, len(hall.rooms), moved)


@pytest.mark.parametrize("moves", [3, 400])
def test_a_flag_still_fires_after_many_moves(moves: int) -> None:
    """Per-move clocks: after many moves elsewhere, the last deadline of a room still flags it."""
    hall = Hall(ServerConfig(messages_per_second=10**6))
    now = 5000.0
    code = _table(hall, 1, 2, now, {"per_move": 20})
    other = _table(hall, 3, 4, now, {"initial": 3600})
    script = playout("hexgomoku", seed=3, max_plies=120)
    busy = playout("hexgomoku", seed=4, max_plies=120)
    for ply in range(2):
        conn = 1 if script.sides[ply] == "first" else 2
        _send(hall, conn, now, type="move", room=code, ply=ply, move=script.moves[ply])
    for ply in range(min(moves, len(busy.moves) - 1)):
        now += 0.05
        conn = 3 if busy.sides[ply] == "first" else 4
        _send(hall, conn, now, type="move", room=other, ply=ply, move=busy.moves[ply])
    for k in range(moves // 100):
        # more pushes than rooms: moves in fresh rooms, so a heap without compaction grows
        extra = _table(hall, 90 + k, 190 + k, now, {"initial": 3600})
        for ply, move in enumerate(busy.moves[:60]):
            conn = 90 + k if busy.sides[ply] == "first" else 190 + k
            now += 0.01
            _send(hall, conn, now, type="move", room=extra, ply=ply, move=move)
    wake = hall.next_wake()
    assert wake is not None
    fired = [r for out in hall.tick(now + 60.0) for r in _replies(out)]
    overs = [r for r in fired if r["type"] == "over" and r["room"] == code]
    assert overs and overs[0]["reason"] == "timeout", fired[:5]
