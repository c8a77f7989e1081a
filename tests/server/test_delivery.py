"""Outputs leave per connection in the order they were made, each only after its own write."""

from __future__ import annotations

import json
import logging
import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import Ok
from protocol.messages import Moved
from server.delivery import DeliveryOrder, Pending, first_sends_first
from server.net import running_server
from server.outputs import Outputs, SaveMove
from server.testing import HallDriver


class Recorder:
    def __init__(self) -> None:
        self.sent: list[str] = []
        self.order: DeliveryOrder[str] = DeliveryOrder(self.sent.append)


def test_an_output_with_nothing_in_its_way_goes_out_at_once() -> None:
    r = Recorder()
    assert r.order.add({1, 2}, "a", blocked=False) is None
    assert r.sent == ["a"]
    assert r.order.waiting == 0


def test_an_output_waits_for_its_write() -> None:
    r = Recorder()
    pending = r.order.add({1}, "a", blocked=True)
    assert pending is not None and r.sent == [] and r.order.waiting == 1
    r.order.unblock(pending)
    assert r.sent == ["a"] and r.order.waiting == 0


def test_a_later_output_waits_for_an_earlier_one_to_the_same_connection_only() -> None:
    r = Recorder()
    first = r.order.add({1, 2}, "to 1 and 2", blocked=True)
    assert r.order.add({2}, "to 2", blocked=False) is not None  # its write is done, 2 is not
    assert r.order.add({3}, "to 3", blocked=False) is None
    assert r.sent == ["to 3"]
    assert first is not None
    r.order.unblock(first)
    assert r.sent == ["to 3", "to 1 and 2", "to 2"]


def test_a_room_key_links_outputs_to_different_connections() -> None:
    """A spectator's snapshot shares no connection with the move before it, only the room."""
    r = Recorder()
    move = r.order.add({1, 2, "room"}, "move", blocked=True)
    assert r.order.add({3, "room"}, "snapshot to 3", blocked=False) is not None
    assert r.order.add({4, "other"}, "elsewhere", blocked=False) is None
    assert move is not None
    r.order.unblock(move)
    assert r.sent == ["elsewhere", "move", "snapshot to 3"]
    assert r.order.waiting == 0 and not r.order._tails


def test_a_chain_goes_out_in_order_when_its_head_is_written_last() -> None:
    r = Recorder()
    first = r.order.add({1}, "1", blocked=True)
    second = r.order.add({1}, "2", blocked=True)
    r.order.add({1}, "3", blocked=False)
    assert first is not None and second is not None
    r.order.unblock(second)
    assert r.sent == []
    r.order.unblock(first)
    assert r.sent == ["1", "2", "3"]


def test_a_long_chain_does_not_recurse() -> None:
    r = Recorder()
    head = r.order.add({1}, "0", blocked=True)
    for n in range(1, 20_000):
        r.order.add({1}, str(n), blocked=False)
    assert head is not None
    r.order.unblock(head)
    assert r.sent == [str(n) for n in range(20_000)]
    assert r.order.waiting == 0


def test_a_failing_delivery_does_not_hold_back_the_ones_behind_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    sent: list[str] = []

    def deliver(payload: str) -> None:
        if payload == "bad":
            raise RuntimeError("socket gone")
        sent.append(payload)

    order: DeliveryOrder[str] = DeliveryOrder(deliver)
    head = order.add({1}, "bad", blocked=True)
    order.add({1}, "good", blocked=False)
    assert head is not None
    with caplog.at_level(logging.ERROR, logger="boardhall.delivery"):
        order.unblock(head)
    assert sent == ["good"]
    assert "delivering an output failed" in caplog.text
    assert order.waiting == 0


def test_on_idle_is_called_when_the_last_output_goes_out() -> None:
    r = Recorder()
    idle: list[int] = []
    r.order.on_idle = lambda: idle.append(r.order.waiting)
    a = r.order.add({1}, "a", blocked=True)
    b = r.order.add({2}, "b", blocked=True)
    assert a is not None and b is not None
    r.order.unblock(a)
    assert idle == []
    r.order.unblock(b)
    assert idle == [0]


