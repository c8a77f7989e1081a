"""The user's own games on the connected server, for the lobby's "Your games" list.

``GET /games?player=ID`` lists them (newest first, private ones because we ask with our own
token) with each game's number of moves (``plies``), counted as the room counts them; from a
server whose listing has no ``plies`` each game's JSON record is read for its moves. Both are
read on a thread (:class:`GamesFetch`) so the frame loop never waits for the network; a finished
game's record never changes, so it is kept once read (:class:`MyGames`), and the replay opens it
(or reads it when it is picked).
"""

from __future__ import annotations

import queue
import ssl
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import Any
from urllib.parse import quote

from client.address import http_url, record_url
from client.http_get import FetchFailed, get_text, json_list
from client.room_model import SEATS, change_text, ending_words, game_label, whole

LIST_WORDS = {401: "the server no longer knows your identity: reconnect to get a new one"}
"""What a refusal of the list means."""


@dataclass(frozen=True)
class GameRow:
    """One game of the list as the user reads it."""

    game_id: str
    room: str
    outcome: str
    """``won``, ``lost``, ``draw``, ``aborted``, ``playing`` or ``waiting`` (for an opponent),
    from the user's side."""
    opponent: str
    label: str
    """The game, and its variant where it is not the game's first."""
    reason: str
    """How it ended, in words ("" while it goes on)."""
    moves: str
    """"12 moves", "9 stones", "31 plies"; "…" while the number is not known."""
    when: str
    seat: str | None
    """The user's seat (``first``/``second``), if the list says it."""
    rating_change: str = ""
    """What a rated game did to the user's rating ("+12", "-8", "±0"), "" otherwise."""
    opponent_id: str | None = None
    """The opponent's player id (what ``/players/ID`` takes); None while nobody sits there,
    and for the server's own computer player (it has no profile)."""

    @property
    def finished(self) -> bool:
        """Over: it opens as a replay (an unfinished one rejoins its room)."""
        return self.outcome in ("won", "lost", "draw", "aborted", "ended")


def my_seat(entry: Mapping[str, Any], me: str | None) -> str | None:
    """The seat ``me`` holds in a listed game, if any."""
    seats = entry.get("seats") if isinstance(entry.get("seats"), dict) else {}
    for seat in SEATS:
        held = (seats or {}).get(seat)
        if isinstance(held, dict) and me is not None and held.get("player") == me:
            return seat
    return None


def outcome_of(entry: Mapping[str, Any], seat: str | None) -> str:
    """The end from the user's side: ``won``, ``lost``, ``draw``, ``aborted`` (or ``ended``
    without a result for another reason); ``playing``, or ``waiting`` for an opponent."""
    status, result = entry.get("status"), entry.get("result")
    if status == "waiting":
        return "waiting"
    if status != "over":
        return "playing"
    if result == "draw":
        return "draw"
    if result in SEATS:
        if seat is None:
            return f"{result} won"
        return "won" if result == seat else "lost"
    return "aborted" if entry.get("reason") == "aborted" else "ended"


def opponent_of(entry: Mapping[str, Any], seat: str | None) -> str:
    """The other seat's name ("Computer L3" for a server bot); "—" while nobody sits there."""
    seats = entry.get("seats") if isinstance(entry.get("seats"), dict) else {}
    other = "second" if seat == "first" else "first" if seat == "second" else None
    held = (seats or {}).get(other) if other else None
    if not isinstance(held, dict):
        return "—"
    name = held.get("name")
    return name if isinstance(name, str) and name else "?"


def opponent_id_of(entry: Mapping[str, Any], seat: str | None) -> str | None:
    """The other seat's player id, unless nobody sits there or it is the server's own
    computer player (the game's ``bot_seat``: its identity is made afresh and never kept)."""
    seats = entry.get("seats") if isinstance(entry.get("seats"), dict) else {}
    other = "second" if seat == "first" else "first" if seat == "second" else None
    held = (seats or {}).get(other) if other else None
    if not isinstance(held, dict) or entry.get("bot_seat") == other:
        return None
    player = held.get("player")
    return player if isinstance(player, str) and player else None


def reason_words(entry: Mapping[str, Any]) -> str:
    """How a finished game ended, in words ("resignation", "five in a row"); "" otherwise."""
    reason = entry.get("reason")
    if entry.get("status") != "over" or not isinstance(reason, str) or not reason:
        return ""
    if reason == "aborted":
        return "before both sides moved"
    variant = entry.get("variant")
    return ending_words(reason, variant if isinstance(variant, str) else None)


