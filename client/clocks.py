"""The clocks a player picks by name: the lobby's quick-game presets and the ``M+S`` / ``Ns/move``
notation they are shown in (read back by ``boardhall bot --clock``). No pygame here: the headless
bot uses it too."""

from __future__ import annotations

import re

from protocol.limits import CLOCK_SECONDS_MAX

FISCHER = [("3+2", {"initial": 180, "increment": 2}), ("5+3", {"initial": 300, "increment": 3}),
           ("10+5", {"initial": 600, "increment": 5})]
"""The Fischer quick-game presets, the same for every game."""
PER_MOVE = {"chess": 20, "shuqi": 30}
"""The per-move quick-game preset of a game, in seconds (first in its list)."""


def clock_presets(game: str) -> list[tuple[str, dict[str, int]]]:
    """The quick-seek clocks for ``game``: its per-move preset (if any) then Fischer ones, each as
    ``(label, wire clock)``."""
    presets: list[tuple[str, dict[str, int]]] = []
    if game in PER_MOVE:
        presets.append((f"{PER_MOVE[game]} s/move", {"per_move": PER_MOVE[game]}))
    return presets + [(label, dict(clock)) for label, clock in FISCHER]


_FISCHER = re.compile(r"([0-9]+(?:\.[0-9]+)?)(s?)\+([0-9]+)")
_PER_MOVE = re.compile(r"([0-9]+)s(?:/move)?")


def parse_clock(text: str) -> dict[str, int] | None:
    """The wire ``clock`` of a ``--clock`` value, ``None`` for ``untimed``.

    Accepts what the lobby shows: ``M+S`` (``5+3``: 5 minutes, 3 s added a move; ``30s+2`` for
    a main time under a minute), ``Ns/move`` or ``Ns`` (``20 s/move``: 20 s for each move), and
    ``untimed``. Spaces and case do not matter.

    Raises:
        ValueError: anything else, naming the value.
    """
    word = "".join(text.split()).lower()
    if word in ("untimed", "none"):
        return None
    clock: dict[str, int] | None = None
    fischer = _FISCHER.fullmatch(word)
    per_move = _PER_MOVE.fullmatch(word)
    if fischer:
        amount, seconds, increment = fischer.groups()
        initial = float(amount) * (1 if seconds else 60)  # the lobby writes 1.5+0 for 90 s
        if initial == int(initial):
            clock = {"initial": int(initial), "increment": int(increment)}
    elif per_move:
        clock = {"per_move": int(per_move.group(1))}
    limit = (clock.get("initial") or clock.get("per_move")) if clock else None
    if clock is None or not limit or max(clock.values()) > CLOCK_SECONDS_MAX:
        raise ValueError(
            f"--clock {text!r} is no clock: use M+S (5+3: 5 minutes and 3 s added a move), "
            "Ns/move (20s/move: 20 s for each move) or untimed"
        )
    return clock
