"""``bench/load.py`` at a tiny size: it runs, every game moves, the figures add up."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def test_load_runs_against_boardhall_and_the_echo(tmp_path: Path) -> None:
    """6 games + 6 spectators, both phases, both targets: moves flow, no errors, ratios printed."""
    out = tmp_path / "load.json"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "load.py"),
            "--games",
            "6",
            "--spectators",
            "6",
            "--duration",
            "2",
            "--warmup",
            "1",
            "--rate",
            "30",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(out.read_text())
    for target in ("boardhall", "echo"):
        for phase in ("full", "rate"):
            figures = report[target][phase]
            assert figures["moves_s"] > 0 and figures["errors"] == 0, (target, phase, figures)
            assert figures["p99_ms"] >= figures["p50_ms"] > 0
            assert 0 < figures["slow_windows"] <= figures["windows"]
            assert figures["p99_per_second_ms"] > 0
        # the steady phase never runs faster than asked (slower is the machine's business)
        assert report[target]["rate"]["moves_s"] <= 30 * 1.2
    # one spectator per game: each boardhall move is 1 frame in and 3 out
    full = report["boardhall"]["full"]
    assert 3.5 <= full["frames_s"] / full["moves_s"] <= 4.5
    assert report["boardhall_peak_mb"] > 0
    assert "echo" in report["ratios"]  # the bare websockets echo on asyncio's loop, at least
    for label, ratios in report["ratios"].items():
        assert label in report and set(ratios) == {"full", "rate"}
        assert all(r["frames"] > 0 and r["p99"] > 0 for r in ratios.values())
        assert all(r["p99_per_second"] > 0 for r in ratios.values())
    assert "ratio full  boardhall/echo:" in done.stdout
