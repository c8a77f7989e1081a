"""The sans-I/O server core: sessions, identities, the lobby, matchmaking and every room.

The I/O layer (``server.net``) numbers connections and calls :meth:`Hall.connect`,
:meth:`Hall.receive` (one text frame), :meth:`Hall.disconnect` and :meth:`Hall.tick` with the
current monotonic time; each returns :class:`Outputs`. :meth:`Hall.next_wake` says when to call
``tick`` next. Nothing here reads a clock or touches a socket.
"""

from __future__ import annotations

import calendar
import hashlib
import heapq
import logging
import math
import random
import secrets
import time
from collections import deque
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

import engines
from engines.base import SIDES, Engine, EngineError, Side, other
from protocol import (
    Abort,
    Answer,
    Chat,
    ClientMessage,
    Clock,
    Create,
    Error,
    ErrorCode,
    GameInfo,
    Hello,
    Join,
    Leave,
    Limits,
    ListRooms,
    Move,
    Offer,
    Ok,
    Ping,
    Pong,
    ProtocolError,
    Queued,
    Report,
    Resign,
    Rooms,
    RoomSummary,
    Stop,
    Timeout,
    Welcome,
    decode_client,
    is_known,
    limits,
)
from protocol.messages import MessageId
from server.chatguard import (
    AddressLines,
    forget_before,
    repeat_counts_across,
    said_lately,
    wait_for,
)
from server.clock import TimeControl
from server.config import ServerConfig
from server.glicko2 import Rating
from server.limitkey import limit_key
from server.liveness import Alive, Run, crash_charges
from server.matchmaking import Seeker, best, ready_at
from server.outputs import (
    ConnId,
    LaunchBot,
    Outputs,
    SaveAlive,
    SaveGame,
    SaveIdentity,
    SaveOnline,
)
from server.ratings import GameFacts, RatingBook, rating_key, shown, unrated_because
from server.room import Room
from server.room_start import checked_options, engine_options, start_state
from server.sanitize import chat_words, clean_name, clean_text, name_refusal

log = logging.getLogger("boardhall.hall")

CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
LOBBY = ""
"""Wake-up key of the lobby push (room codes are never empty)."""
MATCHING = "*"
"""Wake-up key of the matchmaking re-check: a rating window has grown (no room code has ``*``)."""
RECHECK_AFTER_S = 0.05
"""The soonest a matchmaking re-check follows the last one (or the seek that planned it)."""
WAKES_SLACK = 64
"""Stale timer entries tolerated before the heap is compacted."""
LOBBY_INTERVAL_S = 0.5
"""Lobby watchers get at most two pushes per second."""
LOBBY_MAX = 200
"""Most entries in a ``rooms`` list: seeks and open rooms first, then games being played."""


def _looks_like_seek(code: str) -> bool:
    """Whether ``code`` has the shape of a seek id (``s`` and five code letters; room codes
    have five)."""
    return len(code) == 6 and code[0] == "s" and all(c in CODE_ALPHABET for c in code[1:])


