"""Protocol limits (DESIGN.md "Envelope and replies"), sent to clients in ``welcome.limits``."""

from __future__ import annotations

FRAME_BYTES = 64 * 1024
"""Largest WebSocket frame; a bigger one closes the connection with 1009."""
NAME_CHARS = 32
"""Longest player name."""
CHAT_CHARS = 500
"""Longest chat line (also the longest ``report`` reason)."""
MOVE_CHARS = 200
"""Longest move text."""
POSITION_BYTES = 4 * 1024
"""Longest position string."""
RECORD_BYTES = 48 * 1024
"""Longest game record (PGN, PDN or JSON) sent on ``create``."""
MESSAGES_PER_SECOND = 20
"""Messages a connection may send per second (a token bucket: bursts of two seconds' worth)."""
CHAT_LINES = 5
"""Chat lines one player may say within :data:`CHAT_WINDOW_S` (in all rooms together); the next
is ``rate_limited`` until the oldest of them is that old."""
CHAT_WINDOW_S = 10
"""Window of the chat rate in seconds."""
CHAT_REPEAT_S = 30
"""A chat line the same player said within this many seconds (the same words, whatever the case
and spacing) is ``rate_limited``."""
CHAT_ADDRESS_PLAYERS = 3
"""One client address may say as many chat lines as this many players at their own rate, all
its players and connections together (so a new identity is not a new budget): a household or a
club behind one NAT chats freely, while a spammer who takes identity after identity gets no more
than that. The :data:`CHAT_REPEAT_S` rule holds across the address's players too."""
CHAT_ADDRESS_LINES = CHAT_ADDRESS_PLAYERS * CHAT_LINES
"""Chat lines one client address may say within :data:`CHAT_WINDOW_S`."""

NESTING_DEPTH = 32
"""Deepest nesting of JSON arrays/objects in a frame (messages need 3); deeper is bad_message."""
ID_CHARS = 64
"""Longest message ``id`` string, room code, game or variant id."""
TOKEN_CHARS = 128
"""Longest identity token."""
CLIENT_CHARS = 64
"""Longest ``hello.client`` description."""
OPTIONS_MAX = 32
"""Most entries in an ``options`` object."""
OPTION_TEXT_CHARS = 200
"""Longest string option value."""
CLOCK_SECONDS_MAX = 24 * 3600
"""Largest clock part in seconds."""
FLOOD_ERRORS = 50
"""More errors than this within :data:`FLOOD_WINDOW_S` closes the connection with 1008."""
FLOOD_WINDOW_S = 10
"""Window of the flood rule in seconds."""
