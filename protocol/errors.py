"""Error codes of protocol v1 and the exception that carries one.

The codes are checked in the order they are listed (DESIGN.md): when a message is wrong in several
ways, the reply names the first problem in this order.
"""

from __future__ import annotations

import enum


class ErrorCode(enum.StrEnum):
    """Every ``error.code`` of protocol v1, in the order the server checks them."""

    BAD_MESSAGE = "bad_message"
    """Not JSON, not an object, unknown ``type``, unknown or mistyped field."""
    TOO_LARGE = "too_large"
    """A field over its size limit (the frame itself is under the frame limit)."""
    RATE_LIMITED = "rate_limited"
    """More messages per second than ``limits.messages_per_second``; or a chat line over one
    player's chat rate (``limits.chat_lines`` within ``limits.chat_window_s``), or the same
    line again within ``limits.chat_repeat_s``; the same per client address, all its players
    together (``limits.chat_address_lines``)."""
    HELLO_FIRST = "hello_first"
    """Any message other than ``hello`` before the session started."""
    UNSUPPORTED_PROTOCOL = "unsupported_protocol"
    """``hello.protocol`` is not a known version."""
    BAD_TOKEN = "bad_token"
    """``hello.token`` is not a token this server issued."""
    UNKNOWN_GAME = "unknown_game"
    """No such game on this server."""
    UNKNOWN_VARIANT = "unknown_variant"
    """The game has no such variant."""
    BAD_OPTION = "bad_option"
    """An unknown option or a bad option value (also a bad clock or opponent)."""
    BAD_POSITION = "bad_position"
    """A position string or record the engine refuses."""
    UNKNOWN_ROOM = "unknown_room"
    """No such room (or a private one you may not see)."""
    ROOM_FULL = "room_full"
    """Both seats are taken."""
    NOT_A_PLAYER = "not_a_player"
    """Only a seated player may do this."""
    GAME_OVER = "game_over"
    """The game in this room has ended."""
    STALE = "stale"
    """``move.ply`` is not the number of moves made so far."""
    NOT_YOUR_TURN = "not_your_turn"
    """The other side is to move."""
    ILLEGAL_MOVE = "illegal_move"
    """The engine refused the move text; the message is its reason."""
    NOT_ALLOWED = "not_allowed"
    """A refused stop, report, timeout claim, offer, answer, leave or abort, with the reason."""
    INTERNAL = "internal"
    """A server fault; details are in the server log, never in the message."""


ERROR_ORDER: tuple[ErrorCode, ...] = tuple(ErrorCode)
"""The codes in checking order."""


class ProtocolError(Exception):
    """A client message that is refused; converts to an ``error`` message.

    Args:
        code: the error code.
        message: what was wrong, for a human.
        re: the ``id`` of the refused message, when it had one.
        room: the room concerned, when there is one.
    """

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        re: str | int | None = None,
        room: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = ErrorCode(code)
        self.message = message
        self.re = re
        self.room = room

    def __repr__(self) -> str:
        return f"ProtocolError({self.code.value!r}, {self.message!r})"
