"""Which sound a room's events play: decided by :func:`cue` (and :func:`low_time`) from what the
room looked like before and after a server message, so the rules are plain data in, a name out.

- ``moved``: every move, ours (once the server confirms it) and the opponent's, for players and
  spectators: ``check`` when it gives check in chess or threatens a captain in a custom variant
  (xiangqi's general, a JBQ captain: what the board marks), ``capture`` when it took a piece in
  chess, draughts or a custom variant, ``move`` otherwise (number chess and five-in-a-row:
  always).
- ``over``: ``end``, for everyone in the room.
- ``room`` (a snapshot): ``start`` when it shows a game of ours that has just begun (no move
  yet); nothing else, so a reconnect or opening a finished room is quiet (snapshots are not
  moves).
- ``offer`` / ``answer`` / ``chat``: ``notify`` for a player, for what the other player did or
  said (not our own, not the chat history a snapshot brings back, not a muted player's chat
  line or offer). Spectators hear moves and
  the end only.
- our own clock under :data:`LOW_TIME_MS` in a timed game: ``low_time``, once per turn.

:class:`RoomSounds` is the room scene's side of it: it takes the moments around each message
and the clocks each frame, and plays what the rules say.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from client.annotations import check_marks
from client.room_model import SEATS, RoomModel

if TYPE_CHECKING:
    from client.boards.base import BoardView

LOW_TIME_MS = 10_000
"""Under this much time left on our own clock, the low-time warning sounds (once per turn)."""
CAPTURE_GAMES = frozenset({"chess", "draughts", "custom"})
"""Games whose captures have their own sound (number chess and five-in-a-row: the move's)."""
CHECK_GAMES = frozenset({"chess", "custom"})
"""Games whose checks have their own sound (custom: a threatened captain)."""


@dataclass(frozen=True)
class Moment:
    """What a room looked like at one moment, as far as its sounds care."""

    game: str = ""
    game_id: str = ""
    status: str = ""
    """``waiting``, ``playing`` or ``over`` (empty: nothing known yet)."""
    plies: int = 0
    you: str | None = None
    """Our seat (``None``: watching)."""
    hotseat: bool = False
    """Both seats are played from this window."""
    pieces: int | None = None
    """Pieces on the board (``None``: not counted)."""
    check: bool = False
    """The side to move is in check (chess), or has a captain threatened (custom)."""

    @property
    def seated(self) -> bool:
        """True when we play here (a seat, or both in hot-seat play)."""
        return self.you is not None or self.hotseat


def cue(message: dict[str, Any], before: Moment, after: Moment,
        replaying_chat: bool = False, muted: bool = False) -> str | None:
    """The sound ``message`` plays, given the room ``before`` and ``after`` it was applied
    (``None``: none). ``replaying_chat``: the chat lines that follow a snapshot (the room's
    history, not new lines) are arriving; ``muted``: it is a chat line or an offer of a player
    the user muted (silent)."""
    kind = message.get("type")
    if kind == "moved":
        if after.plies != before.plies + 1 or after.game_id != before.game_id:
            return None  # a copy of a move we had, or one after a gap (a snapshot follows)
        if after.game in CHECK_GAMES and after.check:
            return "check"
        if (after.game in CAPTURE_GAMES and before.pieces is not None
                and after.pieces is not None and after.pieces < before.pieces):
            return "capture"
        return "move"
    if kind == "over":
        return "end" if after.status == "over" and before.status != "over" else None
    if kind == "room":
        begun = before.status != "playing" or before.game_id != after.game_id
        if after.seated and after.status == "playing" and after.plies == 0 and begun:
            return "start"
        return None
    if after.you is None or after.hotseat:
        return None  # a spectator hears moves and the end; in hot-seat play both sides are ours
    if muted and kind in ("offer", "chat"):
        return None
    if kind in ("offer", "answer"):
        by = message.get("by")
        return "notify" if by in SEATS and by != after.you else None
    if kind == "chat" and not replaying_chat:
        return "notify" if message.get("role") != after.you else None
    return None


def low_time(moment: Moment, running: Any, left_ms: int | None) -> bool:
    """Whether the low-time warning applies: the game is on, the clock running is ours (either
    in hot-seat play; never a spectator's) and ``left_ms`` (what it shows; ``None``: untimed) is
    under :data:`LOW_TIME_MS`. The caller sounds it once per turn."""
    if moment.status != "playing" or left_ms is None or left_ms >= LOW_TIME_MS:
        return False
    if moment.hotseat:
        return running in SEATS
    return moment.you is not None and running == moment.you


def time_left(model: RoomModel, now: float) -> int | None:
    """What is left on the running clock now: its main time or the current move's limit,
    whichever is less (``None``: no clock runs)."""
    running = model.clocks.get("running")
    if running not in SEATS:
        return None
    left = [ms for ms in (model.remaining_ms(running, now), model.move_ms(now)) if ms is not None]
    return min(left) if left else None


def moment(model: RoomModel, view: BoardView | None = None, board: bool = False) -> Moment:
    """``model`` as :func:`cue` sees it; with ``board``, its pieces counted (through ``view``,
    the board's renderer) and a check looked at (chess's, or a custom game's threatened
    captains, which need ``view`` to find them)."""
    pieces, check = None, False
    state, engine = model.state, model.engine
    if board and state is not None:
        if view is not None:
            with contextlib.suppress(Exception):  # a renderer that cannot read it: no count
                pieces = len(view.pieces_of(state))
        if model.game in CHECK_GAMES and engine is not None:
            with contextlib.suppress(Exception):  # a position the engine cannot judge: no check
                check = bool(check_marks(model.game, model.variant, engine, state, view))
    return Moment(model.game, model.game_id, model.status, len(model.moves), model.you,
                  model.hotseat, pieces, check)


class RoomSounds:
    """One room's sounds: :meth:`before` and :meth:`after` around each message the room
    applies, :meth:`tick` each frame (the low-time warning)."""

    def __init__(self, play: Callable[[str], None]) -> None:
        self.play = play
        self.replaying_chat = False
        """A snapshot said the room's chat lines follow it: they are history, not news."""
        self.warned: tuple[str, int] | None = None
        """The game and ply the low-time warning sounded for."""

    def before(self, model: RoomModel, message: dict[str, Any],
               view: BoardView | None) -> Moment:
        """The room before ``message`` is applied."""
        ours, kind = message.get("room") == model.room, message.get("type")
        if ours and kind == "room":
            self.replaying_chat = message.get("re") is not None or model.chat_follows
        elif ours and kind != "chat":
            self.replaying_chat = False
        return moment(model, view, ours and kind == "moved")

    def after(self, model: RoomModel, message: dict[str, Any], before: Moment,
              view: BoardView | None, muted: bool = False) -> None:
        """``message`` has been applied: play what it means (``muted``: a muted player's
        chat line or offer, silent)."""
        if message.get("room") != model.room:
            return
        now = moment(model, view, message.get("type") == "moved")
        name = cue(message, before, now, self.replaying_chat, muted)
        if name is not None:
            self.play(name)

    def tick(self, model: RoomModel, now: float) -> None:
        """Sound the low-time warning when our clock has just run low this turn."""
        key = (model.game_id, len(model.moves))
        if key != self.warned and low_time(moment(model), model.clocks.get("running"),
                                           time_left(model, now)):
            self.warned = key
            self.play("low_time")
