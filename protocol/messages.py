"""Every message of protocol v1 (DESIGN.md), one pydantic model each, one union per direction.

Inbound (client to server) models forbid unknown fields and are validated strictly (``"3"`` is
not an integer); every string and list is bounded by :mod:`protocol.limits`. Outbound (server to
client) models describe what the server sends; clients validate them with
:data:`server_message_adapter`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter
from pydantic_core import PydanticCustomError

from protocol import limits
from protocol.errors import ErrorCode

Side = Literal["first", "second"]
"""A seat word."""
Result = Literal["first", "second", "draw"]
"""A game result word."""
MessageId = str | int
"""A client message ``id``; replies carry it as ``re``."""
Reason = Literal[
    "checkmate",
    "stalemate",
    "insufficient",
    "repetition",
    "fifty_moves",
    "kings_only",
    "endgame_16",
    "endgame_5",
    "no_moves",
    "five",
    "board_full",
    "captain",
    "stop",
    "report",
    "resign",
    "timeout",
    "timeout_vs_insufficient",
    "agreement",
    "move_limit",
    "abandoned",
    "aborted",
]
"""Why a game ended."""
RESULT_REASONS: tuple[str, ...] = Reason.__args__  # type: ignore[attr-defined]
"""Every result reason, in DESIGN.md order."""
OfferKind = Literal["draw", "undo", "rematch", "swap"]
"""What an ``offer`` asks for."""

ShortText = Annotated[str, Field(max_length=limits.ID_CHARS)]
OptionValue = bool | int | float | Annotated[str, Field(max_length=limits.OPTION_TEXT_CHARS)]
Options = Annotated[dict[ShortText, OptionValue], Field(max_length=limits.OPTIONS_MAX)]
ClockSeconds = Annotated[int, Field(ge=0, le=limits.CLOCK_SECONDS_MAX)]
RoomCode = Annotated[str, Field(min_length=1, max_length=limits.ID_CHARS)]
Id = Annotated[str, Field(max_length=limits.ID_CHARS)] | int


def _at_most_bytes(limit: int) -> AfterValidator:
    """A check that a string's UTF-8 form is at most ``limit`` bytes (limits counted in bytes,
    not characters); over it is ``string_too_long`` like any field over its length."""

    def check(value: str) -> str:
        if len(value) * 4 > limit and len(value.encode("utf-8", "surrogatepass")) > limit:
            raise PydanticCustomError(
                "string_too_long",
                "String should have at most {max_length} bytes",
                {"max_length": limit, "unit": "bytes"},
            )
        return value

    return AfterValidator(check)


PositionText = Annotated[
    str, Field(max_length=limits.POSITION_BYTES), _at_most_bytes(limits.POSITION_BYTES)
]
"""A position string: at most :data:`limits.POSITION_BYTES` bytes."""
RecordText = Annotated[
    str, Field(max_length=limits.RECORD_BYTES), _at_most_bytes(limits.RECORD_BYTES)
]
"""A game record: at most :data:`limits.RECORD_BYTES` bytes."""


class Inbound(BaseModel):
    """Base of client messages: unknown fields are refused, types are strict."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    id: Id | None = None
    """Optional message id; the one reply to this message carries it as ``re``."""


class Outbound(BaseModel):
    """Base of server messages."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    re: MessageId | None = None
    """The ``id`` of the client message this replies to (omitted on the wire when absent)."""


# ---- shared shapes ---------------------------------------------------------------------------


def _is_none(value: object) -> bool:
    return value is None


class Clock(BaseModel):
    """A time control in seconds; absent or 0 parts are off; all three may apply at once.

    A part that is off is left out when written (DESIGN.md names absent and 0 as off, not
    ``null``): ``{"per_move": 20}``, ``{"initial": 300, "increment": 3}``.
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    initial: ClockSeconds | None = Field(default=None, exclude_if=_is_none)
    """Main time per side (Fischer)."""
    increment: ClockSeconds | None = Field(default=None, exclude_if=_is_none)
    """Seconds added after each own move (Fischer)."""
    per_move: ClockSeconds | None = Field(default=None, exclude_if=_is_none)
    """Limit for each single move (the original games' style)."""


