"""Prometheus text metrics: counters, gauges and latency histograms, no dependency.

Names follow Prometheus' conventions: a counter ends in ``_total`` and never goes down (it starts
again from 0 when the server restarts, which Prometheus' ``rate()`` expects); a gauge says how
many there are now, and a labelled gauge shows every value of its label (0 included), so that a
series goes back to 0 rather than vanishing; durations are in seconds (``_seconds``). Nothing
here allocates per move: a move adds to counters and to one histogram bucket.
"""

from __future__ import annotations

import bisect
import itertools
from collections import Counter
from collections.abc import Callable, Iterable

BUCKETS_S = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)
"""Move handling latency buckets in seconds."""

COMMIT_BUCKETS_S = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 2.5, 10.0)
"""Commit (and log sync) latency buckets in seconds: a slow disk shows in the top ones."""

ROOM_STATES = ("waiting", "playing", "over")
"""The states a room is in (``boardhall_rooms_by_state``)."""

REFUSED = (
    "handshake_limit",
    "tls_on_plain_port",
    "bad_request",
    "no_request",
    "closed_1007",
    "closed_1008",
    "closed_1009",
)
"""Why the server refused or closed a connection (``boardhall_refused_total``): more unfinished
handshakes than ``--connections-per-address`` allows, a TLS greeting on the plain port (a
``wss://`` client of a ``ws://`` server), bytes that are not an HTTP request, a socket closed or
timed out before its request (a port scan), and the server's closes 1007 (text not UTF-8), 1008
(a flood, too many connections) and 1009 (a message too big)."""


DISCOVERY_OUTCOMES = ("answered", "not_a_probe", "rate_limited")
"""What became of a LAN discovery datagram (``boardhall_discovery_datagrams_total``): an
answer, nothing (not a well-formed probe), nothing (over the rate limit)."""


def label(value: str) -> str:
    """``value`` escaped for a label value of the text exposition (backslash, quote, newline)."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


class Histogram:
    """Observations in fixed buckets (seconds)."""

    def __init__(self, bounds: tuple[float, ...]) -> None:
        self.bounds = bounds
        self.buckets = [0] * (len(bounds) + 1)
        """Observations per bucket, not cumulative (the last is over every bound)."""
        self.count = 0
        self.sum = 0.0

    def observe(self, seconds: float) -> None:
        """Count one observation."""
        self.count += 1
        self.sum += seconds
        self.buckets[bisect.bisect_left(self.bounds, seconds)] += 1

    def lines(self, name: str, help_text: str) -> list[str]:
        """The histogram's HELP, TYPE and sample lines."""
        lines = [f"# HELP {name} {help_text}", f"# TYPE {name} histogram"]
        cumulative = itertools.accumulate(self.buckets)
        for bound, count in zip(self.bounds, cumulative, strict=False):
            lines.append(f'{name}_bucket{{le="{bound}"}} {count}')
        lines += [
            f'{name}_bucket{{le="+Inf"}} {self.count}',
            f"{name}_sum {self.sum:.6f}",
            f"{name}_count {self.count}",
        ]
        return lines


