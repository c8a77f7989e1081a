"""Where a move's time goes inside the server: per-stage timings of every stored move.

Installed by ``bench/gc_server.py`` when ``BENCH_STAGES=FILE`` is set (``load.py --stages
FILE``): it wraps the server's hand-off points and writes percentiles of each stage to FILE when
the server stops (only then: sorting the records while moves are measured would stall the
server). The stages of a move, in order:

* ``handle``: frame handed to the server -> its write queued (hall, room, engine, encoding);
* ``turn``: -> the loop turn's commit starts (the other messages of the turn are handled);
* ``commit``: -> the turn's writes are committed (into the write-ahead log);
* ``sync``: -> the write is called back, durable (the log synced on the syncer's thread, and
  the event loop back to hear of it; about nothing with ``--sync normal``);
* ``send``: -> every output the commit released has been written to its sockets (the
  opponents' copies first).

The time a frame waits in its socket before the server reads it is not here, nor the time the
opponent's client takes to read the move. :func:`split_latency` adds them: the server also writes
every move's times to ``FILE.moves`` when it stops, and ``load.py --stages`` joins those with its
own send and arrival times (``time.perf_counter`` is one clock for every process on the machine)
to split each move's client latency into

* ``to server``: the client's send -> the server handed the frame (the client's send, the kernel,
  and the wait while the server's loop is busy with other work);
* ``in server``: ``total`` above;
* ``to opponent``: the server's send -> the opponent's client read the move.
"""

from __future__ import annotations

import atexit
import json
import time
from pathlib import Path
from typing import Any

from bench import harness
from server import net, storage

STAGES = ("handle", "turn", "commit", "sync", "send", "total")
SPLIT = ("to server", "in server", "to opponent", "client latency")

_records: list[list[Any]] = []
"""Per stored move: the six hand-off times, then the frame that carried the move."""
_turn: list[list[Any]] = []
_durable: list[list[Any]] = []  # called back, waiting for the release of their outputs
_received_at = 0.0
_frame: Any = None
_path = ""


def report() -> str:
    """Percentiles of each stage (milliseconds) over the moves recorded so far."""
    columns = [
        [r[5] - r[0] for r in _records]
        if name == "total"
        else [r[index + 1] - r[index] for r in _records]
        for index, name in enumerate(STAGES)
    ]
    return _table(f"moves {len(_records)}", "stage", dict(zip(STAGES, columns, strict=True)))


def _table(heading: str, label: str, columns: dict[str, list[float]]) -> str:
    """``heading``, then p50/p90/p99/max in milliseconds of each column of seconds."""
    width = max(len(label), *map(len, columns))
    lines = [heading, f"{label:>{width}} {'p50':>7} {'p90':>7} {'p99':>7} {'max':>7}"]
    for name, values in columns.items():
        figures = [1000 * harness.percentile(values, p) for p in (50, 90, 99, 100)]
        lines.append(f"{name:>{width}} " + " ".join(f"{f:7.2f}" for f in figures))
    return "\n".join(lines) + "\n"


def _dump() -> None:
    with open(_path, "w") as out:
        out.write(report())


def _dump_moves() -> None:
    """Every move's room, ply, and the times it was handed over and sent (frames parsed only
    now, so the tracing costs the server nothing more while it runs)."""
    with open(_path + ".moves", "w") as out:
        for record in _records:
            try:
                frame = json.loads(record[6])
                room, ply = str(frame["room"]), int(frame["ply"])
            except (TypeError, ValueError, KeyError):
                continue
            out.write(f"{room} {ply} {record[0]:.6f} {record[5]:.6f}\n")


def split_latency(moves_file: Path, client: list[tuple[str, int, float, float]]) -> str:
    """Percentiles (ms) of where each move's client latency went, from the server's
    ``FILE.moves`` and the client's ``(room, ply, sent, latency)`` of the same moves."""
    server: dict[tuple[str, int], tuple[float, float]] = {}
    for line in moves_file.read_text().splitlines():
        room_text, ply_text, handed_text, sent_text = line.split()
        server[(room_text, int(ply_text))] = (float(handed_text), float(sent_text))
    parts: list[tuple[float, float, float, float]] = []
    for room, ply, began, latency in client:
        found = server.get((room, ply))
        if found is not None:
            handed, sent = found
            parts.append((handed - began, sent - handed, began + latency - sent, latency))
    columns = {name: [part[index] for part in parts] for index, name in enumerate(SPLIT)}
    return _table(f"moves {len(parts)} of {len(client)} measured", "part", columns)


def install(path: str) -> None:
    """Wrap the server's hand-off points; write the report to ``path``."""
    global _path
    _path = path
    atexit.register(_dump_moves)
    atexit.register(_dump)
    received = net.BoardhallServer._received
    write = storage.AsyncStorage.write
    apply = storage.Storage.apply
    release = net.BoardhallServer._release_written

    def traced_received(self: Any, conn: Any, inbox: Any, frame: Any) -> None:
        global _received_at, _frame
        _received_at = time.perf_counter()
        _frame = frame
        received(self, conn, inbox, frame)

    def traced_write(self: Any, ops: Any, then: Any) -> None:
        if not any(isinstance(op, storage.SaveMove) for op in ops):
            write(self, ops, then)
            return
        record = [_received_at, time.perf_counter(), 0.0, 0.0, 0.0, 0.0, _frame]
        _turn.append(record)

        def traced_then(result: Any, error: Any) -> None:
            record[4] = time.perf_counter()
            _durable.append(record)
            then(result, error)

        write(self, ops, traced_then)

    def traced_apply(self: Any, ops: Any) -> None:
        started = time.perf_counter()
        apply(self, ops)
        ended = time.perf_counter()
        for record in _turn:
            record[2], record[3] = started, ended
        _turn.clear()

    def traced_release(self: Any) -> None:
        release(self)
        sent = time.perf_counter()
        for record in _durable:
            record[5] = sent
            _records.append(record)
        _durable.clear()

    net.BoardhallServer._received = traced_received  # type: ignore[method-assign]
    storage.AsyncStorage.write = traced_write  # type: ignore[method-assign]
    storage.Storage.apply = traced_apply  # type: ignore[method-assign]
    net.BoardhallServer._release_written = traced_release  # type: ignore[method-assign]