class Clocks(BaseModel):
    """Remaining times in milliseconds when the message was sent."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    first: int | None
    """Main time left of ``first`` (``None`` without a main time)."""
    second: int | None
    """Main time left of ``second``."""
    move: int | None = None
    """What is left of the current per-move limit (``None`` without one)."""
    running: Side | None = None
    """The seat whose clock runs, or ``None``."""


PROVISIONAL_RD = 110
"""A rating whose deviation is above this is provisional (shown "1500?", as lichess does); the
server widens a provisional player's matchmaking window (:mod:`server.matchmaking`)."""


class SeatInfo(BaseModel):
    """Who sits in a seat."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    player: str
    """The identity's public id."""
    name: str
    connected: bool
    bot: bool = False
    rating: int | None = None
    """The player's rating for the room's game and variant; ``None`` for a bot."""
    rd: int | None = None
    """That rating's deviation: above 110 the rating is provisional (shown "1500?")."""


class Seats(BaseModel):
    """Both seats; ``None`` while empty."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    first: SeatInfo | None = None
    second: SeatInfo | None = None


class RatingChange(BaseModel):
    """A player's rating before and after a rated game."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    before: int
    after: int


class RatingChanges(BaseModel):
    """Both players' rating changes of a rated game."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    first: RatingChange
    second: RatingChange


class OfferInfo(BaseModel):
    """A pending offer."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: OfferKind
    by: Side


class VariantEntry(BaseModel):
    """A variant as listed in GameInfo."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    name: str
    description: str = ""


class GameInfo(BaseModel):
    """A game this server offers."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    game: str
    name: str
    variants: list[VariantEntry]
    options: dict[str, Any]
    """Every option with its default."""


class RoomSummary(BaseModel):
    """A line of the lobby: a public room, or an open seek (``seek: true``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    room: str
    """Room code, or the seek's id (``join`` with it takes the seek)."""
    game: str
    variant: str
    status: Literal["waiting", "playing", "over"]
    seats: list[str]
    """Names of the seated (or seeking) players."""
    clock: Clock | None = None
    spectators: int = 0
    seek: bool = False
    options: dict[str, Any] = Field(default_factory=dict)
    ratings: list[int | None] | None = None
    """Parallel to ``seats``: each player's rating for this game and variant (None for a bot);
    absent from servers before ratings."""
    rds: list[int | None] | None = None
    """Parallel to ``seats``: each player's rating deviation (above 110: provisional)."""


class Limits(BaseModel):
    """The limits of :mod:`protocol.limits` as sent in ``welcome``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    frame_bytes: int = limits.FRAME_BYTES
    name_chars: int = limits.NAME_CHARS
    chat_chars: int = limits.CHAT_CHARS
    move_chars: int = limits.MOVE_CHARS
    position_bytes: int = limits.POSITION_BYTES
    record_bytes: int = limits.RECORD_BYTES
    messages_per_second: int = limits.MESSAGES_PER_SECOND
    chat_lines: int = limits.CHAT_LINES
    """Chat lines one player may say within ``chat_window_s`` (absent from older servers)."""
    chat_window_s: int = limits.CHAT_WINDOW_S
    """The chat rate's window in seconds."""
    chat_repeat_s: int = limits.CHAT_REPEAT_S
    """A line the same player said within this many seconds is refused (``rate_limited``)."""
    chat_address_lines: int = limits.CHAT_ADDRESS_LINES
    """Chat lines one client address (all its players together) may say within
    ``chat_window_s``; 0: no such limit. A line said from the address within ``chat_repeat_s``
    is refused too (absent from older servers)."""


# ---- client to server ------------------------------------------------------------------------


class Hello(Inbound):
    """Start a session; a valid ``token`` resumes that identity. Reply: ``welcome``."""

    type: Literal["hello"]
    name: Annotated[str, Field(max_length=limits.NAME_CHARS)]
    protocol: int
    token: Annotated[str, Field(max_length=limits.TOKEN_CHARS)] | None = None
    client: Annotated[str, Field(max_length=limits.CLIENT_CHARS)] | None = None


class Create(Inbound):
    """Open a room. Reply: ``room``."""

    type: Literal["create"]
    game: ShortText
    variant: ShortText | None = None
    clock: Clock | None = None
    options: Options | None = None
    position: PositionText | None = None
    record: RecordText | None = None
    color: Literal["first", "second", "random"] = "random"
    private: bool = False
    opponent: ShortText | None = None
    """``bot:LEVEL`` to play the computer."""


