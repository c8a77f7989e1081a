"""Server settings: every limit and delay the server applies (each one is a command-line flag)."""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass

from protocol import limits
from server.limitkey import DEFAULT_IPV6_PREFIX
from server.proxies import Network


@dataclass(frozen=True)
class ServerConfig:
    """Settings of one server; the defaults are generous so load tests from one address work."""

    abort_after_s: float = 30.0
    """Each side's first move must come within this time in a timed room, or the game is aborted."""
    absence_grace_s: float = 60.0
    """Untimed rooms: the opponent may claim the win (``timeout``) after this long away."""
    finished_room_ttl_s: float = 600.0
    """A finished room stays open this long for chat and rematch (less once its players and
    spectators have left it or gone offline)."""
    finished_room_return_s: float = 60.0
    """Once everyone has gone, a finished room still stays open this long after the end, unless
    every seated player left it: a player whose connection dropped around the end comes back to
    the result, not to ``unknown_room``."""
    waiting_room_ttl_s: float = 1800.0
    """A room nobody has joined is closed after this long while its creator is away."""
    lag_quota_start_ms: int = 500
    """Lag compensation quota a side starts with (like lichess)."""
    lag_quota_gain_ms: int = 100
    """Quota gained with every move."""
    lag_quota_max_ms: int = 1000
    """Most quota a side can hold."""
    lag_credit_max_ms: int = 500
    """Most lag compensation credited to a single move."""
    rooms_per_identity: int = 50
    """Unfinished rooms one identity may sit in."""
    spectators_per_room: int = 1000
    """Spectators one room accepts."""
    connections_per_address: int = 1000
    """Open connections one IP address may have (an IPv6 one counted with its whole network of
    ``ipv6_prefix`` bits, as every per-address limit: see :mod:`server.limitkey`)."""
    ipv6_prefix: int = DEFAULT_IPV6_PREFIX
    """The IPv6 network every per-address limit counts as one address (128: each address on
    its own)."""
    trusted_proxies: tuple[Network, ...] = ()
    """Reverse proxies whose forwarding headers name the client's address (see
    :mod:`server.proxies`); none: every peer is the client, and no header is read."""
    messages_per_second: int = limits.MESSAGES_PER_SECOND
    """Message rate per connection; more is ``rate_limited``."""
    chat_lines: int = limits.CHAT_LINES
    """Chat lines one player may say within ``chat_window_s``; more is ``rate_limited``."""
    chat_window_s: float = limits.CHAT_WINDOW_S
    """The chat rate's window."""
    chat_repeat_s: float = limits.CHAT_REPEAT_S
    """A line the same player said this recently is ``rate_limited``."""
    chat_address_lines: int | None = None
    """Chat lines one client address (every identity and connection of it together) may say
    within ``chat_window_s``, and a line said from it within ``chat_repeat_s`` is refused, by any
    of its players; more is ``rate_limited``. 0: no address limit (only the player's); ``None``:
    :data:`limits.CHAT_ADDRESS_PLAYERS` times ``chat_lines`` (the number in force is
    :attr:`chat_address_lines_in_force`)."""
    flood_errors: int = limits.FLOOD_ERRORS
    """More errors than this within the flood window closes the connection (1008)."""
    flood_window_s: float = limits.FLOOD_WINDOW_S
    """The flood window."""
    bots_available: bool = True
    """Whether ``opponent: bot:LEVEL`` can be served."""
    max_bot_level: int = 8
    """Highest bot level accepted."""
    bot_games: int = 32
    """Unfinished games against the computer at once (each bot is a process)."""
    server_name: str = "boardhall/0.1"
    """Sent in ``welcome.server``."""

    @property
    def chat_address_lines_in_force(self) -> int:
        """The chat lines one client address may say within ``chat_window_s`` (0: no limit):
        ``chat_address_lines`` when set, else as many as :data:`limits.CHAT_ADDRESS_PLAYERS`
        players may (raising ``chat_lines`` raises it too)."""
        if self.chat_address_lines is not None:
            return self.chat_address_lines
        return limits.CHAT_ADDRESS_PLAYERS * self.chat_lines


def server_version() -> str:
    """The installed ``boardhall`` distribution's version (``unknown`` when it is not installed,
    say run from a bare checkout)."""
    try:
        return importlib.metadata.version("boardhall")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"
