"""A player's profile: ``GET /players/ID``, read from storage.

The profile has the player's name, when the server first and last saw them in a game,
whether they are online and when they last were (a connection of theirs began or ended: stored
by :meth:`server.hall.Hall._stamp_online`), every rating pool they have (as the room shows
each: as of now, its deviation grown by the days since its last game,
:meth:`server.ratings.RatingBook.current`, and provisional as the room marks it) and totals
over their finished games, in all, by game and by game and variant (each keyed as its rating
pool is: :func:`server.ratings.rating_key`).

The totals count every finished game, private ones too (as lichess counts them), but the
profile names no private game: what a private game was stays with its players. They are read
with :data:`TOTALS_QUERY` from the ``games_first_variant_totals`` and
``games_second_variant_totals`` indexes alone (:data:`server.storage.LATER_INDEXES`): a search
for the player in each, never a visit of the games' rows.

The profile also lists the player's :data:`RECENT_GAMES` most recent finished public games
(:data:`RECENT_QUERY`), each as ``GET /games?player=`` lists it
(:func:`server.listing.listed_game`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from server.glicko2 import Rating
from server.listing import listed_game, outcome
from server.ratings import STANDARD, is_provisional, rating_key, shown, shown_rd
from server.storage import Storage

TOTALS_QUERY = (
    "SELECT status, game, variant, side, result, COUNT(*), MIN(created),"
    " MAX(COALESCE(ended, created))"
    " FROM (SELECT status, game, variant, 'first' AS side, result, created, ended FROM games"
    " WHERE first_player = ?1"
    " UNION ALL SELECT status, game, variant, 'second' AS side, result, created, ended"
    " FROM games WHERE second_player = ?1)"
    " GROUP BY status, game, variant, side, result"
)
"""A player's (``?1``) games counted by status, game, variant, seat and result, with the
first start and the last start or end of each group: one search in each seat's covering
index."""

NAME_QUERY = (
    "SELECT name, (SELECT at FROM last_online WHERE last_online.player = identities.player)"
    " FROM identities WHERE player = ?"
)
"""A player's name and when they were last online (None: never recorded)."""

RECENT_GAMES = 10
"""How many of the player's finished public games the profile lists."""

RECENT_QUERY = (
    "SELECT meta, (SELECT COUNT(*) FROM moves WHERE moves.game_id = recent.id) FROM ("
    "SELECT id, meta, created, rowid AS position FROM games"
    " WHERE first_player = ?1 AND status = 'over' AND private = 0"
    " UNION ALL SELECT id, meta, created, rowid FROM games"
    " WHERE second_player = ?1 AND first_player IS NOT ?1 AND status = 'over' AND private = 0"
    " ORDER BY created DESC, position DESC LIMIT ?2) AS recent"
    " ORDER BY created DESC, position DESC"
)
"""A player's (``?1``) ``?2`` most recent finished public games (newest first, as
``/games?player=`` orders them) and their numbers of stored moves: each seat's
``games_first``/``games_second`` index walked newest first and merged, so only the rows up to
the last one listed are read, and the moves counted in their primary key."""


@dataclass
class Totals:
    """Finished games counted from the player's side."""

    games: int = 0
    """Games with a result: ``wins + losses + draws``."""
    wins: int = 0
    losses: int = 0
    draws: int = 0
    aborted: int = 0
    """Finished without a result (aborted before both sides moved); not in ``games``."""

    def add(self, side: str, result: str | None, count: int) -> None:
        """Count ``count`` finished games that ended ``result`` (``first``, ``second``,
        ``draw`` or None) for the player in seat ``side``."""
        ending = outcome(side, result)
        if ending == "aborted":
            self.aborted += count
            return
        self.games += count
        if ending == "draw":
            self.draws += count
        elif ending == "win":
            self.wins += count
        else:
            self.losses += count

    def as_json(self) -> dict[str, int]:
        """The counts as the profile gives them."""
        return {"games": self.games, "wins": self.wins, "losses": self.losses,
                "draws": self.draws, "aborted": self.aborted}


