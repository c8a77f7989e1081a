"""The headless bot player: plays over protocol v1 like any client, never imports pygame.

``python -m client.bot HOST[:PORT] --game G [--variant V] --level L [--room CODE] [--games N]``
(also ``boardhall bot ...``). Without ``--room`` the bot seeks an opponent by matchmaking and plays
game after game; with ``--room`` it sits in that room and plays there, accepting rematches. It
declines undo offers, accepts a draw only when its own search sees it clearly losing, and in
number chess calls ``stop`` and ``report`` when they win.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import itertools
import json
import logging
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from client.address import BadAddress, to_url
from engines import EngineError, get
from engines.search import BotPlayer, Decision, think_seconds
from engines.search.levels import level_info

log = logging.getLogger("boardhall.bot")

TOKEN_VARIABLE = "BOARDHALL_BOT_TOKEN"
"""Set by the server for a bot it starts: the token of the seat it plays (server/bot_launcher)."""
BOT_CLIENT = "bot boardhall"
"""``hello.client``: the server marks identities whose client starts with ``bot`` as bots."""
IDLE_EXIT_SECONDS = 600.0
"""In a room, after a game ends, leave when no rematch comes within this time."""
MAX_REFUSALS = 3
"""Refused moves in one position before the bot resigns instead of looping."""


class Decider(Protocol):
    """What chooses the bot's actions (our search, or a UCI engine for chess)."""

    def decide(self, state: Any, seconds: float | None = None) -> Decision:
        """The action in ``state`` within ``seconds``."""
        ...

    def accepts_draw(self) -> bool:
        """Whether to accept a draw offer now."""
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
    seed: int | None = None
    idle_exit: float = IDLE_EXIT_SECONDS


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
        self.decider = decider or make_decider(options)
        self.summary = BotSummary()
        self.view: GameView | None = None
        self.ws: ClientConnection | None = None
        self._ids = itertools.count(1)
        self._thinking: asyncio.Task[None] | None = None
        self._refusals = 0
        self._finished_ids: set[str] = set()
        self._idle_since: float | None = None
        self._done = asyncio.Event()
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=1)
        """One thinking thread: searches never overlap on the same tables."""

    # ---- wire --------------------------------------------------------------------------------

    async def send(self, **message: Any) -> None:
        """Send one message with a fresh id."""
        assert self.ws is not None
        message["id"] = next(self._ids)
        await self.ws.send(json.dumps(message))

    async def run(self) -> BotSummary:
        """Play until the wanted number of games is done or the server goes away."""
        level = self.options.level
        name = self.options.name or f"Bot L{level}"
        async with connect(self.options.url, open_timeout=10, max_size=None) as ws:
            self.ws = ws
            hello: dict[str, Any] = {"name": name[:32], "protocol": 1, "client": BOT_CLIENT}
            token = os.environ.get(TOKEN_VARIABLE) if self.options.room else None
            if token:  # a bot the server started: its seat's identity
                hello["token"] = token
            await self.send(type="hello", **hello)
            reader = asyncio.ensure_future(self._read())
            idle = asyncio.ensure_future(self._watch_idle())
            done = asyncio.ensure_future(self._done.wait())
            try:
                await asyncio.wait([reader, done], return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in (reader, idle, done, self._thinking):
                    if task is not None:
                        task.cancel()
                self._executor.shutdown(wait=False, cancel_futures=True)
        return self.summary

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
            await self._find_game()
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

    async def _find_game(self) -> None:
        if self.options.room:
            await self.send(type="join", room=self.options.room)
        else:
            fields: dict[str, Any] = {"type": "join", "game": self.options.game}
            if self.options.variant:
                fields["variant"] = self.options.variant
            await self.send(**fields)

    async def _on_room(self, message: dict[str, Any]) -> None:
        room = str(message.get("room"))
        status = str(message.get("status"))
        you = message.get("you")
        game_id = message.get("game_id")
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
        self._maybe_think()

    def _learn_variant(self, message: dict[str, Any]) -> None:
        """Register a custom variant this bot has not seen, from the room's ``variant_info``."""
        info = message.get("variant_info")
        variant = message.get("variant")
        if not isinstance(info, dict) or not variant:
            return
        if variant in {v.id for v in self.engine.variants()}:
            return
        load = getattr(self.engine, "load_data", None)
        if callable(load):
            load(info)

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
        if self._thinking is not None:
            self._thinking.cancel()
            self._thinking = None
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
        elif result is not None and result == view.you:
            self.summary.wins += 1
        elif result is not None:
            self.summary.losses += 1
        log.info("game over in %s: %s (%s)", view.room, result, message.get("reason"))
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
        if kind == "draw":
            accept = self.decider.accepts_draw()
        elif kind == "rematch":
            accept = not (
                self.options.games and len(self.summary.results) >= self.options.games
            )
        else:
            accept = False  # undo and swap are declined
        await self.send(type="answer", room=room, kind=kind, accept=accept)

    def _on_presence(self, message: dict[str, Any]) -> None:
        view = self.view
        if (
            view is not None
            and self.options.room
            and view.status == "over"
            and message.get("connected") is False
            and message.get("seat") not in (None, view.you)
        ):
            self._done.set()  # the opponent left after the game: nobody to play

    async def _on_error(self, message: dict[str, Any]) -> None:
        code = message.get("code")
        log.warning("server error %s: %s", code, message.get("message"))
        view = self.view
        if code in ("unknown_room", "room_full") and self.options.room:
            self._done.set()
        elif view is not None and (
            code in ("stale", "illegal_move", "not_your_turn")
            or (code == "not_allowed" and self._my_turn())
        ):
            self._refusals += 1
            if self._refusals >= MAX_REFUSALS:
                await self.send(type="resign", room=view.room)
            else:
                await self.send(type="join", room=view.room)

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

    def _maybe_think(self) -> None:
        if self._thinking is not None and not self._thinking.done():
            self._thinking.cancel()
        self._thinking = None
        if self._my_turn():
            assert self.view is not None
            self._thinking = asyncio.ensure_future(self._think(self.view, self.view.ply))

    def budget(self, view: GameView) -> float:
        """Seconds to think now: the level's time, capped by what the clock leaves."""
        clock, clocks = view.clock, view.clocks
        main_ms = clocks.get(view.you or "") if clock.get("initial") else None
        move_ms = clocks.get("move")
        if move_ms is None and clock.get("per_move"):
            move_ms = int(clock["per_move"]) * 1000
        spent_ms = int((time.monotonic() - view.received) * 1000)
        return think_seconds(
            self.options.level,
            main_ms=None if main_ms is None else max(0, int(main_ms) - spent_ms),
            increment_s=float(clock.get("increment") or 0),
            move_ms=None if move_ms is None else max(0, int(move_ms) - spent_ms),
        )

    async def _think(self, view: GameView, ply: int) -> None:
        seconds = self.budget(view)
        loop = asyncio.get_running_loop()
        decision = await loop.run_in_executor(
            self._executor, self.decider.decide, view.state, seconds
        )
        if self.view is not view or view.ply != ply or view.status != "playing":
            return
        if decision.action == "move":
            self.summary.moves += 1
            await self.send(type="move", room=view.room, ply=ply, move=decision.move)
        else:
            await self.send(type=decision.action, room=view.room)


async def play(options: BotOptions) -> BotSummary:
    """Run one bot until it is done; returns what it played."""
    return await BotClient(options).run()


# ---- command line -------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The bot's command-line arguments (shared with ``boardhall bot``)."""
    parser.add_argument("address", help="HOST, HOST:PORT or a ws:// / wss:// URL")
    parser.add_argument("--game", required=True, help="game id (chess, draughts, shuqi, ...)")
    parser.add_argument("--variant", help="variant id (default: the game's default)")
    parser.add_argument("--level", type=int, default=4, help="bot level 1-8 (default 4)")
    parser.add_argument("--room", help="play in this room instead of seeking an opponent")
    parser.add_argument("--games", type=int, default=0, help="games to play (default: no limit)")
    parser.add_argument("--name", help="player name (default 'Bot L<level>')")
    parser.add_argument("--uci", help="chess only: path of a UCI engine to play with")
    parser.add_argument("--seed", type=int, help="seed of the random choices of levels 1-2")
    parser.add_argument("--port", type=int, help="port when the address names none (8765)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log every game")


def run_from_args(args: argparse.Namespace) -> int:
    """Run the bot from parsed arguments; returns the process exit status."""
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(name)s %(message)s",
    )
    try:
        url = to_url(args.address, args.port)
        level_info(args.level)
        get(args.game)
        if args.games < 0:
            raise ValueError(f"--games must be 0 or more, not {args.games}")
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
        )
        client = BotClient(options)
    except (BadAddress, ValueError) as exc:
        print(f"boardhall bot: {exc}", file=sys.stderr)
        return 2
    try:
        summary = asyncio.run(client.run())
    except (OSError, ConnectionClosed) as exc:
        print(f"boardhall bot: cannot reach {url}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
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
