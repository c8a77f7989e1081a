"""The headless bot player: plays over protocol v1 like any client, never imports pygame.

``python -m client.bot HOST[:PORT] --game G [--variant V] --level L [--room CODE | --clock C]
[--games N]`` (also ``boardhall bot ...``). Without ``--room`` the bot seeks an opponent by
matchmaking and plays game after game; the server matches only seeks of the same clock, so the bot
seeks ``--clock`` (``5+3``, ``20s/move`` or ``untimed``), by default its game's first quick-game
preset, the one a human in the lobby meets with the first quick-game button. With ``--room`` it
sits in that room and plays there under the room's clock, accepting rematches (a bot the server
started ends once the server lets it go: its room closed, or its human left it after the end). It
declines undo offers, accepts a draw only when a fixed search of the position, the same at every
level, sees it clearly losing, and in number chess calls ``stop`` and ``report`` when they win. In
an untimed game whose opponent has gone, it claims the game once the server's absence grace has
run out. A seeking bot takes a rematch offer instead of its new seek (and declines one while it
plays another game).

When the connection drops, the bot reconnects with its token for up to five minutes and resumes
its seat (a bot the server started for its room ends instead: the server, started again, starts
its own). It stops, with one line on stderr and exit status 1, when the server cannot be reached
at all, refuses its game, variant, room (unknown, full or finished) or token, or closes it with
4001 because its token connected elsewhere; Ctrl-C exits with status 130.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import gc
import inspect
import itertools
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from client import flags
from client.address import BadAddress, to_url
from client.backoff import spread
from client.clocks import FISCHER, PER_MOVE, clock_presets, parse_clock
from client.variants import learn_variant
from engines import EngineError, get
from engines.search import BotPlayer, Decision, think_seconds
from engines.search.levels import SAFETY_SECONDS

log = logging.getLogger("boardhall.bot")

TOKEN_VARIABLE = "BOARDHALL_BOT_TOKEN"
"""Set by the server for a bot it starts: the token of the seat it plays (server/bot_launcher)."""
BOT_CLIENT = "bot boardhall"
"""``hello.client``: the server marks identities whose client starts with ``bot`` as bots."""
IDLE_EXIT_SECONDS = 600.0
"""In a room, after a game ends, leave when no rematch comes within this time (a bot the server
started is let go sooner: when no room needs it)."""
MAX_REFUSALS = 3
"""Refused moves in one position before the bot resigns instead of looping."""
RECONNECT_FOR = 300.0
"""After losing the server, keep trying to reconnect (with its token) for this long."""
RECONNECT_DELAYS = (0.5, 1.0, 2.0, 4.0, 8.0)
"""Waits between reconnection attempts (the last one repeats)."""
RECONNECT_STABLE_AFTER = 30.0
"""A welcomed session that lasted this long starts the waits over; a shorter one (a server
that hangs up right after each welcome) keeps them growing, as the pygame client does."""
ABSENCE_CLAIM_EVERY = 5.0
"""In an untimed game whose opponent has gone, claim the game (``timeout``) this often: the server
grants it once its absence grace has run out."""
REPLACED = 4001
"""Close code: the same identity (token) connected elsewhere."""
RESERVE_SHARE = 0.2
"""Share of a clock limit the bot leaves unused (for the search's overrun and the network)..."""
RESERVE_SECONDS = SAFETY_SECONDS
"""...on top of this fixed part and of the connection's measured round trip."""
ROUND_TRIP_MAX = 2.0
"""A measured round trip is counted up to this (a stalled ping is no measure)."""
FATAL_JOIN_ERRORS = ("unknown_game", "unknown_variant", "bad_option", "bad_position")
FATAL_HELLO_ERRORS = ("bad_token", "unsupported_protocol", "bad_message")


class BotError(Exception):
    """Why the bot cannot go on, in one readable line."""


class Decider(Protocol):
    """What chooses the bot's actions (our search, or a UCI engine for chess)."""

    def decide(self, state: Any, seconds: float | None = None) -> Decision:
        """The action in ``state`` within ``seconds``."""
        ...

    def accepts_draw(self, state: Any, side: str) -> bool:
        """Whether the bot playing ``side`` accepts a draw offered in ``state`` (a sound
        judgement: never a randomised score)."""
        ...


@dataclass
class BotOptions:
    """Everything the bot needs to play."""

    url: str
    game: str
    level: int
    variant: str | None = None
    room: str | None = None
    games: int = 0
    """Games to play before leaving (0: no limit)."""
    name: str | None = None
    uci: str | None = None
    """Path of a UCI chess engine to use instead of the search (chess only)."""
    clock: str | None = None
    """Seeking only: the ``--clock`` to seek (:func:`client.clocks.parse_clock`); ``None`` seeks
    the game's first quick-game preset (:func:`client.clocks.clock_presets`), the lobby's first
    quick-game button."""
    seed: int | None = None
    idle_exit: float = IDLE_EXIT_SECONDS
    reconnect_for: float = RECONNECT_FOR
    reconnect_delays: tuple[float, ...] = RECONNECT_DELAYS
    reconnect_stable_after: float = RECONNECT_STABLE_AFTER
    absence_claim_every: float = ABSENCE_CLAIM_EVERY
    announce: Callable[[str], None] | None = None
    """Told once, when the server first welcomes the bot, what it does there ("connected to
    URL as NAME: seeking chess at 20 s/move"): the command line prints it, so a user sees the
    bot is connected and waiting rather than nothing until a game ends."""


@dataclass
class GameView:
    """The bot's view of the game in its room."""

    room: str
    game_id: str | None
    you: str | None
    state: Any
    ply: int
    status: str
    clock: dict[str, Any] = field(default_factory=dict)
    clocks: dict[str, Any] = field(default_factory=dict)
    received: float = 0.0
    """Monotonic time when the last position arrived (thinking time starts there)."""


@dataclass
class BotSummary:
    """What a bot run did."""

    results: list[str | None] = field(default_factory=list)
    """``over.result`` of each finished game."""
    wins: int = 0
    losses: int = 0
    draws: int = 0
    moves: int = 0


def make_decider(options: BotOptions) -> Decider:
    """Our search at the level, or the UCI engine for chess when ``options.uci`` is set."""
    if options.uci:
        if options.game != "chess":
            raise ValueError("--uci works only with --game chess")
        from client.bot_uci import UciDecider

        return UciDecider(options.uci, options.level)
    return BotPlayer(options.game, options.level, seed=options.seed)


class BotClient:
    """One bot connection: say hello, find a game, play, repeat."""

    def __init__(self, options: BotOptions, decider: Decider | None = None) -> None:
        self.options = options
        self.engine = get(options.game)
        if options.clock is not None and options.room:
            raise ValueError("--clock is for seeking: with --room the bot plays the room's clock")
        first_preset = clock_presets(options.game)[0][1]
        self.seek_clock = first_preset if options.clock is None else parse_clock(options.clock)
        """The ``clock`` the bot seeks with (``None``: untimed)."""
        self.round_trip = 0.0
        """The connection's last measured round trip in seconds (kept back from clock limits)."""
        self.decider = decider or make_decider(options)
        self.summary = BotSummary()
        self.view: GameView | None = None
        self.ws: ClientConnection | None = None
        self._ids = itertools.count(1)
        self._thinking: asyncio.Task[None] | None = None
        self._refusals = 0
        self._finished_ids: set[str] = set()
        self._answered_offers: set[tuple[str, str, int]] = set()
        """Offers already answered from a snapshot: (room, kind, ply)."""
        self._idle_since: float | None = None
        self._done = asyncio.Event()
        self._welcomed = False
        self._welcomed_at = 0.0
        """When the last welcome came (`time.monotonic`)."""
        self._fatal: str | None = None
        """Set with the reason when the bot must stop (a refused room, game or token)."""
        self.token: str | None = None
        """This bot's identity token, from the first ``welcome``: reconnections resume with it."""
        self._sent: dict[int, dict[str, Any]] = {}
        """Messages sent on this connection by id (to know what an ``error`` refuses)."""
        self._claiming: asyncio.Task[None] | None = None
        self.launched = bool(options.room and os.environ.get(TOKEN_VARIABLE))
        """Started by the server for its room (its seat's token in :data:`TOKEN_VARIABLE`): when
        that server goes away the bot ends, and the restarted server starts a bot of its own."""
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=1)
        """One thinking thread: searches never overlap on the same tables."""
        self._cancel: threading.Event | None = None
        """Set to end the running search (its position changed or the game ended)."""
        self._decider_stops = "stop" in inspect.signature(self.decider.decide).parameters
        """Whether the decider's search can be ended early (``decide(..., stop=...)``)."""
        self._thinking_on: tuple[GameView | None, tuple[str, int] | None] = (None, None)
        """The view and (room, ply) the running think is for."""
        self._moved: tuple[str, int] | None = None
        """(room, ply) of the move sent on this connection and not yet answered: a snapshot of
        that same position (the reply to a join, a seat's arrival) must not move again."""

    # ---- wire --------------------------------------------------------------------------------

    async def send(self, **message: Any) -> None:
        """Send one message with a fresh id."""
        if self.ws is None:
            return
        message["id"] = next(self._ids)
        self._sent[message["id"]] = message
        if len(self._sent) > 256:
            self._sent.pop(next(iter(self._sent)))
        with contextlib.suppress(ConnectionClosed):  # the reader sees the close: reconnect
            await self.ws.send(json.dumps(message))

    @property
    def name(self) -> str:
        """The name the bot says hello with (``--name``, else ``Bot L<level>``)."""
        return (self.options.name or f"Bot L{self.options.level}")[:32]

    def doing(self) -> str:
        """What the bot does on its server, in words: ``joining room K7QD`` or ``seeking
        chess at 20 s/move`` (the clock as the lobby writes it; the variant when one is named)."""
        if self.options.room:
            return f"joining room {self.options.room}"
        game = self.options.game + (f" ({self.options.variant})" if self.options.variant else "")
        if self.seek_clock is None:
            return f"seeking {game}, untimed"
        clock = self.options.clock or clock_presets(self.options.game)[0][0]
        return f"seeking {game} at {clock}"

    async def run(self) -> BotSummary:
        """Play until the wanted number of games is done; reconnect when the server goes away.

        Raises:
            BotError: the server cannot be reached at all, refused the bot's game, room or
                token, closed it for another connection of its token (4001), or stayed away
                longer than ``options.reconnect_for``.
        """
        try:
            await self._connect_loop()
        finally:
            self._stop_tasks()
            self._executor.shutdown(wait=False, cancel_futures=True)
            close = getattr(self.decider, "close", None)
            if callable(close):
                with contextlib.suppress(Exception):  # an engine already gone
                    close()
        return self.summary

    async def _connect_loop(self) -> None:
        url = self.options.url
        lost_at: float | None = None
        attempt = 0
        while True:
            ws: ClientConnection | None = None
            try:
                async with connect(url, open_timeout=10, max_size=None) as ws:
                    self.ws = ws
                    await self._session(ws)
                reason = _close_reason(ws)
            except (OSError, InvalidHandshake, InvalidURI, ConnectionClosed) as exc:
                if self.token is None and lost_at is None:
                    raise BotError(f"cannot reach {url}: {exc or type(exc).__name__}") from exc
                reason = str(exc) or type(exc).__name__
            finally:
                self.ws = None
                self._stop_tasks()
            if self._fatal is not None:
                raise BotError(self._fatal)
            if self._done.is_set():
                return
            if ws is not None and ws.close_code == REPLACED:
                raise BotError(
                    "the server closed the connection: this bot's token connected elsewhere "
                    "(4001), so the other connection plays its seat"
                )
            if self.launched:
                if ws is not None and ws.close_code == 1000:  # no room needs it any more
                    log.info("the server let this bot go (%s): the bot ends", reason)
                else:
                    log.info("the server that started this bot is gone (%s): the bot ends", reason)
                return
            now = time.monotonic()
            if self._welcomed:
                lost_at = now
                if now - self._welcomed_at >= self.options.reconnect_stable_after:
                    attempt = 0
                self._welcomed = False
            lost_at = now if lost_at is None else lost_at
            if now - lost_at > self.options.reconnect_for:
                raise BotError(
                    f"lost the server at {url} ({reason}); no reconnection for "
                    f"{self.options.reconnect_for:.0f} s"
                )
            delays = self.options.reconnect_delays or (1.0,)
            delay = delays[min(attempt, len(delays) - 1)]
            attempt += 1
            log.warning("connection to %s lost (%s); reconnecting in %.1f s", url, reason, delay)
            await asyncio.sleep(spread(delay))

    async def _session(self, ws: ClientConnection) -> None:
        """One connection: hello, then react to messages until it closes or the bot is done."""
        self._sent.clear()
        self._welcomed = False
        hello: dict[str, Any] = {"name": self.name, "protocol": 1, "client": BOT_CLIENT}
        token = self.token
        if token is None and self.options.room:
            token = os.environ.get(TOKEN_VARIABLE)  # a bot the server started: its seat's identity
        if token:
            hello["token"] = token
        await self.send(type="hello", **hello)
        reader = asyncio.ensure_future(self._read())
        idle = asyncio.ensure_future(self._watch_idle())
        done = asyncio.ensure_future(self._done.wait())
        measure = asyncio.ensure_future(self._measure_round_trip(ws))
        try:
            await asyncio.wait([reader, done], return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (reader, idle, done, measure):
                task.cancel()

    async def _measure_round_trip(self, ws: ClientConnection) -> None:
        """Measure the round trip once per connection (the keepalive pings update it later)."""
        with contextlib.suppress(Exception):  # a closed connection or no pong: keep the last
            pong = await ws.ping()
            self.round_trip = min(ROUND_TRIP_MAX, float(await asyncio.wait_for(pong, 10)))

    def _stop_tasks(self) -> None:
        self._cancel_thinking()
        if self._claiming is not None:
            self._claiming.cancel()
        self._claiming = None
        self._moved = None

    def _cancel_thinking(self) -> None:
        """End the running think: its task, and its search on the thinking thread (a cancelled
        task alone left the search running to its deadline, and the next search queued behind
        it overran its own time: a level-8 bot lost 3 s-a-move games on time)."""
        if self._cancel is not None:
            self._cancel.set()
        self._cancel = None
        if self._thinking is not None:
            self._thinking.cancel()
        self._thinking = None

    def _stop(self, reason: str) -> None:
        """Stop the bot for ``reason`` (the command line prints it and exits non-zero)."""
        if self._fatal is None:
            self._fatal = reason
        self._done.set()

    async def _read(self) -> None:
        assert self.ws is not None
        try:
            async for frame in self.ws:
                try:
                    message = json.loads(frame)
                except ValueError:
                    continue
                if isinstance(message, dict):
                    await self.handle(message)
        except ConnectionClosed:
            pass

    async def _watch_idle(self) -> None:
        while True:
            await asyncio.sleep(1.0)
            if self._idle_since is not None and (
                time.monotonic() - self._idle_since > self.options.idle_exit
            ):
                log.info("no new game for %.0f s: leaving", self.options.idle_exit)
                self._done.set()
                return

    # ---- messages ----------------------------------------------------------------------------

    async def handle(self, message: dict[str, Any]) -> None:
        """React to one server message."""
        kind = message.get("type")
        if kind == "welcome":
            await self._on_welcome(message)
        elif kind == "room":
            await self._on_room(message)
        elif kind == "moved":
            await self._on_moved(message)
        elif kind == "over":
            await self._on_over(message)
        elif kind == "offer":
            await self._on_offer(message)
        elif kind == "presence":
            self._on_presence(message)
        elif kind == "error":
            await self._on_error(message)

    async def _on_welcome(self, message: dict[str, Any]) -> None:
        first = self.token is None
        self.token = str(message.get("token") or "") or self.token
        self._welcomed, self._welcomed_at = True, time.monotonic()
        resumed = [str(code) for code in message.get("resumed") or []]
        view = self.view
        if not first:
            log.warning("reconnected to %s", self.options.url)
        elif self.options.announce is not None:
            self.options.announce(f"connected to {self.options.url} as {self.name}: {self.doing()}")
        if view is not None and (view.room in resumed or self.options.room):
            await self.send(type="join", room=view.room)  # the snapshot resumes the game
        elif not self.options.room and resumed:
            await self.send(type="join", room=resumed[0])
        else:
            self.view = None
            await self._find_game()

    async def _find_game(self) -> None:
        if self.options.room:
            await self.send(type="join", room=self.options.room)
        else:
            fields: dict[str, Any] = {"type": "join", "game": self.options.game}
            if self.options.variant:
                fields["variant"] = self.options.variant
            if self.seek_clock is not None:
                fields["clock"] = dict(self.seek_clock)
            await self.send(**fields)

    async def _on_room(self, message: dict[str, Any]) -> None:
        room = str(message.get("room"))
        status = str(message.get("status"))
        you = message.get("you")
        game_id = message.get("game_id")
        current = self.view
        if current is not None and room != current.room and (
            current.status == "playing" or status != "playing"
        ):
            return  # a snapshot of another (earlier) room: the current game goes on
        try:
            self._learn_variant(message)
            state = self.engine.start(
                message.get("variant") or None,
                position=message.get("start") or None,
                options=message.get("options") or None,
            )
            for move in message.get("moves") or []:
                state = self.engine.play(state, str(move))
        except EngineError as exc:
            log.error("cannot follow room %s: %s", room, exc)
            return
        busy = (self._thinking is not None and not self._thinking.done()) or (
            self._moved is not None
        )
        if (
            busy
            and current is not None
            and current.room == room
            and current.status == "playing" == status
            and current.you == you
            and current.game_id == (None if game_id is None else str(game_id))
            and current.ply == len(message.get("moves") or [])
            and self.engine.position(current.state) == self.engine.position(state)
        ):
            # the position the bot is thinking on, or has sent its move for: thinking goes on
            # (its time counted from when the position came), and no second move is sent
            current.clock = message.get("clock") or current.clock
        else:
            self._new_view(message, room, game_id, you, state, status)
        seats = message.get("seats")
        opponent = {"first": "second", "second": "first"}.get(str(you))
        if isinstance(seats, dict) and opponent and isinstance(seats.get(opponent), dict):
            self._watch_absence(seats[opponent].get("connected") is not False)
        if status == "playing" and opponent:
            await self._answer_kept_offers(room, opponent, message.get("offers"))
        self._maybe_think()

    def _new_view(
        self,
        message: dict[str, Any],
        room: str,
        game_id: Any,
        you: Any,
        state: Any,
        status: str,
    ) -> None:
        self.view = GameView(
            room=room,
            game_id=None if game_id is None else str(game_id),
            you=you,
            state=state,
            ply=len(message.get("moves") or []),
            status=status,
            clock=message.get("clock") or {},
            clocks=message.get("clocks") or {},
            received=time.monotonic(),
        )
        if status == "playing":
            self._idle_since = None
        elif status == "over" and game_id is not None and str(game_id) not in self._finished_ids:
            self._finished_ids.add(str(game_id))

    async def _answer_kept_offers(self, room: str, opponent: str, offers: Any) -> None:
        """Answer the opponent's offers a snapshot lists: one pending across a server restart
        comes only this way (no ``offer`` message). Each is answered once per ply."""
        view = self.view
        if not isinstance(offers, list) or view is None:
            return
        for offer in offers:
            if not isinstance(offer, dict) or offer.get("by") != opponent:
                continue
            kind = offer.get("kind")
            if kind not in ("draw", "undo", "swap"):
                continue
            key = (room, str(kind), view.ply)
            if key in self._answered_offers:
                continue
            self._answered_offers.add(key)
            await self._on_offer({"room": room, "kind": kind})

    def _learn_variant(self, message: dict[str, Any]) -> None:
        """Register a custom variant this bot has not seen, from the room's ``variant_info``."""
        learn_variant(self.engine, message.get("variant"), message.get("variant_info"))

    async def _on_moved(self, message: dict[str, Any]) -> None:
        view = self.view
        if view is None or message.get("room") != view.room:
            return
        if message.get("ply") != view.ply:
            await self.send(type="join", room=view.room)  # out of step: ask for a snapshot
            return
        try:
            view.state = self.engine.play(view.state, str(message.get("move")))
        except EngineError as exc:
            log.error("server move %r does not play here: %s", message.get("move"), exc)
            await self.send(type="join", room=view.room)
            return
        view.ply += 1
        view.clocks = message.get("clocks") or view.clocks
        view.received = time.monotonic()
        self._refusals = 0
        self._maybe_think()

    async def _on_over(self, message: dict[str, Any]) -> None:
        view = self.view
        if view is None or message.get("room") != view.room:
            return
        self._stop_tasks()
        game_id = message.get("game_id")
        key = str(game_id) if game_id is not None else f"{view.room}:{len(self.summary.results)}"
        view.status = "over"
        if key in self._finished_ids:
            return
        self._finished_ids.add(key)
        result = message.get("result")
        self.summary.results.append(result)
        if result == "draw":
            self.summary.draws += 1
            outcome = "drawn"
        elif result is not None and result == view.you:
            self.summary.wins += 1
            outcome = "won"
        elif result is not None:
            self.summary.losses += 1
            outcome = "lost"
        else:
            outcome = "aborted"
        # the game id is what GET /games/ID and `boardhall replay` take; the room code is not
        log.info("game %s over in room %s: %s (%s)", game_id, view.room, outcome,
                 message.get("reason"))
        self._forget()
        if self.options.games and len(self.summary.results) >= self.options.games:
            self._done.set()
            return
        if self.options.room:
            self._idle_since = time.monotonic()  # wait for a rematch offer
        else:
            self.view = None
            await self._find_game()

    async def _on_offer(self, message: dict[str, Any]) -> None:
        room = message.get("room")
        kind = message.get("kind")
        view = self.view
        if view is not None and room == view.room:  # a snapshot then lists it no more
            self._answered_offers.add((view.room, str(kind), view.ply))
        if kind == "draw":
            accept = (
                view is not None
                and room == view.room
                and view.status == "playing"
                and view.you in ("first", "second")
                and self.decider.accepts_draw(view.state, str(view.you))
            )
        elif kind == "rematch":
            accept = not (
                self.options.games and len(self.summary.results) >= self.options.games
            )
            if accept and not self.options.room:
                # seeking: a rematch replaces the seek, unless another game has already begun
                if view is not None and view.room != room and view.status == "playing":
                    accept = False
                else:
                    self.view = None
                    await self.send(type="leave")
        else:
            accept = False  # undo and swap are declined
        await self.send(type="answer", room=room, kind=kind, accept=accept)

    def _on_presence(self, message: dict[str, Any]) -> None:
        view = self.view
        seat = message.get("seat")
        if (
            view is not None
            and message.get("room") == view.room
            and seat in ("first", "second")
            and seat != view.you
            and isinstance(message.get("connected"), bool)
        ):
            self._watch_absence(bool(message["connected"]))
        if (
            view is not None
            and self.options.room
            and not self.launched
            and view.status == "over"
            and message.get("connected") is False
            and message.get("seat") not in (None, view.you)
        ):
            # the opponent left after the game: nobody to play. A bot the server started
            # stays: its human may come back for a rematch, and the server closes its
            # connection once no room needs it (the room closed, or its human left it).
            self._done.set()

    async def _on_error(self, message: dict[str, Any]) -> None:
        code = str(message.get("code"))
        text = message.get("message")
        sent = self._sent.pop(message["re"], None) if isinstance(message.get("re"), int) else None
        what = sent.get("type") if sent else None
        view = self.view
        if what == "hello" and code == "bad_token" and not self.options.room and self.token:
            # a seeking bot whose server forgot it (a new database): start as a new identity
            log.warning("the server no longer knows this bot's token: saying hello anew")
            self.token = None
            hello = {k: v for k, v in (sent or {}).items() if k not in ("id", "type", "token")}
            await self.send(type="hello", **hello)
            return
        if what == "hello" and code in FATAL_HELLO_ERRORS:
            self._stop(f"the server refused the bot's hello: {text} ({code})")
            return
        if what == "join" and code in FATAL_JOIN_ERRORS:
            self._stop(f"the server refused to seek {self.options.game}: {text} ({code})")
            return
        if what == "join" and code in ("unknown_room", "room_full", "game_over"):
            if self.options.room:
                self._stop(f"cannot play in room {self.options.room}: {text} ({code})")
            else:  # a room of ours that is gone (after a restart): seek anew
                log.info("room %s is gone (%s): seeking a new game", (sent or {}).get("room"), code)
                self.view = None
                await self._find_game()
            return
        if what in ("timeout", "answer", "offer", "leave", "stop", "report"):
            log.info("server refused %s: %s (%s)", what, text, code)
            return
        log.warning("server error %s: %s", code, text)
        if view is not None and (
            code in ("stale", "illegal_move", "not_your_turn")
            or (code == "not_allowed" and self._my_turn())
        ):
            self._moved = None  # the snapshot asked for below may need a move again
            self._refusals += 1
            if self._refusals >= MAX_REFUSALS:
                await self.send(type="resign", room=view.room)
            else:
                await self.send(type="join", room=view.room)

    # ---- an absent opponent ------------------------------------------------------------------

    def _watch_absence(self, opponent_connected: bool) -> None:
        """In an untimed game, claim it while the opponent is away (the server grants the claim
        after its absence grace; timed games end on the server's clock by themselves)."""
        view = self.view
        timed = view is not None and bool(view.clock.get("initial") or view.clock.get("per_move"))
        if opponent_connected or view is None or view.status != "playing" or timed:
            if self._claiming is not None:
                self._claiming.cancel()
                self._claiming = None
            return
        if self._claiming is None or self._claiming.done():
            self._claiming = asyncio.ensure_future(self._claim_absence(view))

    async def _claim_absence(self, view: GameView) -> None:
        while self.view is view and view.status == "playing":
            await asyncio.sleep(self.options.absence_claim_every)
            if self.view is view and view.status == "playing":
                await self.send(type="timeout", room=view.room)

    # ---- thinking ----------------------------------------------------------------------------

    def _my_turn(self) -> bool:
        view = self.view
        return (
            view is not None
            and view.status == "playing"
            and view.you is not None
            and view.state.turn == view.you
            and self.engine.outcome(view.state) is None
        )

    def _forget(self) -> None:
        """Between games: drop the search tables kept between moves (a launched bot waits up to
        :data:`IDLE_EXIT_SECONDS` for a rematch and needs none of them meanwhile)."""
        forget = getattr(self.decider, "forget", None)
        if not callable(forget):
            return
        try:
            done = self._executor.submit(forget)  # after the search, on the thread owning them
        except RuntimeError:  # the bot is ending: its tables go with it
            return
        done.add_done_callback(lambda _: gc.collect())

    def _maybe_think(self) -> None:
        view = self.view
        thinking = self._thinking is not None and not self._thinking.done()
        key = None if view is None else (view.room, view.ply)
        if thinking and self._thinking_on[0] is view and self._thinking_on[1] == key:
            return  # already thinking on this very position
        if self._my_turn() and self._moved is not None and self._moved == key:
            return  # its move for this position is on its way
        self._cancel_thinking()
        if self._my_turn():
            assert view is not None
            self._thinking_on = (view, key)
            self._thinking = asyncio.ensure_future(self._think(view, view.ply))

    def reserve(self, limit: float) -> float:
        """Seconds kept back from a clock limit of ``limit`` seconds: a fixed part, a share of
        the limit (the search overruns its time, the interpreter pauses) and the round trip."""
        return RESERVE_SECONDS + RESERVE_SHARE * limit + min(self.round_trip, ROUND_TRIP_MAX)

    def budget(self, view: GameView, now: float | None = None) -> float:
        """Seconds to think at ``now`` (default: the monotonic clock): the level's time, within
        every limit that applies to this move less a reserve (:meth:`reserve`).

        The limits are what was left of each when the position arrived: ``clocks.move`` (the
        per-move limit, or for a side's first move the server's abort deadline, 30 s), the
        room's per-move limit (the server does not run it on a first move, but a human is held
        to it on every other move and expects the bot to keep to it too) and the main time.
        """
        now = time.monotonic() if now is None else now
        spent = max(0.0, now - view.received)
        clock, clocks = view.clock, view.clocks
        main_ms = clocks.get(view.you or "") if clock.get("initial") else None
        seconds = think_seconds(
            self.options.level,
            main_ms=None if main_ms is None else max(0, int(main_ms) - int(spent * 1000)),
            increment_s=float(clock.get("increment") or 0),
        )
        limits = [int(ms) / 1000 for ms in (clocks.get("move"), main_ms) if ms is not None]
        if clock.get("per_move"):
            limits.append(float(clock["per_move"]))
        for limit in limits:
            seconds = min(seconds, limit - self.reserve(limit) - spent)
        return max(0.01, seconds)

    async def _think(self, view: GameView, ply: int) -> None:
        latency = getattr(self.ws, "latency", 0.0) if self.ws is not None else 0.0
        if isinstance(latency, float) and latency > 0:  # the keepalive pings' last measure
            self.round_trip = min(latency, ROUND_TRIP_MAX)
        cancel = self._cancel = threading.Event()

        def decide() -> Decision:
            seconds = self.budget(view)  # when the thread starts: a wait for it counts too
            if self._decider_stops:
                stoppable: Any = self.decider.decide
                decision: Decision = stoppable(view.state, seconds, stop=cancel.is_set)
                return decision
            return self.decider.decide(view.state, seconds)

        loop = asyncio.get_running_loop()
        try:
            decision = await loop.run_in_executor(self._executor, decide)
        except asyncio.CancelledError:
            cancel.set()
            raise
        except Exception as exc:  # a broken engine: say so, do not hang
            if self.view is view and view.ply == ply and view.status == "playing":
                log.error("the bot cannot choose a move in %s: %s: resigning", view.room, exc)
                await self.send(type="resign", room=view.room)
                if self.options.uci:
                    self._stop(f"the UCI engine failed: {exc}")
            return
        if self.view is not view or view.ply != ply or view.status != "playing":
            return
        if decision.action == "move":
            self.summary.moves += 1
            self._moved = (view.room, ply)
            await self.send(type="move", room=view.room, ply=ply, move=decision.move)
        else:
            await self.send(type=decision.action, room=view.room)


def _close_reason(ws: ClientConnection) -> str:
    code = ws.close_code
    if code is None:
        return "connection closed"
    reason = ws.close_reason
    return f"closed by the server, code {code}" + (f": {reason}" if reason else "")


async def play(options: BotOptions) -> BotSummary:
    """Run one bot until it is done; returns what it played."""
    return await BotClient(options).run()


# ---- command line -------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The bot's command-line arguments (shared with ``boardhall bot``)."""
    parser.add_argument("address", help="HOST, HOST:PORT or a ws:// / wss:// URL")
    parser.add_argument("--game", required=True, help="game id (chess, draughts, shuqi, ...)")
    parser.add_argument("--variant", help="variant id (default: the game's default)")
    parser.add_argument(
        "--level", type=flags.bot_level, default=4, help="bot level 1-8 (default 4)"
    )
    parser.add_argument("--room", help="play in this room instead of seeking an opponent")
    firsts = [f"{game} {seconds}s/move" for game, seconds in PER_MOVE.items()]
    parser.add_argument(
        "--clock",
        help="seeking only: the clock to seek, as the lobby shows it: M+S (5+3: 5 minutes and "
        "3 s added a move), Ns/move (20s/move: 20 s for each move) or untimed. Default: the "
        f"game's first quick-game preset ({', '.join(firsts)}, others {FISCHER[0][0]}), so a "
        "human's first quick-game button meets the bot",
    )
    parser.add_argument(
        "--games",
        type=flags.games,
        default=0,
        help=f"games to play, up to {flags.GAMES_MAX} (default 0: no limit)",
    )
    parser.add_argument("--name", help="player name (default 'Bot L<level>')")
    parser.add_argument("--uci", help="chess only: path of a UCI engine to play with")
    parser.add_argument(
        "--seed",
        type=flags.seed,
        help=f"seed of the random choices of levels 1-2 (0 to {flags.SEED_MAX})",
    )
    parser.add_argument("--port", type=flags.port, help="port when the address names none (8765)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log every game")


def _print_now(line: str) -> None:
    """A line on stdout at once (a pipe would keep it until the bot ends)."""
    print(f"boardhall bot: {line} (Ctrl+C stops)", flush=True)


def run_from_args(args: argparse.Namespace) -> int:
    """Run the bot from parsed arguments; returns the process exit status."""
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(name)s %(message)s",
    )
    try:
        url = to_url(args.address, args.port)
        get(args.game)
        options = BotOptions(
            url=url,
            game=args.game,
            level=args.level,
            variant=args.variant,
            room=args.room,
            games=args.games,
            name=args.name,
            uci=args.uci,
            seed=args.seed,
            clock=args.clock,
            announce=_print_now,
        )
        client = BotClient(options)
    except (BadAddress, ValueError) as exc:
        print(f"boardhall bot: {exc}", file=sys.stderr)
        return 2
    try:
        summary = asyncio.run(client.run())
    except BotError as exc:
        print(f"boardhall bot: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("boardhall bot: interrupted", file=sys.stderr)
        return 130
    print(
        f"games {len(summary.results)}: won {summary.wins}, lost {summary.losses}, "
        f"drawn {summary.draws}"
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m client.bot``."""
    parser = argparse.ArgumentParser(prog="python -m client.bot", description=__doc__)
    add_arguments(parser)
    return run_from_args(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
