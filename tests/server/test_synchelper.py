"""The log synced by a helper process (:class:`server.logsync.HelperSyncer`): every request is
answered in order and after a real sync, a failed sync is reported with its error, a helper
that dies is replaced and its sync written again, and a stopped helper holds the moves being
written, never the server."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from server.logsync import PIPELINE, HelperSyncer, LogSyncer, start_syncer
from server.net import running_server
from server.testing import WireClient
from tests.server.http_tools import http_get
from tests.server.storage_tools import move, opened, plies_on_disk, until

Heard = list[tuple[int, OSError | None]]


def _syncer(path: Path, heard: Heard) -> HelperSyncer:
    path.touch()
    syncer = start_syncer(str(path), asyncio.get_running_loop(), lambda n, e: heard.append((n, e)))
    assert isinstance(syncer, HelperSyncer)
    return syncer


async def test_requests_are_answered_in_order_and_those_made_meanwhile_share_a_sync(
    tmp_path: Path,
) -> None:
    heard: Heard = []
    syncer = _syncer(tmp_path / "log", heard)
    for number in range(1, 51):  # one turn: the first two go to the helper, the rest wait
        syncer.request(number)
    await until(lambda: heard and heard[-1][0] == 50)
    numbers = [number for number, _ in heard]
    assert numbers == sorted(numbers) and numbers[0] in (1, 2) and len(numbers) <= PIPELINE + 1
    assert all(error is None for _, error in heard) and syncer.syncs == len(heard)
    syncer.request(51)
    await until(lambda: heard[-1][0] == 51)
    await syncer.aclose()
    assert heard[-1] == (51, None)


async def test_a_sync_the_system_refuses_is_reported_with_its_error(tmp_path: Path) -> None:
    """A pipe cannot be synced (EINVAL): a real failed ``fdatasync``, not a stand-in."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    heard: Heard = []
    syncer = _syncer(fifo, heard)
    syncer.request(1)
    await until(lambda: heard)
    (number, error), = heard
    assert number == 1 and isinstance(error, OSError) and error.errno == errno.EINVAL
    await syncer.aclose()


async def test_a_helper_killed_during_a_sync_is_replaced_and_its_request_reported_failed(
    tmp_path: Path,
) -> None:
    heard: Heard = []
    syncer = _syncer(tmp_path / "log", heard)
    first = syncer.pid
    os.kill(first, signal.SIGSTOP)  # as if in a long sync
    syncer.request(1)
    os.kill(first, signal.SIGKILL)
    await until(lambda: heard)
    assert heard[0][0] == 1 and "stopped during a sync" in str(heard[0][1])
    assert syncer.restarts == 1 and syncer.pid != first
    syncer.request(2)
    await until(lambda: len(heard) == 2)
    assert heard[1] == (2, None)
    await syncer.aclose()


async def test_an_interrupt_for_the_server_leaves_the_helper_syncing(tmp_path: Path) -> None:
    """Ctrl-C reaches every process of the terminal's group; the helper goes on till closed."""
    heard: Heard = []
    syncer = _syncer(tmp_path / "log", heard)
    syncer.request(1)
    await until(lambda: heard)
    os.kill(syncer.pid, signal.SIGINT)
    syncer.request(2)
    await until(lambda: len(heard) == 2)
    assert heard == [(1, None), (2, None)] and syncer.restarts == 0
    await syncer.aclose()


async def test_closing_ends_the_helper(tmp_path: Path) -> None:
    heard: Heard = []
    syncer = _syncer(tmp_path / "log", heard)
    pid = syncer.pid
    await syncer.aclose()
    with pytest.raises(ChildProcessError):  # reaped: no zombie left behind
        os.waitpid(pid, os.WNOHANG)
    assert syncer.restarts == 0


