"""A room: two seats, spectators, one game, its clock and its offers (a sans-I/O actor).

Every method takes the current time ``now`` (monotonic seconds) and an :class:`Outputs` to append
to; a refused action raises :class:`ProtocolError` before changing anything.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal

from engines.base import SIDES, ClaimRefused, Engine, EngineError, Outcome, Side, other
from protocol import (
    ChatLine,
    ErrorCode,
    Moved,
    OfferAnswered,
    OfferInfo,
    OfferKind,
    OfferMade,
    Ok,
    Over,
    Presence,
    ProtocolError,
    RatingChange,
    RatingChanges,
    RoomState,
    RoomSummary,
    SeatInfo,
    Seats,
)
from protocol.messages import MessageId
from server.clock import GameClock, LagPolicy, TimeControl
from server.config import ServerConfig
from server.glicko2 import Rating
from server.liveness import Run
from server.movelog import ClockHistory, MoveNote, MoveNotes
from server.outputs import (
    ConnId,
    Outputs,
    SaveChat,
    SaveGame,
    SaveMove,
    SaveRatings,
    TruncateMoves,
)
from server.ratings import GameFacts, RatingBook, rating_key, shown, unrated_because
from server.stateline import StateLine

log = logging.getLogger("boardhall.room")

Status = Literal["waiting", "playing", "over"]
Audience = Literal["players", "spectators", "everyone"]
"""Who a chat line was sent to (DESIGN.md: the players' channel while playing; spectators' lines
to spectators only until the game ends; every line to everyone after it)."""

CHAT_HISTORY_LINES = 100
"""The most recent chat lines a room keeps, in memory and in storage, to send whoever gets the
room's snapshot in reply to a join, a watch or a resuming hello (older lines are forgotten)."""


@dataclass(frozen=True, slots=True)
class KeptLine:
    """A chat line the room keeps, with who it was sent to."""

    line: ChatLine
    audience: Audience

    def shown_to(self, seated: bool) -> bool:
        """Whether a seated player (``seated``) or a spectator was sent this line."""
        return self.audience == "everyone" or self.audience == (
            "players" if seated else "spectators"
        )


@dataclass
class Seat:
    """Who sits in a seat and whether they are here."""

    player: str
    name: str
    bot: bool = False
    connected: bool = False
    away_since: float | None = None
    arriving: bool = False
    """The seat of a bot the server is starting, whose process has not connected yet: shown
    as here (the bot is on its way), so its first connection is no news ("... is back")."""

    @property
    def shown_connected(self) -> bool:
        """Whether the others see this seat as here (``connected`` is only the real link)."""
        return self.connected or self.arriving


def _refuse(code: ErrorCode, message: str) -> ProtocolError:
    return ProtocolError(code, message)


