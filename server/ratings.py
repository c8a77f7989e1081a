"""Which games are rated, under which rating, and the ratings of the players in memory (no I/O).

A player has one Glicko-2 rating (:mod:`server.glicko2`) per game and variant: the key is the
game id, followed by ``/variant`` unless the variant is ``standard`` (``chess``,
``draughts/russian``, ``custom/xiangqi``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from server.glicko2 import Rating, Result, grown, rate

STANDARD = "standard"
"""The variant id a rating key leaves out (a game's only or usual variant)."""


def rating_key(game: str, variant: str) -> str:
    """The rating a game of ``game`` and ``variant`` counts for.

    >>> rating_key("chess", "standard"), rating_key("draughts", "russian")
    ('chess', 'draughts/russian')
    """
    return game if variant == STANDARD else f"{game}/{variant}"


@dataclass(frozen=True)
class GameFacts:
    """What decides whether a finished game is rated."""

    result: str | None
    """``first``, ``second``, ``draw``, or None (aborted)."""
    both_moved: bool
    any_bot: bool
    """A seat is a bot: the server's or a program that says hello as ``Bot ...``."""
    timed: bool
    standard_start: bool
    """Started from the variant's own start (no ``position`` or ``record``)."""
    default_options: bool


def unrated_because(facts: GameFacts) -> str | None:
    """Why a finished game is not rated, or None when it is.

    Rated: a result (not aborted), both sides having moved (so an abandoned or resigned game
    before the second side's first move counts for nobody), two players none of whom is a bot,
    a clock, the variant's own start and the game's default options. Private games are rated
    as public ones are."""
    if facts.result is None:
        return "no result"
    if not facts.both_moved:
        return "a side never moved"
    if facts.any_bot:
        return "a bot played"
    if not facts.timed:
        return "untimed"
    if not facts.standard_start:
        return "started from a position"
    if not facts.default_options:
        return "options other than the defaults"
    return None


@dataclass(frozen=True)
class NewRating:
    """One player's rating before and after a rated game."""

    player: str
    before: Rating
    after: Rating


SCORES = {"first": (1.0, 0.0), "second": (0.0, 1.0), "draw": (0.5, 0.5)}


def rate_game(
    first: tuple[str, Rating], second: tuple[str, Rating], result: str
) -> tuple[NewRating, NewRating]:
    """Both players' changes for one rated game (a rating period of its own), each rated
    against the other's rating before the game. Raises :class:`ValueError` for a result that
    is not ``first``, ``second`` or ``draw``."""
    if result not in SCORES:
        raise ValueError(f"a rated game's result is first, second or draw, not {result!r}")
    score_first, score_second = SCORES[result]
    (a, rating_a), (b, rating_b) = first, second
    return (
        NewRating(a, rating_a, rate(rating_a, [Result(rating_b, score_first)])),
        NewRating(b, rating_b, rate(rating_b, [Result(rating_a, score_second)])),
    )


class RatingBook:
    """The ratings of the players in memory, by player and key; a player not loaded has none
    (a new player's: 1500, deviation 350). Ratings are kept as last updated and grown by the
    time since (:func:`server.glicko2.grown`) whenever they are read, by the wall clock ``wall``
    (seconds since the epoch)."""

    def __init__(self, wall: Callable[[], float] = time.time) -> None:
        self._players: dict[str, dict[str, Rating]] = {}
        self.wall = wall
        """The wall clock ratings are grown by (seconds since the epoch)."""

    def knows(self, player: str) -> bool:
        """Whether ``player``'s ratings are loaded."""
        return player in self._players

    def load(self, player: str, ratings: Mapping[str, Rating]) -> None:
        """Take ``player``'s stored ratings, unless they are in memory already (then those are
        newer: a rated game's write may still be on its way)."""
        if player not in self._players:
            self._players[player] = dict(ratings)

    def forget(self, player: str) -> None:
        """Drop ``player``'s ratings from memory (storage keeps them)."""
        self._players.pop(player, None)

    def get(self, player: str, key: str) -> Rating:
        """``player``'s rating for ``key`` as of now (the initial rating if never rated)."""
        rating = self._players.get(player, {}).get(key)
        return self.current(rating) if rating else Rating()

    def current(self, rating: Rating) -> Rating:
        """A rating as last updated (in memory or stored), as of now: its deviation grown by
        the days since (what every rating shown or rated from is)."""
        return grown(rating, self.wall())

    def play(self, key: str, first: str, second: str, result: str) -> tuple[NewRating, NewRating]:
        """Rate a game of ``key`` between ``first`` and ``second`` (their ratings as of now)
        and keep the new ratings, stamped with the time."""
        now = self.wall()
        a, b = rate_game((first, self.get(first, key)), (second, self.get(second, key)), result)
        changes = (
            replace(a, after=replace(a.after, updated=now)),
            replace(b, after=replace(b.after, updated=now)),
        )
        for change in changes:
            self._players.setdefault(change.player, {})[key] = change.after
        return changes


def shown(rating: Rating) -> int:
    """A rating as players see it: a whole number."""
    return round(rating.rating)


PROVISIONAL_RD = 110
"""A rating whose shown deviation is above this is provisional (the room shows "1500?")."""


def shown_rd(rating: Rating) -> int:
    """A rating's deviation as players get it (``rd``): a whole number."""
    return round(rating.deviation)


def is_provisional(rating: Rating) -> bool:
    """Whether ``rating`` (as of now: :meth:`RatingBook.current`) is provisional, as the room
    marks it: its shown deviation above :data:`PROVISIONAL_RD`.

    >>> is_provisional(Rating(1500, 110.4)), is_provisional(Rating(1500, 111))
    (False, True)
    """
    return shown_rd(rating) > PROVISIONAL_RD


def change_of(meta: Mapping[str, Any], player: str) -> int | None:
    """What the stored game ``meta`` did to ``player``'s rating (shown after minus shown
    before), or None: an unrated game, or one ``player`` has no seat in."""
    changes, seats = meta.get("ratings"), meta.get("seats")
    if not isinstance(changes, dict) or not isinstance(seats, dict):
        return None
    for side, seat in seats.items():
        change = changes.get(side)
        if isinstance(seat, dict) and seat.get("player") == player and isinstance(change, dict):
            before, after = change.get("before"), change.get("after")
            if isinstance(before, int) and isinstance(after, int):
                return after - before
    return None