def moves_text(game: str, plies: int | None, start: Any) -> str:
    """The length of a game of ``plies`` moves from ``start`` as the room counts it
    (:func:`client.scenes.room.moves_played`): chess and draughts by move numbers,
    five-in-a-row by stones, the others by plies; "…" while ``plies`` is not known."""
    from client.scenes.room import moves_played

    if plies is None:
        return "…"
    cells = plies + (1 if plies and second_moves_first(game, start) else 0)
    return moves_played(game, plies, (cells + 1) // 2)


def start_of(entry: Mapping[str, Any], record: Mapping[str, Any] | None) -> Any:
    """A listed game's start position: the listing's, else its record's (``None``: the
    standard one)."""
    if "start" in entry or record is None:
        return entry.get("start")
    return record.get("start")


def plies_of(entry: Mapping[str, Any], record: Mapping[str, Any] | None) -> int | None:
    """How many moves a listed game has: the listing's ``plies`` (servers since this field),
    else its record's moves once read, else ``None``."""
    plies = whole(entry.get("plies"))
    if plies is not None and plies >= 0:
        return plies
    if record is None:
        return None
    return len(list(record.get("moves") or []))


def second_moves_first(game: str, start: Any) -> bool:
    """Whether a chess or draughts start position has the second side to move (its moves are
    then numbered from "1. …"); other games never number pairs."""
    if not isinstance(start, str) or not start:
        return False
    if game == "chess":
        fields = start.split()
        return len(fields) > 1 and fields[1] == "b"
    if game == "draughts":
        return start.strip().upper().startswith("B")
    return False


def server_time(stamp: Any) -> datetime | None:
    """A server time (``2026-11-27T08:20:00Z``, UTC) as an aware datetime; None when it does
    not read."""
    try:
        return datetime.strptime(str(stamp), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        return None


def when_text(stamp: Any, now: float | None = None, zone: tzinfo | None = None) -> str:
    """A server time (``2026-11-27T08:20:00Z``) as a short local time: ``08:20`` today,
    ``27 Nov 08:20`` this year, ``27 Nov 2025`` before; "" when it does not read.

    >>> when_text("2026-11-27T08:20:00Z", now=1795771200.0, zone=UTC)
    '08:20'
    >>> when_text("2026-03-01T18:05:09Z", now=1795771200.0, zone=UTC)
    '1 Mar 18:05'
    >>> when_text("2025-12-31T23:00:00Z", now=1795771200.0, zone=UTC)
    '31 Dec 2025'
    """
    moment = server_time(stamp)
    if moment is None:
        return ""
    local = moment.astimezone(zone)
    today = datetime.fromtimestamp(time.time() if now is None else now, UTC)
    today = today.astimezone(zone)
    if local.date() == today.date():
        return local.strftime("%H:%M")
    if local.year == today.year:
        return f"{local.day} {local.strftime('%b %H:%M')}"
    return f"{local.day} {local.strftime('%b %Y')}"


def game_row(
    entry: Mapping[str, Any],
    me: str | None,
    games: list[dict[str, Any]],
    record: Mapping[str, Any] | None,
    now: float | None = None,
    zone: tzinfo | None = None,
) -> GameRow:
    """One listed game (an entry of ``GET /games?player=``) as a row of the list."""
    seat = my_seat(entry, me)
    game = str(entry.get("game") or "?")
    when = entry.get("ended") if entry.get("status") == "over" else None
    return GameRow(
        game_id=str(entry.get("id") or ""),
        room=str(entry.get("room") or ""),
        outcome=outcome_of(entry, seat),
        opponent=opponent_of(entry, seat),
        label=game_label(game, entry.get("variant"), games),
        reason=reason_words(entry),
        moves=moves_text(game, plies_of(entry, record), start_of(entry, record)),
        when=when_text(when or entry.get("created"), now, zone),
        seat=seat,
        rating_change=change_text(entry.get("rating_change")),
        opponent_id=opponent_id_of(entry, seat),
    )


def read_list(text: str) -> list[dict[str, Any]]:
    """The games of a ``GET /games?player=`` answer; raises ``FetchFailed`` when it is not one."""
    return [g for g in json_list(text, "games", "list of games") if isinstance(g.get("id"), str)]


def fetch_list(
    server_url: str,
    player: str,
    token: str | None = None,
    ssl_context: ssl.SSLContext | None = None,
    timeout: float = 10.0,
) -> list[dict[str, Any]]:
    """``player``'s recent games, newest first, as the holder of ``token`` may see them."""
    url = http_url(server_url, f"/games?player={quote(player, safe='')}")
    return read_list(get_text(url, token, ssl_context, timeout, LIST_WORDS))


@dataclass(frozen=True)
class Listed:
    """The list has arrived."""

    games: list[dict[str, Any]]


@dataclass(frozen=True)
class Recorded:
    """A game's record has arrived (parsed as the replay reads it), or could not be read."""

    game_id: str
    record: dict[str, Any] | None
    error: str = ""


@dataclass(frozen=True)
class Failed:
    """The list could not be read: why, in words."""

    error: str


Arrival = Listed | Recorded | Failed


class GamesFetch:
    """Reads the list, then the record of each game not in ``known`` (finished games already
    read), one after the other on a thread; poll :meth:`arrivals` from ``update``."""

    def __init__(
        self,
        server_url: str,
        player: str,
        token: str | None,
        ssl_context: ssl.SSLContext | None,
        known: Iterable[str] = (),
    ) -> None:
        self._args = (server_url, player, token, ssl_context)
        self._known = frozenset(known)
        self._out: queue.Queue[Arrival] = queue.Queue()
        self.done = False
        """Every arrival has been handed out."""
        self._stopped = threading.Event()
        threading.Thread(target=self._work, name="boardhall-my-games", daemon=True).start()

    def stop(self) -> None:
        """Read no more records (a newer fetch replaces this one)."""
        self._stopped.set()

    def _work(self) -> None:
        from client.scenes.replay import RecordError, fetch_record

        server_url, player, token, context = self._args
        try:
            games = fetch_list(server_url, player, token, context)
        except FetchFailed as exc:
            self._out.put(Failed(str(exc)))
            return
        self._out.put(Listed(games))
        for entry in games:
            game_id = str(entry["id"])
            if self._stopped.is_set():
                break
            if game_id in self._known or plies_of(entry, None) is not None:
                continue  # the listing says how long it is: no record to read
            url = record_url(server_url, game_id)
            try:
                self._out.put(Recorded(game_id, fetch_record(url, token=token,
                                                             ssl_context=context)))
            except RecordError as exc:
                self._out.put(Recorded(game_id, None, str(exc)))
        self._out.put(Failed(""))  # the end: nothing failed

    def arrivals(self) -> list[Arrival]:
        """What has arrived since the last call (the end is an empty :class:`Failed`)."""
        found: list[Arrival] = []
        while True:
            try:
                found.append(self._out.get_nowait())
            except queue.Empty:
                return found


class MyGames:
    """The list's state: the games listed, the records read, and what to say meanwhile."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self.records: dict[str, dict[str, Any]] = {}
        """Records read, by game id (a finished game's is kept across refreshes)."""
        self.fetch: GamesFetch | None = None
        self.error = ""
        self.loaded = False
        """The list has arrived at least once."""

    @property
    def loading(self) -> bool:
        """A fetch is on its way."""
        return self.fetch is not None

    def refresh(self, server_url: str, player: str | None, token: str | None,
                ssl_context: ssl.SSLContext | None) -> None:
        """Read the list again (a fetch still on its way is dropped)."""
        if self.fetch is not None:
            self.fetch.stop()
        if not player:
            self.fetch = None
            self.error = "Your games show once the server has welcomed you."
            return
        finished = {e["id"] for e in self.entries if e.get("status") == "over"}
        self.fetch = GamesFetch(server_url, player, token, ssl_context,
                                known=finished & set(self.records))

    def poll(self) -> bool:
        """Take what has arrived; True when anything changed."""
        if self.fetch is None:
            return False
        changed = False
        for item in self.fetch.arrivals():
            changed = True
            if isinstance(item, Listed):
                self.entries, self.error, self.loaded = item.games, "", True
            elif isinstance(item, Recorded):
                if item.record is not None:
                    self.records[item.game_id] = item.record
            else:
                self.fetch = None
                if item.error:
                    self.error = item.error
                break
        return changed

    def rows(self, me: str | None, games: list[dict[str, Any]],
             now: float | None = None, zone: tzinfo | None = None) -> list[GameRow]:
        """The list's rows, newest first."""
        return [game_row(e, me, games, self.records.get(str(e["id"])), now, zone)
                for e in self.entries]

