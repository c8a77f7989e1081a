"""``boardhall-server`` with bench hooks: SIGUSR1 runs ``gc.collect()``, SIGUSR2 runs glibc's
``malloc_trim(0)`` (free memory back to the system). With ``BENCH_MALLOCSTATS=FILE`` every
SIGUSR1 appends ``sys._debugmallocstats()`` (pymalloc arenas and pools) to FILE. With
``BENCH_TRACEMALLOC=FILE`` every SIGUSR1 after the first writes the Python allocations that grew
since the first to FILE. With ``BENCH_TYPES=FILE`` every SIGUSR1 appends the commonest types
among the objects the collector tracks. With ``BENCH_GARBAGE=FILE`` every SIGUSR1 first
appends the commonest types among the cyclic garbage it collects (what reference counting left
for the full collection). With ``BENCH_NATIVE=FILE`` every SIGUSR1 appends one line of native
memory figures: glibc's ``mallinfo2`` (heap, mmapped, in use, free), SQLite's own
``sqlite3_memory_used`` and ``RssAnon``. With ``BENCH_GCPAUSES=FILE`` every collection's pause is
timed (``gc.callbacks``) and, when the server exits, FILE gets per generation the count, the
p50/p99/max pause and the share of the wall time spent collecting.

Run exactly like ``boardhall-server`` (same flags, e.g. ``--loop asyncio``). The soak compares
the server's memory before and after the clients come and go.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import ctypes
import gc
import os
import signal
import sys
import time
import tracemalloc
from pathlib import Path
from types import FrameType

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.cli import main

_SNAPSHOTS: list[tracemalloc.Snapshot] = []


def _collect(signum: int, frame: FrameType | None) -> None:
    garbage_report = os.environ.get("BENCH_GARBAGE")
    if garbage_report:
        _append_garbage_types(garbage_report)
    gc.collect()
    allocator_report = os.environ.get("BENCH_MALLOCSTATS")
    if allocator_report:
        _append_malloc_stats(allocator_report)
    native_report = os.environ.get("BENCH_NATIVE")
    if native_report:
        _append_native_memory(native_report)
    types_report = os.environ.get("BENCH_TYPES")
    if types_report:
        _append_type_counts(types_report)
    report = os.environ.get("BENCH_TRACEMALLOC")
    if not report or not tracemalloc.is_tracing():
        return
    _SNAPSHOTS.append(tracemalloc.take_snapshot())
    if len(_SNAPSHOTS) > 1:
        stats = _SNAPSHOTS[-1].compare_to(_SNAPSHOTS[0], "traceback")
        with open(report, "w") as out:
            out.write(f"growth {sum(s.size_diff for s in stats) / 1e6:.2f} MB\n")
            for stat in stats[:25]:
                out.write(f"{stat.size_diff / 1e3:.1f} KB in {stat.count_diff} blocks\n")
                out.write("\n".join(stat.traceback.format()[-8:]) + "\n")


def _append_garbage_types(path: str) -> None:
    """Collect with ``gc.DEBUG_SAVEALL`` and append the commonest types of the cyclic garbage
    found (what reference counting alone could not free), and whose frames it holds, to
    ``path``."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        counts = collections.Counter(type(o).__qualname__ for o in gc.garbage)
        counts.update(
            f"frame of {o.f_code.co_qualname} ({Path(o.f_code.co_filename).name})"
            for o in gc.garbage
            if type(o) is FrameType  # isinstance() raises on a dead weakref.proxy
        )
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    with open(path, "a") as out:
        out.write(f"--- {os.getpid()} {time.time():.0f} {sum(counts.values())} garbage objects\n")
        out.writelines(f"{n} {name}\n" for name, n in counts.most_common(40))


def _append_type_counts(path: str) -> None:
    """Append the 40 commonest types among the objects the collector tracks to ``path``."""
    counts = collections.Counter(type(o).__qualname__ for o in gc.get_objects())
    with open(path, "a") as out:
        out.write(f"--- {os.getpid()} {time.time():.0f} {sum(counts.values())} objects\n")
        out.writelines(f"{n} {name}\n" for name, n in counts.most_common(40))


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
            "fordblks", "keepcost",
        )
    ]


def _append_native_memory(path: str) -> None:
    """Append glibc's heap figures, SQLite's allocated bytes and RssAnon (MB) to ``path``."""
    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = _MallInfo2
    info = libc.mallinfo2()
    sqlite = ctypes.CDLL("libsqlite3.so.0")
    sqlite.sqlite3_memory_used.restype = ctypes.c_int64
    rss_anon = next(
        int(line.split()[1]) / 1e3
        for line in Path("/proc/self/status").read_text().splitlines()
        if line.startswith("RssAnon:")
    )
    with open(path, "a") as out:
        out.write(
            f"{time.time():.0f} heap {info.arena / 1e6:.1f} mmapped {info.hblkhd / 1e6:.1f} "
            f"in_use {info.uordblks / 1e6:.1f} free {info.fordblks / 1e6:.1f} "
            f"sqlite {sqlite.sqlite3_memory_used() / 1e6:.2f} rss_anon {rss_anon:.1f}\n"
        )


def _append_malloc_stats(path: str) -> None:
    """Append CPython's allocator statistics (``sys._debugmallocstats``, C stderr) to ``path``."""
    sys.stderr.flush()
    saved = os.dup(2)
    with open(path, "a") as out:
        out.write(f"--- {os.getpid()} {time.time():.0f}\n")
        out.flush()
        os.dup2(out.fileno(), 2)
        try:
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)


class _PauseTimer:
    """Times every collection through ``gc.callbacks``; writes the figures at exit."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.began = time.perf_counter()
        self.started = 0.0
        self.pauses: dict[int, list[float]] = collections.defaultdict(list)

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.started = time.perf_counter()
        else:
            self.pauses[info["generation"]].append(time.perf_counter() - self.started)

    def write(self) -> None:
        wall = time.perf_counter() - self.began
        with open(self.path, "w") as out:
            for generation, pauses in sorted(self.pauses.items()):
                pauses.sort()
                out.write(
                    f"generation {generation}: {len(pauses)} collections, pause p50 "
                    f"{pauses[len(pauses) // 2] * 1e3:.2f} ms, p99 "
                    f"{pauses[int(len(pauses) * 0.99)] * 1e3:.2f} ms, max {pauses[-1] * 1e3:.2f} "
                    f"ms, {100 * sum(pauses) / wall:.2f} % of {wall:.0f} s\n"
                )


def _trim(signum: int, frame: FrameType | None) -> None:
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


if __name__ == "__main__":
    if os.environ.get("BENCH_TRACEMALLOC"):
        tracemalloc.start(12)
    if os.environ.get("BENCH_STAGES"):
        from bench import stages

        stages.install(os.environ["BENCH_STAGES"])
    pauses_report = os.environ.get("BENCH_GCPAUSES")
    if pauses_report:
        timer = _PauseTimer(pauses_report)
        gc.callbacks.append(timer)
        atexit.register(timer.write)
    signal.signal(signal.SIGUSR1, _collect)
    signal.signal(signal.SIGUSR2, _trim)
    sys.exit(main())
