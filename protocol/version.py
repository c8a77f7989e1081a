"""Protocol versions: an enumerated set, not an ordered scalar."""

from __future__ import annotations

KNOWN_VERSIONS: tuple[int, ...] = (1,)
"""Every protocol version this code speaks, oldest first."""

CURRENT_VERSION: int = KNOWN_VERSIONS[-1]
"""The version this code prefers."""


def is_known(version: object) -> bool:
    """True when ``version`` is one of :data:`KNOWN_VERSIONS` (unknown values are refused)."""
    return isinstance(version, int) and not isinstance(version, bool) and version in KNOWN_VERSIONS
