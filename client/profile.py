"""A player's profile, for the lobby's profile card: ``GET /players/ID`` read on a thread
(:class:`ProfileFetch`) so the frame loop never waits for the network, and put in words
(:func:`summary_of`): the name, whether the player is online or when they last were
(:func:`presence_text`), when first and last seen in a game, each rating pool with its
rating ("?" while provisional) and rated games, the won/lost/drawn totals in all and by game
(and, for a game played in more than one variant, by variant under it), and the most recent
finished public games as rows from the player's side (as "Your games" shows the user's:
:func:`client.my_games.game_row`)."""

from __future__ import annotations

import json
import ssl
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import tzinfo
from functools import partial
from typing import Any
from urllib.parse import quote

from client.address import http_url
from client.http_get import Fetch, FetchFailed, get_text
from client.my_games import GameRow, game_row, plies_of, server_time, when_text
from client.room_model import game_label, rating_label, variant_name, whole
from client.top_players import pool_label


@dataclass(frozen=True)
class PoolRow:
    """One rating pool as the card shows it."""

    label: str
    """``Chess``, ``International draughts``, ``Xiangqi``."""
    rating: str
    """``1523``, or ``1500?`` while provisional."""
    games: str
    """``12 games``, ``1 game``."""


@dataclass(frozen=True)
class KindRow:
    """The totals of one game (or of all games) as the card shows them."""

    label: str
    games: int
    won: int
    lost: int
    drawn: int
    aborted: int
    short: str = ""
    """A shorter name for a narrow column (``Hex five``), "" when there is none."""
    nested: bool = False
    """A variant's totals, under its game's (``Brazilian draughts`` under ``Draughts``)."""


@dataclass(frozen=True)
class ProfileSummary:
    """A profile in words."""

    player: str
    name: str
    seen: str
    """``First game 1 Mar 18:05 · last 08:20``; "" when the player has played none."""
    presence: str
    """``Online now``, ``Last online 3 h ago``; "" when the server says neither (an older
    one, or a player never recorded online)."""
    totals: KindRow
    pools: list[PoolRow]
    kinds: list[KindRow]
    """The totals of each game, most games first, each followed by those of its variants
    (:attr:`KindRow.nested`, most games first) when it has more than one."""
    recent: list[GameRow] = field(default_factory=list)
    """The most recent finished public games, newest first, from the player's side."""


def _count(value: Any) -> int:
    return max(0, whole(value) or 0)


def kind_row(label: str, counts: Any) -> KindRow:
    """A ``totals`` object of the profile (``games``, ``wins``, ``losses``, ``draws``,
    ``aborted``) as a row; a count that is not a whole number reads 0."""
    found = counts if isinstance(counts, Mapping) else {}
    return KindRow(label, _count(found.get("games")), _count(found.get("wins")),
                   _count(found.get("losses")), _count(found.get("draws")),
                   _count(found.get("aborted")))


def totals_text(row: KindRow) -> str:
    """The totals in words.

    >>> totals_text(KindRow("All", 12, 5, 4, 3, 1))
    '12 games: won 5 · lost 4 · drawn 3 · 1 aborted'
    >>> totals_text(KindRow("All", 0, 0, 0, 0, 0))
    'No finished games yet.'
    """
    if not row.games and not row.aborted:
        return "No finished games yet."
    words = f"{row.games} game{'' if row.games == 1 else 's'}: won {row.won} · lost {row.lost}"
    words += f" · drawn {row.drawn}"
    return words + (f" · {row.aborted} aborted" if row.aborted else "")