class Join(Inbound):
    """Sit or watch in ``room``; without ``room``, matchmaking. Reply: ``room`` or ``queued``."""

    type: Literal["join"]
    room: RoomCode | None = None
    game: ShortText | None = None
    variant: ShortText | None = None
    clock: Clock | None = None
    options: Options | None = None
    role: Literal["player", "spectator"] = "player"


class Leave(Inbound):
    """Stop watching / free a seat before the start / cancel matchmaking. Reply: ``ok``."""

    type: Literal["leave"]
    room: RoomCode | None = None


class ListRooms(Inbound):
    """Public rooms and open seeks; ``watch`` keeps them coming. Reply: ``rooms``."""

    type: Literal["list"]
    game: ShortText | None = None
    watch: bool | None = None


class Move(Inbound):
    """Make a move; ``ply`` = moves made so far in the room. Reply: ``moved``."""

    type: Literal["move"]
    room: RoomCode
    ply: Annotated[int, Field(ge=0)]
    move: Annotated[str, Field(max_length=limits.MOVE_CHARS)]


class Abort(Inbound):
    """End without result while a side has not moved yet. Reply: ``over``."""

    type: Literal["abort"]
    room: RoomCode


class Stop(Inbound):
    """Number chess: call stop. Reply: ``over``."""

    type: Literal["stop"]
    room: RoomCode


class Resign(Inbound):
    """Lose now. Reply: ``over``."""

    type: Literal["resign"]
    room: RoomCode


class Report(Inbound):
    """Claim that the opponent broke a rule. Reply: ``over``."""

    type: Literal["report"]
    room: RoomCode
    reason: Annotated[str, Field(max_length=limits.CHAT_CHARS)] | None = None


class Timeout(Inbound):
    """Claim the opponent's time (or absence grace) ran out. Reply: ``over``."""

    type: Literal["timeout"]
    room: RoomCode


class Offer(Inbound):
    """Ask the opponent for a draw, an undo, a rematch or a colour swap. Reply: ``ok``."""

    type: Literal["offer"]
    room: RoomCode
    kind: OfferKind


class Answer(Inbound):
    """Accept or refuse the opponent's offer. Reply: ``ok``."""

    type: Literal["answer"]
    room: RoomCode
    kind: OfferKind
    accept: bool


class Chat(Inbound):
    """Say something in a room. Reply: ``ok``."""

    type: Literal["chat"]
    room: RoomCode
    text: Annotated[str, Field(min_length=1, max_length=limits.CHAT_CHARS)]


class Ping(Inbound):
    """Keep-alive. Reply: ``pong``."""

    type: Literal["ping"]
    t: int | float | None = None


ClientMessage = Annotated[
    Hello
    | Create
    | Join
    | Leave
    | ListRooms
    | Move
    | Abort
    | Stop
    | Resign
    | Report
    | Timeout
    | Offer
    | Answer
    | Chat
    | Ping,
    Field(discriminator="type"),
]
"""Any message a client sends."""

client_message_adapter: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
"""Validates a decoded JSON object into a :data:`ClientMessage`."""


# ---- server to client ------------------------------------------------------------------------


class Welcome(Outbound):
    """Session started (reply to ``hello``)."""

    type: Literal["welcome"] = "welcome"
    player: str
    """The identity's public id."""
    name: str
    token: str
    """Secret; ``hello`` with it resumes this identity."""
    protocol: int
    server: str
    """Server software and version."""
    games: list[GameInfo]
    resumed: list[str]
    """Rooms where this identity sits in an unfinished game."""
    limits: Limits = Field(default_factory=Limits)


class Queued(Outbound):
    """Waiting for an opponent (reply to a matchmaking ``join``)."""

    type: Literal["queued"] = "queued"
    game: str
    variant: str
    clock: Clock | None = None
    options: dict[str, Any] = Field(default_factory=dict)


