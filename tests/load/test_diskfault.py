"""``bench/diskfault.py``: lowering a process's file-size limit makes its writes fail (as SQLite's
disk I/O error), and giving the limit back lets them through again; the server's log lines and
``/metrics`` are read as the soak reads them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench import diskfault, soak

CHILD = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("CREATE TABLE t (x)")
print("ready", flush=True)
for line in sys.stdin:
    try:
        db.execute("INSERT INTO t VALUES (randomblob(5000))")
        print("written", flush=True)
    except sqlite3.Error as error:
        print(f"{error.sqlite_errorname}: {error}", flush=True)
"""


def test_a_process_whose_writes_are_refused_fails_its_commits_until_given_back(
    tmp_path: Path,
) -> None:
    db = tmp_path / "child.db"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdin is not None and child.stdout is not None

    def commit() -> str:
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write("\n")
        child.stdin.flush()
        return child.stdout.readline().strip()

    try:
        assert child.stdout.readline().strip() == "ready"
        assert commit() == "written"
        before = diskfault.refuse_writes(child.pid)
        assert commit() == "SQLITE_IOERR_WRITE: disk I/O error"
        assert commit() == "SQLITE_IOERR_WRITE: disk I/O error"
        diskfault.allow_writes(child.pid, before)
        assert commit() == "written"
    finally:
        child.kill()
        child.wait()


def test_the_storage_lines_of_the_server_log_are_told_apart() -> None:
    lines = [
        '{"level": "error", "msg": "storage write failed; holding 3 writes (and their outputs)"}',
        '{"level": "warning", "msg": "storage write failed again (disk I/O error); 4 writes held"}',
        '{"level": "warning", "msg": "storage writes again: 4 held writes committed after 1.6 s"}',
        '{"level": "error", "msg": "checkpoint failed (trying again every 0.25 s)"}',
        '{"level": "warning", "msg": "checkpoints work again after 6 failures"}',
        '{"level": "info", "msg": "a player said: storage write failed;"}',
    ]
    assert [diskfault.storage_log_kind(line) for line in lines] == [
        "failed",
        "failed again",
        "written again",
        "checkpoint failed",
        "checkpoints again",
        None,
    ]


def test_the_storage_gauge_is_read_from_metrics() -> None:
    text = "boardhall_storage_failing_x 1\nboardhall_storage_failing 0\n"
    assert diskfault.storage_failing(text) is False
    assert diskfault.storage_failing("boardhall_storage_failing 1") is True
    assert diskfault.storage_failing("boardhall_open_connections 3") is None


def test_disk_faults_are_refused_before_anything_starts_where_prlimit_is_missing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without ``prlimit`` (not Linux) ``--disk-faults`` is exit 2 naming why, not a traceback
    in the middle of a run."""
    monkeypatch.delattr(diskfault.resource, "prlimit")
    assert not diskfault.available()
    with pytest.raises(SystemExit) as exited:
        soak.main(["--disk-faults", "1"])
    assert exited.value.code == 2
    assert "--disk-faults needs prlimit (Linux)" in capsys.readouterr().err
