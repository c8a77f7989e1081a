"""``bench/targets.py`` judges a ``load.py`` report against the issue's targets."""

from __future__ import annotations

from typing import Any

from bench import targets


def _report(games: int, spectators: int, rate: float, **extra: Any) -> dict[str, Any]:
    ratio = {
        "echo": {"full": {"frames": 0.62}, "rate": {"p99": 2.4}},
        "echo-uvloop": {"full": {"frames": 0.49}, "rate": {"p99": 4.0}},
        "relay-uvloop": {"full": {"frames": 0.9}, "rate": {"p99": 2.0}},
    }
    return {
        "args": {"games": games, "spectators": spectators, "rate": rate},
        "ratios": ratio,
        "boardhall_peak_mb": 170.0,
        **extra,
    }


def _judged(report: dict[str, Any]) -> dict[str, tuple[str, bool | None]]:
    return {v.target: (v.value, v.met) for v in targets.verdicts(report)}


def test_a_run_of_the_targets_size_is_judged_against_each_echo_but_not_the_relay() -> None:
    judged = _judged(_report(1000, 1000, 1000.0))
    assert judged == {
        "full speed, frames/s at least 0.5 x the echo's": ("0.62", True),
        "steady 1,000 moves/s, p99 at most 3 x the echo's": ("2.40", True),
        "full speed, frames/s at least 0.5 x the echo-uvloop's": ("0.49", False),
        "steady 1,000 moves/s, p99 at most 3 x the echo-uvloop's": ("4.00", False),
        # 3,000 connections say nothing about 10,000
        "10,000 connections under 1,536 MB": ("peak 170.0 MB with 3,000", None),
    }


def test_a_smaller_run_is_never_judged_met() -> None:
    judged = _judged(_report(100, 100, 200.0))
    assert {met for _, met in judged.values()} == {None}
    lines = [v.line() for v in targets.verdicts(_report(100, 100, 200.0))]
    assert lines[0] == (
        "full speed, frames/s at least 0.5 x the echo's: 0.62: not judged: the target is set for "
        "--games 1000 --spectators 1000"
    )
    assert lines[1].endswith("set for --games 1000 --spectators 1000 --rate 1000")
    assert lines[-1].endswith("set for 10,000 connections (2 x --games + --spectators)")


def test_the_steady_target_needs_its_rate() -> None:
    judged = _judged(_report(1000, 1000, 500.0))
    assert judged["full speed, frames/s at least 0.5 x the echo's"][1] is True
    assert judged["steady 1,000 moves/s, p99 at most 3 x the echo's"][1] is None


def test_medians_of_rounds_are_judged_and_memory_takes_the_highest_peak() -> None:
    rounds = [
        {"boardhall_peak_mb": 300.0},
        {"boardhall_peak_mb": 1600.0},
        {"boardhall_peak_mb": 290.0},
    ]
    median = {"echo": {"rate": {"p99": 3.2}}}
    report = _report(2500, 5000, 1000.0, rounds=rounds, median_ratios=median)
    judged = _judged(report)
    assert judged["steady 1,000 moves/s, p99 at most 3 x the echo's"] == ("3.20", False)
    assert judged["10,000 connections under 1,536 MB"] == ("peak 1600.0 MB with 10,000", False)
    assert "NOT met" in targets.verdicts(report)[-1].line()
