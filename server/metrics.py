"""Prometheus text metrics: counters, gauges and one latency histogram, no dependency."""

from __future__ import annotations

import bisect
import itertools
from collections import Counter
from collections.abc import Callable

BUCKETS_S = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)
"""Move handling latency buckets in seconds."""


def label(value: str) -> str:
    """``value`` escaped for a label value of the text exposition (backslash, quote, newline)."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


class Metrics:
    """What ``GET /metrics`` shows."""

    def __init__(self) -> None:
        self.connections_total = 0
        self.moves_total = 0
        self.messages_total = 0
        self.errors: Counter[str] = Counter()
        self.latency_buckets = [0] * (len(BUCKETS_S) + 1)
        """Moves per bucket, not cumulative (the last is over every bound)."""
        self.latency_count = 0
        self.latency_sum = 0.0

    def observe_move(self, seconds: float) -> None:
        """Record how long handling one move took (until its broadcast was written)."""
        self.latency_count += 1
        self.latency_sum += seconds
        self.latency_buckets[bisect.bisect_left(BUCKETS_S, seconds)] += 1

    def render(
        self,
        connections: int,
        rooms_by_game: dict[str, int],
        seeks: int,
        storage_held: int = 0,
        storage_failures: int = 0,
    ) -> str:
        """The Prometheus text exposition."""
        lines = [
            # not boardhall_connections: that is the family of boardhall_connections_total
            "# HELP boardhall_open_connections Open WebSocket connections.",
            "# TYPE boardhall_open_connections gauge",
            f"boardhall_open_connections {connections}",
            "# HELP boardhall_connections_total WebSocket connections accepted.",
            "# TYPE boardhall_connections_total counter",
            f"boardhall_connections_total {self.connections_total}",
            "# HELP boardhall_rooms Open rooms by game.",
            "# TYPE boardhall_rooms gauge",
        ]
        for game, count in sorted(rooms_by_game.items()):
            lines.append(f'boardhall_rooms{{game="{label(game)}"}} {count}')
        lines += [
            "# HELP boardhall_seeks Players waiting in matchmaking.",
            "# TYPE boardhall_seeks gauge",
            f"boardhall_seeks {seeks}",
            "# HELP boardhall_messages_total Client messages received.",
            "# TYPE boardhall_messages_total counter",
            f"boardhall_messages_total {self.messages_total}",
            "# HELP boardhall_moves_total Moves accepted.",
            "# TYPE boardhall_moves_total counter",
            f"boardhall_moves_total {self.moves_total}",
            "# HELP boardhall_storage_held_writes Writes waiting for a commit (not yet sent).",
            "# TYPE boardhall_storage_held_writes gauge",
            f"boardhall_storage_held_writes {storage_held}",
            "# HELP boardhall_storage_failures_total Commits that failed (and were tried again).",
            "# TYPE boardhall_storage_failures_total counter",
            f"boardhall_storage_failures_total {storage_failures}",
            "# HELP boardhall_errors_total Error replies by code.",
            "# TYPE boardhall_errors_total counter",
        ]
        for code, count in sorted(self.errors.items()):
            lines.append(f'boardhall_errors_total{{code="{label(code)}"}} {count}')
        lines += [
            "# HELP boardhall_move_seconds Time from receiving a move to sending it out.",
            "# TYPE boardhall_move_seconds histogram",
        ]
        cumulative = itertools.accumulate(self.latency_buckets)
        for bound, count in zip(BUCKETS_S, cumulative, strict=False):
            lines.append(f'boardhall_move_seconds_bucket{{le="{bound}"}} {count}')
        lines += [
            f'boardhall_move_seconds_bucket{{le="+Inf"}} {self.latency_count}',
            f"boardhall_move_seconds_sum {self.latency_sum:.6f}",
            f"boardhall_move_seconds_count {self.latency_count}",
        ]
        return "\n".join(lines) + "\n"


Renderer = Callable[[], str]
