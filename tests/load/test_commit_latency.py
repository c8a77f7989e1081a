"""bench/commit_latency.py runs every mode and prints its figures (scaled down)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import commit_latency


def test_every_mode_commits_and_prints_its_percentiles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert commit_latency.main(["--seconds", "0.3", "--dir", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("SQLite ")
    for mode, line in zip(commit_latency.MODES, lines[1:], strict=True):
        fields = line.split()
        assert fields[0] == mode and int(fields[2]) > 10
        assert "p99.9" in line and "max" in line
    assert list(tmp_path.iterdir()) == []  # every database was removed


def test_an_unknown_mode_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert commit_latency.main(["--modes", "full,fast"]) == 2
    assert "not fast" in capsys.readouterr().out
