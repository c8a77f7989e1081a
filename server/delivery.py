"""The order outputs leave in: each waits for its own storage write and for every earlier output
still pending for one of its connections, never for unrelated connections. A "connection" here is
any hashable key: the I/O layer also passes the code of the room an output concerns (and a key of
the lobby list), so whoever is told about a room (a spectator who just came, say) hears nothing
before what was made durable earlier in that room.

Sans-I/O: the caller says what blocks an output and reports each blocker's end with
:meth:`DeliveryOrder.unblock`; nothing here awaits. A waiting output is one small object, not a
task with its coroutine, context and callbacks (at full speed hundreds wait for each group
commit, and every object they keep is walked by the young garbage collection).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Hashable, Iterable, Sequence
from typing import Generic, TypeVar

log = logging.getLogger("boardhall.delivery")

P = TypeVar("P")


class Pending(Generic[P]):
    """An output waiting to go out."""

    __slots__ = ("blockers", "conns", "followers", "payload")

    def __init__(self, payload: P, conns: frozenset[Hashable]) -> None:
        self.payload = payload
        self.conns = conns
        self.blockers = 0
        """Earlier outputs and writes still in the way."""
        self.followers: list[Pending[P]] = []
        """Later outputs waiting for this one."""


class DeliveryOrder(Generic[P]):
    """Releases outputs to ``deliver`` in the order above."""

    def __init__(self, deliver: Callable[[P], None]) -> None:
        self._deliver = deliver
        self._tails: dict[Hashable, Pending[P]] = {}
        self.waiting = 0
        """Outputs not yet delivered."""
        self.on_idle: Callable[[], None] | None = None
        """Called whenever the last waiting output goes out."""

    def add(self, conns: Iterable[Hashable], payload: P, blocked: bool) -> Pending[P] | None:
        """Deliver ``payload`` for ``conns`` now, or return it pending when ``blocked`` (its
        write is not durable yet: call :meth:`unblock` once it is) or when an earlier output
        to one of ``conns`` is still waiting."""
        targets = frozenset(conns)
        tails = self._tails
        previous = {tails[c] for c in targets if c in tails}
        if not blocked and not previous:
            self._deliver_one(payload)
            return None
        pending = Pending(payload, targets)
        pending.blockers = len(previous) + blocked
        for earlier in previous:
            earlier.followers.append(pending)
        for conn in targets:
            tails[conn] = pending
        self.waiting += 1
        return pending

    def unblock(self, pending: Pending[P]) -> None:
        """One blocker of ``pending`` is gone (its write is durable): deliver it when it was the
        last, then whatever waited only for it, and so on."""
        ready = [pending]
        while ready:
            current = ready.pop()
            current.blockers -= 1
            if current.blockers:
                continue
            for conn in current.conns:
                if self._tails.get(conn) is current:
                    del self._tails[conn]
            self.waiting -= 1
            self._deliver_one(current.payload)
            ready.extend(current.followers)
            current.followers = []
        if not self.waiting and self.on_idle is not None:
            self.on_idle()

    def _deliver_one(self, payload: P) -> None:
        try:
            self._deliver(payload)
        except Exception:  # one failed delivery must not hold back the ones behind it
            log.exception("delivering an output failed")


R = TypeVar("R", bound=Collection[int])
S = TypeVar("S")


def first_sends_first(batches: Sequence[Sequence[tuple[R, S]]]) -> list[tuple[R, S]]:
    """The sends of several outputs released together, each output's first send moved ahead of
    the later sends of the outputs before it, unless one of its recipients still has an earlier
    message to get.

    ``batches`` holds each output's ``(recipients, message)`` sends in order. A move's first send
    is its opponent's copy, so the opponent of every move committed in one turn hears of it
    before the movers' replies and the spectators' copies go out; every connection still gets
    its own messages in the order they were made.
    """
    early: list[tuple[R, S]] = []
    late: list[tuple[R, S]] = []
    waiting: set[int] = set()  # connections with a message in ``late``
    for sends in batches:
        if not sends:
            continue
        first = sends[0]
        if waiting.isdisjoint(first[0]):
            early.append(first)
        else:
            late.append(first)
            waiting.update(first[0])
        for send in sends[1:]:
            late.append(send)
            waiting.update(send[0])
    return early + late
