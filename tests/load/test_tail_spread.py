"""``harness.tail_spread``: where in time a run's slowest moves fell."""

from __future__ import annotations

from bench import harness


def _run(stalls: set[int]) -> list[tuple[float, float]]:
    """Ten seconds at 100 moves/s, 1 ms each, 50 ms during the 100-ms windows in ``stalls``."""
    samples = [(100.0, 0.001)]  # the run's start; the others sit well inside their windows
    for i in range(1000):
        sent = 100.0 + (i + 0.5) / 100
        slow = int(i / 10) in stalls
        samples.append((sent, 0.050 if slow else 0.001))
    return samples


def test_a_tail_made_by_two_stalls_is_found_in_two_windows() -> None:
    """Twenty slow moves in two windows: the p99 is theirs, the typical second's is not."""
    spread = harness.tail_spread(_run({12, 77}))
    assert (spread.windows_hit, spread.windows) == (2, 100)
    assert spread.per_second_p99_median == 0.001


def test_a_tail_spread_over_every_second_shows_in_the_per_second_median() -> None:
    """A slow window in every second: each second's p99 is slow too."""
    spread = harness.tail_spread(_run({s * 10 + 3 for s in range(10)}))
    assert spread.windows_hit == 10
    assert spread.per_second_p99_median == 0.050


def test_no_samples_give_zeros() -> None:
    """An empty phase (a target that made no move) reports nothing rather than failing."""
    assert harness.tail_spread([]) == harness.TailSpread(0, 0, 0.0)
