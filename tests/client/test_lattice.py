"""The lattice helpers shared by the hexgomoku and number-chess boards."""

from __future__ import annotations

import pygame
import pytest

from client.boards.lattice import Lattice, SurfaceCache, format_pair, parse_pair


def test_lattice_maps_steps_and_turns_half_a_circle() -> None:
    """Points move by the step vectors from the origin; flipped mirrors them through the centre."""
    grid = Lattice((100.0, 50.0), (10.0, 0.0), (5.0, 8.0), origin=(7, 7))
    assert grid.xy(7, 7) == (100.0, 50.0)
    assert grid.xy(8, 7) == (110.0, 50.0)
    assert grid.xy(7, 8) == (105.0, 58.0)
    turned = Lattice((100.0, 50.0), (10.0, 0.0), (5.0, 8.0), origin=(7, 7), flipped=True)
    assert turned.xy(8, 8) == (85.0, 42.0)


def test_parse_pair_names_what_is_wrong() -> None:
    """A malformed pair and an off-board pair get different, specific messages."""
    assert parse_pair("3,-4", "thing", "a,b", lambda a, b: True, "is off") == (3, -4)
    assert format_pair(3, -4) == "3,-4"
    with pytest.raises(ValueError, match=r"not a thing: 'x' \(expected 'a,b'\)"):
        parse_pair("x", "thing", "a,b", lambda a, b: True, "is off")
    with pytest.raises(ValueError, match="'9,9' is off"):
        parse_pair("9,9", "thing", "a,b", lambda a, b: a < 5, "is off")


def test_surface_cache_paints_once_per_key_and_stays_small() -> None:
    """The same key is painted once; past the limit the cache starts afresh."""
    painted: list[int] = []

    def paint(n: int) -> pygame.Surface:
        painted.append(n)
        return pygame.Surface((1, 1))

    cache = SurfaceCache(limit=2)
    first = cache.get(1, lambda: paint(1))
    assert cache.get(1, lambda: paint(1)) is first
    cache.get(2, lambda: paint(2))
    cache.get(3, lambda: paint(3))
    cache.get(1, lambda: paint(1))
    assert painted == [1, 2, 3, 1]
