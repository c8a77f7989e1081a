"""What the sans-I/O core asks the I/O layer to do: sends, storage writes, closes, bot launches."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from server.ratings import NewRating

ConnId = int
"""A connection, numbered by the I/O layer."""


@dataclass(frozen=True)
class SaveIdentity:
    """Store an identity (only the token's hash)."""

    player: str
    token_hash: str
    name: str


@dataclass(frozen=True)
class SaveGame:
    """Insert or update a game's metadata (everything but its moves)."""

    meta: dict[str, Any]


@dataclass(frozen=True)
class SaveMove:
    """Store one accepted move."""

    game_id: str
    ply: int
    """Index of the move in the room's move list (0-based)."""
    move: str
    by: str
    clock_ms: int | None
    lag_ms: int
    at: str
    clocks: dict[str, int]
    """Both sides' main time left after the move (for undo and crash recovery)."""


@dataclass(frozen=True)
class TruncateMoves:
    """Forget the moves from index ``ply`` on (an accepted undo)."""

    game_id: str
    ply: int


@dataclass(frozen=True)
class SaveChat:
    """Store one chat line of a game, and forget the game's lines numbered below ``keep_from``
    (a room keeps only its latest lines)."""

    game_id: str
    seq: int
    """The line's number in its game (0-based, in the order the lines were said)."""
    sender: str
    role: str
    """``first``, ``second`` or ``spectator``."""
    audience: str
    """Who it was sent to: ``players``, ``spectators`` or ``everyone``."""
    text: str
    keep_from: int
    player: str | None = None
    """The speaker's public id."""


@dataclass(frozen=True)
class SaveAlive:
    """Store that the server (its run ``run``) is alive at the run's wall time ``wall``
    (:mod:`server.liveness`). A commit of stamps alone asks for no log sync of its own."""

    run: str
    wall: float


@dataclass(frozen=True)
class SaveStopped:
    """Store that the run ``run`` stopped cleanly (its last write): a start that finds the
    last stamp (:class:`SaveAlive`) of another run knows that run was killed or crashed."""

    run: str


@dataclass(frozen=True)
class SaveOnline:
    """Store that the stored identity ``player`` was online at ``at`` (ISO 8601 UTC, as
    :meth:`server.hall.Hall.wall` writes it): a connection of theirs began or ended. A stamp,
    as :class:`SaveAlive`: a commit of stamps alone asks for no log sync of its own."""

    player: str
    at: str


@dataclass(frozen=True)
class SaveRatings:
    """Store the players' new ratings after the rated game ``game_id``, once: written with
    the game's end, and applied only if that game's changes are not stored yet."""

    game_id: str
    key: str
    """The rating the game counts for (:func:`server.ratings.rating_key`)."""
    changes: tuple[NewRating, ...]


StorageOp = (
    SaveIdentity
    | SaveGame
    | SaveMove
    | TruncateMoves
    | SaveChat
    | SaveAlive
    | SaveStopped
    | SaveOnline
    | SaveRatings
)


@dataclass(frozen=True)
class LaunchBot:
    """Start a bot player process for ``room``."""

    room: str
    game: str
    variant: str | None
    level: int
    token: str = ""
    """The secret token of the bot's seat: only that process may play it."""


@dataclass
class Outputs:
    """Everything one input caused, in order: writes must be durable before the sends go out,
    and each connection must get its messages in the order they were produced."""

    sends: list[tuple[tuple[ConnId, ...], BaseModel]] = field(default_factory=list)
    writes: list[StorageOp] = field(default_factory=list)
    online: tuple[SaveOnline, ...] = ()
    """When stored identities were online (a connection began or ended): written apart from
    :attr:`writes`, as nothing waits for them (a failing disk holds up no connection); a tuple,
    so the usual output allocates nothing for it."""
    closes: list[tuple[ConnId, int, str]] = field(default_factory=list)
    bots: list[LaunchBot] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    """Error codes sent (for metrics)."""
    moves: int = 0
    """Moves accepted (for metrics)."""
    key: str = ""
    """The room this output concerns, if any: it goes out only after the room's earlier outputs
    (so nobody sees a room's state before what made it is durable), and names it in logs."""
    keys: tuple[str, ...] = ()
    """More rooms this output concerns (a hello resuming seats, a dropped connection); a tuple,
    so the usual output allocates nothing for it."""
    lobby: bool = False
    """It changes what the lobby list shows (a game started or ended, a seat, a seek) or carries
    that list: such outputs go out in the order they were made, so no list shows a change
    before the output that made it (with its write) has gone out."""

    def send(self, recipients: tuple[ConnId, ...] | list[ConnId], message: BaseModel) -> None:
        """Queue ``message`` (serialised once) for every connection in ``recipients``."""
        targets = tuple(recipients)
        if targets:
            self.sends.append((targets, message))

    def extend(self, other: Outputs) -> None:
        """Append everything of ``other``."""
        self.sends.extend(other.sends)
        self.writes.extend(other.writes)
        self.online += other.online
        self.closes.extend(other.closes)
        self.bots.extend(other.bots)
        self.errors.extend(other.errors)
        self.moves += other.moves
        if other.key and other.key != self.key:
            self.keys += (other.key,)
        self.keys += other.keys
        self.lobby = self.lobby or other.lobby
