"""Shared plumbing of the load tools: server and echo subprocesses, /proc figures, fd limits.

Used by ``bench/load.py``, ``bench/soak.py``, ``bench/fuzz.py`` and the tests in ``tests/load/``.
Every client connects to 127.0.0.1 only.
"""

from __future__ import annotations

import contextlib
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
LISTENING = re.compile(r"listening on (ws://\S+)")


def exit_on_sigterm() -> None:
    """Let SIGTERM (``kill``, ``timeout``) end this script as Ctrl+C does, through its
    ``finally`` blocks, so the servers it started are stopped rather than left running."""
    signal.signal(signal.SIGTERM, _exit_for_signal)


def _exit_for_signal(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def raise_fd_limit(wanted: int = 65536) -> int:
    """Raise the soft open-files limit as far as the hard limit allows; returns the soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if target > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        return target
    return soft


@dataclass(frozen=True)
class ProcSample:
    """CPU ticks and memory of a process at one moment."""

    at: float
    cpu_s: float
    rss_bytes: int
    hwm_bytes: int


def sample(pid: int) -> ProcSample:
    """CPU (user+system, /proc/PID/stat) and memory (VmRSS and VmHWM, /proc/PID/status) of a
    process and its live descendants together: the server's log-sync helper counts as the
    server's (the peak is the sum of each process's own peak)."""
    total = ProcSample(time.monotonic(), 0.0, 0, 0)
    for member in [pid, *descendants(pid)]:
        try:
            one = _sample_one(member)
        except (FileNotFoundError, ProcessLookupError):  # a child that just exited
            if member == pid:
                raise
            continue
        total = ProcSample(
            total.at,
            total.cpu_s + one.cpu_s,
            total.rss_bytes + one.rss_bytes,
            total.hwm_bytes + one.hwm_bytes,
        )
    return total


def descendants(pid: int) -> list[int]:
    """The live children of a process, their children, and so on (/proc/PID/task/*/children)."""
    found: list[int] = []
    parents = [pid]
    while parents:
        parent = parents.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except FileNotFoundError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{parent}/task/{task}/children") as f:
                    children = [int(c) for c in f.read().split()]
            except FileNotFoundError:
                continue
            found += children
            parents += children
    return found


def _sample_one(pid: int) -> ProcSample:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / TICKS
    rss = hwm = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) * 1024
            elif line.startswith("VmHWM:"):
                hwm = int(line.split()[1]) * 1024
    return ProcSample(time.monotonic(), cpu, rss, hwm)


def rss_parts(pid: int) -> dict[str, int]:
    """RssAnon, RssFile and RssShmem of a process in bytes (/proc/PID/status)."""
    parts: dict[str, int] = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("RssAnon:", "RssFile:", "RssShmem:")):
                name, value = line.split(":", 1)
                parts[name] = int(value.split()[0]) * 1024
    return parts


def cpu_percent(before: ProcSample, after: ProcSample) -> float:
    """CPU use between two samples in percent of one core."""
    wall = after.at - before.at
    return 100.0 * (after.cpu_s - before.cpu_s) / wall if wall > 0 else 0.0


def _wait_for_url(process: subprocess.Popen[str], what: str, timeout: float = 30.0) -> str:
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            if process.poll() is not None:
                raise RuntimeError(f"{what} exited with {process.returncode} before listening")
            continue
        found = LISTENING.search(line)
        if found:
            return found.group(1)
    raise RuntimeError(f"{what} did not start listening within {timeout} s")


class Subprocess:
    """A server-like child that prints ``listening on ws://...``; stopped on :meth:`stop`.

    With ``on_stderr`` every line the child writes on stderr is handed to it, on a thread of its
    own, through a pipe (a pipe, not a file: the soak's disk faults limit the size of the files
    the server may write, and must not silence its log)."""

    def __init__(
        self,
        argv: list[str],
        what: str,
        env: dict[str, str] | None = None,
        on_stderr: Callable[[str], None] | None = None,
    ) -> None:
        self.argv = argv
        self.what = what
        self.env = env
        self.on_stderr = on_stderr
        self.process: subprocess.Popen[str] | None = None
        self.url = ""

    def start(self) -> Subprocess:
        """Start the child and wait until it listens."""
        env = {**os.environ, **(self.env or {}), "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            self.argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL if self.on_stderr is None else subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        if self.on_stderr is not None:
            reader = threading.Thread(
                target=_read_lines, args=(self.process.stderr, self.on_stderr), daemon=True
            )
            reader.start()
        self.url = _wait_for_url(self.process, self.what)
        return self

    @property
    def pid(self) -> int:
        """The child's process id."""
        assert self.process is not None
        return self.process.pid

    @property
    def port(self) -> int:
        """The port in :attr:`url`."""
        return int(self.url.rsplit(":", 1)[1].rstrip("/"))

    def alive(self) -> bool:
        """Whether the child still runs."""
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL the child (a crash) and reap it."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def stop(self, timeout: float = 15.0) -> int | None:
        """SIGTERM the child and wait; SIGKILL if it does not stop. Returns the exit code."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            with contextlib.suppress(Exception):
                self.process.stdout.close()
        return self.process.returncode


def _read_lines(stream: Any, each: Callable[[str], None]) -> None:
    """Hand every line of ``stream`` to ``each`` until it ends."""
    with contextlib.suppress(ValueError, OSError):  # closed by stop()
        for line in stream:
            each(line)


def server_command() -> list[str]:
    """How to run ``boardhall-server`` (the console script, else ``python -m server``)."""
    found = shutil.which("boardhall-server", path=str(Path(sys.executable).parent))
    if found:
        return [found]
    return [sys.executable, "-m", "server"]


def boardhall(
    db: str | Path,
    port: int = 0,
    rate: int = 100_000,
    extra: list[str] | None = None,
    wrapper: bool = False,
    on_stderr: Callable[[str], None] | None = None,
) -> Subprocess:
    """A ``boardhall-server`` child on 127.0.0.1 with limits opened up for load from one address.

    With ``wrapper`` the server runs under ``bench/gc_server.py``, which answers SIGUSR1 with a
    ``gc.collect()`` so memory can be compared after the clients leave. ``on_stderr`` gets
    its log lines (see :class:`Subprocess`).
    """
    args = [
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--db",
        str(db),
        "--log-level",
        "error",
        "--rate",
        str(rate),
        "--connections-per-address",
        "1000000",
        *(extra or []),
    ]
    command = [sys.executable, str(HERE / "gc_server.py")] if wrapper else server_command()
    return Subprocess([*command, *args], "boardhall-server", on_stderr=on_stderr)


def echo(uvloop: bool = False, relay: bool = False) -> Subprocess:
    """The bare ``websockets`` echo server of ``bench/echo_server.py`` on a free port (with
    ``relay``, its relay of moves with boardhall's fan-out)."""
    argv = [sys.executable, str(HERE / "echo_server.py"), "--port", "0"]
    if uvloop:
        argv.append("--uvloop")
    if relay:
        argv.append("--relay")
    return Subprocess(argv, "relay server" if relay else "echo server")


def percentile(values: list[float], p: float) -> float:
    """The ``p``-th percentile (nearest rank) of ``values``; 0.0 when empty."""
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


@dataclass(frozen=True)
class TailSpread:
    """Where in time the slowest 1 % of a run's samples fell."""

    windows_hit: int
    """Windows of ``window_s`` holding at least one sample at or above the run's p99."""
    windows: int
    """Windows the run spans."""
    per_second_p99_median: float
    """The median over the run's whole seconds of each second's own p99."""


def tail_spread(samples: list[tuple[float, float]], window_s: float = 0.1) -> TailSpread:
    """How clustered the slow ``(sent_at, latency)`` samples are: a p99 set by a few stalls
    (every slow sample in a few windows, a low per-second median) rather than by every move
    paying a little more. Empty input gives zeros."""
    if not samples:
        return TailSpread(0, 0, 0.0)
    p99 = percentile([latency for _, latency in samples], 99)
    start = min(sent for sent, _ in samples)
    span = max(sent for sent, _ in samples) - start
    hit = {int((sent - start) / window_s) for sent, latency in samples if latency >= p99}
    seconds: dict[int, list[float]] = {}
    for sent, latency in samples:
        seconds.setdefault(int(sent - start), []).append(latency)
    # whole seconds only (the phase's end cuts the last one short), unless there is no other
    whole = [v for s, v in seconds.items() if s < int(span)] or list(seconds.values())
    per_second = sorted(percentile(v, 99) for v in whole)
    return TailSpread(len(hit), int(span / window_s) + 1, per_second[len(per_second) // 2])