def pool_row(entry: Mapping[str, Any], games: list[dict[str, Any]]) -> PoolRow | None:
    """A rating pool of the profile as a row (None when it has no whole rating): its name as
    the lobby's Top players names it."""
    rating = entry.get("rating")
    if not isinstance(rating, int) or isinstance(rating, bool):
        return None
    game, variant = entry.get("game"), entry.get("variant")
    info = next((g for g in games if g.get("game") == game), None)
    if isinstance(game, str) and isinstance(variant, str) and info is not None:
        label = pool_label(info, variant)
    else:
        label = str(entry.get("key") or game or "?")
    provisional = entry.get("provisional")
    rd = 999 if provisional is True else 0 if provisional is False else entry.get("rd")
    played = _count(entry.get("games"))
    return PoolRow(label, rating_label(rating, rd), f"{played} game{'' if played == 1 else 's'}")


def seen_text(first: Any, last: Any, now: float | None = None,
              zone: tzinfo | None = None) -> str:
    """When the player was first and last seen in a game, as short local times ("" when
    neither reads)."""
    first_words, last_words = when_text(first, now, zone), when_text(last, now, zone)
    if not first_words and not last_words:
        return ""
    if not first_words or first_words == last_words:
        return f"Last game {last_words or first_words}"
    return f"First game {first_words} · last {last_words or '?'}"


ONLINE_NOW = "Online now"

AGO_UNITS = ((365 * 86400, "year", "years"), (30 * 86400, "month", "months"),
             (86400, "day", "days"), (3600, "h", "h"), (60, "min", "min"))
"""The units of "how long ago", largest first: seconds, one, many."""


def presence_text(online: Any, last_online: Any, now: float | None = None) -> str:
    """Whether the player is online, or when they last were, as the card says it (from
    ``now``, the wall clock's seconds: the system's when None); "" when neither reads.

    >>> presence_text(True, None)
    'Online now'
    >>> presence_text(False, "2026-11-27T06:15:00Z", now=1795771200.0)
    'Last online 3 h ago'
    >>> presence_text(False, None)
    ''
    """
    if online is True:
        return ONLINE_NOW
    moment = server_time(last_online) if isinstance(last_online, str) else None
    if moment is None:
        return ""
    ago = (time.time() if now is None else now) - moment.timestamp()
    for seconds, one, many in AGO_UNITS:
        count = int(ago // seconds)
        if count >= 1:
            return f"Last online {count} {one if count == 1 else many} ago"
    return "Last online just now"


def game_name(game: Any, games: list[dict[str, Any]]) -> str:
    """A game's name as the server's list of games gives it (``Hexagonal five-in-a-row``, as
    the pools of a game of one variant are named), else its short name (``Hex five``).

    >>> game_name("shuqi", [{"game": "shuqi", "name": "Number chess"}])
    'Number chess'
    """
    info = next((g for g in games if g.get("game") == game), {})
    named = info.get("name")
    return named if isinstance(named, str) and named else game_label(game, None, games)


def recent_rows(entries: Any, player: str, games: list[dict[str, Any]],
                now: float | None = None, zone: tzinfo | None = None) -> list[GameRow]:
    """The profile's ``recent`` games (entries as ``/games?player=`` lists them) as rows from
    ``player``'s side; an entry without a game id is left out (there is nothing to open), and
    a length that does not read shows "?"."""
    rows = []
    for entry in entries if isinstance(entries, list) else []:
        game_id = entry.get("id") if isinstance(entry, Mapping) else None
        if not isinstance(game_id, str) or not game_id:
            continue
        row = game_row(entry, player, games, None, now, zone)
        rows.append(row if plies_of(entry, None) is not None else replace(row, moves="?"))
    return rows


def played(row: KindRow) -> int:
    """A row's finished games, aborted ones too (what the rows are ordered by)."""
    return row.games + row.aborted


def short_variant(label: str, game: str) -> str:
    """A variant's name without its game's name at its end, for a narrow column under the
    game's line ("" when it does not end with it).

    >>> short_variant("International draughts", "Draughts"), short_variant("Xiangqi", "Chess")
    ('International', '')
    """
    head, _, tail = label.rpartition(" ")
    return head if head and tail.casefold() == game.casefold() else ""


def variant_rows(entries: Any, games: list[dict[str, Any]]) -> dict[str, list[KindRow]]:
    """The profile's ``by_variant`` (``[{game, variant, games, wins, ...}]``; none from a
    server that does not send it) as nested rows by game id, most games first, each named as
    the server's list of games names the variant (``Xiangqi``, ``Brazilian draughts``: its
    id when it names none); an entry without a game and a variant is left out."""
    found: dict[str, list[KindRow]] = {}
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, Mapping):
            continue
        game, variant = entry.get("game"), entry.get("variant")
        if not isinstance(game, str) or not isinstance(variant, str):
            continue
        info = next((g for g in games if g.get("game") == game), {})
        label = variant_name(info, variant) or variant
        short = short_variant(label, game_name(game, games))
        found.setdefault(game, []).append(replace(kind_row(label, entry), short=short,
                                                  nested=True))
    return {game: sorted(rows, key=lambda r: -played(r)) for game, rows in found.items()}


