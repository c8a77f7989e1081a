"""Makes a file durable away from the event loop, so the loop never waits for the disk.

The storage's writer commits without syncing (``synchronous=OFF``, and it never checkpoints): the
transaction is in the write-ahead log and consistent, but maybe not yet on the disk. A syncer then
``fdatasync``s the log file (any descriptor of a file syncs all of its data) and reports on the
event loop, so whatever waits for the commit goes out only once it is durable: the promise of
``synchronous=FULL`` without the loop waiting for the sync. Requests that arrive while a sync runs
are covered together by the next one.

:class:`HelperSyncer` syncs in a helper process (:mod:`server.synchelper`) that the loop talks to
through two pipes; :class:`LogSyncer` syncs on a thread, for event loops that cannot watch a pipe
(asyncio's on Windows). A thread takes the interpreter's lock to hear of a request, after its sync
and to report, and may wait for the busy loop to let go of it each time; the helper takes nothing
from the server's process (bench/README.md, eleventh session: at a steady 1,000 moves/s each
second's p99 3.0-3.1 ms against 3.6-4.0 ms on a thread).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import queue
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable
from typing import Protocol

from server import synchelper

log = logging.getLogger("boardhall.storage")

PIPELINE = 2
"""Requests a :class:`HelperSyncer` keeps with its helper: the next sync waits in the pipe when
one ends. With one, what was committed while the loop delivered a sync's outputs waited for the
loop to hear of the next sync's end before its own was asked for; at full speed the server then
sat idle at times (bench/README.md, eleventh session)."""

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

    async def aclose(self) -> None:
        """Finish the requests made so far and stop, waiting on another thread."""
        await self._loop.run_in_executor(None, self.close)

    def close(self) -> None:
        """Finish the requests made so far, stop the thread and close the file (blocking: call
        it once nothing waits on the event loop, or from another thread)."""
        self._requests.put(None)
        self._thread.join()
        os.close(self._fd)



class Syncer(Protocol):
    """What the storage needs of a syncer."""

    syncs: int

    def request(self, number: int) -> None:
        """Make everything written so far durable; ``number`` comes back to ``synced``."""

    async def aclose(self) -> None:
        """Finish the requests made so far and stop."""


class HelperSyncer:
    """Syncs one file in a helper process; see the module doc.

    At most :data:`PIPELINE` requests are with the helper at a time: those made meanwhile are
    sent as one when an answer comes (before the answer is reported, so the next sync runs
    while the loop delivers what the last one made durable). A helper that dies is started
    again, and the request it had is reported failed (it may not have synced), so the storage
    writes it again; while no helper can be started, requests wait for one.
    """

    restart_after = 1.0
    """Seconds before trying again to start a helper when the system would not."""

    def __init__(self, path: str, loop: asyncio.AbstractEventLoop, synced: Synced) -> None:
        self.path = path
        self._loop = loop
        self._synced = synced
        self._wanted = 0  # the last number requested
        self._asked: deque[int] = deque()  # the requests sent and not yet answered
        self._answered = 0  # the last number answered
        self._running = False
        self._restarting: asyncio.TimerHandle | None = None
        self._closing = False
        self._replies = b""
        self.syncs = 0
        """Syncs done (fewer than requests when several waited for one)."""
        self.restarts = 0
        """Helpers started again after one stopped."""
        self._start()

    def _start(self) -> None:
        """Start a helper and watch its answers; raises :class:`OSError` if the system cannot
        start it."""
        self._helper = subprocess.Popen(
            [sys.executable, synchelper.__file__, self.path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=0,
        )
        assert self._helper.stdin is not None and self._helper.stdout is not None
        self._to_helper = self._helper.stdin.fileno()
        self._from_helper = self._helper.stdout.fileno()
        try:
            self._loop.add_reader(self._from_helper, self._readable)
        except NotImplementedError:  # a loop that cannot watch a pipe
            self._helper.kill()
            self._helper.wait()
            self._close_pipes()
            raise
        self._running = True

    @property
    def pid(self) -> int:
        """The helper's process id."""
        return self._helper.pid

    def request(self, number: int) -> None:
        """Make everything written so far durable; ``number`` comes back to ``synced``."""
        self._wanted = number
        if len(self._asked) < PIPELINE:
            self._ask()

    def _ask(self) -> None:
        if not self._running:  # asked once a helper is back
            return
        self._asked.append(self._wanted)
        with contextlib.suppress(OSError):  # a helper that is gone: its replies end
            os.write(self._to_helper, synchelper.REQUEST.pack(self._wanted))

    def _readable(self) -> None:
        data = os.read(self._from_helper, 4096)
        if not data:
            self._helper_stopped()
            return
        self._replies += data
        size = synchelper.REPLY.size
        whole = len(self._replies) - len(self._replies) % size
        replies = [synchelper.REPLY.unpack_from(self._replies, at) for at in range(0, whole, size)]
        self._replies = self._replies[whole:]
        if not replies:
            return
        answered = self._answered = replies[-1][0]
        while self._asked and self._asked[0] <= answered:
            self._asked.popleft()
        if self._wanted > (self._asked[-1] if self._asked else answered):
            self._ask()
        for number, code in replies:
            self.syncs += 1
            self._synced(number, OSError(code, os.strerror(code)) if code else None)

    def _helper_stopped(self) -> None:
        self._loop.remove_reader(self._from_helper)
        self._running = False
        self._helper.wait()
        self._close_pipes()
        if self._closing:
            return
        log.error(
            "the log's sync helper stopped (exit code %s); starting another",
            self._helper.returncode,
        )
        lost, self._replies = bool(self._asked), b""
        self._asked.clear()
        if lost:  # answered below, as failed
            self._answered = self._wanted
        self._restart()
        if lost:
            self._synced(self._wanted, OSError(errno.EIO, "the sync helper stopped during a sync"))

    def _restart(self) -> None:
        self._restarting = None
        if self._closing:
            return
        try:
            self._start()
        except OSError as exc:
            log.error(
                "cannot start the log's sync helper (%s); trying again in %.1f s",
                exc,
                self.restart_after,
            )
            self._restarting = self._loop.call_later(self.restart_after, self._restart)
            return
        self.restarts += 1
        if self._wanted > self._answered:
            self._ask()

    def _close_pipes(self) -> None:
        for pipe in (self._helper.stdin, self._helper.stdout):
            if pipe is not None:
                pipe.close()

    async def aclose(self) -> None:
        """Let the helper finish its sync and exit (the answer is not waited for)."""
        if self._closing:
            return
        self._closing = True
        if self._restarting is not None:
            self._restarting.cancel()
        if not self._running:
            return
        self._running = False
        self._loop.remove_reader(self._from_helper)
        assert self._helper.stdin is not None
        self._helper.stdin.close()  # the end of its requests: the helper exits
        await self._loop.run_in_executor(None, self._helper.wait)
        self._close_pipes()


def start_syncer(path: str, loop: asyncio.AbstractEventLoop, synced: Synced) -> Syncer:
    """A :class:`HelperSyncer` for ``path``, or a :class:`LogSyncer` where ``loop`` cannot
    watch a pipe."""
    try:
        return HelperSyncer(path, loop, synced)
    except NotImplementedError:
        return LogSyncer(path, loop, synced)
