"""The Boardhall pygame client and the headless bot player.

Layout (DESIGN.md "Client"):

- ``app``: the window, the scene stack and the frame loop. Scenes draw on a fixed logical surface
  (1280x800) that is scaled to the window; their text is drawn at the window's own scale.
- ``net``: the WebSocket connection on a background asyncio thread, with thread-safe queues to the
  pygame thread; it reconnects by itself and resumes the identity with its token.
- ``scenes``: connect, lobby, room (with its dialogs), result panel, replay, local start.
- ``room_model`` mirrors a room from the server's messages; ``moves`` turns clicks into moves
  from the engine's legal moves. The client never decides a result.
- ``boards``: one renderer per game. ``local``: a server embedded in this process for hot-seat
  and play-the-computer. ``cli``: the ``boardhall`` command. ``bot``: the headless bot player
  (imports no pygame).
"""
