"""The leaderboard of one game and variant, for the lobby's "Top players" list.

``GET /ratings?game=G&variant=V&limit=100`` lists the best players of that rating pool
(established ones by rating, then provisional ones), read on a thread (:class:`BoardFetch`) so
the frame loop never waits for the network; :class:`TopPlayers` keeps what was read and for
which pool.
"""

from __future__ import annotations

import ssl
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any
from urllib.parse import urlencode

from client.address import http_url
from client.http_get import Fetch, FetchFailed, get_text, json_list
from client.room_model import known_variants, rating_label, variant_name, whole

LIMIT = 100
"""Players asked for (the most a server lists)."""

Pool = tuple[str, str]
"""A rating pool: ``(game, variant)``."""


@dataclass(frozen=True)
class PlayerRow:
    """One listed player as the user reads it."""

    rank: int
    name: str
    rating: str
    """"1523", or "1500?" while provisional."""
    games: str
    """"31 games", "1 game"; "" when the server does not say."""
    mine: bool
    """The user's own row."""
    player: str = ""
    """The player's id (what ``/players/ID`` takes); "" when the server does not say."""


def player_rows(entries: Iterable[Any], me: str | None) -> list[PlayerRow]:
    """The rows of the entries of a ``/ratings`` answer (``me``: the user's player id); an
    entry without a whole rank and rating is left out."""
    rows = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        rank, rating = whole(entry.get("rank")), whole(entry.get("rating"))
        if rank is None or rating is None:
            continue
        provisional = entry.get("provisional")
        rd = 999 if provisional is True else 0 if provisional is False else entry.get("rd")
        games = whole(entry.get("games"))
        name, player = entry.get("name"), entry.get("player")
        rows.append(
            PlayerRow(
                rank=rank,
                name=name if isinstance(name, str) and name else "?",
                rating=rating_label(rating, rd),
                games="" if games is None else f"{games} game{'' if games == 1 else 's'}",
                mine=me is not None and player == me,
                player=player if isinstance(player, str) else "",
            )
        )
    return rows


def read_board(text: str) -> list[dict[str, Any]]:
    """The players of a ``/ratings`` answer; raises ``FetchFailed`` when it is not one."""
    return json_list(text, "players", "list of players")


def fetch_board(
    server_url: str,
    pool: Pool,
    ssl_context: ssl.SSLContext | None = None,
    timeout: float = 10.0,
) -> list[dict[str, Any]]:
    """The top players of ``pool`` on the server of ``server_url``, best first."""
    game, variant = pool
    query = urlencode({"game": game, "variant": variant, "limit": LIMIT})
    return read_board(get_text(http_url(server_url, f"/ratings?{query}"), None, ssl_context,
                               timeout, {}))


def reason_first(error: str) -> str:
    """A fetch's error with why before the address (a small window's box shows only its
    start).

    >>> reason_first("cannot fetch http://h/ratings?game=go: unknown game 'go' (HTTP 404)")
    "unknown game 'go' (HTTP 404), asking http://h/ratings?game=go"
    """
    head, colon, why = error.partition(": ")
    if not colon or not head.startswith("cannot fetch "):
        return error
    return f"{why}, asking {head.removeprefix('cannot fetch ')}"


class BoardFetch(Fetch[list[dict[str, Any]], FetchFailed]):
    """Reads one pool's leaderboard on a thread; poll :meth:`result` from ``update``."""

    def __init__(self, server_url: str, pool: Pool, ssl_context: ssl.SSLContext | None) -> None:
        self.pool = pool
        super().__init__(partial(fetch_board, server_url, pool, ssl_context),
                         "boardhall-top-players", FetchFailed)


class TopPlayers:
    """The list's state: which pool it shows, its players, and what to say meanwhile."""

    def __init__(self) -> None:
        self.pool: Pool | None = None
        """The pool shown (or being read)."""
        self.entries: list[dict[str, Any]] = []
        self.fetch: BoardFetch | None = None
        self.error = ""
        self.loaded = False
        """The pool's list has arrived."""

    @property
    def loading(self) -> bool:
        """A fetch is on its way."""
        return self.fetch is not None

    def refresh(self, server_url: str, pool: Pool, ssl_context: ssl.SSLContext | None) -> None:
        """Read ``pool``'s list (a fetch on its way is dropped); another pool's list is
        cleared at once rather than shown under the new one's name."""
        if pool != self.pool:
            self.entries, self.loaded = [], False
        self.pool, self.error = pool, ""
        self.fetch = BoardFetch(server_url, pool, ssl_context)

    def poll(self) -> bool:
        """Take the list if it has arrived; True when anything changed."""
        found = self.fetch.result() if self.fetch is not None else None
        if found is None:
            return False
        self.fetch = None
        if isinstance(found, FetchFailed):
            self.error = reason_first(str(found))
        else:
            self.entries, self.error, self.loaded = found, "", True
        return True

    def rows(self, me: str | None) -> list[PlayerRow]:
        """The list's rows, best first."""
        return player_rows(self.entries, me)


def pool_label(game: dict[str, Any], variant: str) -> str:
    """A pool in words: the variant's name for a game of several variants (``International
    draughts``) or a custom game (``Xiangqi``), otherwise the game's (``Chess``).

    >>> pool_label({"game": "chess", "name": "Chess", "variants": [{"id": "standard"}]},
    ...            "standard")
    'Chess'
    """
    if len(known_variants(game)) > 1 or game.get("game") == "custom":
        named = variant_name(game, variant)
        if named:
            return named
    return str(game.get("name") or game.get("game") or variant or "?")
