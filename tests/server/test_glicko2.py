"""Glicko-2 against the worked example of Glickman's "Example of the Glicko-2 system"."""

from __future__ import annotations

import doctest

import pytest

import server.glicko2
from server.glicko2 import Rating, Result, rate

PAPER_PLAYER = Rating(1500, 200, 0.06)
PAPER_RESULTS = [
    Result(Rating(1400, 30), 1),
    Result(Rating(1550, 100), 0),
    Result(Rating(1700, 300), 0),
]


def test_the_papers_worked_example() -> None:
    """The paper's player: new rating 1464.06, RD 151.52, volatility 0.05999 (the paper
    rounds mu' to -0.2069 before scaling back: exactly it is 1464.0507; and its sigma'
    0.05999 is 0.059996 cut, not rounded)."""
    after = rate(PAPER_PLAYER, PAPER_RESULTS)
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert round(after.rating, 2) == 1464.05
    assert after.deviation == pytest.approx(151.52, abs=0.005)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)
    assert after.volatility < 0.06
    assert after.games == 3


def test_the_papers_intermediate_values() -> None:
    """mu' = -0.2069 and phi' = 0.8722 on the Glicko-2 scale (step 7)."""
    after = rate(PAPER_PLAYER, PAPER_RESULTS)
    assert (after.rating - 1500) / 173.7178 == pytest.approx(-0.2069, abs=0.00005)
    assert after.deviation / 173.7178 == pytest.approx(0.8722, abs=0.00005)


def test_a_period_without_games_only_widens_the_deviation() -> None:
    """Step 6 alone: phi* = sqrt(phi^2 + sigma^2)."""
    after = rate(Rating(1600, 50, 0.06, 7), [])
    assert (after.rating, after.volatility, after.games) == (1600, 0.06, 7)
    assert after.deviation == pytest.approx(173.7178 * ((50 / 173.7178) ** 2 + 0.06**2) ** 0.5)


def test_a_new_player_winning_against_a_new_player() -> None:
    """Two new players (1500/350/0.06): the winner gains what the loser loses, and both
    deviations shrink; a draw between equals moves neither rating."""
    win = rate(Rating(), [Result(Rating(), 1)])
    loss = rate(Rating(), [Result(Rating(), 0)])
    draw = rate(Rating(), [Result(Rating(), 0.5)])
    assert win.rating - 1500 == pytest.approx(1500 - loss.rating)
    assert 150 < win.rating - 1500 < 200
    assert win.deviation < 350 and loss.deviation < 350
    assert draw.rating == pytest.approx(1500)


def test_a_score_that_is_no_result_is_refused() -> None:
    """A score other than 0, 0.5 or 1 is a ValueError naming it."""
    with pytest.raises(ValueError, match=r"0\.7"):
        rate(Rating(), [Result(Rating(), 0.7)])


def test_docstring_example() -> None:
    """The module's doctest runs."""
    assert doctest.testmod(server.glicko2).failed == 0