class Metrics:
    """What ``GET /metrics`` shows."""

    def __init__(self, version: str = "unknown", started: float = 0.0) -> None:
        self.version = version
        self.started = started
        """Unix time the server started (``boardhall_start_time_seconds``)."""
        self.connections_total = 0
        self.moves_total = 0
        self.messages_total = 0
        self.errors: Counter[str] = Counter()
        self.refused: Counter[str] = Counter()
        """Refused or closed connections by reason, one of :data:`REFUSED`."""
        self.discovery: Counter[str] = Counter()
        """LAN discovery datagrams by outcome, one of :data:`DISCOVERY_OUTCOMES`."""
        self.move = Histogram(BUCKETS_S)
        self.commit = Histogram(COMMIT_BUCKETS_S)
        """From the start of a commit until its writes are durable (synced, with ``--sync
        full``), per commit (one commit holds every write of a turn of the event loop)."""

    # the move histogram under its former names
    @property
    def latency_buckets(self) -> list[int]:
        """Moves per bucket, not cumulative (the last is over every bound)."""
        return self.move.buckets

    @property
    def latency_count(self) -> int:
        """Moves observed."""
        return self.move.count

    @property
    def latency_sum(self) -> float:
        """Seconds of every move observed, added up."""
        return self.move.sum

    def observe_move(self, seconds: float) -> None:
        """Record how long handling one move took (until its broadcast was written)."""
        self.move.observe(seconds)

    def render(
        self,
        connections: int,
        rooms_by_game: dict[str, int],
        seeks: int,
        storage_held: int = 0,
        storage_failures: int = 0,
        *,
        games: Iterable[str] = (),
        rooms_by_state: dict[str, int] | None = None,
        bot_games: int = 0,
        bot_games_limit: int = 0,
        storage_failing: bool = False,
        stopping: bool = False,
    ) -> str:
        """The Prometheus text exposition (``games``: every game served, shown with 0 rooms)."""
        by_game = dict.fromkeys(games, 0) | rooms_by_game
        by_state = dict.fromkeys(ROOM_STATES, 0) | (rooms_by_state or {})
        lines = [
            "# HELP boardhall_build_info The server's version (the value is always 1).",
            "# TYPE boardhall_build_info gauge",
            f'boardhall_build_info{{version="{label(self.version)}"}} 1',
            "# HELP boardhall_start_time_seconds Unix time the server started.",
            "# TYPE boardhall_start_time_seconds gauge",
            f"boardhall_start_time_seconds {self.started:.3f}",
            "# HELP boardhall_stopping 1 while the server is stopping (SIGTERM), else 0.",
            "# TYPE boardhall_stopping gauge",
            f"boardhall_stopping {int(stopping)}",
            # not boardhall_connections: that is the family of boardhall_connections_total
            "# HELP boardhall_open_connections Open WebSocket connections.",
            "# TYPE boardhall_open_connections gauge",
            f"boardhall_open_connections {connections}",
            "# HELP boardhall_connections_total WebSocket connections accepted.",
            "# TYPE boardhall_connections_total counter",
            f"boardhall_connections_total {self.connections_total}",
            "# HELP boardhall_refused_total Connections refused or closed by the server, "
            "by reason.",
            "# TYPE boardhall_refused_total counter",
        ]
        for reason in REFUSED:
            lines.append(f'boardhall_refused_total{{reason="{reason}"}} {self.refused[reason]}')
        lines += [
            "# HELP boardhall_discovery_datagrams_total LAN discovery datagrams received, by "
            "outcome (answered, not_a_probe: ignored, rate_limited: not answered).",
            "# TYPE boardhall_discovery_datagrams_total counter",
        ]
        for outcome in DISCOVERY_OUTCOMES:
            lines.append(
                f'boardhall_discovery_datagrams_total{{outcome="{outcome}"}} '
                f"{self.discovery[outcome]}"
            )
        lines += [
            "# HELP boardhall_rooms Open rooms by game.",
            "# TYPE boardhall_rooms gauge",
        ]
        for game, count in sorted(by_game.items()):
            lines.append(f'boardhall_rooms{{game="{label(game)}"}} {count}')
        lines += [
            "# HELP boardhall_rooms_by_state Open rooms by state (waiting for a player, "
            "playing, over and still open for chat and rematch).",
            "# TYPE boardhall_rooms_by_state gauge",
        ]
        for state, count in by_state.items():
            lines.append(f'boardhall_rooms_by_state{{state="{label(state)}"}} {count}')
        lines += [
            "# HELP boardhall_bot_games Unfinished games against the computer (one bot process "
            "each).",
            "# TYPE boardhall_bot_games gauge",
            f"boardhall_bot_games {bot_games}",
            "# HELP boardhall_bot_games_limit Most unfinished games against the computer at "
            "once (--bot-games).",
            "# TYPE boardhall_bot_games_limit gauge",
            f"boardhall_bot_games_limit {bot_games_limit}",
            "# HELP boardhall_seeks Players waiting in matchmaking.",
            "# TYPE boardhall_seeks gauge",
            f"boardhall_seeks {seeks}",
            "# HELP boardhall_messages_total Client messages received.",
            "# TYPE boardhall_messages_total counter",
            f"boardhall_messages_total {self.messages_total}",
            "# HELP boardhall_moves_total Moves accepted.",
            "# TYPE boardhall_moves_total counter",
            f"boardhall_moves_total {self.moves_total}",
            "# HELP boardhall_storage_failing 1 while database commits fail (moves are held, "
            "/healthz answers 503), else 0.",
            "# TYPE boardhall_storage_failing gauge",
            f"boardhall_storage_failing {int(storage_failing)}",
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
        lines += self.move.lines(
            "boardhall_move_seconds", "Time from receiving a move to sending it out."
        )
        lines += self.commit.lines(
            "boardhall_commit_seconds",
            "Time from the start of a database commit until its writes are durable "
            "(committed, and synced to the disk with --sync full).",
        )
        return "\n".join(lines) + "\n"


Renderer = Callable[[], str]
