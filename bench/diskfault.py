"""A disk that refuses a server's writes, without root: its ``RLIMIT_FSIZE`` lowered to 0.

With the limit at 0 every ``write`` to a regular file by that process fails with ``EFBIG``
(CPython ignores the ``SIGXFSZ`` that comes with it), which SQLite reports as a disk I/O error:
the server holds its writes and says ``storage_failing`` until the old limit is given back.
Only that process is limited: its threads (the checkpointer) fail with it; the log-sync helper,
a process of its own, syncs as before (a sync is no write); a restarted server starts with
the normal limit. Pipes are no regular files, so the server's log on a pipe goes on.

Used by ``bench/soak.py --disk-faults N``.
"""

from __future__ import annotations

import resource

STORAGE_LOG = {
    "storage write failed;": "failed",
    "storage write failed again": "failed again",
    "storage writes again": "written again",
    "checkpoint failed": "checkpoint failed",
    "checkpoints work again": "checkpoints again",
}
"""How the server's log lines about failing storage begin, and what each says."""


def available() -> bool:
    """Whether this system can limit another process's writes (``prlimit``: Linux)."""
    return hasattr(resource, "prlimit")


def refuse_writes(pid: int) -> tuple[int, int]:
    """Make every file write of process ``pid`` fail; returns its limit before (for
    :func:`allow_writes`). Raises :class:`ProcessLookupError` if the process is gone."""
    before = resource.prlimit(pid, resource.RLIMIT_FSIZE)
    resource.prlimit(pid, resource.RLIMIT_FSIZE, (0, before[1]))
    return before


def allow_writes(pid: int, before: tuple[int, int]) -> None:
    """Give process ``pid`` back the file-size limit :func:`refuse_writes` took."""
    resource.prlimit(pid, resource.RLIMIT_FSIZE, before)


def storage_log_kind(line: str) -> str | None:
    """What a server log line says about failing storage (a key's value of
    :data:`STORAGE_LOG`), or None for another line.

    >>> storage_log_kind('{"level": "error", "msg": "storage write failed; holding 3 writes"}')
    'failed'
    >>> storage_log_kind('{"msg": "listening on ws://127.0.0.1:1"}') is None
    True
    """
    for start, kind in STORAGE_LOG.items():
        if f'"msg": "{start}' in line:
            return kind
    return None


def storage_failing(metrics: str) -> bool | None:
    """The ``boardhall_storage_failing`` gauge of a ``/metrics`` text (None if absent).

    >>> storage_failing("# TYPE boardhall_storage_failing gauge\\nboardhall_storage_failing 1\\n")
    True
    """
    for line in metrics.splitlines():
        name, _, value = line.partition(" ")
        if name == "boardhall_storage_failing":
            return value.strip() == "1"
    return None
