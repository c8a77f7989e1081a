"""The leaderboard: ``GET /ratings?game=G[&variant=V][&limit=N]``, the top players of one rating
pool (:func:`server.ratings.rating_key`), read from storage.

Each rating is shown as of now, as everywhere else (:meth:`server.ratings.RatingBook.current`:
its deviation grown by the days since its last game), and marked provisional as the room marks
it (:func:`server.ratings.is_provisional`). Established players come first, by rating; the
provisional ones follow, by rating (lichess leaves them out; here a new server's board is not
empty, and the flag says which are which).

The pool is read from the ``ratings_top`` index in rating order (:data:`TOP_QUERY`), and the
reading stops once the list is full: first the players whose stored deviation could still be
established (a deviation only grows with time), then, while the list is short, the rest.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

import engines
from engines.base import EngineError
from server.glicko2 import Rating
from server.ratings import PROVISIONAL_RD, is_provisional, rating_key, shown, shown_rd
from server.storage import Storage

QUERY = frozenset({"game", "variant", "limit"})
"""The query parameters ``/ratings`` takes."""

DEFAULT_LIMIT = 20
"""Players listed when the query gives no ``limit``."""
MAX_LIMIT = 100
"""The most players one answer lists."""

TOP_QUERY = (
    "SELECT r.player, i.name, r.rating, r.deviation, r.volatility, r.games, r.updated"
    " FROM ratings AS r LEFT JOIN identities AS i ON i.player = r.player"
    " WHERE r.key = ?1 AND r.deviation < ?2 ORDER BY r.rating DESC, r.player"
)
"""A pool's (``?1``) players whose stored deviation is below ``?2``, best first: the
``ratings_top`` index in its own order, no sort and no scan of other pools."""

ESTABLISHED_BELOW = PROVISIONAL_RD + 1.0
"""A stored deviation from which a rating is provisional whatever the time (it rounds above
:data:`~server.ratings.PROVISIONAL_RD`, and time only grows it)."""


class BadLeaderboardQuery(ValueError):
    """A ``/ratings`` query the server cannot answer: ``status`` (400 or 404) and a message
    naming what was wrong."""

    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Pool:
    """What a ``/ratings`` query asks for."""

    game: str
    variant: str
    limit: int

    @property
    def key(self) -> str:
        """The rating key (``chess``, ``draughts/international``)."""
        return rating_key(self.game, self.variant)


@dataclass(frozen=True)
class Standing:
    """One listed player: the stored rating as of now."""

    player: str
    name: str
    rating: Rating


def pool_of(query: Mapping[str, str]) -> Pool:
    """The pool and limit of a ``/ratings`` query (its parameters already checked to be known
    and given once).

    Raises:
        BadLeaderboardQuery: no game (400), a game or variant this server does not have
            (404), or a limit that is not a whole number from 1 to :data:`MAX_LIMIT` (400).
    """
    game = query.get("game")
    if not game:
        raise BadLeaderboardQuery(
            HTTPStatus.BAD_REQUEST, f"give ?game=G (games: {', '.join(engines.available())})"
        )
    try:
        engine = engines.get(game)
        asked = query.get("variant")
        if asked == "":  # the engine reads "" as its default variant: say it instead
            known = ", ".join(v.id for v in engine.variants())
            message = f"empty ?variant= (give one of {game}'s variants: {known}, or none)"
            raise BadLeaderboardQuery(HTTPStatus.BAD_REQUEST, message)
        variant = engine.resolve_variant(asked)
    except EngineError as exc:
        raise BadLeaderboardQuery(HTTPStatus.NOT_FOUND, str(exc)) from None
    raw = query.get("limit")
    limit = DEFAULT_LIMIT
    if raw is not None:
        # str.isdigit takes "５" and "²"; only ASCII digits are a number here
        number = int(raw) if raw.isascii() and raw.isdigit() else 0
        if not 1 <= number <= MAX_LIMIT:
            raise BadLeaderboardQuery(
                HTTPStatus.BAD_REQUEST,
                f"query parameter 'limit' is a whole number from 1 to {MAX_LIMIT}, not {raw!r}",
            )
        limit = number
    return Pool(game, variant, limit)


def top_players(
    storage: Storage, key: str, limit: int, current: Callable[[Rating], Rating]
) -> list[Standing]:
    """The ``limit`` best players of the pool ``key``: established ones by rating, then
    provisional ones by rating, each rating as ``current`` makes it (as of now). Blocking: run
    on the storage's reader thread."""
    established: list[Standing] = []
    seen: set[str] = set()
    for standing in _read(storage, key, ESTABLISHED_BELOW, current):
        if not is_provisional(standing.rating):
            established.append(standing)
            seen.add(standing.player)
            if len(established) == limit:
                return established
    provisional: list[Standing] = []
    for standing in _read(storage, key, math.inf, current):
        if standing.player not in seen:  # established: listed already
            provisional.append(standing)
            if len(established) + len(provisional) == limit:
                break
    return established + provisional


def _read(
    storage: Storage, key: str, below: float, current: Callable[[Rating], Rating]
) -> Iterator[Standing]:
    """The pool's players with a stored deviation below ``below``, best first, lazily."""
    for player, name, rating, deviation, volatility, games, updated in storage.db.execute(
        TOP_QUERY, (key, below)
    ):
        stored = Rating(rating, deviation, volatility, games, updated)
        yield Standing(str(player), str(name) if name is not None else "?", current(stored))


def answer(pool: Pool, standings: list[Standing]) -> dict[str, Any]:
    """The JSON body of ``/ratings``: the pool, the limit and the players in order, each with
    its rank, player id (as ``/games?player=`` takes it), name, rating and ``rd`` as the room
    shows them, rated games played and whether the rating is provisional."""
    return {
        "game": pool.game,
        "variant": pool.variant,
        "key": pool.key,
        "limit": pool.limit,
        "players": [
            {
                "rank": rank,
                "player": s.player,
                "name": s.name,
                "rating": shown(s.rating),
                "rd": shown_rd(s.rating),
                "games": s.rating.games,
                "provisional": is_provisional(s.rating),
            }
            for rank, s in enumerate(standings, 1)
        ],
    }
