"""An oracle for number chess spans, independent of the engine's solver (tests only)."""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import cache


@cache
def reachable(numbers: tuple[int, ...]) -> frozenset[Fraction]:
    """Every value of every expression tree over ``numbers``, each used once (all splits)."""
    if len(numbers) == 1:
        return frozenset({Fraction(numbers[0])})
    found: set[Fraction] = set()
    n = len(numbers)
    for size in range(1, n):
        for chosen in itertools.combinations(range(n), size):
            left = tuple(sorted(numbers[i] for i in chosen))
            right = tuple(sorted(numbers[i] for i in range(n) if i not in chosen))
            for a in reachable(left):
                for b in reachable(right):
                    found.update((a + b, a - b, a * b))
                    if b:
                        found.add(a / b)
    return frozenset(found)
