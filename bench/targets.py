"""The load targets of the proof-under-load issue, judged from a ``bench/load.py`` report.

On the 2-core machine: 1,000 games with 1,000 spectators at full speed handle at least
:data:`FULL_FRAMES_AT_LEAST` of the echo's frames per second; at a steady 1,000 moves/s the p99
move latency is at most :data:`STEADY_P99_AT_MOST` times the echo's p99 at the same rate; 10,000
connected clients on one process take under :data:`MEMORY_LIMIT_MB` MB.

A run smaller than a target's size is "not judged" (with the flags the target is set for), never
"met": a tiny run proves nothing about the target. The relay (``--relay-loops``) is a yardstick,
not a target.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

FULL_FRAMES_AT_LEAST = 0.5
"""boardhall's frames/s at full speed, as a share of the echo's."""
STEADY_P99_AT_MOST = 3.0
"""boardhall's steady p99 latency, as a multiple of the echo's."""
MEMORY_LIMIT_MB = 1536.0
"""The server's peak memory with :data:`MEMORY_CONNECTIONS` clients connected (1.5 GB)."""
TARGET_GAMES = 1000
TARGET_SPECTATORS = 1000
TARGET_RATE = 1000.0
MEMORY_CONNECTIONS = 10_000
FULL_SIZE = f"--games {TARGET_GAMES} --spectators {TARGET_SPECTATORS}"
RATE_SIZE = f"{FULL_SIZE} --rate {TARGET_RATE:.0f}"
MEMORY_SIZE = f"{MEMORY_CONNECTIONS:,} connections (2 x --games + --spectators)"


@dataclass(frozen=True)
class Verdict:
    """One target judged on one run: ``met`` is None when the run is not the target's size."""

    target: str
    value: str
    met: bool | None
    size: str
    """The run the target is set for (named when this run is smaller)."""

    def line(self) -> str:
        """The verdict as one printed line."""
        if self.met is None:
            outcome = f"not judged: the target is set for {self.size}"
        else:
            outcome = "met" if self.met else "NOT met"
        return f"{self.target}: {self.value}: {outcome}"


def verdicts(report: dict[str, Any]) -> list[Verdict]:
    """Every target a ``load.py`` report (its JSON) has figures for, judged by the median of its
    rounds' ratios (the only round's when there is one)."""
    args = report["args"]
    full_size = args["games"] >= TARGET_GAMES and args["spectators"] >= TARGET_SPECTATORS
    rate_size = full_size and args["rate"] == TARGET_RATE
    ratios = report.get("median_ratios") or report.get("ratios") or {}
    found: list[Verdict] = []
    for label, by_phase in ratios.items():
        if label.startswith("relay"):
            continue
        if "full" in by_phase:
            share = by_phase["full"]["frames"]
            found.append(
                Verdict(
                    f"full speed, frames/s at least {FULL_FRAMES_AT_LEAST:g} x the {label}'s",
                    f"{share:.2f}",
                    share >= FULL_FRAMES_AT_LEAST if full_size else None,
                    FULL_SIZE,
                )
            )
        if "rate" in by_phase:
            multiple = by_phase["rate"]["p99"]
            found.append(
                Verdict(
                    f"steady {TARGET_RATE:,.0f} moves/s, p99 at most {STEADY_P99_AT_MOST:g} x the "
                    f"{label}'s",
                    f"{multiple:.2f}",
                    multiple <= STEADY_P99_AT_MOST if rate_size else None,
                    RATE_SIZE,
                )
            )
    peak = max(
        (r.get("boardhall_peak_mb", 0.0) for r in report.get("rounds") or [report]), default=0.0
    )
    if peak > 0:
        connections = 2 * args["games"] + args["spectators"]
        found.append(
            Verdict(
                f"{MEMORY_CONNECTIONS:,} connections under {MEMORY_LIMIT_MB:,.0f} MB",
                f"peak {peak:.1f} MB with {connections:,}",
                peak < MEMORY_LIMIT_MB if connections >= MEMORY_CONNECTIONS else None,
                MEMORY_SIZE,
            )
        )
    return found