@given(
    st.lists(
        st.tuples(st.frozensets(st.integers(0, 4), min_size=1, max_size=3), st.booleans()),
        max_size=40,
    ),
    st.randoms(use_true_random=False),
)
def test_any_interleaving_keeps_per_connection_order(
    outputs: list[tuple[frozenset[int], bool]], rng: random.Random
) -> None:
    r = Recorder()
    written: set[str] = set()
    writes: list[tuple[str, Pending[str]]] = []
    for n, (conns, blocked) in enumerate(outputs):
        pending = r.order.add(conns, str(n), blocked)
        if blocked:
            assert pending is not None
            writes.append((str(n), pending))
        else:
            written.add(str(n))
    rng.shuffle(writes)
    for name, pending in writes:
        written.add(name)
        r.order.unblock(pending)
        assert set(r.sent) <= written  # nothing went out before its write
    assert sorted(r.sent, key=int) == [str(n) for n in range(len(outputs))]
    assert len(r.sent) == len(set(r.sent))
    position = {name: i for i, name in enumerate(r.sent)}
    for conn in range(5):
        mine = [str(n) for n, (conns, _) in enumerate(outputs) if conn in conns]
        assert sorted(mine, key=position.__getitem__) == mine
    assert r.order.waiting == 0


def test_a_move_goes_to_the_opponent_first_then_the_mover_then_the_spectators() -> None:
    """The side whose clock now runs hears of the move before anyone else; one encoding is
    shared by the opponent's and the spectators' copies."""
    d = HallDriver()
    a, b, code = d.table()
    watcher = d.player("wat")
    d.request(watcher, type="join", room=code, role="spectator")
    move = {"type": "move", "room": code, "ply": 0, "move": "0,0", "id": "m"}
    out = d.hall.receive(a, json.dumps(move), d.now, 0)
    moved = [(recipients, m) for recipients, m in out.sends if isinstance(m, Moved)]
    assert [recipients for recipients, _ in moved] == [(b,), (a,), (watcher,)]
    assert moved[0][1] is moved[2][1] and moved[1][1].re == "m"


def test_a_commits_opponents_hear_first_unless_one_has_an_earlier_message() -> None:
    """Three moves committed together: the opponents' copies (1, 3) go before the movers'
    replies and spectators' copies; move C's opponent (2) already has a reply queued, so its
    copy stays behind it."""
    moves = [
        [((1,), "A to 1"), ((2,), "A reply to 2"), ((9,), "A to 9")],
        [((3,), "B to 3"), ((4,), "B reply to 4")],
        [((2,), "C to 2"), ((5,), "C reply to 5")],
    ]
    order = [message for _, message in first_sends_first(moves)]
    assert order == [
        "A to 1",
        "B to 3",
        "A reply to 2",
        "A to 9",
        "B reply to 4",
        "C to 2",
        "C reply to 5",
    ]


@given(
    st.lists(
        st.lists(st.frozensets(st.integers(0, 5), min_size=1, max_size=3), min_size=0, max_size=4),
        max_size=12,
    )
)
def test_first_sends_first_keeps_every_connections_order(
    groups: list[list[frozenset[int]]],
) -> None:
    batches = [[(conns, (n, k)) for k, conns in enumerate(sends)] for n, sends in enumerate(groups)]
    order = first_sends_first(batches)
    flat = [send for sends in batches for send in sends]
    assert sorted(order, key=lambda s: s[1]) == flat  # every send once, nothing made up
    for conn in range(6):
        mine = [message for conns, message in flat if conn in conns]
        assert [message for conns, message in order if conn in conns] == mine
    # a first send whose recipients had no earlier message goes before every later send of the
    # outputs before it
    position = {message: i for i, (_, message) in enumerate(order)}
    seen: set[int] = set()
    for n, sends in enumerate(groups):
        if sends and seen.isdisjoint(sends[0]):
            later = [position[(m, k)] for m in range(n) for k in range(1, len(groups[m]))]
            assert all(position[(n, 0)] < p for p in later)
        for conns in sends:
            seen.update(conns)


async def test_the_server_sends_a_commits_opponents_first(tmp_path: Path) -> None:
    """Two moves written in one loop turn: after their commit, both opponents' copies go out
    before either mover's reply."""
    async with running_server(db=tmp_path / "hall.db") as server:
        sent: list[str] = []
        server._send = lambda sends: sent.extend(text for _, text in sends)  # type: ignore[method-assign]
        for room, opponent, mover in (("A", 11, 12), ("B", 21, 22)):
            out = Outputs(writes=[SaveMove(room, 0, "e4", "first", None, 0, "t", {})])
            out.send((opponent,), Ok(re=f"{room} to opponent"))
            out.send((mover,), Ok(re=f"{room} reply"))
            server._emit(out)
        assert sent == []  # nothing before the commit
        await server.storage.submit([])  # the same turn's commit
        assert [json.loads(text)["re"] for text in sent] == [
            "A to opponent",
            "B to opponent",
            "A reply",
            "B reply",
        ]
