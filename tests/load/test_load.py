"""``bench/load.py`` at a tiny size: it runs, every game moves, the figures add up."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench import load

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def _load(tmp_path: Path, *argv: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """Run ``bench/load.py`` with ``argv``; it must succeed; its output and its JSON report."""
    out = tmp_path / "load.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "load.py"), *argv, "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done, json.loads(out.read_text())


def test_load_runs_against_boardhall_and_the_echo(tmp_path: Path) -> None:
    """6 games + 6 spectators, both phases, both targets: moves flow, no errors, ratios printed."""
    done, report = _load(
        tmp_path, "--games", "6", "--spectators", "6", "--duration", "2", "--warmup", "1",
        "--rate", "30",
    )
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
    assert [r["ratios"] for r in report["rounds"]] == [report["ratios"]]  # one round by default
    # a run this small is not judged against the targets, but says so for each
    assert " targets (one round):" in done.stdout
    assert report["targets"] and all(t["met"] is None for t in report["targets"])


def test_rounds_alternate_the_targets_and_give_each_ratio_a_median(tmp_path: Path) -> None:
    """--rounds 3: three rounds of boardhall then the echo, a median of the three ratios."""
    done, report = _load(
        tmp_path,
        *("--games", "3", "--spectators", "0", "--phases", "rate", "--rate", "30"),
        *("--duration", "1", "--warmup", "0.5", "--echo-loops", "asyncio", "--rounds", "3"),
    )
    p99s = sorted(r["ratios"]["echo"]["rate"]["p99"] for r in report["rounds"])
    assert len(p99s) == 3
    assert report["median_ratios"]["echo"]["rate"]["p99"] == p99s[1]
    assert [line.split()[0:2] for line in done.stdout.splitlines() if "round " in line] == [
        ["round", "1"],
        ["round", "2"],
        ["round", "3"],
    ]
    assert "median of 3 rounds, rate  boardhall/echo:" in done.stdout


@pytest.mark.parametrize(
    ("script", "argv", "wanted"),
    [
        ("load.py", ["--rounds", "0"], "argument --rounds: must be a whole number, 1 or more"),
        ("load.py", ["--games", "0"], "argument --games: must be a whole number, 1 or more, not 0"),
        ("load.py", ["--duration", "0"], "argument --duration: must be seconds above 0, not 0"),
        ("load.py", ["--phases", "full,slow"], "argument --phases: must be phases from full, rate"),
        ("load.py", ["--relay-loops", "trio"], "argument --relay-loops: must be loops installed"),
        ("load.py", ["--mix", "chess,go"], "argument --mix: must be games from hexgomoku, chess"),
        ("soak.py", ["--tables", "0"], "argument --tables: must be a whole number, 1 or more"),
        ("soak.py", ["--mix", "chess,go"], "argument --mix: must be games from hexgomoku, chess"),
        ("soak.py", ["--drop-every", "-1"], "must be 0 (no drops) or more seconds, not -1"),
        ("fuzz.py", ["--frames", "-5"], "argument --frames: must be a whole number, 1 or more"),
    ],
)  # fmt: skip
def test_a_bad_flag_is_refused_naming_it_before_anything_starts(
    script: str, argv: list[str], wanted: str
) -> None:
    """No traceback and no server: exit 2 and the flag with what it takes."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *argv],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 2
    assert wanted in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_stages_show_where_each_stored_move_went_inside_the_server(tmp_path: Path) -> None:
    """--stages FILE: the server writes each stage's percentiles; load.py prints them."""
    stages = tmp_path / "stages.txt"
    done, report = _load(
        tmp_path,
        *("--games", "3", "--spectators", "0", "--phases", "rate", "--rate", "30"),
        *("--duration", "1", "--warmup", "0.5", "--no-echo", "--stages", str(stages)),
    )
    lines = stages.read_text().splitlines()
    moves = int(lines[0].split()[1])
    measured = report["boardhall"]["rate"]["moves_s"]  # --duration 1: the window's moves
    assert moves >= measured > 0  # every stored move, the warm-up's too
    rows = {line.split()[0]: [float(x) for x in line.split()[1:]] for line in lines[2:]}
    assert list(rows) == ["handle", "turn", "commit", "sync", "send", "total"]
    for name, (p50, p90, p99, top) in rows.items():
        assert 0 <= p50 <= p90 <= p99 <= top, name
    assert rows["total"][0] >= rows["commit"][0]  # a move's total holds its commit
    assert "inside the server, ms" in done.stdout and "commit" in done.stdout
    # the client's latency split at the server's hand-over and send, move by move
    printed = done.stdout.split("where the client's latency went, ms (rate phase):\n")[1]
    split = [line.split() for line in printed.splitlines()[:6]]
    joined, measured_moves = int(split[0][1]), int(split[0][3])
    assert joined == measured_moves > 0  # every measured move found in the server's records
    parts = {" ".join(row[:-4]): [float(x) for x in row[-4:]] for row in split[2:]}
    assert list(parts) == ["to server", "in server", "to opponent", "client latency"]
    for name, (p50, p90, p99, top) in parts.items():
        assert p50 <= p90 <= p99 <= top, name
    assert parts["to server"][0] > 0
    p50 = report["boardhall"]["rate"]["p50_ms"]
    assert parts["client latency"][0] == pytest.approx(p50, abs=0.01)


def test_the_relay_fans_each_move_out_as_boardhall_does(tmp_path: Path) -> None:
    """--relay-loops asyncio: the relay yardstick gets boardhall's frames per move (1 in, 3 out
    with one spectator per game), every move reaches the opponent, and its ratios are printed."""
    done, report = _load(
        tmp_path,
        *("--games", "4", "--spectators", "4", "--phases", "full,rate", "--rate", "40"),
        *("--duration", "1.5", "--warmup", "0.5", "--echo-loops", "", "--relay-loops", "asyncio"),
    )
    assert "echo" not in report  # only the yardsticks asked for
    for phase in ("full", "rate"):
        relay = report["relay"][phase]
        assert relay["moves_s"] > 0 and relay["errors"] == 0, (phase, relay)
        assert relay["p99_ms"] >= relay["p50_ms"] > 0
        assert 3.5 <= relay["frames_s"] / relay["moves_s"] <= 4.5, (phase, relay)
        assert report["ratios"]["relay"][phase]["p99"] > 0
    assert "ratio rate  boardhall/relay:" in done.stdout


def test_profile_finds_py_spy_beside_the_interpreter_or_refuses_before_starting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A virtualenv's py-spy is found though its ``bin`` is not on PATH; none at all is exit 2."""
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(sys, "executable", str(bin_dir / "python"))
    assert load.find_py_spy() is None
    with pytest.raises(SystemExit) as exited:
        load.main(["--profile", str(tmp_path / "p.svg"), "--games", "1"])
    assert exited.value.code == 2
    assert "--profile needs py-spy" in capsys.readouterr().err
    (bin_dir / "py-spy").write_text("#!/bin/sh\n")
    assert load.find_py_spy() == str(bin_dir / "py-spy")
