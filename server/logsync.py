"""Makes a file durable on a thread of its own, so the event loop never waits for the disk.

The storage's writer commits without syncing (``synchronous=OFF``, and it never checkpoints): the
transaction is in the write-ahead log and consistent, but maybe not yet on the disk.
:class:`LogSyncer` then ``fdatasync``s the log file (any descriptor of a file syncs all of its
data) on its thread and reports on the event loop, so whatever waits for the commit goes out only
once it is durable: the promise of ``synchronous=FULL`` without the loop waiting for the sync.
Requests that arrive while a sync runs are covered together by the next one.
"""

from __future__ import annotations

import asyncio
import os
import queue
import threading
from collections.abc import Callable

Synced = Callable[[int, OSError | None], None]
"""Told ``(number, error)`` on the event loop: every request up to ``number`` is durable
(``error`` None), or the sync that covered them failed."""


def _sync(fd: int) -> None:
    """``fdatasync``, or ``fsync`` where there is none (macOS, Windows), as SQLite does."""
    sync = getattr(os, "fdatasync", None) or os.fsync
    sync(fd)


class LogSyncer:
    """Syncs one file on its own thread; see the module doc."""

    def __init__(self, path: str, loop: asyncio.AbstractEventLoop, synced: Synced) -> None:
        self.path = path
        # writable: Windows commits a file only through a handle that may write to it
        self._fd = os.open(path, os.O_RDWR | getattr(os, "O_BINARY", 0))
        self._loop = loop
        self._synced = synced
        self._requests: queue.SimpleQueue[int | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._work, name="boardhall-logsync", daemon=True)
        self._thread.start()
        self.syncs = 0
        """Syncs done (fewer than requests when several waited for one)."""

    def request(self, number: int) -> None:
        """Make everything written so far durable; ``number`` comes back to ``synced``."""
        self._requests.put(number)

    def _work(self) -> None:
        stopping = False
        while not stopping:
            number = self._requests.get()
            if number is None:
                return
            while True:  # one sync covers every request already waiting
                try:
                    later = self._requests.get_nowait()
                except queue.Empty:
                    break
                if later is None:
                    stopping = True
                    break
                number = later
            error: OSError | None = None
            try:
                _sync(self._fd)
            except OSError as exc:
                error = exc
            except Exception as exc:  # the thread must live on and report every request
                error = OSError(f"syncing {self.path} failed: {exc!r}")
            self.syncs += 1
            try:
                self._loop.call_soon_threadsafe(self._synced, number, error)
            except RuntimeError:  # the loop is closed: nobody waits any more
                return

    def close(self) -> None:
        """Finish the requests made so far, stop the thread and close the file (blocking: call
        it once nothing waits on the event loop, or from another thread)."""
        self._requests.put(None)
        self._thread.join()
        os.close(self._fd)
