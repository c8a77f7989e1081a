"""Find a span expression: the given numbers, each used once, making a target.

:func:`solve` is called for every candidate span during move generation (by bots, by the client's
hint button, by perft), so everything is memoised over sorted tuples of numbers:

- up to :data:`SMALL` numbers, :func:`values` lists every reachable value with one expression;
- above that, :func:`solve` splits the numbers in two, walks every value of the smaller part and
  asks the larger part (recursively) for the one value that completes the target.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from functools import cache, lru_cache
from typing import Final

SMALL: Final = 3
"""Multisets up to this size get their full value table."""
SOLVE_CACHE: Final = 1 << 14
"""Answers :func:`_solve` keeps (a server runs for weeks: every cache here is bounded). Random
games fill 16,384 in a little over a hundred games; ``bench/perft_shuqi.py`` measured no
difference from 131,072, which kept growing for thousands of games."""

_ADD, _MUL, _ATOM = 0, 1, 2
Expr = tuple[str, int]
"""An expression text and the precedence of its top operator (additive, multiplicative, atom)."""


def _combine(left: Expr, op: str, right: Expr) -> Expr:
    """``left op right`` with only the parentheses the grammar needs."""
    lt, lp = left
    rt, rp = right
    if op in "+-":
        if op == "-" and rp == _ADD:
            rt = f"({rt})"
        return f"{lt}{op}{rt}", _ADD
    if lp == _ADD:
        lt = f"({lt})"
    if rp == _ADD or (op == "/" and rp == _MUL):
        rt = f"({rt})"
    return f"{lt}{op}{rt}", _MUL


@lru_cache(maxsize=2048)
def _splits(numbers: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
    """Every distinct ordered split of a sorted multiset into two non-empty sorted parts."""
    n = len(numbers)
    seen: set[tuple[int, ...]] = set()
    out = []
    for mask in range(1, (1 << n) - 1):
        part = tuple(numbers[i] for i in range(n) if mask >> i & 1)
        if part in seen:
            continue
        seen.add(part)
        rest = tuple(numbers[i] for i in range(n) if not mask >> i & 1)
        out.append((part, rest))
    return tuple(out)


@cache
def values(numbers: tuple[int, ...]) -> dict[Fraction, Expr]:
    """Every value the sorted ``numbers`` can make (each used once), with one expression each."""
    if len(numbers) == 1:
        return {Fraction(numbers[0]): (str(numbers[0]), _ATOM)}
    table: dict[Fraction, Expr] = {}
    for part, rest in _splits(numbers):
        right_values = values(rest)
        for a, ea in values(part).items():
            for b, eb in right_values.items():
                for v, op in ((a + b, "+"), (a - b, "-"), (a * b, "*")):
                    if v not in table:
                        table[v] = _combine(ea, op, eb)
                if b != 0:
                    v = a / b
                    if v not in table:
                        table[v] = _combine(ea, "/", eb)
    return table


def _sum(numbers: tuple[int, ...]) -> Expr:
    if len(numbers) == 1:
        return str(numbers[0]), _ATOM
    return "+".join(map(str, numbers)), _ADD


@lru_cache(maxsize=SOLVE_CACHE)
def _solve(numbers: tuple[int, ...], target: Fraction) -> Expr | None:
    if len(numbers) <= SMALL:
        return values(numbers).get(target)
    for part, rest in _splits(numbers):
        if len(part) > len(rest):
            continue
        for a, ea in values(part).items():
            found = _complete(ea, a, rest, target)
            if found is not None:
                return found
    return None


def _complete(ea: Expr, a: Fraction, rest: tuple[int, ...], t: Fraction) -> Expr | None:
    """An expression ``ea op rest`` or ``rest op ea`` worth ``t``, or None."""
    eb = _solve(rest, t - a)
    if eb is not None:
        return _combine(ea, "+", eb)
    eb = _solve(rest, a - t)
    if eb is not None:
        return _combine(ea, "-", eb)
    eb = _solve(rest, t + a)
    if eb is not None:
        return _combine(eb, "-", ea)
    if a != 0:
        eb = _solve(rest, t / a)
        if eb is not None:
            return _combine(ea, "*", eb)
        eb = _solve(rest, t * a)
        if eb is not None:
            return _combine(eb, "/", ea)
        if t != 0:
            eb = _solve(rest, a / t)
            if eb is not None:
                return _combine(ea, "/", eb)
    elif t == 0:
        # 0 * anything, or 0 / anything that is not zero (a sum of digits, unless all are 0).
        return _combine(ea, "*", _sum(rest))
    return None


def solve(numbers: Iterable[int], target: int | Fraction) -> str | None:
    """One expression using each of ``numbers`` (digits 0-9) exactly once worth ``target``.

    Returns ``None`` when there is none. Raises ``ValueError`` for numbers that are not digits.

    >>> solve([6, 3], 9)
    '3+6'
    >>> solve([0, 0], 9) is None
    True
    """
    key = tuple(sorted(numbers))
    if not key:
        raise ValueError("solve needs at least one number")
    for n in key:
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 9:
            raise ValueError(f"span numbers are digits 0-9, not {n!r}")
    found = _solve(key, Fraction(target))
    return None if found is None else found[0]


def can_solve(numbers: tuple[int, ...], target: int) -> bool:
    """Fast check for move generation: ``numbers`` must already be a sorted tuple of digits."""
    return _solve(numbers, Fraction(target)) is not None