def hash_token(token: str) -> str:
    """The stored form of a token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass
class Identity:
    """An anonymous player: public id, name, and the connection it uses now."""

    player: str
    token_hash: str
    name: str
    conn: ConnId | None = None
    last_colour: Side | None = None
    bot: bool = False
    server_bot: bool = False
    """Made by the server for a room against the computer: its name is the server's (the seat's
    name from the start), whatever name its process says hello with."""
    stored: bool = False
    """Written to storage (or loaded from it). An identity is written with its first seat, seek
    or watched room (:meth:`Hall._store`), in the same write (one who chats has one of these):
    one that never does any of these (it only said hello, and perhaps read the lobby) is
    never stored, and is forgotten once its last connection closes (its token is then
    ``bad_token``), so saying hello in a loop fills neither the database nor the memory."""
    said: deque[tuple[float, str]] = field(default_factory=deque)
    """The chat lines this player said lately (in any room): when, and the words as
    :func:`chat_words` compares them; those older than the chat rate's window and the repeat
    time are dropped as lines come (see :meth:`Hall._check_chat`)."""


@dataclass
class Session:
    """One connection."""

    conn: ConnId
    address: str
    limit_key: str
    """What the per-address limits count this connection under (:func:`limit_key` of
    :attr:`address`: an IPv6 client's whole network)."""
    identity: Identity | None = None
    times: deque[float] = field(default_factory=deque)
    errors: deque[float] = field(default_factory=deque)
    watching: bool = False
    watch_game: str | None = None
    lobby_seen: list[RoomSummary] | None = None
    """The lobby list this watcher has last been sent (pushes skip a watcher that has it)."""
    spectating: set[str] = field(default_factory=set)
    closing: bool = False
    tokens: float = 0.0
    bucket_at: float | None = None


@dataclass(frozen=True)
class PreparedStart:
    """The start state of a ``create`` parsed ahead of handling it (or why it could not be)."""

    message: Create
    state: Any = None
    error: Exception | None = None


@dataclass
class Seek:
    """A player waiting in matchmaking."""

    id: str
    player: str
    game: str
    variant: str
    options: dict[str, Any]
    max_plies: int
    control: TimeControl
    since: float = 0.0
    """When it began to wait (the hall's monotonic time)."""
    windowed: bool = False
    """It pairs within a rating window that widens while it waits (:mod:`server.matchmaking`):
    a game of its pool would be rated and its player is not a bot. Else first come."""

    @property
    def key(self) -> tuple[str, str, str, TimeControl]:
        """What must match for two seeks to play each other."""
        return (self.game, self.variant, repr(sorted(self.options.items())), self.control)


class Hall:
    """Everything the server knows, driven by inputs with an injected time."""

    def __init__(
        self,
        config: ServerConfig | None = None,
        *,
        rng: random.Random | None = None,
        wall_offset: float | None = None,
        token_factory: Callable[[], str] | None = None,
        ratings_wall: Callable[[], float] | None = None,
    ) -> None:
        self.config = config or ServerConfig()
        self.rng = rng or random.Random()
        self.wall_offset = time.time() - time.monotonic() if wall_offset is None else wall_offset
        self.run = Run(secrets.token_hex(8), self.wall_offset)
        """This server process, as its stored records of time name it (:mod:`server.liveness`)."""
        self.stopping = False
        """The server is stopping (:meth:`pauses`): a finished room that closes because the stop
        dropped its players is not stored as closed, so the restart brings it back."""
        self.token_factory = token_factory or (lambda: secrets.token_urlsafe(24))
        self.sessions: dict[ConnId, Session] = {}
        self.identities: dict[str, Identity] = {}
        self.by_token: dict[str, str] = {}
        self.rooms: dict[str, Room] = {}
        self.player_rooms: dict[str, set[str]] = {}
        self.seeks: dict[str, Seek] = {}
        self.addresses: dict[str, int] = {}
        """Open connections by :attr:`Session.limit_key`."""
        self.address_lines = AddressLines()
        """The chat lines said lately from each client address (by :attr:`Session.limit_key`:
        an IPv6 client's whole network), whichever identity said them: the address half of
        :meth:`_check_chat`."""
        self._wakes: list[tuple[float, str]] = []
        self._pushed: dict[str, float] = {}
        self._lobby_dirty = False
        self._lobby_version = 0
        """Counts the changes to what the lobby list shows (an output that makes one is marked
        :attr:`Outputs.lobby`, to be ordered before the lists that show it)."""
        self._lobby_next = 0.0
        self._lobby_timer = False
        self._match_at: float | None = None
        """When the matchmaking re-check is due (its current :data:`MATCHING` wake-up): the
        earliest time two waiting seeks of a pool come within each other's windows."""
        self._lobby_lists: dict[str | None, list[RoomSummary]] = {}
        """The latest lobby list sent to watchers, by game filter (see :meth:`_shared_list`)."""
        self._wall_second: int | None = None
        self._wall_text = ""
        self._games: list[GameInfo] | None = None
        self.ratings = RatingBook(ratings_wall or time.time)
        """The ratings of every identity in memory and every seated player (loaded with the
        identity, or with the restored rooms: :meth:`load_ratings`), grown with the time away
        by the wall clock ``ratings_wall`` (the system's unless given)."""

    # ---- small helpers -----------------------------------------------------------------------

    def any_game_on(self) -> bool:
        """Whether some game is being played (a turn or an absence runs)."""
        return any(room.status == "playing" for room in self.rooms.values())

    def alive(self, now: float) -> SaveAlive:
        """The stamp that this server is alive at ``now``."""
        return SaveAlive(self.run.id, self.run.wall(now))

    def wall(self, now: float) -> str:
        """ISO 8601 UTC time of monotonic ``now`` (to the second: formatted once a second)."""
        second = math.floor(now + self.wall_offset)
        if second != self._wall_second:
            self._wall_second = second
            self._wall_text = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(second))
        return self._wall_text

    @staticmethod
    def wall_seconds(text: object) -> float | None:
        """The wall time (seconds since the epoch) of a time :meth:`wall` wrote, if it reads."""
        try:
            return float(calendar.timegm(time.strptime(str(text), "%Y-%m-%dT%H:%M:%SZ")))
        except (TypeError, ValueError, OverflowError):
            return None

    def finished_since(self, now: float) -> str:
        """The earliest end (as :meth:`wall` writes it) of a game whose finished room may still
        be open at ``now``: what a restart loads (:meth:`Storage.finished_since`)."""
        return self.wall(now - self.config.finished_room_ttl_s)

    def _new_id(self, length: int, taken: Callable[[str], bool] = lambda _: False) -> str:
        while True:
            code = "".join(self.rng.choice(CODE_ALPHABET) for _ in range(length))
            if not taken(code):
                return code

    def _conn_of(self, player: str) -> ConnId | None:
        identity = self.identities.get(player)
        return identity.conn if identity else None

    def games(self) -> list[GameInfo]:
        """GameInfo of every installed engine."""
        if self._games is None:
            self._games = [
                GameInfo.model_validate(engines.get(g).info()) for g in engines.available()
            ]
        return self._games

    def knows_token(self, token: str) -> bool:
        """Whether ``token`` belongs to an identity loaded in memory."""
        return hash_token(token) in self.by_token

    def add_identity(
        self,
        player: str,
        token_hash: str,
        name: str,
        ratings: Mapping[str, Rating] | None = None,
    ) -> Identity:
        """Load an identity known to storage, with its stored ``ratings``."""
        self.ratings.load(player, ratings or {})
        identity = self.identities.get(player)
        if identity is None:
            identity = Identity(player, token_hash, name, stored=True)
            self.identities[player] = identity
            self.by_token[token_hash] = player
        return identity

    def release_token(self, token: str) -> None:
        """A hello with ``token`` has been handled (an identity may have been loaded for it):
        forget its identity unless it is connected, seated or seeking, so that hellos refused
        after a load (or never handled: the connection closed first) leave nothing behind."""
        player = self.by_token.get(hash_token(token))
        if player is not None:
            self._forget_if_idle(player)

    def _store(self, identity: Identity, now: float, out: Outputs) -> None:
        """Write ``identity`` with ``out`` (its first seat, seek or watched room) unless it is
        stored already, and that it is online now. Server-made bots are not: the server makes
        their identities (and tokens) again whenever it starts their processes."""
        if not identity.stored and not identity.server_bot:
            identity.stored = True
            out.writes.append(SaveIdentity(identity.player, identity.token_hash, identity.name))
            self._stamp_online(identity, now, out)

    def _stamp_online(self, identity: Identity, now: float, out: Outputs) -> None:
        """Note in ``out`` that a stored ``identity`` is online at ``now`` (a connection of
        theirs began or ended): what their profile's ``last_online`` says. One that only said
        hello is not stored, and gets none."""
        if identity.stored:
            out.online += (SaveOnline(identity.player, self.wall(now)),)

    def online(self, player: str) -> bool:
        """Whether ``player`` has a connection now."""
        identity = self.identities.get(player)
        return identity is not None and identity.conn is not None

    def identity_of_token(self, token: str) -> Identity | None:
        """The loaded identity of ``token`` (for HTTP access to private games)."""
        player = self.by_token.get(hash_token(token))
        return self.identities.get(player) if player else None

    # ---- timers ------------------------------------------------------------------------------

    def _schedule(self, room: Room) -> None:
        when = room.wake()
        if when is not None and self._pushed.get(room.code) != when:
            self._pushed[room.code] = when
            heapq.heappush(self._wakes, (when, room.code))
            if len(self._wakes) > 2 * len(self._pushed) + WAKES_SLACK:
                self._compact_wakes()

    def _compact_wakes(self) -> None:
        """Drop the entries of replaced deadlines (each timed move replaces its room's), so the
        heap holds about one entry per room instead of one per move until its old deadline."""
        self._wakes = [
            (when, code)
            for when, code in self._wakes
            if code == LOBBY or self._pushed.get(code) == when or self._is_match_wake(when, code)
        ]
        heapq.heapify(self._wakes)

    def _is_match_wake(self, when: float, code: str) -> bool:
        """Whether the wake-up ``(when, code)`` is the matchmaking re-check still planned."""
        return code == MATCHING and when == self._match_at

    def next_wake(self) -> float | None:
        """When :meth:`tick` should run next (``None``: nothing is due)."""
        while self._wakes:
            when, code = self._wakes[0]
            if code in self.rooms or code == LOBBY or self._is_match_wake(when, code):
                break
            heapq.heappop(self._wakes)
        return self._wakes[0][0] if self._wakes else None

    def tick(self, now: float) -> list[Outputs]:
        """Fire every timer that is due: flags, abort deadlines, closing rooms, the lobby push
        and the matchmaking re-check."""
        results = []
        while self._wakes and self._wakes[0][0] <= now:
            planned, code = heapq.heappop(self._wakes)
            if code == MATCHING:
                if self._is_match_wake(planned, code):
                    self._match_at = None
                    try:
                        results.extend(self._pair_waiting(now))
                    except Exception:  # like a broken room: the other timers still fire
                        log.exception("matchmaking re-check failed")
                continue
            if code == LOBBY:
                out = Outputs()
                self._push_lobby(out, now)
                results.append(out)
                continue
            room = self.rooms.get(code)
            if room is None:
                continue
            if self._pushed.get(code, 0) <= now:
                self._pushed.pop(code, None)
            when = room.wake()
            if when is None or when > now:
                self._schedule(room)
                continue
            out = Outputs(key=code)
            before = room.status
            version = self._lobby_version
            try:
                room.tick(now, out)
            except Exception:  # one broken room must not stop every other room's timers
                log.exception("timer of room %s failed", code)
                results.append(out)
                continue
            if room.status != before:
                self._lobby_changed()
            self._after_room(room, out)
            out.lobby = self._lobby_version != version
            self._push_lobby(out, now)
            results.append(out)
        return results

    # ---- connections -------------------------------------------------------------------------

    def connect(self, conn: ConnId, address: str, now: float) -> Outputs:
        """A new connection; refused (closed 1008) over the per-address limit (counted by
        :func:`limit_key`: an IPv6 client's whole network)."""
        out = Outputs()
        key = limit_key(address, self.config.ipv6_prefix)
        count = self.addresses.get(key, 0)
        self.sessions[conn] = Session(conn, address, key)
        self.addresses[key] = count + 1
        if count >= self.config.connections_per_address:
            self.sessions[conn].closing = True
            out.closes.append((conn, 1008, "too many connections from your address"))
        return out

    def disconnect(self, conn: ConnId, now: float) -> Outputs:
        """A connection closed."""
        out = Outputs()
        session = self.sessions.pop(conn, None)
        if session is None:
            return out
        self.addresses[session.limit_key] -= 1
        if not self.addresses[session.limit_key]:
            del self.addresses[session.limit_key]
        if session.watching:
            session.watching = False
        for code in list(session.spectating):
            room = self.rooms.get(code)
            if room is not None:
                out.keys += (code,)
                room.drop(conn, None, now, out)
                self._after_room(room, out)
        identity = session.identity
        if identity is not None and identity.conn == conn:
            identity.conn = None
            self._stamp_online(identity, now, out)
            for code in list(self.player_rooms.get(identity.player, ())):
                room = self.rooms.get(code)
                if room is not None:
                    out.keys += (code,)
                    room.drop(conn, identity.player, now, out)
                    self._after_room(room, out)
            self._drop_seeks(identity.player)
            self._forget_if_idle(identity.player)
        self._lobby_changed()
        out.lobby = True
        self._push_lobby(out, now)
        return out

    # ---- input -------------------------------------------------------------------------------

    def receive(self, conn: ConnId, text: str | bytes, now: float, lag_ms: int = 0) -> Outputs:
        """One text frame from ``conn``."""
        try:
            message: ClientMessage | ProtocolError = decode_client(text)
        except ProtocolError as exc:
            message = exc
        return self.handle(conn, message, now, lag_ms)

    def handle(
        self,
        conn: ConnId,
        message: ClientMessage | ProtocolError,
        now: float,
        lag_ms: int = 0,
        prepared: PreparedStart | None = None,
    ) -> Outputs:
        """A decoded message (or the decoding error) from ``conn``; ``prepared`` is what
        :meth:`prepare` made of it, when :meth:`wants_preparing` said so."""
        session = self.sessions.get(conn)
        out = Outputs(key=getattr(message, "room", None) or "")
        if session is None or session.closing:
            return out
        if self._count_flood(session, session.times, now, 2 * self.config.messages_per_second):
            out.closes.append((conn, 1008, "too many messages"))
            session.closing = True
            return out
        if isinstance(message, ProtocolError):  # not raised: its traceback would hold message
            self._error(session, message, message.re, now, out, message.room)
            self._push_lobby(out, now)
            return out
        re: MessageId | None = None
        version = self._lobby_version
        try:
            re = message.id
            if not self._take_token(session, now):
                raise ProtocolError(
                    ErrorCode.RATE_LIMITED,
                    f"more than {self.config.messages_per_second} messages per second",
                )
            if session.identity is None and not isinstance(message, Hello):
                raise ProtocolError(ErrorCode.HELLO_FIRST, "say hello first")
            self._dispatch(session, message, now, lag_ms, out, prepared)
        except ProtocolError as exc:
            self._error(
                session,
                exc,
                re if exc.re is None else exc.re,
                now,
                out,
                getattr(message, "room", None),
            )
        except Exception:
            log.exception("internal error handling %s", type(message).__name__)
            self._error(
                session, ProtocolError(ErrorCode.INTERNAL, "internal server error"), re, now, out
            )
        if self._lobby_version != version:
            out.lobby = True
        self._push_lobby(out, now)
        return out

    def _take_token(self, session: Session, now: float) -> bool:
        """Token bucket: ``rate`` messages per second, bursts of up to two seconds' worth."""
        rate = self.config.messages_per_second
        capacity = 2.0 * rate
        if session.bucket_at is None:
            session.tokens, session.bucket_at = capacity, now
        session.tokens = min(capacity, session.tokens + (now - session.bucket_at) * rate)
        session.bucket_at = now
        if session.tokens < 1.0:
            return False
        session.tokens -= 1.0
        return True

    def _count_flood(self, session: Session, times: deque[float], now: float, rate: int) -> bool:
        window = self.config.flood_window_s
        times.append(now)
        while times and times[0] <= now - window:
            times.popleft()
        return len(times) > rate * window

    def _error(
        self,
        session: Session,
        exc: ProtocolError,
        re: MessageId | None,
        now: float,
        out: Outputs,
        room: str | None = None,
    ) -> None:
        out.errors.append(exc.code.value)
        out.send(
            (session.conn,),
            Error(re=re, code=exc.code, message=exc.message, room=exc.room or room),
        )
        window = self.config.flood_window_s
        session.errors.append(now)
        while session.errors and session.errors[0] <= now - window:
            session.errors.popleft()
        if len(session.errors) > self.config.flood_errors:
            out.closes.append((session.conn, 1008, "too many errors"))
            session.closing = True

    def wants_preparing(self, conn: ConnId, message: ClientMessage | ProtocolError) -> bool:
        """Whether ``message`` carries a record to parse with :meth:`prepare` first."""
        session = self.sessions.get(conn)
        return (
            isinstance(message, Create)
            and message.record is not None
            and session is not None
            and session.identity is not None
            and not session.closing
        )

    def _dispatch(
        self,
        session: Session,
        message: ClientMessage,
        now: float,
        lag_ms: int,
        out: Outputs,
        prepared: PreparedStart | None = None,
    ) -> None:
        re = message.id
        if isinstance(message, Hello):
            self._hello(session, message, now, out)
        elif isinstance(message, Ping):
            server_time = int((now + self.wall_offset) * 1000)
            out.send((session.conn,), Pong(re=re, t=message.t, server_time=server_time))
        elif isinstance(message, Create):
            self._create(session, message, now, out, prepared)
        elif isinstance(message, Join):
            self._join(session, message, now, out)
        elif isinstance(message, Leave):
            self._leave(session, message, now, out)
        elif isinstance(message, ListRooms):
            self._list(session, message, out)
        else:
            self._room_action(session, message, now, lag_ms, out)

    # ---- hello -------------------------------------------------------------------------------

    def _hello(self, session: Session, message: Hello, now: float, out: Outputs) -> None:
        name = clean_name(message.name, limits.NAME_CHARS)
        says_bot = (message.client or "").lower().startswith("bot")
        known = self.by_token.get(hash_token(message.token)) if message.token else None
        was = self.identities[known] if known is not None else None
        server_bot = was is not None and was.server_bot  # its name is the server's anyway
        bot = says_bot or (was is not None and was.bot)  # a bot stays one (identity.bot below)
        refusal = None if server_bot else name_refusal(name, bot)
        if refusal is not None:  # bad_message comes before every other code
            raise ProtocolError(ErrorCode.BAD_MESSAGE, refusal)
        if not is_known(message.protocol):
            raise ProtocolError(
                ErrorCode.UNSUPPORTED_PROTOCOL,
                f"protocol {message.protocol} is not supported; this server speaks 1",
            )
        if message.token is not None and hash_token(message.token) not in self.by_token:
            raise ProtocolError(ErrorCode.BAD_TOKEN, "unknown token: say hello without one")
        if session.identity is not None:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "this connection already said hello")
        if message.token is not None:
            player = self.by_token[hash_token(message.token)]
            identity = self.identities[player]
            token = message.token
            if identity.conn is not None and identity.conn != session.conn:
                old = self.sessions.get(identity.conn)
                out.closes.append((identity.conn, 4001, "connected again elsewhere"))
                if old is not None:
                    old.closing = True
                    old.identity = None
                    old.watching = False
                # its seeks were that connection's: the new one never asked to be matched
                self._drop_seeks(player)
        else:
            token = self.token_factory()
            player = "p" + self._new_id(11, lambda c: "p" + c in self.identities)
            identity = Identity(player, hash_token(token), name or "Player")
            self.identities[player] = identity
            self.by_token[identity.token_hash] = player
        before = identity.name
        if name and name != identity.name and not identity.server_bot:
            identity.name = name
        if not name and message.token is None:
            identity.name = "Player"
        identity.bot = identity.bot or says_bot
        if identity.stored and identity.name != before:  # else stored with its first seat
            out.writes.append(SaveIdentity(identity.player, identity.token_hash, identity.name))
        identity.conn = session.conn
        session.identity = identity
        self._stamp_online(identity, now, out)
        resumed = []
        for code in sorted(self.player_rooms.get(player, ())):
            room = self.rooms.get(code)
            if room is not None and room.status != "over":
                resumed.append(code)
        out.send(
            (session.conn,),
            Welcome(
                re=message.id,
                player=identity.player,
                name=identity.name,
                token=token,
                protocol=message.protocol,
                server=self.config.server_name,
                games=self.games(),
                resumed=resumed,
                limits=Limits(
                    messages_per_second=self.config.messages_per_second,
                    chat_lines=self.config.chat_lines,
                    chat_window_s=math.ceil(self.config.chat_window_s),
                    chat_repeat_s=math.ceil(self.config.chat_repeat_s),
                    chat_address_lines=self.config.chat_address_lines_in_force,
                ),
            ),
        )
        out.keys += tuple(resumed)
        for code in resumed:
            room = self.rooms[code]
            seat = room.seats[room.seat_of(player) or "first"]
            if seat is not None and seat.player == player:
                seat.name = identity.name
            side = room.returned(player, now, out)
            room.reply_snapshot(session.conn, side, now, out, None)
            self._after_room(room, out)

    # ---- creating rooms ----------------------------------------------------------------------

    def _engine(self, game: str) -> Engine:
        try:
            return engines.get(game)
        except EngineError as exc:
            raise ProtocolError(ErrorCode(exc.code), str(exc)) from exc

    def _settings(
        self, game: str, variant: str | None, options: dict[str, Any] | None, clock: Clock | None
    ) -> tuple[Engine, str, dict[str, Any], int, TimeControl]:
        engine = self._engine(game)
        try:
            variant_id = engine.resolve_variant(variant)
        except EngineError as exc:
            raise ProtocolError(ErrorCode(exc.code), str(exc)) from exc
        merged, max_plies = checked_options(engine, options)
        return engine, variant_id, merged, max_plies, TimeControl.from_clock(clock)

    def _live_count(
        self, player: str, replacing: tuple[Any, ...] | None = None, seeks: bool = True
    ) -> int:
        """Unfinished rooms ``player`` sits in plus its seeks (each becomes a room when matched),
        not counting a seek of key ``replacing`` (a new seek of the same key replaces it), nor
        any seek when ``seeks`` is false (sitting down withdraws them: :meth:`_drop_seeks`)."""
        rooms = sum(
            1
            for c in self.player_rooms.get(player, ())
            if c in self.rooms and self.rooms[c].status != "over"
        )
        if not seeks:
            return rooms
        waiting = sum(1 for s in self.seeks.values() if s.player == player and s.key != replacing)
        return rooms + waiting

    def _check_room_quota(
        self, player: str, replacing: tuple[Any, ...] | None = None, seeks: bool = True
    ) -> None:
        count = self._live_count(player, replacing, seeks)
        if count >= self.config.rooms_per_identity:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED,
                f"you already sit in or wait for {count} unfinished rooms (limit "
                f"{self.config.rooms_per_identity})",
            )

    def _check_rematch_quota(self, room: Room) -> None:
        """Both players of ``room`` may sit in one room more (a rematch is about to open)."""
        for side in SIDES:
            seat = room.seats[side]
            if seat is None:
                continue
            count = self._live_count(seat.player, seeks=False)
            if count >= self.config.rooms_per_identity:
                raise ProtocolError(
                    ErrorCode.NOT_ALLOWED,
                    f"no rematch: {seat.name} already sits in or waits for {count} unfinished "
                    f"rooms (limit {self.config.rooms_per_identity})",
                )

    def _new_room(
        self,
        engine: Engine,
        variant: str,
        options: dict[str, Any],
        max_plies: int,
        state: Any,
        control: TimeControl,
        now: float,
        private: bool = False,
    ) -> Room:
        code = self._new_id(5, lambda c: c in self.rooms or c in self.seeks)
        room = Room(
            code=code,
            game_id="g" + self._new_id(12),
            engine=engine,
            variant=variant,
            options=options,
            max_plies=max_plies,
            state=state,
            control=control,
            config=self.config,
            connection_of=self._conn_of,
            wall=self.wall,
            now=now,
            private=private,
            variant_info=engine.variant_info(variant),
            run=self.run,
            ratings=self.ratings,
        )
        self.rooms[code] = room
        self._lobby_changed()
        return room

    def _seat(self, room: Room, side: Side, identity: Identity, now: float, out: Outputs) -> None:
        room.sit(side, identity.player, identity.name, identity.bot, now)
        self.player_rooms.setdefault(identity.player, set()).add(room.code)
        self._drop_seeks(identity.player)
        self._store(identity, now, out)

    def _drop_seeks(self, player: str, key: tuple[Any, ...] | None = None) -> int:
        """Withdraw ``player``'s seeks (only those of ``key`` if given) and return how many
        there were: it sat down in a room (opened one, joined one, was matched or took a
        rematch: so that no other seek of its starts a second game), left matchmaking,
        disconnected, connected again elsewhere, or seeks the same again."""
        mine = [s.id for s in self.seeks.values() if s.player == player and key in (None, s.key)]
        for seek_id in mine:
            del self.seeks[seek_id]
        if mine:
            self._lobby_changed()
        return len(mine)

    def prepare(self, message: Create) -> PreparedStart:
        """Parse the start position or record of ``message``; reads and changes no hall state,
        so the I/O layer may run it on another thread (a long record takes a while to replay)."""
        try:
            engine, variant, options, _, _ = self._settings(
                message.game, message.variant, message.options, message.clock
            )
            return PreparedStart(
                message, start_state(engine, variant, options, message.position, message.record)
            )
        except Exception as exc:  # handed back to the event loop, raised there by _create
            return PreparedStart(message, None, exc)

    def _create(
        self,
        session: Session,
        message: Create,
        now: float,
        out: Outputs,
        prepared: PreparedStart | None = None,
    ) -> None:
        identity = session.identity
        assert identity is not None
        engine, variant, options, max_plies, control = self._settings(
            message.game, message.variant, message.options, message.clock
        )
        level = self._bot_level(message.opponent)
        if prepared is not None and prepared.message is message:
            if prepared.error is not None:
                raise prepared.error
            state = prepared.state
        else:
            state = start_state(engine, variant, options, message.position, message.record)
        if level is not None and not self.config.bots_available:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "bots are not available")
        if level is not None and self.config.bot_games == 0:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED,
                "this server does not play against the computer (started with --bot-games 0)",
            )
        if level is not None:
            live = sum(1 for r in self.rooms.values() if r.bot_level and r.status != "over")
            if live >= self.config.bot_games:
                raise ProtocolError(
                    ErrorCode.NOT_ALLOWED,
                    f"the server plays {live} games against the computer already; try later",
                )
        self._check_room_quota(identity.player, seeks=False)
        room = self._new_room(
            engine, variant, options, max_plies, state, control, now, message.private
        )
        side: Side = self.rng.choice(SIDES) if message.color == "random" else message.color
        self._seat(room, side, identity, now, out)
        if level is not None:
            bot, token = self._bot_identity(f"Computer L{level}")
            self._seat(room, other(side), bot, now, out)
            room.bot_seat, room.bot_level = other(side), level
            room.expect_bot()  # shown here from the start: its arrival is no "is back"
            out.bots.append(LaunchBot(room.code, engine.game, variant, level, token))
            room.begin(now, out)  # the first-move deadline aborts it if the bot never comes
        out.key = room.code
        out.writes.append(SaveGame(room.meta()))
        room.reply_snapshot(session.conn, side, now, out, message.id)
        self._after_room(room, out)

    def _bot_identity(self, name: str, player: str | None = None) -> tuple[Identity, str]:
        """A server-made bot identity (new, or ``player`` with a fresh token) and its token.

        The token lives only in memory and goes to the bot process the server starts, so nobody
        else can sit in a bot's seat, whatever its ``hello.client`` says."""
        token = self.token_factory()
        if player is None:
            player = "p" + self._new_id(11, lambda c: "p" + c in self.identities)
        old = self.identities.get(player)
        if old is not None:
            self.by_token.pop(old.token_hash, None)
        identity = Identity(player, hash_token(token), name, bot=True, server_bot=True)
        self.identities[player] = identity
        self.by_token[identity.token_hash] = player
        return identity, token

    def _bot_level(self, opponent: str | None) -> int | None:
        if opponent is None:
            return None
        prefix, _, level = opponent.partition(":")
        if (
            prefix != "bot"
            or not level.isdigit()
            or not 1 <= int(level) <= self.config.max_bot_level
        ):
            raise ProtocolError(
                ErrorCode.BAD_OPTION,
                f"opponent must be bot:LEVEL with LEVEL 1-{self.config.max_bot_level}, "
                f"not {opponent!r}",
            )
        return int(level)

    # ---- joining -----------------------------------------------------------------------------

    def _room(self, code: str) -> Room:
        room = self.rooms.get(code)
        if room is None or room.closed:
            raise ProtocolError(ErrorCode.UNKNOWN_ROOM, self._no_room(code), room=code)
        return room

    def _no_room(self, code: str) -> str:
        """Why ``code`` names no room: the lobby lists seeks beside rooms, with their ids in the
        same ``room`` field, and a seek is no room until someone is matched with it."""
        if code in self.seeks:
            return (
                f"{code!r} is a seek waiting to be matched, not a room: join it as a player to "
                "play its author; there is nothing to watch until it becomes a room"
            )
        if _looks_like_seek(code):
            return f"{code!r} is a seek no longer open (matched or withdrawn), not a room"
        return f"no room {code!r}"

    def _join(self, session: Session, message: Join, now: float, out: Outputs) -> None:
        identity = session.identity
        assert identity is not None
        if message.room is not None:
            seek = self.seeks.get(message.room)
            if seek is not None and message.role == "player":
                if seek.player == identity.player:
                    raise ProtocolError(ErrorCode.NOT_ALLOWED, "that is your own seek")
                self._check_room_quota(identity.player, seeks=False)
                self._match(seek, identity, now, out, message.id)
                return
            room = self._room(message.room)
            out.key = room.code
            if message.role == "spectator":
                room.join_spectator(session.conn, now, out, message.id)
                session.spectating.add(room.code)
                self._store(identity, now, out)  # a spectator comes back with its token too
            else:
                newly = room.seat_of(identity.player) is None
                if newly:
                    self._check_room_quota(identity.player, seeks=False)
                room.join_player(
                    session.conn,
                    identity.player,
                    identity.name,
                    identity.bot,
                    now,
                    out,
                    message.id,
                )
                session.spectating.discard(room.code)
                if room.seat_of(identity.player) is not None:
                    self.player_rooms.setdefault(identity.player, set()).add(room.code)
                    self._store(identity, now, out)
                    if newly:
                        self._drop_seeks(identity.player)
                    if room.status == "playing":
                        self._note_colours(room)
            self._lobby_changed()
            self._after_room(room, out)
            return
        if message.game is None:
            raise ProtocolError(ErrorCode.BAD_MESSAGE, "join: give a room, or a game to be matched")
        if message.role == "spectator":
            raise ProtocolError(ErrorCode.BAD_MESSAGE, "join: spectators must name a room")
        engine, variant, options, max_plies, control = self._settings(
            message.game, message.variant, message.options, message.clock
        )
        windowed = self._rated_pool(engine, options, control) and not identity.bot
        mine = Seek("", identity.player, engine.game, variant, options, max_plies, control, now,
                    windowed)
        pool = [s for s in self.seeks.values() if s.key == mine.key and s.player != identity.player]
        seeker = self._seeker(mine)
        partner = best(seeker, ((s, self._seeker(s)) for s in pool), now)
        if partner is not None:
            self._check_room_quota(identity.player, seeks=False)
            self._match(partner, identity, now, out, message.id)
            return
        self._check_room_quota(identity.player, mine.key)
        self._drop_seeks(identity.player, mine.key)
        if pool:  # a window may reach one of them later: the re-check is planned for then
            self._plan_matching(min(ready_at(seeker, self._seeker(s)) for s in pool), now)
        mine.id = "s" + self._new_id(5, lambda c: "s" + c in self.seeks)
        self.seeks[mine.id] = mine
        self._store(identity, now, out)
        self._lobby_changed()
        out.send(
            (session.conn,),
            Queued(
                re=message.id,
                game=engine.game,
                variant=variant,
                clock=control.to_clock(),
                options=options,
            ),
        )

    def bot_launches(self) -> list[LaunchBot]:
        """Bots to start again for unfinished rooms whose bot is not connected (after a restart)."""
        found = []
        for room in self.rooms.values():
            side, level = room.bot_seat, room.bot_level
            seat = room.seats[side] if side else None
            if room.status != "over" and level and seat is not None and not seat.connected:
                _, token = self._bot_identity(seat.name, seat.player)
                room.expect_bot()  # its players see it here, not leaving and coming back
                found.append(LaunchBot(room.code, room.game, room.variant, level, token))
        return found

    def bot_missing(self, code: str, now: float) -> Outputs:
        """The bot process started for room ``code`` could not start, or ended before it
        connected: its seat, shown here while it was expected, is shown away."""
        out = Outputs(key=code)
        room = self.rooms.get(code)
        if room is not None and not room.closed:
            room.bot_missing(out)
        return out

    def _match(
        self, seek: Seek, joiner: Identity, now: float, out: Outputs, re: MessageId | None
    ) -> None:
        seeker = self.identities[seek.player]
        del self.seeks[seek.id]
        engine = self._engine(seek.game)
        state = engine.start(seek.variant, None, engine_options(engine, seek.options))
        room = self._new_room(
            engine, seek.variant, seek.options, seek.max_plies, state, seek.control, now
        )
        out.key = room.code
        seeker_side = self._fair_side(seeker, joiner)
        self._seat(room, seeker_side, seeker, now, out)
        self._seat(room, other(seeker_side), joiner, now, out)
        room.begin(now, out)
        self._note_colours(room)
        room.snapshots(now, out, joiner.conn, re)
        self._after_room(room, out)

    # ---- matchmaking windows (server/matchmaking.py) ------------------------------------------

    @staticmethod
    def _rated_pool(engine: Engine, options: dict[str, Any], control: TimeControl) -> bool:
        """Whether a game of this pool between two people would be rated (it starts from the
        variant's own start and, played out, has a result and both sides' moves)."""
        facts = GameFacts(
            result="draw",
            both_moved=True,
            any_bot=False,
            timed=control.timed,
            standard_start=True,
            default_options=options == dict(engine.default_options),
        )
        return unrated_because(facts) is None

    def _seeker(self, seek: Seek) -> Seeker:
        """What pairing needs of ``seek``: its player's rating for its game as of now."""
        rating = self.ratings.get(seek.player, rating_key(seek.game, seek.variant))
        return Seeker(rating.rating, rating.deviation, seek.since, seek.windowed)

    def _plan_matching(self, when: float, now: float) -> None:
        """Re-check the waiting seeks at ``when`` (unless a re-check is due sooner); never
        sooner than :data:`RECHECK_AFTER_S` from ``now`` (what pairs now was paired already, and
        a rating changed meanwhile must not make the timer spin)."""
        when = max(when, now + RECHECK_AFTER_S)
        if self._match_at is None or when < self._match_at:
            self._match_at = when
            heapq.heappush(self._wakes, (when, MATCHING))

    def _pair_waiting(self, now: float) -> list[Outputs]:
        """Pair the waiting seeks whose windows have grown to take each other, the longest
        waiting first, each with its best partner (:func:`server.matchmaking.best`); then plan
        the next re-check for the pools still holding two seeks or more."""
        results: list[Outputs] = []
        pools: dict[tuple[Any, ...], list[Seek]] = {}
        for seek in self.seeks.values():  # oldest first
            pools.setdefault(seek.key, []).append(seek)
        for pool in pools.values():
            # a player matched in an earlier pool has had its other seeks withdrawn
            waiting = [s for s in pool if s.id in self.seeks]
            if len(waiting) < 2:
                continue
            seekers = {s.id: self._seeker(s) for s in waiting}
            i = 0
            while i < len(waiting):
                seek = waiting[i]
                others = [
                    (s, seekers[s.id]) for s in waiting if s is not seek and s.player != seek.player
                ]
                partner = best(seekers[seek.id], others, now)
                if partner is None:
                    i += 1
                    continue
                waiting.remove(seek)
                waiting.remove(partner)
                results.append(self._timer_match(seek, partner, now))
            if len(waiting) >= 2:
                self._plan_matching(
                    min(
                        ready_at(seekers[a.id], seekers[b.id])
                        for j, a in enumerate(waiting)
                        for b in waiting[j + 1 :]
                    ),
                    now,
                )
        return results

    def _timer_match(self, seek: Seek, partner: Seek, now: float) -> Outputs:
        """The re-check pairs ``seek`` with ``partner``: a room for both, told to both."""
        out = Outputs()
        version = self._lobby_version
        self._match(seek, self.identities[partner.player], now, out, None)
        out.lobby = self._lobby_version != version
        self._push_lobby(out, now)
        return out

    def _fair_side(self, a: Identity, b: Identity) -> Side:
        """``a``'s colour against ``b``: each is due the colour other than its last one; when
        only one is due a colour, or they are due different ones, they get them; else a toss."""
        due_a = other(a.last_colour) if a.last_colour else None
        due_b = other(b.last_colour) if b.last_colour else None
        if due_a is not None and due_a != due_b:
            return due_a
        if due_b is not None and due_b != due_a:
            return other(due_b)
        return self.rng.choice(SIDES)

    def _note_colours(self, room: Room) -> None:
        for side in SIDES:
            seat = room.seats[side]
            if seat is not None and seat.player in self.identities:
                self.identities[seat.player].last_colour = side

    def _leave(self, session: Session, message: Leave, now: float, out: Outputs) -> None:
        identity = session.identity
        assert identity is not None
        if message.room is None:
            if not self._drop_seeks(identity.player):
                raise ProtocolError(ErrorCode.NOT_ALLOWED, "you are not waiting for a match")
            out.send((session.conn,), Ok(re=message.id))
            return
        room = self._room(message.room)
        out.key = room.code
        room.leave(session.conn, identity.player, now, out, message.id)
        session.spectating.discard(room.code)
        if room.seat_of(identity.player) is None:
            self.player_rooms.get(identity.player, set()).discard(room.code)
        self._lobby_changed()
        self._after_room(room, out)

    def _list(self, session: Session, message: ListRooms, out: Outputs) -> None:
        if message.game is not None:
            self._engine(message.game)  # unknown_game, naming it, before anything changes
        if message.watch is not None:
            session.watching = message.watch
            session.watch_game = message.game
        rooms = self._summaries(message.game)
        session.lobby_seen = None
        if session.watching and session.watch_game == message.game:
            rooms = session.lobby_seen = self._shared_list(message.game, rooms)
        out.lobby = True
        out.send((session.conn,), Rooms(re=message.id, rooms=rooms))

    def _shared_list(self, game: str | None, rooms: list[RoomSummary]) -> list[RoomSummary]:
        """The lobby list ``rooms`` (of filter ``game``) as the one object watchers who have
        seen it hold in :attr:`Session.lobby_seen`: the kept one when equal, else ``rooms``
        kept in its place."""
        kept = self._lobby_lists.get(game)
        if kept is not None and kept == rooms:
            return kept
        self._lobby_lists[game] = rooms
        return rooms

    def _summaries(self, game: str | None) -> list[RoomSummary]:
        found: list[RoomSummary] = []
        for seek in self.seeks.values():
            if game is not None and seek.game != game:
                continue
            identity = self.identities.get(seek.player)
            rated = identity is not None and not identity.bot
            rating = self.ratings.get(seek.player, rating_key(seek.game, seek.variant))
            found.append(
                RoomSummary(
                    room=seek.id,
                    game=seek.game,
                    variant=seek.variant,
                    status="waiting",
                    seats=[identity.name if identity else "?"],
                    clock=seek.control.to_clock(),
                    seek=True,
                    options=seek.options,
                    ratings=[shown(rating) if rated else None],
                    rds=[round(rating.deviation) if rated else None],
                )
            )
        waiting: list[RoomSummary] = []
        playing: list[RoomSummary] = []
        for room in self.rooms.values():
            if room.private or room.closed or room.status == "over":
                continue
            if game is None or room.game == game:
                (waiting if room.status == "waiting" else playing).append(room.summary())
                if len(found) + len(waiting) >= LOBBY_MAX:
                    break
        return (found + waiting + playing)[:LOBBY_MAX]

    def _lobby_changed(self) -> None:
        """What the lobby list shows has changed: push it to the watchers."""
        self._lobby_dirty = True
        self._lobby_version += 1

    def _push_lobby(self, out: Outputs, now: float) -> None:
        """Send watchers the new lobby, at most once per :data:`LOBBY_INTERVAL_S`."""
        if not self._lobby_dirty:
            return
        if now < self._lobby_next:
            if not self._lobby_timer:
                self._lobby_timer = True
                heapq.heappush(self._wakes, (self._lobby_next, LOBBY))
            return
        self._lobby_dirty = False
        self._lobby_timer = False
        self._lobby_next = now + LOBBY_INTERVAL_S
        groups: dict[str | None, list[Session]] = {}
        for session in self.sessions.values():
            if session.watching and not session.closing:
                groups.setdefault(session.watch_game, []).append(session)
        for game, sessions in groups.items():
            rooms = self._shared_list(game, self._summaries(game))
            conns = [s.conn for s in sessions if s.lobby_seen is not rooms]  # once per change
            for session in sessions:
                session.lobby_seen = rooms
            if conns:
                out.lobby = True
                out.send(conns, Rooms(rooms=rooms))

    # ---- in-room actions ---------------------------------------------------------------------

    def _room_action(
        self, session: Session, message: ClientMessage, now: float, lag_ms: int, out: Outputs
    ) -> None:
        identity = session.identity
        assert identity is not None
        code: str = getattr(message, "room")  # noqa: B009 - every remaining message has a room
        text = ""
        if isinstance(message, Chat):
            text = clean_text(message.text, limits.CHAT_CHARS)
            if not text:  # bad_message comes before every other code
                raise ProtocolError(ErrorCode.BAD_MESSAGE, "chat: the line is empty")
            self._check_chat(session, identity, text, now)  # rate_limited before unknown_room
        room = self._room(code)
        out.key = room.code
        conn, player, re = session.conn, identity.player, message.id
        before = room.status
        if isinstance(message, Move):
            room.move(conn, player, message.ply, message.move, lag_ms, now, out, re)
        elif isinstance(message, Resign):
            room.resign(conn, player, now, out, re)
        elif isinstance(message, Abort):
            room.abort(conn, player, now, out, re)
        elif isinstance(message, Stop):
            room.claim("stop", conn, player, now, out, re)
        elif isinstance(message, Report):
            room.claim("report", conn, player, now, out, re)
        elif isinstance(message, Timeout):
            room.timeout_claim(conn, player, now, out, re)
        elif isinstance(message, Offer):
            side = room.seat_of(player)
            if message.kind == "rematch" and side and room.offers.get("rematch") == other(side):
                self._check_rematch_quota(room)  # a crossing offer accepts the opponent's
            if room.offer(message.kind, conn, player, now, out, re) == "rematch":
                self._rematch(room, now, out)
        elif isinstance(message, Answer):
            side = room.seat_of(player)
            accepting = message.kind == "rematch" and message.accept and side is not None
            if accepting and side is not None and room.offers.get("rematch") == other(side):
                self._check_rematch_quota(room)
            if room.answer(message.kind, message.accept, conn, player, now, out, re) == "rematch":
                self._rematch(room, now, out)
            elif message.kind == "swap" and message.accept:
                self._note_colours(room)  # the colours played are the swapped ones
        elif isinstance(message, Chat):
            room.chat(conn, player, identity.name, text, out, re)
            words = chat_words(text)
            identity.said.append((now, words))
            if self.config.chat_address_lines_in_force:
                self.address_lines.add(session.limit_key, now, words)
        if room.status != before:
            self._lobby_changed()
        self._after_room(room, out)

    def _check_chat(self, session: Session, identity: Identity, text: str, now: float) -> None:
        """Refuse (``rate_limited``) a chat line over ``identity``'s chat rate, or one it said
        within the repeat time: a public room's spam guard, per player (whatever connection or
        room), counting only the lines that were said (a refused one does not prolong it). Then
        the same per client address, every identity and connection of it together, with its own
        number of lines (:attr:`ServerConfig.chat_address_lines_in_force`; none if 0): a new
        identity is a new player, not a new budget. Across the address's players only a line of
        at least :data:`~server.chatguard.ADDRESS_REPEAT_MIN_CHARS` counts as a repeat."""
        config = self.config
        horizon = max(config.chat_window_s, config.chat_repeat_s)
        words = chat_words(text)
        forget_before(identity.said, now, horizon)
        wait = wait_for(identity.said, now, config.chat_lines, config.chat_window_s)
        if wait is not None:
            raise ProtocolError(
                ErrorCode.RATE_LIMITED,
                f"at most {config.chat_lines} chat lines in {config.chat_window_s:g} s: "
                f"wait {wait} s",
            )
        if said_lately(identity.said, words, now, config.chat_repeat_s):
            raise ProtocolError(
                ErrorCode.RATE_LIMITED,
                f"you said that within {config.chat_repeat_s:g} s: say something else",
            )
        lines = config.chat_address_lines_in_force
        if not lines:
            return
        said = self.address_lines.lines(session.limit_key, now, horizon)
        wait = wait_for(said, now, lines, config.chat_window_s)
        if wait is not None:
            raise ProtocolError(
                ErrorCode.RATE_LIMITED,
                f"too many chat lines from your address (at most {lines} in "
                f"{config.chat_window_s:g} s): wait {wait} s",
            )
        if repeat_counts_across(words) and said_lately(said, words, now, config.chat_repeat_s):
            raise ProtocolError(
                ErrorCode.RATE_LIMITED,
                f"that was said from your address within {config.chat_repeat_s:g} s: "
                "say something else",
            )

    def _rematch(self, old: Room, now: float, out: Outputs) -> None:
        state = old.states[0]
        room = self._new_room(
            old.engine,
            old.variant,
            old.options,
            old.max_plies,
            state,
            old.control,
            now,
            old.private,
        )
        old.rematch_room = room.code
        out.writes.append(SaveGame(old.meta()))  # its offer answered, after a restart too
        if old.bot_seat is not None:  # the bot keeps its seat across a restart in the new room too
            room.bot_seat, room.bot_level = other(old.bot_seat), old.bot_level
        for side in SIDES:
            seat = old.seats[side]
            assert seat is not None
            identity = self.identities.get(seat.player)
            room.sit(other(side), seat.player, seat.name, seat.bot, now)
            self.player_rooms.setdefault(seat.player, set()).add(room.code)
            self._drop_seeks(seat.player)
            if identity is not None:
                identity.last_colour = other(side)
        out.keys += (room.code,)  # after the new room's own outputs too (server.net._emit)
        room.begin(now, out)
        room.snapshots(now, out)
        self._follow_rematch(old, room, now, out)
        self._after_room(room, out)

    def _follow_rematch(self, old: Room, room: Room, now: float, out: Outputs) -> None:
        """Every spectator of the finished room ``old`` watches its rematch ``room``, as if it
        had joined it as a spectator (earliest connections first, up to the room's spectator
        limit: one over it stays in ``old``). Watching needs only a room's code, private or
        not, so a private room's spectators follow its (private) rematch too."""
        moved = []
        for conn in sorted(old.watchers()):
            session = self.sessions.get(conn)
            if session is None or session.closing or session.identity is None:
                continue
            if not room.has_spectator_room(conn):
                break
            room.join_spectator(conn, now, out, None)
            session.spectating.discard(old.code)
            session.spectating.add(room.code)
            moved.append(conn)
        old.spectators_moved(moved, now, out)

    def _after_room(self, room: Room, out: Outputs) -> None:
        if room.closed:
            self._close(room, out)
        else:
            self._schedule(room)
        self._let_bot_go(room, out)

    def _let_bot_go(self, room: Room, out: Outputs) -> None:
        """Close the connection of the bot the server started for ``room`` (1000) once no room
        needs it, so its process ends (a launched bot never reconnects): ``room`` closed, or its
        human left it after the end, and the bot sits in no other room that is on or whose
        human may still ask for a rematch. A finished room whose human dropped keeps its bot
        until the room closes (``finished_room_return_s``). Before, the bot waited 600 s for a
        rematch nobody could offer: 32 finished chess bots held about 7 GB."""
        side = room.bot_seat
        seat = room.seats[side] if side is not None else None
        if seat is None or not (room.closed or room.status == "over"):
            return
        identity = self.identities.get(seat.player)
        if identity is None or not identity.server_bot or identity.conn is None:
            return
        for code in self.player_rooms.get(seat.player, ()):
            kept = self.rooms.get(code)
            if kept is not None and not kept.closed and kept.wants_bot():
                return
        session = self.sessions.get(identity.conn)
        if session is None or session.closing:
            return
        session.closing = True
        out.closes.append((identity.conn, 1000, "no game left for this bot"))

    def _forget_if_idle(self, player: str) -> None:
        """Drop an identity that is neither connected nor seated (storage keeps it)."""
        identity = self.identities.get(player)
        if self.player_rooms.get(player) or (identity is not None and identity.conn is not None):
            return
        self.player_rooms.pop(player, None)
        self.ratings.forget(player)
        if identity is not None:
            del self.identities[player]
            self.by_token.pop(identity.token_hash, None)

    def _close(self, room: Room, out: Outputs) -> None:
        if room.status == "waiting":
            meta = room.meta()
            meta["status"] = "closed"  # never started: not restored after a restart
            out.writes.append(SaveGame(meta))
        elif room.status == "over" and not self.stopping:  # not restored after a restart
            out.writes.append(SaveGame(room.meta()))
        log.info("room closed", extra={"fields": {"room": room.code, "status": room.status}})
        self.rooms.pop(room.code, None)
        self._pushed.pop(room.code, None)
        for seat in room.seats.values():
            if seat is not None:
                self.player_rooms.get(seat.player, set()).discard(room.code)
                self._forget_if_idle(seat.player)
        for conn in room.spectators:
            session = self.sessions.get(conn)
            if session is not None:
                session.spectating.discard(room.code)
        self._lobby_changed()

    # ---- recovery ----------------------------------------------------------------------------

    def pauses(self, stopped: float) -> list[SaveGame]:
        """The server is stopping, since ``stopped``: what every game on keeps of its clocks
        (the running turn's time so far, the absences) for the restart (:meth:`Room.paused`)."""
        self.stopping = True
        writes = []
        for room in self.rooms.values():
            room.kept_at_stop = room.paused(stopped)
            if room.kept_at_stop is not None:
                writes.append(SaveGame(room.meta()))
        return writes

    def restart_clocks(self, now: float) -> list[SaveGame]:
        """The server is back at ``now``: every restored game's turn (and every absent player's
        grace) goes on from where it was when the server stopped, or up to when it was last
        known alive before a crash (:func:`server.liveness.crash_charges`), so the downtime
        and the time spent restoring count for nobody and nothing used before is given back.
        Returns every game on, stored again with its turn anchored in this run and without
        what a stop kept, now applied (:meth:`Room.resume`): to be written before this run's
        first stamp (:meth:`alive`)."""
        writes = []
        for room in self.rooms.values():
            if room.status != "playing":
                continue
            room.resume(now)
            writes.append(SaveGame(room.meta()))
            self._schedule(room)
        return writes

    def restart_turns_of(self, game_ids: Collection[str], now: float) -> list[SaveGame]:
        """The running turns of the games ``game_ids`` begin again at ``now`` (their players
        were not shown the position before then); returns those games to store again (their
        turns' new start, for a crash)."""
        writes = []
        for room in self.rooms.values():
            clock = room.clock
            if room.game_id in game_ids and room.status == "playing" and clock.running:
                clock.start_turn(clock.running, now)
                room.anchor_turn(now)
                writes.append(SaveGame(room.meta()))
                self._schedule(room)
        return writes

    @staticmethod
    def _stored_engine(engine: Engine, meta: dict[str, Any]) -> Engine:
        """The engine that plays the stored game ``meta``: a custom game is played with the
        variant definition it was started with (stored with it). When the server now knows a
        different one under that id (its file was edited), the game gets an engine of its own."""
        stored = meta.get("variant_info")
        if not stored or not callable(getattr(engine, "load_data", None)):
            return engine
        try:
            current = engine.variant_info(meta["variant"])
        except EngineError:
            current = None
        if current == stored:
            return engine
        if current is not None:
            engine = type(engine)()
        engine.load_data(stored)  # type: ignore[attr-defined]
        return engine

    def seated_players(self) -> set[str]:
        """Every player seated in a room in memory (whose ratings a restart loads)."""
        return {p for p, codes in self.player_rooms.items() if codes}

    def load_ratings(self, player: str, ratings: Mapping[str, Rating]) -> None:
        """Take ``player``'s stored ratings (a player seated in a restored room), unless in
        memory already."""
        self.ratings.load(player, ratings)

    def restore(
        self,
        meta: dict[str, Any],
        moves: list[dict[str, Any]],
        now: float,
        chat: list[dict[str, Any]] | None = None,
        alive: Alive | None = None,
    ) -> Room:
        """Bring back an unfinished game from storage, with its kept ``chat`` lines (as
        :meth:`Storage.unfinished_chat` gives them), the server last stamped ``alive`` (as
        :meth:`Storage.alive` gives it); the turn restarts at ``now``, with what was used of
        it before the server went down (applied by :meth:`restart_clocks`). A finished game's
        room comes back open with its result and a pending rematch offer, closing by the
        same rules as before, its keep time counted from the end (:meth:`Room.restore_end`)."""
        engine = self._stored_engine(self._engine(meta["game"]), meta)
        options = dict(meta.get("options") or {})
        state = engine.start(meta["variant"], meta["start"], engine_options(engine, options))
        clock = Clock.model_validate(meta["clock"]) if meta.get("clock") else None
        room = Room(
            code=meta["room"],
            game_id=meta["id"],
            engine=engine,
            variant=meta["variant"],
            options=options,
            max_plies=int(meta.get("max_plies") or 0),
            state=state,
            control=TimeControl.from_clock(clock),
            config=self.config,
            connection_of=self._conn_of,
            wall=self.wall,
            now=now,
            private=bool(meta.get("private")),
            variant_info=meta.get("variant_info"),
            run=self.run,
            ratings=self.ratings,
        )
        room.created = meta.get("created") or room.created
        room.bot_seat = meta.get("bot_seat")
        room.bot_level = meta.get("bot_level")
        room.replay(moves)
        room.restore_chat(chat or ())
        for side, count in (meta.get("refusals") or {}).items():
            room.refusals[side] = int(count)
            # when the refusal came is not kept: the wait starts again with the server
            room.offer_after[side] = now + room.offer_wait(side)
        for side in SIDES:
            seat = (meta.get("seats") or {}).get(side)
            if seat:
                room.sit(side, seat["player"], seat["name"], bool(seat.get("bot")), now)
                self.player_rooms.setdefault(seat["player"], set()).add(room.code)
        if meta.get("status") == "playing":
            room.status = "playing"
            room.expires = None
            room.clock.start_turn(room.state.turn, now)
            room.stopped_with = crash_charges(meta, moves, alive)  # applied by restart_clocks
            room.restore_offers(meta.get("offers"))
        elif meta.get("status") == "over":
            ended = self.wall_seconds(meta.get("ended"))
            if ended is None:
                raise ValueError(f"finished game {meta['id']} has no time it ended")
            # the keep time counts from the end on the wall clock, the downtime included
            room.restore_end(meta, now - max(0.0, now + self.wall_offset - ended), now)
            room.restore_offers(meta.get("offers"))
            if room.closed:
                self._close(room, Outputs(key=room.code))
                return room
        self.rooms[room.code] = room
        self._schedule(room)
        return room
