"""The move latency histogram of ``GET /metrics``."""

from __future__ import annotations

from server.metrics import BUCKETS_S, Metrics


def _buckets(text: str) -> dict[str, int]:
    found = {}
    for line in text.splitlines():
        if line.startswith("boardhall_move_seconds_bucket"):
            bound = line.split('le="')[1].split('"')[0]
            found[bound] = int(line.rsplit(" ", 1)[1])
    return found


def test_buckets_are_cumulative_and_a_value_on_a_bound_counts_in_it() -> None:
    metrics = Metrics()
    for seconds in (0.0001, 0.0005, 0.003, 0.003, 0.3, 2.0):
        metrics.observe_move(seconds)
    buckets = _buckets(metrics.render(0, {}, 0))
    assert list(buckets) == [str(b) for b in BUCKETS_S] + ["+Inf"]
    assert buckets["0.0005"] == 2
    assert buckets["0.001"] == 2
    assert buckets["0.005"] == 4
    assert buckets["0.25"] == 4
    assert buckets["1.0"] == 5
    assert buckets["+Inf"] == 6 == metrics.latency_count
    counts = list(buckets.values())
    assert counts == sorted(counts)
    assert f"boardhall_move_seconds_sum {sum((0.0001, 0.0005, 0.003, 0.003, 0.3, 2.0)):.6f}" in (
        metrics.render(0, {}, 0)
    )