@dataclass
class Profile:
    """What ``/players/ID`` answers, as read."""

    player: str
    name: str
    ratings: dict[str, Rating]
    """Every rating pool the player has, by key, as of now."""
    totals: Totals = field(default_factory=Totals)
    by_game: dict[str, Totals] = field(default_factory=dict)
    by_variant: dict[str, Totals] = field(default_factory=dict)
    """The totals of each game and variant, by rating key (``chess``, ``custom/xiangqi``)."""
    first_seen: str | None = None
    """When the player's first stored game began (``2026-11-27T08:20:00Z``); None: no game."""
    last_seen: str | None = None
    """When the player's last stored game began or ended, whichever is later."""
    last_online: str | None = None
    """When a connection of the player's last began or ended (None: never recorded)."""
    recent: list[dict[str, Any]] = field(default_factory=list)
    """The stored metadata (with ``plies``) of the player's most recent finished public games,
    newest first."""


def profile_of(
    storage: Storage, player: str, current: Callable[[Rating], Rating]
) -> Profile | None:
    """``player``'s profile (None: no such player stored), each rating as ``current`` makes
    it (as of now). Blocking: run on the storage's reader thread."""
    row = storage.db.execute(NAME_QUERY, (player,)).fetchone()
    if row is None:
        return None
    ratings = {key: current(rating) for key, rating in storage.ratings(player).items()}
    profile = Profile(player, str(row[0]), ratings, last_online=row[1])
    for status, game, variant, side, result, count, first, last in storage.db.execute(
        TOTALS_QUERY, (player,)
    ):
        if first is not None and (profile.first_seen is None or first < profile.first_seen):
            profile.first_seen = str(first)
        if last is not None and (profile.last_seen is None or last > profile.last_seen):
            profile.last_seen = str(last)
        if status != "over":
            continue
        profile.totals.add(side, result, count)
        profile.by_game.setdefault(str(game), Totals()).add(side, result, count)
        key = rating_key(str(game), str(variant))
        profile.by_variant.setdefault(key, Totals()).add(side, result, count)
    rows = storage.db.execute(RECENT_QUERY, (player, RECENT_GAMES))
    profile.recent = [{**json.loads(meta), "plies": plies} for meta, plies in rows]
    return profile


def pool_fields(key: str) -> dict[str, str]:
    """A rating key as the profile spells it: the ``key``, its ``game`` and its ``variant``.

    >>> pool_fields("custom/xiangqi")
    {'key': 'custom/xiangqi', 'game': 'custom', 'variant': 'xiangqi'}
    >>> pool_fields("chess")["variant"]
    'standard'
    """
    game, _, variant = key.partition("/")
    return {"key": key, "game": game, "variant": variant or STANDARD}


def most_played(counts: dict[str, Totals]) -> list[tuple[str, Totals]]:
    """``counts`` most finished games first (aborted ones count), ties by name."""
    return sorted(counts.items(), key=lambda item: (-(item[1].games + item[1].aborted), item[0]))


def answer(profile: Profile, online: bool) -> dict[str, Any]:
    """The JSON body of ``/players/ID``: the player's id and name, when first and last seen
    in a game (None without a game), whether ``online`` (a connection now) and when last
    online (None: never recorded), the rating pools (most rated games first, each with its ``key``,
    ``game``, ``variant``, ``rating`` and ``rd`` as the room shows them, rated ``games`` and
    whether it is ``provisional``), the ``totals``, the same ``by_game`` (most games first),
    the same ``by_variant`` (a list, most games first, each with its ``key``, ``game`` and
    ``variant`` spelled as its rating pool's) and the ``recent`` finished public games,
    newest first, each as ``/games?player=`` lists it (:func:`server.listing.listed_game`:
    with the player's ``seat`` and ``outcome``)."""
    pools = sorted(profile.ratings.items(), key=lambda item: (-item[1].games, item[0]))
    return {
        "player": profile.player,
        "name": profile.name,
        "first_seen": profile.first_seen,
        "last_seen": profile.last_seen,
        "online": online,
        "last_online": profile.last_online,
        "ratings": [
            {
                **pool_fields(key),
                "rating": shown(rating),
                "rd": shown_rd(rating),
                "games": rating.games,
                "provisional": is_provisional(rating),
            }
            for key, rating in pools
        ],
        "totals": profile.totals.as_json(),
        "by_game": {game: totals.as_json() for game, totals in most_played(profile.by_game)},
        "by_variant": [
            {**pool_fields(key), **totals.as_json()}
            for key, totals in most_played(profile.by_variant)
        ],
        "recent": [listed_game(meta, profile.player) for meta in profile.recent],
    }