class RoomState(Outbound):
    """Full snapshot of a room, as seen by its recipient."""

    type: Literal["room"] = "room"
    room: str
    game_id: str
    game: str
    variant: str
    options: dict[str, Any]
    status: Literal["waiting", "playing", "over"]
    seats: Seats
    spectators: int
    you: Side | None
    """The recipient's seat, ``None`` for a spectator."""
    start: str
    position: str
    moves: list[str]
    turn: Side
    clock: Clock | None = None
    clocks: Clocks | None = None
    result: Result | None = None
    reason: Reason | None = None
    offers: list[OfferInfo] = Field(default_factory=list)
    private: bool = False
    variant_info: dict[str, Any] | None = None
    highlight: list[str] = Field(default_factory=list)
    """Points a client may emphasise once the game is over (the winning five)."""
    rated: bool = False
    """The game counts for the players' ratings if it ends with a result after both sides
    have moved (README.md, "Ratings")."""
    ratings: RatingChanges | None = None
    """After a rated game: both players' rating changes."""


class Moved(Outbound):
    """A move was accepted."""

    type: Literal["moved"] = "moved"
    room: str
    ply: int
    """The ``ply`` the mover sent (moves made before this one)."""
    move: str
    """Canonical notation."""
    by: Side
    position: str
    turn: Side
    clocks: Clocks | None = None
    lag_ms: int = 0


class Over(Outbound):
    """The game ended."""

    type: Literal["over"] = "over"
    room: str
    game_id: str
    result: Result | None
    """``None`` only when ``reason`` is ``aborted``."""
    reason: Reason
    scores: dict[Side, int] | None = None
    position: str
    highlight: list[str] = Field(default_factory=list)
    ratings: RatingChanges | None = None
    """Both players' rating changes, when the game was rated."""


class OfferMade(Outbound):
    """The opponent made an offer."""

    type: Literal["offer"] = "offer"
    room: str
    kind: OfferKind
    by: Side


class OfferAnswered(Outbound):
    """The opponent answered your offer."""

    type: Literal["answer"] = "answer"
    room: str
    kind: OfferKind
    accept: bool
    by: Side


class Presence(Outbound):
    """A player left or came back, or the spectator count changed."""

    type: Literal["presence"] = "presence"
    room: str
    seat: Side | None = None
    connected: bool | None = None
    spectators: int


class Rooms(Outbound):
    """The lobby: reply to ``list`` and pushed while watching."""

    type: Literal["rooms"] = "rooms"
    rooms: list[RoomSummary]


class ChatLine(Outbound):
    """A chat line."""

    type: Literal["chat"] = "chat"
    room: str
    from_: str = Field(alias="from")
    """The speaker's name."""
    role: Literal["first", "second", "spectator"]
    text: str
    player: str | None = None
    """The speaker's public id (as ``welcome.player`` and ``seats.*.player``): what a client
    mutes by, since names change and repeat. Absent from older servers and from lines an older
    server stored."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Pong(Outbound):
    """Reply to ``ping``."""

    type: Literal["pong"] = "pong"
    t: int | float | None = None
    server_time: int
    """Unix milliseconds."""


class Ok(Outbound):
    """Success reply to leave, offer, answer, chat."""

    type: Literal["ok"] = "ok"


class Error(Outbound):
    """What was wrong."""

    type: Literal["error"] = "error"
    code: ErrorCode
    message: str
    room: str | None = None


ServerMessage = Annotated[
    Welcome
    | Queued
    | RoomState
    | Moved
    | Over
    | OfferMade
    | OfferAnswered
    | Presence
    | Rooms
    | ChatLine
    | Pong
    | Ok
    | Error,
    Field(discriminator="type"),
]
"""Any message the server sends."""

server_message_adapter: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)
"""Validates a decoded JSON object into a :data:`ServerMessage`."""

CLIENT_MODELS: tuple[type[Inbound], ...] = get_args(get_args(ClientMessage)[0])
"""The model of every client message, in DESIGN.md's order."""

CLIENT_FIELDS: dict[str, tuple[str, ...]] = {
    get_args(model.model_fields["type"].annotation)[0]: tuple(
        name for name in model.model_fields if name not in ("type", "id")
    )
    for model in CLIENT_MODELS
}
"""Every client message type with its fields (besides ``type`` and ``id``), from the models."""

CLIENT_TYPES: tuple[str, ...] = tuple(CLIENT_FIELDS)
"""Every client message type."""