class _LoopWithoutPipes:
    """An event loop that cannot watch a pipe (asyncio's on Windows)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop

    def add_reader(self, *_: Any) -> None:
        raise NotImplementedError

    def __getattr__(self, name: str) -> Any:
        return getattr(self.loop, name)


async def test_a_loop_that_cannot_watch_a_pipe_gets_a_thread(tmp_path: Path) -> None:
    log = tmp_path / "log"
    log.touch()
    heard: Heard = []
    loop: Any = _LoopWithoutPipes(asyncio.get_running_loop())
    syncer = start_syncer(str(log), loop, lambda n, e: heard.append((n, e)))
    assert isinstance(syncer, LogSyncer)
    syncer.request(1)
    await until(lambda: heard)
    assert heard == [(1, None)]
    await syncer.aclose()


async def test_the_storage_writes_again_what_a_dying_helper_was_syncing(tmp_path: Path) -> None:
    path = tmp_path / "hall.db"
    store = await opened(path, retry_first=0.001)
    syncer = store.syncer
    assert isinstance(syncer, HelperSyncer)
    await store.submit([move(0)])
    os.kill(syncer.pid, signal.SIGSTOP)
    written = store.submit([move(1)])
    await until(lambda: store.held == 1)
    os.kill(syncer.pid, signal.SIGKILL)
    await asyncio.wait_for(written, 10)
    assert store.failures_total == 1 and syncer.restarts == 1
    assert plies_on_disk(path) == [0, 1]
    await store.close()


async def test_a_stopped_helper_holds_the_move_not_the_server(tmp_path: Path) -> None:
    """While the log sync hangs, the move is not sent, but everything else is served: a player
    in no room and the health check (a slow disk is not a failure)."""
    async with running_server(host="127.0.0.1", port=0, db=str(tmp_path / "hall.db")) as server:
        syncer = server.storage.syncer
        assert isinstance(syncer, HelperSyncer)
        ann = await WireClient.connect(server.url, "ann")
        bob = await WireClient.connect(server.url, "bob")
        carl = await WireClient.connect(server.url, "carl")
        code = (await ann.request(type="create", game="chess", color="first"))["room"]
        await bob.request(type="join", room=code)
        os.kill(syncer.pid, signal.SIGSTOP)
        try:
            await ann.send(id="m0", type="move", room=code, ply=0, move="e4")
            await until(lambda: server.storage.held == 1)
            assert (await carl.request(type="list", timeout=5))["type"] == "rooms"
            status, body = await http_get(server.port, "/healthz")
            assert status == 200 and json.loads(body)["status"] == "ok"
            assert not [m for m in ann.inbox + bob.inbox if m["type"] == "moved"]
        finally:
            os.kill(syncer.pid, signal.SIGCONT)
        assert (await bob.expect("moved", ply=0))["move"] == "e2e4"
        assert (await ann.expect("moved", re="m0"))["move"] == "e2e4"
        for wire in (ann, bob, carl):
            await wire.close()


async def test_while_no_helper_can_be_started_requests_wait_for_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Out of processes or file descriptors: the helper is tried again later, and a request
    made meanwhile is answered by the one that finally starts."""
    heard: Heard = []
    syncer = _syncer(tmp_path / "log", heard)
    syncer.restart_after = 0.01
    real = subprocess.Popen
    refusals = [OSError(errno.EMFILE, "Too many open files")] * 2

    def popen(*args: Any, **kwargs: Any) -> Any:
        if refusals:
            raise refusals.pop()
        return real(*args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", popen)
    os.kill(syncer.pid, signal.SIGKILL)
    await until(lambda: len(refusals) == 1)
    syncer.request(1)  # no helper to ask yet
    await until(lambda: heard)
    assert heard == [(1, None)] and not refusals and syncer.restarts == 1
    await syncer.aclose()


@pytest.mark.parametrize(
    "sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda s: signal.Signals(s).name
)
async def test_a_signal_meant_for_the_server_leaves_the_helper_be(
    tmp_path: Path, sig: signal.Signals
) -> None:
    """Ctrl-C, a service manager's SIGTERM and a closed terminal's SIGHUP reach the server's
    whole process group: the helper goes on syncing (it is not replaced with an error logged)
    and ends only when the server closes its pipe."""
    heard: Heard = []
    syncer = _syncer(tmp_path / "log", heard)
    syncer.request(1)
    await until(lambda: heard)  # the helper is up, past setting its signals
    os.kill(syncer.pid, sig)
    syncer.request(2)
    await until(lambda: heard[-1][0] == 2)
    assert heard == [(1, None), (2, None)] and syncer.restarts == 0
    pid = syncer.pid
    await syncer.aclose()
    with pytest.raises(ProcessLookupError):  # gone, and reaped
        os.kill(pid, 0)


def test_a_helper_whose_file_is_gone_says_nothing_and_exits_at_the_end_of_its_requests(
    tmp_path: Path,
) -> None:
    """A server that fails to start closes its database (SQLite removes the log) before the
    helper it started has opened it: the helper printed a FileNotFoundError traceback on the
    server's stderr, after the server's own one-line reason."""
    import server.synchelper as synchelper

    done = subprocess.run(
        [sys.executable, synchelper.__file__, str(tmp_path / "gone.db-wal")],
        input=b"", capture_output=True, timeout=30,
    )  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


async def test_a_request_for_a_file_that_cannot_be_opened_gets_its_errno_then_a_sync(
    tmp_path: Path,
) -> None:
    """The file is opened again at each request until it can be: the request before gets the
    reason (ENOENT), the one after is synced."""
    heard: Heard = []
    path = tmp_path / "later"
    syncer = start_syncer(str(path), asyncio.get_running_loop(), lambda n, e: heard.append((n, e)))
    assert isinstance(syncer, HelperSyncer)
    syncer.request(1)
    await until(lambda: heard)
    assert heard[0][0] == 1 and isinstance(heard[0][1], OSError)
    assert heard[0][1].errno == errno.ENOENT
    path.touch()
    syncer.request(2)
    await until(lambda: len(heard) == 2)
    assert heard[1] == (2, None) and syncer.restarts == 0
    await syncer.aclose()