class Room:
    """One room. Create with :meth:`__init__`, then feed it inputs from the hall."""

    def __init__(
        self,
        *,
        code: str,
        game_id: str,
        engine: Engine,
        variant: str,
        options: dict[str, Any],
        max_plies: int,
        state: Any,
        control: TimeControl,
        config: ServerConfig,
        connection_of: Callable[[str], ConnId | None],
        wall: Callable[[float], str],
        now: float,
        private: bool = False,
        variant_info: dict[str, Any] | None = None,
        run: Run | None = None,
        ratings: RatingBook | None = None,
    ) -> None:
        self.code = code
        self.game_id = game_id
        self.engine = engine
        self.game = engine.game
        self.variant = variant
        self.options = options
        self.max_plies = max_plies
        self.start = engine.position(state)
        self.states = StateLine(engine, state)
        self.moves: list[str] = []
        self.notes = MoveNotes()
        self.control = control
        self.config = config
        self.clock = GameClock(
            control,
            abort_ms=int(config.abort_after_s * 1000),
            lag=LagPolicy(
                config.lag_quota_start_ms,
                config.lag_quota_gain_ms,
                config.lag_quota_max_ms,
                config.lag_credit_max_ms,
            ),
        )
        self.history = ClockHistory(self.clock.remaining, self.clock.has_moved)
        """The clocks at the start and after each move (what an undo restores)."""
        self.run = run or Run("", 0.0)
        """The server process this room lives in, whose times its stored records use."""
        self.stopped_with: dict[str, Any] | None = None
        """What the server kept of the clocks when it stopped (:meth:`paused`), or what a
        restart after a crash charges (:func:`server.liveness.crash_charges`), until
        :meth:`resume` applies it."""
        self.kept_at_stop: dict[str, Any] | None = None
        """What a stopping server keeps of the clocks (:meth:`paused`): stored with every
        later :meth:`meta` (as ``paused``), so that a write the stop itself causes (a player
        made to leave) does not lose it."""
        self.kept_turn: dict[str, Any] | None = None
        """When the running turn began, if not with the stored move of this ply (the game's
        start, an undo, a swap, a restart: :meth:`anchor_turn`), as ``{ply, turn_ms, run,
        since}``: it had used ``turn_ms`` at the run's wall time ``since``. A crash before the
        next move must still find it, so it is stored with every :meth:`meta` of this ply (as
        ``turn``; storing the game again for another reason, an offer, does not lose it)."""
        self.seats: dict[Side, Seat | None] = {"first": None, "second": None}
        self.spectators: set[ConnId] = set()
        self.status: Status = "waiting"
        self.outcome: Outcome | None = None
        self.offers: dict[OfferKind, Side] = {}
        self.offers_gone: dict[OfferKind, str] = {}
        """Why the latest offer of each kind is no longer pending (said to whoever answers it)."""
        self.refusals: dict[Side, int] = dict.fromkeys(SIDES, 0)
        self.offer_after: dict[Side, float] = dict.fromkeys(SIDES, 0.0)
        self.private = private
        self.variant_info = variant_info
        self.connection_of = connection_of
        self.wall = wall
        self.created = wall(now)
        self.ended: str | None = None
        self.ended_at: float | None = None
        """When the game ended (the room's clock)."""
        self.done_with: set[str] = set()
        """Seated players who left the room after the end: they saw it."""
        self.expires: float | None = now + config.waiting_room_ttl_s
        self.rematch_room: str | None = None
        self.bot_seat: Side | None = None
        self.bot_level: int | None = None
        """A seat kept for the bot this room was created to play."""
        self.closed = False
        self.chat_lines: deque[KeptLine] = deque(maxlen=CHAT_HISTORY_LINES)
        """The latest chat lines, oldest first."""
        self.chat_seq = 0
        """The number of the next chat line."""
        self.ratings = ratings
        """The players' ratings (None: this room shows and changes none)."""
        self.rating_key = rating_key(self.game, variant)
        self.standard_start = self._is_standard_start(options)
        self.rating_changes: RatingChanges | None = None
        """Both players' changes, once the game ended rated."""

    def _is_standard_start(self, options: dict[str, Any]) -> bool:
        """Whether the game starts where the variant does (not from a position or record)."""
        engine_options = {k: v for k, v in options.items() if k in self.engine.default_options}
        try:
            return self.start == self.engine.position(
                self.engine.start(self.variant, None, engine_options)
            )
        except EngineError:
            return False

    # ---- reading -----------------------------------------------------------------------------

    @property
    def state(self) -> Any:
        """The current engine state."""
        return self.states[-1]

    def seat_of(self, player: str | None) -> Side | None:
        """The seat ``player`` sits in, if any."""
        for side in SIDES:
            seat = self.seats[side]
            if seat is not None and seat.player == player:
                return side
        return None

    def seat_conns(self) -> list[ConnId]:
        """Connections of the seated players who are here (not those who left the finished
        room: they stopped watching it)."""
        found = []
        for side in SIDES:
            conn = self._conn(side)
            seat = self.seats[side]
            if conn is not None and seat is not None and seat.player not in self.done_with:
                found.append(conn)
        return found

    def _here(self, seat: Seat) -> bool:
        """Whether the others see ``seat`` as here: connected (or a bot arriving), and not
        gone from the finished room."""
        return seat.shown_connected and seat.player not in self.done_with

    def everyone(self) -> list[ConnId]:
        """Every connection in the room: players first, then spectators."""
        seated = self.seat_conns()
        return seated + self.watchers(seated)

    def watchers(self, seated: list[ConnId] | None = None) -> list[ConnId]:
        """Spectator connections that are not also a seated player's (``seated``: the
        :meth:`seat_conns` already at hand)."""
        seated = self.seat_conns() if seated is None else seated
        return [c for c in self.spectators if c not in seated]

    def _conn(self, side: Side) -> ConnId | None:
        seat = self.seats[side]
        if seat is None:
            return None
        return self.connection_of(seat.player)

    def is_full(self) -> bool:
        """Both seats taken."""
        return all(self.seats[s] is not None for s in SIDES)

    def is_empty(self) -> bool:
        """Nobody seated."""
        return all(self.seats[s] is None for s in SIDES)

    def view(self, you: Side | None, now: float, re: MessageId | None = None) -> RoomState:
        """The room snapshot as ``you`` sees it."""
        outcome = self.outcome
        return RoomState(
            re=re,
            room=self.code,
            game_id=self.game_id,
            game=self.game,
            variant=self.variant,
            options=self.options,
            status=self.status,
            seats=Seats(
                first=self._seat_info("first"),
                second=self._seat_info("second"),
            ),
            spectators=len(self.spectators),
            you=you,
            start=self.start,
            position=self.engine.position(self.state),
            moves=list(self.moves),
            turn=self.state.turn,
            clock=self.control.to_clock(),
            clocks=self.clock.snapshot(now),
            result=outcome.result if outcome else None,
            reason=outcome.reason if outcome else None,  # type: ignore[arg-type]
            offers=[OfferInfo(kind=k, by=b) for k, b in self.offers.items()],
            private=self.private,
            variant_info=self.variant_info,
            highlight=list(outcome.highlight) if outcome else [],
            rated=self.ratings is not None and unrated_because(self._facts("first", True)) is None,
            ratings=self.rating_changes,
        )

    def _seat_info(self, side: Side) -> SeatInfo | None:
        seat = self.seats[side]
        if seat is None:
            return None
        rating = self._rating(seat)
        return SeatInfo(
            player=seat.player,
            name=seat.name,
            connected=self._here(seat),
            bot=seat.bot,
            rating=shown(rating) if rating else None,
            rd=round(rating.deviation) if rating else None,
        )

    def _rating(self, seat: Seat) -> Rating | None:
        """The rating ``seat``'s player has for this game (None for a bot, or unrated rooms)."""
        if self.ratings is None or seat.bot:
            return None
        return self.ratings.get(seat.player, self.rating_key)

    def _facts(self, result: str | None, both_moved: bool) -> GameFacts:
        """What decides whether this game, ended with ``result``, is rated."""
        return GameFacts(
            result=result,
            both_moved=both_moved,
            any_bot=any(seat is None or seat.bot for seat in self.seats.values()),
            timed=self.control.timed,
            standard_start=self.standard_start,
            default_options=self.options == dict(self.engine.default_options),
        )

    def _rate(self, outcome: Outcome) -> SaveRatings | None:
        """Rate the game that just ended with ``outcome``, if it is rated: keep both players'
        new ratings (:attr:`rating_changes`) and return the write that stores them."""
        if self.ratings is None:
            return None
        facts = self._facts(outcome.result, len(self.notes.sides()) == 2)
        if unrated_because(facts) is not None or outcome.result is None:
            return None
        first, second = self.seats["first"], self.seats["second"]
        assert first is not None and second is not None  # no bot seat, so both taken
        a, b = self.ratings.play(self.rating_key, first.player, second.player, outcome.result)
        self.rating_changes = RatingChanges(
            first=RatingChange(before=shown(a.before), after=shown(a.after)),
            second=RatingChange(before=shown(b.before), after=shown(b.after)),
        )
        return SaveRatings(self.game_id, self.rating_key, (a, b))

    def summary(self) -> RoomSummary:
        """The lobby line of this room."""
        seated = [seat for seat in self.seats.values() if seat is not None]
        ratings = [self._rating(seat) for seat in seated]
        return RoomSummary(
            room=self.code,
            game=self.game,
            variant=self.variant,
            status=self.status,
            seats=[seat.name for seat in seated],
            clock=self.control.to_clock(),
            spectators=len(self.spectators),
            options=self.options,
            ratings=[shown(r) if r else None for r in ratings] if self.ratings else None,
            rds=[round(r.deviation) if r else None for r in ratings] if self.ratings else None,
        )

    def meta(self) -> dict[str, Any]:
        """Everything storage keeps about this game except its moves."""
        outcome = self.outcome
        clock = self.control.to_clock()
        return {
            "id": self.game_id,
            "room": self.code,
            "game": self.game,
            "variant": self.variant,
            "start": self.start,
            "options": self.options,
            "max_plies": self.max_plies,
            "clock": clock.model_dump(mode="json") if clock else None,
            "private": self.private,
            "bot_seat": self.bot_seat,
            "bot_level": self.bot_level,
            "variant_info": self.variant_info,
            "seats": {
                side: (
                    {"player": seat.player, "name": seat.name, "bot": seat.bot}
                    if (seat := self.seats[side])
                    else None
                )
                for side in SIDES
            },
            "status": self.status,
            "result": outcome.result if outcome else None,
            "reason": outcome.reason if outcome else None,
            "scores": dict(outcome.scores) if outcome and outcome.scores else None,
            "highlight": list(outcome.highlight) if outcome else [],
            "created": self.created,
            "ended": self.ended,
            "has_moved": dict(self.clock.has_moved),
            "remaining": dict(self.clock.remaining),
            "refusals": dict(self.refusals),
            # each pending offer with the ply it was made at: a move cancels offers without
            # storing the game again, so one of an earlier ply is stale (see restore_offers)
            "offers": [
                {"kind": kind, "by": by, "ply": len(self.moves)} for kind, by in self.offers.items()
            ],
            **({"turn": kept} if (kept := self._kept_turn()) else {}),
            **({"away": away} if (away := self._absences()) else {}),
            **({"paused": self.kept_at_stop} if self.kept_at_stop is not None else {}),
            **(
                {"ratings": self.rating_changes.model_dump(mode="json")}
                if self.rating_changes is not None
                else {}
            ),
            **(self._after_end() if self.status == "over" else {}),
        }

    def _after_end(self) -> dict[str, Any]:
        """What a restart needs of a finished room (:meth:`Hall.restore`): the seated players
        who left it, its rematch, and whether it closed before its keep time was over."""
        return {
            "left": sorted(self.done_with),
            "rematch_room": self.rematch_room,
            "closed": self.closed,
        }

    def anchor_turn(self, now: float, turn_ms: int = 0) -> None:
        """The running turn began (or went on, having used ``turn_ms``) at ``now`` otherwise
        than with a move: kept for a crash (:attr:`kept_turn`), with the next :meth:`meta`."""
        self.kept_turn = {
            "ply": len(self.moves),
            "turn_ms": turn_ms,
            "run": self.run.id,
            "since": self.run.wall(now),
        }

    def _absences(self) -> dict[str, Any] | None:
        """Since when (the run's wall time) each seated player away is away, while the game
        is on: what a restart after a crash charges of the absences."""
        if self.status != "playing":
            return None
        since = {
            side: self.run.wall(seat.away_since)
            for side, seat in self.seats.items()
            if seat is not None and not seat.connected and seat.away_since is not None
        }
        return {"run": self.run.id, "since": since} if since else None

    def _kept_turn(self) -> dict[str, Any] | None:
        """:attr:`kept_turn` while it is still this turn's."""
        kept = self.kept_turn
        if kept is None or self.status != "playing" or kept.get("ply") != len(self.moves):
            return None
        return kept

    def _log_fields(self) -> dict[str, Any]:
        return {
            "room": self.code,
            "game_id": self.game_id,
            "game": self.game,
            "variant": self.variant,
            "clock": self.control.describe(),
        }

    # ---- wake-ups ----------------------------------------------------------------------------

    def wake(self) -> float | None:
        """When :meth:`tick` has something to do."""
        times = []
        if self.status == "playing":
            found = self.clock.deadline()
            if found is not None:
                times.append(found[0])
        if self.expires is not None:
            times.append(self.expires)
        return min(times) if times else None

    def tick(self, now: float, out: Outputs) -> None:
        """Flag a player whose time ran out; close the room when it has expired."""
        if self.status == "playing":
            kind = self.clock.expired(now)
            if kind is not None:
                self._flag(kind, now, out)
        if self.expires is not None and now >= self.expires and self.status != "playing":
            self.closed = True

    def _flag(
        self,
        kind: str,
        now: float,
        out: Outputs,
        re: MessageId | None = None,
        requester: ConnId | None = None,
    ) -> None:
        loser = self.clock.running
        assert loser is not None
        if kind == "abort":
            self.finish(Outcome(None, "aborted"), now, out, requester, re)
        else:
            self.finish(self.engine.timeout_outcome(self.state, loser), now, out, requester, re)

    # ---- seats and members -------------------------------------------------------------------

    def sit(self, side: Side, player: str, name: str, bot: bool, now: float) -> None:
        """Put ``player`` in ``side`` (the caller checked the seat is free)."""
        connected = self.connection_of(player) is not None
        self.seats[side] = Seat(player, name, bot, connected, None if connected else now)
        self._waiting_expiry(now)

    def _waiting_expiry(self, now: float) -> None:
        """A room nobody has joined closes only while every seated player is away."""
        if self.status != "waiting":
            return
        here = any(seat is not None and seat.connected for seat in self.seats.values())
        self.expires = None if here else now + self.config.waiting_room_ttl_s

    def begin(self, now: float, out: Outputs) -> None:
        """Both seats are taken: the game starts."""
        self.status = "playing"
        self.expires = None
        self.clock.start_turn(self.state.turn, now)
        self.anchor_turn(now)
        out.writes.append(SaveGame(self.meta()))
        log.info("game started", extra={"fields": self._log_fields()})

    def snapshots(
        self, now: float, out: Outputs, requester: ConnId | None = None, re: MessageId | None = None
    ) -> None:
        """Send everyone their own snapshot; ``requester``'s carries ``re`` and is followed by
        the chat lines it may see (:meth:`send_history`)."""
        seated = self.seat_conns()
        for side in SIDES:
            conn = self._conn(side)
            if conn is not None:
                out.send((conn,), self.view(side, now, re if conn == requester else None))
        watchers = [c for c in self.spectators if c not in seated]
        if requester in watchers:
            watchers.remove(requester)
            out.send((requester,), self.view(None, now, re))
        out.send(watchers, self.view(None, now))
        if requester is not None:
            self.send_history(requester, requester in seated, out)

    def reply_snapshot(
        self, conn: ConnId, you: Side | None, now: float, out: Outputs, re: MessageId | None
    ) -> None:
        """Send ``conn`` the snapshot as ``you`` sees it (carrying ``re``), then the chat lines
        it may see: what a join, a watch or a resuming hello gets."""
        out.send((conn,), self.view(you, now, re))
        self.send_history(conn, you is not None, out)

    def send_history(self, conn: ConnId, seated: bool, out: Outputs) -> None:
        """Send ``conn`` the kept chat lines a seated player (``seated``) or a spectator was
        sent, in the order they were said."""
        for kept in self.chat_lines:
            if kept.shown_to(seated):
                out.send((conn,), kept.line)

    def join_player(
        self,
        conn: ConnId,
        player: str,
        name: str,
        bot: bool,
        now: float,
        out: Outputs,
        re: MessageId | None,
    ) -> None:
        """Sit in a free seat (or get the snapshot again when already seated)."""
        side = self.seat_of(player)
        if side is not None:
            self.spectators.discard(conn)
            self._come_back(conn, player, side, now, out)
            self.reply_snapshot(conn, side, now, out, re)
            return
        free = [s for s in SIDES if self.seats[s] is None]
        if not free:
            raise _refuse(ErrorCode.ROOM_FULL, f"room {self.code} is full; join as a spectator")
        if self.status == "over":
            raise _refuse(ErrorCode.GAME_OVER, f"the game in room {self.code} is over")
        self.spectators.discard(conn)
        self.sit(free[0], player, name, bot, now)
        if self.is_full() and self.status == "waiting":
            self.begin(now, out)
        else:
            out.writes.append(SaveGame(self.meta()))
        self.snapshots(now, out, conn, re)

    def _come_back(self, conn: ConnId, player: str, side: Side, now: float, out: Outputs) -> None:
        """The seated ``player`` joins again: back from a drop a hello did not resume (a
        finished room), or back in the finished room they left; the others are told."""
        left = player in self.done_with
        self.done_with.discard(player)
        seat = self.seats[side]
        if seat is not None and not seat.connected:
            self.returned(player, now, out)
        elif left:
            self._presence(out, seat=side, exclude=conn)
        self._finished_expiry(now)

    def join_spectator(self, conn: ConnId, now: float, out: Outputs, re: MessageId | None) -> None:
        """Watch the room (a seated player just gets the snapshot again: not a spectator)."""
        seat = self._viewer_seat(conn)
        if seat is not None:
            occupant = self.seats[seat]
            if occupant is not None:
                self._come_back(conn, occupant.player, seat, now, out)
            self.reply_snapshot(conn, seat, now, out, re)
            return
        if conn not in self.spectators and len(self.spectators) >= self.config.spectators_per_room:
            raise _refuse(ErrorCode.ROOM_FULL, f"room {self.code} has no room for more spectators")
        self.spectators.add(conn)
        self._finished_expiry(now)
        self.reply_snapshot(conn, None, now, out, re)
        self._presence(out, exclude=conn)

    def has_spectator_room(self, conn: ConnId) -> bool:
        """Whether :meth:`join_spectator` would take ``conn`` in (or it is already here)."""
        return conn in self.spectators or len(self.spectators) < self.config.spectators_per_room

    def spectators_moved(self, conns: list[ConnId], now: float, out: Outputs) -> None:
        """``conns`` stopped watching this room without leaving it themselves (they follow its
        rematch): the others here see the count change, and the closing time is worked out."""
        moved = [c for c in conns if c in self.spectators]
        if not moved:
            return
        self.spectators.difference_update(moved)
        self._presence(out)
        self._finished_expiry(now)

    def _viewer_seat(self, conn: ConnId) -> Side | None:
        for side in SIDES:
            if self._conn(side) == conn:
                return side
        return None

    def _presence(
        self, out: Outputs, seat: Side | None = None, exclude: ConnId | None = None
    ) -> None:
        connected = None
        if seat is not None:
            s = self.seats[seat]
            connected = bool(s and self._here(s))
        message = Presence(
            room=self.code, seat=seat, connected=connected, spectators=len(self.spectators)
        )
        out.send([c for c in self.everyone() if c != exclude], message)

    def leave(
        self, conn: ConnId, player: str | None, now: float, out: Outputs, re: MessageId | None
    ) -> None:
        """Stop watching, free a seat before the game starts, or leave the finished room (the
        others are told the seat is gone; the leaver hears no more of the room)."""
        side = self.seat_of(player)
        if side is not None:
            if self.status == "playing":
                raise _refuse(
                    ErrorCode.NOT_ALLOWED, "the game is on: resign, or abort before the first moves"
                )
            out.send((conn,), Ok(re=re))
            if self.status == "waiting":
                self.seats[side] = None
                if self.is_empty():
                    self.closed = True
                else:
                    out.writes.append(SaveGame(self.meta()))
                    self.snapshots(now, out)
            self.spectators.discard(conn)
            if self.status == "over" and player is not None and player not in self.done_with:
                self.done_with.add(player)
                self._presence(out, seat=side)
                self._rematch_left(side, now, out)
            self._finished_expiry(now)
            if self.status == "over" and not self.closed:  # (closing stores it too)
                out.writes.append(SaveGame(self.meta()))  # who left, and the offer gone
            return
        if conn not in self.spectators:
            raise _refuse(ErrorCode.NOT_ALLOWED, f"you are not in room {self.code}")
        self.spectators.discard(conn)
        out.send((conn,), Ok(re=re))
        self._presence(out)
        self._finished_expiry(now)

    def _rematch_left(self, side: Side, now: float, out: Outputs) -> None:
        """The player of ``side`` left the finished room: a rematch offered to them is declined
        (the offerer is told), one they made is withdrawn (the opponent gets the snapshot
        without it)."""
        by = self.offers.pop("rematch", None)
        if by is None:
            return
        name = seat.name if (seat := self.seats[side]) else "the opponent"
        self.offers_gone["rematch"] = f"{name} has left the room"
        opponent = self._conn(other(side))
        if opponent is None:
            return
        if by == other(side):
            out.send(
                (opponent,), OfferAnswered(room=self.code, kind="rematch", accept=False, by=side)
            )
        else:
            out.send((opponent,), self.view(other(side), now))

    def drop(self, conn: ConnId, player: str | None, now: float, out: Outputs) -> None:
        """A connection went away (its identity may still be seated)."""
        if conn in self.spectators:
            self.spectators.discard(conn)
            self._presence(out)
        side = self.seat_of(player)
        if side is not None:
            seat = self.seats[side]
            assert seat is not None
            was_here = seat.connected
            seat.connected = False
            seat.arriving = False
            seat.away_since = now
            if was_here and self.status == "playing":  # the absence survives a crash
                out.writes.append(SaveGame(self.meta()))
            if player not in self.done_with:  # else already told it left
                self._presence(out, seat=side)
            self._waiting_expiry(now)
        self._finished_expiry(now)

    def _finished_expiry(self, now: float) -> None:
        """When a finished room closes, worked out again whenever someone comes or goes: at the
        end of ``finished_room_ttl_s`` while anyone is in it (a spectator, or a seated player
        who is connected and has not left it); once nobody is, at once if every seated player
        left it, else ``finished_room_return_s`` after the end for a player whose connection
        dropped (at once when that has passed)."""
        if self.status != "over" or self.ended_at is None:
            return
        self.expires = self.ended_at + self.config.finished_room_ttl_s
        players = {s.player for s in self.seats.values() if s is not None and not s.bot}
        present = players - self.done_with
        if self.watchers() or any(self.connection_of(p) is not None for p in present):
            return
        waited_for = self.ended_at + self.config.finished_room_return_s
        self.expires = min(self.expires, max(now, waited_for)) if present else now
        if self.expires <= now:
            self.closed = True

    def wants_bot(self) -> bool:
        """Whether this room still needs its server-started bot: a game is on (or about to
        be), or it is over and a human player has not left it (they may ask for a rematch)."""
        if self.status != "over":
            return True
        humans = {s.player for s in self.seats.values() if s is not None and not s.bot}
        return bool(humans - self.done_with)

    def returned(self, player: str, now: float, out: Outputs) -> Side | None:
        """``player`` is back: mark the seat connected and tell the others."""
        side = self.seat_of(player)
        if side is None:
            return None
        seat = self.seats[side]
        assert seat is not None
        news = not seat.arriving  # a bot arriving as expected was shown here already
        was_away = not seat.connected
        seat.connected = True
        seat.arriving = False
        seat.away_since = None
        if was_away and self.status == "playing":  # its stored absence is over
            out.writes.append(SaveGame(self.meta()))
        self._waiting_expiry(now)
        self._finished_expiry(now)
        if news:
            conn = self.connection_of(player)
            self._presence(out, seat=side, exclude=conn)
        return side

    def expect_bot(self) -> bool:
        """The server is starting this room's bot: show its seat as here until the process
        connects (or :meth:`bot_missing`). Returns whether the seat waits for it."""
        seat = self.seats[self.bot_seat] if self.bot_seat else None
        if seat is None or seat.connected:
            return False
        seat.arriving = True
        return True

    def bot_missing(self, out: Outputs) -> None:
        """The bot process the seat waited for could not start or ended before connecting: the
        seat is shown away (its absence counts since it was last here, or since it was taken)."""
        side = self.bot_seat
        seat = self.seats[side] if side else None
        if seat is None or not seat.arriving:
            return
        seat.arriving = False
        self._presence(out, seat=side)

    # ---- the game ----------------------------------------------------------------------------

    def _player_side(self, player: str | None, action: str) -> Side:
        side = self.seat_of(player)
        if side is None:
            raise _refuse(ErrorCode.NOT_A_PLAYER, f"only a player of room {self.code} may {action}")
        return side

    def _refuse_if_left(self, side: Side, action: str) -> None:
        """A player who left the finished room acts in it only after joining it again."""
        seat = self.seats[side]
        if seat is not None and seat.player in self.done_with:
            raise _refuse(
                ErrorCode.NOT_ALLOWED, f"you left room {self.code}: join it again to {action}"
            )

    def _playing(self, action: str) -> None:
        if self.status == "over":
            raise _refuse(ErrorCode.GAME_OVER, f"the game in room {self.code} is over")
        if self.status != "playing":
            raise _refuse(
                ErrorCode.NOT_ALLOWED, f"cannot {action}: the game has not started (a seat is free)"
            )

    def move(
        self,
        conn: ConnId,
        player: str | None,
        ply: int,
        text: str,
        lag_ms: int,
        now: float,
        out: Outputs,
        re: MessageId | None,
    ) -> None:
        """A player's move: check it, charge the clock, record and broadcast it."""
        side = self._player_side(player, "move")
        if self.status == "over":
            raise _refuse(ErrorCode.GAME_OVER, f"the game in room {self.code} is over")
        if ply != len(self.moves):
            raise _refuse(
                ErrorCode.STALE,
                f"stale move: ply is {len(self.moves)} in room {self.code}, not {ply}",
            )
        if self.state.turn != side:
            raise _refuse(ErrorCode.NOT_YOUR_TURN, f"it is {self.state.turn}'s turn, not yours")
        late = self.clock.expired(now) if self.status == "playing" else None
        if late is not None:
            self._flag(late, now, out)
            raise _refuse(ErrorCode.GAME_OVER, "your time ran out before the move arrived")
        try:
            new_state = self.engine.play(self.state, text)
        except EngineError as exc:
            raise _refuse(ErrorCode.ILLEGAL_MOVE, str(exc)) from exc
        self._playing("move")
        timing = self.clock.on_move(side, now, lag_ms)
        if timing.late is not None:
            self._flag(timing.late, now, out)
            raise _refuse(ErrorCode.GAME_OVER, "your time ran out before the move arrived")
        canonical = new_state.last_move or text
        self.states.append(new_state, canonical)
        self.moves.append(canonical)
        note = MoveNote(side, timing.clock_ms, timing.lag_ms, self.wall(now))
        self.notes.append(note)
        self.history.append(self.clock.remaining, self.clock.has_moved)
        if self.offers:
            self._offers_gone(f"the move at ply {ply} cancelled it")
        self.clock.start_turn(new_state.turn, now)
        outcome = self.engine.outcome(new_state)
        if outcome is None and self.max_plies and len(self.moves) >= self.max_plies:
            outcome = Outcome(None, "move_limit")
        if outcome is not None:  # no clock runs after this move: ``moved`` shows them stopped
            self.clock.stop(now)
        out.moves += 1
        out.writes.append(
            SaveMove(
                self.game_id,
                ply,
                canonical,
                side,
                timing.clock_ms,
                timing.lag_ms,
                note.at,
                {str(k): v for k, v in self.clock.remaining.items()},
            )
        )
        moved = Moved(
            room=self.code,
            ply=ply,
            move=canonical,
            by=side,
            position=self.engine.position(new_state),
            turn=new_state.turn,
            clocks=self.clock.snapshot(now),
            lag_ms=timing.lag_ms,
        )
        # the opponent, whose turn it now is, first; the spectators after the mover's reply
        seated = self.seat_conns()
        out.send([c for c in seated if c != conn], moved)
        out.send((conn,), moved.model_copy(update={"re": re}))
        out.send([c for c in self.watchers(seated) if c != conn], moved)
        if outcome is not None:
            self.finish(outcome, now, out)

    def finish(
        self,
        outcome: Outcome,
        now: float,
        out: Outputs,
        requester: ConnId | None = None,
        re: MessageId | None = None,
    ) -> None:
        """End the game with ``outcome`` and tell everyone (with scores where the game has them)."""
        scores = getattr(self.engine, "scores", None)
        if outcome.scores is None and callable(scores):
            found = scores(self.state)
            if found:
                outcome = replace(outcome, scores=dict(found))
        self.clock.stop(now)
        self.status = "over"
        self.outcome = outcome
        self._offers_gone("the game ended")
        self.ended = self.wall(now)
        self.ended_at = now
        self._finished_expiry(now)
        self.states.settle()
        rated = self._rate(outcome)
        out.writes.append(SaveGame(self.meta()))
        if rated is not None:  # in the same transaction as the end: both or neither
            out.writes.append(rated)
        log.info(
            "game over",
            extra={
                "fields": {
                    **self._log_fields(),
                    "result": outcome.result,
                    "reason": outcome.reason,
                    "plies": len(self.moves),
                }
            },
        )
        over = Over(
            room=self.code,
            game_id=self.game_id,
            result=outcome.result,
            reason=outcome.reason,  # type: ignore[arg-type]
            scores=dict(outcome.scores) if outcome.scores else None,
            position=self.engine.position(self.state),
            highlight=list(outcome.highlight),
            ratings=self.rating_changes,
        )
        everyone = self.everyone()
        if requester is not None and re is not None:
            out.send((requester,), over.model_copy(update={"re": re}))
            everyone = [c for c in everyone if c != requester]
        out.send(everyone, over)
        self.snapshots(now, out)

    def resign(
        self, conn: ConnId, player: str | None, now: float, out: Outputs, re: MessageId | None
    ) -> None:
        """The player loses now."""
        side = self._player_side(player, "resign")
        self._playing("resign")
        self.finish(Outcome(other(side), "resign"), now, out, conn, re)

    def abort(
        self, conn: ConnId, player: str | None, now: float, out: Outputs, re: MessageId | None
    ) -> None:
        """End without a result while a side has not moved yet."""
        self._player_side(player, "abort")
        if self.status == "over":
            raise _refuse(ErrorCode.GAME_OVER, f"the game in room {self.code} is over")
        moved = self.notes.sides()
        if len(moved) == 2:
            raise _refuse(ErrorCode.NOT_ALLOWED, "both sides have moved: resign instead of abort")
        if self.status == "waiting":
            self.status = "playing"
        self.finish(Outcome(None, "aborted"), now, out, conn, re)

    def claim(
        self,
        kind: str,
        conn: ConnId,
        player: str | None,
        now: float,
        out: Outputs,
        re: MessageId | None,
    ) -> None:
        """``stop`` or ``report``: the engine judges."""
        side = self._player_side(player, kind)
        self._playing(kind)
        try:
            outcome = self.engine.claim(self.state, kind, side)
        except ClaimRefused as exc:
            raise _refuse(ErrorCode.NOT_ALLOWED, str(exc)) from exc
        except EngineError as exc:
            raise _refuse(ErrorCode.NOT_ALLOWED, str(exc)) from exc
        self.finish(outcome, now, out, conn, re)

    def timeout_claim(
        self, conn: ConnId, player: str | None, now: float, out: Outputs, re: MessageId | None
    ) -> None:
        """The opponent's time or absence grace has run out: checked on the server's clock."""
        side = self._player_side(player, "claim a timeout")
        self._playing("claim a timeout")
        opponent = other(side)
        if self.clock.running == opponent:
            kind = self.clock.expired(now, strict=True)
            if kind is not None:
                self._flag(kind, now, out, re, conn)
                return
        seat = self.seats[opponent]
        if not self.control.timed and seat is not None and not seat.connected:
            away = now - (seat.away_since or now)
            grace = self.config.absence_grace_s
            if away >= grace:
                self.finish(Outcome(side, "abandoned"), now, out, conn, re)
                return
            raise _refuse(
                ErrorCode.NOT_ALLOWED,
                f"the opponent has been away {int(away)} s; you may claim after {int(grace)} s",
            )
        if self.control.timed:
            raise _refuse(ErrorCode.NOT_ALLOWED, "the opponent still has time on the clock")
        raise _refuse(ErrorCode.NOT_ALLOWED, "the opponent is here and the game is untimed")

    # ---- offers ------------------------------------------------------------------------------

    def offer(
        self,
        kind: OfferKind,
        conn: ConnId,
        player: str | None,
        now: float,
        out: Outputs,
        re: MessageId | None,
    ) -> str | None:
        """Make an offer; returns ``"rematch"`` when a crossing rematch offer was accepted."""
        side = self._player_side(player, "make an offer")
        if kind != "undo" and self.offers.get(kind) == other(side):
            # the same offer back accepts the opponent's: an answer, so no wait after a refusal
            return self.answer(kind, True, conn, player, now, out, re)
        self._check_offer(kind, side, now)
        if self.offers.get(kind) == other(side):  # each side takes back its own move
            raise _refuse(ErrorCode.NOT_ALLOWED, "answer the opponent's undo offer first")
        if self.offers.get(kind) == side:
            raise _refuse(ErrorCode.NOT_ALLOWED, f"you already offered {kind}")
        self.offers[kind] = side
        self.offers_gone.pop(kind, None)
        out.writes.append(SaveGame(self.meta()))  # a pending offer survives a restart
        out.send((conn,), Ok(re=re))
        opponent = self._conn(other(side))
        if opponent is not None:
            out.send((opponent,), OfferMade(room=self.code, kind=kind, by=side))
        return None

    def offer_wait(self, side: Side) -> float:
        """Seconds ``side`` waits after its latest refused offer: 10 s x n^2, at most 10 min."""
        n = self.refusals[side]
        return min(600.0, 10.0 * n * n) if n else 0.0

    def _check_offer(self, kind: OfferKind, side: Side, now: float) -> None:
        if kind != "rematch" and self.status == "over":
            raise _refuse(ErrorCode.GAME_OVER, f"the game in room {self.code} is over")
        if now < self.offer_after[side]:
            wait = int(self.offer_after[side] - now + 0.999)
            raise _refuse(
                ErrorCode.NOT_ALLOWED, f"your last offer was refused: wait {wait} s before offering"
            )
        if kind == "rematch":
            if self.status != "over":
                raise _refuse(ErrorCode.NOT_ALLOWED, "a rematch is offered after the game")
            self._refuse_if_left(side, "offer a rematch")
            if self.rematch_room is not None:
                raise _refuse(ErrorCode.NOT_ALLOWED, f"the rematch is room {self.rematch_room}")
            opponent = self.seats[other(side)]
            if opponent is None or opponent.player in self.done_with:
                raise _refuse(ErrorCode.NOT_ALLOWED, "the opponent has left the room")
            return
        self._playing(f"offer {kind}")
        if kind == "swap" and self.moves:
            raise _refuse(
                ErrorCode.NOT_ALLOWED, "colours can be swapped only before the first move"
            )
        allows_undo = getattr(self.engine, "allows_undo", None)
        if kind == "undo" and callable(allows_undo) and not allows_undo(self.variant):
            raise _refuse(ErrorCode.NOT_ALLOWED, "this variant does not allow taking moves back")
        if kind == "undo" and self.notes.last_by(side) is None:
            raise _refuse(ErrorCode.NOT_ALLOWED, "you have no move in this room to take back")

    def answer(
        self,
        kind: OfferKind,
        accept: bool,
        conn: ConnId,
        player: str | None,
        now: float,
        out: Outputs,
        re: MessageId | None,
    ) -> str | None:
        """Answer the opponent's offer; returns ``"rematch"`` when a rematch was accepted."""
        side = self._player_side(player, "answer an offer")
        if kind != "rematch" and self.status == "over":
            raise _refuse(ErrorCode.GAME_OVER, f"the game in room {self.code} is over")
        by = self.offers.get(kind)
        if by is None or by == side:
            raise _refuse(ErrorCode.NOT_ALLOWED, self._no_offer(kind, by == side))
        del self.offers[kind]
        self.offers_gone[kind] = "it was accepted" if accept else "it was declined"
        out.send((conn,), Ok(re=re))
        offerer = self._conn(by)
        if offerer is not None:
            out.send((offerer,), OfferAnswered(room=self.code, kind=kind, accept=accept, by=side))
        if not accept:
            self.refusals[by] += 1
            self.offer_after[by] = now + self.offer_wait(by)
            out.writes.append(SaveGame(self.meta()))  # the count (so the wait) survives a restart
            return None
        if kind == "draw":
            self.finish(Outcome(None, "agreement"), now, out)
        elif kind == "undo":
            self._undo(by, now, out)
        elif kind == "swap":
            self.seats["first"], self.seats["second"] = self.seats["second"], self.seats["first"]
            # an offer still pending stays with the player who made it
            self.offers = {k: other(b) for k, b in self.offers.items()}
            # a refused player's wait is the player's, not the seat's
            first, second = self.refusals["first"], self.refusals["second"]
            self.refusals["first"], self.refusals["second"] = second, first
            first_at, second_at = self.offer_after["first"], self.offer_after["second"]
            self.offer_after["first"], self.offer_after["second"] = second_at, first_at
            if self.bot_seat is not None:
                self.bot_seat = other(self.bot_seat)
            self.clock.start_turn(self.state.turn, now)
            self.anchor_turn(now)
            out.writes.append(SaveGame(self.meta()))
            self.snapshots(now, out)
        elif kind == "rematch":
            return "rematch"
        return None

    def _no_offer(self, kind: OfferKind, own: bool) -> str:
        """Why there is no ``kind`` offer to answer (``own``: the answerer made it)."""
        if own:
            return f"you made the {kind} offer: it is the opponent's to answer"
        if kind == "rematch" and self.rematch_room is not None:
            return f"the rematch is room {self.rematch_room}"
        gone = self.offers_gone.get(kind)
        return f"there is no {kind} offer to answer" + (f": {gone}" if gone else "")

    def _offers_gone(self, why: str) -> None:
        """Every pending offer ends without an answer, for ``why``."""
        for kind in self.offers:
            self.offers_gone[kind] = why
        self.offers.clear()

    def _undo(self, offerer: Side, now: float, out: Outputs) -> None:
        keep = self.notes.last_by(offerer)
        if keep is None:
            raise ValueError(f"{offerer} has no move to take back")
        self.states.truncate(keep + 1)
        del self.moves[keep:]
        self.notes.truncate(keep)
        self.history.truncate(keep + 1)
        remaining, has_moved = self.history[-1]
        self.clock.remaining = dict(remaining)
        self.clock.has_moved = dict(has_moved)
        self.clock.start_turn(self.state.turn, now)
        self.anchor_turn(now)
        out.writes.append(TruncateMoves(self.game_id, keep))
        out.writes.append(SaveGame(self.meta()))
        self.snapshots(now, out)

    # ---- chat --------------------------------------------------------------------------------

    def chat(
        self,
        conn: ConnId,
        player: str | None,
        name: str,
        text: str,
        out: Outputs,
        re: MessageId | None,
    ) -> None:
        """Players' lines go to the players; spectators' lines to spectators until the end;
        after it every line to everyone. The room keeps the line, and stores it, with who it
        went to (see :meth:`send_history`)."""
        side = self.seat_of(player)
        if side is None and conn not in self.spectators:
            raise _refuse(ErrorCode.NOT_A_PLAYER, f"join room {self.code} to chat in it")
        if side is not None:
            self._refuse_if_left(side, "chat in it")
        line = ChatLine.model_validate(
            {
                "room": self.code,
                "from": name,
                "role": side or "spectator",
                "text": text,
                "player": player,
            }
        )
        out.send((conn,), Ok(re=re))
        players = self.seat_conns()
        audience: Audience
        if self.status == "over":
            audience, targets = "everyone", self.everyone()
        elif side is not None:
            audience, targets = "players", players
        else:
            audience, targets = "spectators", self.watchers(players)
        seq = self.chat_seq
        self.chat_seq += 1
        self.chat_lines.append(KeptLine(line, audience))
        out.writes.append(
            SaveChat(
                self.game_id,
                seq,
                name,
                line.role,
                audience,
                line.text,
                keep_from=seq + 1 - CHAT_HISTORY_LINES,
                player=player,
            )
        )
        out.send(targets, line)

    # ---- recovery ----------------------------------------------------------------------------

    def paused(self, stopped: float) -> dict[str, Any] | None:
        """What a stopping server keeps of this game's clocks, as they were at ``stopped`` (when
        the stop began): the running turn's time so far, and how long each player away then
        had been away, so that the restart gives neither back (:meth:`resume`). ``None`` when
        the game is not on."""
        if self.status != "playing":
            return None
        away = {}
        for side in SIDES:
            seat = self.seats[side]
            since = seat.away_since if seat is not None and not seat.connected else None
            if since is not None and since < stopped:  # away before the stop, not made so by it
                away[side] = int((stopped - since) * 1000)
        clock = self.clock
        turn_ms = max(0, int((stopped - clock.turn_start) * 1000)) if clock.running else 0
        waits = {  # what is left of each refused player's wait before offering again
            side: int((self.offer_after[side] - stopped) * 1000)
            for side in SIDES
            if self.offer_after[side] > stopped
        }
        return {"ply": len(self.moves), "turn_ms": turn_ms, "away_ms": away, "offer_wait_ms": waits}

    def resume(self, now: float) -> None:
        """The server is back at ``now``, after being down for a while that is charged to
        nobody: the running turn goes on with the time it had used when the server stopped or
        crashed (:attr:`stopped_with`, when it is this turn's), a player away then is still
        away as long, and a player who was here then is away only from ``now``. The turn is
        anchored at ``now`` (:meth:`anchor_turn`) and the absences start again from the
        restart: the caller stores the game (:meth:`meta`) before this run's first stamp."""
        kept, self.stopped_with = self.stopped_with or {}, None
        if kept.get("ply") != len(self.moves):
            kept = {}
        turn_ms = max(0, int(kept.get("turn_ms") or 0))
        self.clock.start_turn(self.state.turn, now - turn_ms / 1000)
        away = kept.get("away_ms") or {}
        for side in SIDES:
            seat = self.seats[side]
            if seat is not None and not seat.connected:
                seat.away_since = now - max(0, int(away.get(side) or 0)) / 1000
        waits = kept.get("offer_wait_ms")
        if isinstance(waits, dict):  # a clean stop kept what was left of each wait
            for side in SIDES:
                self.offer_after[side] = now + max(0, int(waits.get(side) or 0)) / 1000
        self.anchor_turn(now, turn_ms)

    def replay(self, moves: list[dict[str, Any]]) -> None:
        """Rebuild the game from stored moves (crash recovery); raises EngineError if corrupt."""
        for row in moves:
            new_state = self.engine.play(self.state, row["move"])
            canonical = new_state.last_move or row["move"]
            self.states.append(new_state, canonical)
            self.moves.append(canonical)
            by: Side = row["by"]
            self.notes.append(MoveNote(by, row.get("clock_ms"), row.get("lag_ms", 0), row["at"]))
            self.clock.has_moved[by] = True
            clocks = row.get("clocks") or {}
            for side in SIDES:
                if side in clocks:
                    self.clock.remaining[side] = int(clocks[side])
            self.history.append(self.clock.remaining, self.clock.has_moved)

    def restore_offers(self, stored: object) -> None:
        """Take back the offers pending when the game was last stored (crash recovery, after
        :meth:`replay`): ``[{kind, by, ply}]``. One made at an earlier ply than the stored moves
        reach was cancelled by a move; one that does not read, or no longer fits the game, is
        dropped. A finished room takes back only a rematch offer, while its players are both
        still in the room and it has no rematch yet."""
        if self.status not in ("playing", "over") or not isinstance(stored, list):
            return
        kinds = ("draw", "swap", "undo") if self.status == "playing" else ("rematch",)
        for entry in stored:
            if not isinstance(entry, dict) or entry.get("ply") != len(self.moves):
                continue
            kind: OfferKind
            by: Side
            match entry.get("kind"), entry.get("by"):
                case ("draw" | "swap" | "undo" | "rematch") as kind, (
                    "first" | "second"
                ) as by if kind in kinds:
                    pass
                case _:
                    continue
            if kind == "rematch" and (self.rematch_room is not None or not self._both_stay()):
                continue
            if kind in self.offers or (kind == "swap" and self.moves):
                continue
            if kind == "undo" and self.notes.last_by(by) is None:
                continue
            self.offers[kind] = by

    def _both_stay(self) -> bool:
        """Both seats are taken by players who have not left the room."""
        return all(
            seat is not None and seat.player not in self.done_with for seat in self.seats.values()
        )

    def restore_end(self, meta: dict[str, Any], ended_at: float, now: float) -> None:
        """Take back the end of a finished game (restart, after :meth:`replay` and the seats):
        its outcome as stored in ``meta``, the game having ended at ``ended_at`` (this run's
        clock: the downtime counts). Nobody is here yet: the room stays open for its players'
        return ``finished_room_return_s`` from ``now``, within its keep time; once someone is
        back it closes as any finished room does (:meth:`_finished_expiry`)."""
        scores = meta.get("scores")
        result = meta.get("result")
        self.status = "over"
        self.outcome = Outcome(
            result if result in SIDES else None,
            str(meta.get("reason") or "aborted"),
            dict(scores) if isinstance(scores, dict) else None,
            tuple(meta.get("highlight") or ()),
        )
        self.ended = meta.get("ended")
        self.ended_at = ended_at
        self.states.settle()
        self.done_with = {str(player) for player in meta.get("left") or ()}
        self.rematch_room = meta.get("rematch_room")
        if meta.get("ratings"):
            try:
                self.rating_changes = RatingChanges.model_validate(meta["ratings"])
            except ValueError:  # a ValidationError is a ValueError
                log.warning("the stored ratings of game %s do not read", self.game_id)
        self.expires = min(
            ended_at + self.config.finished_room_ttl_s, now + self.config.finished_room_return_s
        )
        if self.expires <= now:
            self.closed = True

    def restore_chat(self, rows: Iterable[dict[str, Any]]) -> None:
        """Take back the stored chat lines (crash recovery), given in the order they were said:
        ``{seq, sender, role, audience, text, player}`` (``player`` None or absent: a line stored
        before lines kept their speaker's id); a row that does not read is skipped."""
        for row in rows:
            try:
                line = ChatLine.model_validate(
                    {
                        "room": self.code,
                        "from": row["sender"],
                        "role": row["role"],
                        "text": row["text"],
                        "player": row.get("player"),
                    }
                )
                seq, audience = int(row["seq"]), row["audience"]
            except (KeyError, TypeError, ValueError):  # a ValidationError is a ValueError
                log.warning("a stored chat line of game %s does not read", self.game_id)
                continue
            if audience not in ("players", "spectators", "everyone"):
                log.warning("a stored chat line of game %s has no audience", self.game_id)
                continue
            self.chat_lines.append(KeptLine(line, audience))
            self.chat_seq = max(self.chat_seq, seq + 1)
