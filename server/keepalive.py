"""When to ping each connection, and which ones stopped answering (no I/O here).

``websockets`` runs one keepalive task per connection, and each ping leaves a sleeping future, a
timer handle and a timeout behind for ten seconds or more. With thousands of connections those
outlive young garbage collections and pile up in the old generation, which makes the full
collections (and their pauses) come often. One sweep over a table of plain numbers does the same
job: :class:`Keepalive` says which connections are due a ping and which have left one unanswered
for too long; the network layer sends the pings and closes the silent ones.
"""

from __future__ import annotations

import heapq
from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)


class Keepalive(Generic[K]):
    """Ping every connection every ``interval`` seconds; a pong later than ``timeout`` fails it.

    Each call does work in proportion to what it returns, not to the number of connections, so
    the sweep can run often and send a few pings each time rather than bursts.
    """

    def __init__(self, interval: float, timeout: float) -> None:
        if interval <= 0 or timeout <= 0:
            raise ValueError(f"interval and timeout must be positive, not {interval}, {timeout}")
        self.interval = interval
        self.timeout = timeout
        self._next: dict[K, float] = {}
        """When each connection without a ping out is due its next one."""
        self._queue: list[tuple[float, K]] = []
        """A heap of ``(due, conn)``; entries that no longer match ``_next`` are skipped."""
        self._out: dict[K, float] = {}
        """When each unanswered ping went out, oldest first."""

    def __len__(self) -> int:
        return len(self._next) + len(self._out)

    @property
    def tick(self) -> float:
        """How often :meth:`due` and :meth:`silent` should be asked."""
        return min(0.1, self.interval / 4, self.timeout / 4)

    def add(self, conn: K, now: float) -> None:
        """A new connection: its first ping is due one interval from now."""
        self.remove(conn)
        self._schedule(conn, now + self.interval)

    def remove(self, conn: K) -> None:
        """The connection is gone (unknown ones are ignored)."""
        self._next.pop(conn, None)
        self._out.pop(conn, None)

    def due(self, now: float) -> list[K]:
        """Connections to ping now; each is counted as having an unanswered ping from ``now``."""
        found: list[K] = []
        queue = self._queue
        while queue and queue[0][0] <= now:
            when, conn = heapq.heappop(queue)
            if self._next.get(conn) == when:
                del self._next[conn]
                self._out[conn] = now
                found.append(conn)
        return found

    def unanswered(self, conn: K) -> bool:
        """Whether ``conn`` has a ping out that was not answered yet."""
        return conn in self._out

    def answered(self, conn: K, now: float) -> None:
        """The pong came: the next ping is due one interval after the last one went out."""
        sent = self._out.pop(conn, None)
        if sent is not None:
            self._schedule(conn, max(sent + self.interval, now))

    def silent(self, now: float) -> list[K]:
        """Connections whose ping has waited longer than ``timeout``; they are forgotten here."""
        found: list[K] = []
        for conn, sent in self._out.items():
            if now - sent <= self.timeout:
                break
            found.append(conn)
        for conn in found:
            del self._out[conn]
        return found

    def _schedule(self, conn: K, when: float) -> None:
        self._next[conn] = when
        heapq.heappush(self._queue, (when, conn))
