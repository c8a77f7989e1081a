"""Where a move's time goes inside the server: per-stage timings of every stored move.

Installed by ``bench/gc_server.py`` when ``BENCH_STAGES=FILE`` is set (``load.py --stages
FILE``): it wraps the server's hand-off points and writes percentiles of each stage to FILE when
the server stops (and every 10,000 moves). The stages of a move, in order:

* ``handle``: frame handed to the server -> its write queued (hall, room, engine, encoding);
* ``turn``: -> the loop turn's commit starts (the other messages of the turn are handled);
* ``commit``: -> the turn's writes are committed;
* ``send``: -> every output the commit released has been written to its sockets (the
  opponents' copies first).

The time a frame waits in its socket before the server reads it is not here: it is the client's
latency less ``total``.
"""

from __future__ import annotations

import atexit
import time
from typing import Any

from bench import harness
from server import net, storage

STAGES = ("handle", "turn", "commit", "send", "total")

_records: list[list[float]] = []
_turn: list[list[float]] = []
_committed: list[list[float]] = []
_received_at = 0.0
_path = ""


def report() -> str:
    """Percentiles of each stage (milliseconds) over the moves recorded so far."""
    lines = [
        f"moves {len(_records)}",
        f"{'stage':>8} {'p50':>7} {'p90':>7} {'p99':>7} {'max':>7}",
    ]
    for index, name in enumerate(STAGES):
        if name == "total":
            values = [r[-1] - r[0] for r in _records]
        else:
            values = [r[index + 1] - r[index] for r in _records]
        figures = [1000 * harness.percentile(values, p) for p in (50, 90, 99, 100)]
        lines.append(f"{name:>8} " + " ".join(f"{f:7.2f}" for f in figures))
    return "\n".join(lines) + "\n"


def _dump() -> None:
    with open(_path, "w") as out:
        out.write(report())


def install(path: str) -> None:
    """Wrap the server's hand-off points; write the report to ``path``."""
    global _path
    _path = path
    atexit.register(_dump)
    received = net.BoardhallServer._received
    write = storage.AsyncStorage.write
    apply = storage.Storage.apply
    release = net.BoardhallServer._release_written

    def traced_received(self: Any, conn: Any, inbox: Any, frame: Any) -> None:
        global _received_at
        _received_at = time.perf_counter()
        received(self, conn, inbox, frame)

    def traced_write(self: Any, ops: Any, then: Any) -> None:
        if any(isinstance(op, storage.SaveMove) for op in ops):
            _turn.append([_received_at, time.perf_counter(), 0.0, 0.0, 0.0])
        write(self, ops, then)

    def traced_apply(self: Any, ops: Any) -> None:
        started = time.perf_counter()
        apply(self, ops)
        ended = time.perf_counter()
        for record in _turn:
            record[2], record[3] = started, ended
        _committed.extend(_turn)
        _turn.clear()

    def traced_release(self: Any) -> None:
        release(self)
        sent = time.perf_counter()
        for record in _committed:
            record[4] = sent
            _records.append(record)
            if len(_records) % 10_000 == 0:
                _dump()
        _committed.clear()

    net.BoardhallServer._received = traced_received  # type: ignore[method-assign]
    storage.AsyncStorage.write = traced_write  # type: ignore[method-assign]
    storage.Storage.apply = traced_apply  # type: ignore[method-assign]
    net.BoardhallServer._release_written = traced_release  # type: ignore[method-assign]
