"""Glicko-2 ratings, as in Glickman's "Example of the Glicko-2 system" (pure arithmetic).

Each rated game is a rating period of its own (as lichess does for online play). Time away from
the game counts as one period without games (step 6) per day, as lichess treats it: the deviation
grows by the volatility for each day since the rating was last updated (:func:`grown`), up to the
initial deviation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

INITIAL_RATING = 1500.0
INITIAL_DEVIATION = 350.0
INITIAL_VOLATILITY = 0.06
TAU = 0.5
"""The system constant: how much the volatility may change (the paper's example uses 0.5)."""
SCALE = 173.7178
"""Glicko-2's scale factor between the Glicko scale and its own (step 2)."""
EPSILON = 0.000001
"""The convergence tolerance of the volatility iteration (step 5)."""


@dataclass(frozen=True)
class Rating:
    """A player's Glicko-2 rating on the Glicko scale."""

    rating: float = INITIAL_RATING
    deviation: float = INITIAL_DEVIATION
    volatility: float = INITIAL_VOLATILITY
    games: int = 0
    """Rated games played."""
    updated: float | None = None
    """When the rating was last updated, in wall seconds since the epoch (None: not known)."""


@dataclass(frozen=True)
class Result:
    """One game of a rating period: the opponent's rating and the score (1, 0.5 or 0)."""

    opponent: Rating
    score: float


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _new_volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """Step 5: the Illinois iteration for the new volatility."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


DAY = 86400.0
"""The length of the rating period of time away (step 6 for each), in seconds."""


def grown(rating: Rating, now: float) -> Rating:
    """``rating`` as of the wall time ``now``: its deviation grown as step 6 does once per day
    (fractions included) since :attr:`Rating.updated`, at most :data:`INITIAL_DEVIATION`. A
    rating of an unknown time, or a ``now`` before it, is returned as it is."""
    if rating.updated is None or now <= rating.updated:
        return rating
    days = (now - rating.updated) / DAY
    phi = rating.deviation / SCALE
    deviation = math.sqrt(phi * phi + days * rating.volatility * rating.volatility) * SCALE
    return replace(rating, deviation=min(deviation, max(rating.deviation, INITIAL_DEVIATION)))


def rate(player: Rating, results: Sequence[Result], tau: float = TAU) -> Rating:
    """``player``'s rating after one rating period with ``results`` (steps 2 to 8 of the
    paper). Raises :class:`ValueError` for a score other than 0, 0.5 or 1.

    >>> after = rate(Rating(1500, 200), [Result(Rating(1400, 30), 1),
    ...     Result(Rating(1550, 100), 0), Result(Rating(1700, 300), 0)])
    >>> round(after.rating, 2), round(after.deviation, 2), round(after.volatility, 6)
    (1464.05, 151.52, 0.059996)
    """
    for result in results:
        if result.score not in (0, 0.5, 1):
            raise ValueError(f"a game's score is 0, 0.5 or 1, not {result.score!r}")
    mu = (player.rating - INITIAL_RATING) / SCALE
    phi = player.deviation / SCALE
    if not results:  # step 6 alone: only the deviation grows
        grown = math.sqrt(phi * phi + player.volatility * player.volatility)
        return Rating(player.rating, grown * SCALE, player.volatility, player.games)
    inverse_v = 0.0
    gains = 0.0
    for result in results:
        mu_j = (result.opponent.rating - INITIAL_RATING) / SCALE
        phi_j = result.opponent.deviation / SCALE
        expected = _expected(mu, mu_j, phi_j)
        inverse_v += _g(phi_j) ** 2 * expected * (1.0 - expected)
        gains += _g(phi_j) * (result.score - expected)
    v = 1.0 / inverse_v
    delta = v * gains
    sigma = _new_volatility(phi, player.volatility, delta, v, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * gains
    return Rating(
        new_mu * SCALE + INITIAL_RATING, new_phi * SCALE, sigma, player.games + len(results)
    )