def kind_rows(data: Mapping[str, Any], games: list[dict[str, Any]]) -> list[KindRow]:
    """The profile's totals by game, most games first, each followed by its variants' when
    ``by_variant`` has more than one with a result for it (a variant only ever aborted would be
    a row of noughts: the card shows no aborted column)."""
    by_game = data.get("by_game") if isinstance(data.get("by_game"), Mapping) else {}
    kinds = [(game, replace(kind_row(game_name(game, games), counts),
                            short=game_label(game, None, games)))
             for game, counts in (by_game or {}).items()]
    variants = variant_rows(data.get("by_variant"), games)
    rows = []
    for game, row in sorted(kinds, key=lambda kind: -played(kind[1])):
        rows.append(row)
        nested = [v for v in variants.get(str(game), []) if v.games]
        if len(nested) > 1:
            rows += nested
    return rows


def summary_of(data: Mapping[str, Any], games: list[dict[str, Any]],
               now: float | None = None, zone: tzinfo | None = None) -> ProfileSummary:
    """A ``/players/ID`` answer in words (``games``: the server's games, for their names;
    ``now``: the wall clock's seconds, the system's when None)."""
    pools = data.get("ratings") if isinstance(data.get("ratings"), list) else []
    rows = [pool_row(p, games) for p in pools or [] if isinstance(p, Mapping)]
    name = data.get("name")
    player = str(data.get("player") or "")
    return ProfileSummary(
        player=player,
        name=name if isinstance(name, str) and name else "?",
        seen=seen_text(data.get("first_seen"), data.get("last_seen"), now, zone),
        presence=presence_text(data.get("online"), data.get("last_online"), now),
        totals=kind_row("All games", data.get("totals")),
        pools=[row for row in rows if row is not None],
        kinds=kind_rows(data, games),
        recent=recent_rows(data.get("recent"), player, games, now, zone),
    )


def read_profile(text: str) -> dict[str, Any]:
    """The profile of a ``/players/ID`` answer; raises ``FetchFailed`` when it is not one."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise FetchFailed("the server's profile is not JSON") from exc
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise FetchFailed("the server's answer is not a player's profile")
    return data


def fetch_profile(server_url: str, player: str, ssl_context: ssl.SSLContext | None = None,
                  timeout: float = 10.0) -> dict[str, Any]:
    """``player``'s profile on the server of ``server_url``."""
    url = http_url(server_url, f"/players/{quote(player, safe='')}")
    return read_profile(get_text(url, None, ssl_context, timeout, {}))


class ProfileFetch(Fetch[dict[str, Any], FetchFailed]):
    """Reads one player's profile on a thread; poll :meth:`result` from ``update``."""

    def __init__(self, server_url: str, player: str,
                 ssl_context: ssl.SSLContext | None) -> None:
        self.player = player
        super().__init__(partial(fetch_profile, server_url, player, ssl_context),
                         "boardhall-profile", FetchFailed)
